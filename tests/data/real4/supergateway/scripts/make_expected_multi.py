"""Writes the expected files of the two-client Streamable HTTP captures,
reading each gateway log independently of mcp-audit (FORMATS.md §8.3.6:
`StreamableHttp → Child[ (auto-initialize|initialized)]: JSON` client→server,
`Child → StreamableHttp: JSON` server→client, `(original)` repeats not
counted; sessions: one per untagged `StreamableHttp → Child:` line
(stateless), one per SID of `SessionAccessCounter.inc()` (stateful)), and
asserts the agreement with the client taps stated in README.md.

python3 scripts/make_expected_multi.py   (in this folder)
"""
import json, re

C2S = re.compile(r"^\[supergateway\] StreamableHttp → Child( \((auto-initialize|initialized)\))?: (\{.*)$")
S2C = re.compile(r"^\[supergateway\] Child → StreamableHttp: (\{.*)$")
# The gateway could not deliver child reply N (FORMATS.md §8.3.6): that
# reply reached no client, so it is no pair.
FAILED = re.compile(r"^\[supergateway\] Failed to send to StreamableHttp .*No connection established for request ID: (\S+)$")
INC = re.compile(r"^\[supergateway\] SessionAccessCounter\.inc\(\) (\S+), caused by (session initialization|POST request for existing session)$")


def kind(m):
    if "method" in m:
        return "req" if "id" in m else "notif"
    return "resp"


def read(log):
    c = {"c2s": {"req": 0, "notif": 0, "resp": 0}, "s2c": {"req": 0, "notif": 0, "resp": 0}}
    made = {"req": 0, "notif": 0}
    pairs, children, sids, resp = [], 0, [], 0
    for line in open(log, encoding="utf-8"):
        line = line.rstrip("\n")
        if m := C2S.match(line):
            msg = json.loads(m.group(3))
            c["c2s"][kind(msg)] += 1
            if m.group(1):
                made[kind(msg)] += 1
            else:
                children += 1
        elif m := S2C.match(line):
            msg = json.loads(m.group(1))
            k = kind(msg)
            c["s2c"][k] += 1
            if k == "resp":
                pairs.append([msg["id"], resp])
                resp += 1
        elif m := FAILED.match(line):
            gone = max(i for i, (rid, _) in enumerate(pairs) if str(rid) == m.group(1))
            del pairs[gone]
        elif m := INC.match(line):
            if m.group(1) not in sids:
                sids.append(m.group(1))
    return c, made, pairs, children, sids


def tap(path):
    t = {"c2s": {"req": 0, "notif": 0, "resp": 0}, "s2c": {"req": 0, "notif": 0, "resp": 0}}
    for line in open(path):
        d = json.loads(line)
        if d["dir"] in t:
            t[d["dir"]][kind(d["msg"])] += 1
    return t


def write(name, mode, summary, findings, notes):
    log = f"x_stdio_supergateway-{name}.log"
    c, made, pairs, children, sids = read(log)
    sessions = children if mode == "stateless" else len(sids)
    exp = {
        "source_url": None,
        "capture": log,
        "summary": summary,
        "format": f"supergateway log, stdio -> Streamable HTTP ({mode}), no timestamps",
        "facts": {
            "counts": {
                "requests": c["c2s"]["req"] + c["s2c"]["req"],
                "notifications": c["c2s"]["notif"] + c["s2c"]["notif"],
                "responses": c["c2s"]["resp"] + c["s2c"]["resp"],
                "batches": 0,
                "sessions": sessions,
            },
            "pairs": pairs,
            "latency_ms": [[i, p, None] for i, p in pairs],
            "expect_exact": True,
            "findings": findings,
            "optional_findings": [],
        },
        "notes": notes,
    }
    with open(log + ".expected.json", "w", encoding="utf-8") as f:
        f.write(json.dumps(exp, indent=2, ensure_ascii=False) + "\n")
    return c, made, children, sids


