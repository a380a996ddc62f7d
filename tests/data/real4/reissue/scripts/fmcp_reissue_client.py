"""fastmcp 4.2.3 Client (mcp 2.3.0 transport) against break_server.py, with the re-issue
done by APPLICATION code on top of the library (client side + client tap).

python fmcp_reissue_client.py URL --tap FILE

The library does not re-issue (../README.md, section 1): when the POST's SSE body
ends without the response, mcp 2.3.0 streamable_http.py resolves the waiter with a
synthesized JSON-RPC error -32000 "SSE stream ended without a response" (no event id
was seen, so it does not try a Last-Event-ID GET), and Client.call_tool raises. This
script catches that error and calls call_tool again with the same name and
arguments: the library gives the new call the next JSON-RPC id (and, as it always
does, progressToken = that id). So the ids, the _meta and the wire bytes are the
library's; the decision to send again is ours (5 lines in main()).

Client tap: as ../issue12 fmcp_client.py (the httpx2 client the transport uses gets
a wrapping transport logging every request as sent and every response chunk as
read, µs UTC); plus `app` lines for what the application saw.
The run: list_tools; call_tool count_with_progress(3) with a progress handler (its
first stream breaks; the error is caught; the call is made again); call_tool add(2, 3).
"""
import asyncio, contextlib, datetime, json, os, sys, time

import httpx2
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

url = sys.argv[1]
tapf = open(sys.argv[sys.argv.index("--tap") + 1], "w", buffering=1)
_n = 0


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def log(**kw):
    tapf.write(json.dumps({"ts": now(), **kw}) + "\n")


class TapStream(httpx2.AsyncByteStream):
    def __init__(self, inner, rid):
        self.inner, self.rid = inner, rid

    async def __aiter__(self):
        try:
            async for chunk in self.inner:
                log(ev="resp_chunk", rid=self.rid, data=chunk.decode("utf-8", "replace"))
                yield chunk
        except Exception as e:  # the transport error as the library is about to see it
            log(ev="resp_error", rid=self.rid, error=f"{type(e).__module__}.{type(e).__name__}: {e}")
            raise
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
    c = Client(StreamableHttpTransport(url, httpx_client_factory=factory), progress_handler=progress)
    async with c:
        say("protocol", c.session.protocol_version)
        say("tools", [t.name for t in await c.list_tools()])
        for attempt in (1, 2):
            try:
                r = await c.call_tool("count_with_progress", {"steps": 3})
                say("count", r.data, "on attempt", attempt)
                log(ev="app", attempt=attempt, outcome="result", data=r.data)
                break
            except Exception as e:  # the library's -32000, surfaced by fastmcp
                say("count attempt", attempt, "raised", type(e).__module__ + "." + type(e).__name__, repr(str(e)))
                log(ev="app", attempt=attempt, outcome="raised", error_type=type(e).__module__ + "." + type(e).__name__,
                    error=str(e), code=getattr(getattr(e, "error", None), "code", None))
        say("add", (await c.call_tool("add", {"a": 2, "b": 3})).data)


asyncio.run(main())
