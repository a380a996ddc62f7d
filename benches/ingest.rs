//! Criterion benches per input format (`Throughput::Bytes`): parsing alone,
//! and parsing plus the pipeline's analysis (`pipeline::analyze_parsed`).
//! Corpora come from the Rust generator (`gen/`, crate `mcp-audit-gen`):
//! 20 MB per format, seed 7, faults 0.03, made in memory at the start
//! (about 0.2 s each), so they always match the generator being built.
//!
//! ```text
//! cargo bench --bench ingest
//! ```

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_audit::analyze::Config;
use mcp_audit::ingest::{self, Input};
use mcp_audit::pipeline;
use mcp_audit_gen::{Format, Options, generate};

fn corpus(format: Format) -> String {
    let opts = Options {
        format,
        seed: 7,
        faults: 0.03,
        size_bytes: Some(20_000_000),
        ..Options::default()
    };
    let mut buf = Vec::new();
    generate(&opts, &mut buf).expect("generate corpus");
    String::from_utf8(buf).expect("the generator writes UTF-8")
}

fn bench(c: &mut Criterion) {
    let cfg = Config::default();
    for format in [
        Format::Envelope,
        Format::Claude,
        Format::Logger,
        Format::Har,
    ] {
        let text = corpus(format);
        let fmt = ingest::detect_format(&text);
        let mut g = c.benchmark_group(format.name());
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
