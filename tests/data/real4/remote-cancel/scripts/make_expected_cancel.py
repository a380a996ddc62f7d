"""Independent readings of the remote-cancel captures and their expected files.

python3 scripts/make_expected_cancel.py  (from the scratch folder; reads out/*.log, writes out/*.expected.json)

Each log is read here without mcp-audit. The `--debug` file: the one-line JSON
summaries `[ISO][PID] Local → Remote message {…}` / `Remote → Local message {…}`
by regex + json.loads. The `--debug` run's stderr: the same summaries as
Node's util.inspect (`… message {` + `  method: 'tools/list',` … `}`, or on one
line), read by a small parser of that literal subset (bare keys, '…' strings,
numbers, nested objects, `undefined` = member absent). A summary's `params`
member, when there is one, is itself a JSON *string* (mcp-remote writes
`JSON.stringify(params).substring(0, 500)`); it is decoded here to read the
`requestId` of a `notifications/cancelled`. Counts, ids and directions are then
asserted equal to the client tap's (count.py), the cancelled id to the one the
client tap shows, and the expected file is written with pairs (log order),
latencies (the summaries' timestamps, ms; the cancelled request left out) and
the findings DESIGN.md gives: `cancelled_request` (info) for a request that a
`notifications/cancelled` named while it was unanswered, nothing else.
"""
import datetime, json, re, subprocess, sys

T = "truth"
PAT = re.compile(r"^\[(\d{4}-\d\d-\d\dT[\d:.]+Z)\]\[\d+\] (Local → Remote|Remote → Local) message (\{.*\})$")


def ts_ms(s):
    return datetime.datetime.fromisoformat(s.rstrip("Z")).replace(tzinfo=datetime.timezone.utc).timestamp() * 1000


def kind(o):
    if "method" in o:
        return "req" if "id" in o else "notif"
    return "resp"


def read_log(path):
    out = []
    for n, l in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        m = PAT.match(l)
        if m:
            o = json.loads(m.group(3))
            out.append((n, "c2s" if m.group(2).startswith("Local") else "s2c", o, ts_ms(m.group(1))))
    return out


PAT_INSPECT = re.compile(r"^\[(\d{4}-\d\d-\d\dT[\d:.]+Z)\]\[\d+\] (Local → Remote|Remote → Local) message (\{.*)$")


def inspect_literal(text):
    """util.inspect of a plain object -> Python value; `undefined` members are dropped."""
    i = 0

    def ws():
        nonlocal i
        while i < len(text) and text[i] in " \t\r\n":
            i += 1

    def value():
        nonlocal i
        ws()
        c = text[i]
        if c == "{":
            i += 1
            o = {}
            while True:
                ws()
                if text[i] == "}":
                    i += 1
                    return o
                k = re.match(r"[A-Za-z_$][\w$]*|'(?:[^'\\]|\\.)*'", text[i:]).group(0)
                i += len(k)
                k = string(k) if k.startswith("'") else k
                ws(); assert text[i] == ":", text[i:i + 20]; i += 1
                v = value()
                if v is not UNDEF:
                    o[k] = v
                ws()
                if text[i] == ",":
                    i += 1
        if c == "[":
            i += 1
            a = []
            while True:
                ws()
                if text[i] == "]":
                    i += 1
                    return a
                a.append(value())
                ws()
                if text[i] == ",":
                    i += 1
        if c == "'":
            m = re.match(r"'(?:[^'\\]|\\.)*'", text[i:])
            i += len(m.group(0))
            return string(m.group(0))
        m = re.match(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|undefined|null|true|false", text[i:])
        i += len(m.group(0))
        w = m.group(0)
        words = {"undefined": UNDEF, "null": None, "true": True, "false": False}
        return words[w] if w in words else json.loads(w)

    def string(q):
        body = q[1:-1]
        return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), body)

    v = value()
    ws()
    assert i == len(text), text[i:]
    return v


UNDEF = object()


def read_inspect_log(path):
    out, lines = [], open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = PAT_INSPECT.match(lines[i])
        if m:
            start, body = i, m.group(3)
            if body.strip() == "{":
                while lines[i] != "}":
                    i += 1
                    body += "\n" + lines[i]
            o = inspect_literal(body)
            out.append((start + 1, "c2s" if m.group(2).startswith("Local") else "s2c", o, ts_ms(m.group(1))))
        i += 1
    return out


def tap(path):
    subprocess.run([sys.executable, "scripts/count.py", "client", path, "--json", "out/.counts.json"],
                   capture_output=True, text=True, check=True)
    c = json.load(open("out/.counts.json"))
    msgs = [json.loads(l) for l in open(path)]
    return c, [(e["dir"], e["msg"]) for e in msgs if e["dir"] in ("c2s", "s2c")]


