//! The bad-input matrix (issue 6): each bad input runs through the real
//! binary together with a good capture (b01), under a time limit. Every
//! case checks the exact stderr line(s) and exit code, that nothing
//! panicked, and that b01's findings are still in summary.json.
//!
//! Two cases generate hundreds of megabytes and take long: the million-entry
//! HAR (≈ 40 s, 2.3 GB RSS in release on the 2-core machine) is
//! `#[ignore]`d; run it with `cargo test --release --test suite matrix:: -- --ignored`.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{out_dir, root};
use serde_json::Value;

const GOOD: &str = "tests/data/cases/b01_batch_reordered_by_balancer.har";
/// No case may run longer than this (a hang fails the test, it does not
/// stall CI).
const LIMIT: Duration = Duration::from_secs(120);

fn good() -> PathBuf {
    root().join(GOOD)
}

/// What one run left behind.
struct Run {
    code: Option<i32>,
    stderr: String,
    summary: Value,
    elapsed: Duration,
    /// Peak resident memory of the child in KiB (VmHWM, read while it ran).
    peak_kib: u64,
}

/// Runs `mcp-audit analyze ARGS --out DIR -q` with stdout/stderr in files,
/// killing it after [`LIMIT`].
fn run_with(name: &str, cmd: Command, args: &[&Path]) -> Run {
    run_in(name, cmd, args, out_dir(name))
}

/// [`run_with`] writing to `out`.
fn run_in(name: &str, mut cmd: Command, args: &[&Path], out: PathBuf) -> Run {
    let err_path = out.with_extension("stderr");
    let err_file = std::fs::File::create(&err_path).expect("stderr file");
    cmd.arg("analyze")
        .args(args)
        .arg("--out")
        .arg(&out)
        .arg("-q");
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err_file);
    let start = Instant::now();
    let mut child = cmd.spawn().expect("run mcp-audit");
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if let Ok(s) = std::fs::read_to_string(&status_path)
            && let Some(kib) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        {
            peak_kib = kib;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{name}: still running after {LIMIT:?} (a hang)");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = start.elapsed();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    assert!(!stderr.contains("panicked"), "{name}: a panic:\n{stderr}");
    assert!(
        status.code().is_some(),
        "{name}: killed by a signal ({status:?}):\n{stderr}"
    );
    let text = std::fs::read_to_string(out.join("summary.json"))
        .unwrap_or_else(|e| panic!("{name}: no summary.json ({e}):\n{stderr}"));
    Run {
        code: status.code(),
        stderr,
        summary: serde_json::from_str(&text).expect("summary.json is JSON"),
        elapsed,
        peak_kib,
    }
}

fn run(name: &str, args: &[&Path]) -> Run {
    run_with(name, Command::new(env!("CARGO_BIN_EXE_mcp-audit")), args)
}

/// The good capture, then `bad`.
fn with_good(name: &str, bad: &Path) -> Run {
    let g = good();
    run(name, &[&g, bad])
}

/// b01 is still analysed and reported: one session, 3 requests, 3
/// responses, its out_of_order_batch finding, no error of its own.
fn assert_good_still_reported(r: &Run) {
    let s = &r.summary;
    let b01: Vec<&Value> = s["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .filter(|x| {
            x["file"]
                .as_str()
                .unwrap_or("")
                .ends_with("b01_batch_reordered_by_balancer.har")
        })
        .collect();
    assert_eq!(b01.len(), 1, "b01 lost: {}", r.stderr);
    assert_eq!(b01[0]["totals"]["requests"], 3);
    assert_eq!(b01[0]["totals"]["responses"], 3);
    assert_eq!(b01[0]["findings_by_kind"]["out_of_order_batch"], 1);
    assert!(
        s["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["kind"] == "out_of_order_batch"
                && f["file"]
                    .as_str()
                    .unwrap_or("")
                    .ends_with("b01_batch_reordered_by_balancer.har")),
        "b01's finding missing from summary.json"
    );
    let first = &s["inputs"][0];
    assert!(
        first["file"]
            .as_str()
            .unwrap()
            .ends_with("b01_batch_reordered_by_balancer.har")
    );
    assert_eq!(first["errors"].as_array().unwrap().len(), 0);
}

