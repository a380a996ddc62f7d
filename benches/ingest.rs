//! Criterion benches per input format (`Throughput::Bytes`): parsing alone,
//! and parsing plus the pipeline's analysis (`pipeline::analyze_parsed`).
//! Corpora come from `tools/gen_traffic.py` (made once under
//! target/corpora/bench/).
//!
//! ```text
//! cargo bench --bench ingest
//! ```

use std::path::PathBuf;
use std::process::Command;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_audit::analyze::Config;
use mcp_audit::ingest::{self, Input};
use mcp_audit::pipeline;

fn corpus(format: &str, ext: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/corpora/bench");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let path = dir.join(format!("{format}.{ext}"));
    if !path.exists() {
        let tool = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tools/gen_traffic.py");
        let ok = Command::new("python3")
            .arg(tool)
            .args([
                "--format",
                format,
                "--size-mb",
                "20",
                "--seed",
                "7",
                "--faults",
                "0.03",
                "-q",
                "--out",
            ])
            .arg(&path)
            .arg("--manifest")
            .arg(dir.join(format!("{format}.manifest.json")))
            .arg("--manifest-summary-only")
            .status()
            .expect("gen_traffic.py")
            .success();
        assert!(ok, "gen_traffic.py failed");
    }
    std::fs::read_to_string(path).expect("read corpus")
}

fn bench(c: &mut Criterion) {
    let cfg = Config::default();
    for (format, ext) in [
        ("envelope", "ndjson"),
        ("claude", "log"),
        ("logger", "log"),
        ("har", "har"),
    ] {
        let text = corpus(format, ext);
        let fmt = ingest::detect_format(&text);
        let mut g = c.benchmark_group(format);
        g.sample_size(10);
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function("parse", |b| {
            b.iter(|| {
                ingest::parse(
                    Input {
                        file: 0,
                        name: "corpus",
                        text: &text,
                    },
                    fmt,
                )
                .records
                .len()
            })
        });
        g.bench_function("parse+analyze", |b| {
            b.iter(|| {
                let p = ingest::parse(
                    Input {
                        file: 0,
                        name: "corpus",
                        text: &text,
                    },
                    fmt,
                );
                let input = ("corpus".to_string(), text.len() as u64, p);
                pipeline::analyze_parsed(&cfg, false, vec![input])
                    .analysis
                    .totals
                    .messages
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
