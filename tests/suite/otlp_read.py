#!/usr/bin/env python3
"""Reads mcp-audit's --otlp file with the official OTLP protobuf definitions
(PyPI opentelemetry-proto) and prints what it read as one JSON object, for
tests/suite/otlp.rs.

usage: otlp_read.py FILE.jsonl

Each line must be one ExportTraceServiceRequest in OTLP/JSON as the OTLP
specification defines it ("JSON Protobuf Encoding"): trace and span ids
lowercase hex (16 and 8 bytes), not base64; enums as integers; 64-bit
integers as decimal strings. Those rules are checked here, the hex ids
are then mapped to protobuf JSON's base64 and the line is parsed by
google.protobuf.json_format.Parse, which rejects unknown fields. What is
printed comes from the parsed messages, not from the JSON text.
"""
import base64
import json
import re
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

HEX = {"traceId": 32, "spanId": 16, "parentSpanId": 16}
NANOS = ("startTimeUnixNano", "endTimeUnixNano", "timeUnixNano")


def fail(msg):
    sys.exit(f"otlp_read.py: {msg}")


def check_ids(obj, where):
    """Hex ids of their width, mapped to base64 in place."""
    for k, n in HEX.items():
        if k in obj:
            v = obj[k]
            if not isinstance(v, str) or not re.fullmatch(f"[0-9a-f]{{{n}}}", v):
                fail(f"{where}: {k} {v!r} is not {n} lowercase hex digits")
            if set(v) == {"0"}:
                fail(f"{where}: {k} is all zeros")
            obj[k] = base64.b64encode(bytes.fromhex(v)).decode()


def check_value(v, where):
    if "intValue" in v and not isinstance(v["intValue"], str):
        fail(f"{where}: intValue {v['intValue']!r} is not a string")


def check_line(doc, n):
    for rs in doc.get("resourceSpans", []):
        for a in rs.get("resource", {}).get("attributes", []):
            check_value(a["value"], f"line {n} resource")
        for ss in rs.get("scopeSpans", []):
            for sp in ss.get("spans", []):
                where = f"line {n} span {sp.get('name')!r}"
                check_ids(sp, where)
                if not isinstance(sp.get("kind"), int):
                    fail(f"{where}: kind {sp.get('kind')!r} is not an integer")
                code = sp.get("status", {}).get("code")
                if code is not None and not isinstance(code, int):
                    fail(f"{where}: status.code {code!r} is not an integer")
                for k in NANOS:
                    if k in sp and not (isinstance(sp[k], str) and sp[k].isdigit()):
                        fail(f"{where}: {k} {sp[k]!r} is not a decimal string")
                for a in sp.get("attributes", []):
                    check_value(a["value"], where)
                for e in sp.get("events", []):
                    if not (isinstance(e.get("timeUnixNano"), str)
                            and e["timeUnixNano"].isdigit()):
                        fail(f"{where}: event time {e.get('timeUnixNano')!r}")
                    for a in e.get("attributes", []):
                        check_value(a["value"], where)
                for link in sp.get("links", []):
                    check_ids(link, where + " link")


def value(v):
    kind = v.WhichOneof("value")
    if kind == "string_value":
        return v.string_value
    if kind == "int_value":
        return v.int_value
    if kind == "bool_value":
        return v.bool_value
    if kind == "double_value":
        return v.double_value
    fail(f"unexpected AnyValue {kind}")


def attrs(kvs):
    out = {}
    for kv in kvs:
        if kv.key in out:
            fail(f"attribute {kv.key} twice")
        out[kv.key] = value(kv.value)
    return out


def main():
    lines = []
    with open(sys.argv[1], encoding="utf-8") as f:
        for n, text in enumerate(f, 1):
            doc = json.loads(text)
            check_line(doc, n)
            req = trace_service_pb2.ExportTraceServiceRequest()
            json_format.Parse(json.dumps(doc), req)  # unknown fields fail
            resources = []
            for rs in req.resource_spans:
                spans = []
                for ss in rs.scope_spans:
                    for sp in ss.spans:
                        spans.append({
                            "scope": ss.scope.name,
                            "trace_id": sp.trace_id.hex(),
                            "span_id": sp.span_id.hex(),
                            "parent_span_id": sp.parent_span_id.hex(),
                            "name": sp.name,
                            "kind": sp.kind,
                            "start": sp.start_time_unix_nano,
                            "end": sp.end_time_unix_nano,
                            "attributes": attrs(sp.attributes),
                            "events": [{"name": e.name, "time": e.time_unix_nano,
                                        "attributes": attrs(e.attributes)}
                                       for e in sp.events],
                            "status": {"code": sp.status.code,
                                       "message": sp.status.message},
                            "links": [{"trace_id": l.trace_id.hex(),
                                       "span_id": l.span_id.hex(),
                                       "attributes": attrs(l.attributes)}
                                      for l in sp.links],
                        })
                resources.append({"resource": attrs(rs.resource.attributes),
                                  "spans": spans})
            lines.append(resources)
    print(json.dumps({"lines": lines}))


if __name__ == "__main__":
    main()
