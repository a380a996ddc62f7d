//! `mcp-audit` binary: parse the command line into a validated
//! configuration, run the pipeline, print the error chain once, exit
//! 0 / 1 / 2 (DESIGN.md "Command line").

use std::process::ExitCode;

use clap::FromArgMatches;

fn main() -> ExitCode {
    let parsed = mcp_audit::cli::command()
        .try_get_matches()
        .and_then(|m| mcp_audit::cli::Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let extract = std::env::args().nth(1).as_deref() == Some("extract");
            if code == 2
                && let Some(line) = mcp_audit::cli::bad_value_line(&e)
            {
                let who = if extract {
                    "mcp-audit extract"
                } else {
                    "mcp-audit"
                };
                eprintln!("{who}: {line}");
            } else if code == 2 && extract {
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
