#!/usr/bin/env python3
"""A third hostile corpus for mcp-audit's redaction (issue 16).

Written by someone who had not read the redaction rules: secrets in the
places real captures hold them, in the shapes real software writes them.
Run it in this folder (standard library only); it rewrites

  h3.har              HAR 1.2 (Chrome/DevTools shape, with a WebSocket entry)
  h3.sse              raw SSE, `curl -i -N`
  h3.supergateway.log supergateway stdio->SSE (util.inspect dumps)
  h3.mcp-proxy.log    mcp-proxy (PyPI) --debug stderr (pydantic reprs)
  h3.ndjson           NDJSON envelope recorder log
  h3.remote.log       mcp-remote --debug file
  secrets.txt         every secret, one a line, as written in the inputs

Every secret contains `Hx3` or `HX3` (or is listed whole in secrets.txt,
as base64 and JWT headers are), and no other text does. A test greps every
output for `Hx3`/`HX3` and for each line of secrets.txt (whole, its first
and its last 12 characters).
"""

import base64
import json
import os
import random

R = random.Random(16003)
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0234567"
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
SECRETS = []


def rnd(n, alphabet=ALNUM):
    return "".join(R.choice(alphabet) for _ in range(n))


def sec(s):
    SECRETS.append(s)
    return s


def ghp():
    return sec("ghp_Hx3" + rnd(33))


def gho():
    return sec("gho_Hx3" + rnd(33))


def github_pat():
    return sec("github_pat_11AHx3" + rnd(19) + "_" + rnd(59))


def openai():
    return sec("sk-proj-Hx3" + rnd(17) + "T3BlbkFJ" + rnd(20))


def anthropic():
    return sec("sk-ant-api03-Hx3" + rnd(90, ALNUM + "-_") + "AA")


def slack(kind="xoxb"):
    return sec(f"{kind}-{rnd(12, '0123456789')}-{rnd(13, '0123456789')}-Hx3{rnd(21)}")


def aws_key(prefix="AKIA"):
    return sec(prefix + "HX3" + rnd(13, UPPER))


def aws_secret():
    return sec("Hx3" + rnd(37, B64))


def google():
    return sec("AIzaSyHx3" + rnd(30, ALNUM + "-_"))


def stripe():
    return sec("sk_live_51Hx3" + rnd(40))


def hf():
    return sec("hf_Hx3" + rnd(31))


def npm():
    return sec("npm_Hx3" + rnd(33))


def opaque(n=32):
    return sec("Hx3" + rnd(n - 3, ALNUM + "-_"))


def hexsecret(n=40):
    return sec("Hx3" + rnd(n - 3, HEX))


def password():
    words = ["correct", "horse", "battery", "staple", "violet", "orbit"]
    return sec("Hx3" + R.choice(words) + "-" + R.choice(words) + rnd(4, "0123456789") + "!")


def umlaut_password():
    """A password with non-ASCII letters: JSON writers that escape them
    (Python's json.dumps) give `\\u00e4`; both spellings are listed."""
    v = "Hx3p\u00e4ssw\u00f6rd-" + rnd(6)
    sec(json.dumps(v)[1:-1])
    return sec(v)


def b64u(obj):
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def jwt(sub):
    head = b64u({"alg": "RS256", "typ": "JWT", "kid": "k1"})
    body = b64u({"sub": sub, "iss": "https://auth.example.com/", "exp": 1893456000})
    s = f"{head}.{body}.Hx3{rnd(80, ALNUM + '-_')}"
    return sec(s)


def basic(user, pw):
    v = base64.b64encode(f"{user}:{pw}".encode()).decode()
    return sec(v)


