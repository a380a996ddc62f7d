"""Independent readings of the set-4 captures and their expected files.

python3 make_expected4.py  (from the capture folder; writes out/*.expected.json)

Each capture is read here without mcp-audit: mcp-remote summaries by regex
(one-line JSON, or the multi-line util.inspect of a --debug run's stderr),
mcp-proxy (PyPI) pydantic reprs by Python eval with stub classes, npm
mcp-proxy `transport event` dumps by regex on their top-level members.
Counts, ids and directions are then asserted equal to the sending side's
tap (count.py output), and the expected file is written with pairs and
latencies (line timestamps, ms) in log order.
"""
import datetime, json, re, subprocess, sys

T = "truth"


def tap_counts(fmt, path):
    subprocess.run([sys.executable, "scripts/count.py", fmt, path, "--json", "out/.counts.json"],
                   capture_output=True, text=True, check=True)
    return json.load(open("out/.counts.json"))


def ts_ms(s):
    s = s.replace(",", ".").replace(" ", "T").rstrip("Z")
    return datetime.datetime.fromisoformat(s).replace(tzinfo=datetime.timezone.utc).timestamp() * 1000


def kind(o):
    if "method" in o:
        return "req" if "id" in o else "notif"
    return "resp"


# --- readers: each returns [(line, dir, obj, ts_ms or None)]

def read_mcp_remote(path):
    out, lines = [], open(path, encoding="utf-8").read().split("\n")
    pat = re.compile(r"^\[(\d{4}-\d\d-\d\dT[\d:.]+Z)\]\[\d+\] (Local → Remote|Remote → Local) message (.*)$")
    i = 0
    while i < len(lines):
        m = pat.match(lines[i])
        if m:
            d = "c2s" if m.group(2).startswith("Local") else "s2c"
            body, start = m.group(3), i
            if body.strip() == "{":
                while lines[i] != "}":
                    i += 1
                    body += "\n" + lines[i]
            try:
                o = json.loads(body)
            except ValueError:  # util.inspect: top-level `method: '…'`, `id: N`
                o = {}
                mm = re.search(r"method: '([^']*)'", body)
                if mm:
                    o["method"] = mm.group(1)
                mi = re.search(r"\bid: (\d+|'[^']*')", body)
                if mi:
                    o["id"] = json.loads(mi.group(1).replace("'", '"'))
                if re.search(r"result: '", body):
                    o["result"] = "result-present"
                if re.search(r"error: \{", body):
                    o["error"] = {}
            out.append((start + 1, d, o, ts_ms(m.group(1))))
        i += 1
    return out


class _Any(dict):
    def __missing__(self, name):
        if name in ("None", "True", "False"):
            return {"None": None, "True": True, "False": False}[name]

        def make(*a, **kw):
            if a and not kw:
                return a[0]
            return {k: v for k, v in kw.items() if v is not None}
        return make


MARK = [("Sending client message: ", "c2s"), ("SSE message: ", "s2c"), ("Received server message: ", "s2c"),
        ("Validated client message: ", "c2s"), ("Sending message via SSE: ", "s2c")]


def read_mcp_proxy(path):
    out = []
    pat = re.compile(r"^\[([A-Z]) (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\.\d+ ([^ \]]+)\] (.*)$")
    for n, l in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        m = pat.match(l)
        if not m:
            continue
        for mark, d in MARK:
            if m.group(4).startswith(mark):
                r = m.group(4)[len(mark):]
                if r.startswith("root="):
                    r = r[5:]
                elif r.startswith("message="):
                    r = "SessionMessage(" + r.replace(" metadata=", ", metadata=", 1) + ")"
                v = eval(r, {"__builtins__": {}}, _Any())
                if "message" in v and "jsonrpc" not in v:
                    v = v["message"]
                while isinstance(v, dict) and list(v) == ["root"]:
                    v = v["root"]
                out.append((n, d, v, ts_ms(m.group(2))))
    return out