# Stateless: every client message is a POST with a child of its own; the
# log shows each client's 9 requests + 1 notification and, per non-initialize
# POST, the gateway's own initialize + initialized.
c, made, children, _ = write(
    "stateless-two-clients", "stateless",
    "supergateway 4.0.0 `--outputTransport streamableHttp` (stateless) in front of server-everything (stdio), two mcp 1.30.0 streamablehttp clients at once (started 0.3 s apart), both healthy.",
    [],
    "20 POSTs (10 per client), each its own child and session (FORMATS.md §8.3.6); both clients use ids 0-8, which never meet: different children. Healthy: no findings. Counts are what the log shows of the child side (each client's 9 requests, 1 notification, 9 replies; the gateway's 18 initialize requests, 18 replies and 18 initialized notifications; the children's notifications).",
)
A, B = tap("truth/sgm_stateless.clientA_tap.jsonl"), tap("truth/sgm_stateless.clientB_tap.jsonl")
assert c["c2s"]["req"] - made["req"] == A["c2s"]["req"] + B["c2s"]["req"] == 18, c
assert c["c2s"]["notif"] - made["notif"] == A["c2s"]["notif"] + B["c2s"]["notif"] == 2, c
assert c["s2c"]["resp"] - made["req"] == A["s2c"]["resp"] + B["s2c"]["resp"] == 18, c
assert children == 20, children

# Stateful, both healthy.
c, made, _, sids = write(
    "stateful-two-clients", "stateful",
    "supergateway 4.0.0 `--outputTransport streamableHttp --stateful --sessionTimeout 60000` in front of server-everything (stdio), two mcp 1.30.0 streamablehttp clients at once (started 0.3 s apart), both healthy.",
    [],
    "Two sessions, one child each; client messages by the `SessionAccessCounter.inc()` line before them, child output by pending id (FORMATS.md §8.3.6). Both clients use ids 0-8 with the same progress token 4 at the same time: the log cannot tell whose some replies and progress notifications are (the input's errors say so; no finding depends on it). Healthy: no findings.",
)
A, B = tap("truth/sgm_stateful.clientA_tap.jsonl"), tap("truth/sgm_stateful.clientB_tap.jsonl")
for d in ("c2s", "s2c"):
    for k in ("req", "notif", "resp"):
        assert c[d][k] == A[d][k] + B[d][k], (d, k, c, A, B)
assert len(sids) == 2

# Stateful with a real fault in one client's session: curl sends tools/call
# id 7 twice at once (ground truth: truth/sgm_stateful-dup.clientB.*).
sid = open("truth/sgm_stateful-dup.clientB.sid.txt").read().split()[1]
c, made, _, sids = write(
    "stateful-dup-two-clients", "stateful",
    "supergateway 4.0.0 `--stateful --sessionTimeout 60000` in front of server-everything: client A (mcp 1.30.0, healthy) and client B (curl) at once; B sends two tools/call with id 7 at once in its session. The child answered both, the gateway delivered only the first reply (get-sum's, to the second POST: truth/sgm_stateful-dup.clientB.r4.txt) and logged that it could not send the other (line 77, `Failed to send to StreamableHttp Error: No connection established for request ID: 7`); curl's first POST got nothing in 6 s (truth/sgm_stateful-dup.clientB.r3.txt is empty).",
    [{"kind": "duplicate_id", "id": 7, "session": sid, "direction": "c2s", "severity": "error",
      "detail": "client B's second tools/call id 7 (get-sum) while its first (trigger-long-running-operation) is pending in the same session: a real fault, shown in B's session only"}],
    "Client A's session has no findings; B's has the duplicate_id (its own client sent it). The log shows both child replies with id 7, but the second (line 76) was not delivered (line 77): it is no pair, so one of B's two id-7 requests is paired; the other is the duplicate_id, whose missing_response is not reported again (DESIGN.md rule 6). Revised 2026-12-04 (undelivered replies, #11): before, both replies were pairs (13 paired; the client received 12).",
)
A = tap("truth/sgm_stateful-dup.clientA_tap.jsonl")
assert c["c2s"]["req"] == A["c2s"]["req"] + 4 and c["s2c"]["resp"] == A["s2c"]["resp"] + 4, (c, A)
assert sid in sids and len(sids) == 2
print("ok")
