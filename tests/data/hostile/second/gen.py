import json, base64, os
# Writes h2.har, big.har, h2.sse, h2.ndjson, h2.logger.log beside itself.
D = os.path.dirname(os.path.abspath(__file__))
# Raw JSON text fragments (written verbatim into message JSON text), per tag prefix P.
def obj_members(P):
    # returns raw JSON text of an "arguments" object full of secrets
    return ('{'
      f'"pass\\u0077ord":"LEAK-{P}-k1",'
      f'"\\u0061pi_key":"LEAK-{P}-k2",'
      f'"acc\\u0065ss_t\\u006fken":"LEAK-{P}-k3",'
      f'"pass":"LEAK-{P}-k4",'
      f'"pin":73195046,"password":98127345,"pass\\u0077ord2":55501234,'
      f'"user_password":"LEAK-{P}-k5a\\"LEAK-{P}-k5b",'
      f'"apiKeys":["LEAK-{P}-k6"],'
      f'"credentials":{{"user":"bob","key":"LEAK-{P}-k7"}},'
      f'"secretAccount":"LEAK-{P}-k8",'
      f'"subscriptionKey":"LEAK-{P}-k9","AccountKey":"LEAK-{P}-k10",'
      f'"client_secret":"LEAK-{P}-k11",'
      f'"code":"LEAK-{P}-k12",'
      f'"note1":"sk-LEAK{P}abcdefghijklmnop123",'
      f'"note2":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJMRUFLIn0.LEAK{P}sig_nature123",'
      f'"nested":"{{\\"body\\":\\"{{\\\\\\"password\\\\\\":\\\\\\"LEAK-{P}-k15\\\\\\"}}\\"}}",'
      f'"url1":"https:\\/\\/bob:LEAK-{P}-k16@db.example\\/x",'
      f'"url2":"redis://:LEAK-{P}-k17@cache:6379/0",'
      f'"url3":"postgres://u:LEAK-{P}-k18@h/db",'
      f'"url4":"https://h/cb?state=1\\u0026code=LEAK-{P}-k19",'
      f'"url5":"https://h/cb?access_token=LEAK-{P}-k20&code=LEAK-{P}-k21",'
      f'"url6":"https://apim.example/api?subscription-key=LEAK-{P}-k22",'
      f'"url7":"https://h/x?auth_key=LEAK-{P}-k23",'
      f'"url8":"https://h/x?access%5Ftoken=LEAK-{P}-k24",'
      f'"url9":"https://h/cb#code=LEAK-{P}-k25&state=z"'
      '}')
def free_text(P):
    # plain text (will be JSON-escaped when put in a string)
    return (f"password=LEAK-{P}-f1 token: LEAK-{P}-f2 api_key: LEAK-{P}-f3 secret=LEAK-{P}-f4 "
            f"client_secret=LEAK-{P}-f5 password=\"LEAK-{P}-f6\" params={{'password': 'LEAK-{P}-f7', 'api_key': 'LEAK-{P}-f8'}} "
            f"_token=LEAK-{P}-f9 MYSQL_PWD=LEAK-{P}-f10 authKey=LEAK-{P}-f11 tokenValue=LEAK-{P}-f12 "
            f"x-functions-key=LEAK-{P}-f13 :password => LEAK-{P}-f14 password => \"LEAK-{P}-f15\" "
            f"sent Cookie: theme=dark; session=LEAK-{P}-f16 "
            f"conn=DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=LEAK-{P}-f17==;EndpointSuffix=core.windows.net "
            f"body code=LEAK-{P}-f18&grant_type=authorization_code token: [LEAK-{P}-f20] "
            f"Bearer LEAK{P}1 X-Api-Key: LEAK-{P}-f22 x-goog-api-key: LEAK-{P}-f23 api-key: LEAK-{P}-f24")
def js(s): return json.dumps(s)
def req(i, P, method='tools/call'):
    return ('{"jsonrpc":"2.0","id":%s,"method":"%s","params":{"name":"login password=LEAK-%s-m1","arguments":%s}}'
            % (i, method, P, obj_members(P)))
def err(i, P):
    return ('{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%s,"data":{"stack":"at connect (postgres://admin:LEAK-%s-e1@db:5432)","pass\\u0077ord":"LEAK-%s-e2"}}}'
            % (i, js(free_text(P+'err')), P, P))
