//! Tables: an [`Analysis`] as polars DataFrames, the only place they are
//! built (STYLE.md house rule 7). Inputs: the analysis, its per-session
//! summaries and the run's names; outputs: the `findings`, `pairs`,
//! `batches`, `latency` and `sessions` tables that `report::csv` and
//! `report::parquet` write (columns, types and units: `reports/SCHEMA.md`).
//!
//! Every number is computed before it is a column: latency quantiles per
//! method, per server and per batch size, and each batch's member
//! latencies (count, median, max), are grouped here and taken by
//! `analyze::latency` (nearest rank, DESIGN.md rule 10), the one
//! implementation `summary.json` uses too, so every number here equals
//! summary.json's where both exist.

use std::borrow::Cow;
use std::collections::BTreeMap;

use polars::prelude::*;

use super::{Analysis, Batch, Finding, Req, SessionResult, SessionSummary, latency};
use crate::record::Micros;

/// `pairs.csv`'s columns, in DESIGN.md's order (the pairs table has exactly these).
pub const PAIRS_COLUMNS: [&str; 12] = [
    "session",
    "direction",
    "id",
    "method",
    "request_time",
    "response_time",
    "latency_ms",
    "status",
    "batch",
    "position_in_batch",
    "response_position",
    "operation",
];

/// The quantiles of the latency table: column name and permille (rule 10).
pub const QUANTILES: [(&str, usize); 4] = [
    ("p50_ms", 500),
    ("p90_ms", 900),
    ("p99_ms", 990),
    ("p999_ms", 999),
];

/// What the tables need from the run besides the analysis: display names
/// and the escaping of captured strings (the report layer provides them).
pub trait Names: Sync {
    /// Display name of input `input`.
    fn input(&self, input: usize) -> &str;
    /// Display name of file id `file` (`Provenance::file`).
    fn file(&self, file: u32) -> &str;
    /// A captured string as the tables hold it (escaped for terminals).
    fn text<'s>(&self, s: &'s str) -> Cow<'s, str>;
}

/// Rows per frame of the tables built a frame at a time (`findings`,
/// `pairs`): what the writers hold of them at once (issue 5's memory
/// bound); each frame is one Parquet row group.
pub const CHUNK_ROWS: usize = 65_536;

/// The tables' names (file stems), in output order.
pub const TABLES: [&str; 6] = [
    "findings",
    "pairs",
    "batches",
    "latency",
    "sessions",
    "operations",
];

/// The run's tables: `batches`, `latency` and `sessions` built whole (one
/// row per batch, per quantile group, per session); `findings` and
/// `pairs` (one row per finding, per request) built from the analysis a
/// frame of [`CHUNK_ROWS`] rows at a time by [`Tables::frames`].
#[derive(Clone)]
pub struct Tables<'a> {
    a: &'a Analysis,
    names: &'a dyn Names,
    /// Where each pairs frame starts: session index, request index, and
    /// the number of batches in the sessions before it.
    pair_starts: Vec<(usize, usize, usize)>,
    /// One row per JSON array (`[]` included), with its member latencies.
    pub batches: DataFrame,
    /// Latency quantiles: overall, per method, per server, per batch size.
    pub latency: DataFrame,
    /// One row per session: who, counts, batch metrics, latency.
    pub sessions: DataFrame,
    /// One row per operation (MRTR, task, listen): its requests, state and
    /// times.
    pub operations: DataFrame,
}

/// A table as frames, in row order (see [`Tables::frames`]).
pub type Frames<'t> = Box<dyn Iterator<Item = PolarsResult<DataFrame>> + 't>;

impl<'a> Tables<'a> {
    /// Table `stem`'s rows ([`TABLES`]) as frames of at most
    /// [`CHUNK_ROWS`] rows, in row order; at least one (an empty table is
    /// one empty frame with the table's columns). `findings` and `pairs`
    /// frames are built as the iterator advances, so only one is held.
    pub fn frames(&self, stem: &str) -> PolarsResult<Frames<'_>> {
        let (a, names) = (self.a, self.names);
        Ok(match stem {
            "findings" => {
                let n = a.findings.len();
                Box::new((0..n.div_ceil(CHUNK_ROWS).max(1)).map(move |k| {
                    let end = ((k + 1) * CHUNK_ROWS).min(n);
                    findings(&a.findings[k * CHUNK_ROWS..end], names)
                }))
            }
            "pairs" => Box::new(
                self.pair_starts
                    .iter()
                    .map(move |&start| pairs(a, names, start, CHUNK_ROWS)),
            ),
            "batches" => Box::new(std::iter::once(Ok(self.batches.clone()))),
            "latency" => Box::new(std::iter::once(Ok(self.latency.clone()))),
            "sessions" => Box::new(std::iter::once(Ok(self.sessions.clone()))),
            "operations" => Box::new(std::iter::once(Ok(self.operations.clone()))),
            other => polars_bail!(ComputeError: "no table {other}"),
        })
    }

    /// Table `stem` as one frame (its frames stacked): for tests and
    /// small runs, not for writing.
    pub fn whole(&self, stem: &str) -> PolarsResult<DataFrame> {
        let mut frames = self.frames(stem)?;
        let mut df = frames
            .next()
            .ok_or_else(|| polars_err!(ComputeError: "no frame"))??;
        for f in frames {
            df.vstack_mut_owned(f?)?;
        }
        df.rechunk_mut();
        Ok(df)
    }
}