def w(name, text):
    with open(name, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def dumps(o):
    return json.dumps(o, separators=(",", ":"))


# ---------------------------------------------------------------- HAR


def hdr(name, value):
    return {"name": name, "value": value}


def har_entry(method, url, req_headers, body, resp_headers, resp_text,
              started, status=200, mime="application/json", cookies=(),
              resp_cookies=(), post_params=None, query=None, post_mime=None):
    req = {
        "method": method,
        "url": url,
        "httpVersion": "HTTP/1.1",
        "headers": req_headers,
        "queryString": query or [],
        "cookies": list(cookies),
        "headersSize": -1,
        "bodySize": len(body or ""),
    }
    if body is not None:
        req["postData"] = {"mimeType": post_mime or "application/json", "text": body}
        if post_params is not None:
            req["postData"]["params"] = post_params
    return {
        "startedDateTime": started,
        "time": 42.5,
        "request": req,
        "response": {
            "status": status,
            "statusText": "OK" if status == 200 else "Unauthorized",
            "httpVersion": "HTTP/1.1",
            "headers": resp_headers,
            "cookies": list(resp_cookies),
            "content": {"size": len(resp_text), "mimeType": mime, "text": resp_text},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(resp_text),
        },
        "cache": {},
        "timings": {"send": 0.1, "wait": 41.9, "receive": 0.5},
    }


def har():
    base = "https://mcp.example.com/mcp"
    sid = "5f0c8e1a-9b7d-4c3e-8a21-d6f4b2c1e907"
    common = [hdr("Content-Type", "application/json"),
              hdr("Accept", "application/json, text/event-stream"),
              hdr("Mcp-Session-Id", sid)]
    entries = []
    t = lambda s: f"2026-12-04T10:00:{s:02d}.000Z"

    # 1. initialize: Authorization in odd case, cookies in header and list,
    #    a token in the URL and in queryString, a vendor key, an HMAC
    #    signature header, a credentials header, Basic proxy auth.
    bearer = jwt("user-Hx3-initialize")
    sess_cookie = opaque(40)
    csrf = opaque(32)
    qtok = opaque(28)
    sig = hexsecret(64)
    cred = opaque(36)
    proxy_basic = basic("proxyuser", password())
    init = dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "inspector", "version": "0.16.2"}}})
    init_resp = dumps({"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
        "serverInfo": {"name": "acme-tools", "version": "2.3.1"}}})
    entries.append(har_entry(
        "POST", f"{base}?access_token={qtok}&client=inspector",
        [hdr("AUTHORIZATION", f"Bearer {bearer}")] + common[:2],
        init,
        [hdr("Content-Type", "application/json"), hdr("mcp-session-id", sid),
         hdr("set-cookie", f"__Host-session={sess_cookie}; Path=/; Secure; HttpOnly")],
        init_resp, t(0),
        cookies=[{"name": "__Host-session", "value": sess_cookie},
                 {"name": "csrftoken", "value": csrf}],
        query=[{"name": "access_token", "value": qtok},
               {"name": "client", "value": "inspector"}],
    ))

    # 2. tools/call whose arguments hold secrets at depth, a JSON string
    #    inside a JSON string, and Unicode-escaped names and values.
    gh = ghp()
    oa = openai()
    db_pw = password()
    nested = dumps({"mcpServers": {"github": {"command": "npx", "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": gh}}}})
    args = {"config": nested,
            "connection": {"dsn": f"postgresql://app:{db_pw}@db.internal:5432/app"},
            "headers": [["Authorization", f"Bearer {oa}"]],
            "path": "/srv/app"}
    call = dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {"name": "write_config", "arguments": args}})
    esc_pw = password()
    # A value written with \u escapes (json.dumps ensure_ascii style) and
    # a member name partly escaped.
    call = call[:-2] + ',"\\u0070assword":"' + "".join(f"\\u{ord(c):04x}" for c in esc_pw) + '"}}'
    # The reply comes back with id 22: unknown id, and id 2 never answered.
    env_ak = aws_key()
    env_sk = aws_secret()
    slack_bot = slack()
    hook = "https://hooks.slack.com/services/T0A1B2C3D/B0E4F5G6H/" + sec("Hx3" + rnd(21))
    env_dump = "\n".join([
        "HOME=/home/app", "PATH=/usr/local/bin:/usr/bin",
        f"AWS_ACCESS_KEY_ID={env_ak}", f"AWS_SECRET_ACCESS_KEY={env_sk}",
        f"SLACK_BOT_TOKEN={slack_bot}", f"SLACK_WEBHOOK_URL={hook}",
        "NODE_ENV=production"])
    res = dumps({"jsonrpc": "2.0", "id": 22, "result": {"content": [
        {"type": "text", "text": "wrote config; environment was:\n" + env_dump}]}})
    entries.append(har_entry(
        "POST", base,
        [hdr("authorization", f"Bearer {bearer}"), hdr("X-Api-Key", opaque(40)),
         hdr("cookie", f"_ga=GA1.1.123.456; __Host-session={sess_cookie}; theme=dark"),
         hdr("X-CSRF-Token", csrf),
         hdr("X-Hub-Signature-256", f"sha256={sig}"),
         hdr("X-Client-Credentials", cred),
         hdr("proxy-authorization", f"Basic {proxy_basic}")] + common,
        call, [hdr("Content-Type", "application/json")], res, t(2),
        cookies=[{"name": "__Host-session", "value": sess_cookie},
                 {"name": "csrftoken", "value": csrf}]))

    # 3. An OAuth token exchange the browser made on the same page: form
    #    body text and params, JSON token response, a redirect with a code.
    code = opaque(43)
    verifier = opaque(64)
    csecret = opaque(40)
    at = jwt("user-Hx3-access")
    rt = opaque(48)
    form = (f"grant_type=authorization_code&code={code}&redirect_uri="
            f"https%3A%2F%2Fapp.example.com%2Fcb&code_verifier={verifier}"
            f"&client_id=mcp-inspector&client_secret={csecret}")
    tok_resp = dumps({"access_token": at, "token_type": "Bearer", "expires_in": 3600,
                      "refresh_token": rt, "scope": "mcp"})
    e = har_entry(
        "POST", "https://auth.example.com/oauth/token",
        [hdr("Content-Type", "application/x-www-form-urlencoded")], form,
        [hdr("Content-Type", "application/json"), hdr("Cache-Control", "no-store")],
        tok_resp, t(3), post_mime="application/x-www-form-urlencoded",
        post_params=[{"name": "grant_type", "value": "authorization_code"},
                     {"name": "code", "value": code},
                     {"name": "code_verifier", "value": verifier},
                     {"name": "client_secret", "value": csecret}])
    entries.append(e)

    # 4. A batch: one member's error message and data quote credentials.
    an = anthropic()
    up_pw = password()
    batch = dumps([
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "ask_claude", "arguments": {"prompt": "hello",
                                                          "x-api-key": an}}},
        {"jsonrpc": "2.0", "id": 4, "method": "resources/read",
         "params": {"uri": f"https://admin:{up_pw}@files.example.com/report.csv"}},
    ])
    req_dump = opaque(30)
    err_tok = opaque(30)
    batch_resp = dumps([
        {"jsonrpc": "2.0", "id": 4, "error": {"code": -32603,
         "message": f"fetch failed: 401 for https://admin:{up_pw}@files.example.com/report.csv",
         "data": {"request": {"headers": {"Authorization": f"Basic {basic('admin', up_pw)}"}},
                  "response": "WWW-Authenticate: Bearer error=\"invalid_token\"",
                  "trace": f"upstream said: invalid api_key={req_dump} (token {err_tok})"}}},
        {"jsonrpc": "2.0", "id": 3, "error": {"code": -32000,
         "message": f"Anthropic error 401: invalid x-api-key {an}"}},
    ])
    entries.append(har_entry(
        "POST", base, [hdr("Authorization", f"Bearer {bearer}")] + common,
        batch, [hdr("Content-Type", "application/json")], batch_resp, t(4)))

    # 5. Streamable HTTP answer as an SSE body, secrets in event data and
    #    an event id; the id 5 request is sent twice (duplicate id).
    gl = sec("glpat-Hx3" + rnd(17))
    st = stripe()
    req5 = dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                  "params": {"name": "run_shell", "arguments": {
                      "cmd": f"curl -H 'PRIVATE-TOKEN: {gl}' https://gitlab.example.com/api/v4/projects"}}})
    evid = "evt-0001"
    sse_body = (f"id: {evid}\nevent: message\n"
                "data: " + dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                  "params": {"level": "debug", "data": {
                                      "msg": "calling stripe", "stripe_key": st}}}) + "\n\n"
                "data: " + dumps({"jsonrpc": "2.0", "id": 5, "result": {"content": [
                    {"type": "text", "text": f"exit 0\nStripe.api_key = '{st}'"}]}}) + "\n\n")
    for k in range(2):
        entries.append(har_entry(
            "POST", base, [hdr("Authorization", f"Bearer {bearer}")] + common,
            req5, [hdr("Content-Type", "text/event-stream")], sse_body, t(5 + k),
            mime="text/event-stream"))

    # 6. A 401 on a GET whose URL holds a Google key, a signed S3 URL and a
    #    SAS signature; the WWW-Authenticate and a JSON error body.
    gk = google()
    s3k = aws_key("ASIA")
    s3sig = hexsecret(64)
    s3tok = sec("IQoJb3JpZ2luX2VjHx3" + rnd(60, B64))
    sas = sec("Hx3" + rnd(40, B64).replace("+", "%2B").replace("/", "%2F") + "%3D")
    url = (f"{base}?key={gk}&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={s3k}%2F20261204%2Fus-east-1%2Fs3%2Faws4_request"
           f"&X-Amz-Security-Token={s3tok}&X-Amz-Signature={s3sig}&sv=2022-11-02&sig={sas}")
    req6 = dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/list"})
    entries.append(har_entry(
        "POST", url, common, req6,
        [hdr("WWW-Authenticate", 'Bearer realm="mcp", error="invalid_token"'),
         hdr("Content-Type", "application/json")],
        dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32001,
               "message": f"invalid key {gk}"}}), t(8), status=401))

    # 7. A WebSocket entry (Chrome's _webSocketMessages).
    ws_tok = opaque(36)
    ws_pw = password()
    hf_tok = hf()
    k8s = opaque(40)
    ws = har_entry("GET", f"wss://ws.example.com/mcp?token={ws_tok}",
                   [hdr("Upgrade", "websocket"),
                    hdr("Sec-WebSocket-Protocol", f"mcp, base64url.bearer.authorization.k8s.io.{k8s}")],
                   None, [hdr("Upgrade", "websocket")], "", t(10), status=101, mime="")
    ws["_resourceType"] = "websocket"
    ws["_webSocketMessages"] = [
        {"type": "send", "time": 1796378410.1, "opcode": 1,
         "data": dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                        "params": {"name": "login", "arguments": {"user": "bob", "passwd": ws_pw}}})},
        {"type": "receive", "time": 1796378410.2, "opcode": 1,
         "data": dumps({"jsonrpc": "2.0", "id": 77, "result": {"content": [
             {"type": "text", "text": f"logged in; HF token {hf_tok} cached"}]}})},
        {"type": "send", "time": 1796378410.3, "opcode": 1,
         "data": dumps({"type": "connection_init", "payload": {"authToken": ws_tok}})},
    ]
    entries.append(ws)

    # 8. Secrets in an id, a method name and a tool name (clients that
    #    number requests with random tokens, a server that echoes a path).
    id_tok = opaque(26)
    rid = "req-6f1d2c3b-8a9e-4f70-b1c2-d3e4f5a6b7c8"
    npm_tok = npm()
    req8 = dumps([
        {"jsonrpc": "2.0", "id": rid, "method": "ping"},
        {"jsonrpc": "2.0", "id": 9, "method": f"tools/call?api_key={id_tok}"},
        {"jsonrpc": "2.0", "id": 10, "method": "tools/call",
         "params": {"name": f"publish --token {npm_tok}", "arguments": {}}},
    ])
    entries.append(har_entry(
        "POST", base, [hdr("Authorization", f"Bearer {bearer}")] + common, req8,
        [hdr("Content-Type", "application/json")],
        dumps([{"jsonrpc": "2.0", "id": rid, "result": {}},
               {"jsonrpc": "2.0", "id": rid, "result": {}}]), t(12)))

    doc = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                   "pages": [], "entries": entries}}
    w("h3.har", json.dumps(doc, indent=2))


