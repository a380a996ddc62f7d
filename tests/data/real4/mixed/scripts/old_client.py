"""mcp 1.30.0 ClientSession (knows 2024-11-05 .. 2025-11-25, always starts with initialize 2025-11-25)
against a 2026-07-28-capable server. Written for /work/mixed.

python old_client.py http URL --tap FILE
python old_client.py stdio -- COMMAND ARGS...     (the shim between is the truth)

Client tap (http): an httpx transport wrapper logs every request as sent and every response
chunk as read (JSON lines, µs UTC), the shape of modern_client.py's tap.
Run: initialize, initialized, tools/list, tools/call add(2,3), tools/call count_with_progress(3)
with a progress_callback, close.
"""
import asyncio, datetime, json, os, sys

import httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

mode = sys.argv[1]
tapf = open(sys.argv[sys.argv.index("--tap") + 1], "w", buffering=1) if "--tap" in sys.argv else open(os.devnull, "w")
_n = 0


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def log(**kw):
    tapf.write(json.dumps({"ts": now(), **kw}) + "\n")


class TapStream(httpx.AsyncByteStream):
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


class TapTransport(httpx.AsyncBaseTransport):
    def __init__(self):
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request):
        global _n
        _n += 1
        rid = _n
        body = await request.aread()
        log(ev="request", rid=rid, method=request.method, url=str(request.url),
            headers=dict(request.headers), body=body.decode("utf-8", "replace"))
        resp = await self.inner.handle_async_request(request)
        log(ev="resp_start", rid=rid, status=resp.status_code, headers=dict(resp.headers))
        return httpx.Response(resp.status_code, headers=resp.headers, stream=TapStream(resp.stream, rid),
                              extensions=resp.extensions, request=request)

    async def aclose(self):
        await self.inner.aclose()


def say(*a):
    print(now(), *a, flush=True)


async def progress(p, total, message):
    say("progress", p, total, message)


async def run(read, write):
    async with ClientSession(read, write) as s:
        r = await s.initialize()
        say("protocol", r.protocolVersion, "server", r.serverInfo.name, r.serverInfo.version)
        say("tools", [t.name for t in (await s.list_tools()).tools])
        say("add", (await s.call_tool("add", {"a": 2, "b": 3})).content[0].text)
        say("count", (await s.call_tool("count_with_progress", {"steps": 3}, progress_callback=progress)).content[0].text)
    say("closed")


async def main():
    if mode == "http":
        client = httpx.AsyncClient(transport=TapTransport(), timeout=httpx.Timeout(30.0, read=300.0), follow_redirects=True)
        async with client, streamable_http_client(sys.argv[2], http_client=client) as (read, write, _):
            await run(read, write)
    else:
        cmd = sys.argv[sys.argv.index("--") + 1:]
        async with stdio_client(StdioServerParameters(command=cmd[0], args=cmd[1:])) as (read, write):
            await run(read, write)


asyncio.run(main())
