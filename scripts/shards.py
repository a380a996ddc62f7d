#!/usr/bin/env python3
"""Shards beyond one machine (issue 5): each shard (a host, a day) runs
mcp-audit alone and writes its Parquet tables Hive-partitioned into one
shared folder; an existing engine aggregates the shards; the totals must
equal one mcp-audit run over every input at once.

    scripts/shards.py [--work target/shards] [--hosts 3] [--days 2]
                      [--size-mb 3] [--bin PATH] [--engines duckdb,spark]

Steps:
  1. corpus: --hosts x --days shards made by tools/gen_traffic.py,
     each a few MB with faults on and its own seed; hosts differ in format
     (envelope NDJSON, [STDIN]/[STDOUT] proxy log, HAR), as a fleet would.
  2. one mcp-audit run per shard:
       mcp-audit analyze CORPUS/DAY/HOST --shard date=DAY,host=HOST \\
                 --shard-dir WORK/shards -q --fail-on never
  3. one mcp-audit run over the whole corpus (the single-run totals), with
     --per-input, whose per-input summaries must add up to it as well.
  4. aggregate WORK/shards with DuckDB (python package `duckdb`) and with
     Spark (`pyspark`, local mode, needs Java 17+), the same SQL for both,
     and compare with the single run: messages, requests, responses,
     notifications, batches, sessions and pairs (sessions table), findings
     per kind (findings table), latency count and exact nearest-rank p50,
     p99 and max (pairs rows: latency known, status not cancelled).

slow_tail outside batches is the one figure that may differ, and is shown
but not compared: DESIGN.md rule 10 judges a request outside a batch
against the capture-wide median latency, and a shard's capture is that
shard, not the fleet. slow_tail inside a batch (judged against the rest of
its batch) is compared like every other kind.

Install the engines: `python3 -m pip install duckdb pyspark` (add
`--break-system-packages` on a system Python); pyspark needs a Java 17+
runtime (`apt-get install openjdk-17-jre-headless`). Without pyspark the
DuckDB half runs and Spark is reported as skipped. Exit code: 0 when every
engine that ran agrees with the single run, 1 on any mismatch, 2 when a
run or the generator failed.
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
GEN = ROOT / "tools" / "gen_traffic.py"
TABLES = ["findings", "pairs", "batches", "latency", "sessions"]
FORMATS = [("envelope", "ndjson"), ("logger", "log"), ("har", "har")]
COUNTS = ["messages", "requests", "responses", "notifications", "batches", "sessions", "pairs"]

# The same SQL runs in DuckDB and Spark SQL over views named after the tables.
SQL_COUNTS = """
SELECT sum(messages), sum(requests), sum(responses), sum(notifications),
       sum(batches), sum(CASE WHEN traffic THEN 1 ELSE 0 END), sum(pairs)
FROM sessions"""
SQL_KINDS = """
SELECT CASE WHEN kind = 'slow_tail' AND detail LIKE '%of its batch%' THEN 'slow_tail (in a batch)'
            WHEN kind = 'slow_tail' THEN 'slow_tail (outside batches)'
            ELSE kind END AS k, count(*)
FROM findings GROUP BY 1"""
# Nearest rank (DESIGN.md rule 10): the value at 1-based rank ceil(q*n),
# ceil in integers as floor((permille*n + 999) / 1000).
SQL_LATENCY = """
WITH l AS (SELECT latency_ms FROM pairs
           WHERE latency_ms IS NOT NULL AND status <> 'cancelled'),
     r AS (SELECT latency_ms, row_number() OVER (ORDER BY latency_ms) AS rk,
                  count(*) OVER () AS n FROM l)
SELECT max(n),
       max(CASE WHEN rk = floor((500 * n + 999) / 1000) THEN latency_ms END),
       max(CASE WHEN rk = floor((990 * n + 999) / 1000) THEN latency_ms END),
       max(latency_ms)