# ---------------------------------------------------------------- SSE


def sse():
    ck = opaque(40)
    apim = hexsecret(32)
    gho_tok = gho()
    pat = github_pat()
    pw = password()
    dd = hexsecret(32)
    lines = [
        "HTTP/2 200",
        "content-type: text/event-stream",
        f"set-cookie: AWSALB={ck}; Expires=Fri, 11 Dec 2026 10:00:00 GMT; Path=/",
        f"SET-COOKIE: session={ck}; Secure",
        f"ocp-apim-subscription-key: {apim}",
        f"dd-api-key: {dd}",
        "mcp-session-id: 8d3f2a10-77aa-4b1c-9e55-0c4f1e2d3b6a",
        "",
        ": keep-alive",
        "",
        "event: message",
        "data: " + dumps({"jsonrpc": "2.0", "id": 1, "result": {"content": [
            {"type": "text", "text": f"git remote: https://x-access-token:{gho_tok}@github.com/acme/app.git"}]}}),
        "",
        "event: message",
        # The same id twice (duplicate response) and data over two lines.
        "data: {\"jsonrpc\":\"2.0\",\"id\":1,",
        "data: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"GH_TOKEN=" + pat + "\"}]}}",
        "",
        "id: 3",
        "data: " + dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32700,
                          "message": f"Parse error near 'password: \"{pw}\"'"}}),
        "",
        # A Python repr and a Node dump as log data.
        "data: " + dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {
            "level": "error", "logger": "httpx",
            "data": "Request headers: {'Authorization': 'token " + gho_tok + "', 'X-Api-Key': '" + dd + "'}"}}),
        "",
        "data: " + dumps({"jsonrpc": "2.0", "id": 42, "result": {"content": [
            {"type": "text", "text": "AxiosError: Request failed with status code 403\n"
             "  config: {\n    headers: Object [AxiosHeaders] {\n"
             "      Accept: 'application/json',\n"
             f"      'X-Api-Key': '{apim}',\n"
             f"      Authorization: 'Basic {basic('ci', pw)}'\n    }}\n  }}"}]}}),
        "",
        "data: not json: retry with client_secret " + opaque(30) + " later",
        "",
    ]
    w("h3.sse", "\r\n".join(lines[:8]) + "\r\n" + "\n".join(lines[8:]) + "\n")


