//! Tables: an [`Analysis`] as polars DataFrames, the only place they are
//! built (STYLE.md house rule 7). Inputs: the analysis, its per-session
//! summaries and the run's names; outputs: the `findings`, `pairs`,
//! `batches`, `latency` and `sessions` tables that `report::csv` and
//! `report::parquet` write (columns, types and units: `reports/SCHEMA.md`).
//!
//! Aggregations run in polars' eager API (no `lazy` feature, which would
//! double the build): latency quantiles per method, per server and per
//! batch size through `group_by`, and each batch's member latencies (count,
//! median, max) joined to the batches table. Quantiles are polars'
//! `Equiprobable` method, which is exactly DESIGN.md rule 10's nearest rank
//! (the value at 1-based rank ceil(q·n)), computed on integer microseconds
//! and turned into milliseconds as `analyze::latency` does, so every number
//! here equals summary.json's where both exist.

use std::borrow::Cow;

use polars::prelude::*;

use super::{Analysis, Finding, SessionSummary};
use crate::record::Micros;
use crate::record::time::format_rfc3339;

/// `pairs.csv`'s columns, in DESIGN.md's order (the pairs table has exactly these).
pub const PAIRS_COLUMNS: [&str; 11] = [
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
pub trait Names {
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
pub const TABLES: [&str; 5] = ["findings", "pairs", "batches", "latency", "sessions"];

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
    /// One row per JSON array with members, with its member latencies.
    pub batches: DataFrame,
    /// Latency quantiles: overall, per method, per server, per batch size.
    pub latency: DataFrame,
    /// One row per session: who, counts, batch metrics, latency.
    pub sessions: DataFrame,
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
    let batches = batches(a, names)?;
    let latency = latency(a, names)?;
    let sessions = sessions(summaries, names)?;
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
        severity.push(Some(f.kind.severity().as_str().to_string()));
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
        ],
    )
}

/// What latency samples are grouped by.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    /// Every sample in one group (`all`, a constant column).
    All,
    /// The request's method (null when it has none).
    Method,
    /// The session's server name (null when unknown).
    Server,
    /// The request's batch size, 0 outside batches.
    BatchSize,
    /// The 1-based number of the request's batch; members only.
    Batch,
}

impl Key {
    fn column(self) -> &'static str {
        match self {
            Key::All => "all",
            Key::Method => "method",
            Key::Server => "server",
            Key::BatchSize => "batch_size",
            Key::Batch => "batch",
        }
    }
}

/// The latencies rule 10 counts (paired, not cancelled, both times known),
/// one row each in request order: the `key` column and `latency_us`. Two
/// columns only, one key at a time: this is what the aggregations hold.
/// Methods and servers are grouped by a `UInt32` code, an index into the
/// returned names (a string column would copy each long name per row);
/// [`decode`] turns the codes of a result back into the names.
fn samples(a: &Analysis, names: &dyn Names, key: Key) -> PolarsResult<(DataFrame, Vec<String>)> {
    let live = |q: &&crate::analyze::Req| {
        q.latency.is_some() && !q.cancelled && (key != Key::Batch || q.batch.is_some())
    };
    let n: usize = a
        .sessions
        .iter()
        .map(|s| s.requests.iter().filter(live).count())
        .sum();
    let mut codes = PrimitiveChunkedBuilder::<UInt32Type>::new(key.column().into(), n);
    let mut known: Vec<String> = Vec::new();
    let mut index: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut code = |s: &str| -> u32 {
        if let Some(&c) = index.get(s) {
            return c;
        }
        let c = u32::try_from(known.len()).unwrap_or(u32::MAX);
        known.push(s.to_string());
        index.insert(s.to_string(), c);
        c
    };
    let mut ints = PrimitiveChunkedBuilder::<Int64Type>::new(key.column().into(), n);
    let mut latency_us = PrimitiveChunkedBuilder::<Int64Type>::new("latency_us".into(), n);
    let mut batch_base = 0usize;
    for s in &a.sessions {
        let srv = s.server.as_ref().map(|(n, _)| names.text(n));
        let srv_code = srv.as_deref().map(&mut code);
        for q in s.requests.iter().filter(live) {
            match key {
                Key::All => {}
                Key::Method => {
                    codes.append_option(q.method.as_deref().map(|m| code(&names.text(m))))
                }
                Key::Server => codes.append_option(srv_code),
                Key::BatchSize => ints.append_value(
                    q.batch
                        .and_then(|(b, _)| s.batches.get(b as usize))
                        .map_or(0, |b| b.size as i64),
                ),
                Key::Batch => {
                    ints.append_option(q.batch.and_then(|(b, _)| int(batch_base + b as usize + 1)))
                }
            }
            latency_us.append_option(q.latency);
        }
        batch_base += s.batches.len();
    }
    let key_col = match key {
        Key::All => Column::new_scalar(
            "all".into(),
            Scalar::new(DataType::String, AnyValue::StringOwned("all".into())),
            n,
        ),
        Key::Method | Key::Server => codes.finish().into_column(),
        Key::BatchSize | Key::Batch => ints.finish().into_column(),
    };
    let df = DataFrame::new(n, vec![key_col, latency_us.finish().into_column()])?;
    Ok((df, known))
}