def counts(msgs):
    c = {"c2s": [0, 0, 0, 0], "s2c": [0, 0, 0, 0]}
    for _, d, o, _ in msgs:
        k = kind(o)
        c[d][{"req": 0, "notif": 1}.get(k, 3 if (k == "resp" and "error" in o) else 2)] += 1
    return "%d/%d/%d/%d | %d/%d/%d/%d" % tuple(c["c2s"] + c["s2c"])


def derive(msgs):
    """pairs, latencies, cancelled ids (with the log line of the request), progress facts"""
    pend, pairs, lat, pos, cancelled, prog = {}, [], [], 0, {}, {"with_params": 0, "without_params": 0}
    for n, d, o, t in msgs:
        k = kind(o)
        if k == "req":
            pend[(d, json.dumps(o["id"]))] = (o["id"], t, n, o["method"])
        elif k == "notif" and o["method"] == "notifications/cancelled":
            p = o.get("params")
            if isinstance(p, str):  # mcp-remote: the params as a JSON string
                p = json.loads(p)
            q = pend.get((d, json.dumps(p["requestId"])))
            if q:  # named a request of the same direction that was still unanswered
                cancelled[json.dumps(q[0])] = {"id": q[0], "request_line": q[2], "cancel_line": n, "method": q[3],
                                               "reason": p.get("reason"), "after_ms": round(t - q[1], 3), "dir": d}
        elif k == "notif" and o["method"] == "notifications/progress":
            prog["with_params" if "params" in o else "without_params"] += 1
        elif k == "resp":
            q = pend.pop(("s2c" if d == "c2s" else "c2s", json.dumps(o.get("id"))), None)
            if q:
                pairs.append([q[0], pos])
                if json.dumps(q[0]) not in cancelled:
                    lat.append([q[0], pos, round(t - q[1], 3)])
                else:
                    cancelled[json.dumps(q[0])]["answered"] = {"line": n, "error": o.get("error"),
                                                               "after_cancel_ms": round(t - next(m[3] for m in msgs if m[0] == cancelled[json.dumps(q[0])]["cancel_line"]), 3)}
            pos += 1
    return pairs, lat, cancelled, prog, pend


SRC = ("Source: a real capture made by public MCP software on 127.0.0.1 (see README.md in this folder); facts measured "
       "on the sending sides (client tap, ASGI server tap; the shim on the bridge agrees) and derived under DESIGN.md.")

FILE = ("the `--debug` file", read_log, "mcp-remote debug summaries (`[ISO][PID] Local → Remote message …`, FORMATS.md §8.3.9)",
        "(`\"params\":\"{\\\"requestId\\\":…}\"`)")
STDERR = ("the `--debug` run's stderr (the bridge's stderr as the shim recorded it)", read_inspect_log,
          "mcp-remote `--debug` stderr: plain `[PID]` lines + the summaries as multi-line util.inspect (FORMATS.md §8.3.9)",
          "(util.inspect: `  params: '{\"requestId\":3,…}'`)")
RUNS = [("http", "x_stdio_mcp-remote-stream-cancel.debug-file.log", FILE, "Streamable HTTP (default `http-first`)",
         "On the remote, mcp-remote also made two `GET /mcp` probes (answered 400 with id `server-error`), six `.well-known` "
         "GETs (404) and a second session `mcp-remote-fallback-test` (initialize id 0, initialized, GET stream); the server "
         "tap therefore counts 6/3/0/0 | 0/11/5/3. Neither this log nor the local leg shows them."),
        ("sse", "x_stdio_mcp-remote-sse-cancel.debug-file.log", FILE, "legacy HTTP+SSE (`--transport sse-only`)",
         "Pass-through: the server tap holds the same messages as the client tap.")]
RUNS += [(r, n.replace("debug-file", "debug-stderr"), STDERR, h, x) for r, n, _, h, x in RUNS]

