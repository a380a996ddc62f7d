"""Print a HAR's entries: index, start, time, method, status, MCP headers, bodies (truncated)."""
import json, sys
h = json.load(open(sys.argv[1]))
w = int(sys.argv[2]) if len(sys.argv) > 2 else 400
for i, e in enumerate(h['log']['entries']):
    rq, rs = e['request'], e['response']
    hdr = {x['name'].lower(): x['value'] for x in rq['headers']}
    rh = {x['name'].lower(): x['value'] for x in rs['headers']}
    print(f"#{i} {e['startedDateTime']} time={e['time']:.1f} recv={e['timings'].get('receive')} {rq['method']} {rs['status']} {rh.get('content-type','-')}",
          {k: v for k, v in hdr.items() if k.startswith('mcp')})
    print('   >', (rq.get('postData') or {}).get('text', '')[:w])
    print('   <', rs['content'].get('text', '')[:w].replace('\r\n', '|').replace('\n', '|'))