def read_npm_proxy(path):
    out, lines = [], open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i] == "transport event {" and lines[i + 1].startswith("  message: {") and lines[i + 1].endswith("},"):
            o = {}  # one-line dump `  message: { jsonrpc: '2.0', id: 1, method: 'roots/list' },`
            for k, v in re.findall(r"\b(id|method|result|error): ('[^']*'|\d+|\{)", lines[i + 1]):
                o[k] = json.loads(v.replace("'", '"')) if k in ("id", "method") else True
            out.append((i + 1, "s2c", o, None))
            i += 2
            continue
        if lines[i] == "transport event {" and lines[i + 1].startswith("  message: {"):
            start, o = i, {}
            i += 2
            while not lines[i].startswith("  }"):
                m = re.match(r"^    (id|method|result|error): ?(.*?),?$", lines[i])
                if m:
                    k, v = m.groups()
                    o[k] = json.loads(v.replace("'", '"')) if k in ("id", "method") else True
                i += 1
            out.append((start + 1, "s2c", o, None))
        i += 1
    return out


def pair(msgs):
    pend, pairs, lat, pos = {}, [], [], 0
    for n, d, o, t in msgs:
        k = kind(o)
        if k == "req":
            pend[(d, json.dumps(o["id"]))] = (o["id"], t)
        elif k == "resp":
            q = pend.pop(("s2c" if d == "c2s" else "c2s", json.dumps(o.get("id"))), None)
            if q:
                pairs.append([q[0], pos])
                lat.append([q[0], pos, None if t is None else round(t - q[1], 3)])
            pos += 1
    return pairs, lat


def counts(msgs):
    c = {"c2s": [0, 0, 0, 0], "s2c": [0, 0, 0, 0]}
    for _, d, o, _ in msgs:
        k = kind(o)
        i = {"req": 0, "notif": 1}.get(k, 3 if (k == "resp" and "error" in o) else 2)
        c[d][i] += 1
    return "%d/%d/%d/%d | %d/%d/%d/%d" % tuple(c["c2s"] + c["s2c"])


def expect(name, msgs, truth, summary, fmt, notes, one_sided=False, gt=None):
    got = counts(msgs)
    if one_sided:
        want = "0/0/0/0 | " + truth.split("|")[1].strip()
    else:
        want = truth
    assert got == want, f"{name}: log {got} vs truth {want}"
    pairs, lat = ([], []) if one_sided else pair(msgs)
    tot = lambda k: sum(1 for m in msgs if kind(m[2]) == k)
    e = {"source_url": None, "capture": name, "summary": summary, "format": fmt,
         "facts": {"counts": {"requests": tot("req"), "notifications": tot("notif"), "responses": tot("resp"),
                              "batches": 0, "sessions": 1},
                   "pairs": pairs, "latency_ms": lat, "expect_exact": True, "findings": [], "optional_findings": []},
         "ground_truth": gt or {}, "notes": notes}
    json.dump(e, open(f"out/{name}.expected.json", "w"), indent=2, ensure_ascii=False)
    print(f"{name}: {got} (truth {truth}), {len(pairs)} pairs")


def truth_line(fmt, path):
    c = tap_counts(fmt, path)
    return c["line"], c


SRC = "Source: a real capture made by public MCP software on 127.0.0.1 (see README.md in this folder); facts measured on the sending sides (client tap, recording stdio shim, ASGI server tap) and derived under DESIGN.md."