# ------------------------------------------------------ supergateway


def inspect_str(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def supergateway():
    sid = "3c1d0b9e-41a2-4e7f-9a63-5d8c2f0e1b74"
    bearer = opaque(40)
    hdrk = opaque(32)
    gh = ghp()
    oa = openai()
    pw = password()
    slk = slack("xoxp")
    jw = jwt("user-Hx3-sg")
    cmd = (f"npx -y @acme/mcp-server --api-key={opaque(30)} --db-password {password()} "
           f"--token={gh}")
    out = [
        "[supergateway] Starting...",
        "[supergateway]   - outputTransport: sse",
        "[supergateway]   - Headers: " + dumps({"Authorization": f"Bearer {bearer}", "X-Api-Key": hdrk}),
        "[supergateway]   - port: 8000",
        f"[supergateway]   - stdio: env OPENAI_API_KEY={oa} {cmd}",
        "[supergateway]   - ssePath: /sse",
        "[supergateway] Listening on port 8000",
        "[supergateway] New SSE connection from ::ffff:127.0.0.1",
        f"[supergateway] POST to SSE transport (session {sid})",
        f"[supergateway] SSE → Child (session {sid}): " + dumps({
            "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "claude-ai", "version": "0.1.0"}}}),
        "[supergateway] Child → SSE: {",
        "  jsonrpc: '2.0',",
        "  id: 0,",
        "  result: {",
        "    protocolVersion: '2025-06-18',",
        "    capabilities: { tools: { listChanged: false } },",
        "    serverInfo: { name: 'acme-mcp', version: '1.0.0' }",
        "  }",
        "}",
        f"[supergateway] SSE → Child (session {sid}): " + dumps({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "query", "arguments": {"sql": "select 1", "credentials": {
                    "user": "report", "password": pw}}}}),
        # Reply to id 11 (unknown) in util.inspect, secrets as unquoted
        # keys, quoted keys and inside text.
        "[supergateway] Child → SSE: {",
        "  jsonrpc: '2.0',",
        "  id: 11,",
        "  result: {",
        "    content: [",
        "      {",
        "        type: 'text',",
        "        text: " + inspect_str(f"connected as report\nSLACK_USER_TOKEN={slk}\n") + " +",
        "          " + inspect_str(f"session jwt {jw}"),
        "      }",
        "    ],",
        "    _meta: { apiKey: " + inspect_str(oa) + ", 'refresh-token': " + inspect_str(opaque(40)) + " }",
        "  }",
        "}",
        f"[supergateway] SSE → Child (session {sid}): " + dumps({
            "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "http_get", "arguments": {"url": "https://api.example.com/v1/items",
                                                  "headers": {"Authorization": f"token {gh}"}}}}),
        # Error reply with an axios error dump in its message.
        "[supergateway] Child → SSE: {",
        "  jsonrpc: '2.0',",
        "  id: 12,",
        "  error: {",
        "    code: -32603,",
        "    message: " + inspect_str("AxiosError: Request failed with status code 401"),
        "    data: {",
        "      config: {",
        "        url: 'https://api.example.com/v1/items',",
        "        headers: Object [AxiosHeaders] {",
        "          Accept: 'application/json, text/plain, */*',",
        f"          Authorization: 'token {gh}',",
        f"          'X-Amz-Security-Token': '{opaque(44)}'",
        "        }",
        "      },",
        "      response: Map(2) { 'set-cookie' => " + inspect_str(f"sid={opaque(30)}; Path=/") + ", 'x-request-id' => 'r-1' }",
        "    }",
        "  }",
        "}",
        f"[supergateway] Child stderr (session {sid}): DEBUG token refreshed: access_token={opaque(30)}",
        f"[supergateway] Child non-JSON (session {sid}): Loaded config from /etc/acme.yaml password: {password()}",
        f"[supergateway] SSE connection closed (session {sid})",
    ]
    w("h3.supergateway.log", "\n".join(out) + "\n")