impl std::fmt::Debug for Tables<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tables")
            .field("findings", &self.a.findings.len())
            .field("pair_frames", &self.pair_starts.len())
            .field("batches", &self.batches)
            .field("latency", &self.latency)
            .field("sessions", &self.sessions)
            .field("operations", &self.operations)
            .finish()
    }
}

fn text_col(name: &str, v: Vec<Option<String>>) -> Column {
    Column::new(name.into(), v)
}

fn int_col(name: &str, v: Vec<Option<i64>>) -> Column {
    Column::new(name.into(), v)
}

fn float_col(name: &str, v: Vec<Option<f64>>) -> Column {
    Column::new(name.into(), v)
}

fn bool_col(name: &str, v: Vec<bool>) -> Column {
    Column::new(name.into(), v)
}

/// Microseconds since the epoch as `Datetime(µs, UTC)`.
fn time_col(name: &str, v: Vec<Option<Micros>>) -> Column {
    Int64Chunked::from_iter_options(name.into(), v.into_iter())
        .into_datetime(TimeUnit::Microseconds, Some(TimeZone::UTC))
        .into_column()
}

fn ms(us: Micros) -> f64 {
    us as f64 / 1000.0
}

fn int(v: impl TryInto<i64>) -> Option<i64> {
    v.try_into().ok()
}

/// Builds the whole tables (the aggregations read every request once)
/// and plans the frames of the others.
pub fn build<'a>(
    a: &'a Analysis,
    summaries: &[SessionSummary],
    names: &'a dyn Names,
) -> PolarsResult<Tables<'a>> {
    // The four whole tables are independent: built at once (on a run with
    // every output this is a quarter of the output phase's CPU).
    let ((batches, latency), (sessions, operations)) = crate::timings::join(
        || crate::timings::join(|| batches(a, names), || latency(a, names)),
        || crate::timings::join(|| sessions(summaries, names), || operations(a, names)),
    );
    let (batches, latency, sessions, operations) = (batches?, latency?, sessions?, operations?);
    // A frame starts every CHUNK_ROWS requests (one empty frame for none).
    let mut pair_starts = vec![(0, 0, 0)];
    let (mut rows, mut batch_base) = (0usize, 0usize);
    for (si, s) in a.sessions.iter().enumerate() {
        let n = s.requests.len();
        let mut qi = (CHUNK_ROWS - rows % CHUNK_ROWS) % CHUNK_ROWS;
        if rows + qi == 0 {
            qi = CHUNK_ROWS; // the first frame's start is there already
        }
        while qi < n {
            pair_starts.push((si, qi, batch_base));
            qi += CHUNK_ROWS;
        }
        rows += n;
        batch_base += s.batches.len();
    }
    Ok(Tables {
        a,
        names,
        pair_starts,
        batches,
        latency,
        sessions,
        operations,
    })
}

fn findings(found: &[Finding], names: &dyn Names) -> PolarsResult<DataFrame> {
    let n = found.len();
    let (
        mut kind,
        mut severity,
        mut session,
        mut direction,
        mut id,
        mut method,
        mut file,
        mut detail,
    ) = (
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
    );
    let (mut line, mut entry, mut event) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for f in found {
        kind.push(Some(f.kind.name().to_string()));
        severity.push(Some(f.severity().as_str().to_string()));
        session.push(Some(names.text(&f.session).into_owned()));
        direction.push(f.direction.map(|d| d.as_str().to_string()));
        id.push(Some(names.text(&f.id.to_json().to_string()).into_owned()));
        method.push(f.method.as_deref().map(|m| names.text(m).into_owned()));
        file.push(Some(names.text(names.file(f.file)).into_owned()));
        line.push(f.location.line.and_then(int));
        entry.push(f.location.entry.and_then(int));
        event.push(f.location.event.and_then(int));
        detail.push(Some(names.text(&f.detail).into_owned()));
    }
    DataFrame::new(
        n,
        vec![
            text_col("kind", kind),
            text_col("severity", severity),
            text_col("session", session),
            text_col("direction", direction),
            text_col("id", id),
            text_col("method", method),
            text_col("file", file),
            int_col("line", line),
            int_col("entry", entry),
            int_col("event", event),
            text_col("detail", detail),
        ],
    )
}

