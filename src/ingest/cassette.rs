//! mcp-recorder cassettes (FORMATS.md §9.1): the JSON document `mcp-recorder
//! record` saves, `{"version":"1.x","metadata":{"recorded_at",…},
//! "interactions":[{"type","request","response","response_is_sse",
//! "response_status","latency_ms","http_method","http_path"},…]}`.
//!
//! The shape is mcp-recorder's own `Cassette` model (`mcp_recorder/
//! _types.py`), written by its reverse proxy (`proxy.py`): one interaction
//! per HTTP exchange it forwarded, appended when the exchange finished (so
//! in completion order). `jsonrpc_request` and `notification` interactions
//! are POSTs: `request` is the body when it was one JSON object (`null` for
//! a batch), `response` the JSON body, or for an SSE answer only the first
//! `data:` event of the stream. `lifecycle` interactions (`GET`, `DELETE`)
//! carry no message. `latency_ms` is the proxy's own measure (whole ms) from
//! forwarding the POST to the end of its answer.
//!
//! Read as HTTP exchanges (one entry per interaction, in cassette order):
//! the request body client→server, the kept answer server→client with
//! `latency_ms` as its stated latency when it answers the request. What the
//! format cannot hold is a capture gap, never an error finding: an SSE
//! answer whose first event was not the response (a progress or log
//! notification, a server request) lost the rest of its stream, so the
//! request's `missing_response` names the gap; a batch body was not kept
//! (`Payload::Lost`). There are no per-message times, no headers and no
//! session id: the file is one session (a new one at each `initialize`).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::input::Input;
use crate::diag::Diagnostic;
use crate::record::jsonrpc::parse_payload;
use crate::record::{
    Direction, Frame, HttpContext, Kind, Location, Parsed, Payload, Provenance, Record, Split,
};

/// The format's name (`Parsed.format`, `Parsed.dialect`).
pub(crate) const NAME: &str = "mcp-recorder";

#[derive(Deserialize)]
struct Doc<'a> {
    #[serde(borrow)]
    version: Cow<'a, str>,
    #[serde(borrow, rename = "metadata")]
    _metadata: Meta<'a>,
    #[serde(borrow)]
    interactions: Vec<Interaction<'a>>,
}

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(borrow, rename = "recorded_at")]
    _recorded_at: Cow<'a, str>,
}

#[derive(Deserialize)]
struct Interaction<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    request: Option<&'a RawValue>,
    #[serde(borrow, default)]
    response: Option<&'a RawValue>,
    #[serde(default)]
    response_is_sse: bool,
    #[serde(default = "ok")]
    response_status: i64,
    #[serde(default)]
    latency_ms: Option<f64>,
}

fn ok() -> i64 {
    200
}

/// The document, when the text is an mcp-recorder cassette: an object with
/// a string `version` of major 1, a `metadata` object with `recorded_at`
/// and an `interactions` array whose members have a `type` mcp-recorder
/// writes.
fn read(text: &str) -> Option<Doc<'_>> {
    let body = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    if !body.starts_with('{') || !body.contains("\"interactions\"") {
        return None;
    }
    let doc: Doc<'_> = serde_json::from_str(body).ok()?;
    let major_one = doc.version.split('.').next() == Some("1");
    let kinds = doc.interactions.iter().all(|i| {
        matches!(
            i.kind.as_ref(),
            "jsonrpc_request" | "notification" | "lifecycle"
        )
    });
    (major_one && kinds).then_some(doc)
}

/// One interaction's bodies, parsed.
#[derive(Clone)]
struct Read<'a> {
    request: Option<(
        &'a RawValue,
        Result<Payload, crate::record::jsonrpc::PayloadError>,
    )>,
    response: Option<(
        &'a RawValue,
        Result<Payload, crate::record::jsonrpc::PayloadError>,
    )>,
}

