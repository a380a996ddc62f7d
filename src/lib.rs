//! mcp-audit: an offline auditor of JSON-RPC 2.0 traffic between MCP clients
//! and servers.
//!
//! ```text
//! source ──► ingest ──► records ──► reconstruct ──► analyze ──► report
//! (bytes)    (formats)  (Frame)     (sessions,      (findings,  (terminal,
//!                                    order, pairs)   metrics)    JSON, CSV)
//! ```
//!
//! Each stage is a module (`record` holds the records). [`cli`] parses the command line
//! into a validated [`config::RunConfig`]; [`pipeline`] runs it through
//! the stages (the one path the binary, benches, fuzz targets and tests
//! take). [`diff`] compares two runs (`mcp-audit diff`).
#![deny(missing_docs)]

pub mod analyze;
pub mod cli;
pub mod config;
pub mod diag;
pub mod diff;
pub mod extract;
pub mod ingest;
pub mod mem;
pub mod pipeline;
pub mod reconstruct;
pub mod record;
pub mod report;
pub mod source;
pub mod timings;
