"""Truth counts of one run: c2s from the page log (what the page's transport
and raw fetch sent), s2c from the server tap (every chunk the server wrote).
Usage: python3 count_truth.py PAGE_LOG SERVER_TAP"""
import json, re, sys
page = json.load(open(sys.argv[1]))
tap = [json.loads(l) for l in open(sys.argv[2])]
def kind(m):
    return "request" if "method" in m and "id" in m else "notification" if "method" in m else ("error" if "error" in m else "response")
c = {"c2s": {}, "s2c": {}}
for x in page:
    if x.get("dir") == "c2s":
        k = kind(x["msg"]); c["c2s"][k] = c["c2s"].get(k, 0) + 1
for x in tap:
    if x["ev"] != "chunk":
        continue
    for line in re.split(r"\r?\n", x["data"]):
        if line.startswith("data: ") and line[6:].strip():
            k = kind(json.loads(line[6:])); c["s2c"][k] = c["s2c"].get(k, 0) + 1
got = {x["msg"].get("id"): x["ts"] for x in page if x.get("dir") == "s2c" and "id" in x["msg"] and "method" not in x["msg"]}
lat = {}
for x in page:
    if x.get("dir") == "c2s" and "method" in x["msg"] and "id" in x["msg"] and x["msg"]["id"] in got:
        from datetime import datetime as D
        f = lambda s: D.fromisoformat(s.replace("Z", "+00:00")).timestamp()
        lat[x["msg"]["id"]] = round((f(got[x["msg"]["id"]]) - f(x["ts"])) * 1000, 1)
print(json.dumps({"counts": c, "page_latency_ms_c2s_requests": lat, "aborted": [x["note"] for x in page if "aborted" in str(x.get("note"))]}))