/// The interactions in causal order: cassette order (when each exchange
/// ended), except that a POST answering a server request is read right
/// after the exchange whose kept SSE event carried that request (the
/// answer's exchange ends first, while the stream that asked is still
/// open).
fn causal_order(its: &[Interaction<'_>], read: &[Read<'_>]) -> Vec<usize> {
    let single = |x: &Option<(&RawValue, Result<Payload, _>)>, kind: Kind| match x {
        Some((_, Ok(Payload::Single(m)))) if m.kind == kind => Some(m.id.clone()),
        _ => None,
    };
    let mut order: Vec<usize> = (0..its.len()).collect();
    for j in 0..its.len() {
        let Some(id) = single(&read[j].request, Kind::Response) else {
            continue;
        };
        let asker = (j + 1..its.len())
            .find(|&k| single(&read[k].response, Kind::Request) == Some(id.clone()));
        if let Some(k) = asker
            && let (Some(pj), Some(pk)) = (
                order.iter().position(|&x| x == j),
                order.iter().position(|&x| x == k),
            )
            && pj < pk
        {
            let moved = order.remove(pj);
            order.insert(pk, moved);
        }
    }
    order
}

/// The row claims the whole text: an mcp-recorder cassette (see `read`).
pub fn claims(text: &str) -> bool {
    read(text).is_some()
}

/// Parses a cassette (FORMATS.md §9.1).
pub fn parse(input: Input<'_>) -> Parsed {
    let mut p = Parsed {
        format: NAME,
        dialect: NAME,
        ..Default::default()
    };
    let Some(doc) = read(input.text) else {
        p.errors.push(Diagnostic::whole(
            "not an mcp-recorder cassette (a JSON object with version 1.x, metadata.recorded_at and interactions)",
        ));
        p.incomplete = true;
        return p;
    };
    let out = Out {
        key: input.name.into(),
        file: input.file,
        base: input.text.as_ptr() as usize,
    };
    let read: Vec<Read<'_>> = doc
        .interactions
        .iter()
        .map(|it| Read {
            request: it.request.map(|r| (r, parse_payload(r.get()))),
            response: it.response.map(|r| (r, parse_payload(r.get()))),
        })
        .collect();
    for (rank, i) in causal_order(&doc.interactions, &read)
        .into_iter()
        .enumerate()
    {
        let it = &doc.interactions[i];
        let body = read[i].clone();
        if it.kind == "lifecycle" {
            continue;
        }
        out.exchange(&mut p.records, it, i as u64, rank as i64, body);
    }
    p
}

/// What the frames of one cassette share: its session, file and text.
struct Out {
    key: std::sync::Arc<str>,
    file: u32,
    /// Address of the text's first byte (a body's offset is its address
    /// less this).
    base: usize,
}

impl Out {
    /// The frames of interaction `i` (at `rank` in causal order): the
    /// request body client→server (a lost one for a batch), then the kept
    /// answer server→client, with `latency_ms` when it answers the request.
    fn exchange(
        &self,
        records: &mut Vec<Record>,
        it: &Interaction<'_>,
        i: u64,
        rank: i64,
        body: Read<'_>,
    ) {
        let Read { request, response } = body;
        let asked = match &request {
            Some((_, Ok(Payload::Single(m)))) if m.kind == Kind::Request => Some(m.id.clone()),
            _ => None,
        };
        let answers = matches!(
            (&response, &asked),
            (Some((_, Ok(Payload::Single(m)))), Some(id)) if m.kind == Kind::Response && m.id == *id
        );
        let http = context(it, i, rank, asked.is_some(), answers);
        match request {
            Some((raw, payload)) => records.push(self.frame(
                Direction::C2s,
                self.prov(i, raw),
                payload.unwrap_or(Payload::Unparseable),
                http.clone(),
                None,
            )),
            // A POST whose body was no single object (a batch): not kept.
            None => records.push(self.frame(
                Direction::C2s,
                Provenance {
                    file: self.file,
                    location: Location::entry(i, None),
                    offset: 0,
                    len: 0,
                },
                Payload::Lost,
                http.clone(),
                None,
            )),
        }
        if let Some((raw, payload)) = response {
            let latency = it
                .latency_ms
                .filter(|ms| answers && ms.is_finite() && *ms >= 0.0)
                .map(|ms| (ms * 1000.0).round() as i64);
            records.push(self.frame(
                Direction::S2c,
                self.prov(i, raw),
                payload.unwrap_or(Payload::Unparseable),
                HttpContext {
                    is_request_body: false,
                    ..http
                },
                latency,
            ));
        }
    }

