"""Independent readings of the unseen captures and their expected files.

python3 scripts/make_expected_unseen.py  (from tests/data/real4/unseen;
writes <capture>.expected.json beside each capture)

Each capture is read here without mcp-audit: mcp-remote summaries by regex
(one-line JSON in the debug file, multi-line util.inspect in a --debug run's
stderr), mcp-proxy (PyPI) pydantic reprs by Python eval with stub classes.
The sessions come from the truth, not from the log's own hints: each
mcp-remote pid is matched to the client tap whose message sequence it
carries, and each session-less mcp-proxy server message to the client tap
that received it (same message, received within 50 ms after the log line).
Per session, the counts are asserted equal to the client tap's
(truth/*.counts.txt) and every latency read from the log's timestamps is
checked to nest in the tap's: the bridge sees a client request after the
client sent it and the reply before the client got it (log <= tap + 1 ms,
the log's ms truncation), and the other way round for a server request.
"""
import datetime, glob, json, re, sys

T = "truth"


def ts_ms(s):
    s = s.replace(",", ".").replace(" ", "T").rstrip("Z")
    return datetime.datetime.fromisoformat(s).replace(tzinfo=datetime.timezone.utc).timestamp() * 1000


def kind(o):
    if "method" in o:
        return "req" if "id" in o else "notif"
    return "resp"


# --- readers: each returns [(line, dir, obj, ts_ms, session or None)]

MR = re.compile(r"^\[(\d{4}-\d\d-\d\dT[\d:.]+Z)\]\[(\d+)\] (Local → Remote message|Remote → Local message|Failing requests the dropped session can no longer answer) (.*)$")


def inspect_obj(body):
    """The top-level members of a util.inspect summary that pairing needs."""
    o = {}
    mm = re.search(r"(?:^|[{,])\s*method: '([^']*)'", body, re.M)
    if mm:
        o["method"] = mm.group(1)
    mi = re.search(r"(?:^|[{,])\s*id: (\d+|'[^']*')", body, re.M)
    if mi:
        o["id"] = json.loads(mi.group(1).replace("'", '"'))
    if re.search(r"result: '", body):
        o["result"] = "result-present"
    if re.search(r"error: \{", body):
        o["error"] = {}
    if "params: '" in body:
        mt = re.search(r'\\?"progressToken\\?":(\d+)', body)
        if mt:
            o["token"] = int(mt.group(1))
    return o


def read_mcp_remote(path):
    out, lines = [], open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = MR.match(lines[i])
        if m:
            what, body, start = m.group(3), m.group(4), i
            if body.strip() == "{":
                while lines[i] != "}":
                    i += 1
                    body += "\n" + lines[i]
            t, pid = ts_ms(m.group(1)), m.group(2)
            if what.startswith("Failing"):
                # mcp-remote answers each id itself with -32001 (its source:
                # failPendingRequests); the stderr prints `{ ids: [ 10 ] }`.
                ids = json.loads(re.sub(r"(\w+):", r'"\1":', body.replace("'", '"')))["ids"]
                for x in ids:
                    out.append((start + 1, "s2c", {"id": x, "error": {"code": -32001}}, t, pid))
            else:
                d = "c2s" if what.startswith("Local") else "s2c"
                try:
                    o = json.loads(body)
                except ValueError:
                    o = inspect_obj(body)
                out.append((start + 1, d, o, t, pid))
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


MP = re.compile(r"^\[([A-Z]) (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\.\d+ ([^ \]]+)\] (.*)$")


