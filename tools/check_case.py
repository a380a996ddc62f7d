#!/usr/bin/env python3
"""Check mcp-audit's output for one case against the case's expected facts.

Usage:
  check_case.py EXPECTED_JSON SUMMARY_JSON [PAIRS_CSV]
  check_case.py --all CASES_DIR OUT_DIR [--no-pairs] [-v]

EXPECTED_JSON is a `<case>.expected.json` (see tests/data/cases/README.md).
SUMMARY_JSON and PAIRS_CSV are what `mcp-audit analyze <input> --out DIR`
writes (DESIGN.md: "summary.json (the contract for scripts)", pairs.csv).

What is compared:
  * totals.requests, .notifications, .responses, .batches exactly, and
    totals.sessions when the case gives counts.sessions (a list there means
    "any of these values").
  * findings, as a multiset of (kind, id). Ids compare by JSON type and value
    (1 is not "1"); an expected finding's `alt_ids` are other ids it may be
    reported under; for batch-level kinds the id is a list of the batch's
    ids compared as a multiset, and null equals []. Every expected finding
    must be reported. With `expect_exact`, nothing else may be reported except
    what `optional_findings` lists (each optional entry covers at most one
    reported finding).
  * with PAIRS_CSV: one row per request; for each request id, how many of its
    requests are paired (rows with status cancelled or invalid may count
    either way); and each `latency_ms` entry [id, response position, ms]
    must have a row with that id whose latency_ms is within 1 ms, or empty
    when ms is null (a log without timestamps).

Prints a table of mismatches (none when all holds) and, last, one verdict line
such as `case b05: ok` or `case b05: 2 mismatches`. Exit status: 0 all holds,
1 any mismatch, 2 usage error or unreadable expected file.

--all runs every case in CASES_DIR against OUT_DIR/<case>/summary.json and
OUT_DIR/<case>/pairs.csv (<case> is the full case name or its short prefix,
e.g. b05), prints one line per case and then `N passed, M failed`.
--no-pairs skips pairs.csv; -v prints each failing case's table.

Python 3.11, standard library only.
"""

import csv
import json
import os
import re
import sys

BATCH_KINDS = {
    "out_of_order_batch", "empty_batch", "notification_batch_replied",
    "notification_batch_awaited", "response_count_mismatch", "batch_after_version_removed",
    "batch_reply_not_array", "batch_rejected_whole", "empty_batch_not_rejected",
    "single_request_answered_with_batch",
}
LATENCY_TOLERANCE_MS = 1.0


class UsageError(Exception):
    pass


