#!/usr/bin/env python3
"""Reads mcp-audit's --otlp-metrics file with the official OTLP protobuf
definitions (PyPI opentelemetry-proto) and prints what it read as one JSON
object, for tests/suite/otlp.rs.

usage: otlp_metrics_read.py FILE.json

The file must be one line, one ExportMetricsServiceRequest in OTLP/JSON as
the OTLP specification defines it ("JSON Protobuf Encoding"): enums
(aggregationTemporality) as integers; 64-bit integers (the ...UnixNano
times, count, bucketCounts) as decimal strings. Those rules are checked
here; then the line is parsed by google.protobuf.json_format.Parse, which
rejects unknown fields. What is printed comes from the parsed message, not
from the JSON text.
"""
import json
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2


def fail(msg):
    sys.exit(f"otlp_metrics_read.py: {msg}")


def decimal(v, where):
    if not (isinstance(v, str) and v.isdigit()):
        fail(f"{where}: {v!r} is not a decimal string")


def check(doc):
    for rm in doc.get("resourceMetrics", []):
        for sm in rm.get("scopeMetrics", []):
            for m in sm.get("metrics", []):
                h = m.get("histogram")
                if h is None:
                    fail(f"metric {m.get('name')!r} is not a histogram")
                if not isinstance(h.get("aggregationTemporality"), int):
                    fail("aggregationTemporality is not an integer")
                for p in h.get("dataPoints", []):
                    where = f"point {p.get('attributes')}"
                    for k in ("startTimeUnixNano", "timeUnixNano", "count"):
                        decimal(p.get(k), f"{where} {k}")
                    for c in p.get("bucketCounts", []):
                        decimal(c, f"{where} bucketCounts")
                    for a in p.get("attributes", []):
                        if "intValue" in a["value"]:
                            decimal(a["value"]["intValue"], where)


def attrs(kvs):
    out = {}
    for kv in kvs:
        if kv.key in out:
            fail(f"attribute {kv.key} twice")
        if kv.value.WhichOneof("value") != "string_value":
            fail(f"attribute {kv.key} is not a string")
        out[kv.key] = kv.value.string_value
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().splitlines()
    if len(lines) != 1:
        fail(f"{len(lines)} lines, not one")
    doc = json.loads(lines[0])
    check(doc)
    req = metrics_service_pb2.ExportMetricsServiceRequest()
    json_format.Parse(lines[0], req)  # unknown fields fail
    resources = []
    for rm in req.resource_metrics:
        metrics = []
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                if m.WhichOneof("data") != "histogram":
                    fail(f"{m.name}: not a histogram")
                metrics.append({
                    "scope": sm.scope.name,
                    "name": m.name,
                    "unit": m.unit,
                    "temporality": m.histogram.aggregation_temporality,
                    "points": [{
                        "attributes": attrs(p.attributes),
                        "start": p.start_time_unix_nano,
                        "time": p.time_unix_nano,
                        "count": p.count,
                        "sum": p.sum,
                        "min": p.min,
                        "max": p.max,
                        "bucket_counts": list(p.bucket_counts),
                        "explicit_bounds": list(p.explicit_bounds),
                    } for p in m.histogram.data_points],
                })
        resources.append({"resource": attrs(rm.resource.attributes),
                          "metrics": metrics})
    print(json.dumps({"resources": resources}))


if __name__ == "__main__":
    main()
