#!/usr/bin/env python3
"""Benchmark mcp-audit against the tools users would use instead, in one run
on the same files (issue 5).

    scripts/bench.py [--size-mb 200] [--har-mb 100] [--skip-peers] [--repeat 2] [--out reports/bench-latest.md]
                     [--generator rust|python]

Makes corpora (envelope, claude and har, faults on) under target/corpora/
with the Rust generator gen-traffic (gen/, built here with cargo; files
rs-*) or, with --generator python, tools/gen_traffic.py (files without the
prefix), then times, on each file:
  - the floor `wc -l`,
  - `mcp-audit analyze` with --threads 1 and --threads 2 (outputs compared),
  - on the envelope corpus, the peers in tools/peers/ (Python,
    DuckDB, jq),
  - once more with --threads 1 and MCP_AUDIT_TIMINGS=1, which prints the
    wall time of each stage and of each output file (src/timings.rs): the
    per-output table (summary.json, each CSV, each Parquet, report.html).
Each run goes through `/usr/bin/time -v` for wall time and peak RSS. Prints
a Markdown table (MB/s, ratio of each tool to mcp-audit, peak RSS) and checks
mcp-audit's summary.json against the generator's manifest with
check_manifest.py. Needs: python3, /usr/bin/time (Debian `time`), and for
the peers DuckDB (`pip install duckdb`) and jq (`apt-get install jq`); the
script installs what is missing when it can.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
CORPORA = os.path.join(ROOT, "target", "corpora")
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
BIN = os.path.join(TARGET, "release", "mcp-audit")
GEN = os.path.join(TARGET, "release", "gen-traffic")
# Fault kinds the peers implement the same way (see tools/README.md).
PEER_KINDS = ("duplicate_id,id_reused,unknown_id_response,duplicate_response,missing_response,late_response,"
              "cancelled_request,null_id_error,invalid_request,bad_jsonrpc_version,result_and_error,"
              "neither_result_nor_error,empty_batch,notification_batch_replied,response_count_mismatch,"
              "fractional_id,null_request_id,batch_after_version_removed,non_json_line,slow_tail")
# The same list less the two kinds gen-traffic does not inject
# (notification_batch_replied, batch_after_version_removed).
RUST_PEER_KINDS = ",".join(k for k in PEER_KINDS.split(",")
                           if k not in ("notification_batch_replied", "batch_after_version_removed"))


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def timed(cmd, stdout=subprocess.DEVNULL):
    """(wall seconds, peak RSS MB) of one command, via /usr/bin/time -v."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=stdout, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    rss = int(m.group(1)) / 1024 if m else float("nan")
    if p.returncode not in (0, 1):
        sys.stderr.write(p.stderr[-2000:])
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}")
    return wall, rss