if __name__ == "__main__":
    for run, name, (what, reader, fmt, shape), how, extra in RUNS:
        tc, tmsgs = tap(f"{T}/{run}.client_tap.jsonl")
        subprocess.run([sys.executable, "scripts/count.py", "asgi", f"{T}/{run}.server_tap.jsonl", "--json", "out/.s.json"],
                       capture_output=True, text=True, check=True)
        sl = json.load(open("out/.s.json"))["line"]
        subprocess.run([sys.executable, "scripts/count.py", "shim", f"{T}/{run}.bridge_shim.jsonl", "--json", "out/.h.json"],
                       capture_output=True, text=True, check=True)
        hl = json.load(open("out/.h.json"))["line"]
        assert hl == tc["line"], (run, hl, tc["line"])
        msgs = reader(f"out/{name}")
        got = counts(msgs)
        assert got == tc["line"], f"{name}: log {got} vs client tap {tc['line']}"
        # same messages in the same order per direction (method / id / error code)
        sig = lambda d, o: (d, o.get("method"), json.dumps(o.get("id")), (o.get("error") or {}).get("code"))
        for dd in ("c2s", "s2c"):
            a = [sig(d, o) for _, d, o, _ in msgs if d == dd]
            b = [sig(d, o) for d, o in tmsgs if d == dd]
            assert a == b, (name, dd, a, b)
        pairs, lat, cancelled, prog, pend = derive(msgs)
        assert not pend, pend
        tap_cancels = [o["params"]["requestId"] for d, o in tmsgs if o.get("method") == "notifications/cancelled"]
        assert [c["id"] for c in cancelled.values()] == tap_cancels, (cancelled, tap_cancels)
        version = next(o["result"]["protocolVersion"] for d, o in tmsgs if d == "s2c" and o.get("id") == 0 and "result" in o)
        assert version != "2026-07-28"  # no answered_after_cancel under earlier revisions
        tap_prog = [o for d, o in tmsgs if o.get("method") == "notifications/progress"]
        findings = [{"kind": "cancelled_request", "id": c["id"], "direction": c["dir"], "severity": "info",
                     "detail": f"{c['method']} {c['id']} (line {c['request_line']}) cancelled {c['after_ms']:.0f} ms after it was sent "
                               f"(notifications/cancelled at line {c['cancel_line']}, params logged as a JSON string); "
                               + (f"the server still answered it {c['answered']['after_cancel_ms']:.0f} ms later with error {json.dumps(c['answered']['error'])} (line {c['answered']['line']}), not a fault under {version}; no missing_response, no answered_after_cancel"
                                  if "answered" in c else "never answered; no missing_response")}
                    for c in cancelled.values()]
        tot = lambda k: sum(1 for m in msgs if kind(m[2]) == k)
        e = {"source_url": None, "capture": name,
             "summary": f"mcp-remote 0.15.1 `--debug` as the stdio server of the mcp 1.30.0 cancel run "
                        f"(scripts/cancel_client.py: initialize, tools/list, count_with_progress with a progress token, slow_echo 3000 ms cancelled "
                        f"by the client after 300 ms, add); remote end mcp 1.30.0 FastMCP over {how}. This file is {what}.",
             "format": fmt,
             "facts": {"counts": {"requests": tot("req"), "notifications": tot("notif"), "responses": tot("resp"),
                                  "batches": 0, "sessions": 1},
                       "pairs": pairs, "latency_ms": lat, "expect_exact": True, "findings": findings, "optional_findings": []},
             "ground_truth": {"client_tap": tc["line"], "bridge_shim": hl, "server_tap": sl, "negotiated": version,
                              "cancelled": list(cancelled.values()),
                              "progress_in_log": prog, "progress_in_client_tap": len(tap_prog),
                              "progress_tokens_in_client_tap": sorted({o["params"]["progressToken"] for o in tap_prog})},
             "notes": f"The client tap, the shim on the bridge and this log agree message for message: {tc['line']}. {extra} "
                      f"The cancel's params are logged as a JSON string {shape} and name request "
                      f"{', '.join(str(c['id']) for c in cancelled.values())}; FastMCP 1.30.0 still answers a cancelled request with "
                      f"`{{\"code\":0,\"message\":\"Request cancelled\"}}`, so it is paired (pairs.csv status cancelled), kept out of latency_ms, and "
                      f"neither missing_response nor (under {version}) answered_after_cancel. Server→client summaries carry only "
                      f"method/id/result/error: the {prog['without_params']} notifications/progress are logged without params, so their "
                      f"token (the client tap's {sorted({o['params']['progressToken'] for o in tap_prog})}) cannot be linked; that changes no finding here "
                      f"(nothing is slow). Latencies are the summaries' own timestamps (bridge-internal, ms). " + SRC}
        assert prog["with_params"] == 0 and prog["without_params"] == len(tap_prog)
        json.dump(e, open(f"out/{name}.expected.json", "w"), indent=1, ensure_ascii=False)
        print(f"{name}: {got} (client tap {tc['line']}, shim {hl}, server tap {sl}), {len(pairs)} pairs, cancelled {[c['id'] for c in cancelled.values()]}, progress without params {prog['without_params']}")