def res(i, P):
    return ('{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}],"auth":%s}}'
            % (i, js(free_text(P+'res')), obj_members(P+'r')))
init_req = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h2","version":"1"}}}'
init_res = '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"h2srv","version":"1"}}}'
for s in [init_req, init_res, req(2,'x'), err(2,'x'), res(2,'x')]:
    json.loads(s)  # all valid

# ---------- HAR ----------
def hdr(n, v): return {"name": n, "value": v}
def entry(t, url, body, resp_body, P, extra_req_headers=(), resp_b64=False, big=False):
    rh = [hdr("Content-Type","application/json"), hdr("Authorization", f"Basic TEVBSy1{P}"),
          hdr("Ocp-Apim-Subscription-Key", f"LEAK-{P}-h1"), hdr("X-Functions-Key", f"LEAK-{P}-h2"),
          hdr("X-Api-Key", f"LEAK-{P}-h3"), hdr("api-key", f"LEAK-{P}-h4"), hdr("x-goog-api-key", f"LEAK-{P}-h5"),
          hdr("Cookie", f"theme=dark; sid=LEAK-{P}-h6"), hdr("Mcp-Session-Id","h2-sess")] + list(extra_req_headers)
    content = {"size": len(resp_body), "mimeType": "application/json", "text": resp_body}
    if resp_b64:
        content["text"] = base64.b64encode(resp_body.encode()).decode(); content["encoding"] = "base64"
    e = {"startedDateTime": t, "time": 20,
         "request": {"method": "POST", "url": url, "httpVersion": "HTTP/1.1", "headers": rh,
                     "queryString": [hdr("access_token", f"LEAK-{P}-q1"), hdr("subscription-key", f"LEAK-{P}-q2"), hdr("code", f"LEAK-{P}-q3")],
                     "cookies": [hdr("sid", f"LEAK-{P}-c1")], "headersSize": -1, "bodySize": len(body),
                     "postData": {"mimeType": "application/json", "text": body,
                                  "params": [hdr("client_secret", f"LEAK-{P}-p1"), hdr("pin", "LEAK-{P}-p2")]}},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                      "headers": [hdr("Content-Type","application/json"), hdr("Set-Cookie", f"sid=LEAK-{P}-sc1; HttpOnly"),
                                  hdr("Mcp-Session-Id","h2-sess")],
                      "cookies": [hdr("sid", f"LEAK-{P}-c2")], "content": content, "redirectURL": "", "headersSize": -1, "bodySize": -1},
         "cache": {}, "timings": {"send": 0, "wait": 20, "receive": 0}}
    if big:
        e["comment"] = "x" * 70000
    return e
url = lambda P: f"https://alice:LEAK-{P}-u1@mcp.example/mcp?access_token=LEAK-{P}-u2&code=LEAK-{P}-u3&subscription-key=LEAK-{P}-u4"
entries = [
  entry("2026-11-30T10:00:00.000Z", url('H0'), init_req, init_res, 'H0'),
  entry("2026-11-30T10:00:01.000Z", url('H1'), req(2,'H1'), err(2,'H1'), 'H1'),
  entry("2026-11-30T10:00:02.000Z", url('H2'), req(2,'H2'), res(555,'H2'), 'H2'),   # duplicate id 2, unknown 555
  entry("2026-11-30T10:00:03.000Z", url('H3'), req(3,'H3'), err('null','H3'), 'H3', resp_b64=True),  # null-id error, base64
]
har = {"log": {"version": "1.2", "creator": {"name": "h2", "version": "1"}, "entries": entries}}
txt = json.dumps(har, indent=1)
# Reversed/commented header objects (raw text; condensed view parses them fine)
txt = txt.replace('"headers": [', '"headers": [{"value": "LEAK-REV-h7", "name": "X-Api-Key"}, {"name": "X-Functions-Key", "comment": "", "value": "LEAK-REV-h8"},', 1)
open(f'{D}/h2.har','w').write(txt)
# Big-entry HAR: entry > 64 KB so the raw (not condensed) entry is shown
big = {"log": {"version": "1.2", "creator": {"name": "h2", "version": "1"}, "entries": [
  entry("2026-11-30T10:00:00.000Z", url('B0'), init_req, init_res, 'B0'),
  entry("2026-11-30T10:00:01.000Z", url('B1'), req(2,'B1'), res(777,'B1'), 'B1',
        extra_req_headers=[], big=False)]}}
