"""fastmcp 4.1.4 Client + fastmcp-tasks 4.1.4 (real5 healthy tasks session; tap and set-up of
fmcp_tasks_client.py). python fmcp_tasks2_client.py URL --tap FILE
The run: list_tools; at once slow_task(4), slow_task(1) (both tasked transparently:
CreateTaskResult then tasks/get polls; the short one completes first) and add(2,3);
count_with_progress(3) with a progress handler; book_flight (MRTR, 3 rounds, the person
waits 1.5 s per question); count_with_progress(40) with timeout 0.3 s (the client gives up:
under 2026-07-28 it closes the response stream, its cancellation); add(4,5); clean close.
"""
import asyncio, contextlib, datetime, json, os, sys, time

import httpx2
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp.client.elicitation import ElicitResult
import fastmcp_tasks  # enables client task support
from fastmcp_tasks import call_tool_task
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
    if "mood" in message:
        return ElicitResult(action="accept", content=response_type(cuisine="Thai"))
    if "Where" in message:
        return ElicitResult(action="accept", content=response_type(destination="Paris"))
    return ElicitResult(action="accept", content=response_type(date="2026-08-01"))


async def progress(p, total, message):
    say("progress", p, total, message)


async def main():
    c = Client(StreamableHttpTransport(url, httpx_client_factory=factory), elicitation_handler=elicit,
               progress_handler=progress)
    async with c:
        say("protocol", c.session.protocol_version)
        say("tools", [t.name for t in await c.list_tools()])
        a, b, s = await asyncio.gather(c.call_tool("slow_task", {"steps": 4}), c.call_tool("slow_task", {"steps": 1}),
                                       c.call_tool("add", {"a": 2, "b": 3}))
        say("slow_task 4", a.data, "slow_task 1", b.data, "add", s.data)
        say("count_with_progress", (await c.call_tool("count_with_progress", {"steps": 3})).data)
        say("book_flight", (await c.call_tool("book_flight", {})).data)
        try:
            r = await c.call_tool("count_with_progress", {"steps": 40}, timeout=0.3)
            say("count 40 unexpectedly done", r.data)
        except Exception as e:
            say("count 40 gave up", type(e).__name__, str(e)[:120])
        await asyncio.sleep(0.5)
        say("add", (await c.call_tool("add", {"a": 4, "b": 5})).data)


asyncio.run(main())