# ---------------------------------------------------------- mcp-proxy


def pyrepr(o):
    return repr(o)


def mcp_proxy():
    def line(ms, logger, text, level="D"):
        return f"[{level} 2026-12-04 10:00:{ms // 1000:02d},{ms % 1000:03d}.{ms % 1000:03d} {logger}] {text}"

    api = opaque(36)
    bearer = jwt("user-Hx3-proxy")
    ck = opaque(32)
    pw = password()
    gh = ghp()
    oa = openai()
    ak = aws_key()
    sk = aws_secret()
    an = anthropic()
    url = f"https://mcp.example.com/sse?api_key={api}"
    out = [
        line(0, "mcp_proxy.__main__", "Starting SSE/StreamableHTTP client and stdio server"),
        line(5, "mcp_proxy.__main__", f"Namespace(command_or_url='{url}', headers=[['Authorization', 'Bearer {bearer}']], "
             f"env=[['ANTHROPIC_API_KEY', '{an}']], transport='sse', debug=True)"),
        line(10, "mcp.client.sse", f"Connecting to SSE endpoint: {url}"),
        line(20, "mcp_proxy.httpx_client", "Request Headers: " + pyrepr({
            "host": "mcp.example.com", "authorization": f"Bearer {bearer}",
            "cookie": f"sid={ck}", "accept": "text/event-stream"}), "I"),
        line(30, "httpcore.http11", "receive_response_headers.complete return_value=(b'HTTP/1.1', 200, b'OK', "
             f"[(b'content-type', b'text/event-stream'), (b'set-cookie', b'sid={ck}; Path=/; HttpOnly'), "
             f"(b'x-amz-security-token', b'{opaque(40)}')])"),
        line(31, "httpx", f'HTTP Request: GET {url} "HTTP/1.1 200 OK"', "I"),
        line(40, "mcp.client.sse", "Sending client message: SessionMessage(message=JSONRPCMessage(root=JSONRPCRequest("
             "method='initialize', params={'protocolVersion': '2025-06-18', 'capabilities': {}, "
             "'clientInfo': {'name': 'mcp', 'version': '0.1.0'}}, jsonrpc='2.0', id=0)), metadata=None)"),
        line(60, "mcp.client.sse", "Received server message: root=JSONRPCResponse(jsonrpc='2.0', id=0, result="
             "{'protocolVersion': '2025-06-18', 'capabilities': {'tools': {'listChanged': False}}, "
             "'serverInfo': {'name': 'py-tools', 'version': '1.2.0'}})"),
        # A tools/call whose arguments hold secrets in a Python dict, with
        # a bytes value and a nested str that is JSON.
        line(80, "mcp.client.sse", "Sending client message: SessionMessage(message=JSONRPCMessage(root=JSONRPCRequest("
             "method='tools/call', params=" + pyrepr({"name": "deploy", "arguments": {
                 "env": {"GITHUB_TOKEN": gh, "AWS_ACCESS_KEY_ID": ak, "AWS_SECRET_ACCESS_KEY": sk},
                 "settings": dumps({"openai": {"api_key": oa}}),
                 "dry_run": True}}) + ", jsonrpc='2.0', id=1)), metadata=None)"),
        # Reply to an unknown id: secrets in the text, a repr of a
        # SecretStr that leaked, and a DSN.
        line(120, "mcp.client.sse", "Received server message: root=JSONRPCResponse(jsonrpc='2.0', id=17, result="
             + pyrepr({"content": [{"type": "text", "text":
                        f"deployed with Settings(db_url='mysql://root:{pw}@10.0.0.5/app', "
                        f"openai_api_key='{oa}', aws_secret_access_key=\"{sk}\")"}],
                       "isError": False}) + ")"),
        # An error with a Python traceback-style message.
        line(140, "mcp.client.sse", "Sending client message: SessionMessage(message=JSONRPCMessage(root=JSONRPCRequest("
             "method='tools/call', params={'name': 'login', 'arguments': {'username': 'ops', 'Password': '"
             + password() + "'}}, jsonrpc='2.0', id=2)), metadata=None)"),
        line(160, "mcp.client.sse", "Received server message: root=JSONRPCError(jsonrpc='2.0', id=20, error=ErrorData("
             "code=-32603, message=\"HTTPStatusError: Client error '401 Unauthorized' for url "
             f"'https://api.example.com/login?apikey={opaque(30)}'\", data={{'headers': {{'x-api-key': '{opaque(34)}'}}}}))"),
        line(170, "mcp.client.sse", "Received server message: root=JSONRPCError(jsonrpc='2.0', id=None, error=ErrorData("
             f"code=-32700, message='Invalid JSON: EOF while parsing at line 1 column 40 input_value=\\'{{\"token\": \"{opaque(30)}\"\\'', data=None))"),
        line(175, "uvicorn.error", f"Exception in ASGI application: KeyError('Bearer {opaque(30)}')", "E"),
        line(180, "mcp.client.sse", "Sending client message: SessionMessage(message=JSONRPCMessage(root=JSONRPCRequest("
             "method='tools/call', params={'name': 'slow', 'arguments': {}}, jsonrpc='2.0', id=3)), metadata=None)"),
    ]
    w("h3.mcp-proxy.log", "\n".join(out) + "\n")


# ------------------------------------------------------- envelopes


