"""Count and pair JSON-RPC traffic from a sending-side tap log.

python count.py FORMAT FILE [--json OUT]
FORMAT: client (py1_client tap), shim (shim.py .jsonl; STDIN=c2s, STDOUT=s2c),
        asgi (py1_server --tap; request bodies c2s, response bodies s2c incl. SSE data)
Prints "c2s req/notif/resp/err | s2c req/notif/resp/err", pairs in response
order (requester dir, id, latency ms), unpaired requests.
"""
import datetime, json, sys


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))


def load(fmt, path):
    out = []  # (ts, dir, obj, session)
    if fmt == "client":
        for l in open(path):
            e = json.loads(l)
            if e["dir"] in ("c2s", "s2c"):
                out.append((ts(e["ts"]), e["dir"], e["msg"], None))
    elif fmt == "shim":
        for l in open(path):
            e = json.loads(l)
            d = {"STDIN": "c2s", "STDOUT": "s2c"}.get(e["dir"])
            if not d:
                continue
            try:
                o = json.loads(e["msg"])
            except Exception:
                continue
            out.append((ts(e["ts"]), d, o, None))
    elif fmt == "asgi":
        sess = {}
        buf = {}
        for l in open(path):
            e = json.loads(l)
            rid = e["rid"]
            if e["kind"] == "req_start":
                sess[rid] = (e.get("headers") or {}).get("mcp-session-id") or (e["path"].split("session_id=")[1] if "session_id=" in e["path"] else None)
            elif e["kind"] == "resp_start":
                sid = e["headers"].get("mcp-session-id")
                if sid and not sess.get(rid):
                    sess[rid] = sid
            elif e["kind"] == "req_body":
                try:
                    o = json.loads(e["data"])
                except Exception:
                    continue
                out.append((ts(e["ts"]), "c2s", o, rid))
            elif e["kind"] == "resp_body":
                data = e["data"]
                if data.lstrip().startswith(("{", "[")) and "\ndata:" not in data:
                    try:
                        out.append((ts(e["ts"]), "s2c", json.loads(data), rid))
                    except Exception:
                        pass
                    continue
                b = buf.get(rid, "") + data.replace("\r\n", "\n")
                while "\n\n" in b:
                    ev, b = b.split("\n\n", 1)
                    dl = [x[6:] if x.startswith("data: ") else x[5:] for x in ev.split("\n") if x.startswith("data:")]
                    evt = [x[6:].strip() for x in ev.split("\n") if x.startswith("event:")]
                    if evt and evt[0] == "endpoint" and dl and "session_id=" in dl[0]:
                        sess[rid] = dl[0].split("session_id=")[1]
                    if not dl or (evt and evt[0] == "endpoint"):
                        continue
                    try:
                        out.append((ts(e["ts"]), "s2c", json.loads("\n".join(dl)), rid))
                    except Exception:
                        pass
                buf[rid] = b
        out = [(t, d, o, sess.get(r)) for t, d, o, r in out]
    return out


def main():
    fmt, path = sys.argv[1], sys.argv[2]
    msgs = load(fmt, path)
    flat = []
    for t, d, o, s in msgs:
        for m in (o if isinstance(o, list) else [o]):
            flat.append((t, d, m, s))
    cnt = {d: {"req": 0, "notif": 0, "resp": 0, "err": 0} for d in ("c2s", "s2c")}
    pending = {}
    pairs = []
    resp_pos = 0
    for t, d, m, s in flat:
        if not isinstance(m, dict):
            continue
        if "method" in m:
            if "id" in m:
                cnt[d]["req"] += 1
                pending[(s, d, json.dumps(m["id"]))] = (t, m["method"])
            else:
                cnt[d]["notif"] += 1
        else:
            k = "err" if "error" in m else "resp"
            cnt[d][k] += 1
            other = "s2c" if d == "c2s" else "c2s"
            key = (s, other, json.dumps(m.get("id")))
            if key in pending:
                t0, meth = pending.pop(key)
                pairs.append({"pos": resp_pos, "requester": other, "id": m.get("id"), "method": meth,
                              "latency_ms": round((t - t0).total_seconds() * 1000, 1),
                              "error": m.get("error", {}).get("code") if "error" in m else None, "session": s})
            resp_pos += 1
    c, s2 = cnt["c2s"], cnt["s2c"]
    line = f'{c["req"]}/{c["notif"]}/{c["resp"]}/{c["err"]} | {s2["req"]}/{s2["notif"]}/{s2["resp"]}/{s2["err"]}'
    print(line, f"paired {len(pairs)}")
    for p in pairs:
        print(f'  pos {p["pos"]:2} {p["requester"]} id={json.dumps(p["id"])} {p["method"]} {p["latency_ms"]} ms' + (f' err {p["error"]}' if p["error"] else "") + (f' sess {p["session"][:8]}' if p["session"] else ""))
    for k, v in pending.items():
        print("  UNPAIRED", k, v[1])
    if "--json" in sys.argv:
        json.dump({"counts": cnt, "line": line, "pairs": pairs, "unpaired": [[k[0], k[1], json.loads(k[2]), v[1]] for k, v in pending.items()]},
                  open(sys.argv[sys.argv.index("--json") + 1], "w"), indent=1)


main()
