"""Client run against @modelcontextprotocol/server-everything through supergateway
(mcp 1.x ClientSession over streamablehttp_client), with a client tap.

python ev_client.py --tap FILE URL

The tap logs every message ClientSession sends and receives (JSON lines
{ts, dir: c2s|s2c, msg}) through memory streams placed between the
transport and ClientSession (as py1_client.py does).
"""
import argparse, datetime, json, sys

import anyio
from mcp import ClientSession, types
from mcp.client.streamable_http import streamablehttp_client


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


async def run(s: ClientSession, name):
    await s.initialize()
    await s.list_tools()
    await s.call_tool("echo", {"message": f"hello from {name}"})
    await s.call_tool("get-sum", {"a": 3, "b": 4})

    async def prog(p, total, msg):
        print(f"{name} progress {p}/{total}", file=sys.stderr)

    await s.call_tool("trigger-long-running-operation", {"duration": 2, "steps": 4}, progress_callback=prog)
    await s.send_ping()
    await s.list_prompts()
    await s.list_resources()
    await s.call_tool("echo", {"message": f"bye from {name}"})


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tap", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("url")
    a = ap.parse_args()
    tap = TapLog(a.tap)
    async with streamablehttp_client(a.url) as streams:
        read, write = streams[0], streams[1]
        async with anyio.create_task_group() as tg:
            r, w = await tapped(read, write, tap, tg)
            async with ClientSession(r, w, client_info=types.Implementation(name=f"capture-{a.name}", version="0.1.0"),
                                     read_timeout_seconds=datetime.timedelta(seconds=20)) as s:
                await run(s, a.name)
            await w.aclose()
            tg.cancel_scope.cancel()
    print(f"{a.name} done", file=sys.stderr)


if __name__ == "__main__":
    anyio.run(main)