/// At most `limit` rows of the pairs table (`PAIRS_COLUMNS`), from
/// request `qi` of session `si` on (`batch_base`: the batches of the
/// sessions before `si`).
fn pairs(
    a: &Analysis,
    names: &dyn Names,
    (si, qi, batch_base): (usize, usize, usize),
    limit: usize,
) -> PolarsResult<DataFrame> {
    let left: usize = a
        .sessions
        .get(si..)
        .unwrap_or_default()
        .iter()
        .map(|s| s.requests.len())
        .sum::<usize>()
        .saturating_sub(qi);
    let n = left.min(limit);
    // Strings go straight into polars' builders (no String per cell).
    let text = |name: &str| StringChunkedBuilder::new(name.into(), n);
    let mut session = text("session");
    let mut direction = text("direction");
    let mut id = text("id");
    let mut method = text("method");
    let mut status = text("status");
    let mut request_time = Vec::with_capacity(n);
    let mut response_time = Vec::with_capacity(n);
    let mut latency_ms = Vec::with_capacity(n);
    let mut batch = Vec::with_capacity(n);
    let mut position = Vec::with_capacity(n);
    let mut response_position = Vec::with_capacity(n);
    let mut operation = text("operation");
    let mut batch_base = batch_base;
    let mut id_text = String::new();
    let mut rows = 0usize;
    for (k, s) in a.sessions.iter().enumerate().skip(si) {
        if rows == n {
            break;
        }
        let name = names.text(&s.name);
        let from = if k == si { qi } else { 0 };
        for q in s.requests.iter().skip(from).take(n - rows) {
            session.append_value(&name);
            direction.append_value(q.direction.as_str());
            id_text.clear();
            q.id.write_json_text(&mut id_text);
            id.append_value(names.text(&id_text));
            method.append_option(q.method.as_deref().map(|m| names.text(m)));
            request_time.push(q.ts);
            response_time.push(q.response_ts);
            latency_ms.push(q.latency.map(ms));
            status.append_value(q.status().as_str());
            batch.push(q.batch.and_then(|(b, _)| int(batch_base + b as usize + 1)));
            position.push(q.batch.and_then(|(_, p)| int(p as usize)));
            response_position.push(q.response_position.and_then(|p| int(p as usize)));
            operation.append_option(
                q.op.and_then(|o| s.operations.get(o as usize))
                    .map(|o| o.key()),
            );
            rows += 1;
        }
        batch_base += s.batches.len();
    }
    DataFrame::new(
        n,
        vec![
            session.finish().into_column(),
            direction.finish().into_column(),
            id.finish().into_column(),
            method.finish().into_column(),
            time_col("request_time", request_time),
            time_col("response_time", response_time),
            float_col("latency_ms", latency_ms),
            status.finish().into_column(),
            int_col("batch", batch),
            int_col("position_in_batch", position),
            int_col("response_position", response_position),
            operation.finish().into_column(),
        ],
    )
}

/// The operations table: one row per operation of every session
/// (`analyze::operations`), in session order. `requests` counts its
/// requests (MRTR rounds; a task's request and its `tasks/*` requests),
/// `id` and `method` are its first request's; `total_ms` runs from its
/// first request to the response that ended it, `server_ms` sums an MRTR
/// operation's round latencies, `wait_ms` is the rest (the client's or a
/// person's time); each is empty where the capture does not bound it.
fn operations(a: &Analysis, names: &dyn Names) -> PolarsResult<DataFrame> {
    let n: usize = a.sessions.iter().map(|s| s.operations.len()).sum();
    let text = |name: &str| StringChunkedBuilder::new(name.into(), n);
    let (mut session, mut key, mut kind, mut state) = (
        text("session"),
        text("operation"),
        text("kind"),
        text("state"),
    );
    let (mut id, mut method) = (text("id"), text("method"));
    let mut requests = Vec::with_capacity(n);
    let mut notifications = Vec::with_capacity(n);
    let (mut start, mut end) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut total, mut server, mut wait) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let mut id_text = String::new();
    for s in &a.sessions {
        let name = names.text(&s.name);
        for o in &s.operations {
            session.append_value(&name);
            key.append_value(o.key());
            kind.append_value(o.kind.as_str());
            state.append_value(o.state.as_str());
            let first = o.requests.first().map(|&r| &s.requests[r as usize]);
            id_text.clear();
            if let Some(q) = first {
                q.id.write_json_text(&mut id_text);
            }
            id.append_option(first.map(|_| names.text(&id_text)));
            method.append_option(
                first
                    .and_then(|q| q.method.as_deref())
                    .map(|m| names.text(m)),
            );
            requests.push(int(o.requests.len()));
            notifications.push(int(o.notifications));
            let t = o.times(&s.requests);
            start.push(t.start);
            end.push(t.end);
            total.push(t.total.map(ms));
            server.push(t.server.map(ms));
            wait.push(t.wait.map(ms));
        }
    }
    DataFrame::new(
        n,
        vec![
            session.finish().into_column(),
            key.finish().into_column(),
            kind.finish().into_column(),
            state.finish().into_column(),
            id.finish().into_column(),
            method.finish().into_column(),
            int_col("requests", requests),
            int_col("notifications", notifications),
            time_col("start_time", start),
            time_col("end_time", end),
            float_col("total_ms", total),
            float_col("server_ms", server),
            float_col("wait_ms", wait),
        ],
    )
}

/// A latency row's key: which dimension, and its value there (`None`:
/// null, e.g. a request without a method).
enum Key {
    /// Every sample in one group.
    All,
    /// The request's method.
    Method(Option<String>),
    /// The session's server name.
    Server(Option<String>),
    /// The request's batch size, 0 outside batches.
    BatchSize(i64),
}

/// The latencies rule 10 counts (paired, not cancelled), grouped by
/// `key`: groups in key order, then the null key's group last.
fn grouped<'a, K: Ord>(
    a: &'a Analysis,
    key: impl Fn(&'a SessionResult, &'a Req) -> Option<K>,
) -> Vec<(Option<K>, Vec<Micros>)> {
    let mut by: BTreeMap<K, Vec<Micros>> = BTreeMap::new();
    let mut null = Vec::new();
    for s in &a.sessions {
        for q in s.requests.iter().filter(|q| !q.cancelled) {
            let Some(l) = q.latency else { continue };
            match key(s, q) {
                Some(k) => by.entry(k).or_default().push(l),
                None => null.push(l),
            }
        }
    }
    let mut out: Vec<(Option<K>, Vec<Micros>)> =
        by.into_iter().map(|(k, v)| (Some(k), v)).collect();
    if !null.is_empty() {
        out.push((None, null));
    }
    out
}