/// A result's `key` column of codes (see [`samples`]) as the names they
/// stand for (null stays null), rows sorted by name, nulls last.
fn decode(df: DataFrame, key: &str, known: &[String]) -> PolarsResult<DataFrame> {
    let text: StringChunked = df
        .column(key)?
        .u32()?
        .iter()
        .map(|c| c.and_then(|c| known.get(c as usize)).map(String::as_str))
        .collect();
    let mut df = df;
    df.with_column(text.with_name(key.into()).into_column())?;
    df.sort([key], SortMultipleOptions::default().with_nulls_last(true))
}

/// µs (integer or float) → ms as Float64, as `analyze::latency` converts.
fn to_ms(c: &Column, name: &str) -> PolarsResult<Column> {
    let f = c.cast(&DataType::Float64)?;
    let v: Float64Chunked = f.f64()?.iter().map(|o| o.map(|x| x / 1000.0)).collect();
    Ok(v.with_name(name.into()).into_column())
}

/// Exact nearest-rank quantiles, count and max of `latency_us` per value
/// of `key`: `key`, `count`, `p50_ms` … `p999_ms`, `max_ms`, sorted by key.
// The eager GroupBy aggregations are deprecated in favour of the lazy API;
// the lazy feature would double the build for four aggregations.
#[allow(deprecated)]
fn quantiles_by(samples: &DataFrame, key: &str) -> PolarsResult<DataFrame> {
    let gb = samples.group_by([key])?;
    let g = gb.select(["latency_us"]);
    let counted = g.count()?;
    let mut cols = vec![
        counted
            .select_at_idx(0)
            .cloned()
            .ok_or_else(|| polars_err!(ComputeError: "no key"))?,
    ];
    let count = counted
        .select_at_idx(1)
        .ok_or_else(|| polars_err!(ComputeError: "no count"))?;
    cols.push(count.cast(&DataType::Int64)?.with_name("count".into()));
    for (name, permille) in QUANTILES {
        let q = g.quantile(permille as f64 / 1000.0, QuantileMethod::Equiprobable)?;
        cols.push(to_ms(
            q.select_at_idx(1)
                .ok_or_else(|| polars_err!(ComputeError: "no quantile"))?,
            name,
        )?);
    }
    let max = g.max()?;
    cols.push(to_ms(
        max.select_at_idx(1)
            .ok_or_else(|| polars_err!(ComputeError: "no max"))?,
        "max_ms",
    )?);
    let df = DataFrame::new_infer_height(cols)?;
    df.sort([key], SortMultipleOptions::default().with_nulls_last(true))
}

/// The latency table: one row per `dimension` (`all`, `method`, `server`,
/// `batch_size`) and value; the other dimensions' columns are null.
fn latency(a: &Analysis, names: &dyn Names) -> PolarsResult<DataFrame> {
    let dims = ["all", "method", "server", "batch_size"];
    let key_cols: [(&str, DataType); 3] = [
        ("method", DataType::String),
        ("server", DataType::String),
        ("batch_size", DataType::Int64),
    ];
    let mut out: Option<DataFrame> = None;
    for dimension in dims {
        // The `all` dimension groups by the samples' constant `all` column.
        let key = dimension;
        let k = match dimension {
            "all" => Key::All,
            "method" => Key::Method,
            "server" => Key::Server,
            _ => Key::BatchSize,
        };
        let (samples, known) = samples(a, names, k)?;
        let mut q = quantiles_by(&samples, key)?;
        drop(samples);
        if matches!(k, Key::Method | Key::Server) {
            q = decode(q, key, &known)?;
        }
        let h = q.height();
        let mut cols = vec![Column::new_scalar(
            "dimension".into(),
            Scalar::new(DataType::String, AnyValue::StringOwned(dimension.into())),
            h,
        )];
        for (k, dt) in &key_cols {
            if *k == key {
                cols.push(q.column(k)?.clone());
            } else {
                cols.push(Column::full_null((*k).into(), h, dt));
            }
        }
        for c in ["count", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms"] {
            cols.push(q.column(c)?.clone());
        }
        let df = DataFrame::new(h, cols)?;
        match &mut out {
            None => out = Some(df),
            Some(o) => {
                o.vstack_mut_owned(df)?;
            }
        }
    }
    let mut out = out.unwrap_or_default();
    out.rechunk_mut();
    Ok(out)
}