def stages(path, out_dir):
    """[(stage, ms)] of one --threads 1 run with every output, from the
    `timing: NAME X ms` lines MCP_AUDIT_TIMINGS=1 prints on stderr."""
    env = dict(os.environ, MCP_AUDIT_TIMINGS="1")
    p = subprocess.run([BIN, "analyze", path, "--out", out_dir, "-q", "--threads", "1"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode not in (0, 1):
        raise SystemExit(f"failed ({p.returncode}): timings on {path}\n{p.stderr[-2000:]}")
    return [(m.group(1), float(m.group(2)))
            for m in re.finditer(r"^timing: (.+) ([0-9.]+) ms$", p.stderr, re.M)]


def stage_table(per_stage):
    """Markdown rows: every stage of every corpus with its share of the
    run, then each output format summed (CSV, Parquet, HTML)."""
    out = ["| corpus | stage (--threads 1, outputs one after another) | ms | share of the run |",
           "|---|---|---:|---:|"]
    for fmt, st in per_stage:
        total = sum(ms for name, ms in st if name in ("analysis", "--out (every file)", "stdout"))
        for name, ms in st:
            out.append(f"| {fmt} | {name} | {ms:.0f} | {100 * ms / total:.1f} % |" if total else
                       f"| {fmt} | {name} | {ms:.0f} | – |")
        groups = {"CSV files": ".csv", "Parquet files": ".parquet", "report.html": "report.html"}
        for label, key in groups.items():
            ms = sum(v for n, v in st if n.endswith(key) or n.startswith(key))
            out.append(f"| {fmt} | **{label}, together** | {ms:.0f} | {100 * ms / total:.1f} % |" if total else
                       f"| {fmt} | **{label}, together** | {ms:.0f} | – |")
    return out


def ensure_peers():
    ok = True
    try:
        import duckdb  # noqa: F401
    except ImportError:
        ok &= subprocess.run([sys.executable, "-m", "pip", "install", "-q", "duckdb"]).returncode == 0
    if shutil.which("jq") is None:
        subprocess.run(["apt-get", "install", "-y", "-qq", "jq"], stdout=subprocess.DEVNULL)
        ok &= shutil.which("jq") is not None
    return ok


def gen(generator, fmt, size_mb, seed, name, peer_kinds=False):
    rust = generator == "rust"
    out = os.path.join(CORPORA, ("rs-" if rust else "") + name)
    man = out + ".manifest.json"
    if not (os.path.exists(out) and os.path.exists(man)):
        if rust:
            cmd = [GEN, "--format", fmt, "--size-mb", str(size_mb), "--seed", str(seed), "--faults", "0.03",
                   "--out", out, "--manifest", man, "-q"]
        else:
            cmd = [sys.executable, os.path.join(TOOLS, "gen_traffic.py"), "--format", fmt, "--size-mb", str(size_mb),
                   "--seed", str(seed), "--faults", "0.03", "--out", out, "--manifest", man, "--manifest-summary-only",
                   "-q"]
        if peer_kinds:
            cmd += ["--fault-kinds", RUST_PEER_KINDS if rust else PEER_KINDS]
        sh(cmd)
    return out, man


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=int, default=200)
    ap.add_argument("--har-mb", type=int, default=100)
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--repeat", type=int, default=2, help="runs of each analysis-only timing (the fastest is shown)")
    ap.add_argument("--out", default=None, help="also write the table to this Markdown file")
    ap.add_argument("--generator", choices=("rust", "python"), default="rust",
                    help="gen-traffic (gen/, default) or tools/gen_traffic.py")
    a = ap.parse_args()
    os.makedirs(CORPORA, exist_ok=True)
    sh(["cargo", "build", "--release", "-q"], cwd=ROOT)
    if a.generator == "rust":
        sh(["cargo", "build", "--release", "-q", "-p", "mcp-audit-gen"], cwd=ROOT)
    peers = not a.skip_peers and ensure_peers()
    rows = []
    checks = []
    speedups = []
    per_corpus = {}
    per_stage = []
    corpora = [
        ("envelope", *gen(a.generator, "envelope", a.size_mb, 200, f"env{a.size_mb}.ndjson", peer_kinds=True)),
        ("claude", *gen(a.generator, "claude", a.size_mb, 201, f"claude{a.size_mb}.log")),
        ("har", *gen(a.generator, "har", a.har_mb, 202, f"har{a.har_mb}.har")),
    ]
    for fmt, path, manifest in corpora:
        mb = os.path.getsize(path) / 1e6
        results = {}
        w, r = timed(["wc", "-l", path])
        results["wc -l"] = (w, r)
        outs = {}
        for t in (1, 2):
            od = os.path.join(CORPORA, f"out-{fmt}-t{t}")
            w, r = timed([BIN, "analyze", path, "--out", od, "-q", "--threads", str(t)])
            results[f"mcp-audit --threads {t}"] = (w, r)
            outs[t] = od
        # The analysis alone (no output files): what reading and pairing cost;
        # the fastest of --repeat runs (this box is shared: noise only adds).
        for t in (1, 2):
            runs = [timed([BIN, "analyze", path, "-q", "--threads", str(t)]) for _ in range(a.repeat)]
            results[f"mcp-audit --threads {t}, no --out"] = min(runs)
        speedups.append((fmt, results["mcp-audit --threads 1, no --out"][0] / results["mcp-audit --threads 2, no --out"][0],
                         results["mcp-audit --threads 1"][0] / results["mcp-audit --threads 2"][0]))
        same = all(open(os.path.join(outs[1], n), "rb").read() == open(os.path.join(outs[2], n), "rb").read()
                   for n in ("summary.json", "pairs.csv", "findings.csv"))
        c = subprocess.run([sys.executable, os.path.join(TOOLS, "check_manifest.py"), manifest,
                            os.path.join(outs[2], "summary.json")], capture_output=True, text=True)
        checks.append((fmt, c.stdout.strip().splitlines()[-1] if c.stdout else c.stderr.strip(), same))
        if peers and fmt == "envelope":
            peer_dir = os.path.join(TOOLS, "peers")
            with open(os.path.join(CORPORA, "peer-py.json"), "w") as f:
                results["peer: Python (pair.py)"] = timed([sys.executable, os.path.join(peer_dir, "pair.py"), path], stdout=f)
            env = dict(os.environ, PYTHON=sys.executable)
            t0 = time.perf_counter()
            p = subprocess.run(["/usr/bin/time", "-v", "bash", os.path.join(peer_dir, "run_duckdb.sh"), path],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
            m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
            results["peer: DuckDB (pair_duckdb.sql)"] = (time.perf_counter() - t0, int(m.group(1)) / 1024 if m else float("nan"))
            if shutil.which("jq"):
                results["peer: jq (pair.jq)"] = timed(["jq", "-n", "-R", "-f", os.path.join(peer_dir, "pair.jq"), path])
        per_corpus[fmt] = results
        per_stage.append((fmt, stages(path, os.path.join(CORPORA, f"out-{fmt}-stages"))))
        base = results["mcp-audit --threads 2"][0]
        for tool, (w, r) in results.items():
            rows.append((fmt, f"{mb:.0f}", tool, f"{w:.2f}", f"{mb / w:.0f}", f"{w / base:.2f}", f"{r:.0f}"))
    table = ["| corpus | MB | tool | seconds | MB/s | time ÷ mcp-audit (2 threads) | peak RSS MB |",
             "|---|---|---|---|---|---|---|"]
    table += ["| " + " | ".join(r) + " |" for r in rows]
    table += ["", "| corpus | check_manifest.py (mcp-audit, 2 threads) | 1 and 2 threads identical |", "|---|---|---|"]
    table += [f"| {f} | {c} | {'yes' if s else 'NO'} |" for f, c, s in checks]
    table += ["", "| corpus | speed-up 2 threads ÷ 1, analysis only | with every output |", "|---|---|---|"]
    table += [f"| {f} | {x:.2f}× | {y:.2f}× |" for f, x, y in speedups]
    table += ["", "Issue 13's targets, from the rows above:", "",
              "| corpus | every output ÷ analysis only (rate, 2 threads; ≥ 0.75) | 2 threads ÷ 1, every output (≥ 1.7) "
              "| analysis only ÷ `wc -l` (rate; line logs ≥ 10 %) | DuckDB peer ÷ mcp-audit, every output (≥ 10) "
              "| peak RSS MB, every output (< 256) |",
              "|---|---|---|---|---|---|"]
    for fmt, r in per_corpus.items():
        out2, ana2 = r["mcp-audit --threads 2"][0], r["mcp-audit --threads 2, no --out"][0]
        out1, wc = r["mcp-audit --threads 1"][0], r["wc -l"][0]
        duck = r.get("peer: DuckDB (pair_duckdb.sql)")
        rss = max(r["mcp-audit --threads 1"][1], r["mcp-audit --threads 2"][1])
        table.append(f"| {fmt} | {ana2 / out2:.2f} | {out1 / out2:.2f}× | {100 * wc / ana2:.1f} % | "
                     f"{f'{duck[0] / out2:.1f}×' if duck else '–'} | {rss:.0f} |")
    table += ["", "Where a run with every output goes (one run per corpus; the tables' rows and frames are built "
              "once and shared by the CSV and the Parquet file):", ""]
    table += stage_table(per_stage)
    text = "\n".join(table)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
