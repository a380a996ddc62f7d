//! `--otlp-metrics FILE`: the `mcp.client.operation.duration` histogram of
//! OpenTelemetry's MCP semantic conventions (`docs/gen-ai/mcp.md`, status
//! Development: "the duration of the MCP request or notification as
//! observed on the sender from the time it was sent until the response or
//! ack is received", unit `s`, explicit bucket boundaries
//! `[0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]`), in
//! OTLP/JSON: one `ExportMetricsServiceRequest` on one line, as the
//! Collector's `otlpjsonfile` receiver reads a metrics file.
//!
//! What is measured is what `--otlp` makes a span of: each request, either
//! direction, whose latency the capture bounds (DESIGN.md rule 10; the
//! requester is the sender of the conventions, a server's
//! `sampling/createMessage` too), its duration the span's (`pairs.csv`
//! `latency_ms`). A request with an unknown latency is not measured (no
//! duration is invented). The data points are the requests grouped by
//! resource (`service.name` and `service.version`, as on the spans) and by
//! the metric's attributes, as the span carries them: `mcp.method.name`,
//! `gen_ai.tool.name`, `gen_ai.prompt.name`, `gen_ai.operation.name`,
//! `error.type`, `rpc.response.status_code`, `mcp.protocol.version`,
//! `network.transport`, `network.protocol.name`,
//! `network.protocol.version`; not the span's `jsonrpc.request.id`,
//! `mcp.session.id` or `mcp.resource.uri` (per request or per session: the
//! conventions leave them out of the metric, or make the URI opt-in).
//!
//! Temporality CUMULATIVE (`aggregationTemporality` 2): a run is one
//! observation window, each point from its first request's start
//! (`startTimeUnixNano`) to its last response (`timeUnixNano`), which a
//! Prometheus-style backend takes as it is (DELTA needs a conversion
//! there). `count` and `bucketCounts` are 64-bit integers, written as
//! decimal strings, as OTLP/JSON writes every 64-bit integer; a bucket
//! holds the durations above its lower bound up to and with its upper
//! bound (OTLP's `explicit_bounds`).

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// The metric's name.
pub const NAME: &str = "mcp.client.operation.duration";

/// The conventions' bucket boundaries, in seconds.
pub const BOUNDS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// [`BOUNDS`] in nanoseconds (bucketing on integers: no rounding at a bound).
const BOUNDS_NS: [u128; 14] = [
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    200_000_000,
    500_000_000,
    1_000_000_000,
    2_000_000_000,
    5_000_000_000,
    10_000_000_000,
    30_000_000_000,
    60_000_000_000,
    120_000_000_000,
    300_000_000_000,
];

/// The span attributes the metric keeps, in this order.
pub const ATTRIBUTES: [&str; 10] = [
    "mcp.method.name",
    "gen_ai.tool.name",
    "gen_ai.prompt.name",
    "gen_ai.operation.name",
    "error.type",
    "rpc.response.status_code",
    "mcp.protocol.version",
    "network.transport",
    "network.protocol.name",
    "network.protocol.version",
];

/// One data point being summed.
#[derive(Default)]
struct Point {
    attributes: Vec<Value>,
    start: u128,
    end: u128,
    count: u64,
    sum_ns: u128,
    min_ns: u128,
    max_ns: u128,
    buckets: [u64; 15],
}

impl Point {
    fn add(&mut self, start: u128, end: u128) {
        let d = end.saturating_sub(start);
        if self.count == 0 {
            (self.start, self.end, self.min_ns, self.max_ns) = (start, end, d, d);
        }
        self.start = self.start.min(start);
        self.end = self.end.max(end);
        self.min_ns = self.min_ns.min(d);
        self.max_ns = self.max_ns.max(d);
        self.count += 1;
        self.sum_ns += d;
        let b = BOUNDS_NS
            .iter()
            .position(|&u| d <= u)
            .unwrap_or(BOUNDS.len());
        self.buckets[b] += 1;
    }

    fn to_json(&self) -> Value {
        let s = |ns: u128| ns as f64 / 1e9;
        json!({
            "attributes": self.attributes,
            "startTimeUnixNano": self.start.to_string(),
            "timeUnixNano": self.end.to_string(),
            "count": self.count.to_string(),
            "sum": s(self.sum_ns),
            "bucketCounts": self.buckets.iter().map(u64::to_string).collect::<Vec<_>>(),
            "explicitBounds": BOUNDS,
            "min": s(self.min_ns),
            "max": s(self.max_ns),
        })
    }
}

fn nanos(v: &Value) -> Option<u128> {
    v.as_str()?.parse().ok()
}