/// The input of summary.json named `file`.
fn input<'a>(s: &'a Value, file: &Path) -> &'a Value {
    let f = file.display().to_string();
    s["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["file"] == f.as_str())
        .unwrap_or_else(|| panic!("{f} not in inputs"))
}

/// Totals of the sessions read from `file`.
fn session_totals(s: &Value, file: &Path, key: &str) -> u64 {
    let f = file.display().to_string();
    s["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["file"] == f.as_str())
        .map(|x| x["totals"][key].as_u64().unwrap())
        .sum()
}

fn dir(name: &str) -> PathBuf {
    out_dir(&format!("matrix_{name}_in"))
}

fn lines(stderr: &str) -> Vec<&str> {
    stderr.lines().collect()
}

const REQ: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
const RESP: &str = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;

#[test]
fn empty_file() {
    let p = dir("empty").join("empty.log");
    std::fs::write(&p, "").unwrap();
    let r = with_good("matrix_empty", &p);
    assert_eq!(r.code, Some(2));
    assert_eq!(
        lines(&r.stderr),
        [format!(
            "mcp-audit: {}: empty file, nothing to analyse",
            p.display()
        )]
    );
    assert_good_still_reported(&r);
}

#[test]
fn binary_file() {
    let p = dir("binary").join("blob.bin");
    std::fs::write(&p, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let r = with_good("matrix_binary", &p);
    assert_eq!(r.code, Some(2));
    assert_eq!(
        lines(&r.stderr),
        [format!(
            "mcp-audit: {}: binary file (NUL byte at byte offset 8), not a text capture",
            p.display()
        )]
    );
    assert_good_still_reported(&r);
}

/// A HAR cut every 997 bytes: each cut is exit 2 with one line naming the
/// byte offset, the entries before the cut are still read (never fewer as
/// the cut moves on), and b01 is still reported.
#[test]
fn har_truncated_every_997_bytes() {
    let src = root().join("tests/data/real/har_py-streamable-json__py-client.har");
    let text = std::fs::read(&src).unwrap();
    assert!(text.is_ascii(), "the cuts below assume an ASCII sample");
    let d = dir("har_cut");
    let mut last_entries = 0u64;
    let mut cuts = 0;
    for cut in (997..text.len() - 4).step_by(997) {
        let p = d.join(format!("cut{cut}.har"));
        std::fs::write(&p, &text[..cut]).unwrap();
        let r = with_good(&format!("matrix_har_cut{cut}"), &p);
        assert_eq!(r.code, Some(2), "cut at {cut}: {}", r.stderr);
        let l = lines(&r.stderr);
        assert_eq!(l.len(), 1, "cut at {cut}: {}", r.stderr);
        let head = format!(
            "mcp-audit: {}: HAR ends early at byte {cut} (line ",
            p.display()
        );
        assert!(
            l[0].starts_with(&head)
                && (l[0].ends_with(" entries read before it")
                    || l[0].ends_with("; 1 entry read before it")),
            "cut at {cut}: {}",
            l[0]
        );
        let n: u64 = l[0]
            .rsplit(';')
            .next()
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            n >= last_entries,
            "cut at {cut}: {n} entries read, {last_entries} at the cut before"
        );
        last_entries = n;
        assert_good_still_reported(&r);
        let _ = std::fs::remove_file(&p);
        cuts += 1;
    }
    assert!(
        cuts > 100 && last_entries > 10,
        "{cuts} cuts, {last_entries} entries"
    );
}

/// Line logs and a raw SSE capture cut every 997 (SSE: 97) bytes: never a
/// panic; a cut log is read up to the cut (its partial last line is a
/// non_json_line finding or a stray line, not an error) and exits 0 or 1,
/// unless the cut leaves no line any dialect claims or no traffic (exit 2,
/// one line saying so); a cut SSE stream names the event it ends inside.
#[test]
fn logs_and_sse_truncated_at_many_offsets() {
    let d = dir("log_cut");
    for (sample, stride) in [
        ("tests/data/real/stdio_py-client__py-server.logger.log", 997),
        ("tests/data/real/stdio_py-client__py-server.claude.log", 997),
        ("tests/data/real/stdio_py-client__py-server.ndjson", 997),
        ("tests/data/cases/l03_vscode_editor_server_dialect.log", 997),
        ("tests/data/real/sse_py_legacy.get_sse.headers.sse", 97),
    ] {
        let text = std::fs::read(root().join(sample)).unwrap();
        let ext = Path::new(sample).extension().unwrap().to_str().unwrap();
        for cut in (stride..text.len()).step_by(stride) {
            let p = d.join(format!("cut{cut}.{ext}"));
            std::fs::write(&p, &text[..cut]).unwrap();
            let r = with_good(&format!("matrix_log_cut{cut}_{ext}"), &p);
            let name = format!("{}: ", p.display());
            for l in lines(&r.stderr) {
                let rest = l
                    .strip_prefix("mcp-audit: ")
                    .and_then(|l| l.strip_prefix(&name))
                    .unwrap_or_else(|| panic!("{sample} cut at {cut}: {l}"));
                assert!(
                    rest.starts_with("invalid UTF-8 at byte offset ")
                        || rest.starts_with("no known format")
                        || rest.starts_with("no JSON-RPC traffic found")
                        || rest.starts_with("the stream ends inside an event at line ")
                        || rest.starts_with("line ")
                            && rest.contains(
                                ": the file ends inside this line (no line end, the JSON cut off)"
                            ),
                    "{sample} cut at {cut}: {l}"
                );
            }
            // An input that yields nothing is fatal ("no known format", "no
            // JSON-RPC traffic found"): a nightly job must not read "clean".
            let fatal = r.stderr.contains("no known format")
                || r.stderr.contains("no JSON-RPC traffic found");
            let expect: &[i32] = if fatal { &[2] } else { &[0, 1] };
            assert!(
                expect.contains(&r.code.unwrap()),
                "{sample} cut at {cut}: exit {:?}: {}",
                r.code,
                r.stderr
            );
            if ext == "sse" {
                // The cut leaves a `data` field after the last blank line
                // exactly when an event is left unfinished, and then the
                // run names it.
                let cut_text = String::from_utf8_lossy(&text[..cut]);
                let tail = cut_text.rsplit("\r\n\r\n").next().unwrap_or("");
                let open = tail.split("\r\n").any(|l| l.starts_with("data"));
                assert_eq!(
                    open,
                    r.stderr.contains("the stream ends inside an event"),
                    "{sample} cut at {cut}: {}",
                    r.stderr
                );
            }
            assert_good_still_reported(&r);
            let _ = std::fs::remove_file(&p);
        }
    }
}

#[test]
fn invalid_utf8() {
    let p = dir("utf8").join("bad-utf8.ndjson");
    std::fs::write(
        &p,
        [
            b"caf\xe9 \xff\n".as_slice(),
            REQ.as_bytes(),
            b"\n",
            RESP.as_bytes(),
            b"\n",
        ]
        .concat(),
    )
    .unwrap();
    let r = with_good("matrix_utf8", &p);
    assert_eq!(
        lines(&r.stderr),
        [format!(
            "mcp-audit: {}: invalid UTF-8 at byte offset 3; such bytes are read as U+FFFD",
            p.display()
        )]
    );
    // Read on: line 1 is a non-JSON line (info), lines 2–3 pair.
    assert_eq!(r.code, Some(0));
    assert_eq!(session_totals(&r.summary, &p, "pairs"), 1);
    assert_eq!(session_totals(&r.summary, &p, "non_json_lines"), 1);
    assert_good_still_reported(&r);
}

#[test]
fn utf8_bom() {
    let p = dir("bom").join("bom.ndjson");
    std::fs::write(&p, format!("\u{feff}{REQ}\n{RESP}\n")).unwrap();
    let r = with_good("matrix_bom", &p);
    assert_eq!(r.stderr, "");
    assert_eq!(r.code, Some(0));
    assert_eq!(input(&r.summary, &p)["dialect"], "bare");
    assert_eq!(
        session_totals(&r.summary, &p, "pairs"),
        1,
        "the BOM does not spoil line 1"
    );
    assert_eq!(session_totals(&r.summary, &p, "non_json_lines"), 0);
    assert_good_still_reported(&r);
}

#[test]
fn crlf_log() {
    let p = dir("crlf").join("crlf.log");
    std::fs::write(&p, format!("--> {REQ}\r\n<-- {RESP}\r\n\r\n")).unwrap();
    let r = with_good("matrix_crlf", &p);
    assert_eq!(r.stderr, "");
    assert_eq!(r.code, Some(0));
    assert_eq!(input(&r.summary, &p)["dialect"], "arrow");
    assert_eq!(session_totals(&r.summary, &p, "pairs"), 1);
    assert_good_still_reported(&r);
}

/// Line logs end at LF (FORMATS.md §8.1 "Lines"); a log with CRs and no
/// LF at all (classic Mac line ends) ends its lines at CR: with a dialect
/// prefix or as bare NDJSON, the request and its response pair.
#[test]
fn cr_only_logs() {
    let d = dir("cr");
    let arrow = d.join("cr-arrow.log");
    std::fs::write(&arrow, format!("--> {REQ}\r<-- {RESP}\r")).unwrap();
    let r = with_good("matrix_cr_arrow", &arrow);
    assert_eq!(r.stderr, "");
    assert_eq!(r.code, Some(0));
    assert_eq!(input(&r.summary, &arrow)["dialect"], "arrow");
    assert_eq!(session_totals(&r.summary, &arrow, "pairs"), 1);
    assert_eq!(r.summary["findings_by_kind"]["non_json_line"], 0);
    assert_good_still_reported(&r);

    let bare = d.join("cr-bare.ndjson");
    std::fs::write(&bare, format!("{REQ}\r{RESP}\r")).unwrap();
    let r = with_good("matrix_cr_bare", &bare);
    assert_eq!(r.stderr, "");
    assert_eq!(r.code, Some(0));
    assert_eq!(session_totals(&r.summary, &bare, "pairs"), 1);
    assert_good_still_reported(&r);
}

/// One 200 MB line (a request whose params hold a 200 MB string) is read
/// whole and paired, in a few seconds, in memory about the size of the
/// input.
#[test]
fn one_200_mb_line() {
    let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("matrix-200mb-line.ndjson");
    const SIZE: usize = 200 << 20;
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        f.write_all(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"blob":""#)
            .unwrap();
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..SIZE >> 20 {
            f.write_all(&chunk).unwrap();
        }
        f.write_all(format!("\"}}}}\n{RESP}\n").as_bytes()).unwrap();
    }
    let r = with_good("matrix_200mb", &p);
    let _ = std::fs::remove_file(&p);
    eprintln!(
        "200 MB line: {:.1} s, peak RSS {} MiB",
        r.elapsed.as_secs_f64(),
        r.peak_kib >> 10
    );
    assert_eq!(r.stderr, "");
    assert_eq!(r.code, Some(0));
    assert_eq!(session_totals(&r.summary, &p, "pairs"), 1);
    assert!(
        r.peak_kib == 0 || r.peak_kib < 3 * (SIZE as u64 >> 10),
        "peak RSS {} MiB for a 200 MiB input",
        r.peak_kib >> 10
    );
    assert_good_still_reported(&r);
}

/// JSON nested 10,000 deep, in a line log (as a batch, inside params) and
/// in a HAR (in a body, and in the document itself).
#[test]
fn json_nested_10000_deep() {
    let d = dir("deep");
    let deep = |open: &str, close: &str| format!("{}{}", open.repeat(10_000), close.repeat(10_000));
    // A batch whose only member is an array (an invalid_request), and a
    // request whose params are 10,000 arrays deep (read as any request).
    let log = d.join("deep.ndjson");
    std::fs::write(
        &log,
        format!(
            "{}\n{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{}}}\n{RESP}\n",
            deep("[", "]"),
            deep("[", "]")
        ),
    )
    .unwrap();
    let r = with_good("matrix_deep_log", &log);
    assert_eq!(r.stderr, "");
    assert_eq!(r.code, Some(1));
    assert_eq!(session_totals(&r.summary, &log, "pairs"), 1);
    let kinds: Vec<&str> = r.summary["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"] == log.display().to_string().as_str())
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["invalid_request"]);
    assert_good_still_reported(&r);

    // A HAR whose POST body nests 10,000 objects deep.
    let body = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{}}}",
        deep("{\"a\":", "}").replace("{\"a\":}", "{\"a\":1}")
    );
    let entry = |post: &str| {
        serde_json::json!({"startedDateTime": "2025-06-16T09:00:00.000Z", "time": 1,
            "request": {"method": "POST", "url": "http://h/mcp", "headers": [], "postData": {"mimeType": "application/json", "text": post}},
            "response": {"status": 200, "headers": [], "content": {"mimeType": "application/json", "text": RESP}}})
    };
    let har = d.join("deep-body.har");
    std::fs::write(
        &har,
        serde_json::json!({"log": {"version": "1.2", "entries": [entry(&body)]}}).to_string(),
    )
    .unwrap();
    let r = with_good("matrix_deep_har_body", &har);
    assert_eq!(r.stderr, "");
    assert_eq!(r.code, Some(0));
    assert_eq!(session_totals(&r.summary, &har, "pairs"), 1);
    assert_good_still_reported(&r);

    // A HAR document that itself nests 10,000 deep (an entry's custom
    // member): entries are borrowed as raw text, nothing recurses, both
    // exchanges are read.
    let e0 = entry(&REQ.replace("tools/list", "ping")).to_string();
    let mut e1 = entry(&REQ.replace(":1,", ":2,"));
    e1["response"]["content"]["text"] = RESP.replace(":1,", ":2,").into();
    let e1 = e1.to_string();
    let text = format!(
        "{{\"log\":{{\"version\":\"1.2\",\"entries\":[{e0},{},\"_custom\":{}}}]}}}}",
        &e1[..e1.len() - 1],
        deep("[", "]")
    );
    let har2 = d.join("deep-doc.har");
    std::fs::write(&har2, &text).unwrap();
    let r = with_good("matrix_deep_har_doc", &har2);
    assert_eq!(r.stderr, "");
    assert_eq!(r.code, Some(0));
    assert_eq!(session_totals(&r.summary, &har2, "pairs"), 2);
    assert_good_still_reported(&r);
}

