"""(real5: read_capture.py of real4 plus the HAR session key of DESIGN rule 1, rule 13's pairing of an
id-null error in a 4xx/5xx answer to a POST of one request, and no latency for an entry whose
`time` closed at the response headers while its event stream went on, `timings.receive` 0.)
Independent reading of the issue-12 captures (HAR or tagged `TS [STDIN]` log):
messages in processing order (DESIGN rule 4, simplified for these captures: HAR
request bodies at startedDateTime, response bodies and their SSE events at
startedDateTime + time, ties by entry, request first; logs in line order), counts
(rule 2), pairs by id (rule 5, oldest pending first) with response positions and
latencies (HAR: entry time; logs: line timestamps, ms).

python read_capture.py FILE [--json OUT]
"""
import datetime, json, re, sys


def parse_ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def sse_datas(text):
    out, cur = [], []
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.startswith("data:"):
            cur.append(line[5:].lstrip(" ") if line[5:6] == " " else line[5:])
        elif line == "":
            if cur:
                out.append("\n".join(cur))
            cur = []
    if cur:
        out.append("\n".join(cur))
    return out


def hdr(hs, name):
    return next((x["value"] for x in hs if x["name"].lower() == name), None)


SESSIONS = set()
ENTRY = {}  # entry -> (status, unbounded)


def frames_har(path):
    h = json.load(open(path))
    fr = []  # (t, entry, order, dir, payload, where)
    for i, e in enumerate(h["log"]["entries"]):
        t0 = parse_ts(e["startedDateTime"])
        body0 = (e["request"].get("postData") or {}).get("text") or ""
        sid = hdr(e["request"]["headers"], "mcp-session-id") or (
            hdr(e["response"]["headers"], "mcp-session-id") if '"initialize"' in body0 else None)
        if body0 or (e["response"]["content"].get("text") or ""):
            SESSIONS.add(sid or e["request"]["url"].split("/mcp")[0])
        ct0 = hdr(e["response"]["headers"], "content-type") or ""
        ENTRY[i] = (e["response"]["status"], "event-stream" in ct0 and e["timings"].get("receive") == 0)
        body = (e["request"].get("postData") or {}).get("text")
        if body:
            fr.append((t0, i, 0, "c2s", json.loads(body), {"entry": i}, e["time"]))
        rs = e["response"]
        txt = rs["content"].get("text") or ""
        ct = next((x["value"] for x in rs["headers"] if x["name"].lower() == "content-type"), "")
        if txt:
            datas = sse_datas(txt) if "event-stream" in ct else [txt]
            for k, d in enumerate(datas):
                if d.strip():
                    try:
                        v = json.loads(d)
                    except ValueError:  # e.g. rmcp's 415 text/plain body: not JSON-RPC
                        continue
                    fr.append((t0 + e["time"] / 1000, i, 1 + k, "s2c", v, {"entry": i, "event": k + 1}, e["time"]))
    fr.sort(key=lambda x: (x[0], x[1], x[2]))
    return fr


LOG = re.compile(r"^(\S+) \[(STDIN|STDOUT|STDERR)\] (.*)$")


def frames_log(path):
    fr = []
    for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        m = LOG.match(line)
        if not m or m.group(2) == "STDERR":
            continue
        try:
            v = json.loads(m.group(3))
        except ValueError:
            continue
        fr.append((parse_ts(m.group(1)), n, 0, "c2s" if m.group(2) == "STDIN" else "s2c", v, {"line": n}, None))
    return fr


def main():
    path = sys.argv[1]
    har = path.endswith(".har")
    fr = frames_har(path) if har else frames_log(path)
    counts = {"requests": 0, "notifications": 0, "responses": 0, "batches": 0}
    pending = {}  # (dir, id json) -> list of (t, where, frame entry, elapsed)
    resp_pos = 0
    pairs, lat, unpaired_resp, rows = [], [], [], []
    single = {}  # HAR entry -> (dir, id json) of its one request
    for t, idx, order, d, payload, where, etime in fr:
        msgs = payload if isinstance(payload, list) else [payload]
        if har and d == "c2s" and isinstance(payload, dict) and "method" in payload and isinstance(payload.get("id"), (str, int)):
            single[idx] = (d, json.dumps(payload["id"]))
        if isinstance(payload, list):
            counts["batches"] += 1
        for m in msgs:
            if not isinstance(m, dict):
                continue
            if "method" in m:
                kind = "request" if "id" in m else "notification"
                counts["requests" if kind == "request" else "notifications"] += 1
                if kind == "request" and isinstance(m["id"], (str, int)) and not isinstance(m["id"], bool):
                    pending.setdefault((d, json.dumps(m["id"])), []).append((t, where, idx, etime))
                rows.append((d, where, kind, m.get("method"), m.get("id", "<none>")))
            else:
                counts["responses"] += 1
                other = "c2s" if d == "s2c" else "s2c"
                key = (other, json.dumps(m.get("id")))
                q = pending.get(key)
                rid = m.get("id", "<none>")
                if q:
                    # prefer the request of the same HAR entry (rule 5)
                    j = next((k for k, r in enumerate(q) if har and r[2] == idx), 0)
                    rt, rw, ridx, ret = q.pop(j)
                    pairs.append([m["id"], resp_pos])
                    ms = round(ret, 3) if har and ridx == idx else (round((t - rt) * 1000, 3) if not har else None)
                    if har and ENTRY[idx][1]:
                        ms = None  # time closed at the headers: unbounded (DESIGN rule 10)
                    lat.append([m["id"], resp_pos, ms])
                elif har and m.get("id") is None and "error" in m and ENTRY[idx][0] >= 400 and \
                        sum(len(v) for v in pending.values()) and single.get(idx):
                    # rule 13: an id-null error in a 4xx/5xx answer to a POST of one request answers it
                    key2 = single[idx]
                    q2 = pending.get(key2) or []
                    k2 = next((k for k, r in enumerate(q2) if r[2] == idx), None)
                    if k2 is None:
                        unpaired_resp.append((rid, where, m.get("error")))
                    else:
                        rt, rw, ridx, ret = q2.pop(k2)
                        pairs.append([json.loads(key2[1]), resp_pos])
                        lat.append([json.loads(key2[1]), resp_pos, round(ret, 3)])
                else:
                    unpaired_resp.append((rid, where, m.get("error")))
                rows.append((d, where, "response", "error %s" % m["error"].get("code") if "error" in m else "result", rid))
                resp_pos += 1
    counts["unpaired_requests"] = [(k[1], v[0][1]) for k, v in pending.items() if v]
    if har:
        counts["sessions"] = len(SESSIONS)
    out = {"counts": counts, "pairs": pairs, "latency_ms": lat, "unpaired_responses": unpaired_resp}
    for r in rows:
        print(*r)
    print(json.dumps(out, indent=None))
    if "--json" in sys.argv:
        json.dump(out, open(sys.argv[sys.argv.index("--json") + 1], "w"), indent=1)


main()