/// Groups keyed by a captured string, re-keyed by the string as the
/// tables hold it (two raw strings escaping alike are one group).
fn by_text(
    groups: Vec<(Option<&str>, Vec<Micros>)>,
    names: &dyn Names,
) -> Vec<(Option<String>, Vec<Micros>)> {
    let mut by: BTreeMap<String, Vec<Micros>> = BTreeMap::new();
    let mut null = Vec::new();
    for (k, v) in groups {
        match k {
            Some(k) => by.entry(names.text(k).into_owned()).or_default().extend(v),
            None => null = v,
        }
    }
    let mut out: Vec<(Option<String>, Vec<Micros>)> =
        by.into_iter().map(|(k, v)| (Some(k), v)).collect();
    if !null.is_empty() {
        out.push((None, null));
    }
    out
}

/// The latency table's columns, a row at a time.
#[derive(Default)]
struct LatencyRows {
    dimension: Vec<&'static str>,
    method: Vec<Option<String>>,
    server: Vec<Option<String>>,
    batch_size: Vec<Option<i64>>,
    count: Vec<Option<i64>>,
    quantiles: [Vec<Option<f64>>; 4],
    max: Vec<Option<f64>>,
}

impl LatencyRows {
    /// One row: `dimension`, its key, and the quantiles of `values`
    /// (`analyze::latency`); no row for no values.
    fn push(&mut self, dimension: &'static str, key: Key, values: Vec<Micros>) {
        let Some(sorted) = latency::Sorted::new(values) else {
            return;
        };
        let (mut method, mut server, mut batch_size) = (None, None, None);
        match key {
            Key::All => {}
            Key::Method(m) => method = m,
            Key::Server(s) => server = s,
            Key::BatchSize(b) => batch_size = Some(b),
        }
        self.dimension.push(dimension);
        self.method.push(method);
        self.server.push(server);
        self.batch_size.push(batch_size);
        self.count.push(int(sorted.count()));
        for (col, (_, permille)) in self.quantiles.iter_mut().zip(QUANTILES) {
            col.push(Some(sorted.quantile_ms(permille)));
        }
        self.max.push(Some(sorted.max_ms()));
    }

    fn frame(self) -> PolarsResult<DataFrame> {
        let n = self.dimension.len();
        let mut cols = vec![
            Column::new("dimension".into(), self.dimension),
            text_col("method", self.method),
            text_col("server", self.server),
            int_col("batch_size", self.batch_size),
            int_col("count", self.count),
        ];
        for (col, (name, _)) in self.quantiles.into_iter().zip(QUANTILES) {
            cols.push(float_col(name, col));
        }
        cols.push(float_col("max_ms", self.max));
        DataFrame::new(n, cols)
    }
}

/// The latency table: one row per `dimension` (`all`, `method`, `server`,
/// `batch_size`) and value, sorted by value, null last; the other
/// dimensions' columns are null.
fn latency(a: &Analysis, names: &dyn Names) -> PolarsResult<DataFrame> {
    let mut rows = LatencyRows::default();
    for (_, v) in grouped(a, |_, _| Some(())) {
        rows.push("all", Key::All, v);
    }
    let methods = grouped(a, |_, q| q.method.as_deref());
    for (k, v) in by_text(methods, names) {
        rows.push("method", Key::Method(k), v);
    }
    let servers = grouped(a, |s, _| s.server.as_ref().map(|(n, _)| n.as_str()));
    for (k, v) in by_text(servers, names) {
        rows.push("server", Key::Server(k), v);
    }
    let sizes = grouped(a, |s, q| {
        Some(
            q.batch
                .and_then(|(b, _)| s.batches.get(b as usize))
                .map_or(0, |b| b.size as i64),
        )
    });
    for (k, v) in sizes {
        rows.push("batch_size", Key::BatchSize(k.unwrap_or(0)), v);
    }
    rows.frame()
}

/// Per batch of the run, in order: its members' latencies (paired, not
/// cancelled).
fn member_latencies(a: &Analysis) -> Vec<Vec<Micros>> {
    let total: usize = a.sessions.iter().map(|s| s.batches.len()).sum();
    let mut out = vec![Vec::new(); total];
    let mut base = 0usize;
    for s in &a.sessions {
        for q in s.requests.iter().filter(|q| !q.cancelled) {
            if let (Some(l), Some((b, _))) = (q.latency, q.batch)
                && let Some(v) = out.get_mut(base + b as usize)
            {
                v.push(l);
            }
        }
        base += s.batches.len();
    }
    out
}

/// The batches table's columns, a row at a time.
#[derive(Default)]
struct BatchRows {
    number: Vec<Option<i64>>,
    session: Vec<Option<String>>,
    direction: Vec<Option<String>>,
    file: Vec<Option<String>>,
    line: Vec<Option<i64>>,
    entry: Vec<Option<i64>>,
    /// size, requests, notifications, responses, valid-id requests,
    /// linked, null-id and unknown-id responses.
    counts: [Vec<Option<i64>>; 8],
    order: Vec<Option<String>>,
    request_time: Vec<Option<Micros>>,
    completion: Vec<Option<f64>>,
    members: Vec<Option<i64>>,
    median_member: Vec<Option<f64>>,
    max_member: Vec<Option<f64>>,
}