def ndjson():
    rows = []

    def env(ts, d, msg, **more):
        o = {"ts": f"2026-12-04T10:{ts // 60:02d}:{ts % 60:02d}.000Z", "dir": d, "msg": msg}
        o.update(more)
        rows.append(dumps(o) if not isinstance(msg, str) else json.dumps(o, separators=(",", ":")))

    sess = "s-main"
    srv_name = f"acme?token={opaque(24)}"
    env(0, "c2s", {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "recorder", "version": "1"}}}, session=sess)
    env(1, "s2c", {"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "serverInfo": {"name": srv_name, "version": f"1.0 (build key {aws_key()})"}}}, session=sess)
    # Secrets under keys in every case and spelling, values of every type.
    env(2, "c2s", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "configure", "arguments": {
            "API_KEY": opaque(32), "Api-Token": opaque(30), "clientSecret": opaque(36),
            "db": {"PASSWORD": password(), "pwd": password(), "port": 5432},
            "privateKeyPem": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUHx3" + rnd(40) + "\n-----END OPENSSH PRIVATE KEY-----",
            "sessionToken": int("7" + "".join(R.choice("0123456789") for _ in range(17))),
            "otp": "492817",
            "webhookSecret": "whsec_Hx3" + rnd(32),
            "mode": "fast"}}}, session=sess)
    SECRETS.append(rows[-1].split('"sessionToken":')[1].split(",")[0])
    SECRETS.append(rows[-1].split('"webhookSecret":"')[1].split('"')[0])
    # Reply to an unknown id: a tool result whose text is JSON with
    # secrets, escaped as JSON in JSON in JSON.
    inner = dumps({"Authorization": f"Bearer {opaque(40)}", "body": dumps({"refresh_token": opaque(40)})})
    env(4, "s2c", {"jsonrpc": "2.0", "id": 99, "result": {"content": [
        {"type": "text", "text": inner},
        {"type": "text", "text": f"kubectl create secret generic db --from-literal=password={password()}"},
        {"type": "text", "text": f"mongodb+srv://svc:{password()}@cluster0.ab1cd.mongodb.net/?retryWrites=true"},
        {"type": "text", "text": f"Server=tcp:sql.example.net,1433;User ID=sa;Password={password()};Encrypt=True"},
        {"type": "text", "text": f"export ANTHROPIC_API_KEY=\"{anthropic()}\"; export HF_TOKEN='{hf()}'"},
        {"type": "text", "text": f"docker login -u ci -p {password()} registry.example.com"},
        {"type": "text", "text": f"~/.aws/credentials:\n[default]\naws_access_key_id = {aws_key()}\naws_secret_access_key = {aws_secret()}\n"},
        {"type": "text", "text": f"~/.npmrc: //registry.npmjs.org/:_authToken={npm()}"},
        {"type": "text", "text": f"~/.netrc: machine api.example.com login bot password {password()}"},
        {"type": "text", "text": f"application.properties:\nspring.datasource.password={password()}\nspring.datasource.username=app"},
        {"type": "text", "text": f"config: &{{Endpoint:https://api.example.com Token:{opaque(30)} Retries:3}}"},
        {"type": "text", "text": f"Config {{ api_key: \"{opaque(30)}\", region: \"eu\" }}"},
        {"type": "text", "text": "docker inspect: " + dumps({"Env": [f"DB_PASSWORD={password()}", "PATH=/usr/bin"]})},
        {"type": "text", "text": f"POST /acs SAMLResponse={sec('PHNhbWxwOlJlc3BvbnNlIEhx3' + rnd(80, B64))}&RelayState=%2Fhome"},
        {"type": "text", "text": f"OAuth oauth_consumer_key=\"app\", oauth_token=\"{opaque(30)}\", oauth_signature=\"{sec('Hx3' + rnd(25, B64) + '%3D')}\""},
        {"type": "text", "text": "login with password=" + umlaut_password() + " ok"},
        {"type": "text", "text": "PS C:\\Users\\dev> $env:OPENAI_API_KEY = '" + opaque(30) + "'"},
        {"type": "text", "text": "~/.netrc:\nmachine git.example.com login bob password " + sec("p@ss!Hx3" + rnd(6) + "#1") + "\n"},
        {"type": "text", "text": f"deploy: sshpass -p '{password()}' ssh ci@host; sshpass -p {password()} scp a b"},
        {"type": "text", "text": f"datasource: jdbc:oracle:thin:scott/{password()}@db.example.com:1521/ORCL"},
        {"type": "text", "text": dumps({"client_key": opaque(32), "DD_APP_KEY": hexsecret(40),
                                        "hmac_key": opaque(32), "license_key": opaque(29)})},
        {"type": "text", "text": dumps({"log": dumps({"http": dumps({"body": dumps({"password": password()})})})})},
        {"type": "text", "text": f"Your new credentials:\n{ghp()}\n\t{openai()}\nBearer {opaque(30)}\n{aws_key()}\n{jwt('user-Hx3-line')}\n"},
        {"type": "text", "text": "rotated: " + ", ".join([
            hf(), npm(), sec("pypi-AgEIcHlwaS5vcmcHx3" + rnd(60, ALNUM + "-_")),
            sec("whsec_Hx3" + rnd(29)), sec("SG.Hx3" + rnd(19, ALNUM + "-_") + "." + rnd(43, ALNUM + "-_")),
            sec("xapp-1-A0Hx3" + rnd(8, UPPER) + "-" + rnd(13, "0123456789") + "-" + rnd(64, HEX)),
            sec("dop_v1_" + rnd(64, HEX)), sec("shpat_" + rnd(32, HEX))])},
    ]}}, session=sess)
    # Error with secrets in message, data string and nested data.
    env(5, "c2s", {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "fetch", "arguments": {"url": "https://example.com"}}}, session=sess)
    env(6, "s2c", {"jsonrpc": "2.0", "id": 3, "result": {"content": []}, "error": {
        "code": -32603, "message": f"Authentication failed (Authorization: Basic {basic('svc', password())})",
        "data": {"stack": f"Error: 403\n    at fetch (/app/index.js:10:5)\n    env.SECRET_KEY={opaque(40)}",
                 "details": [{"headers": {"x-goog-api-key": google()}}]}}}, session=sess)
    # Non-JSON lines and a cut line: token: in text, Bearer at line end.
    rows.append(f"WARN recorder: upstream 401, token: {opaque(30)}, api_key={opaque(30)}")
    rows.append(f"{{\"ts\":\"2026-12-04T10:00:07.000Z\",\"dir\":\"s2c\",\"session\":\"{sess}\",\"msg\":{{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{{\"token\":\"{opaque(30)}")
    # Unicode escapes: a key written entirely in \u escapes, a value
    # with escaped letters, an escaped slash in a URL with credentials.
    k = "".join(f"\\u{ord(c):04x}" for c in "client_secret")
    v = opaque(30)
    v_esc = v[:3] + "".join(f"\\u{ord(c):04x}" for c in v[3:8]) + v[8:]
    url_pw = password()
    rows.append('{"ts":"2026-12-04T10:00:08.000Z","dir":"c2s","session":"' + sess + '","msg":'
                '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","arguments":{"'
                + k + '":"' + v_esc + '","link":"https:\\/\\/deploy:' + url_pw
                + '@ci.example.com\\/job","Authorization":"\\u0042earer ' + opaque(40) + '"}}}}')
    # The same id 5 again (duplicate id) in another spelling of header.
    env(9, "c2s", {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "http", "arguments": {"headers": "X-API-KEY: " + opaque(32) + "\r\nx-auth-token: " + opaque(32)}}},
        session=sess)
    # A secret in the session name and in a string id.
    env(10, "c2s", {"jsonrpc": "2.0", "id": f"{jwt('user-Hx3-id')}", "method": "ping"},
        session="tenant-acme")
    # Captured markup, for report.html's escaping (never secrets).
    xss = "</script><script>alert(1)</script><!--"
    env(11, "c2s", {"jsonrpc": "2.0", "id": 12, "method": xss + "tools/call",
                    "params": {"name": "<img src=x onerror=alert(2)>", "arguments": {}}},
        session="<svg onload=alert(3)>")
    env(12, "s2c", {"jsonrpc": "2.0", "id": 13, "error": {"code": -32000,
        "message": "]]></x><script>alert(4)</script>", "data": "<iframe src=javascript:alert(5)>"}},
        session="<svg onload=alert(3)>")
    rows.append("<script>alert(6)</script> not json")
    w("h3.ndjson", "\n".join(rows) + "\n")


