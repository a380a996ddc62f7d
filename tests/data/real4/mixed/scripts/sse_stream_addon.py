"""mitmproxy addon: stream text/event-stream responses chunk by chunk (so MCP
server requests on an open stream can be answered and legacy SSE clients do not
hang) and keep the concatenated bytes as the flow's body for the HAR.

mitmproxy 11.0.2 sometimes runs the `response` hook (and closes the HAR `time`,
timings.receive 0) when the headers arrive while the body is still streaming,
so the body is stored after every chunk, not only in `response`."""


class SSEStream:
    def responseheaders(self, flow):
        ct = flow.response.headers.get("content-type", "")
        if "text/event-stream" in ct:
            buf = bytearray()
            flow.metadata["sse_buf"] = buf

            def stream(data: bytes) -> bytes:
                buf.extend(data)
                if flow.response is not None:
                    flow.response.data.content = bytes(buf)
                return data
            flow.response.stream = stream

    def response(self, flow):
        buf = flow.metadata.get("sse_buf")
        # When the whole body came with the headers, mitmproxy does not call the
        # stream function and keeps the body itself: then leave it alone.
        if buf and not flow.response.content:
            flow.response.data.content = bytes(buf)


addons = [SSEStream()]
