"""Per-chunk receive times from a curl --trace-time --trace-ascii file: ms after the
request body was sent, whether the chunk holds a result, and how many progress /
log notifications it holds."""
import datetime, re, sys

t = lambda s: datetime.datetime.strptime(s, "%H:%M:%S.%f")
for path in sys.argv[1:]:
    send = None; recvs = []; cur = None
    for l in open(path):
        m = re.match(r"^(\d\d:\d\d:\d\d\.\d+) (=> Send data|<= Recv data|<= Recv header)", l)
        if m:
            cur = (m.group(2), t(m.group(1)))
            if m.group(2) == "=> Send data" and send is None:
                send = cur[1]
            if m.group(2) == "<= Recv data":
                recvs.append([cur[1], ""])
            continue
        m = re.match(r"^[0-9a-f]{4}: (.*)$", l)
        if m and cur and cur[0] == "<= Recv data":
            recvs[-1][1] += m.group(1)
    print(path)
    for r, s in recvs:
        has_result = '"result"' in s
        print(f"  +{(r - send).total_seconds() * 1000:7.1f} ms  result={has_result}  progress={s.count('notifications/progress')}  log={s.count('notifications/message')}")