/// A generated HAR with a million POST/JSON exchanges: all read, all
/// paired. Ignored by default: ≈ 40 s and 2.3 GB RSS in release.
#[test]
#[ignore = "a million entries: about 40 s and 2.3 GB RSS in release"]
fn har_with_a_million_entries() {
    const N: u64 = 1_000_000;
    let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("matrix-million.har");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        f.write_all(b"{\"log\":{\"version\":\"1.2\",\"creator\":{\"name\":\"gen\",\"version\":\"1\"},\"entries\":[\n").unwrap();
        for i in 0..N {
            let (ms, s, m, h) = (i % 1000, (i / 1000) % 60, (i / 60_000) % 60, i / 3_600_000);
            write!(
                f,
                "{}{{\"startedDateTime\":\"2025-06-16T{h:02}:{m:02}:{s:02}.{ms:03}Z\",\"time\":1,\"request\":{{\"method\":\"POST\",\"url\":\"http://h/mcp\",\"headers\":[],\"postData\":{{\"mimeType\":\"application/json\",\"text\":\"{{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":{i},\\\"method\\\":\\\"ping\\\"}}\"}}}},\"response\":{{\"status\":200,\"headers\":[],\"content\":{{\"mimeType\":\"application/json\",\"text\":\"{{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":{i},\\\"result\\\":{{}}}}\"}}}}}}",
                if i == 0 { "" } else { ",\n" }
            )
            .unwrap();
        }
        f.write_all(b"\n]}}\n").unwrap();
    }
    let r = with_good("matrix_million", &p);
    let _ = std::fs::remove_file(&p);
    eprintln!(
        "million-entry HAR: {:.1} s, peak RSS {} MiB",
        r.elapsed.as_secs_f64(),
        r.peak_kib >> 10
    );
    assert_eq!(r.stderr, "");
    assert_eq!(r.code, Some(0));
    assert_eq!(session_totals(&r.summary, &p, "requests"), N);
    assert_eq!(session_totals(&r.summary, &p, "pairs"), N);
    assert_good_still_reported(&r);
}

