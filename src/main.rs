//! `mcp-audit` binary: parse the command line into a validated
//! configuration, run the pipeline, print the error chain once, exit
//! 0 / 1 / 2 (DESIGN.md "Command line").

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
    let result = match &cli.command {
        mcp_audit::cli::Command::Diff(args) => mcp_audit::cli::diff(args),
        mcp_audit::cli::Command::Analyze(_) => mcp_audit::cli::config(cli)
            .map_err(anyhow::Error::from)
            .and_then(|config| mcp_audit::pipeline::run(&config)),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("mcp-audit: {e:#}");
            ExitCode::from(2)
        }
    }
}
