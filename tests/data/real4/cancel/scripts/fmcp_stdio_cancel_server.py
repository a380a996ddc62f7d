"""fastmcp 4.2.3 (mcp 2.3.0) stdio server for the answered_after_cancel capture.

python fmcp_stdio_cancel_server.py      (stdio, FastMCP.run(transport="stdio"))

Tools:
  add(a, b)                      plain call
  sleep_async(ms)                await asyncio.sleep(ms/1000), then "slept N ms" (cancellable)
  sleep_blocking(ms)             a sync tool: time.sleep(ms/1000) in fastmcp's worker thread
"""
import asyncio, time

from fastmcp import FastMCP

mcp = FastMCP("cancel-demo-fastmcp")


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool
async def sleep_async(ms: int) -> str:
    """Sleep ms milliseconds (asyncio), then answer."""
    await asyncio.sleep(ms / 1000)
    return f"slept {ms} ms"


@mcp.tool
def sleep_blocking(ms: int) -> str:
    """Sleep ms milliseconds in a blocking call, then answer."""
    time.sleep(ms / 1000)
    return f"slept {ms} ms (blocking)"


if __name__ == "__main__":
    mcp.run(transport="stdio", show_banner=False)