/// The batches table's count columns, in [`BatchRows::counts`] order.
const BATCH_COUNTS: [&str; 8] = [
    "size",
    "requests",
    "notifications",
    "responses",
    "valid_id_requests",
    "linked_responses",
    "null_id_responses",
    "unknown_id_responses",
];

impl BatchRows {
    /// Batch `b` of session `s` (`name`, `input`: their names as the
    /// tables hold them), `members` its members' latencies.
    fn push(
        &mut self,
        s: &SessionResult,
        b: &Batch,
        (name, input): (&str, &str),
        members: Vec<Micros>,
        names: &dyn Names,
    ) {
        self.number.push(int(self.number.len() + 1));
        self.session.push(Some(name.to_string()));
        self.direction.push(Some(b.direction.as_str().to_string()));
        self.file.push(Some(input.to_string()));
        self.line.push(b.loc.line.and_then(int));
        self.entry.push(b.loc.entry.and_then(int));
        let counts = [
            b.size,
            b.all_requests,
            b.notifications,
            b.responses,
            b.reqs.len(),
            b.linked,
            b.null_id,
            b.unknown,
        ];
        for (col, v) in self.counts.iter_mut().zip(counts) {
            col.push(int(v));
        }
        let ids: Vec<String> = b
            .arrivals
            .iter()
            .filter_map(|&i| s.requests.get(*b.reqs.get(i)?))
            .map(|q| q.id.json_text())
            .collect();
        self.order
            .push(Some(names.text(&ids.join(" ")).into_owned()));
        self.request_time.push(b.ts);
        self.completion.push(match (b.ts, b.completed) {
            (Some(t0), Some(t1)) if t1 >= t0 => Some(ms(t1 - t0)),
            _ => None,
        });
        let sorted = latency::Sorted::new(members);
        self.members
            .push(sorted.as_ref().and_then(|m| int(m.count())));
        self.median_member
            .push(sorted.as_ref().map(latency::Sorted::median_ms));
        self.max_member
            .push(sorted.as_ref().map(latency::Sorted::max_ms));
    }

    fn frame(self) -> PolarsResult<DataFrame> {
        // Completion against the median member: how long the batch held its
        // caller, in units of a typical member (null when either is unknown or 0).
        let ratio: Vec<Option<f64>> = self
            .completion
            .iter()
            .zip(&self.median_member)
            .map(|(c, m)| match (*c, *m) {
                (Some(c), Some(m)) if m > 0.0 => Some(c / m),
                _ => None,
            })
            .collect();
        let mut cols = vec![
            int_col("batch", self.number),
            text_col("session", self.session),
            text_col("direction", self.direction),
            text_col("file", self.file),
            int_col("line", self.line),
            int_col("entry", self.entry),
        ];
        for (name, col) in BATCH_COUNTS.into_iter().zip(self.counts) {
            cols.push(int_col(name, col));
        }
        cols.extend([
            text_col("arrival_order", self.order),
            time_col("request_time", self.request_time),
            float_col("completion_ms", self.completion),
            int_col("member_latencies", self.members),
            float_col("median_member_ms", self.median_member),
            float_col("max_member_ms", self.max_member),
            float_col("completion_ratio", ratio),
        ]);
        DataFrame::new_infer_height(cols)
    }
}

/// One row per JSON array (`[]` included), in run order, with its member
/// latencies (count, median, max: `analyze::latency`).
fn batches(a: &Analysis, names: &dyn Names) -> PolarsResult<DataFrame> {
    let mut rows = BatchRows::default();
    let mut members = member_latencies(a).into_iter();
    for s in &a.sessions {
        let name = names.text(&s.name).into_owned();
        let input = names.text(names.input(s.input)).into_owned();
        for b in &s.batches {
            let m = members.next().unwrap_or_default();
            rows.push(s, b, (&name, &input), m, names);
        }
    }
    rows.frame()
}

/// The sessions table's integer columns, in [`session_numbers`] order.
const SESSION_INTS: [&str; 17] = [
    "messages",
    "requests",
    "notifications",
    "responses",
    "batches",
    "pairs",
    "non_json_lines",
    "findings",
    "batch_size_count",
    "batch_size_min",
    "batch_size_p50",
    "batch_size_max",
    "batch_response_count_mismatch",
    "batch_unknown_id_response",
    "batch_missing_response",
    "batch_null_id_response",
    "latency_count",
];

/// The sessions table's float columns, in [`session_numbers`] order.
const SESSION_FLOATS: [&str; 4] = [
    "latency_p50_ms",
    "latency_p90_ms",
    "latency_p99_ms",
    "latency_max_ms",
];