btxt = json.dumps(big, indent=1)
btxt = btxt.replace('"headers": [', '"headers": [{"value": "LEAK-BREV-h7", "name": "X-Api-Key"}, {"name": "X-Functions-Key", "comment": "", "value": "LEAK-BREV-h8"},')
# pad entry 1 after its request so the raw excerpt (first 4 KB) holds headers
btxt = btxt.replace('"cache": {}', '"_pad": "' + 'p'*70000 + '", "cache": {}')
open(f'{D}/big.har','w').write(btxt)
json.loads(txt); json.loads(btxt)

# ---------- raw SSE (curl -i) ----------
sse = ("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
       "Ocp-Apim-Subscription-Key: LEAK-S-h1\r\nX-Functions-Key: LEAK-S-h2\r\nX-Api-Key: LEAK-S-h3\r\napi-key: LEAK-S-h4\r\n"
       "x-goog-api-key: LEAK-S-h5\r\nset-cookie: sid=LEAK-S-h6; HttpOnly\r\nX_Api_Key: LEAK-S-h7\r\n"
       "WWW-Authenticate: Bearer realm=x, error=LEAK-S-h8\r\nmcp-session-id: h2-sse\r\n\r\n")
ev = lambda i, data: f"id: {i}\nevent: message\ndata: {data}\n\n"
sse += ev(1, init_res)
sse += ev(2, res(7, 'S1'))
sse += ev(3, res(7, 'S2'))                # duplicate response id 7
sse += ev(4, err('null', 'S3'))           # null-id error
sse += f"id: 5\nevent: message\ndata: {free_text('S4')}\n\n"   # non-JSON data
sse += ': token=LEAK-S-c1 comment\n\n'
sse += 'id: 6\nevent: message\ndata: {"jsonrpc":"2.0","id":8,"result":{"password":\ndata: "LEAK-S-split1","x":{"api_key":\ndata:  "LEAK-S-split2"}}}\n\n'
sse += ev(7, res(8, 'S5'))                # duplicate 8
open(f'{D}/h2.sse','w').write(sse)

# ---------- NDJSON envelope ----------
lines = []
t = lambda s: f"2026-11-30T10:00:{s:06.3f}Z"
def env(ts, d, m): return '{"ts":"%s","dir":"%s","msg":%s}' % (ts, d, m)
lines.append(env(t(0), "c2s", init_req)); lines.append(env(t(0.01), "s2c", init_res))
lines.append(env(t(1), "c2s", req(2,'E1'))); lines.append(env(t(1.1), "c2s", req(2,'E2')))
lines.append(env(t(1.2), "s2c", err(2,'E3'))); lines.append(env(t(1.3), "s2c", res(404,'E4')))
lines.append(env(t(1.4), "s2c", err('null','E5')))
lines.append(free_text('E6'))
lines.append(env(t(1.5), "c2s", '{"jsonrpc":"2.0","id":"password=LEAK-E7-id","method":"ping"}'))
lines.append(env(t(1.6), "c2s", json.dumps(req(9,'E8'))))  # msg as wire-line string
open(f'{D}/h2.ndjson','w').write("\n".join(lines) + "\n")
for l in lines[:7]: json.loads(l)

# ---------- [STDIN]/[STDOUT] log ----------
L = []
L.append(f"{t(0)} [STDIN] {init_req}"); L.append(f"{t(0.01)} [STDOUT] {init_res}")
L.append(f"{t(0.5)} [STDERR] {free_text('L1')}")
L.append(f"{t(0.6)} [STDOUT] {free_text('L2')}")
L.append(f"{t(1)} [STDIN] {req(2,'L3')}"); L.append(f"{t(1.05)} [STDIN] {req(2,'L4')}")
L.append(f"{t(1.1)} [STDOUT] {err('null','L5')}"); L.append(f"{t(1.2)} [STDOUT] {res(321,'L6')}")
L.append(f"{t(1.3)} [STDOUT] {err(2,'L7')}")
L.append(f"{t(1.4)} [STDERR] Traceback: connect(dsn='postgresql://svc:LEAK-L8-x@db/app', password='LEAK-L8-y')")
open(f'{D}/h2.logger.log','w').write("\n".join(L) + "\n")
print("ok")
