//! `gen-traffic`: writes synthetic MCP traffic and its exact manifest.
//!
//! ```text
//! gen-traffic --format envelope|claude|har|logger --out PATH [--manifest PATH]
//!     [--sessions N] [--messages M] [--seed S] [--faults RATE]
//!     [--batch-rate R] [--batch-sessions R] [--modern-sessions R] [--size-mb X] [--fault-kinds k1,k2,...] [-q]
//! ```
//!
//! The manifest defaults to `OUT.manifest.json`. Same arguments, same
//! bytes. Exit 0 on success, 2 on a bad argument or a write error.

use std::fs::File;
use std::process::ExitCode;
use std::time::Instant;

use mcp_audit_gen::{Fault, Format, Options, generate};

const USAGE: &str = "usage: gen-traffic --format envelope|claude|har|logger --out PATH [--manifest PATH] [--sessions N] [--messages M] [--seed S] [--faults RATE] [--batch-rate R] [--batch-sessions R] [--modern-sessions R] [--size-mb X] [--fault-kinds k1,k2,...] [-q]";

/// The command line, parsed.
struct Args {
    opts: Options,
    out: String,
    manifest: String,
    quiet: bool,
}

/// Parses the command line; `None` when it asked for the help text.
fn parse_args() -> Result<Option<Args>, String> {
    let mut opts = Options::default();
    let mut out = None;
    let mut manifest = None;
    let mut quiet = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "-q" {
            quiet = true;
            continue;
        }
        if a == "-h" || a == "--help" {
            println!("{USAGE}");
            return Ok(None);
        }
        let v = args
            .next()
            .ok_or_else(|| format!("gen-traffic: {a} needs a value\n{USAGE}"))?;
        match a.as_str() {
            "--out" => out = Some(v),
            "--manifest" => manifest = Some(v),
            _ => set_option(&mut opts, &a, &v)?,
        }
    }
    let out = out.ok_or_else(|| format!("gen-traffic: --out is required\n{USAGE}"))?;
    let manifest = manifest.unwrap_or_else(|| format!("{out}.manifest.json"));
    Ok(Some(Args {
        opts,
        out,
        manifest,
        quiet,
    }))
}

/// Sets the generator option `--a` to the value `v`.
fn set_option(opts: &mut Options, a: &str, v: &str) -> Result<(), String> {
    let bad = |what: &str| format!("gen-traffic: {a} {v:?}: {what}");
    match a {
        "--format" => {
            opts.format =
                Format::parse(v).ok_or_else(|| bad("not envelope, claude, har or logger"))?
        }
        "--sessions" => opts.sessions = v.parse().map_err(|_| bad("not a count"))?,
        "--messages" => opts.messages = v.parse().map_err(|_| bad("not a count"))?,
        "--seed" => opts.seed = v.parse().map_err(|_| bad("not an integer"))?,
        "--faults" | "--batch-rate" | "--batch-sessions" | "--modern-sessions" => {
            let r: f64 = v.parse().map_err(|_| bad("not a number"))?;
            if !(0.0..=1.0).contains(&r) {
                return Err(bad("not between 0 and 1"));
            }
            match a {
                "--faults" => opts.faults = r,
                "--batch-rate" => opts.batch_rate = r,
                "--batch-sessions" => opts.batch_sessions = r,
                _ => opts.modern_sessions = r,
            }
        }
        "--size-mb" => {
            let mb: f64 = v.parse().map_err(|_| bad("not a number"))?;
            if !mb.is_finite() || mb <= 0.0 {
                return Err(bad("not a positive number"));
            }
            opts.size_bytes = Some((mb * 1e6) as u64);
        }
        "--fault-kinds" => {
            let mut kinds = Vec::new();
            for k in v.split(',').filter(|k| !k.is_empty()) {
                let f = Fault::parse(k).ok_or_else(|| {
                    let names: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
                    bad(&format!("{k} is not one of {}", names.join(",")))
                })?;
                if !f.fits(opts.format) {
                    eprintln!(
                        "gen-traffic: {k} cannot be written in {}; left out",
                        opts.format.name()
                    );
                }
                kinds.push(f);
            }
            opts.fault_kinds = Some(kinds);
        }
        _ => return Err(format!("gen-traffic: unknown argument {a}\n{USAGE}")),
    }
    Ok(())
}

fn run() -> Result<(), String> {
    let Some(Args {
        opts,
        out,
        manifest,
        quiet,
    }) = parse_args()?
    else {
        return Ok(());
    };
    let t0 = Instant::now();
    let file = File::create(&out).map_err(|e| format!("gen-traffic: cannot create {out}: {e}"))?;
    let m = generate(&opts, file).map_err(|e| format!("gen-traffic: writing {out}: {e}"))?;
    std::fs::write(&manifest, m.to_json(&opts))
        .map_err(|e| format!("gen-traffic: cannot write {manifest}: {e}"))?;
    if !quiet {
        let s = t0.elapsed().as_secs_f64();
        eprintln!(
            "gen-traffic: {out}: {} bytes, {} sessions, {} messages in {s:.2} s ({:.0} MB/s); manifest {manifest}",
            m.bytes,
            m.totals.sessions,
            m.totals.messages,
            m.bytes as f64 / 1e6 / s.max(1e-9)
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}
