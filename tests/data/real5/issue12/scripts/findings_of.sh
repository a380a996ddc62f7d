#!/bin/bash
# analyze every capture in this folder with $MCP_AUDIT and print its findings (severity kind entry/line id | detail)
cd "$(dirname "$0")/.."
for f in ${@:-har_*.har stdio_*.logger.log}; do
  echo "=== $f"; o=out/${f%.*}; $MCP_AUDIT analyze $f --out $o -q >/dev/null 2>&1; echo "rc=$?"
  python3 -c "
import csv,sys
for r in csv.DictReader(open('$o/findings.csv')):
    print(' ', r['severity'][:4], r['kind'], r['entry'] or r['line'], r['event'], r['id'], '|', r['detail'][:160])"
done
