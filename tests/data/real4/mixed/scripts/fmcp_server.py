"""fastmcp demo server for the issue-12 2026-07-28 capture (FastMCP 4.2.3 on mcp 2.3.0).

python fmcp_server.py --port P [--tap FILE]

Streamable HTTP on 127.0.0.1:P/mcp (mcp.http_app(), uvicorn). Tools:
  add(a, b)                 plain call
  count_with_progress(steps) ctx.report_progress per step, 50 ms apart
  book_flight()             MRTR guard (docs/servers/elicitation.mdx pattern): round 1
                            returns input_required asking "destination"; round 2 asks
                            "date" with request_state "dest=<destination>"; round 3 books
  enable_extra()            adds a tool `extra_tool` at run time (tools list changed:
                            what an open subscriptions/listen for toolsListChanged hears)
--tap: the ASGI tap of ../real3/scripts/py1_server.py (every request start with
headers, body chunk received, response start, body chunk sent; µs UTC): server truth.
"""
import argparse, asyncio, datetime, json, time

from fastmcp import FastMCP, Context
from mcp.types import InputRequiredResult, ElicitRequest, ElicitRequestFormParams

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


def ask(key, message, field, request_state=None):
    params = ElicitRequestFormParams(message=message, requested_schema={
        "type": "object", "properties": {field: {"type": "string"}}, "required": [field]})
    return InputRequiredResult(result_type="input_required",
                               input_requests={key: ElicitRequest(method="elicitation/create", params=params)},
                               request_state=request_state)


@mcp.tool
async def book_flight(ctx: Context) -> str | InputRequiredResult:
    """Book a flight, asking the user for destination then date (MRTR)."""
    responses = ctx.input_responses
    if responses is None:
        return ask("destination", "Where would you like to fly?", "destination")
    if "destination" in responses:
        dest = responses["destination"].content["destination"]
        return ask("date", f"When would you like to fly to {dest}?", "date", request_state=f"dest={dest}")
    dest = ctx.request_state.split("=", 1)[1]
    date = responses["date"].content["date"]
    return f"Booked a flight to {dest} on {date}"


@mcp.tool
async def enable_extra() -> str:
    """Register a new tool `extra_tool` (the tool list changes)."""
    def extra_tool() -> str:
        """Added at run time."""
        return "extra"
    mcp.tool(extra_tool)
    return "extra_tool enabled"


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


class Tap:
    """ASGI tap, as in ../real3/scripts/py1_server.py, logging all request headers."""
    def __init__(self, app, path):
        self.app = app
        self.f = open(path, "a", buffering=1)

    def log(self, **kw):
        self.f.write(json.dumps({"ts": now(), **kw}) + "\n")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        rid = f"{time.monotonic_ns()}"
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
        return await self.app(scope, r, s)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=18440)
    ap.add_argument("--tap")
    ap.add_argument("--stdio", action="store_true")  # added in /work/mixed: stdio transport
    a = ap.parse_args()
    if a.stdio:
        mcp.run("stdio", show_banner=False)
        raise SystemExit(0)
    import uvicorn
    app = mcp.http_app()
    lifespan_app = app
    if a.tap:
        tapped = Tap(app, a.tap)
        async def app2(scope, receive, send):
            return await tapped(scope, receive, send)
        lifespan_app = app2
    uvicorn.run(lifespan_app, host="127.0.0.1", port=a.port, log_level="warning")