# ------------------------------------------------------- mcp-remote


def remote():
    pid = 48211

    def line(ms, text):
        return f"[2026-12-04T10:00:{ms // 1000:02d}.{ms % 1000:03d}Z][{pid}] {text}"

    at = jwt("user-Hx3-remote")
    rt = opaque(44)
    cid = opaque(24)
    cs = opaque(40)
    hdr_tok = opaque(36)
    out = [
        line(0, "Starting mcp-remote with server URL: https://mcp.example.com/sse"),
        line(1, f"Using custom headers: {dumps({'Authorization': f'Bearer {hdr_tok}'})}"),
        line(2, f"Using existing client information {dumps({'client_id': cid, 'client_secret': cs})}"),
        line(3, f"Using existing tokens {dumps({'access_token': at, 'token_type': 'Bearer', 'refresh_token': rt})}"),
        line(4, f"Authorization URL: https://auth.example.com/authorize?response_type=code&client_id={cid}&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&state={opaque(24)}"),
        line(5, f"Auth code received: {opaque(43)}"),
        line(10, "Local → Remote message " + dumps({"method": "initialize", "id": 0, "params": dumps({
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "claude-ai", "version": "0.1.0"}})})),
        line(20, "Remote → Local message " + dumps({"id": 0, "result": "result-present"})),
        line(30, "Local → Remote message " + dumps({"method": "tools/call", "id": 1, "params": dumps({
            "name": "create_issue", "arguments": {"repo": "acme/app", "token": ghp(),
                                                  "body": f"repro: curl -u bob:{password()} https://ci/"}})})),
        line(40, "Local → Remote message " + dumps({"method": "tools/call", "id": 1, "params": dumps({
            "name": "create_issue", "arguments": {"repo": "acme/app", "slackToken": slack("xoxb")}})})),
        line(50, "Remote → Local message " + dumps({"id": 8, "error": {"code": -32001,
             "message": f"Upstream 401: Bearer {at} rejected; refresh_token={rt}"}})),
        line(60, "Error from remote server " + dumps({"stack": f"SdkHttpError: Error POSTing to endpoint: HTTP 401 for https://mcp.example.com/messages?session_id=abc&key={opaque(30)}"})),
    ]
    w("h3.remote.log", "\n".join(out) + "\n")


# ------------------------------------------- Claude Desktop, odd bytes


