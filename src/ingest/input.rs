//! One input handed to a parser.

/// One input handed to a parser.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// Index of the file in the run (goes into every `Provenance`).
    pub file: u32,
    /// The file's display name (for messages only; parsers never open it).
    pub name: &'a str,
    /// The whole decoded text (UTF-8, BOM removed).
    pub text: &'a str,
}
