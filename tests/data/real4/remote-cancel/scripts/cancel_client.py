"""Cancel run of capture-client-py1 (mcp 1.30.0 ClientSession) with the client tap of py1_client.py.

python cancel_client.py --tap FILE stdio -- COMMAND ARGS...

The session: initialize, initialized, tools/list, count_with_progress (5 steps,
progress callback -> progressToken = the request id), slow_echo with a 3000 ms
delay that the client gives up on after 300 ms, then add, then close.

The mcp 1.x SDK sends nothing by itself when a caller's anyio scope is
cancelled or its read timeout fires (shared/session.py send_request only drops
its response stream), so the cancel is what a host does: it sends
notifications/cancelled {requestId, reason} for the request and then cancels
the scope that awaits it.
"""
import argparse, datetime, sys

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from py1_client import TapLog, tapped, sampling, roots, elicit, logging_cb, step  # noqa: E402


async def cancel_run(s: ClientSession):
    await step("initialize", s.initialize())
    await step("tools/list", s.list_tools())

    async def prog(p, total, msg):
        print(f"[client] progress {p}/{total} {msg}", file=sys.stderr)
    await step("count_with_progress", s.call_tool("count_with_progress", {"steps": 5}, progress_callback=prog))

    rid = s._request_id  # the id the next request gets
    async with anyio.create_task_group() as tg:
        scope = anyio.CancelScope()

        async def slow():
            with scope:
                await step("slow_echo 3000 ms", s.call_tool("slow_echo", {"text": "never", "delay_ms": 3000}))
            if scope.cancel_called:
                print(f"[client] slow_echo {rid}: cancelled by the client", file=sys.stderr)
        tg.start_soon(slow)
        await anyio.sleep(0.3)
        await s.send_notification(types.ClientNotification(types.CancelledNotification(
            params=types.CancelledNotificationParams(requestId=rid, reason="client gave up after 300 ms"))))
        scope.cancel()
    await step("add", s.call_tool("add", {"a": 2, "b": 3}))
    await anyio.sleep(0.5)


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tap", required=True)
    ap.add_argument("kind", choices=["stdio"])
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    tap = TapLog(a.tap)
    rest = a.rest[1:] if a.rest and a.rest[0] == "--" else a.rest
    async with stdio_client(StdioServerParameters(command=rest[0], args=rest[1:])) as streams:
        read, write = streams[0], streams[1]
        async with anyio.create_task_group() as tg:
            r, w = await tapped(read, write, tap, tg)
            async with ClientSession(r, w, sampling_callback=sampling, list_roots_callback=roots,
                                     elicitation_callback=elicit, logging_callback=logging_cb,
                                     client_info=types.Implementation(name="capture-client-py1", version="0.1.0"),
                                     read_timeout_seconds=datetime.timedelta(seconds=20)) as s:
                await cancel_run(s)
            await w.aclose()
            tg.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(main)