def claude():
    def line(ms, text, level="info"):
        return f"2026-12-04T10:00:{ms // 1000:02d}.{ms % 1000:03d}Z [mcp-server-acme] [{level}] {text}"

    gh = ghp()
    gson_code = opaque(30)
    gson_pw = password()
    out = [
        line(0, "Initializing server... { metadata: undefined }"),
        line(1, "Using MCP server command: /usr/local/bin/npx with args and path: { metadata: { args: [ '-y', "
             f"'@acme/mcp', '--api-key', '{opaque(32)}' ], env: {{ GITHUB_TOKEN: '{gh}', PATH: '/usr/bin' }} }} }}"),
        line(2, "Server started and connected successfully { metadata: undefined }"),
        line(3, 'Message from client: {"method":"initialize","params":{"protocolVersion":"2025-06-18",'
             '"capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.1.0"}},"jsonrpc":"2.0","id":0} { metadata: undefined }'),
        # Java (Gson) escapes '=', '&' and quotes as \u003d, \u0026, \u0027.
        line(4, 'Message from server: {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":'
             '"redirect: https://app.example.com/cb?code\\u003d' + gson_code + '\\u0026state\\u003dok; '
             'db password\\u003d' + gson_pw + '; cfg {\\u0027api_key\\u0027: \\u0027' + opaque(30) + '\\u0027}"}]}} { metadata: undefined }'),
        # Keys with spaces, as a tool's table would write them.
        line(5, 'Message from server: {"jsonrpc":"2.0","id":8,"result":{"structuredContent":{"rows":[{'
             '"Service":"billing","API Key":"' + opaque(36) + '","Client Secret":"' + opaque(36) + '",'
             '"x:access-token":"' + opaque(36) + '"}]}}} { metadata: undefined }'),
        # A Node dump of fetch headers (undici) and of a name/value list.
        line(6, 'Message from server: {"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":'
             '"request headers: HeadersList { cookies: null, [Symbol(headers map)]: Map(2) { \'x-api-key\' => { name: \'X-Api-Key\', value: \''
             + opaque(36) + '\' }, \'authorization\' => { name: \'Authorization\', value: \'Basic ' + basic('svc', password()) + '\' } } }"}]}} { metadata: undefined }'),
        # A URL-encoded URL inside a query value (an OAuth redirect).
        line(7, 'Message from server: {"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":'
             '"open https://auth.example.com/login?next=https%3A%2F%2Fapp.example.com%2Fcb%3Faccess_token%3D'
             + opaque(30) + '%26state%3D1"}]}} { metadata: undefined }'),
        # YAML plain scalars: a passphrase with spaces, a block scalar.
        line(8, 'Message from server: {"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":'
             '"config.yaml:\\n  db:\\n    password: ' + sec("Hx3correct") + ' ' + sec("horseHx3battery") + '\\n    api_key: >-\\n      '
             + opaque(32) + '\\n"}]}} { metadata: undefined }'),
        line(9, "Unexpected token 'A', \"AUTH_TOKEN\"... is not valid JSON", "error"),
    ]
    w("h3.claude.log", "\n".join(out) + "\n")


def odd_encodings():
    import gzip
    # A log in windows-1252 bytes (a 'é' as 0xE9), then gzip'd.
    rows = [dumps({"ts": "2026-12-04T10:00:00.000Z", "dir": "c2s", "msg": {
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "q", "arguments": {"q": "caf\u00e9", "apiKey": opaque(32)}}}}),
        dumps({"ts": "2026-12-04T10:00:01.000Z", "dir": "s2c", "msg": {
            "jsonrpc": "2.0", "id": 5, "result": {"content": [
                {"type": "text", "text": f"r\u00e9sum\u00e9 secret={opaque(30)} Authorization: Bearer {opaque(40)}"}]}}})]
    raw = ("\n".join(rows) + "\n").encode("cp1252")
    with open("h3.cp1252.ndjson.gz", "wb") as f:
        f.write(gzip.compress(raw, mtime=0))


def har_bodies():
    """HAR bodies stored base64 (Chrome does for some types) and a body
    longer than the evidence excerpt, with secrets around the cut."""
    base = "https://mcp.example.com/mcp"
    entries = []
    resp = dumps({"jsonrpc": "2.0", "id": 40, "result": {"content": [
        {"type": "text", "text": f"token={opaque(30)}"}], "password": password()}})
    e = har_entry("POST", base, [hdr("Content-Type", "application/json")],
                  dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                         "params": {"name": "x", "arguments": {}}}),
                  [hdr("Content-Type", "application/json")], "", "2026-12-04T10:00:00.000Z")
    e["response"]["content"] = {"size": len(resp), "mimeType": "application/json",
                                "encoding": "base64",
                                "text": base64.b64encode(resp.encode()).decode()}
    entries.append(e)
    # A long text whose secrets sit around the 4 KiB mark.
    filler = "lorem ipsum dolor sit amet " * 150
    texts = []
    for cut in range(3950, 4150, 25):
        pad = filler[: max(0, cut - 100)]
        texts.append(pad + f" Bearer {opaque(40)} ghp token {ghp()} {jwt('user-Hx3-cut')} password={password()}")
    for i, t in enumerate(texts):
        body = dumps({"jsonrpc": "2.0", "id": 50 + i, "method": "tools/call",
                      "params": {"name": "summarise", "arguments": {"text": t}}})
        entries.append(har_entry("POST", base, [hdr("Content-Type", "application/json")], body,
                                 [hdr("Content-Type", "application/json")],
                                 dumps({"jsonrpc": "2.0", "id": 150 + i, "result": {}}),
                                 f"2026-12-04T10:00:{i + 1:02d}.000Z"))
    doc = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                   "pages": [], "entries": entries}}
    w("h3.bodies.har", json.dumps(doc, indent=1))


def main():
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    har()
    sse()
    supergateway()
    mcp_proxy()
    ndjson()
    remote()
    claude()
    odd_encodings()
    har_bodies()
    with open("secrets.txt", "w") as f:
        for s in dict.fromkeys(SECRETS):
            f.write(s + "\n")


if __name__ == "__main__":
    main()
