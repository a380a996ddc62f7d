//! `mcp-audit` binary: parse the command line, run, print the error chain
//! once, exit 0 / 1 / 2 (DESIGN.md "Command line").

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match mcp_audit::cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match mcp_audit::cli::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("mcp-audit: {e:#}");
            ExitCode::from(2)
        }
    }
}
