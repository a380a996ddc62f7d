#!/usr/bin/env python3
"""Reads mcp-audit's Parquet outputs with DuckDB and checks them against the
run's summary.json and the documented schema (reports/SCHEMA.md).

usage: duckdb_check.py SCHEMA.md RUNS_DIR
  RUNS_DIR holds one --out folder per run (RUNS_DIR/*/summary.json). Each
  run is checked alone, then all of them at once through a glob, as the
  README's query over a folder of runs does.
Prints one line per check; exits 1 on any mismatch.
"""
import json
import pathlib
import re
import sys

import duckdb

TYPES = {
    "string": "VARCHAR",
    "int64": "BIGINT",
    "float64": "DOUBLE",
    "bool": "BOOLEAN",
    "timestamp": "TIMESTAMP WITH TIME ZONE",
}
TABLES = ["findings", "pairs", "batches", "latency", "sessions"]
failures = []


def check(what, got, want):
    if got == want:
        print(f"ok   {what}")
    else:
        print(f"FAIL {what}: duckdb {got!r} != expected {want!r}")
        failures.append(what)


def documented(schema_md):
    """{table: [(column, duckdb type)]} from the '## table' sections."""
    out, table = {}, None
    for line in pathlib.Path(schema_md).read_text().splitlines():
        m = re.match(r"## (\w+)$", line)
        if m:
            table = m.group(1) if m.group(1) in TABLES else None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if table and line.startswith("|") and len(cells) >= 2 and cells[1] in TYPES:
            out.setdefault(table, []).append((cells[0], TYPES[cells[1]]))
    return out


def q(con, sql, *args):
    return con.execute(sql, list(args)).fetchall()