def read_mcp_proxy(path):
    """mcp-proxy server mode over SSE: a client message belongs to the
    session of the `Parsed session ID` line before it; a server message
    carries none (None here; the truth places it)."""
    out, sid = [], None
    for n, l in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        m = MP.match(l)
        if not m:
            continue
        msg = m.group(4)
        if msg.startswith("Parsed session ID: "):
            sid = msg.split(": ", 1)[1].strip()
            continue
        for mark, d in (("Validated client message: ", "c2s"), ("Sending message via SSE: ", "s2c")):
            if msg.startswith(mark):
                r = msg[len(mark):]
                if r.startswith("root="):
                    r = r[5:]
                v = eval(r, {"__builtins__": {}}, _Any())
                if "message" in v and "jsonrpc" not in v:
                    v = v["message"]
                while isinstance(v, dict) and list(v) == ["root"]:
                    v = v["root"]
                out.append((n, d, v, ts_ms(m.group(2)), sid if d == "c2s" else None))
    return out


# --- truth

def read_tap(path):
    """A TS tap (send/recv) or a py tap (c2s/s2c): [(ts_ms, dir, obj)]."""
    dirs = {"send": "c2s", "recv": "s2c", "c2s": "c2s", "s2c": "s2c"}
    out = []
    for l in open(path):
        e = json.loads(l)
        d = dirs.get(e["dir"])
        m = e["msg"]
        if isinstance(m, str):
            try:
                m = json.loads(m)
            except ValueError:
                continue
        if d:
            out.append((ts_ms(e["ts"]), d, m))
    return out


def tap_line(path):
    """`c2s a/b/c/d | s2c e/f/g/h` of truth/*.counts.txt."""
    first = open(path).readline()
    return first.split("counts ", 1)[1].replace("c2s ", "").replace("s2c ", "").strip()


def counts(msgs):
    c = {"c2s": [0, 0, 0, 0], "s2c": [0, 0, 0, 0]}
    for m in msgs:
        d, o = m[1], m[2]
        k = kind(o)
        i = {"req": 0, "notif": 1}.get(k, 3 if (k == "resp" and "error" in o) else 2)
        c[d][i] += 1
    return "%d/%d/%d/%d | %d/%d/%d/%d" % tuple(c["c2s"] + c["s2c"])


def key(o):
    """What identifies a message between the log and a tap."""
    p = o.get("params") or {}
    return (kind(o), json.dumps(o.get("id")), o.get("method"),
            json.dumps(p.get("progressToken")) if isinstance(p, dict) else None,
            float(p["progress"]) if isinstance(p, dict) and "progress" in p else None)


def place_by_tap(msgs, taps):
    """Each session-less server message goes to the tap that received the
    same message within 50 ms after the log line (each tap message once);
    returns the messages with their session and the session of each tap."""
    used, out = set(), []
    sess_of_tap = {}
    for n, d, o, t, s in msgs:
        if d == "c2s":
            # Client messages: the tap that sent the same message last before the line.
            best = None
            for ti, tap in enumerate(taps):
                for j, (tt, td, to) in enumerate(tap):
                    if td == "c2s" and (ti, j) not in used and key(to) == key(o) and tt <= t + 1 and (best is None or tt > best[0]):
                        best = (tt, ti, j)
            assert best, f"line {n}: no tap sent it"
            used.add(best[1:])
            prev = sess_of_tap.setdefault(best[1], s)
            assert prev == s, f"line {n}: tap {best[1]} has sessions {prev} and {s}"
            out.append((n, d, o, t, s))
            continue
        best = None
        for ti, tap in enumerate(taps):
            for j, (tt, td, to) in enumerate(tap):
                if td == "s2c" and (ti, j) not in used and key(to) == key(o) and t - 1 <= tt <= t + 50 and (best is None or tt < best[0]):
                    best = (tt, ti, j)
        assert best, f"line {n}: no tap received it"
        used.add(best[1:])
        out.append((n, d, o, t, ("tap", best[1])))
    return [(n, d, o, t, sess_of_tap[s[1]] if isinstance(s, tuple) else s) for n, d, o, t, s in out], sess_of_tap


