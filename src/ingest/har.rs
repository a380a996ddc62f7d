//! Placeholder, being written.
use super::Input;
use crate::record::Parsed;
/// HAR.
pub fn parse(_input: Input<'_>) -> Parsed { Parsed::default() }
