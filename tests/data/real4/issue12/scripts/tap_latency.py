"""Per-request latency from a tap (the sending side's record), ms.

python tap_latency.py client|server|raw FILE
client: fmcp_client.py httpx tap (request -> resp_end/resp_close of the same rid)
server: ASGI tap of fmcp_server.py / py1_server.py (req_body -> resp_end) or the TS tap
        (request -> response_end)
raw:    raw_http_driver.py tap (t_sent -> t_done)
Prints one line per HTTP exchange: JSON-RPC method and id of the body, ms.
"""
import datetime, json, sys


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def label(body):
    try:
        v = json.loads(body) if isinstance(body, str) else body
    except (ValueError, TypeError):
        return "-"
    if isinstance(v, list):
        return "[" + ",".join(label(x) for x in v) + "]"
    if isinstance(v, dict):
        return f"{v.get('method', 'response')}#{v.get('id', '-')}"
    return "-"


mode, path = sys.argv[1], sys.argv[2]
rows = [json.loads(x) for x in open(path) if x.strip()]
if mode == "raw":
    for r in rows:
        print(f"{r['n']:3} {label(r['req_body']) if r['req_body'] else r['method']:60} {(ts(r['t_done']) - ts(r['t_sent'])) * 1000:9.1f}")
    sys.exit()
start, body, end = {}, {}, {}
for r in rows:
    ev = r.get("ev") or r.get("kind")
    rid = r["rid"]
    if ev in ("request", "req_start") and rid not in start:
        start[rid] = ts(r["ts"])
        if "body" in r and r["body"] is not None:
            body[rid] = r["body"]
    elif ev == "req_body":
        body[rid] = body.get(rid, "") + r["data"]
    elif ev in ("resp_end", "response_end", "resp_close") and rid not in end:
        end[rid] = ts(r["ts"])
for rid in start:
    e = end.get(rid)
    print(f"{str(rid)[-6:]:>6} {label(body.get(rid)):60} {'open' if e is None else f'{(e - start[rid]) * 1000:9.1f}'}")
