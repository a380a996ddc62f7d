"""fastmcp 4.2.3 (mcp 2.3.0) Streamable HTTP server whose response stream breaks once.

python break_server.py --port P --tap FILE [--break-tool NAME]

Tools (as ../issue12 fmcp_server.py): add(a, b); count_with_progress(steps) reports
progress once per step, 50 ms apart, then returns "counted to N".

The break: an ASGI wrapper reads each POST body; the FIRST `tools/call` of
--break-tool (default count_with_progress) is passed to the real fastmcp app as
usual, but as soon as the app has sent the response headers and the first SSE
event carrying `notifications/progress`, the wrapper raises. uvicorn 0.55 (h11)
then closes the TCP connection mid-body (h11_impl.py: exception after the
response started -> transport.close()): no last chunk, no `0\\r\\n\\r\\n`, the
tools/call response never sent. The app's own task keeps running; what it sends
after the break is dropped and logged as `dropped_after_break` in the tap. Every
later request (the re-issue included) is served normally.

--tap: the ASGI tap of ../issue12 fmcp_server.py (request start + headers, body
received, response start, body chunk sent, end; µs UTC), outermost, so it logs
exactly the bytes handed to uvicorn, plus `break` and `dropped_after_break`.
"""
import argparse, asyncio, datetime, json, time

from fastmcp import FastMCP, Context

mcp = FastMCP("capture-demo-fastmcp")


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool
async def count_with_progress(steps: int, ctx: Context) -> str:
    """Report progress once per step, 50 ms apart."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}/{steps}")
        await asyncio.sleep(0.05)
    return f"counted to {steps}"


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


class Tap:
    def __init__(self, app, path):
        self.app = app
        self.f = open(path, "a", buffering=1)

    def log(self, **kw):
        self.f.write(json.dumps({"ts": now(), **kw}) + "\n")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        rid = f"{time.monotonic_ns()}"
        scope.setdefault("state", {})["tap_rid"] = rid
        path = scope["path"] + ("?" + scope["query_string"].decode() if scope["query_string"] else "")
        self.log(kind="req_start", rid=rid, method=scope["method"], path=path,
                 headers={k.decode(): v.decode() for k, v in scope.get("headers", [])})

        async def r():
            m = await receive()
            if m["type"] == "http.request" and m.get("body"):
                self.log(kind="req_body", rid=rid, data=m["body"].decode("utf-8", "replace"))
            return m

        async def s(m):
            if m["type"] == "http.response.start":
                self.log(kind="resp_start", rid=rid, status=m["status"],
                         headers={k.decode(): v.decode() for k, v in m.get("headers", [])})
            elif m["type"] == "http.response.body":
                if m.get("body"):
                    self.log(kind="resp_body", rid=rid, data=m["body"].decode("utf-8", "replace"))
                if not m.get("more_body"):
                    self.log(kind="resp_end", rid=rid)
            await send(m)
        try:
            return await self.app(scope, r, s)
        except Exception as e:
            self.log(kind="app_raised", rid=rid, error=repr(e))
            raise


class StreamBroken(Exception):
    """Raised on purpose: makes uvicorn drop the connection mid-response."""


class Breaker:
    def __init__(self, app, tool, tap):
        self.app, self.tool, self.tap, self.armed = app, tool, tap, True
        self.bg = set()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or not self.armed:
            return await self.app(scope, receive, send)
        msgs, body = [], b""
        while True:  # read the whole body first, then replay it to the app
            m = await receive()
            msgs.append(m)
            if m["type"] != "http.request":
                break
            body += m.get("body", b"")
            if not m.get("more_body"):
                break
        try:
            j = json.loads(body)
            hit = isinstance(j, dict) and j.get("method") == "tools/call" and (j.get("params") or {}).get("name") == self.tool
        except ValueError:
            hit = False
        queue = list(msgs)

        async def replay():
            if queue:
                return queue.pop(0)
            return await receive()
        if not hit:
            return await self.app(scope, replay, send)

        self.armed = False
        rid = scope.get("state", {}).get("tap_rid")
        broke = asyncio.Event()

        async def s(m):
            if broke.is_set():
                self.tap.log(kind="dropped_after_break", rid=rid, type=m["type"],
                             data=m.get("body", b"").decode("utf-8", "replace"))
                return
            await send(m)
            if m["type"] == "http.response.body" and b"notifications/progress" in m.get("body", b""):
                broke.set()

        async def r():
            if queue:
                return queue.pop(0)
            await asyncio.Event().wait()  # the app never hears the disconnect: it runs on
        task = asyncio.create_task(self.app(scope, r, s))
        self.bg.add(task)
        task.add_done_callback(self.bg.discard)
        waiter = asyncio.create_task(broke.wait())
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        if broke.is_set():
            self.tap.log(kind="break", rid=rid, detail="first progress event sent; raising so uvicorn drops the connection")
            raise StreamBroken(f"deliberate break of the first tools/call {self.tool}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=18460)
    ap.add_argument("--tap", required=True)
    ap.add_argument("--break-tool", default="count_with_progress")
    a = ap.parse_args()
    import uvicorn
    app = mcp.http_app()
    tap = Tap(None, a.tap)
    tap.app = Breaker(app, a.break_tool, tap)

    async def outer(scope, receive, send):
        if scope["type"] == "lifespan":
            return await app(scope, receive, send)
        return await tap(scope, receive, send)
    uvicorn.run(outer, host="127.0.0.1", port=a.port, log_level="warning")
