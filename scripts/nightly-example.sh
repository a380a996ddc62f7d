#!/usr/bin/env bash
# A nightly audit: analyse one day of MCP logs, compare it with the night
# before, and fail on what got worse, not on old noise.
#
#   nightly-example.sh LOGS OUT [DAY]
#
# LOGS/DAY/ holds the day's captures (any mix of the formats mcp-audit
# reads; DAY defaults to yesterday, YYYY-MM-DD, UTC). The run writes
# OUT/DAY/ (summary.json, the CSV and Parquet tables, report.html, a
# summary per input) and, when OUT/<the day before>/ exists, OUT/DAY/diff.md:
# the comparison as Markdown, to paste into an issue or a chat.
#
# Exit 0: every budget held and nothing got worse. 1: a latency budget
# failed tonight, or a kind's warning or error findings went up (its info
# ones, a capture gap or a long-running operation with progress, never
# do), or a p99 grew by more than 20 % (diff.md and summary.json `gates`
# say which). 2: the day could not be analysed (no traffic, an unreadable
# file): a night that analysed nothing never reads as clean.
set -uo pipefail
usage="usage: nightly-example.sh LOGS OUT [DAY]"
logs=${1:?$usage}
out=${2:?$usage}
day=${3:-$(date -u -d yesterday +%F)}
prev=$(date -u -d "$day -1 day" +%F) || exit 2

[ -d "$logs/$day" ] || { echo "nightly: $logs/$day: no such folder" >&2; exit 2; }
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
# OUT equal to LOGS would write tonight's outputs into the day's own
# folder, among the captures it reads.
if [ "$(cd "$logs/$day" && pwd)" = "$out/$day" ]; then
  echo "nightly: OUT/$day is LOGS/$day ($out/$day): the outputs would be written among the captures; give an OUT outside LOGS/$day" >&2
  exit 2
fi
# Run inside the day's folder, so that inputs and sessions are named alike
# every night (`./app.log`, not `/var/log/mcp/2026-12-01/app.log`) and the
# diff lists only the ones really added or gone. Findings alone never fail
# the night (--fail-on never): the diff judges them against the night
# before. The budgets do.
(cd "$logs/$day" && mcp-audit analyze . --out "$out/$day" --per-input -q \
  --fail-on never --max-latency '*:p99=10s')
status=$?
[ "$status" -ge 2 ] && exit "$status"

if [ -d "$out/$prev" ]; then
  mcp-audit diff "$out/$prev" "$out/$day" --p99-regression 20% --markdown \
    > "$out/$day/diff.md"
  diff_status=$?
  [ "$diff_status" -ge 2 ] && exit "$diff_status"
  [ "$diff_status" -eq 1 ] && status=1
else
  echo "nightly: no run for $prev in $out: nothing to compare" >&2
fi
exit "$status"