/// Per batch: member latencies (count), their median and max (ms).
#[allow(deprecated)] // eager GroupBy aggregations, see `quantiles_by`
fn member_latency(a: &Analysis, names: &dyn Names) -> PolarsResult<DataFrame> {
    let (members, _) = samples(a, names, Key::Batch)?;
    let gb = members.group_by(["batch"])?;
    let g = gb.select(["latency_us"]);
    let counted = g.count()?;
    let median = g.median()?;
    let max = g.max()?;
    let pick = |df: &DataFrame, i: usize| {
        df.select_at_idx(i)
            .cloned()
            .ok_or_else(|| polars_err!(ComputeError: "missing column"))
    };
    DataFrame::new_infer_height(vec![
        pick(&counted, 0)?,
        pick(&counted, 1)?
            .cast(&DataType::Int64)?
            .with_name("member_latencies".into()),
        to_ms(&pick(&median, 1)?, "median_member_ms")?,
        to_ms(&pick(&max, 1)?, "max_member_ms")?,
    ])
}

fn batches(a: &Analysis, names: &dyn Names) -> PolarsResult<DataFrame> {
    let n: usize = a.sessions.iter().map(|s| s.batches.len()).sum();
    let mut number = Vec::with_capacity(n);
    let mut session = Vec::with_capacity(n);
    let mut direction = Vec::with_capacity(n);
    let mut file = Vec::with_capacity(n);
    let (mut line, mut entry) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut size, mut requests, mut notifications, mut responses) =
        (vec![], vec![], vec![], vec![]);
    let (mut valid, mut linked, mut null_id, mut unknown) = (vec![], vec![], vec![], vec![]);
    let (mut order, mut request_time, mut completion) = (vec![], vec![], vec![]);
    for s in &a.sessions {
        let name = names.text(&s.name).into_owned();
        let input = names.text(names.input(s.input)).into_owned();
        for b in &s.batches {
            number.push(int(number.len() + 1));
            session.push(Some(name.clone()));
            direction.push(Some(b.direction.as_str().to_string()));
            file.push(Some(input.clone()));
            line.push(b.loc.line.and_then(int));
            entry.push(b.loc.entry.and_then(int));
            size.push(int(b.size));
            requests.push(int(b.all_requests));
            notifications.push(int(b.notifications));
            responses.push(int(b.responses));
            valid.push(int(b.reqs.len()));
            linked.push(int(b.linked));
            null_id.push(int(b.null_id));
            unknown.push(int(b.unknown));
            let ids: Vec<String> = b
                .arrivals
                .iter()
                .filter_map(|&i| s.requests.get(*b.reqs.get(i)?))
                .map(|q| q.id.json_text())
                .collect();
            order.push(Some(names.text(&ids.join(" ")).into_owned()));
            request_time.push(b.ts);
            completion.push(match (b.ts, b.completed) {
                (Some(t0), Some(t1)) if t1 >= t0 => Some(ms(t1 - t0)),
                _ => None,
            });
        }
    }
    let table = DataFrame::new(
        n,
        vec![
            int_col("batch", number),
            text_col("session", session),
            text_col("direction", direction),
            text_col("file", file),
            int_col("line", line),
            int_col("entry", entry),
            int_col("size", size),
            int_col("requests", requests),
            int_col("notifications", notifications),
            int_col("responses", responses),
            int_col("valid_id_requests", valid),
            int_col("linked_responses", linked),
            int_col("null_id_responses", null_id),
            int_col("unknown_id_responses", unknown),
            text_col("arrival_order", order),
            time_col("request_time", request_time),
            float_col("completion_ms", completion),
        ],
    )?;
    let mut joined = table
        .left_join(&member_latency(a, names)?, ["batch"], ["batch"])?
        .sort(["batch"], SortMultipleOptions::default())?;
    // Completion against the median member: how long the batch held its
    // caller, in units of a typical member (null when either is unknown or 0).
    let ratio: Float64Chunked = joined
        .column("completion_ms")?
        .f64()?
        .iter()
        .zip(joined.column("median_member_ms")?.f64()?.iter())
        .map(|(c, m)| match (c, m) {
            (Some(c), Some(m)) if m > 0.0 => Some(c / m),
            _ => None,
        })
        .collect();
    joined.with_column(ratio.with_name("completion_ratio".into()).into_column())?;
    Ok(joined)
}

