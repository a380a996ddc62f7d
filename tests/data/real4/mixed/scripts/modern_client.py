"""fastmcp 4.2.3 Client (mcp 2.3.0, mode "auto": speaks 2026-07-28 first) against a server that may
know only older revisions. Written for /work/mixed (mixed-revision captures).

python modern_client.py http URL --tap FILE
python modern_client.py stdio -- COMMAND ARGS...     (COMMAND: shim.py PREFIX -- server; the shim is the truth)

Client tap (http): the httpx2 client of StreamableHttpTransport gets a wrapping transport that logs
(JSON lines, µs UTC) every request as sent (method, url, headers, body) and every response (status,
headers, each body chunk as read, end/close): the client-side truth. Copied from issue12 fmcp_client.py.
Run: connect (server/discover probe; on refusal mcp's negotiate_auto falls back to initialize),
list_tools, call_tool add(2,3), call_tool count_with_progress(3) with a progress_handler, close.
"""
import asyncio, datetime, json, os, sys

import httpx2
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport, StdioTransport

mode = sys.argv[1]
tapf = open(sys.argv[sys.argv.index("--tap") + 1], "w", buffering=1) if "--tap" in sys.argv else open(os.devnull, "w")
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


async def progress(p, total, message):
    say("progress", p, total, message)


async def main():
    if mode == "http":
        tr = StreamableHttpTransport(sys.argv[2], httpx_client_factory=factory)
    else:
        cmd = sys.argv[sys.argv.index("--") + 1:]
        tr = StdioTransport(cmd[0], cmd[1:])
    c = Client(tr, progress_handler=progress)
    async with c:
        s = c.session
        say("protocol", s.protocol_version, "discover_result", s.discover_result is not None,
            "initialize_result", s.initialize_result is not None)
        say("tools", [t.name for t in await c.list_tools()])
        say("add", (await c.call_tool("add", {"a": 2, "b": 3})).content[0].text)
        say("count", (await c.call_tool("count_with_progress", {"steps": 3})).content[0].text)
    say("closed")


asyncio.run(main())
