#!/usr/bin/env python3
"""List Rust functions longer than a limit (default 80 lines) outside tests.

A function may stay long when the comment block right above it (doc or
plain) holds a line starting with `Long:` that says why. Test code is
skipped: `tests/`, `#[cfg(test)]` modules, and `#[test]` functions.

    scripts/long_fns.py [--limit 80] [--all] [PATHS...]

Exit 1 when a long function has no reason (so CI can run it), 0 otherwise.
"""
import argparse
import pathlib
import re
import sys

FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+\"[^\"]*\"\s+)?fn\s+([A-Za-z0-9_]+)")


def strip(line):
    """Drop string/char literals and line comments, roughly, for brace counting."""
    out = []
    i = 0
    n = len(line)
    while i < n:
        c = line[i]
        if c == "/" and i + 1 < n and line[i + 1] == "/":
            break
        if c == '"':
            i += 1
            while i < n and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            i += 1
            continue
        if c == "'" and i + 2 < n and (line[i + 2] == "'" or (line[i + 1] == "\\" and "'" in line[i + 2 : i + 5])):
            j = line.find("'", i + 2 if line[i + 1] != "\\" else i + 3)
            i = j + 1 if j > 0 else i + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def scan(path, limit):
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    test_depth = None  # brace depth at which a cfg(test) module started
    depth = 0
    pending_test = False
    i = 0
    raw_strings = False
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if s.startswith("#[cfg(test)]") or s.startswith("#[test]"):
            pending_test = True
        m = FN.match(line)
        if m and test_depth is None and not pending_test:
            # find the body: first '{' at or after this line, then match it
            start = i
            d = 0
            opened = False
            j = i
            while j < len(lines):
                t = strip(lines[j])
                if not opened and ";" in t and "{" not in t:
                    break  # declaration without body
                for ch in t:
                    if ch == "{":
                        d += 1
                        opened = True
                    elif ch == "}":
                        d -= 1
                if opened and d <= 0:
                    break
                j += 1
            if opened:
                length = j - start + 1
                if length > limit:
                    k = start - 1
                    reason = None
                    while k >= 0 and (lines[k].strip().startswith("//") or lines[k].strip().startswith("#[")):
                        body = lines[k].strip().lstrip("/!").strip()
                        if body.startswith("Long:"):
                            reason = body[5:].strip()
                        k -= 1
                    found.append((path, start + 1, m.group(7), length, reason))
        t = strip(line)
        for ch in t:
            if ch == "{":
                if pending_test and test_depth is None and not FN.match(line) and "mod " in line:
                    test_depth = depth
                depth += 1
            elif ch == "}":
                depth -= 1
                if test_depth is not None and depth == test_depth:
                    test_depth = None
        if "{" in t or (s and not s.startswith("#[") and not s.startswith("//")):
            if not (s.startswith("#[")):
                pending_test = pending_test and ("fn " not in line and "mod " not in line and "{" not in t)
        i += 1
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=80)
    ap.add_argument("--all", action="store_true", help="also list those with a reason")
    ap.add_argument("paths", nargs="*", default=["src", "gen/src", "benches", "fuzz/fuzz_targets"])
    a = ap.parse_args()
    rows = []
    for p in a.paths:
        p = pathlib.Path(p)
        files = [p] if p.is_file() else sorted(p.rglob("*.rs"))
        for f in files:
            rows += scan(f, a.limit)
    bad = 0
    for path, line, name, length, reason in sorted(rows, key=lambda r: -r[3]):
        if reason is None:
            bad += 1
            print(f"{path}:{line}: fn {name}: {length} lines, no reason")
        elif a.all:
            print(f"{path}:{line}: fn {name}: {length} lines (Long: {reason})")
    print(f"{bad} function(s) over {a.limit} lines without a reason", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