fn sessions(summaries: &[SessionSummary], names: &dyn Names) -> PolarsResult<DataFrame> {
    let n = summaries.len();
    let mut session = Vec::with_capacity(n);
    let mut file = Vec::with_capacity(n);
    let mut traffic = Vec::with_capacity(n);
    let (mut server, mut version, mut revision) = (vec![], vec![], vec![]);
    let mut ints: Vec<(&str, Vec<Option<i64>>)> = [
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
    ]
    .into_iter()
    .map(|c| (c, Vec::with_capacity(n)))
    .collect();
    let mut floats: Vec<(&str, Vec<Option<f64>>)> = [
        "latency_p50_ms",
        "latency_p90_ms",
        "latency_p99_ms",
        "latency_max_ms",
    ]
    .into_iter()
    .map(|c| (c, Vec::with_capacity(n)))
    .collect();
    for s in summaries {
        session.push(Some(names.text(&s.name).into_owned()));
        file.push(Some(names.text(names.input(s.input)).into_owned()));
        traffic.push(s.totals.sessions > 0);
        server.push(s.server.as_ref().map(|x| names.text(&x.name).into_owned()));
        version.push(
            s.server
                .as_ref()
                .map(|x| names.text(&x.version).into_owned()),
        );
        revision.push(s.revision.as_deref().map(|x| names.text(x).into_owned()));
        let t = &s.totals;
        let m = &s.metrics;
        let values = [
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
            int(s.latency_ms.map_or(0, |q| q.count)),
        ];
        for ((_, col), v) in ints.iter_mut().zip(values) {
            col.push(v);
        }
        let lat = s.latency_ms;
        let values = [
            lat.map(|q| q.p50),
            lat.map(|q| q.p90),
            lat.map(|q| q.p99),
            lat.map(|q| q.max),
        ];
        for ((_, col), v) in floats.iter_mut().zip(values) {
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
    cols.extend(ints.into_iter().map(|(c, v)| int_col(c, v)));
    cols.extend(floats.into_iter().map(|(c, v)| float_col(c, v)));
    DataFrame::new(n, cols)
}

/// A table as CSV text: every column a string in the outputs' formats
/// (integers in decimal, milliseconds as Rust prints an `f64`, times RFC
/// 3339 UTC with µs), empty strings and nulls both written empty.
pub fn csv_text(df: &DataFrame, columns: &[&str]) -> PolarsResult<DataFrame> {
    let height = df.height();
    let mut out = Vec::with_capacity(columns.len());
    let mut buf = String::new();
    for &name in columns {
        let c = df.column(name)?;
        let mut b = StringChunkedBuilder::new(name.into(), height);
        let mut put = |v| csv_cell(&mut b, &mut buf, v);
        match c.dtype() {
            DataType::String => c.str()?.iter().for_each(|o| put(o.map(Cell::Str))),
            DataType::Int64 => c.i64()?.iter().for_each(|o| put(o.map(Cell::Int))),
            DataType::Float64 => c.f64()?.iter().for_each(|o| put(o.map(Cell::Float))),
            DataType::Boolean => c.bool()?.iter().for_each(|o| put(o.map(Cell::Bool))),
            DataType::Datetime(TimeUnit::Microseconds, _) => {
                let us = c.cast(&DataType::Int64)?;
                us.i64()?.iter().for_each(|o| put(o.map(Cell::Time)))
            }
            other => polars_bail!(ComputeError: "column {name}: no CSV text for {other}"),
        };
        out.push(b.finish().into_column());
    }
    DataFrame::new(height, out)
}

/// One CSV cell's value before it is text.
enum Cell<'s> {
    Str(&'s str),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// µs since the epoch.
    Time(Micros),
}

/// Appends `v` as text to `b` (formatted in `buf`, reused: no String per
/// cell), empty text as null; integers, floats and booleans as
/// `to_string` writes them, times by `format_rfc3339`.
fn csv_cell(b: &mut StringChunkedBuilder, buf: &mut String, v: Option<Cell<'_>>) {
    use std::fmt::Write as _;
    buf.clear();
    let _ = match v {
        None => Ok(()),
        Some(Cell::Str(s)) => buf.write_str(s),
        Some(Cell::Int(x)) => write!(buf, "{x}"),
        Some(Cell::Float(x)) => write!(buf, "{x}"),
        Some(Cell::Bool(x)) => write!(buf, "{x}"),
        Some(Cell::Time(t)) => buf.write_str(&format_rfc3339(t)),
    };
    if buf.is_empty() {
        b.append_null();
    } else {
        b.append_value(buf.as_str());
    }
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
        let text = csv_text(&pairs, &PAIRS_COLUMNS).unwrap();
        let col = |c: &str, i: usize| {
            text.column(c)
                .unwrap()
                .str()
                .unwrap()
                .get(i)
                .map(str::to_string)
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