def canon(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def id_key(kind, i):
    if kind in BATCH_KINDS:
        if i is None:
            i = []
        elif not isinstance(i, list):
            i = [i]
        return (kind, canon(sorted(canon(x) for x in i)))
    return (kind, canon(i))


def show_id(i):
    return canon(i)


# --------------------------------------------------------------------------
# matching


def max_matching(left, right, ok):
    """Bipartite matching: list of right index (or None) for each left index."""
    match_right = [None] * len(right)

    def try_assign(li, seen):
        for ri in range(len(right)):
            if ri in seen or not ok(left[li], right[ri]):
                continue
            seen.add(ri)
            if match_right[ri] is None or try_assign(match_right[ri], seen):
                match_right[ri] = li
                return True
        return False

    for li in range(len(left)):
        try_assign(li, set())
    match_left = [None] * len(left)
    for ri, li in enumerate(match_right):
        if li is not None:
            match_left[li] = ri
    return match_left


def accepted_keys(f):
    ids = [f.get("id")] + list(f.get("alt_ids") or [])
    return {id_key(f["kind"], i) for i in ids}


def compare_findings(expected, optional, reported, exact):
    """Return mismatch rows (what, expected, got)."""
    rows = []
    exp_keys = [accepted_keys(f) for f in expected]
    rep_keys = [id_key(f.get("kind"), f.get("id")) for f in reported]
    m = max_matching(exp_keys, rep_keys, lambda e, r: r in e)
    used = {ri for ri in m if ri is not None}
    for f, ri in zip(expected, m):
        if ri is None:
            rows.append(("finding not reported", f"{f['kind']} id={show_id(f.get('id'))}", "-"))
    if not exact:
        return rows
    rest = [k for k in range(len(reported)) if k not in used]
    opt_keys = [accepted_keys(f) for f in optional]
    m2 = max_matching([rep_keys[k] for k in rest], opt_keys, lambda r, o: r in o)
    for k, oi in zip(rest, m2):
        if oi is None:
            f = reported[k]
            rows.append(("unexpected finding", "-", f"{f.get('kind')} id={show_id(f.get('id'))}"))
    return rows


# --------------------------------------------------------------------------
# pairs.csv


def norm(name):
    return re.sub(r"[^a-z0-9]", "", (name or "").lower())


COLUMNS = {
    "id": {"id", "requestid", "reqid"},
    "status": {"status", "pairstatus"},
    "latency": {"latencyms", "latency"},
    "response_time": {"responsetime", "responsets", "responseat", "resptime", "responsetimestamp", "respondedat"},
}


def read_pairs(path):
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            return [], "pairs.csv is empty"
        cols = {}
        for k, name in enumerate(header):
            n = norm(name)
            for col, names in COLUMNS.items():
                if n in names and col not in cols:
                    cols[col] = k
        if "id" not in cols:
            return [], f"pairs.csv has no id column (header: {','.join(header)})"
        rows = []
        for rec in reader:
            if not any(cell.strip() for cell in rec):
                continue

            def cell(col):
                k = cols.get(col)
                return rec[k].strip() if k is not None and k < len(rec) else ""
            raw_id = cell("id")
            try:
                rid = json.loads(raw_id)
            except ValueError:
                rid = raw_id
            lat = cell("latency")
            try:
                latency = float(lat) if lat else None
            except ValueError:
                latency = lat
            rows.append({"id": rid, "raw_id": raw_id, "status": cell("status").lower(),
                         "latency": latency, "response_time": cell("response_time")})
        return rows, None


def loose(v):
    return v if isinstance(v, str) else canon(v)


def row_matches(row_id, want, exact_only):
    if canon(row_id) == canon(want):
        return True
    return not exact_only and loose(row_id) == loose(want)


def row_class(row):
    st = row["status"]
    if st in ("cancelled", "canceled", "invalid"):
        return "either"
    if st in ("paired", "late"):
        return "paired"
    if st in ("missing", "unanswered", "unpaired"):
        return "unpaired"
    return "paired" if (row["response_time"] or isinstance(row["latency"], float)) else "unpaired"


def compare_pairs(facts, rows):
    out = []
    n_req = facts.get("counts", {}).get("requests")
    if isinstance(n_req, int) and len(rows) != n_req:
        out.append(("pairs.csv rows (one per request)", str(n_req), str(len(rows))))
    expected = {}
    order = []
    for p in facts.get("pairs", []):
        k = canon(p[0])
        if k not in expected:
            expected[k] = [p[0], 0]
            order.append(k)
        expected[k][1] += 1
    # give each row the expected id it names: exact JSON first, then loose text
    groups = {}
    for row in rows:
        key = None
        for k in order:
            if row_matches(row["id"], expected[k][0], True):
                key = k
                break
        if key is None:
            for k in order:
                if row_matches(row["id"], expected[k][0], False):
                    key = k
                    break
        if key is None:
            key = canon(row["id"])
        groups.setdefault(key, []).append(row)
    for k in list(order) + [g for g in groups if g not in expected]:
        want = expected.get(k, [None, 0])[1]
        got = groups.get(k, [])
        paired = sum(1 for r in got if row_class(r) == "paired")
        either = sum(1 for r in got if row_class(r) == "either")
        if not (paired <= want <= paired + either):
            shown = expected[k][0] if k in expected else got[0]["id"] if got else k
            out.append((f"paired requests with id {show_id(shown)}", str(want),
                        f"{paired}" + (f" (+{either} cancelled/invalid)" if either else "")))
    # latency
    used = set()
    for entry in facts.get("latency_ms", []):
        rid, ms = entry[0], entry[2]
        best = None
        for exact_only in (True, False):
            for k, row in enumerate(rows):
                if k in used or not row_matches(row["id"], rid, exact_only):
                    continue
                if row_class(row) == "unpaired":
                    continue
                lat = row["latency"]
                if ms is None:
                    if lat is None or lat == "":
                        best = (0.0, k)
                        break
                    continue
                if isinstance(lat, float):
                    d = abs(lat - float(ms))
                    if d <= LATENCY_TOLERANCE_MS and (best is None or d < best[0]):
                        best = (d, k)
            if best is not None:
                break
        if best is None:
            got = [r["latency"] for k, r in enumerate(rows) if k not in used and row_matches(r["id"], rid, False)]
            out.append((f"latency_ms of id {show_id(rid)}", "empty" if ms is None else f"{ms}",
                        ", ".join("empty" if g is None else str(g) for g in got) or "no row"))
        else:
            used.add(best[1])
    return out


# --------------------------------------------------------------------------
# one case


def load_expected(path):
    try:
        with open(path, encoding="utf-8") as fh:
            exp = json.load(fh)
        facts = exp["facts"]
        facts["counts"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise UsageError(f"{path}: not a readable expected.json ({e})")
    return exp, facts


def short_name(path):
    base = os.path.basename(path)
    if base.endswith(".expected.json"):
        base = base[: -len(".expected.json")]
    prefix = base.split("_", 1)[0]
    # bug cases are named by a short prefix (b05, l01); real captures by their full file name
    return (prefix if re.fullmatch(r"[a-z]\d+", prefix) else base), base


def check(expected_path, summary_path, pairs_path=None, pairs_required=False):
    """Return (short case name, list of mismatch rows)."""
    exp, facts = load_expected(expected_path)
    name, _ = short_name(expected_path)
    rows = []
    try:
        with open(summary_path, encoding="utf-8") as fh:
            summary = json.load(fh)
        totals = summary.get("totals") or {}
        reported = summary.get("findings") or []
        if not isinstance(reported, list):
            raise ValueError("findings is not a list")
    except (OSError, ValueError, AttributeError) as e:
        return name, [("summary.json", "readable", f"{type(e).__name__}: {e}")]
    counts = facts["counts"]
    for key in ("requests", "notifications", "responses", "batches", "sessions"):
        if key not in counts:
            continue
        want, got = counts[key], totals.get(key)
        ok = got in want if isinstance(want, list) else got == want
        if not ok:
            rows.append((f"totals.{key}", " or ".join(map(str, want)) if isinstance(want, list) else str(want),
                         str(got)))
    exact = bool(facts.get("expect_exact", exp.get("expect_exact", False)))
    rows += compare_findings(facts.get("findings", []), facts.get("optional_findings", []),
                             [f for f in reported if isinstance(f, dict)], exact)
    if pairs_path:
        if not os.path.exists(pairs_path):
            if pairs_required:
                rows.append(("pairs.csv", "present", "missing"))
        else:
            try:
                prow, err = read_pairs(pairs_path)
            except (OSError, UnicodeDecodeError, csv.Error) as e:
                prow, err = [], f"{type(e).__name__}: {e}"
            if err:
                rows.append(("pairs.csv", "readable", err))
            else:
                rows += compare_pairs(facts, prow)
    return name, rows


def table(rows):
    if not rows:
        return ""
    w0 = max(len("mismatch"), *(len(r[0]) for r in rows))
    w1 = max(len("expected"), *(len(r[1]) for r in rows))
    lines = [f"{'mismatch':<{w0}}  {'expected':<{w1}}  got", f"{'-' * w0}  {'-' * w1}  ---"]
    lines += [f"{a:<{w0}}  {b:<{w1}}  {c}" for a, b, c in rows]
    return "\n".join(lines)


def verdict(name, rows):
    if not rows:
        return f"case {name}: ok"
    return f"case {name}: {len(rows)} mismatch{'es' if len(rows) != 1 else ''}"


def run_all(cases_dir, out_dir, use_pairs=True, verbose=False):
    names = sorted(f for f in os.listdir(cases_dir) if f.endswith(".expected.json"))
    if not names:
        raise UsageError(f"{cases_dir}: no *.expected.json files")
    passed = failed = 0
    for fn in names:
        short, full = short_name(fn)
        case_dir = next((os.path.join(out_dir, c) for c in (full, short)
                         if os.path.isdir(os.path.join(out_dir, c))), os.path.join(out_dir, full))
        name, rows = check(os.path.join(cases_dir, fn), os.path.join(case_dir, "summary.json"),
                           os.path.join(case_dir, "pairs.csv") if use_pairs else None,
                           pairs_required=use_pairs)
        if rows:
            failed += 1
            kinds = {}
            for r in rows:
                label = ("totals" if r[0].startswith("totals") else "findings" if "finding" in r[0]
                         else "latency" if r[0].startswith("latency") else "summary" if r[0] == "summary.json"
                         else "pairs")
                kinds[label] = kinds.get(label, 0) + 1
            detail = ", ".join(f"{k} {v}" for k, v in kinds.items())
            print(f"{verdict(name, rows)} [{detail}]")
            if verbose:
                print(table(rows))
        else:
            passed += 1
            print(verdict(name, rows))
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def main(argv):
    args = list(argv)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    try:
        if args[0] == "--all":
            verbose = "-v" in args
            use_pairs = "--no-pairs" not in args
            rest = [a for a in args[1:] if a not in ("-v", "--no-pairs")]
            if len(rest) != 2:
                raise UsageError("usage: check_case.py --all CASES_DIR OUT_DIR [--no-pairs] [-v]")
            return run_all(rest[0], rest[1], use_pairs, verbose)
        if len(args) not in (2, 3):
            raise UsageError("usage: check_case.py EXPECTED_JSON SUMMARY_JSON [PAIRS_CSV]")
        name, rows = check(args[0], args[1], args[2] if len(args) == 3 else None, pairs_required=True)
    except UsageError as e:
        print(f"check_case: {e}", file=sys.stderr)
        return 2
    if rows:
        print(table(rows))
    print(verdict(name, rows))
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