/// A raw SSE capture whose last event has no blank line after it: that
/// event is not dispatched (FORMATS.md §5 step 7) and the run says so,
/// naming its line; the events before it are read.
#[test]
fn sse_without_final_blank_line() {
    let d = dir("sse_end");
    let p = d.join("open.sse");
    std::fs::write(
        &p,
        format!(
            "event: message\ndata: {RESP}\n\nid: 2\ndata: {}\n",
            RESP.replace(":1,", ":2,")
        ),
    )
    .unwrap();
    let r = with_good("matrix_sse_end", &p);
    assert_eq!(
        lines(&r.stderr),
        [format!(
            "mcp-audit: {}: the stream ends inside an event at line 4 (no blank line after it); that event is not read",
            p.display()
        )]
    );
    assert_eq!(r.code, Some(0));
    assert_eq!(session_totals(&r.summary, &p, "responses"), 1);
    assert_good_still_reported(&r);
}

/// A gzip file that expands more than a thousandfold (200 MiB of spaces)
/// stops at the limit (`source::decompressed_limit`): one line naming the
/// file, the limit and the compressed offset; bounded time and memory.
#[test]
fn gzip_expanding_a_thousandfold() {
    let p = dir("gz").join("bomb.log.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..200 {
        e.write_all(&chunk).unwrap();
    }
    let gz = e.finish().unwrap();
    let size = gz.len() as u64;
    std::fs::write(&p, &gz).unwrap();
    let limit = mcp_audit::source::decompressed_limit(size);
    assert!(
        (200u64 << 20) > limit && limit == size * 1000,
        "the file must expand past 1000×: {size} bytes"
    );
    let r = with_good("matrix_gz", &p);
    assert_eq!(r.code, Some(2));
    let l = lines(&r.stderr);
    assert_eq!(l.len(), 1, "{}", r.stderr);
    let head = format!(
        "mcp-audit: {}: gzip stream decompresses to more than {limit} bytes (limit: 1000× the {size}-byte file, at least 64 MiB, at most 8 GiB), stopped at compressed byte offset ",
        p.display()
    );
    let tail = "; not analysed (decompression bomb?)";
    assert!(l[0].starts_with(&head) && l[0].ends_with(tail), "{}", l[0]);
    let offset: u64 = l[0][head.len()..l[0].len() - tail.len()].parse().unwrap();
    assert!(offset <= size);
    assert!(
        r.peak_kib == 0 || r.peak_kib < (limit >> 10) + (64 << 10),
        "peak RSS {} MiB",
        r.peak_kib >> 10
    );
    assert_good_still_reported(&r);
}