if __name__ == "__main__":
    caps = {}
    # 1, 2: mcp-remote --debug --transport sse-only (legacy HTTP+SSE remote)
    tl, tc = truth_line("client", f"{T}/rsse.client_tap.jsonl")
    sl, _ = truth_line("asgi", f"{T}/rsse.server_tap.jsonl")
    for name, src, what in [("x_stdio_mcp-remote-sse.debug-file.log", "rsse.debug_file.log", "the `--debug` file"),
                            ("x_stdio_mcp-remote-sse.debug-stderr.log", "rsse.bridge_stderr.log", "the `--debug` run's stderr")]:
        expect(name, read_mcp_remote(f"out/{src}"), tl,
               f"mcp-remote 0.15.1 `--transport sse-only --debug` as the stdio server of the mcp 1.30.0 feature run; remote end mcp 1.30.0 FastMCP legacy HTTP+SSE. This file is {what}.",
               "mcp-remote debug summaries (`[ISO][PID] Local → Remote message …`, FORMATS.md §8.3.9)",
               f"Pass-through: ids unchanged; client tap {tl}, server tap {sl}. Latencies are the summaries' own timestamps (bridge-internal, ms). " + SRC,
               gt={"client_tap": tl, "server_tap": sl})
    # 3: mcp-proxy (PyPI) SSE client mode
    sl, _ = truth_line("asgi", f"{T}/pysse.server_tap.jsonl")
    cl, _ = truth_line("client", f"{T}/pysse.client_tap.jsonl")
    expect("x_stdio_mcp-proxy-sse-client.debug.log", read_mcp_proxy("out/pysse.proxy_stderr.log"), sl,
           "mcp-proxy 0.13.0 (PyPI) `--debug URL/sse` (SSE client mode) as the stdio server of the mcp 1.30.0 feature run; remote end mcp 1.30.0 FastMCP legacy HTTP+SSE. Its stderr: `Sending client message: SessionMessage(message=JSONRPCMessage(root=…), metadata=None)` / `Received server message: root=…`.",
           "mcp-proxy stderr (Python logging + pydantic reprs, FORMATS.md §8.3.10)",
           f"The remote leg (mcp-proxy's own session, ids renumbered): server tap {sl}; the local leg (client tap {cl}) is not logged with ids. " + SRC,
           gt={"server_tap": sl, "client_tap": cl})
    # 4: mcp-proxy (PyPI) server mode (stdio server exposed over SSE)
    cl, _ = truth_line("client", f"{T}/pyserver.client_tap.jsonl")
    hl, _ = truth_line("shim", f"{T}/pyserver.child_shim.jsonl")
    expect("x_stdio_mcp-proxy-sse-server.debug.log", read_mcp_proxy("out/pyserver.proxy_stderr.log"), cl,
           "mcp-proxy 0.13.0 (PyPI) `--debug --port P -- CMD` (server mode: a stdio server exposed over SSE), driven by the mcp 1.30.0 feature run over SSE. Its stderr: `Validated client message: root=…` / `Sending message via SSE: SessionMessage(…)`, and the child's stderr.",
           "mcp-proxy stderr (Python logging + pydantic reprs, FORMATS.md §8.3.10)",
           f"The local (SSE) leg: client tap {cl}; the child leg (shim {hl}) is not logged. " + SRC,
           gt={"client_tap": cl, "child_shim": hl})
    # 5, 6: npm mcp-proxy --debug (stdout), Streamable HTTP and SSE clients
    for run, name, how in [("npmhttp", "x_stdio_mcp-proxy-npm-stream.debug.log", "Streamable HTTP"),
                           ("npmsse", "x_stdio_mcp-proxy-npm-sse.debug.log", "SSE")]:
        hl, _ = truth_line("shim", f"{T}/{run}.child_shim.jsonl")
        cl, _ = truth_line("client", f"{T}/{run}.client_tap.jsonl")
        expect(name, read_npm_proxy(f"out/{run}.proxy_stdout.log"), hl,
               f"npm mcp-proxy 6.7.19 (punkpeye) `--debug --port P -- CMD`, a stdio server exposed over {how}, driven by the mcp 1.30.0 feature run. Its stdout: `transport event {{` + util.inspect of each event of its stdio transport: only what the child wrote.",
               "npm mcp-proxy stdout (`transport event` dumps, FORMATS.md §8.3.11)",
               f"One-sided: the messages the child server wrote (shim {hl}, server→client part); what the proxy sent the child is not logged, so nothing pairs. Client tap {cl}. " + SRC,
               one_sided=True, gt={"child_shim": hl, "client_tap": cl})