def one_run(con, d, schema):
    s = json.loads((d / "summary.json").read_text())
    name = d.name
    p = lambda t: str(d / f"{t}.parquet")
    for t in TABLES:
        cols = [(r[0], r[1]) for r in q(con, f"DESCRIBE SELECT * FROM read_parquet('{p(t)}')")]
        check(f"{name}: {t}.parquet columns and types as documented", cols, schema[t])
    t = s["totals"]
    # findings
    by_kind = dict(q(con, f"SELECT kind, count(*) FROM read_parquet('{p('findings')}') GROUP BY kind"))
    check(f"{name}: findings per kind", by_kind, {k: n for k, n in s["findings_by_kind"].items() if n})
    check(f"{name}: findings total", q(con, f"SELECT count(*) FROM read_parquet('{p('findings')}')")[0][0], len(s["findings"]))
    sev = dict(q(con, f"SELECT severity, count(*) FROM read_parquet('{p('findings')}') GROUP BY severity"))
    want_sev = {}
    for f in s["findings"]:
        want_sev[f["severity"]] = want_sev.get(f["severity"], 0) + 1
    check(f"{name}: findings per severity", sev, want_sev)
    # pairs: one row per request; statuses against the findings they mirror
    pairs = p("pairs")
    check(f"{name}: pair rows = totals.requests", q(con, f"SELECT count(*) FROM read_parquet('{pairs}')")[0][0], t["requests"])
    status = dict(q(con, f"SELECT status, count(*) FROM read_parquet('{pairs}') GROUP BY status"))
    check(f"{name}: late pairs = late_response findings", status.get("late", 0), s["findings_by_kind"].get("late_response", 0))
    check(f"{name}: cancelled pairs = cancelled_request findings", status.get("cancelled", 0), s["findings_by_kind"].get("cancelled_request", 0))
    check(f"{name}: pair statuses are the documented ones", set(status) <= {"paired", "late", "missing", "cancelled", "invalid"}, True)
    lat = s["latency_ms"]
    counted = q(con, f"SELECT count(*) FROM read_parquet('{pairs}') WHERE latency_ms IS NOT NULL AND status <> 'cancelled'")[0][0]
    check(f"{name}: pair latencies counted = latency_ms.count", counted, lat["count"])
    # latency: the overall row is summary.json's latency_ms
    row = q(con, f"SELECT count, p50_ms, p90_ms, p99_ms, max_ms FROM read_parquet('{p('latency')}') WHERE dimension = 'all'")
    want = [(lat["count"], lat["p50"], lat["p90"], lat["p99"], lat["max"])] if lat["count"] else []
    check(f"{name}: latency 'all' row = latency_ms", row, want)
    for dim in ["method", "server", "batch_size"]:
        n = q(con, f"SELECT coalesce(sum(count), 0) FROM read_parquet('{p('latency')}') WHERE dimension = '{dim}'")[0][0]
        check(f"{name}: latency counts per {dim} add up to latency_ms.count", n, lat["count"])
    # batches: the batch metrics of DESIGN.md
    m = s["metrics"]
    b = p("batches")
    check(f"{name}: request batches = batch.size.count",
          q(con, f"SELECT count(*) FROM read_parquet('{b}') WHERE requests + notifications > 0")[0][0], m["batch.size"]["count"])
    sizes = q(con, f"SELECT min(size), max(size) FROM read_parquet('{b}') WHERE requests + notifications > 0")[0]
    check(f"{name}: batch sizes min, max = batch.size", list(sizes), [m["batch.size"]["min"], m["batch.size"]["max"]])
    sums = q(con, f"SELECT coalesce(sum(unknown_id_responses), 0), coalesce(sum(null_id_responses), 0) FROM read_parquet('{b}')")[0]
    check(f"{name}: batch unknown-id, null-id responses", list(sums), [m["batch.unknown_id_response"], m["batch.null_id_response"]])
    check(f"{name}: batches with a member in pairs exist",
          q(con, f"SELECT count(*) FROM read_parquet('{pairs}') p LEFT JOIN read_parquet('{b}') b USING (batch) WHERE p.batch IS NOT NULL AND b.batch IS NULL")[0][0], 0)
    # sessions: sums are the totals
    cols = ["messages", "requests", "notifications", "responses", "batches", "pairs", "non_json_lines"]
    got = q(con, "SELECT " + ", ".join(f"coalesce(sum({c}), 0)" for c in cols) + f", count(*) FILTER (WHERE traffic), coalesce(sum(findings), 0) FROM read_parquet('{p('sessions')}')")[0]
    check(f"{name}: session sums = totals", list(got), [t[c] for c in cols] + [t["sessions"], len(s["findings"])])
    sm = q(con, f"SELECT coalesce(sum(batch_response_count_mismatch), 0), coalesce(sum(batch_missing_response), 0), coalesce(sum(batch_size_count), 0) FROM read_parquet('{p('sessions')}')")[0]
    check(f"{name}: session batch metrics add up", list(sm),
          [m["batch.response_count_mismatch"], m["batch.missing_response"], m["batch.size"]["count"]])
    return s


def main():
    schema_md, runs = sys.argv[1], pathlib.Path(sys.argv[2])
    schema = documented(schema_md)
    check("SCHEMA.md documents every table", sorted(schema), sorted(TABLES))
    con = duckdb.connect()
    dirs = sorted(d for d in runs.iterdir() if (d / "summary.json").exists())
    check("runs found", len(dirs) >= 2, True)
    summaries = [one_run(con, d, schema) for d in dirs]
    # Many runs at once, as in README.md.
    glob = str(runs / "*" / "findings.parquet")
    got = dict(q(con, f"SELECT kind, count(*) FROM read_parquet('{glob}') GROUP BY kind"))
    want = {}
    for s in summaries:
        for k, n in s["findings_by_kind"].items():
            if n:
                want[k] = want.get(k, 0) + n
    check(f"all runs: findings per kind over {glob}", got, want)
    got = q(con, f"SELECT count(DISTINCT filename) FROM read_parquet('{runs / '*' / 'pairs.parquet'}', filename = true)")[0][0]
    check("all runs: one pairs.parquet per run", got, len(dirs))
    got = q(con, f"SELECT coalesce(sum(requests), 0) FROM read_parquet('{runs / '*' / 'sessions.parquet'}')")[0][0]
    check("all runs: requests over every run", got, sum(s["totals"]["requests"] for s in summaries))
    n = len(failures)
    print(f"{n} failed" if n else "all checks passed")
    sys.exit(1 if n else 0)


if __name__ == "__main__":
    main()
