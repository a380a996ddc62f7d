"""Independent reading of a supergateway 4.0.0 gateway log (stdout+stderr as
written): the messages it shows, in log order, with the session each belongs
to under FORMATS.md §8.3.6 (mcp-audit's reading rules, written out again here
without its code), for make_expected.py to count and to check against the
sending sides' taps.

python3 read_sg.py LOG   -> prints one line per message
Each message: (line, dir, session|None, kind, id, method).
"""
import json, re, sys

ROUTE = re.compile(r"^\[supergateway\] (\w+) (?:→|->) (Streamable HTTP|\w+)(?: \((session [^)]+|original|auto-initialize|initialized)\))?: ?(.*)$")


def inspect_top(lines, i):
    """A util.inspect dump opened by '{' at the end of line i: (id, method, kind, last line index)."""
    j = i + 1
    mid = meth = None
    kind = "notification"
    while lines[j] != "}":
        mm = re.match(r"  id: (.*?),?$", lines[j])
        if mm and mid is None:
            v = mm.group(1)
            mid = json.loads(v) if not v.startswith("'") else v.strip("'")
        mm = re.match(r"  method: '(.*)',?$", lines[j])
        if mm:
            meth = mm.group(1)
        if lines[j].startswith("  result:"):
            kind = "result"
        if lines[j].startswith("  error:"):
            kind = "error"
        j += 1
    if meth and mid is not None:
        kind = "request"
    return mid, meth, kind, j


def classify(o):
    if "method" in o:
        return ("request" if "id" in o else "notification"), o.get("id"), o["method"]
    return ("error" if "error" in o else "result"), o.get("id"), None


def read(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    out, stateless = [], False
    i = 0
    while i < len(lines):
        l = lines[i]
        if l == "[supergateway] Running stateless server":
            stateless = True
        m = ROUTE.match(l)
        if m:
            src, dst, tag, body = m.groups()
            d = "c2s" if (dst == "Child" or src == "Stdio") else "s2c"
            sess = tag[8:] if tag and tag.startswith("session ") else None
            if tag == "original":
                i += 1
                continue
            if body == "{":
                mid, meth, kind, j = inspect_top(lines, i)
                out.append((i + 1, d, sess, kind, mid, meth))
                i = j + 1
                continue
            kind, mid, meth = classify(json.loads(body))
            out.append((i + 1, d, sess, kind, mid, meth))
            if stateless and d == "s2c" and kind == "request":
                out.append((i + 1, "c2s", None, "lost", None, None))
        elif re.match(r"^\[supergateway\] (SSE connection closed|Client disconnected|SSE error) \(session ([^)]+)\)", l):
            out.append((i + 1, "close", re.search(r"\(session ([^)]+)\)", l).group(1), "close", None, None))
        i += 1
    return out, stateless


def attribute(msgs):
    """Sessions for session-less child output (FORMATS.md §8.3.6): a reply to the
    session that waits for its id (the first to ask), a request or notification
    to every open session, else the only open / last active one."""
    first = next((m[2] for m in msgs if m[2]), None)
    opened, pending, last, res, unsure = [], [], None, [], 0
    for ln, d, s, kind, mid, meth in msgs:
        if kind == "close":
            opened = [x for x in opened if x != s]
            continue
        if s:
            if s not in opened:
                opened.append(s)
            last = s
            if d == "c2s" and kind == "request":
                pending.append((s, mid))
            res.append((ln, d, s, kind, mid, meth))
            continue
        if first is None or d == "c2s":
            res.append((ln, d, None, kind, mid, meth))
            continue
        if kind in ("result", "error"):
            w = [k for k, (ps, pid) in enumerate(pending) if pid == mid]
            if w:
                ps = pending.pop(w[0])[0]
                unsure += len(w) > 1
                res.append((ln, d, ps, kind, mid, meth))
                continue
        if kind in ("request", "notification") and len(opened) > 1:
            for o in opened:
                res.append((ln, d, o, kind, mid, meth))
            continue
        if len(opened) == 1:
            res.append((ln, d, opened[0], kind, mid, meth))
        elif not opened:
            res.append((ln, d, last or first, kind, mid, meth))
        else:
            unsure += 1
            res.append((ln, d, last, kind, mid, meth))
    return res, unsure


if __name__ == "__main__":
    msgs, _ = read(sys.argv[1])
    res, unsure = attribute(msgs)
    for r in res:
        print(*r)
    print("unsure", unsure)