def pair(msgs):
    """Pairs and latencies (log ms) per session, in log order; the
    response position counts every response of the capture."""
    pend, pairs, lat, pos = {}, [], [], 0
    for n, d, o, t, s in msgs:
        k = kind(o)
        if k == "req":
            pend[(s, d, json.dumps(o["id"]))] = (o["id"], t, n)
        elif k == "resp":
            q = pend.pop((s, "s2c" if d == "c2s" else "c2s", json.dumps(o.get("id"))), None)
            if q:
                pairs.append([q[0], pos])
                lat.append([q[0], pos, round(t - q[1], 3), s, d])
            pos += 1
    assert not pend, f"unanswered in the log: {pend}"
    return pairs, lat


def tap_latencies(tap):
    pend, out = {}, {}
    for t, d, o in tap:
        k = kind(o)
        if k == "req":
            pend[(d, json.dumps(o["id"]))] = t
        elif k == "resp":
            other = "s2c" if d == "c2s" else "c2s"
            t0 = pend.pop((other, json.dumps(o.get("id"))), None)
            if t0 is not None:
                out.setdefault((other, json.dumps(o.get("id"))), []).append(t - t0)
    return out


def check_nesting(lat, tap_of, name):
    """Each log latency nests in its tap's (see the module text)."""
    seen = {}
    for i, pos, ms, s, d in lat:
        req_dir = "s2c" if d == "c2s" else "c2s"
        k = (req_dir, json.dumps(i))
        n = seen.get((s, k), 0)
        seen[(s, k)] = n + 1
        tl = tap_latencies(tap_of[s])[k][n]
        ok = ms <= tl + 1 if req_dir == "c2s" else ms >= tl - 1
        assert ok, f"{name}: session {s} id {i} ({req_dir}): log {ms} ms vs tap {tl:.1f} ms"


SRC = ("Source: a real capture made by public MCP software on 127.0.0.1 on 2026-12-04 (see README.md in this "
       "folder); facts measured on the sending sides (client taps) and derived under DESIGN.md.")


def write(name, msgs, taps, tap_names, summary, fmt, notes, findings):
    sessions = []
    for m in msgs:
        if m[4] not in sessions:
            sessions.append(m[4])
    assert len(sessions) == len(taps), f"{name}: {len(sessions)} sessions, {len(taps)} taps"
    tap_of, gt = {}, {}
    for s, tap, tn in zip(sessions, taps, tap_names):
        got, want = counts([m for m in msgs if m[4] == s]), tap_line(tn.replace(".jsonl", ".counts.txt"))
        assert got == want, f"{name}: session {s}: log {got} vs tap {want}"
        tap_of[s] = tap
        gt[tn.split("/")[-1].replace(".jsonl", "")] = want
    pairs, lat = pair(msgs)
    check_nesting(lat, tap_of, name)
    tot = lambda k: sum(1 for m in msgs if kind(m[2]) == k)
    e = {"source_url": None, "capture": name, "summary": summary, "format": fmt,
         "facts": {"counts": {"requests": tot("req"), "notifications": tot("notif"), "responses": tot("resp"),
                              "batches": 0, "sessions": len(sessions)},
                   "pairs": pairs, "latency_ms": [x[:3] for x in lat], "expect_exact": True,
                   "findings": findings, "optional_findings": []},
         "ground_truth": gt, "notes": notes + " " + SRC}
    json.dump(e, open(f"{name}.expected.json", "w"), indent=2, ensure_ascii=False)
    open(f"{name}.expected.json", "a").write("\n")
    print(f"{name}: {len(sessions)} sessions {[counts([m for m in msgs if m[4] == s]) for s in sessions]}, "
          f"{len(pairs)} pairs")


def slow(i, s, what):
    return {"kind": "slow_tail", "id": i, "session": s, "direction": "c2s",
            "detail": f"{what}: over 1 s and 10x the median, with progress all along: a real slow call, severity info"}


def mcp_remote_sessions(msgs, taps, name):
    """The pids in order of first message, checked against the taps by
    their message sequence (method and id of every message)."""
    pids = []
    for m in msgs:
        if m[4] not in pids:
            pids.append(m[4])
    for pid, tap in zip(pids, taps):
        seq = lambda ms: [(kind(o), o.get("method"), json.dumps(o.get("id"))) for o in ms]
        assert seq([m[2] for m in msgs if m[4] == pid]) == seq([m[2] for m in tap]), f"{name}: pid {pid} is not its tap"
    return pids


