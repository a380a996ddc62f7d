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
            if code == 2 && std::env::args().nth(1).as_deref() == Some("extract") {
                // extract's bad arguments are one line (its --help says so).
                let text = e.render().to_string();
                let first = text.lines().next().unwrap_or_default();
                eprintln!(
                    "mcp-audit extract: {}",
                    first.strip_prefix("error: ").unwrap_or(first)
                );
            } else {
                let _ = e.print();
            }
            return ExitCode::from(code);
        }
    };

    let result = match &cli.command {
        mcp_audit::cli::Command::Diff(args) => mcp_audit::cli::diff(args),
        mcp_audit::cli::Command::Extract(args) => Ok(mcp_audit::cli::extract(args)),
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