/// A session's counts, batch metrics and latency quantiles, as the
/// columns [`SESSION_INTS`] and [`SESSION_FLOATS`].
fn session_numbers(s: &SessionSummary) -> ([Option<i64>; 17], [Option<f64>; 4]) {
    let t = &s.totals;
    let m = &s.metrics;
    let lat = s.latency_ms;
    let ints = [
        int(t.messages),
        int(t.requests),
        int(t.notifications),
        int(t.responses),
        int(t.batches),
        int(t.pairs),
        int(t.non_json_lines),
        int(s.findings_by_kind.values().sum::<u64>()),
        int(m.size.count),
        m.size.min.and_then(int),
        m.size.p50.and_then(int),
        m.size.max.and_then(int),
        int(m.response_count_mismatch),
        int(m.unknown_id_response),
        int(m.missing_response),
        int(m.null_id_response),
        int(lat.map_or(0, |q| q.count)),
    ];
    let floats = [
        lat.map(|q| q.p50),
        lat.map(|q| q.p90),
        lat.map(|q| q.p99),
        lat.map(|q| q.max),
    ];
    (ints, floats)
}

/// One row per session: who, counts, batch metrics, latency.
fn sessions(summaries: &[SessionSummary], names: &dyn Names) -> PolarsResult<DataFrame> {
    let n = summaries.len();
    let mut session = Vec::with_capacity(n);
    let mut file = Vec::with_capacity(n);
    let mut traffic = Vec::with_capacity(n);
    let (mut server, mut version, mut revision) = (vec![], vec![], vec![]);
    let mut ints: Vec<Vec<Option<i64>>> = vec![Vec::with_capacity(n); SESSION_INTS.len()];
    let mut floats: Vec<Vec<Option<f64>>> = vec![Vec::with_capacity(n); SESSION_FLOATS.len()];
    let text = |s: &str| Some(names.text(s).into_owned());
    for s in summaries {
        session.push(text(&s.name));
        file.push(text(names.input(s.input)));
        traffic.push(s.totals.sessions > 0);
        server.push(s.server.as_ref().and_then(|x| text(&x.name)));
        version.push(s.server.as_ref().and_then(|x| text(&x.version)));
        revision.push(s.revision.as_deref().and_then(text));
        let (i, f) = session_numbers(s);
        for (col, v) in ints.iter_mut().zip(i) {
            col.push(v);
        }
        for (col, v) in floats.iter_mut().zip(f) {
            col.push(v);
        }
    }
    let mut cols = vec![
        text_col("session", session),
        text_col("file", file),
        bool_col("traffic", traffic),
        text_col("server", server),
        text_col("server_version", version),
        text_col("revision", revision),
    ];
    cols.extend(SESSION_INTS.iter().zip(ints).map(|(c, v)| int_col(c, v)));
    cols.extend(
        SESSION_FLOATS
            .iter()
            .zip(floats)
            .map(|(c, v)| float_col(c, v)),
    );
    DataFrame::new(n, cols)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{Batch, Req, SessionResult};

    use crate::record::{Direction, Id, Location};

    struct Plain;
    impl Names for Plain {
        fn input(&self, _: usize) -> &str {
            "in.log"
        }
        fn file(&self, _: u32) -> &str {
            "in.log"
        }
        fn text<'s>(&self, s: &'s str) -> Cow<'s, str> {
            Cow::Borrowed(s)
        }
    }

    fn req(id: i64, method: &str, latency_us: Option<Micros>, batch: Option<(u32, u32)>) -> Req {
        let mut q = Req::new(Id::Int(id.into()), Direction::C2s);
        q.method = Some(method.into());
        q.ts = Some(1_000_000);
        q.response_ts = latency_us.map(|l| 1_000_000 + l);
        q.latency = latency_us;
        q.answered = latency_us.is_some();
        q.batch = batch;
        q
    }

    fn batch(size: usize, reqs: Vec<usize>, ts: Micros, completed: Micros) -> Batch {
        Batch {
            direction: Direction::C2s,
            ids: vec![],
            size,
            reqs: reqs.clone(),
            all_requests: size,
            notifications: 0,
            responses: 0,
            arrivals: (0..reqs.len()).collect(),
            linked: reqs.len(),
            null_id: 0,
            unknown: 0,
            notification_only: false,
            loc: Location::default(),
            evidence: (0, 0),
            file: 0,
            reply: None,
            ts: Some(ts),
            completed: Some(completed),
            well_formed: true,
            rejection: None,
            bare_reply: None,
        }
    }

    /// Session `a` (server "alpha"): tools/call 1..=10 ms outside batches,
    /// then a batch of 3 (2, 4, 30 ms) and one cancelled request (500 ms);
    /// session `b` (no server): ping 7 ms and one missing.
    fn analysis() -> Analysis {
        let mut a = SessionResult {
            name: "a".into(),
            server: Some(("alpha".into(), "1.0".into())),
            ..Default::default()
        };
        for i in 1..=10 {
            a.requests.push(req(i, "tools/call", Some(i * 1000), None));
        }
        a.requests
            .push(req(11, "resources/read", Some(2000), Some((0, 0))));
        a.requests
            .push(req(12, "resources/read", Some(4000), Some((0, 1))));
        a.requests
            .push(req(13, "resources/read", Some(30_000), Some((0, 2))));
        a.batches
            .push(batch(3, vec![10, 11, 12], 1_000_000, 1_030_000));
        let mut c = req(14, "tools/call", Some(500_000), None);
        c.cancelled = true;
        a.requests.push(c);
        let mut b = SessionResult {
            name: "b".into(),
            input: 0,
            ..Default::default()
        };
        b.requests.push(req(1, "ping", Some(7000), None));
        b.requests.push(req(2, "ping", None, None));
        Analysis {
            sessions: vec![a, b],
            ..Default::default()
        }
    }

    fn row(df: &DataFrame, dimension: &str, key: &str, value: AnyValue<'_>) -> Vec<f64> {
        let dims = df.column("dimension").unwrap().str().unwrap().clone();
        let keys = df.column(key).unwrap().as_materialized_series().clone();
        let i = (0..df.height())
            .find(|&i| dims.get(i) == Some(dimension) && keys.get(i).unwrap() == value)
            .unwrap_or_else(|| panic!("no {dimension} row {value:?}"));
        let mut out = vec![df.column("count").unwrap().i64().unwrap().get(i).unwrap() as f64];
        for c in ["p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms"] {
            out.push(df.column(c).unwrap().f64().unwrap().get(i).unwrap());
        }
        out
    }

    #[test]
    fn quantiles_by_hand() {
        let a = analysis();
        let t = build(&a, &a.session_summaries(), &Plain).unwrap();
        let l = &t.latency;
        // tools/call: 1..=10 ms (the cancelled 500 ms left out): p50 rank 5,
        // p90 rank 9, p99 rank ceil(9.9) = 10, p99.9 rank 10.
        assert_eq!(
            row(l, "method", "method", AnyValue::String("tools/call")),
            vec![10.0, 5.0, 9.0, 10.0, 10.0, 10.0]
        );
        // resources/read: 2, 4, 30 ms: p50 rank ceil(1.5) = 2 → 4 ms.
        assert_eq!(
            row(l, "method", "method", AnyValue::String("resources/read")),
            vec![3.0, 4.0, 30.0, 30.0, 30.0, 30.0]
        );
        assert_eq!(
            row(l, "method", "method", AnyValue::String("ping")),
            vec![1.0, 7.0, 7.0, 7.0, 7.0, 7.0]
        );
        // server alpha: 1..=10, 2, 4, 30 (13 values): sorted 1,2,2,3,4,4,5,6,7,8,9,10,30;
        // p50 rank 7 → 5, p90 rank ceil(11.7) = 12 → 10, p99 rank 13 → 30.
        assert_eq!(
            row(l, "server", "server", AnyValue::String("alpha")),
            vec![13.0, 5.0, 10.0, 30.0, 30.0, 30.0]
        );
        // session b has no server: its row has a null server.
        assert_eq!(
            row(l, "server", "server", AnyValue::Null),
            vec![1.0, 7.0, 7.0, 7.0, 7.0, 7.0]
        );
        // batch size 0 = outside batches: 1..=10 and 7, sorted 1,2,3,4,5,6,7,7,8,9,10:
        // p50 rank ceil(5.5) = 6 → 6; p90 rank ceil(9.9) = 10 → 9; p99 rank 11 → 10.
        assert_eq!(
            row(l, "batch_size", "batch_size", AnyValue::Int64(0)),
            vec![11.0, 6.0, 9.0, 10.0, 10.0, 10.0]
        );
        assert_eq!(
            row(l, "batch_size", "batch_size", AnyValue::Int64(3)),
            vec![3.0, 4.0, 30.0, 30.0, 30.0, 30.0]
        );
        // all: 14 values, sorted 1,2,2,3,4,4,5,6,7,7,8,9,10,30: p50 rank 7 → 5;
        // p90 rank ceil(12.6) = 13 → 10; p99 and p99.9 rank 14 → 30.
        assert_eq!(
            row(l, "all", "dimension", AnyValue::String("all")),
            vec![14.0, 5.0, 10.0, 30.0, 30.0, 30.0]
        );
    }

    #[test]
    fn overall_row_equals_summary_latency() {
        let mut a = analysis();
        let lat: Vec<Micros> = a.sessions.iter().flat_map(|s| s.latencies()).collect();
        a.latency = crate::analyze::latency::quantiles(&lat);
        let t = build(&a, &a.session_summaries(), &Plain).unwrap();
        let l = &t.latency;
        let dims = l.column("dimension").unwrap().str().unwrap().clone();
        let i = (0..l.height())
            .find(|&i| dims.get(i) == Some("all"))
            .unwrap();
        let get = |c: &str| l.column(c).unwrap().f64().unwrap().get(i).unwrap();
        let q = a.latency.unwrap();
        assert_eq!(
            (get("p50_ms"), get("p90_ms"), get("p99_ms"), get("max_ms")),
            (q.p50, q.p90, q.p99, q.max)
        );
        assert_eq!(
            (get("p50_ms"), get("p90_ms"), get("p99_ms")),
            (5.0, 10.0, 30.0)
        );
        assert_eq!(
            l.column("count").unwrap().i64().unwrap().get(i),
            Some(q.count as i64)
        );
    }

    #[test]
    fn batch_completion_against_median_member() {
        let a = analysis();
        let t = build(&a, &a.session_summaries(), &Plain).unwrap();
        let b = &t.batches;
        let f = |c: &str| b.column(c).unwrap().f64().unwrap().get(0);
        // Members 2, 4, 30 ms: median 4, max 30; completion 30 ms → ratio 7.5.
        assert_eq!(
            (
                f("completion_ms"),
                f("median_member_ms"),
                f("max_member_ms"),
                f("completion_ratio")
            ),
            (Some(30.0), Some(4.0), Some(30.0), Some(7.5))
        );
        assert_eq!(
            b.column("member_latencies").unwrap().i64().unwrap().get(0),
            Some(3)
        );
    }

    #[test]
    fn even_median_is_the_mean_of_the_middle_two() {
        let mut a = analysis();
        let s = &mut a.sessions[0];
        s.requests[12].latency = None; // members 2 and 4 ms left
        let t = build(&a, &a.session_summaries(), &Plain).unwrap();
        assert_eq!(
            t.batches
                .column("median_member_ms")
                .unwrap()
                .f64()
                .unwrap()
                .get(0),
            Some(3.0)
        );
        assert_eq!(
            t.batches
                .column("median_member_ms")
                .unwrap()
                .f64()
                .unwrap()
                .get(0)
                .map(|m| m * 1000.0),
            Some(crate::analyze::latency::median(&[2000, 4000]))
        );
    }

    #[test]
    fn pairs_and_csv_text() {
        let a = analysis();
        let t = build(&a, &a.session_summaries(), &Plain).unwrap();
        let pairs = t.whole("pairs").unwrap();
        let names: Vec<&str> = pairs
            .get_column_names()
            .into_iter()
            .map(|c| c.as_str())
            .collect();
        assert_eq!(names, PAIRS_COLUMNS.to_vec());
        assert_eq!(pairs.height(), 16);
        let mut csv = Vec::new();
        crate::report::csv::write_frame(&pairs, &PAIRS_COLUMNS, false, &mut csv).unwrap();
        let rows: Vec<Vec<&str>> = std::str::from_utf8(&csv)
            .unwrap()
            .lines()
            .map(|l| l.split(',').collect())
            .collect();
        let col = |c: &str, i: usize| {
            let k = PAIRS_COLUMNS.iter().position(|n| *n == c).unwrap();
            Some(rows[i][k].to_string()).filter(|v| !v.is_empty())
        };
        assert_eq!(
            col("request_time", 0).as_deref(),
            Some("1970-01-01T00:00:01.000000Z")
        );
        assert_eq!(col("latency_ms", 0).as_deref(), Some("1"));
        assert_eq!(col("batch", 10).as_deref(), Some("1"));
        assert_eq!(col("batch", 0), None);
        assert_eq!(col("status", 13).as_deref(), Some("cancelled"));
        assert_eq!(col("status", 15).as_deref(), Some("missing"));
        assert_eq!(col("response_time", 15), None);
    }

    #[test]
    fn pairs_frames_split_at_chunk_rows_across_sessions() {
        // Sessions of C-1, 1, C+1 and 0 requests: frames of C, C and 1
        // rows, the second starting exactly at the third session's first.
        const C: usize = CHUNK_ROWS;
        let mut a = Analysis::default();
        let mut next = 0i64;
        for (k, n) in [C - 1, 1, C + 1, 0].into_iter().enumerate() {
            let mut s = SessionResult {
                name: format!("s{k}"),
                ..Default::default()
            };
            for i in 0..n {
                let batch = (k == 2 && i == 0).then_some((0, 0));
                s.requests.push(req(next, "ping", None, batch));
                next += 1;
            }
            if k == 0 || k == 2 {
                s.batches.push(batch(1, vec![0], 1_000_000, 1_000_000));
            }
            a.sessions.push(s);
        }
        let t = build(&a, &a.session_summaries(), &Plain).unwrap();
        let frames: Vec<DataFrame> = t.frames("pairs").unwrap().map(Result::unwrap).collect();
        let heights: Vec<usize> = frames.iter().map(DataFrame::height).collect();
        assert_eq!(heights, vec![C, C, 1]);
        let whole = t.whole("pairs").unwrap();
        let ids: Vec<String> = whole
            .column("id")
            .unwrap()
            .str()
            .unwrap()
            .iter()
            .map(|s| s.unwrap().to_string())
            .collect();
        let want: Vec<String> = (0..next).map(|i| i.to_string()).collect();
        assert_eq!(ids, want, "every request once, in order");
        // The third session's first request is in the run's second batch.
        let b = frames[1].column("batch").unwrap().i64().unwrap().clone();
        assert_eq!((b.get(0), b.get(1)), (Some(2), None));
        let s = frames[1].column("session").unwrap().str().unwrap().clone();
        assert_eq!(s.get(0), Some("s2"));
    }

    #[test]
    fn sessions_table_counts() {
        let a = analysis();
        let t = build(&a, &a.session_summaries(), &Plain).unwrap();
        assert_eq!(t.sessions.height(), 2);
        let lc = t
            .sessions
            .column("latency_count")
            .unwrap()
            .i64()
            .unwrap()
            .clone();
        assert_eq!((lc.get(0), lc.get(1)), (Some(13), Some(1)));
        assert_eq!(
            t.sessions
                .column("batch_size_count")
                .unwrap()
                .i64()
                .unwrap()
                .get(0),
            Some(1)
        );
    }

    #[test]
    fn empty_analysis_gives_empty_typed_tables() {
        let a = Analysis::default();
        let t = build(&a, &[], &Plain).unwrap();
        for name in TABLES {
            let frames: Vec<DataFrame> = t.frames(name).unwrap().map(Result::unwrap).collect();
            assert_eq!(frames.len(), 1, "{name}: one empty frame");
            assert_eq!(frames[0].height(), 0, "{name}");
        }
        assert_eq!(
            t.batches.column("median_member_ms").unwrap().dtype(),
            &DataType::Float64
        );
        assert_eq!(
            t.latency.column("p999_ms").unwrap().dtype(),
            &DataType::Float64
        );
    }
}
