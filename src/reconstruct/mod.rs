//! Reconstruct: records → sessions whose frames stand in causal order.
//!
//! * [`session`] applies DESIGN.md rule 1 (and FORMATS.md §8.1 "Sessions"):
//!   keys, process-start lines and `initialize` requests make sessions.
//! * [`order`] applies rule 4: line logs keep line order, except that a
//!   request written just after the response that answers it with the same
//!   timestamp is read first; HAR frames are ordered by time with each
//!   response-body frame placed where causality puts it inside its body's
//!   window.
//!
//! Pairing itself happens in `analyze`, which walks each session's frames
//! in this order.

pub mod order;
pub mod session;

pub use session::{Session, build_sessions};