def main():
    # P1: two concurrent mcp-remote processes, one shared --debug file.
    name = "mr-debug-two-clients.debug-file.log"
    tn = [f"{T}/mr-debug-two-clients.clientA_tap.jsonl", f"{T}/mr-debug-two-clients.clientB_tap.jsonl"]
    taps = [read_tap(t) for t in tn]
    msgs = read_mcp_remote(name)
    pids = mcp_remote_sessions(msgs, taps, name)
    write(name, msgs, taps, tn,
          "Two hosts, each with its own mcp-remote 0.15.1 `URL/mcp --debug` (Streamable HTTP remote: "
          "server-everything 2026.8.31), started 0.4 s apart with one MCP_REMOTE_CONFIG_DIR: both write the "
          "one `<hash>_debug.log` (scripts/run.sh mr-debug-two-clients).",
          "mcp-remote debug file (`[ISO][PID] Local → Remote message …`, FORMATS.md §8.3.9), two pids interleaved",
          f"Healthy traffic: each pid's lines are one client's session (pid {pids[0]} = client A, {pids[1]} = client B, "
          "matched by their message sequences); both clients count ids from 0. Keyed by the file alone, session 2 "
          "began at B's initialize and took A's later lines: a false missing_response, duplicate_response, 2 "
          "duplicate_id and 11 id_reused. Only the 1 s trigger-long-running-operation (4 progress) of each is "
          "reported, slow_tail info.",
          [slow(9, f"{name}[{p}]", "trigger-long-running-operation (1 s, 4 progress steps)") for p in pids])

    # P1 control: the same host runs mcp-remote twice, one after the other.
    name = "mr-debug-two-runs.debug-file.log"
    tn = [f"{T}/mr-debug-two-runs.client1_tap.jsonl", f"{T}/mr-debug-two-runs.client2_tap.jsonl"]
    taps = [read_tap(t) for t in tn]
    msgs = read_mcp_remote(name)
    pids = mcp_remote_sessions(msgs, taps, name)
    write(name, msgs, taps, tn,
          "One host runs mcp-remote 0.15.1 `URL/mcp --debug` twice (the remote server-everything restarted in "
          "between), one debug file (scripts/run.sh mr-debug-two-runs).",
          "mcp-remote debug file (FORMATS.md §8.3.9), two runs one after the other",
          f"Two sessions, one per run (pids {pids[0]} and {pids[1]}, each opened by its `Starting mcp-remote` "
          "line). Only the 1 s call of each is reported, slow_tail info.",
          [slow(9, f"{name}[{p}]", "trigger-long-running-operation (1 s, 4 progress steps)") for p in pids])

    # P4: the SSE remote restarts; mcp-remote fails the request it lost.
    tn = [f"{T}/mr-sse-restart.client_tap.jsonl"]
    taps = [read_tap(t) for t in tn]
    for name, what in [("mr-sse-restart.debug-file.log", "the `--debug` file"),
                       ("mr-sse-restart.debug-stderr.log", "the `--debug` run's stderr")]:
        msgs = read_mcp_remote(name)
        pids = mcp_remote_sessions(msgs, taps, name)
        s = f"{name}[{pids[0]}]"
        ping = next(m[0] for m in msgs if m[2].get("method") == "ping" and m[2].get("id") == 10)
        write(name, msgs, taps, tn,
              "mcp-remote 0.15.1 `URL/sse --transport sse-only --debug` (legacy HTTP+SSE remote: server-everything "
              "2026.8.31 `sse`); the remote is killed after the progress call and started again 1.5 s later "
              f"(scripts/run.sh mr-sse-restart). This file is {what}.",
              "mcp-remote debug summaries (FORMATS.md §8.3.9)",
              f"Ping 10 (line {ping}) was sent while the remote was down; when the SSE stream reconnected mcp-remote "
              "logged `Failing requests the dropped session can no longer answer {ids:[10]}` and answered it itself "
              "with error -32001 (the client tap has that error, 674 ms after the ping): the response to 10, no "
              "missing_response. The restarted server numbers its own requests from 0 again (roots/list 0 once "
              "before and once after the restart, both answered) in the one client session mcp-remote kept: an "
              "id_reused the client really sees. The 1 s call is slow_tail info.",
              [slow(9, s, "trigger-long-running-operation (1 s, 4 progress steps)"),
               {"kind": "id_reused", "id": 0, "session": s, "direction": "s2c",
                "detail": "the restarted server's roots/list reuses id 0 of the first server's, answered before the restart"}])

    # P2, P3: mcp-proxy server mode over SSE, two clients at once.
    for name, case, clients, summary, notes in [
        ("mp-server-sse-two-clients.debug.log", "mp-server-sse-two-clients", ["clientA", "clientB"],
         "mcp-proxy 0.13.0 (PyPI) `--debug --port 18619 --host 127.0.0.1 -- scripts/child_ev.sh …` (server mode: "
         "one stdio server-everything 2026.8.31 exposed over SSE), two TS SDK 1.32.2 clients on `/sse` at once, "
         "started 0.4 s apart (scripts/run.sh mp-server-sse-two-clients). Its stdout+stderr.",
         "Both clients count ids from 0 and run the same calls: ids 9 (the 1 s progress call), 10 and 12 (two "
         "of the concurrent calls) are pending in both sessions when a reply with that id comes, and the "
         "progress of the two 1 s calls interleaves on token 9. The log cannot tell those replies apart (same "
         "method, same arguments, no session named on or near `Sending message via SSE`): the session that "
         "asked first takes each (the taps show it did here), a capture gap said once in the input's errors. "
         "The progress goes where its value still increases. Keyed by the file, session 2 began at B's "
         "initialize: 4 errors (missing_response, duplicate_response, 2 duplicate_id), 7 id_reused and 2 "
         "progress_after_response. Only the 1 s call of each client is reported, slow_tail info."),
        ("mp-named-servers-sse.debug.log", "mp-named-servers-sse", ["clientA", "clientB"],
         "mcp-proxy 0.13.0 (PyPI) `--debug --port 18620 --host 127.0.0.1 --named-server ev 'scripts/child_ev.sh …' "
         "--named-server py '… py1_server.py --transport stdio'`: two stdio children behind one proxy, a TS SDK "
         "1.32.2 client on `/servers/ev/sse` and an mcp 1.30.0 client on `/servers/py/sse` at once "
         "(scripts/run.sh mp-named-servers-sse). Its stdout+stderr.",
         "Client A's 1 s progress call 9 is pending while client B's prompts/get 9 is answered: the reply's "
         "`messages` answers B's prompts/get, not A's tools/call, so it is B's (the taps agree); no server "
         "message is left unsure. Keyed by the file, session 2 began at B's initialize: a missing_response, "
         "a duplicate_response, 9 id_reused and 3 unknown_progress_token. Only A's 1 s call is reported, "
         "slow_tail info."),
    ]:
        tn = [f"{T}/{case}.{c}_tap.jsonl" for c in clients]
        taps = [read_tap(t) for t in tn]
        msgs, sess = place_by_tap(read_mcp_proxy(name), taps)
        sids = [sess[i] for i in range(len(taps))]
        slows = [slow(9, sids[0], "trigger-long-running-operation (1 s, 4 progress steps)")]
        if case == "mp-server-sse-two-clients":
            slows.append(slow(9, sids[1], "trigger-long-running-operation (1 s, 4 progress steps)"))
        write(name, msgs, taps, tn, summary,
              "mcp-proxy (PyPI) server-mode stderr over SSE (`Parsed session ID` + `Validated client message` / "
              "`Sending message via SSE`, FORMATS.md §8.3.10), two sessions", notes, slows)


if __name__ == "__main__":
    main()
