//! Placeholder, being written.
use super::Input;
use crate::record::Parsed;
/// Raw SSE capture (later issue).
pub fn parse_raw(_input: Input<'_>) -> Parsed { Parsed::default() }
