"""Write <capture>.expected.json for the browser captures of this folder.

Facts are read from the HAR by this script's own reading (FORMATS.md §4,
§4.1: postData.text or chrome-har params, content.text events, else DevTools
_eventSourceMessages), and cross-checked against the sending sides: the
page's log of every message its transport sent and delivered (c2s truth) and
the server tap of every chunk it wrote (s2c truth). Usage:
  python3 make_expected.py DIR   (DIR holds the HARs and truth/)
"""
import datetime, json, re, sys

D = sys.argv[1]


def iso(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def sse_events(text):
    out, data, eid, last = [], [], "", ""
    for line in re.split(r"\r\n|\r|\n", text):
        if line == "":
            if data:
                out.append((last, "\n".join(data)))
            data = []
            continue
        k, _, v = line.partition(":")
        v = v[1:] if v.startswith(" ") else v
        if k == "data":
            data.append(v)
        elif k == "id":
            last = v
    return out


HIGH = "\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178"


def undo_1252(text):
    """UTF-8 bytes Chromium decoded as windows-1252 (FORMATS.md §4.1), back."""
    try:
        return bytes(ord(c) if ord(c) < 256 else 0x80 + HIGH.index(c) for c in text).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return text


def rebuild(params):
    names = [p["name"] for p in params]
    if not params:
        return None
    if names == [str(i) for i in range(len(names))]:
        return [p["value"] for p in params]
    o = {}
    for p in params:
        if p["name"] in o:
            o[p["name"]] = (o[p["name"]] if isinstance(o[p["name"]], list) else [o[p["name"]]]) + [p["value"]]
        else:
            o[p["name"]] = p["value"]
    return o


def har_messages(har):
    """(time_s, dir, msg, entry, bounded) in HAR processing order facts."""
    out = []
    for i, e in enumerate(har["log"]["entries"]):
        r, resp = e["request"], e["response"]
        t0 = iso(e["startedDateTime"])
        pd = r.get("postData") or {}
        if r["method"] == "POST":
            body = json.loads(pd["text"]) if pd.get("text") else rebuild(pd.get("params") or [])
            if body is not None:
                for m in body if isinstance(body, list) else [body]:
                    out.append((t0, "c2s", m, i, True))
        c = resp.get("content") or {}
        if "event-stream" not in (c.get("mimeType") or ""):
            continue
        # A record stamped before the response headers arrived (DevTools
        # does that for events that came before it followed the stream) is
        # no arrival time: the event keeps the entry's end.
        hdr = t0 + (e["time"] - max(e["timings"].get("receive", 0), 0)) / 1000
        end = t0 + e["time"] / 1000
        # Firefox writes a stream still open at export with `time` 0 and
        # empty `timings`: no end, so its events have no time that bounds them.
        open_at_export = "receive" not in e["timings"] and e["time"] <= 0
        # A record is at most the entry's end (records run up to 2 ms past it).
        es = [dict(m, time=min(m["time"], end) if m["time"] >= hdr - 5e-7 else None) for m in e.get("_eventSourceMessages") or []]
        if c.get("text"):
            evs, k = [], 0
            text = c["text"] if "charset" in c.get("mimeType", "") else undo_1252(c["text"])
            for eid, data in sse_events(text):
                t = None
                for j in range(k, len(es)):
                    if es[j].get("eventId", "") == eid and es[j].get("data", data) == data:
                        t, k = es[j]["time"], j + 1
                        break
                evs.append((t, data))
        else:
            evs = [(m["time"], m["data"]) for m in es if m.get("data")]
        # An event without a time of its own came before the next timed one.
        nxt = end
        for k in range(len(evs) - 1, -1, -1):
            if evs[k][0] is None:
                evs[k] = (nxt, evs[k][1])
            elif evs[k][1]:
                nxt = evs[k][0]
        for t, data in evs:
            if data:
                out.append((t, "s2c", json.loads(data), i, not open_at_export))
    return out


def kind(m):
    return "request" if "method" in m and "id" in m else "notification" if "method" in m else "response"


def main(name, findings, notes):
    har = json.load(open(f"{D}/{name}"))
    msgs = har_messages(har)
    counts = {"requests": 0, "notifications": 0, "responses": 0, "batches": 0, "sessions": 1}
    for _, _, m, _, _ in msgs:
        counts[kind(m) + "s"] += 1
    # pairs and latencies: request frame time -> response frame time (HAR),
    # responses in time order.
    # Responses in time order; a request pairs with its answer whatever
    # their nominal times (causal placement, DESIGN.md rule 4, puts a
    # server request before the POST answering it; its latency is then
    # unknown).
    order = sorted(msgs, key=lambda x: x[0])
    reqs = {(d, json.dumps(m["id"])): (t, b) for t, d, m, _, b in order if kind(m) == "request"}
    pairs, lat, pos = [], [], 0
    for t, d, m, i, b in order:
        if kind(m) != "response":
            continue
        key = ("s2c" if d == "c2s" else "c2s", json.dumps(m["id"]))
        if key in reqs:
            t1, b1 = reqs.pop(key)
            pairs.append([m["id"], pos])
            lat.append([m["id"], pos, None if t < t1 or not (b and b1) else round((t - t1) * 1000, 3)])
        pos += 1
    rec = name.split("__")[0][len("har_browser-"):]  # devtools-sensitive, chrome-har, playwright-embed, firefox
    tag = "chromehar" if rec.startswith("chrome-har") else rec.split("-")[0]
    page = json.load(open(f"{D}/truth/{tag}.page_log.json"))
    c2s_truth = [x["msg"] for x in page if x.get("dir") == "c2s"]
    exp = {
        "source_url": None,
        "summary": f"{har['log']['creator']['name']} {har['log']['creator'].get('version')} HAR of a browser page (TS SDK 1.32.2 StreamableHTTPClientTransport) against a TS SDK 1.32.2 server; see README.md",
        "format": "har",
        "facts": {"counts": counts, "pairs": pairs, "latency_ms": lat, "expect_exact": True,
                  "findings": findings, "optional_findings": []},
        "ground_truth": {"page_c2s_messages": len(c2s_truth), "har_c2s_messages": sum(1 for x in msgs if x[1] == "c2s"),
                          "har_s2c_messages": sum(1 for x in msgs if x[1] == "s2c")},
        "notes": notes,
    }
    json.dump(exp, open(f"{D}/{name}.expected.json", "w"), indent=2, ensure_ascii=False)
    print(name, counts, len(pairs), "pairs")


if __name__ == "__main__":
    spec = json.load(open(f"{D}/scripts/findings.json"))
    for name, v in spec.items():
        main(name, v["findings"], v["notes"])
