#!/bin/bash
# Firefox ESR's own DevTools HAR: the toolbox opens with the page (-devtools),
# devtools.netmonitor.har.enableAutoExportToFile makes it write the HAR of a
# page when the tab navigates away. Usage: rec_firefox.sh PORT OUTDIR
set -e
PORT=$1; OUT=$2; mkdir -p $OUT
PROFILE=$(mktemp -d); HARDIR=$(mktemp -d)
cat > $PROFILE/user.js <<PREFS
user_pref("devtools.netmonitor.har.enableAutoExportToFile", true);
user_pref("devtools.netmonitor.har.defaultLogDir", "$HARDIR");
user_pref("devtools.netmonitor.har.includeResponseBodies", true);
user_pref("devtools.netmonitor.har.pageLoadedTimeout", 5000);
user_pref("devtools.netmonitor.persistlog", false);
user_pref("devtools.toolbox.selectedTool", "netmonitor");
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.auto", false);
user_pref("network.http.http3.enable", false);
PREFS
node server.mjs $PORT $OUT/firefox.server_tap.jsonl & S=$!
node serve_ff.mjs $OUT/firefox.page_log.json & P=$!
sleep 1
xvfb-run -a -s "-screen 0 1280x900x24" firefox-esr --no-remote --profile $PROFILE -devtools "http://127.0.0.1:8800/?mcp=http://127.0.0.1:$PORT/mcp" > $OUT/firefox.stderr 2>&1 & F=$!
for k in $(seq 1 120); do kill -0 $P 2>/dev/null || break; sleep 1; done
sleep 3
ls -la $HARDIR
n=0; for h in $HARDIR/*.har; do n=$((n+1)); cp "$h" $OUT/firefox-$n.har; done; [ $n -gt 0 ] || echo "no HAR written"
pkill -f "firefox-esr.*$PROFILE" || true; kill $F 2>/dev/null || true
kill $S 2>/dev/null; wait $S 2>/dev/null || true
