//! mcp-audit: an offline auditor of JSON-RPC 2.0 traffic between MCP clients
//! and servers.
//!
//! ```text
//! source ──► ingest ──► records ──► reconstruct ──► analyze ──► report
//! (bytes)    (formats)  (Frame)     (sessions,      (findings,  (terminal,
//!                                    order, pairs)   metrics)    JSON, CSV)
//! ```
//!
//! Modules are listed in pipeline order.
#![deny(missing_docs)]

pub mod analyze;
pub mod cli;
pub mod ingest;
pub mod mem;
pub mod reconstruct;
pub mod record;
pub mod report;
pub mod source;
