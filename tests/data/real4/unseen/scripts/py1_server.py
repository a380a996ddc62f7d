"""Demo server capture-demo-py1 (mcp 1.x FastMCP), stdio / sse / streamable-http.

python py1_server.py --transport stdio
python py1_server.py --transport sse --port P [--tap FILE]
python py1_server.py --transport streamable-http --port P [--tap FILE]

--tap wraps the ASGI app and logs every request body received and every
response chunk sent (JSON lines: ts, kind, path, data) -- the server-side truth.
"""
import argparse, asyncio, json, random, sys, time, datetime

from mcp.server.fastmcp import FastMCP, Context
from pydantic import BaseModel

mcp = FastMCP("capture-demo-py1")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def slow_echo(text: str, delay_ms: int = 0, ctx: Context = None) -> str:
    """Log a message, sleep 10-300 ms (or delay_ms), echo the text."""
    await ctx.info(f"slow_echo got {text!r}")
    d = delay_ms if delay_ms else random.randint(10, 300)
    await asyncio.sleep(d / 1000)
    return text


@mcp.tool()
async def count_with_progress(steps: int = 4, ctx: Context = None) -> str:
    """Count to steps, reporting progress and logging each step."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}/{steps}")
        await ctx.debug(f"step {i}")
        await asyncio.sleep(0.05)
    return f"counted to {steps}"


@mcp.tool()
async def ask_llm(question: str, ctx: Context) -> str:
    """Ask the client's LLM (sampling/createMessage)."""
    from mcp.types import SamplingMessage, TextContent
    r = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=question))],
        max_tokens=50)
    return f"LLM said: {r.content.text if hasattr(r.content, 'text') else r.content}"


@mcp.tool()
async def which_roots(ctx: Context) -> str:
    """List the client's roots (roots/list)."""
    r = await ctx.session.list_roots()
    return ", ".join(str(x.uri) for x in r.roots)


class Person(BaseModel):
    name: str
    age: int


@mcp.tool()
async def ask_user(ctx: Context) -> str:
    """Ask the user for name and age (elicitation/create)."""
    r = await ctx.elicit(message="Who are you?", schema=Person)
    if r.action == "accept":
        return f"hello {r.data.name}, {r.data.age}"
    return f"user said {r.action}"


@mcp.tool()
def fail_tool() -> str:
    """Always fails (isError result)."""
    raise ValueError("fail_tool failed on purpose")


@mcp.resource("config://app")
def config() -> str:
    return json.dumps({"theme": "dark", "version": 3})


@mcp.resource("users://{user_id}/profile")
def profile(user_id: str) -> str:
    return json.dumps({"id": user_id, "name": f"user {user_id}"})


@mcp.prompt()
def greet(name: str) -> str:
    return f"Say hello to {name}."


@mcp.prompt()
def review_code(code: str) -> str:
    return f"Review this code:\n{code}"


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


class Tap:
    def __init__(self, app, path):
        self.app = app
        self.f = open(path, "a", buffering=1)

    def log(self, **kw):
        kw = {"ts": now(), **kw}
        self.f.write(json.dumps(kw) + "\n")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        rid = f"{time.monotonic_ns()}"
        path = scope["path"] + ("?" + scope["query_string"].decode() if scope["query_string"] else "")
        self.log(kind="req_start", rid=rid, method=scope["method"], path=path,
                 headers={k.decode(): v.decode() for k, v in scope.get("headers", []) if k.decode().lower() in ("mcp-session-id", "accept", "content-type", "last-event-id", "mcp-protocol-version", "user-agent")})

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
    ap.add_argument("--transport", default="stdio")
    ap.add_argument("--port", type=int, default=18200)
    ap.add_argument("--tap")
    a = ap.parse_args()
    if a.transport == "stdio":
        mcp.run("stdio")
    else:
        import uvicorn
        app = mcp.sse_app() if a.transport == "sse" else mcp.streamable_http_app()
        if a.tap:
            app = Tap(app, a.tap)
        uvicorn.run(app, host="127.0.0.1", port=a.port, log_level="warning")
