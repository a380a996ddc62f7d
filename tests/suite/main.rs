//! The integration tests, as one test binary (`autotests = false` in
//! Cargo.toml): each module below was a binary of its own, and each linked
//! polars; one binary links it once.
//!
//! Test data lives in `tests/data/` (`cases/`, `real/`, `real2/`, each with
//! a README and `<file>.expected.json`); the checkers and the traffic
//! generator the tests call are in `tools/`. Both are found at run time
//! from the checkout being tested (`common::root`).

mod common;

mod bad_input;
mod blocks;
mod cases;
mod ci_jobs;
mod ci_reports;
mod cli;
mod determinism;
mod diff;
mod extract;
mod gaps;
mod gates;
mod generated;
mod hostile;
mod html;
mod http_rules;
mod inputs;
mod matrix;
mod never_panic;
mod nightly;
mod nothing_lost;
mod operations;
mod otlp;
mod parquet_duckdb;
mod rust_gen;