FROM r"""
SQL_PARTITIONS = """
SELECT CAST(date AS STRING) AS date, host, count(*) AS sessions, sum(requests) AS requests
FROM sessions GROUP BY 1, 2 ORDER BY 1, 2"""


def run(cmd, ok=(0,)):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in ok:
        print(f"FAILED ({p.returncode}): {' '.join(map(str, cmd))}\n{p.stdout}{p.stderr}")
        sys.exit(2)
    return time.time() - t


def find_bin(arg):
    if arg:
        return pathlib.Path(arg)
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    b = target / "release" / "mcp-audit"
    if not b.exists():
        print(f"{b} not found: run `cargo build --release` first, or pass --bin")
        sys.exit(2)
    return b


def make_corpus(work, hosts, days, size_mb):
    corpus = work / "corpus"
    (work / "manifests").mkdir(parents=True, exist_ok=True)
    shards = []
    for d in range(days):
        day = f"2026-11-{29 + d:02d}"
        for h in range(hosts):
            host = f"web{h + 1}"
            fmt, ext = FORMATS[h % len(FORMATS)]
            seed = 100 * (d + 1) + h + 1
            folder = corpus / day / host
            folder.mkdir(parents=True, exist_ok=True)
            out = folder / f"mcp-{host}-{day}.{ext}"
            if not out.exists():
                run([sys.executable, str(GEN), "--format", fmt, "--size-mb", str(size_mb),
                     "--faults", "0.03", "--seed", str(seed), "--out", str(out),
                     "--manifest", str(work / "manifests" / f"{day}-{host}.json"),
                     "--manifest-summary-only", "-q"])
            shards.append((day, host, folder, out.stat().st_size))
    return corpus, shards


def single_run(summary):
    s = json.loads(summary.read_text())
    want = {c: s["totals"][c] for c in COUNTS}
    kinds = {k: n for k, n in s["findings_by_kind"].items() if n}
    st_in = sum(1 for f in s["findings"]
                if f["kind"] == "slow_tail" and "of its batch" in f["detail"])
    st_out = kinds.pop("slow_tail", 0) - st_in
    if st_in:
        kinds["slow_tail (in a batch)"] = st_in
    lat = s["latency_ms"]
    return s, want, kinds, st_out, (lat["count"], lat["p50"], lat["p99"], lat["max"])


def compare(engine, got, single, say):
    want, kinds, st_out, lat = single
    rows, bad = [], 0
    counts, gkinds, glat = got
    for c, g in zip(COUNTS, counts):
        rows.append((c, want[c], g))
    for k in sorted(set(kinds) | set(gkinds)):
        if k == "slow_tail (outside batches)":
            continue
        rows.append((f"findings: {k}", kinds.get(k, 0), gkinds.get(k, 0)))
    for name, w, g in zip(["latency count", "latency p50_ms", "latency p99_ms", "latency max_ms"],
                          lat, glat):
        rows.append((name, w, g))
    width = max(len(r[0]) for r in rows)
    say(f"\n{engine}: shards aggregated vs one run over every input")
    say(f"  {'figure':<{width}}  {'single run':>12}  {engine:>12}  check")
    for name, w, g in rows:
        ok = (w == g) if not isinstance(w, float) else (g is not None and float(g) == w)
        bad += not ok
        say(f"  {name:<{width}}  {w!s:>12}  {g!s:>12}  {'ok' if ok else 'MISMATCH'}")
    so = gkinds.get("slow_tail (outside batches)", 0)
    say(
        f"  {'slow_tail (outside batches)':<{width}}  {st_out!s:>12}  {so!s:>12}  not compared"
        f"{' (equal here)' if so == st_out else ''}: rule 10 judges it against each run's own "
        "capture-wide median")
    return bad


def duckdb_figures(shards_dir):
    import duckdb
    con = duckdb.connect()
    for t in TABLES:
        glob = (shards_dir / t / "**" / "*.parquet").as_posix()
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{glob}', hive_partitioning = true)")
    counts = [int(x or 0) for x in con.execute(SQL_COUNTS).fetchone()]
    kinds = {k: int(n) for k, n in con.execute(SQL_KINDS).fetchall()}
    lat = con.execute(SQL_LATENCY).fetchone()
    lat = (int(lat[0] or 0),) + tuple(None if x is None else float(x) for x in lat[1:])
    parts = con.execute(SQL_PARTITIONS.replace("STRING", "VARCHAR")).fetchall()
    cols = [r[0] for r in con.execute("DESCRIBE sessions").fetchall()]
    return (counts, kinds, lat), parts, cols


def spark_figures(shards_dir, log):
    """Spark's own chatter (JVM warnings, log4j) goes to `log`, not the table."""
    saved = os.dup(2)
    with open(log, "w") as f:
        os.dup2(f.fileno(), 2)
    try:
        return _spark_figures(shards_dir)
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _spark_figures(shards_dir):
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").appName("mcp-audit-shards")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.memory", "2g")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for t in TABLES:
            spark.read.parquet(str(shards_dir / t)).createOrReplaceTempView(t)
        counts = [int(x or 0) for x in spark.sql(SQL_COUNTS).collect()[0]]
        kinds = {r[0]: int(r[1]) for r in spark.sql(SQL_KINDS).collect()}
        lat = list(spark.sql(SQL_LATENCY).collect()[0])
        lat = (int(lat[0] or 0),) + tuple(None if x is None else float(x) for x in lat[1:])
        parts = [tuple(r) for r in spark.sql(SQL_PARTITIONS).collect()]
        cols = spark.table("sessions").columns
        return (counts, kinds, lat), parts, cols, spark.version
    finally:
        spark.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", default=str(ROOT / "target" / "shards"))
    ap.add_argument("--hosts", type=int, default=3)
    ap.add_argument("--days", type=int, default=2)
    ap.add_argument("--size-mb", type=float, default=3)
    ap.add_argument("--bin")
    ap.add_argument("--engines", default="duckdb,spark")
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    exe = find_bin(a.bin)

    def say(text):
        print(text, flush=True)

    corpus, shards = make_corpus(work, a.hosts, a.days, a.size_mb)
    shards_dir = work / "shards"
    shutil.rmtree(shards_dir, ignore_errors=True)
    say(f"corpus: {len(shards)} shards, {sum(s[3] for s in shards) / 1e6:.1f} MB in {corpus}")
    for day, host, folder, size in shards:
        t = run([exe, "analyze", folder, "--shard", f"date={day},host={host}",
                 "--shard-dir", shards_dir, "-q", "--fail-on", "never"])
        say(f"  shard date={day} host={host}: {size / 1e6:5.1f} MB, {t:5.2f} s")
    single = work / "single"
    shutil.rmtree(single, ignore_errors=True)
    t = run([exe, "analyze", corpus, "--out", single, "--per-input", "-q", "--fail-on", "never"])
    say(f"single run over the whole corpus: {t:.2f} s -> {single}")
    s, want, kinds, st_out, lat = single_run(single / "summary.json")
    failures = 0

    # --per-input: the inputs' summaries add up to the run.
    index = json.loads((single / "inputs" / "index.json").read_text())
    sums = {c: 0 for c in COUNTS}
    nfind = 0
    for row in index["inputs"]:
        p = json.loads((single / row["summary"]).read_text())
        for c in COUNTS:
            sums[c] += p["totals"][c]
        nfind += len(p["findings"])
    ok = sums == want and nfind == len(s["findings"])
    failures += not ok
    say(f"per-input summaries ({len(index['inputs'])}) add up to the single run: "
        f"{'ok' if ok else 'MISMATCH ' + repr((sums, want))}")

    files = sorted(p.relative_to(shards_dir).as_posix() for p in shards_dir.rglob("*.parquet"))
    say(f"shard files: {len(files)}, e.g. {files[0]}")

    engines = [e.strip() for e in a.engines.split(",") if e.strip()]
    single_fig = (want, kinds, st_out, lat)
    for engine in engines:
        if engine == "duckdb":
            try:
                import duckdb  # noqa: F401
            except ImportError:
                say("\nduckdb: skipped (python3 -m pip install duckdb)")
                continue
            t = time.time()
            got, parts, cols = duckdb_figures(shards_dir)
            failures += compare(f"duckdb {duckdb.__version__}", got, single_fig, say)
            say(f"  ({time.time() - t:.1f} s; hive partition columns: {cols[-2:]})")
            say("  per partition: " + ", ".join(f"{d}/{h}: {n} sessions, {r} requests"
                                                 for d, h, n, r in parts))
        elif engine == "spark":
            try:
                import pyspark  # noqa: F401
            except ImportError:
                say("\nspark: skipped: pyspark is not installed "
                    "(python3 -m pip install pyspark; needs Java 17+)")
                continue
            t = time.time()
            got, parts, cols, version = spark_figures(shards_dir, work / "spark.log")
            failures += compare(f"spark {version}", got, single_fig, say)
            say(f"  ({time.time() - t:.1f} s incl. JVM start; hive partition columns: {cols[-2:]})")
            say("  per partition: " + ", ".join(f"{d}/{h}: {n} sessions, {r} requests"
                                                 for d, h, n, r in parts))
        else:
            say(f"\n{engine}: unknown engine (duckdb, spark)")
            failures += 1
    print(f"\n{'OK: every engine agrees with the single run' if not failures else f'{failures} MISMATCH(ES)'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
