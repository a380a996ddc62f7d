"""Independent reading of the capture files (for cross-checking against the taps):
prints the sequence of messages each capture shows, in capture order."""
import json, re, sys


def sg_sse2stdio(path):
    seq = []
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        l = lines[i]
        m = re.match(r"\[supergateway\] (Stdio → SSE|Response): \{$", l)
        if m:
            j = i + 1
            mid = meth = None; kind = None
            while lines[j] != "}":
                mm = re.match(r"  id: (.*),?$", lines[j])
                if mm and mid is None: mid = mm.group(1).rstrip(",")
                mm = re.match(r"  method: '(.*)',?$", lines[j])
                if mm: meth = mm.group(1)
                if lines[j].startswith("  result:"): kind = "result"
                if lines[j].startswith("  error:"): kind = "error"
                j += 1
            seq.append(("c2s" if m.group(1) != "Response" else "s2c", mid, meth or kind, i + 1))
            i = j
        elif "Request error" in l:
            seq.append(("note", None, l[:80], i + 1))
        i += 1
    return seq


def mr_plain(path):
    seq = []
    for n, l in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        m = re.match(r"\[(\d+)\] \[(Local→Remote|Remote→Local)\] (.*)$", l)
        if m:
            d = "c2s" if m.group(2) == "Local→Remote" else "s2c"
            x = m.group(3)
            seq.append((d, x if x.isdigit() else None, None if x.isdigit() else x, n))
    return seq


def mr_debugfile(path):
    seq = []
    for n, l in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        m = re.search(r"(Local → Remote|Remote → Local) message (\{.*\})$", l)
        if m:
            o = json.loads(m.group(2))
            seq.append(("c2s" if m.group(1) == "Local → Remote" else "s2c", o.get("id"), o.get("method") or ("error" if "error" in o else "result" if "result" in o else "reply"), n))
    return seq


def mcp_proxy(path):
    seq = []
    for n, l in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        m = re.search(r"(Sending client message|SSE message|Received message): root=(JSONRPC\w+|\w+Notification)\((.*)\)$", l)
        if m:
            body = m.group(3)
            mid = re.search(r", id=('?[\w-]+'?)(?:, (?:result|error)=|\)?$)", body) or re.search(r"jsonrpc='2.0', id=([\w']+)", body)
            meth = re.match(r"method='([^']+)'", body)
            d = {"Sending client message": "c2s", "SSE message": "s2c", "Received message": "local-c2s"}[m.group(1)]
            ts = l[3:26]
            seq.append((d, mid.group(1) if mid else None, meth.group(1) if meth else m.group(2), n, ts))
    return seq


if __name__ == "__main__":
    f = {"sg": sg_sse2stdio, "mr": mr_plain, "mrd": mr_debugfile, "mp": mcp_proxy}[sys.argv[1]]
    for x in f(sys.argv[2]):
        print(*x)
