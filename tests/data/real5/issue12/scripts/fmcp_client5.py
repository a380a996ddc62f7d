"""(real5: fmcp_client.py of real4, whose elicitation handler answers the field the requested schema names,\nand --weather adds a weather call with a non-ASCII city.)\nfastmcp Client session for the issue-12 2026-07-28 capture (client side + client tap).

python fmcp_client.py URL --tap FILE [--hold-listen SECONDS]

fastmcp 4.2.3 `Client(StreamableHttpTransport(URL, httpx_client_factory=...))`, mode
"auto" (probes server/discover, adopts 2026-07-28). Client tap: the httpx2 client the
transport uses gets a wrapping transport that logs, as JSON lines in FILE (µs UTC),
every request as sent (method, url, headers, body) and every response (status,
headers at arrival, then each body chunk as the client reads it, then its end):
the client-side truth at the HTTP layer.
The run:
  list_tools; call_tool add(2,3); call_tool count_with_progress(3) with a
  progress_handler; open subscriptions/listen (mcp.client.subscriptions.listen on
  client.session, toolsListChanged) and keep it open; call_tool book_flight
  (MRTR: the elicitation handler waits 1.5 s like a person, answers Paris, then
  2026-08-01); call_tool enable_extra; wait for the listen's tools-list-changed
  event; list_tools; then hold the listen open --hold-listen seconds and exit
  hard (os._exit) with the listen still open. A server that refuses the listen
  (fastmcp 4.2.3: HTTP 404, -32601) gets the same run without it and a clean close.
"""
import asyncio, contextlib, datetime, json, os, sys, time

import httpx2
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp.client.elicitation import ElicitResult
from mcp.client.subscriptions import listen
from mcp.shared.exceptions import MCPError

url = sys.argv[1]
tapf = open(sys.argv[sys.argv.index("--tap") + 1], "w", buffering=1)
hold = float(sys.argv[sys.argv.index("--hold-listen") + 1]) if "--hold-listen" in sys.argv else 2.0
_n = 0


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def log(**kw):
    tapf.write(json.dumps({"ts": now(), **kw}) + "\n")


class TapStream(httpx2.AsyncByteStream):
    def __init__(self, inner, rid):
        self.inner, self.rid = inner, rid

    async def __aiter__(self):
        async for chunk in self.inner:
            log(ev="resp_chunk", rid=self.rid, data=chunk.decode("utf-8", "replace"))
            yield chunk
        log(ev="resp_end", rid=self.rid)

    async def aclose(self):
        log(ev="resp_close", rid=self.rid)
        await self.inner.aclose()


class TapTransport(httpx2.AsyncBaseTransport):
    def __init__(self):
        self.inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request):
        global _n
        _n += 1
        rid = _n
        body = await request.aread()
        log(ev="request", rid=rid, method=request.method, url=str(request.url),
            headers=dict(request.headers), body=body.decode("utf-8", "replace"))
        resp = await self.inner.handle_async_request(request)
        log(ev="resp_start", rid=rid, status=resp.status_code, headers=dict(resp.headers))
        return httpx2.Response(resp.status_code, headers=resp.headers, stream=TapStream(resp.stream, rid),
                               extensions=resp.extensions, request=request)

    async def aclose(self):
        await self.inner.aclose()


def factory(**kw):
    kw.setdefault("timeout", httpx2.Timeout(30.0, read=300.0))
    return httpx2.AsyncClient(transport=TapTransport(), **kw)


def say(*a):
    print(now(), *a, flush=True)


async def elicit(message, response_type, params, context):
    say("elicitation:", message)
    await asyncio.sleep(1.5)  # the person thinks
    # the field asked for, from the requested schema (the TS v2 demo asks destination, date, seat)
    schema = getattr(params, "requested_schema", None) or getattr(params, "requestedSchema", None) or {}
    field = next(iter(schema.get("properties", {"date": 0})))
    value = {"destination": "Paris", "date": "2026-08-01", "seat": "12A"}.get(field, "x")
    return ElicitResult(action="accept", content=response_type(**{field: value}))


async def progress(p, total, message):
    say("progress", p, total, message)


async def main():
    c = Client(StreamableHttpTransport(url, httpx_client_factory=factory), elicitation_handler=elicit,
               progress_handler=progress)
    async with c:
        say("protocol", c.session.protocol_version)
        say("tools", [t.name for t in await c.list_tools()])
        say("add", (await c.call_tool("add", {"a": 2, "b": 3})).data)
        say("count", (await c.call_tool("count_with_progress", {"steps": 3})).data)
        sub = None
        stack = contextlib.AsyncExitStack()
        try:
            sub = await stack.enter_async_context(listen(c.session, tools_list_changed=True))
            say("listen acknowledged")
        except MCPError as e:
            say("listen refused:", e.error.code, e.error.message)
        say("book", (await c.call_tool("book_flight", {})).data)
        if "--weather" in sys.argv:
            say("weather", (await c.call_tool("weather", {"city": "Zürich"})).data)
        say("enable", (await c.call_tool("enable_extra", {})).data)
        if sub is not None:
            ev = await asyncio.wait_for(sub.__anext__(), 10)
            say("listen event", type(ev).__name__, ev)
        say("tools", [t.name for t in await c.list_tools()])
        if sub is not None:
            say(f"holding the listen open {hold} s, then exiting hard")
            await asyncio.sleep(hold)
            tapf.flush()
            os._exit(0)


asyncio.run(main())