    /// Where body `raw` of interaction `i` is in the text.
    fn prov(&self, i: u64, raw: &RawValue) -> Provenance {
        Provenance {
            file: self.file,
            location: Location::entry(i, None),
            offset: (raw.get().as_ptr() as usize).saturating_sub(self.base) as u64,
            len: u32::try_from(raw.get().len()).unwrap_or(u32::MAX),
        }
    }

    /// One frame of the cassette's session.
    fn frame(
        &self,
        direction: Direction,
        prov: Provenance,
        payload: Payload,
        http: HttpContext,
        stated_latency: Option<i64>,
    ) -> Record {
        Record::Frame(Frame {
            key: self.key.clone(),
            split: Split::ByStart,
            direction: Some(direction),
            ts: None,
            stated_latency,
            prov,
            payload,
            http: Some(http),
            event_id: None,
        })
    }
}

/// The HTTP exchange of interaction `it` (entry `i`, at `rank` in causal
/// order), for its request body: `asked` when the body is one request,
/// `answers` when the kept answer is its response.
fn context(it: &Interaction<'_>, i: u64, rank: i64, asked: bool, answers: bool) -> HttpContext {
    HttpContext {
        entry: i,
        is_request_body: true,
        method: "POST".into(),
        status: it.response_status,
        stream: it.response_is_sse,
        body_empty: it.response.is_none() && !it.response_is_sse,
        body_has_json: it.response.is_some(),
        // No times: the exchange's place in causal order (µs as a
        // count) orders the entries (DESIGN.md rule 4).
        start: rank,
        end: rank,
        position: 0,
        protocol_header: None,
        legacy: false,
        // Only the first event of an SSE answer is kept: when it is not
        // the response, the response was in the part not kept.
        response_lost: it.response_is_sse && it.response.is_some() && asked && !answers,
        // The stated latency_ms is the bound (FORMATS.md §9.1).
        time_unbounded: false,
        origin_keyed: false,
        headers: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In the shape `mcp-recorder record` 0.5.0 saves (json.dumps indent 2).
    const DOC: &str = r#"{
  "version": "1.0",
  "metadata": {
    "recorded_at": "2026-12-02T06:02:44.460959+00:00",
    "server_url": "http://127.0.0.1:38741",
    "transport_type": "http",
    "protocol_version": "2025-11-25",
    "server_info": null
  },
  "interactions": [
    {"type": "jsonrpc_request", "request": {"jsonrpc": "2.0", "id": 0, "method": "initialize"},
     "response": {"jsonrpc": "2.0", "id": 0, "result": {}}, "response_is_sse": true,
     "response_status": 200, "latency_ms": 336, "http_method": null, "http_path": null},
    {"type": "notification", "request": {"jsonrpc": "2.0", "method": "notifications/initialized"},
     "response": null, "response_is_sse": false, "response_status": 202, "latency_ms": 17},
    {"type": "jsonrpc_request", "request": {"jsonrpc": "2.0", "id": 11, "method": "tools/call"},
     "response": {"jsonrpc": "2.0", "method": "notifications/message", "params": {}},
     "response_is_sse": true, "response_status": 200, "latency_ms": 284},
    {"type": "lifecycle", "request": null, "response": null, "response_is_sse": true,
     "response_status": 200, "latency_ms": 62540, "http_method": "GET", "http_path": "/mcp"},
    {"type": "jsonrpc_request", "request": null, "response": null, "response_is_sse": false,
     "response_status": 200, "latency_ms": 5},
    {"type": "jsonrpc_request", "request": {"jsonrpc": "2.0", "id": 16, "method": "tools/call"},
     "response": null, "response_is_sse": true, "response_status": 200, "latency_ms": 61155}
  ]
}
"#;

    type Row = (u64, Direction, String, Option<i64>, bool, i64);

    fn rows(p: &Parsed) -> Vec<Row> {
        p.records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => {
                    let h = f.http.as_ref()?;
                    Some((
                        h.entry,
                        f.direction?,
                        match &f.payload {
                            Payload::Single(m) => format!("{:?}", m.kind),
                            Payload::Lost => "lost".into(),
                            other => format!("{other:?}"),
                        },
                        f.stated_latency,
                        h.response_lost,
                        h.status,
                    ))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn interactions_as_exchanges_with_gaps() {
        let p = parse(Input {
            file: 0,
            name: "c.json",
            text: DOC,
        });
        let (c, s) = (Direction::C2s, Direction::S2c);
        assert_eq!(
            rows(&p),
            vec![
                (0, c, "Request".into(), None, false, 200),
                (0, s, "Response".into(), Some(336_000), false, 200),
                (1, c, "Notification".into(), None, false, 202),
                (2, c, "Request".into(), None, true, 200),
                (2, s, "Notification".into(), None, true, 200),
                (4, c, "lost".into(), None, false, 200),
                (5, c, "Request".into(), None, false, 200),
            ]
        );
        assert!(p.errors.is_empty());
        assert_eq!((p.format, p.dialect), ("mcp-recorder", "mcp-recorder"));
        let Some(Record::Frame(f)) = p.records.get(1) else {
            panic!()
        };
        let (o, l) = (f.prov.offset as usize, f.prov.len as usize);
        assert_eq!(
            &DOC[o..o + l],
            r#"{"jsonrpc": "2.0", "id": 0, "result": {}}"#
        );
        assert_eq!(f.prov.location, Location::entry(0, None));
        assert!(f.http.as_ref().is_some_and(|h| h.stream && !h.body_empty));
    }

    #[test]
    fn an_answer_to_a_server_request_follows_the_stream_that_asked() {
        // The client's answer (entry 0) ended before the tools/call whose
        // first SSE event was the sampling request (entry 1).
        let doc = r#"{"version": "1.0", "metadata": {"recorded_at": "x"}, "interactions": [
  {"type": "jsonrpc_request", "request": {"jsonrpc": "2.0", "id": 0, "result": {}},
   "response": null, "response_is_sse": false, "response_status": 202, "latency_ms": 3},
  {"type": "jsonrpc_request", "request": {"jsonrpc": "2.0", "id": 16, "method": "tools/call"},
   "response": {"jsonrpc": "2.0", "id": 0, "method": "sampling/createMessage"},
   "response_is_sse": true, "response_status": 200, "latency_ms": 40}
]}"#;
        let p = parse(Input {
            file: 0,
            name: "c.json",
            text: doc,
        });
        let got: Vec<(u64, i64, Direction, bool)> = p
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Frame(f) => f
                    .http
                    .as_ref()
                    .map(|h| (h.entry, h.start, f.direction.unwrap(), h.response_lost)),
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (1, 0, Direction::C2s, true),
                (1, 0, Direction::S2c, true),
                (0, 1, Direction::C2s, false),
            ]
        );
    }

    #[test]
    fn claims_only_cassettes() {
        assert!(claims(DOC));
        for no in [
            "{\"log\":{\"version\":\"1.2\",\"entries\":[]}}",
            "{\"version\":\"2.0\",\"metadata\":{\"recorded_at\":\"x\"},\"interactions\":[]}",
            "{\"version\":\"1.0\",\"metadata\":{},\"interactions\":[]}",
            "{\"version\":\"1.0\",\"metadata\":{\"recorded_at\":\"x\"},\"interactions\":[{\"type\":\"other\"}]}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"interactions\":[]}}",
            "{\"version\":\"1.0\",\"interactions\":",
            "",
        ] {
            assert!(!claims(no), "{no}");
        }
        let p = parse(Input {
            file: 0,
            name: "x.json",
            text: "{}",
        });
        assert!(p.incomplete && p.records.is_empty() && p.errors.len() == 1);
    }
}