/// A file the user may not read. Tests usually run as root, which reads a
/// mode-000 file anyway: then the binary, b01, the file and the output
/// directory go to a fresh world-accessible directory under the system
/// temp dir and the binary runs as `nobody`; if that cannot be done, the
/// case is skipped, saying so.
#[test]
fn unreadable_file() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let mode =
        |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).is_ok();
    let d = dir("unreadable");
    let p = d.join("secret.ndjson");
    std::fs::write(&p, format!("{REQ}\n")).unwrap();
    assert!(mode(&p, 0o000));
    if std::fs::File::open(&p).is_err() {
        let r = run("matrix_unreadable", &[&good(), &p]);
        return check_unreadable(&r, &p, "as this user");
    }
    let open = std::env::temp_dir().join(format!("mcp-audit-matrix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&open);
    std::fs::create_dir_all(open.join("out")).unwrap();
    let (bin, g, secret) = (
        open.join("mcp-audit"),
        open.join("b01_batch_reordered_by_balancer.har"),
        open.join("secret.ndjson"),
    );
    let prepared = std::fs::copy(env!("CARGO_BIN_EXE_mcp-audit"), &bin).is_ok()
        && std::fs::copy(good(), &g).is_ok()
        && std::fs::write(&secret, format!("{REQ}\n")).is_ok()
        && mode(&open, 0o755)
        && mode(&open.join("out"), 0o777)
        && mode(&bin, 0o755)
        && mode(&g, 0o644)
        && mode(&secret, 0o000);
    let probe = prepared
        && Command::new(&bin)
            .arg("--help")
            .uid(65534)
            .gid(65534)
            .output()
            .is_ok_and(|o| o.status.success());
    if !probe {
        let _ = std::fs::remove_dir_all(&open);
        eprintln!(
            "SKIPPED unreadable_file: running as root, and the binary cannot be run as nobody (uid 65534) here"
        );
        return;
    }
    let mut cmd = Command::new(&bin);
    cmd.uid(65534).gid(65534);
    let r = run_in("matrix_unreadable", cmd, &[&g, &secret], open.join("out"));
    let _ = std::fs::remove_dir_all(&open);
    check_unreadable(&r, &secret, "as nobody");
}

fn check_unreadable(r: &Run, p: &Path, label: &str) {
    assert_eq!(r.code, Some(2), "{label}");
    assert_eq!(
        lines(&r.stderr),
        [format!(
            "mcp-audit: {}: cannot read: Permission denied (os error 13)",
            p.display()
        )],
        "{label}"
    );
    assert_good_still_reported(r);
}

/// A directory holding a symlink loop (`a` → `b` → `a`), a symlink to
/// itself (`up` → `.`) and one good log: the loop's links are named, one
/// line each, the directory is walked once, its log is read.
#[test]
fn directory_with_a_symlink_loop() {
    let d = dir("loop").join("logs");
    std::fs::create_dir_all(&d).unwrap();
    std::os::unix::fs::symlink("b", d.join("a")).unwrap();
    std::os::unix::fs::symlink("a", d.join("b")).unwrap();
    std::os::unix::fs::symlink(".", d.join("up")).unwrap();
    let log = d.join("ok.log");
    std::fs::write(&log, format!("--> {REQ}\n<-- {RESP}\n")).unwrap();
    let r = with_good("matrix_loop", &d);
    assert_eq!(r.code, Some(2));
    assert_eq!(
        lines(&r.stderr),
        [
            format!(
                "mcp-audit: {}: cannot read: Too many levels of symbolic links (os error 40)",
                d.join("a").display()
            ),
            format!(
                "mcp-audit: {}: cannot read: Too many levels of symbolic links (os error 40)",
                d.join("b").display()
            ),
        ]
    );
    let files: Vec<&str> = r.summary["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files.iter().filter(|f| f.ends_with("ok.log")).count(),
        1,
        "{files:?}"
    );
    assert_eq!(session_totals(&r.summary, &log, "pairs"), 1);
    assert_good_still_reported(&r);
}

#[test]
fn path_that_does_not_exist() {
    let p = Path::new("/nonexistent/mcp-audit/capture.har");
    let r = with_good("matrix_missing", p);
    assert_eq!(r.code, Some(2));
    assert_eq!(
        lines(&r.stderr),
        ["mcp-audit: /nonexistent/mcp-audit/capture.har: no such file or directory"]
    );
    assert_good_still_reported(&r);
}