/// The metrics request made of `--otlp`'s trace lines
/// ([`super::otlp::Otlp::lines`]): every CLIENT span is one measurement.
pub fn request(trace_lines: &[Value]) -> Value {
    // Resource (as JSON text, in first-seen order) → attribute set → point.
    let mut resources: Vec<(String, Value, BTreeMap<String, Point>)> = Vec::new();
    for line in trace_lines {
        for rs in line["resourceSpans"].as_array().into_iter().flatten() {
            let resource = rs["resource"].clone();
            let rkey = resource.to_string();
            let at = match resources.iter().position(|(k, _, _)| *k == rkey) {
                Some(i) => i,
                None => {
                    resources.push((rkey, resource, BTreeMap::new()));
                    resources.len() - 1
                }
            };
            let points = &mut resources[at].2;
            let spans = rs["scopeSpans"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|ss| ss["spans"].as_array().into_iter().flatten());
            for sp in spans.filter(|sp| sp["kind"] == 3) {
                let (Some(start), Some(end)) = (
                    nanos(&sp["startTimeUnixNano"]),
                    nanos(&sp["endTimeUnixNano"]),
                ) else {
                    continue;
                };
                let attrs: Vec<Value> = ATTRIBUTES
                    .iter()
                    .filter_map(|k| {
                        sp["attributes"]
                            .as_array()?
                            .iter()
                            .find(|a| a["key"] == *k)
                            .cloned()
                    })
                    .collect();
                let key = Value::Array(attrs.clone()).to_string();
                let p = points.entry(key).or_insert_with(|| Point {
                    attributes: attrs,
                    ..Point::default()
                });
                p.add(start, end);
            }
        }
    }
    let resource_metrics: Vec<Value> = resources
        .into_iter()
        .filter(|(_, _, points)| !points.is_empty())
        .map(|(_, resource, points)| {
            json!({
                "resource": resource,
                "scopeMetrics": [{
                    "scope": {"name": "mcp-audit", "version": env!("CARGO_PKG_VERSION")},
                    "metrics": [{
                        "name": NAME,
                        "description": "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.",
                        "unit": "s",
                        "histogram": {
                            "dataPoints": points.values().map(Point::to_json).collect::<Vec<_>>(),
                            "aggregationTemporality": 2,
                        },
                    }],
                }],
            })
        })
        .collect();
    json!({ "resourceMetrics": resource_metrics })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(kind: i64, start: u128, end: u128, method: &str, extra: &[(&str, &str)]) -> Value {
        let mut attrs = vec![
            json!({"key": "mcp.method.name", "value": {"stringValue": method}}),
            json!({"key": "jsonrpc.request.id", "value": {"stringValue": "7"}}),
        ];
        for (k, v) in extra {
            attrs.push(json!({"key": k, "value": {"stringValue": v}}));
        }
        json!({"kind": kind, "startTimeUnixNano": start.to_string(),
               "endTimeUnixNano": end.to_string(), "attributes": attrs})
    }

    #[test]
    fn buckets_sums_and_groups() {
        let t0 = 1_764_536_811_000_000_000u128;
        let line = json!({"resourceSpans": [{
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "s"}}]},
            "scopeSpans": [{"spans": [
                span(1, t0, t0 + 9_000_000_000, "(session)", &[]),
                // Exactly on a bound: the lower bucket (upper bound inclusive).
                span(3, t0, t0 + 10_000_000, "ping", &[]),
                span(3, t0, t0 + 10_000_001, "ping", &[]),
                span(3, t0 + 1_000, t0 + 400_000_000_000, "ping", &[]),
                span(3, t0, t0 + 1_500_000_000, "tools/call",
                     &[("gen_ai.tool.name", "slow_echo"), ("error.type", "-32602")]),
            ]}],
        }]});
        let r = request(&[line]);
        let m = &r["resourceMetrics"][0]["scopeMetrics"][0]["metrics"][0];
        assert_eq!(m["name"], NAME);
        assert_eq!(m["unit"], "s");
        assert_eq!(m["histogram"]["aggregationTemporality"], 2);
        let pts = m["histogram"]["dataPoints"].as_array().unwrap();
        assert_eq!(pts.len(), 2, "the session span is no measurement");
        let ping = pts
            .iter()
            .find(|p| p["attributes"].as_array().unwrap().len() == 1)
            .unwrap();
        assert_eq!(ping["count"], "3");
        let mut want = vec!["0"; 15];
        want[0] = "1";
        want[1] = "1";
        want[14] = "1";
        assert_eq!(ping["bucketCounts"], json!(want));
        let near = |v: &Value, x: f64| (v.as_f64().unwrap() - x).abs() < 1e-9;
        assert!(near(&ping["sum"], 400.019_999_001), "{}", ping["sum"]);
        assert!(near(&ping["min"], 0.01) && near(&ping["max"], 399.999_999));
        assert_eq!(ping["startTimeUnixNano"], t0.to_string());
        assert_eq!(ping["timeUnixNano"], (t0 + 400_000_000_000).to_string());
        let call = pts.iter().find(|p| p["count"] == "1").unwrap();
        assert_eq!(
            call["attributes"],
            json!([
                {"key": "mcp.method.name", "value": {"stringValue": "tools/call"}},
                {"key": "gen_ai.tool.name", "value": {"stringValue": "slow_echo"}},
                {"key": "error.type", "value": {"stringValue": "-32602"}},
            ]),
            "no jsonrpc.request.id on a metric"
        );
        assert_eq!(call["bucketCounts"][7], "1", "1.5 s is in (1, 2]");
        assert_eq!(
            request(&[]),
            json!({"resourceMetrics": []}),
            "no measurement, no point"
        );
    }
}
