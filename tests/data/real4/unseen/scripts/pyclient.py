"""(unseen: + one slow_echo with a 1000+ character text after slow_echo)
Feature-run client capture-client-py1 (mcp 1.x ClientSession) with a client tap.

python py1_client.py --tap FILE stdio -- COMMAND ARGS...
python py1_client.py --tap FILE sse URL
python py1_client.py --tap FILE http URL

The tap logs every message ClientSession sends and receives (JSON lines
{ts, dir: c2s|s2c, msg}) through memory streams placed between the
transport and ClientSession.
"""
import argparse, asyncio, datetime, json, sys

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.context import RequestContext


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


class TapLog:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1)

    def log(self, d, obj):
        self.f.write(json.dumps({"ts": now(), "dir": d, "msg": obj}) + "\n")


def dump(sm):
    return sm.message.model_dump(by_alias=True, mode="json", exclude_none=True)


async def tapped(read, write, tap, tg):
    cr_send, cr_recv = anyio.create_memory_object_stream(100)
    cw_send, cw_recv = anyio.create_memory_object_stream(100)

    async def pump_in():
        async with cr_send:
            async for m in read:
                if isinstance(m, Exception):
                    tap.log("s2c_exception", repr(m))
                else:
                    tap.log("s2c", dump(m))
                await cr_send.send(m)

    async def pump_out():
        async with cw_recv:
            async for m in cw_recv:
                tap.log("c2s", dump(m))
                await write.send(m)

    tg.start_soon(pump_in)
    tg.start_soon(pump_out)
    return cr_recv, cw_send


async def sampling(ctx: RequestContext, params: types.CreateMessageRequestParams):
    return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="42"),
                                     model="fake-llm", stopReason="endTurn")


async def roots(ctx: RequestContext):
    return types.ListRootsResult(roots=[types.Root(uri="file:///example/project", name="project")])


async def elicit(ctx: RequestContext, params):
    return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})


async def logging_cb(params):
    pass


async def step(name, coro):
    try:
        r = await coro
        print(f"[client] {name}: ok", file=sys.stderr)
        return r
    except Exception as e:
        print(f"[client] {name}: {type(e).__name__}: {e}", file=sys.stderr)


async def feature_run(s: ClientSession, skip_concurrent=False):
    await step("initialize", s.initialize())
    await step("setLevel", s.set_logging_level("debug"))
    await step("tools/list", s.list_tools())
    await step("resources/list", s.list_resources())
    await step("templates/list", s.list_resource_templates())
    await step("read config", s.read_resource("config://app"))
    await step("read user 7", s.read_resource("users://7/profile"))
    await step("read user 8", s.read_resource("users://8/profile"))
    await step("prompts/list", s.list_prompts())
    await step("prompts/get", s.get_prompt("greet", {"name": "Ada"}))
    await step("add", s.call_tool("add", {"a": 2, "b": 3}))
    await step("slow_echo", s.call_tool("slow_echo", {"text": "hi", "delay_ms": 120}))
    await step("slow_echo long", s.call_tool("slow_echo", {"text": "long-" + " ".join(f"w{i:03d}" for i in range(250)) + " é✓", "delay_ms": 10}))

    async def prog(p, total, msg):
        pass
    await step("count_with_progress", s.call_tool("count_with_progress", {"steps": 4}, progress_callback=prog))
    await step("fail_tool", s.call_tool("fail_tool", {}))
    await step("no_such_tool", s.call_tool("no_such_tool", {}))
    await step("ping", s.send_ping())
    await step("ask_llm", s.call_tool("ask_llm", {"question": "What is 6*7?"}))
    await step("which_roots", s.call_tool("which_roots", {}))
    await step("ask_user", s.call_tool("ask_user", {}))
    if not skip_concurrent:
        async with anyio.create_task_group() as tg:
            for i, d in enumerate([300, 40, 180, 90, 240]):
                tg.start_soon(step, f"slow_echo c{i}", s.call_tool("slow_echo", {"text": f"c{i}", "delay_ms": d}))
            # small stagger so ids 19..23 go out in order
    await anyio.sleep(0.3)


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tap", required=True)
    ap.add_argument("kind", choices=["stdio", "sse", "http"])
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    tap = TapLog(a.tap)
    if a.kind == "stdio":
        rest = a.rest[1:] if a.rest and a.rest[0] == "--" else a.rest
        cm = stdio_client(StdioServerParameters(command=rest[0], args=rest[1:]))
    elif a.kind == "sse":
        cm = sse_client(a.rest[0])
    else:
        cm = streamablehttp_client(a.rest[0])
    async with cm as streams:
        read, write = streams[0], streams[1]
        async with anyio.create_task_group() as tg:
            r, w = await tapped(read, write, tap, tg)
            async with ClientSession(r, w, sampling_callback=sampling, list_roots_callback=roots,
                                     elicitation_callback=elicit, logging_callback=logging_cb,
                                     client_info=types.Implementation(name="capture-client-py1", version="0.1.0"),
                                     read_timeout_seconds=datetime.timedelta(seconds=20)) as s:
                await feature_run(s)
            await w.aclose()
            tg.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(main)
