//! Redaction of secrets in captured text, on by default in every output
//! (DESIGN.md "Command line": `--redact` / `--no-redact`).
//!
//! [`redact`] is a pure function over text: it finds credentials by their
//! shape and replaces their values with [`MARK`], leaving the names, so a
//! reader still sees *that* an `Authorization` header or a `token` query
//! parameter was sent. It knows
//! - HTTP header lines (`Authorization: …`, `Cookie: …`, `Set-Cookie: …`,
//!   `Proxy-Authorization: …`, `X-Api-Key: …`, …), as in raw SSE captures;
//! - HAR name/value objects (`{"name": "Authorization", "value": "…"}`) for
//!   such headers and for secret query parameters, and every `value` of a
//!   HAR `cookies` list;
//! - JSON members whose name says secret (`password`, `secret`, `token`,
//!   `apiKey`, `authorization`, `cookie`, `privateKey`, …; `progressToken`
//!   is MCP bookkeeping and stays), also inside a JSON string (HAR bodies);
//! - URL query parameters (`token`, `access_token`, `api_key`, `key`,
//!   `sig`, `code`, `password`, `X-Amz-Signature`, …) and URL passwords
//!   (`https://user:pass@host`);
//! - `Bearer …` strings, JWT-looking strings, and well-known key prefixes
//!   (`sk-…`, `ghp_…`, `github_pat_…`, `xoxb-…`, `AKIA…`, `hf_…`, `npm_…`);
//! - Slack and Discord webhook URLs' tokens; header (name, value) pairs
//!   of Python and Node dumps; `curl -u user:password`-style command
//!   lines.
//!
//! An `Mcp-Session-Id` or a legacy `sessionId` is not a secret and is kept.
//! [`analysis`] applies it to the captured strings every report shows
//! (finding details, session names, methods) before any renderer runs.

use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

use foldhash::{HashMap, HashMapExt};

use regex::{Captures, Regex};

use crate::analyze::Analysis;

/// What a redacted value is replaced with.
pub const MARK: &str = "[REDACTED]";

/// Header names whose value is a credential: the known ones, and any
/// header whose name says auth, token, secret, API or subscription key,
/// access or private key, or password (`X-Custom-Auth`,
/// `Ocp-Apim-Subscription-Key`), signature or credentials
/// (`X-Hub-Signature-256`), and any ending in `-Key`
/// (`X-Functions-Key`) but `Idempotency-Key`. `Mcp-Session-Id` is not a
/// secret.
fn is_secret_header(name: &str) -> bool {
    if is_bookkeeping(&folded(name)) {
        return false;
    }
    let lower = small(name.trim(), false);
    let n: &str = &lower;
    let says_secret = [
        "auth",
        "token",
        "secret",
        "api-key",
        "apikey",
        "subscription-key",
        "access-key",
        "private-key",
        "password",
        "passwd",
        // `X-Hub-Signature-256`, `X-Slack-Signature`: an HMAC that
        // authenticates the request; `X-Client-Credentials`.
        "signature",
        "credential",
    ]
    .iter()
    .any(|w| n.contains(w));
    // A vendor's key header (`X-Functions-Key`, `X-Algolia-API-Key`);
    // `Idempotency-Key` names a request, not a credential.
    let vendor_key = n.ends_with("-key") && n != "idempotency-key";
    says_secret
        || vendor_key
        || matches!(
            n,
            "cookie" | "set-cookie" | "api-key" | "apikey" | "x-api-key" | "private-token"
        )
}

/// URL query parameter names whose value is a credential.
fn is_secret_param(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    matches!(
        n.as_str(),
        "token"
            | "access_token"
            | "refresh_token"
            | "id_token"
            | "auth_token"
            | "session_token"
            | "api_key"
            | "apikey"
            | "api-key"
            | "key"
            | "sig"
            | "signature"
            | "code"
            | "code_verifier"
            | "password"
            | "passwd"
            | "secret"
            | "client_secret"
            | "auth"
            | "jwt"
            | "x-amz-signature"
            | "x-amz-credential"
            | "x-amz-security-token"
            | "x-goog-signature"
            | "x-goog-credential"
            | "subscription-key"
            | "pin"
    ) || is_secret_key(&n)
}

/// Names that look like secrets but are MCP or paging bookkeeping
/// (`progressToken`, `nextToken`, `maxTokens`, `tokenCount`), given as
/// [`folded`].
fn is_bookkeeping(folded: &str) -> bool {
    matches!(
        folded,
        "progresstoken" | "nexttoken" | "pagetoken" | "maxtokens"
    ) || (folded.ends_with("count") && !folded.ends_with("account"))
}

/// A name lower-cased with anything but ASCII letters and digits left out
/// (`Progress_Token` → `progresstoken`).
fn folded(name: &str) -> Folded {
    small(name, true)
}

/// `name` ASCII-lower-cased, only its ASCII letters and digits kept when
/// `alnum_only`; on the stack when it fits.
fn small(name: &str, alnum_only: bool) -> Folded {
    let mut f = Folded {
        buf: [0; FOLDED_MAX],
        len: 0,
        long: None,
    };
    for b in name
        .bytes()
        .filter(|b| !alnum_only || b.is_ascii_alphanumeric())
    {
        if f.len == FOLDED_MAX {
            // A name this long is rare: on the heap, whole.
            let mut long = if alnum_only {
                name.chars().filter(|c| c.is_ascii_alphanumeric()).collect()
            } else {
                name.to_string()
            };
            long.make_ascii_lowercase();
            f.long = Some(long);
            break;
        }
        f.buf[f.len] = b.to_ascii_lowercase();
        f.len += 1;
    }
    f
}

/// Longest name [`folded`] keeps without allocating (member names of the
/// redaction rules have at most 64 characters).
const FOLDED_MAX: usize = 64;

/// A [`folded`] name: on the stack (it is asked for every JSON member of
/// every excerpt), or on the heap when longer than [`FOLDED_MAX`].
struct Folded {
    buf: [u8; FOLDED_MAX],
    len: usize,
    long: Option<String>,
}

impl std::ops::Deref for Folded {
    type Target = str;
    fn deref(&self) -> &str {
        match &self.long {
            Some(s) => s,
            // Only ASCII letters and digits were kept.
            // Whole names of ASCII-lower-cased bytes: still UTF-8.
            None => std::str::from_utf8(&self.buf[..self.len]).unwrap_or(""),
        }
    }
}

/// JSON member names whose value is a credential: the name, lower-cased
/// and without `_`/`-`, contains a secret word (`password`, `secret`,
/// `apikey`, `authkey`, `accountkey`, `subscriptionkey`, …), starts or
/// ends with `token` or ends with `pwd` (`MYSQL_PWD`), or is `auth`,
/// `pass`, `pin`, `sig`, `signature`, `code_verifier`,
/// `oauth_signature`, `SAMLResponse` (a signed assertion); MCP and paging
/// bookkeeping (`progressToken`, `maxTokens`, `tokenCount`) is not.
fn is_secret_key(name: &str) -> bool {
    let f = folded(name);
    let n: &str = &f;
    if is_bookkeeping(n) {
        return false;
    }
    const WORDS: [&str; 24] = [
        "password",
        "passwd",
        "secret",
        "apikey",
        "authorization",
        "cookie",
        "privatekey",
        "accesskey",
        "credential",
        "bearer",
        "passphrase",
        "clientassertion",
        "authkey",
        "subscriptionkey",
        "accountkey",
        "functionskey",
        "masterkey",
        "signingkey",
        "encryptionkey",
        "sessionkey",
        // mTLS and vendor keys (`client_key`, Datadog's `DD_APP_KEY`).
        "clientkey",
        "appkey",
        "hmackey",
        "licensekey",
    ];
    WORDS.iter().any(|w| n.contains(w))
        || n.ends_with("token")
        || n.ends_with("pwd")
        // `tokenValue`, `token_secret`; `tokens` and `tokenizer` are not.
        || (n.starts_with("token") && !n.starts_with("tokens") && !n.starts_with("tokeniz"))
        || matches!(
            n,
            "auth"
                | "pass"
                | "pin"
                | "sig"
                | "signature"
                | "codeverifier"
                | "oauthsignature"
                | "samlresponse"
        )
}

/// A member name as JSON means it: `\uXXXX` escapes decoded (a key
/// written `"pass\u0077ord"` is `password`), also when the name sits in a
/// JSON string and its backslashes are doubled.
fn decoded_key(raw: &str) -> Cow<'_, str> {
    if !raw.contains('\\') {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let esc = rest[i..].trim_start_matches('\\');
        let hex = esc.strip_prefix('u').and_then(|h| h.get(..4));
        match hex
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32)
        {
            Some(c) => {
                out.push(c);
                rest = &esc[5..];
            }
            None => {
                rest = esc;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// `Name: value` header lines (start of a line, value to the end of it,
/// with the lines that continue it: an obsolete folded header's lines
/// start with a space or a tab, RFC 9112 §5.2).
static HEADER_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?m)^([ \t>]*)([A-Za-z][A-Za-z0-9-]*)([ \t]*:[ \t]*)([^\r\n]*(?:\r?\n[ \t]+[^\r\n]*)*)",
    )
    .expect("valid regex")
});

/// A secret header `name`'s value as [`HEADER_LINE`] matched it: the
/// first line redacted, and the lines after it too when the value is
/// folded onto them (the first line is empty, or a cookie list ends it in
/// `;`); otherwise those lines are kept (indented text after a line that
/// looks like a header, as in a Node object dump).
fn header_value(name: &str, v: &str) -> String {
    let end = v.find(['\r', '\n']).unwrap_or(v.len());
    let (first, rest) = v.split_at(end);
    let cookie = name.eq_ignore_ascii_case("cookie") || name.eq_ignore_ascii_case("set-cookie");
    let folded = !rest.is_empty()
        && (first.trim().is_empty() || (cookie && first.trim_end().ends_with(';')));
    if folded {
        return mark_unless_done(v).to_string();
    }
    format!("{}{rest}", mark_unless_done(first))
}

/// A `"name": "…"` member (of a HAR name/value object), at any string
/// depth.
static NAME_MEMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\\*"name\\*"(?:\s|\\{1,8}[nrt])*:(?:\s|\\{1,8}[nrt])*\\*"((?:[^"\\]|\\[^"])*)"#)
        .expect("valid regex")
});

/// HAR `"cookies": [ … ]` lists (no nested arrays inside).
static COOKIES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\\?"cookies\\?"\s*:\s*\[(?:\[REDACTED\]|[^\]])*"#).expect("valid regex")
});

/// Any `"value": "…"` member (used inside a cookies list).
static VALUE_MEMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(\\?"value\\?"\s*:\s*\\?")((?:[^"\\]|\\[^"])*)"#).expect("valid regex")
});

/// A JSON member's name and colon, `"key":`, plain or inside JSON strings
/// (`\"key\":`, `\\\"key\\\":` two strings deep): the backslashes before
/// its opening quote give the depth; [`json_members`] reads the value.
static JSON_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        // A name may hold spaces and colons (`"API Key"`, `"Client
        // Secret"` of a tool's table, `"x:access-token"`).
        r#"\\*"(?:[A-Za-z0-9_.:@$ -]|\\{1,8}u[0-9A-Fa-f]{4}){1,64}\\*""#,
        // Whitespace, also escaped (`\n` in a string), and a raw SSE
        // event's next `data:` line when the value is on it.
        r#"(?:\s|\\{1,8}[nrt])*:(?:\ndata:|\s|\\{1,8}[nrt])*"#
    ))
    .expect("valid regex")
});

/// URL query parameters `?name=value` / `&name=value` (also `;`, a
/// fragment's `#name=value`, and `\u0026` for `&` inside a JSON string;
/// a name may be percent-encoded, `access%5Ftoken`; `=` may be
/// `\u003d`, as Gson writes it).
static QUERY_PARAM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"([?&;#]|\\u0026)([A-Za-z0-9_.%-]{1,64})(=|\\u003[dD])([^&#\s"'<>\\]*)"#)
        .expect("valid regex")
});

/// The parameters of a URL that is itself percent-encoded in a query
/// value (`?next=https%3A%2F%2Fapp%2Fcb%3Faccess_token%3DVALUE%26x%3D1`):
/// `%3F`/`%26`/`%23`, the name, `%3D`, the value up to the next `%26`
/// or `%23`.
static ENCODED_PARAM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(%3[Ff]|%26|%23)([A-Za-z0-9_.-]{1,64})(%3[Dd])"#,
        r#"((?:[^%&#\s"'<>\\]|%(?:[013-9A-Fa-f][0-9A-Fa-f]|2[0-57-9A-Fa-f]))*)"#
    ))
    .expect("valid regex")
});

/// `scheme://user:password@host`, the user possibly empty
/// (`redis://:password@host`), the slashes possibly JSON-escaped
/// (`https:\/\/user:password@host`), or cut after the password (`…`, a
/// quoted line shortened in a message).
static URL_PASSWORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"([A-Za-z][A-Za-z0-9+.-]*:(?:\\*/){2}[^/\s:@"'\\]*:)([^@/\s"'\\]+)(@|…)"#)
        .expect("valid regex")
});

// Word boundaries in these rules are ASCII ones, `(?-u:\b)`: a Unicode
// `\b` keeps the regex engine off its fast automaton on any text with a
// non-ASCII character (measured: two thirds of report.html's redaction
// time). The only difference is wider redaction: a name right after a
// non-ASCII letter (`éBearer …`) is matched too.

/// `Bearer xxxxx` (a credential-shaped word of 8 or more characters after
/// it, or a shorter one with a digit in it; `Basic` credentials are caught
/// by their header, since "Basic" is also an English word).
static BEARER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)((?:(?-u:\b)|\\[nrt])Bearer)(\s+)",
        r"([A-Za-z0-9\-._~+/]{8,}=*|[A-Za-z\-._~+/]*[0-9][A-Za-z0-9\-._~+/]*=*)"
    ))
    .expect("valid regex")
});

/// JWTs and well-known API key prefixes, at a word's start or right after
/// a JSON string's `\n`, `\r` or `\t` escape (a line of a tool's text;
/// no word boundary is before `ghp_` in `\nghp_…`): [`token_shapes`]
/// keeps the escape. (Each start is a literal, which keeps the search
/// fast: an optional letter or a repetition before them costs 20 times.)
static TOKEN_SHAPES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:(?-u:\b)|\\[nrt])(?:eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*",
        r"|sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}",
        r"|(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{20,}",
        r"|github_pat_[A-Za-z0-9_]{20,}",
        r"|(?:xox[abposr]|xapp)-[A-Za-z0-9-]{10,}",
        // Hugging Face, npm, PyPI, DigitalOcean, Shopify, SendGrid keys,
        // Stripe and Svix webhook secrets.
        r"|hf_[A-Za-z0-9]{30,}",
        r"|npm_[A-Za-z0-9]{36,}",
        r"|pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,}",
        r"|do[opr]_v1_[a-f0-9]{64}",
        r"|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
        r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
        r"|whsec_[A-Za-z0-9+/=]{24,}",
        r"|(?:AKIA|ASIA)[0-9A-Z]{16}(?-u:\b)",
        r"|AIza[0-9A-Za-z_-]{30,}",
        r"|glpat-[A-Za-z0-9_-]{20,}",
        // Stripe secret and restricted keys.
        r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})",
    ))
    .expect("valid regex")
});

/// A JWT or a well-known key cut short where a message quotes the first
/// characters of a line (`first lines: "eyJhbGciOi….eyJzdWIi…"`): too
/// short for [`TOKEN_SHAPES`], still its start.
static TOKEN_CUT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:(?-u:\b)|\\[nrt])(?:eyJ[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*)?",
        r"|(?:sk-|sk_live_|sk_test_|rk_live_|rk_test_|gh[posur]_|github_pat_|glpat-|xox[abposr]-|xapp-",
        r"|hf_|npm_|pypi-|whsec_|AKIA|ASIA|AIza)[A-Za-z0-9_-]*)…"
    ))
    .expect("valid regex")
});

/// A PEM private key's body (`-----BEGIN RSA PRIVATE KEY-----` and its
/// base64 lines, raw or with `\n` escapes inside a JSON string).
static PEM_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)(?:[A-Za-z0-9+/=\s:,]|\\+[nrt])+")
        .expect("valid regex")
});

/// A command line's secret option and its value, `--password VALUE`
/// (`--password=VALUE` is [`FREE_NAME`]'s).
static FLAG_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?-u:\B)--([A-Za-z][A-Za-z0-9_-]{0,63})([ \t]+)([^\s"'\\-][^\s"'\\]*)"#)
        .expect("valid regex")
});

/// `token VALUE`, `password VALUE`, `client_secret VALUE` (a secret's
/// name, also as the last part of a compound one, a space, and a value
/// shaped like a credential: see [`token_shaped`]; `token expired`
/// stays).
static SPACED_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)((?:(?-u:\b)|\\[nrt])(?:(?:client|access|refresh|auth|app|db|admin|root|user|session|bearer|id|private|master|x)[_-])?",
        r"(?:token|password|passwd|secret|api[_-]?key))",
        r"([ \t]+)([A-Za-z0-9._~+/=-]{6,})"
    ))
    .expect("valid regex")
});

/// A (name, value) pair as Python and Node write headers (`(b'set-cookie',
/// b'sid=…')` in httpcore's traces, `['authorization', 'Bearer …']` of a
/// raw header list, `["X-Api-Key","…"]` in JSON): its name, and the value
/// [`pair_value`] reads.
static HEADER_PAIR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"[(\[][ \t]*b?(\\*['"])([A-Za-z][A-Za-z0-9_-]{0,63})\\*['"]"#,
        r#"[ \t]*,[ \t]*b?(\\*['"])((?:[^'"\\]|\\[^'"\\])*)"#
    ))
    .expect("valid regex")
});

/// Secrets in URLs of well-known services, after a part that stays: a
/// Slack or Discord webhook's token (its path's last segment), and a
/// Kubernetes bearer token sent as a WebSocket subprotocol.
static URL_TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"((?:hooks\.slack\.com(?:\\*/)(?:services|workflows|triggers)(?:\\*/)[A-Za-z0-9]+(?:\\*/)[A-Za-z0-9]+",
        r"|discord(?:app)?\.com(?:\\*/)api(?:\\*/)webhooks(?:\\*/)[0-9]+)(?:\\*/)",
        r"|(?:(?-u:\b)|\\[nrt])base64url\.bearer\.authorization\.k8s\.io\.)",
        r"([A-Za-z0-9_-]{16,})"
    ))
    .expect("valid regex")
});

/// A password where no secret's name is right before it: `curl -u
/// user:password` (`--user`; `docker run -u 1000:1000` is no password),
/// `docker login -u bob -p password` (podman, nerdctl, helm), `sshpass
/// -p password`, `mysql -ppassword`, a `.netrc` line (`machine H login U
/// password P`, any punctuation in P), an Oracle JDBC URL
/// (`jdbc:oracle:thin:scott/tiger@host`). Each alternative is the text
/// kept before the value, and the value.
static CLI_PASSWORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"((?:(?-u:\b)|\\[nrt])curl[ \t][^\r\n"'\\]*?(?-u:\B)(?:-u|--user)(?:[ \t]+|=)?[^\s:'"\\]+:)([^\s'"\\]+)"#,
        r#"|((?:(?-u:\b)|\\[nrt])(?:(?:docker|podman|nerdctl|helm registry)[ \t]+login[ \t][^\r\n"'\\]*?|sshpass[ \t]+)"#,
        r#"(?-u:\B)-p[ \t]+'?)([^\s"'\\]+)"#,
        r#"|((?:(?-u:\b)|\\[nrt])mysql(?:dump|admin)?[ \t][^\r\n"'\\]*?(?-u:\B)-p)([^\s"'\\-][^\s"'\\]*)"#,
        r#"|((?:(?-u:\b)|\\[nrt])machine[ \t]+[^\s"\\]+[ \t]+login[ \t]+[^\s"\\]+[ \t]+password[ \t]+)([^\s"\\]+)"#,
        r#"|((?:(?-u:\b)|\\[nrt])jdbc:oracle:[a-z]+:@?[^/\s@"'\\]+/)([^@\s"'\\]+@)"#,
    ))
    .expect("valid regex")
});

/// `name=` and `name:` in free text (log lines, error messages, SSE data,
/// the text inside JSON strings); [`free_text`] reads the value after it.
/// A name's characters may be `\uXXXX` escapes of letters, digits, `_`
/// and `-`; it may be quoted with `'` or Gson's `\u0027`, and `=` may
/// be `\u003d`.
static FREE_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"((?:(?-u:\b)[A-Za-z_]|\\{1,2}u00(?:27|[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|5[Ff]|2[Dd]))",
        r"(?:[A-Za-z0-9_-]|\\{1,2}u00(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|5[Ff]|2[Dd])){0,63})",
        r"((?:'|\\{1,2}u0027)?[ \t]*",
        r"(?:=(?:>|\\{1,2}u003[eE])?|\\{1,2}u003[dD](?:\\{1,2}u003[eE])?|:)[ \t]*)"
    ))
    .expect("valid regex")
});

/// How a free-text value is written, which its replacement keeps.
#[derive(Clone, Copy, PartialEq)]
enum Quote {
    /// A bare word.
    None,
    /// `'…'` (Node's `util.inspect`, Python's `repr`).
    Single,
    /// `"…"` after a name that is not quoted (`password="…"`), its quotes
    /// after this many backslashes (1 inside a JSON string, 3 two deep).
    Double(usize),
}

impl Quote {
    /// [`MARK`] written as the value was.
    fn mark(self) -> Cow<'static, str> {
        match self {
            Quote::None => Cow::Borrowed(MARK),
            Quote::Single => Cow::Borrowed("'[REDACTED]'"),
            Quote::Double(0) => Cow::Borrowed("\"[REDACTED]\""),
            Quote::Double(n) => {
                let q = "\\".repeat(n);
                Cow::Owned(format!("{q}\"{MARK}{q}\""))
            }
        }
    }
}

/// The value after a free-text `name=` / `name:`: a quoted string (single,
/// or double with its quotes escaped to any depth inside JSON strings), a
/// bracketed list (`token: [abc]`), or one word up to a space, quote,
/// backslash, separator or bracket. Its length in bytes and how it is
/// quoted.
fn free_value(rest: &str) -> (usize, Quote) {
    let quoted = |open: usize, close: &str, kind: Quote| {
        let body = &rest[open..];
        match body.find(close) {
            Some(e) if !body[..e].contains(['\r', '\n']) => (open + e + close.len(), kind),
            _ => (open + body.find(['\r', '\n']).unwrap_or(body.len()), kind),
        }
    };
    if rest.starts_with('\'') {
        return quoted(1, "'", Quote::Single);
    }
    let slashes = rest.len() - rest.trim_start_matches('\\').len();
    if rest[slashes..].starts_with('"') {
        let close = format!("{}\"", &rest[..slashes]);
        return quoted(slashes + 1, &close, Quote::Double(slashes));
    }
    if rest.starts_with('[') {
        return quoted(1, "]", Quote::None);
    }
    (bare_word(rest), Quote::None)
}

/// The length of the bare word `rest` starts with: up to a space, quote,
/// backslash, separator or bracket, but through a JSON escape that writes
/// a character of the word (`p\u00e4ss`, Python's `ensure_ascii`; `\/`,
/// PHP's slashes), at any string depth.
fn bare_word(rest: &str) -> usize {
    let mut at = 0;
    loop {
        let n = rest[at..]
            .find(|c: char| c.is_whitespace() || "\"'\\,;&<>(){}[]".contains(c))
            .map_or(rest.len(), |n| at + n);
        let esc = &rest[n..];
        let slashes = esc.len() - esc.trim_start_matches('\\').len();
        let after = &esc[slashes..];
        let hex = after.strip_prefix('u').and_then(|h| h.get(..4));
        let letter = hex
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32)
            .is_some_and(|c| c.is_alphanumeric() || "-._~+/=!@$%*".contains(c));
        if slashes > 0 && letter {
            at = n + slashes + 5;
        } else if slashes > 0 && after.starts_with('/') {
            at = n + slashes + 1;
        } else {
            return n;
        }
    }
}

/// The span of the secret value that starts at `at` (after `name=`), and
/// how it is quoted, if it is not redacted already. An auth scheme stays
/// readable and the credential after it is the secret (`Authorization:
/// Bearer [REDACTED]`).
fn free_secret(text: &str, at: usize) -> Option<(usize, usize, Quote)> {
    let rest = &text[at..];
    // `\u0027…\u0027` (Gson's `'`): the text between the two escapes.
    let slashes = rest.len() - rest.trim_start_matches('\\').len();
    if slashes > 0 && rest[slashes..].starts_with("u0027") {
        let open = &rest[..slashes + 5];
        let body = &rest[open.len()..];
        let n = body
            .find(open)
            .unwrap_or_else(|| body.find(['\r', '\n', '"']).unwrap_or(body.len()));
        let from = at + open.len();
        return (n > 0 && &body[..n] != MARK).then_some((from, from + n, Quote::None));
    }
    let (n, quote) = free_value(rest);
    let v = &rest[..n];
    // `cookies: null` (a Node dump), `password=None`: nothing was sent.
    const NOTHING: [&str; 5] = ["null", "undefined", "None", "nil", "[]"];
    if n == 0 || v == MARK || v == quote.mark() || NOTHING.contains(&v) {
        return None;
    }
    const SCHEMES: [&str; 5] = ["bearer", "basic", "token", "digest", "negotiate"];
    if SCHEMES.iter().any(|w| v.eq_ignore_ascii_case(w)) {
        let gap = rest[n..].len() - rest[n..].trim_start_matches([' ', '\t']).len();
        if gap > 0 {
            return free_secret(text, at + n + gap);
        }
    }
    Some((at, at + n, quote))
}

/// Whether `v` looks like an opaque credential (an OAuth `code`): six or
/// more characters of a token's alphabet with a letter, not a number or
/// a word of prose.
fn token_shaped(v: &str) -> bool {
    let v = v.trim_matches(['\'', '"', '\\']);
    v.len() >= 6
        && v.bytes().any(|b| b.is_ascii_alphabetic())
        && v.bytes()
            .any(|b| b.is_ascii_digit() || b == b'-' || b == b'_')
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b))
}

/// The name of a [`FREE_NAME`] match `m` (the text before it is
/// `before`), and whether it names a file (a path's last part:
/// `/tmp/secret: cannot read`, `C:\\dir\\token: …`, `logs/x.token: …`).
/// A name right after a JSON string's `\n`, `\r` or `\t` escape
/// (`…\nAWS_SECRET_ACCESS_KEY=…`, a header line in a string) starts after
/// that escape's letter; a dotted name (`env.SECRET_KEY=…`,
/// `spring.datasource.password=…`) is a setting's, not a file's, unless
/// the word it ends holds a slash. `None` when nothing is left of it.
fn free_name<'t>(before: &str, m: &'t str) -> Option<(&'t str, bool)> {
    let mut raw = &m[..m.find([' ', '\t', '=', ':', '\'']).unwrap_or(m.len())];
    let slashes = before.len() - before.trim_end_matches('\\').len();
    if slashes > 0 && raw.starts_with(['n', 'r', 't']) {
        raw = &raw[1..];
        return (!raw.is_empty()).then_some((raw, false));
    }
    let in_path = if slashes > 0 || before.ends_with('/') {
        true
    } else if let Some(dotted) = before.strip_suffix('.') {
        let word = dotted
            .rsplit(|c: char| c.is_whitespace() || "\"'=:,;([{".contains(c))
            .next()
            .unwrap_or("");
        // After a JSON string's line end (`…\nspring.datasource.password`).
        let word = ["\\n", "\\r", "\\t"]
            .iter()
            .filter_map(|e| word.rfind(e).map(|i| &word[i + 2..]))
            .min_by_key(|w| w.len())
            .unwrap_or(word);
        word.contains(['/', '\\'])
    } else {
        false
    };
    Some((raw, in_path))
}

/// Secrets written as `name=value`, `name: value` or `name => value` in
/// free text, with the names of the JSON member rule (`password=…`,
/// `token: …`, `api_key: …`, `'password': '…'`), a secret header's name
/// (`X-Functions-Key=…`), a `Cookie:` mid-line (to the line's end), and
/// `code=` with a token-shaped value (an OAuth code; `code: -32601` stays).
fn free_text(text: Cow<'_, str>) -> Cow<'_, str> {
    let mut spans: Vec<(usize, usize, Quote)> = Vec::new();
    let mut done = 0;
    for all in FREE_NAME.find_iter(&text) {
        // The name is the match up to its separator (no capture groups
        // needed: a search for captures costs several times a find).
        let m = all.as_str();
        let Some((raw, in_path)) = free_name(&text[..all.start()], m) else {
            continue;
        };
        // A name written with JSON escapes (`pass\u0077ord=…` inside a
        // string) means what it decodes to.
        let name: &str = &decoded_key(raw);
        // A header's name written in text (`… Ocp-Apim-Subscription-Key:
        // 0123` in a tool result or an error message, not at a line's
        // start) names a credential as its header line does; only
        // hyphenated names are read so (`author: Jane` is no header).
        let header = name.contains('-') && is_secret_header(name);
        let f = folded(name);
        let code = &*f == "code";
        if all.start() < done || in_path || !(is_secret_key(name) || header || code) {
            continue;
        }
        let value = free_secret(&text, all.end()).or_else(|| yaml_block(&text, all.end()));
        let Some((start, end, quote)) = value else {
            continue;
        };
        if code && !token_shaped(&text[start..end]) {
            continue;
        }
        let (start, mut end) = if quote == Quote::None && m.trim_end().ends_with(':') {
            yaml_value(&text, all.start(), start, end)
        } else {
            (start, end)
        };
        if matches!(&*f, "cookie" | "setcookie") && quote == Quote::None {
            // Cookies are `a=1; b=2`: the whole rest of the line (or of
            // the JSON string) is theirs.
            let rest = &text[start..];
            end = start
                + rest.find(['\r', '\n', '"']).map_or(rest.len(), |e| {
                    if rest[..e].ends_with('\\') { e - 1 } else { e }
                });
        }
        spans.push((start, end, quote));
        done = end;
    }
    let edits: Vec<_> = spans
        .into_iter()
        .map(|(s, e, q)| (s, e, q.mark()))
        .collect();
    splice(text, edits)
}

/// YAML's block scalar indicators.
const YAML_BLOCKS: [&str; 6] = [">-", ">+", "|-", "|+", ">", "|"];

/// A YAML block scalar's indicator at `at` (`api_key: >-` and the value
/// on the next line), for [`yaml_value`] to read on.
fn yaml_block(text: &str, at: usize) -> Option<(usize, usize, Quote)> {
    let rest = &text[at..];
    let b = YAML_BLOCKS.iter().find(|b| rest.starts_with(**b))?;
    rest[b.len()..]
        .starts_with(['\r', '\n', '\\'])
        .then_some((at, at + b.len(), Quote::None))
}

/// A YAML-style value (`name:` first on its line, raw or in a JSON
/// string after a `\n` escape) that [`free_secret`] read as the word at
/// `start..end`: a plain value runs to the line's end (`password: correct
/// horse battery`), a block scalar's indicator (`>-`, `|`) stands for the
/// next line.
fn yaml_value(text: &str, name_at: usize, start: usize, end: usize) -> (usize, usize) {
    let before = text[..name_at].trim_end_matches([' ', '\t']);
    let escaped_eol = before.ends_with(['n', 'r']) && before[..before.len() - 1].ends_with('\\');
    if !(before.is_empty() || before.ends_with(['\n', '\r']) || escaped_eol) {
        return (start, end);
    }
    let line_end = |from: usize| {
        let rest = &text[from..];
        from + rest[..rest.find(['\r', '\n', '\\', '"']).unwrap_or(rest.len())]
            .trim_end()
            .len()
    };
    if !YAML_BLOCKS.contains(&&text[start..end]) {
        return (start, line_end(start).max(end));
    }
    // The next line: a raw line end or a `\n` escape, then its indent.
    let rest = &text[end..];
    let eol = rest.trim_start_matches(['\r', '\n']);
    let eol = if eol.len() < rest.len() {
        eol
    } else {
        let e = rest.trim_start_matches('\\');
        match e.strip_prefix('n') {
            Some(e) if e.len() + 1 < rest.len() => e,
            _ => return (start, end),
        }
    };
    let from = text.len() - eol.trim_start_matches([' ', '\t']).len();
    (from, line_end(from).max(from))
}

/// `text` with each edit `(start, end, replacement)` made (in order, none
/// overlapping); borrowed as it is when there is none.
fn splice<'a, R: AsRef<str>>(text: Cow<'a, str>, edits: Vec<(usize, usize, R)>) -> Cow<'a, str> {
    if edits.is_empty() {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end, new) in &edits {
        out.push_str(&text[at..*start]);
        out.push_str(new.as_ref());
        at = *end;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// Where the JSON string whose content starts at `from` ends: the byte
/// offset of its closing delimiter (a quote after `depth` backslashes:
/// `depth` 0 in plain JSON, 1 inside a string, 3 two strings deep). A
/// quote closes it when the backslashes before it, modulo `2·depth + 2`,
/// are `depth` (an escaped quote has more). `None` when the text or the
/// line ends first (a cut excerpt).
fn string_end(text: &str, from: usize, depth: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = from;
    // A JSON string holds no line end: one before its close means the text
    // was cut (it ends there, and no more is taken for it).
    let line_end = text[from..]
        .find(['\n', '\r'])
        .map_or(text.len(), |e| from + e);
    while let Some(q) = text[i..line_end].find('"') {
        let j = i + q;
        let slashes = b[..j].iter().rev().take_while(|&&c| c == b'\\').count();
        let slashes = slashes.min(j - from);
        if slashes % (2 * depth + 2) == depth {
            return Some(j - depth);
        }
        i = j + 1;
    }
    None
}

/// The end of the JSON array or object that starts at `from` (its `[` or
/// `{`), at string depth `depth` (see [`string_end`]); the text's end
/// when it is cut.
fn container_end(text: &str, from: usize, depth: usize) -> usize {
    let b = text.as_bytes();
    let mut level = 0usize;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'[' | b'{' => level += 1,
            b']' | b'}' => {
                level -= 1;
                if level == 0 {
                    return i + 1;
                }
            }
            b'"' => {
                let slashes = b[..i].iter().rev().take_while(|&&c| c == b'\\').count();
                if slashes == depth {
                    match string_end(text, i + 1, depth) {
                        Some(e) => i = e + depth,
                        None => return text.len(),
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    text.len()
}

/// Members whose name `secret` says holds a credential, at any string
/// depth (plain JSON, JSON inside a string, two strings deep), whatever
/// the value: a string's content becomes [`MARK`]; a number, array or
/// object becomes the string `"[REDACTED]"` written at the member's depth
/// (so the text stays JSON at every depth, as `extract` needs). `true`,
/// `false` and `null` stay.
fn json_members<'a>(text: Cow<'a, str>, secret: impl Fn(&str, &str) -> bool) -> Cow<'a, str> {
    let mut edits: Vec<(usize, usize, Cow<'static, str>)> = Vec::new();
    let mut next = 0;
    for m in JSON_KEY.find_iter(&text) {
        if m.start() < next {
            continue;
        }
        let key_text = m.as_str();
        let depth = key_text.len() - key_text.trim_start_matches('\\').len();
        let raw = member_key(key_text);
        let key = decoded_key(raw);
        let v = m.end();
        let rest = &text[v..];
        let (span, replacement): ((usize, usize), Cow<'static, str>) = if rest
            .get(depth..)
            .is_some_and(|r| r.starts_with('"'))
            && rest[..depth].bytes().all(|c| c == b'\\')
        {
            let from = v + depth + 1;
            let end = string_end(&text, from, depth).unwrap_or_else(|| {
                text[from..]
                    .find(['\n', '\r'])
                    .map_or(text.len(), |e| from + e)
            });
            let content = &text[from..end];
            if content == MARK || content.is_empty() || !secret(&key, content) {
                continue;
            }
            ((from, end), Cow::Borrowed(MARK))
        } else {
            let end = match rest.as_bytes().first() {
                Some(b'[' | b'{') if &*folded(&key) != "cookies" => container_end(&text, v, depth),
                Some(b'-' | b'0'..=b'9') => {
                    v + rest
                        .find(|c: char| !(c.is_ascii_digit() || "-+.eE".contains(c)))
                        .unwrap_or(rest.len())
                }
                _ => continue,
            };
            if !secret(&key, "") {
                continue;
            }
            let q = "\\".repeat(depth);
            ((v, end), Cow::Owned(format!("{q}\"{MARK}{q}\"")))
        };
        edits.push((span.0, span.1, replacement));
        next = span.1;
    }
    splice(text, edits)
}

/// Whether a JSON member named `key` with string content `value` (empty
/// for another type) holds a credential: a secret's name, a secret
/// header's name, or `code` with a token-shaped string (an OAuth code; a
/// tool's `"code": "print(1)"` argument stays).
fn secret_member(key: &str, value: &str) -> bool {
    is_secret_key(key)
        || is_secret_header(key)
        || (&*folded(key) == "code" && !value.is_empty() && token_shaped(value))
}

/// HAR name/value objects (`{"name": "X-Api-Key", "value": "…"}`, in any
/// order, with other members such as `comment`, values holding braces)
/// whose name is a secret header's or query parameter's: the `value`
/// member of the object around the name is redacted.
fn name_value_objects(text: Cow<'_, str>) -> Cow<'_, str> {
    let mut objects: Vec<(usize, usize)> = Vec::new();
    for c in NAME_MEMBER.captures_iter(&text) {
        let n = decoded_key(&c[1]);
        if !(is_secret_header(&n) || is_secret_param(&n)) {
            continue;
        }
        let m = c.get(0).expect("match");
        let depth = m.as_str().len() - m.as_str().trim_start_matches('\\').len();
        let Some(open) = text[..m.start()].rfind('{') else {
            continue;
        };
        if objects.last().is_some_and(|&(_, e)| open < e) {
            continue;
        }
        objects.push((open, container_end(&text, open, depth)));
    }
    let edits: Vec<_> = objects
        .into_iter()
        .map(|(start, end)| {
            let object = json_members(Cow::Borrowed(&text[start..end]), |k, _| k == "value");
            (start, end, object.into_owned())
        })
        .collect();
    splice(text, edits)
}

/// A name/value object as Node's `util.inspect` and Python's `repr`
/// write it (`{ name: 'X-Api-Key', value: '…' }`, `{'name': 'pin',
/// 'value': '…'}`; undici's header lists, a HAR in a Python dump): the
/// name, and the value.
static INSPECT_NAME_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\{[ \t]*'?name'?[ \t]*:[ \t]*'([^'\\]*)',[ \t\r\n]*",
        r"'?value'?[ \t]*:[ \t]*'((?:[^'\\]|\\.)*)"
    ))
    .expect("valid regex")
});

/// The name of an [`INSPECT_NAME_VALUE`] match.
fn inspect_name(m: &str) -> &str {
    let after = &m[m.find(':').map_or(0, |i| i + 1)..];
    let after = after.trim_start_matches([' ', '\t', '\'']);
    &after[..after.find('\'').unwrap_or(after.len())]
}

/// The header name of a [`HEADER_LINE`] match (its second group).
fn header_name(m: &str) -> &str {
    let m = m.trim_start_matches([' ', '\t', '>']);
    &m[..m
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(m.len())]
}

/// The raw key of a [`JSON_KEY`] match: between the first quote and the
/// next, trailing backslashes (the escaped forms `\"key\"`,
/// `\\\"key\\\"`) left out. A key holds no quote.
fn member_key(m: &str) -> &str {
    let Some(open) = m.find('"') else { return "" };
    let rest = &m[open + 1..];
    let key = &rest[..rest.find('"').unwrap_or(rest.len())];
    key.trim_end_matches('\\')
}

/// The parameter name of a [`QUERY_PARAM`] match (its second group),
/// percent-decoded (`access%5Ftoken` is `access_token`).
fn param_name(m: &str) -> Cow<'_, str> {
    let m = m.strip_prefix("\\u0026").unwrap_or_else(|| &m[1..]);
    percent_decoded(&m[..m.find(['=', '\\']).unwrap_or(m.len())])
}

/// The parameter name of an [`ENCODED_PARAM`] match.
fn encoded_param_name(m: &str) -> Cow<'_, str> {
    let m = &m[3..];
    percent_decoded(&m[..m.find('%').unwrap_or(m.len())])
}

/// `name` with `%XX` escapes decoded (a name is ASCII; others stay).
fn percent_decoded(name: &str) -> Cow<'_, str> {
    if !name.contains('%') {
        return Cow::Borrowed(name);
    }
    let b = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    while i < b.len() {
        let hex = name
            .get(i + 1..i + 3)
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b[i], hex) {
            (b'%', Some(c)) if c.is_ascii() => {
                out.push(c as char);
                i += 3;
            }
            (c, _) => {
                out.push(c as char);
                i += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// [`apply`] for a rule that leaves most of its matches as they are (a
/// JSON member whose name is no secret's): `keep` is asked first, on the
/// match alone, and the capture groups (a search several times as costly
/// as finding the match) are read only where it says the match may change.
/// `may_change` must hold wherever `f` would return other text than the
/// match.
fn apply_where<'a>(
    text: Cow<'a, str>,
    re: &Regex,
    may_change: impl Fn(&str) -> bool,
    mut f: impl FnMut(&Captures<'_>) -> String,
) -> Cow<'a, str> {
    let mut out = String::new();
    let mut at = 0;
    for m in re.find_iter(&text) {
        if !may_change(m.as_str()) {
            continue;
        }
        // The same match, with its groups (look-arounds see the text
        // before it, as in the search that found it).
        let Some(c) = re.captures_at(&text, m.start()) else {
            continue;
        };
        let new = f(&c);
        if new != m.as_str() {
            out.push_str(&text[at..m.start()]);
            out.push_str(&new);
            at = m.end();
        }
    }
    if at == 0 && out.is_empty() {
        return text;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

fn apply<'a>(
    text: Cow<'a, str>,
    re: &Regex,
    f: impl FnMut(&Captures<'_>) -> String,
) -> Cow<'a, str> {
    if !re.is_match(&text) {
        return text;
    }
    match re.replace_all(&text, f) {
        Cow::Owned(s) if s != *text => Cow::Owned(s),
        _ => text,
    }
}

/// Keeps a value that is already redacted, or empty, as it is (so that
/// redacting twice changes nothing).
fn mark_unless_done(v: &str) -> &str {
    if v.is_empty() || v == MARK { v } else { MARK }
}

/// Replaces every credential found in `text` with [`MARK`]; borrows when
/// there is none. Idempotent.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut t = Cow::Borrowed(text);
    t = apply_where(
        t,
        &HEADER_LINE,
        |m| is_secret_header(header_name(m)),
        |c| {
            if is_secret_header(&c[2]) {
                format!("{}{}{}{}", &c[1], &c[2], &c[3], header_value(&c[2], &c[4]))
            } else {
                c[0].to_string()
            }
        },
    );
    t = name_value_objects(t);
    t = apply_where(
        t,
        &INSPECT_NAME_VALUE,
        |m| {
            let n = inspect_name(m);
            is_secret_header(n) || is_secret_param(n)
        },
        |c| {
            let all = c.get(0).expect("match");
            let v = c.get(2).expect("value");
            if (is_secret_header(&c[1]) || is_secret_param(&c[1])) && v.as_str() != MARK {
                format!("{}{MARK}", &all.as_str()[..v.start() - all.start()])
            } else {
                all.as_str().to_string()
            }
        },
    );
    t = apply(t, &COOKIES, |c| {
        VALUE_MEMBER
            .replace_all(&c[0], |v: &Captures<'_>| {
                format!("{}{}", &v[1], mark_unless_done(&v[2]))
            })
            .into_owned()
    });
    t = json_members(t, secret_member);
    t = apply_where(
        t,
        &QUERY_PARAM,
        |m| is_secret_param(&param_name(m)),
        |c| {
            if is_secret_param(&percent_decoded(&c[2])) {
                format!("{}{}{}{}", &c[1], &c[2], &c[3], mark_unless_done(&c[4]))
            } else {
                c[0].to_string()
            }
        },
    );
    t = apply_where(
        t,
        &ENCODED_PARAM,
        |m| is_secret_param(&encoded_param_name(m)),
        |c| {
            if is_secret_param(&c[2]) {
                format!("{}{}{}{}", &c[1], &c[2], &c[3], mark_unless_done(&c[4]))
            } else {
                c[0].to_string()
            }
        },
    );
    t = apply(t, &URL_PASSWORD, |c| {
        format!("{}{}{}", &c[1], mark_unless_done(&c[2]), &c[3])
    });
    t = apply(t, &URL_TOKEN, |c| format!("{}{MARK}", &c[1]));
    t = apply_where(t, &HEADER_PAIR, pair_may_change, pair_value);
    t = apply(t, &BEARER, |c| format!("{}{}{MARK}", &c[1], &c[2]));
    t = token_shapes(t, &TOKEN_SHAPES, "");
    t = token_shapes(t, &TOKEN_CUT, "…");
    t = apply(t, &PEM_KEY, |c| format!("{}{MARK}", &c[1]));
    free_text(command_lines(t))
}

/// Matches of [`TOKEN_SHAPES`] or [`TOKEN_CUT`] replaced with [`MARK`]
/// and `tail`, the `\n` escape one opens with kept.
fn token_shapes<'a>(text: Cow<'a, str>, re: &Regex, tail: &str) -> Cow<'a, str> {
    let edits: Vec<_> = re
        .find_iter(&text)
        .map(|m| {
            let keep = if m.as_str().starts_with('\\') { 2 } else { 0 };
            (m.start() + keep, m.end(), format!("{MARK}{tail}"))
        })
        .collect();
    splice(text, edits)
}

/// Whether a [`HEADER_PAIR`] match names a secret: a secret's name
/// (`authorization`, `cookie`, `x-amz-security-token`) or a hyphenated
/// secret header's (`x-functions-key`).
fn pair_is_secret(name: &str) -> bool {
    is_secret_key(name) || (name.contains('-') && is_secret_header(name))
}

/// [`pair_is_secret`] on a [`HEADER_PAIR`] match alone.
fn pair_may_change(m: &str) -> bool {
    let name = m.trim_start_matches(['(', '[', ' ', '\t', 'b', '\\', '\'', '"']);
    let end = name
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(name.len());
    pair_is_secret(&name[..end])
}

/// A [`HEADER_PAIR`] match with its value redacted, when its name is a
/// secret's and the value is quoted as the name is (a pair, not two
/// unrelated strings).
fn pair_value(c: &Captures<'_>) -> String {
    let all = c.get(0).expect("match");
    let value = c.get(4).expect("value");
    if !pair_is_secret(&c[2]) || c[1] != c[3] || value.as_str() == MARK {
        return all.as_str().to_string();
    }
    format!("{}{MARK}", &all.as_str()[..value.start() - all.start()])
}

/// Secrets of command lines and prose: `token VALUE`, `--password
/// VALUE`, `curl -u user:VALUE`, `docker login -p VALUE` ([`CLI_PASSWORD`]).
fn command_lines(text: Cow<'_, str>) -> Cow<'_, str> {
    let mut t = apply(text, &SPACED_VALUE, |c| {
        if token_shaped(&c[3]) {
            format!("{}{}{MARK}", &c[1], &c[2])
        } else {
            c[0].to_string()
        }
    });
    t = apply_where(
        t,
        &FLAG_VALUE,
        |m| {
            let name = &m[2..m.find([' ', '\t']).unwrap_or(m.len())];
            is_secret_key(name)
        },
        |c| {
            if is_secret_key(&c[1]) && &c[3] != MARK {
                format!("--{}{}{MARK}", &c[1], &c[2])
            } else {
                c[0].to_string()
            }
        },
    );
    apply(t, &CLI_PASSWORD, |c| {
        let (kept, value) = [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10)]
            .into_iter()
            .find_map(|(k, v)| Some((c.get(k)?, c.get(v)?)))
            .expect("one alternative matched");
        // The JDBC URL's password ends at its `@`, which stays.
        let (value, at) = match value.as_str().strip_suffix('@') {
            Some(v) => (v, "@"),
            None => (value.as_str(), ""),
        };
        format!("{}{}{at}", kept.as_str(), mark_unless_done(value))
    })
}

/// [`redact`] into an owned string, in place.
fn redact_in_place(s: &mut String) {
    if let Cow::Owned(r) = redact(s) {
        *s = r;
    }
}

/// Redacts a string id that holds a credential (a client that uses a
/// bearer token or a JWT as its request id), and an object or array id's
/// JSON text (`{"password": …}` as an id): ids reach every output.
fn id(id: &mut crate::record::Id) {
    use crate::record::Id;
    if let Id::Str(s) | Id::Other(s) = id
        && let Cow::Owned(r) = redact(s)
    {
        *s = r.into();
    }
}

/// An id redacted as every output's ids are (a string id that holds a
/// credential, an object or array id's JSON text); for readers that match
/// ids found again in a capture against the analysis's.
pub fn redact_id(i: &mut crate::record::Id) {
    id(i);
}

/// The ids a finding names, redacted as [`id`].
fn finding_ids(f: &mut crate::analyze::Finding) {
    match &mut f.id {
        crate::analyze::FindingId::One(i) => id(i),
        crate::analyze::FindingId::Batch(ids) => ids.iter_mut().for_each(id),
    }
    f.alt_ids.iter_mut().for_each(id);
}

/// Redacts the captured strings of an analysis that every report shows:
/// finding details, session names, the server's name, version and
/// revision, methods and string ids (each only where it holds a
/// credential; an `Mcp-Session-Id` is not one).
pub fn analysis(a: &mut Analysis) {
    // Session names and methods repeat across findings and requests: each
    // distinct text is redacted once.
    let mut names: HashMap<String, String> = HashMap::new();
    let mut memo = |s: &mut String| {
        if let Some(r) = names.get(s.as_str()) {
            s.clone_from(r);
        } else {
            let before = s.clone();
            redact_in_place(s);
            names.insert(before, s.clone());
        }
    };
    let mut fix = |f: &mut crate::analyze::Finding| {
        redact_in_place(&mut f.detail);
        memo(&mut f.session);
        if let Some(m) = &mut f.method {
            memo(m);
        }
    };
    a.findings.iter_mut().for_each(&mut fix);
    a.findings.iter_mut().for_each(finding_ids);
    let mut methods: HashMap<Arc<str>, Arc<str>> = HashMap::new();
    for s in &mut a.sessions {
        redact_in_place(&mut s.name);
        // The server's own words (`serverInfo`, the negotiated revision)
        // are captured text like any other.
        if let Some((name, version)) = &mut s.server {
            redact_in_place(name);
            redact_in_place(version);
        }
        if let Some(r) = &mut s.revision {
            redact_in_place(r);
        }
        s.findings.iter_mut().for_each(&mut fix);
        s.findings.iter_mut().for_each(finding_ids);
        for b in &mut s.batches {
            b.ids.iter_mut().for_each(id);
        }
        for q in &mut s.requests {
            id(&mut q.id);
            if let Some(m) = &mut q.method {
                let r = methods.entry(m.clone()).or_insert_with(|| match redact(m) {
                    Cow::Owned(t) => t.into(),
                    Cow::Borrowed(_) => m.clone(),
                });
                if !Arc::ptr_eq(r, m) {
                    *m = r.clone();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        let out = redact(s).into_owned();
        assert_eq!(redact(&out), out, "redaction is idempotent");
        out
    }

    #[test]
    fn object_ids_are_redacted() {
        let mut i = crate::record::Id::from_raw(r#"{"password":"SECRETLEAK4"}"#);
        id(&mut i);
        let text = i.json_text();
        assert!(!text.contains("SECRETLEAK4"), "{text}");
        assert!(i.to_json().is_object(), "still JSON: {text}");
    }

    #[test]
    fn custom_auth_headers_and_stripe_keys() {
        assert_eq!(
            r("X-Custom-Auth: SECRETCUSTOMHDR55\nMcp-Session-Id: abc\nX-Request-Id: 7"),
            "X-Custom-Auth: [REDACTED]\nMcp-Session-Id: abc\nX-Request-Id: 7"
        );
        assert_eq!(
            r(r#"{"name":"X-Service-Token","value":"t0k3n"}"#),
            r#"{"name":"X-Service-Token","value":"[REDACTED]"}"#
        );
        assert_eq!(
            r("key sk_live_abcdefghijklmnopqrstuvwx and rk_test_ABCDEFGHIJKLMNOP12"),
            "key [REDACTED] and [REDACTED]"
        );
    }

    #[test]
    fn header_lines() {
        assert_eq!(
            r("Authorization: Bearer abc.def-ghi\nAccept: */*"),
            "Authorization: [REDACTED]\nAccept: */*"
        );
        assert_eq!(
            r("cookie: a=1; b=2\r\nSet-Cookie: sid=xyz; HttpOnly"),
            "cookie: [REDACTED]\r\nSet-Cookie: [REDACTED]"
        );
        assert_eq!(
            r("> Proxy-Authorization: Basic dXNlcjpwYXNz"),
            "> Proxy-Authorization: [REDACTED]"
        );
        assert_eq!(r("mcp-session-id: 1234-abcd"), "mcp-session-id: 1234-abcd");
    }

    #[test]
    fn har_headers_cookies_and_query() {
        let har = r#"{"name": "Authorization", "value": "Bearer s3cr3tt0ken"}, {"name": "Mcp-Session-Id", "value": "abc-123"}"#;
        assert_eq!(
            r(har),
            r#"{"name": "Authorization", "value": "[REDACTED]"}, {"name": "Mcp-Session-Id", "value": "abc-123"}"#
        );
        let q = r#""queryString": [{"name": "token", "value": "zzz"}, {"name": "sessionId", "value": "s1"}]"#;
        assert_eq!(
            r(q),
            r#""queryString": [{"name": "token", "value": "[REDACTED]"}, {"name": "sessionId", "value": "s1"}]"#
        );
        let c = r#""cookies": [{"name": "sid", "value": "abc"}, {"name": "theme", "value": "dark"}], "x": {"value": "keep"}"#;
        assert_eq!(
            r(c),
            r#""cookies": [{"name": "sid", "value": "[REDACTED]"}, {"name": "theme", "value": "[REDACTED]"}], "x": {"value": "keep"}"#
        );
    }

    #[test]
    fn urls() {
        assert_eq!(
            r("GET https://h/mcp?sessionId=s1&token=abc123&x=1"),
            "GET https://h/mcp?sessionId=s1&token=[REDACTED]&x=1"
        );
        assert_eq!(
            r("https://h/cb?code=xyz&state=ok"),
            "https://h/cb?code=[REDACTED]&state=ok"
        );
        assert_eq!(
            r("https://h/?api_key=k&sig=s&access_token=t"),
            "https://h/?api_key=[REDACTED]&sig=[REDACTED]&access_token=[REDACTED]"
        );
        assert_eq!(
            r("https://user:hunter2@example.com/x"),
            "https://user:[REDACTED]@example.com/x"
        );
        assert_eq!(r("https://example.com/a?b=c"), "https://example.com/a?b=c");
    }

    #[test]
    fn json_bodies() {
        assert_eq!(
            r(r#"{"password":"p@ss","user":"bob"}"#),
            r#"{"password":"[REDACTED]","user":"bob"}"#
        );
        assert_eq!(
            r(r#"{"apiKey": "k1", "client_secret": "c", "pin_password": 1234}"#),
            r#"{"apiKey": "[REDACTED]", "client_secret": "[REDACTED]", "pin_password": "[REDACTED]"}"#
        );
        assert_eq!(
            r(r#"{"access_token":"t","progressToken":7,"nextCursor":"n"}"#),
            r#"{"access_token":"[REDACTED]","progressToken":7,"nextCursor":"n"}"#
        );
        // A JSON body inside a HAR string.
        assert_eq!(
            r(r#""text": "{\"token\":\"abc\",\"id\":1}""#),
            r#""text": "{\"token\":\"[REDACTED]\",\"id\":1}""#
        );
        // A value cut short (evidence excerpt) is still hidden.
        assert_eq!(r(r#"{"secret":"abcdefgh"#), r#"{"secret":"[REDACTED]"#);
        // Signatures and a PKCE verifier, as members and in a form body
        // (the fresh user's OAuth capture); `key` alone is too common a
        // member name to hide.
        assert_eq!(
            r(r#"{"sig":"s1","Signature":"s2","code_verifier":"v","key":"user"}"#),
            r#"{"sig":"[REDACTED]","Signature":"[REDACTED]","code_verifier":"[REDACTED]","key":"user"}"#
        );
        assert_eq!(
            r("grant_type=authorization_code&code=C1&code_verifier=CV-LEAK-Y"),
            "grant_type=authorization_code&code=[REDACTED]&code_verifier=[REDACTED]"
        );
    }

    #[test]
    fn bearer_jwt_and_prefixes() {
        assert_eq!(
            r("sent Bearer abcdefgh12345 to it"),
            "sent Bearer [REDACTED] to it"
        );
        assert_eq!(r("Bearer tokens are fine"), "Bearer tokens are fine");
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig-nature_x";
        assert_eq!(r(&format!("x {jwt} y")), "x [REDACTED] y");
        assert_eq!(
            r("key sk-ant-REDACTEDREDACTED0123 here"),
            "key [REDACTED] here"
        );
        assert_eq!(r("AKIAABCDEFGHIJKLMNOP"), "[REDACTED]");
    }

    #[test]
    fn escaped_member_names() {
        // The plain name beside it was always caught; the escaped one is
        // the same member to any JSON reader.
        assert_eq!(
            r(r#"{"pass\u0077ord":"hunter2","password":"hunter3"}"#),
            r#"{"pass\u0077ord":"[REDACTED]","password":"[REDACTED]"}"#
        );
        // Inside a JSON string (a HAR body) the backslash is doubled.
        assert_eq!(
            r(r#""text": "{\"api\\u004bey\":\"k-123\"}""#),
            r#""text": "{\"api\\u004bey\":\"[REDACTED]\"}""#
        );
        assert_eq!(
            r(r#"{"\u0070in_password": 4321}"#),
            r#"{"\u0070in_password": "[REDACTED]"}"#
        );
        assert_eq!(
            r(r#"{"pass":"x1","passive":true}"#),
            r#"{"pass":"[REDACTED]","passive":true}"#
        );
    }

    #[test]
    fn secrets_in_free_text() {
        assert_eq!(
            r("connect failed: password=hunter2 user=bob"),
            "connect failed: password=[REDACTED] user=bob"
        );
        assert_eq!(
            r("[STDERR] token: abc123, api_key: k-9; retry 2"),
            "[STDERR] token: [REDACTED], api_key: [REDACTED]; retry 2"
        );
        // Text inside a JSON string (an error message, SSE data).
        assert_eq!(
            r(r#"{"error":{"code":-32603,"message":"bad login (secret=s3cr3t)"}}"#),
            r#"{"error":{"code":-32603,"message":"bad login (secret=[REDACTED])"}}"#
        );
        // Node's util.inspect dumps.
        assert_eq!(
            r("{ apiKey: 'k-77', id: 3 }"),
            "{ apiKey: '[REDACTED]', id: 3 }"
        );
        // MCP bookkeeping and ordinary words stay.
        assert_eq!(
            r("sent authorization: Basic dXNlcjpwYXNz, then Authorization=Bearer [REDACTED]"),
            "sent authorization: Basic [REDACTED], then Authorization=Bearer [REDACTED]"
        );
        // A name written with JSON escapes, in a string's text (one
        // backslash) or a string inside a string (two).
        assert_eq!(
            r(r#"{"message":"login: pass\u0077ord=LEAK-7 user=bob"}"#),
            r#"{"message":"login: pass\u0077ord=[REDACTED] user=bob"}"#
        );
        assert_eq!(
            r(r#""\\u0074oken: LEAK-8 then""#),
            r#""\\u0074oken: [REDACTED] then""#
        );
        // A file named like a secret is a path, not a credential.
        assert_eq!(
            r("/tmp/secret: cannot read; secret.ndjson: no known format"),
            "/tmp/secret: cannot read; secret.ndjson: no known format"
        );
        for s in [
            "progressToken: 5",
            "maxTokens=100",
            "code: -32601",
            "key: tools/list",
            "session: abc",
        ] {
            assert_eq!(r(s), s);
        }
    }

    #[test]
    fn vendor_key_headers() {
        assert_eq!(
            r("Ocp-Apim-Subscription-Key: 0123abcd\nX-Goog-Api-Key: AIzaXX\nLast-Event-Id: 7"),
            "Ocp-Apim-Subscription-Key: [REDACTED]\nX-Goog-Api-Key: [REDACTED]\nLast-Event-Id: 7"
        );
        assert_eq!(
            r(r#"{"name":"Ocp-Apim-Subscription-Key","value":"0123abcd"}"#),
            r#"{"name":"Ocp-Apim-Subscription-Key","value":"[REDACTED]"}"#
        );
        // Inside a JSON string, mid-line (a tool result quoting a header).
        assert_eq!(
            r(r#"{"text":"Ocp-Apim-Subscription-Key: LEAK-1 and X-Custom-Auth: s3"}"#),
            r#"{"text":"Ocp-Apim-Subscription-Key: [REDACTED] and X-Custom-Auth: [REDACTED]"}"#
        );
        assert_eq!(
            r("X-Functions-Key: LEAK-9\nIdempotency-Key: 5f1c"),
            "X-Functions-Key: [REDACTED]\nIdempotency-Key: 5f1c"
        );
        assert_eq!(
            r(r#"{"name":"x-functions-key","value":"LEAK-10"}"#),
            r#"{"name":"x-functions-key","value":"[REDACTED]"}"#
        );
        for s in [
            "by author: Jane",
            "see Last-Event-Id: 7",
            "Content-Type: text/plain mid-line",
        ] {
            assert_eq!(r(&format!("x {s}")), format!("x {s}"));
        }
    }

    /// Shapes a held-back hostile corpus found leaking (one per line of
    /// its report), each with the exact redacted text.
    #[test]
    fn held_back_shapes() {
        let cases: [(&str, &str); 42] = [
            // A value with an escaped quote in it: all of it.
            (
                r#"{"user_password":"LEAK-a\"LEAK-b","x":1}"#,
                r#"{"user_password":"[REDACTED]","x":1}"#,
            ),
            // Arrays and objects under a secret's name.
            (
                r#"{"apiKeys":["LEAK-1","LEAK-2"],"n":2}"#,
                r#"{"apiKeys":"[REDACTED]","n":2}"#,
            ),
            (
                r#"{"credentials":{"user":"bob","key":"LEAK"},"n":2}"#,
                r#"{"credentials":"[REDACTED]","n":2}"#,
            ),
            // Inside a JSON string, the replacement is written at its depth.
            (
                r#""{\"apiKeys\":[\"LEAK\"],\"pin\":1234}""#,
                r#""{\"apiKeys\":\"[REDACTED]\",\"pin\":\"[REDACTED]\"}""#,
            ),
            (
                r#"{"secretAccount":"LEAK","subscriptionKey":"LEAK","AccountKey":"LEAK"}"#,
                r#"{"secretAccount":"[REDACTED]","subscriptionKey":"[REDACTED]","AccountKey":"[REDACTED]"}"#,
            ),
            // An OAuth code; a tool's code argument stays.
            (
                r#"{"code":"LEAK-k12","x":{"code":"print(1)"},"error":{"code":-32600}}"#,
                r#"{"code":"[REDACTED]","x":{"code":"print(1)"},"error":{"code":-32600}}"#,
            ),
            // JSON two strings deep.
            (
                r#"{"nested":"{\"body\":\"{\\\"password\\\":\\\"LEAK-15\\\"}\"}"}"#,
                r#"{"nested":"{\"body\":\"{\\\"password\\\":\\\"[REDACTED]\\\"}\"}"}"#,
            ),
            (
                r#""https:\/\/bob:LEAK@db.example\/x""#,
                r#""https:\/\/bob:[REDACTED]@db.example\/x""#,
            ),
            (
                "redis://:LEAK@cache:6379/0",
                "redis://:[REDACTED]@cache:6379/0",
            ),
            (
                r"?state=1\u0026code=LEAKcode1",
                r"?state=1\u0026code=[REDACTED]",
            ),
            (
                "?subscription-key=LEAK&auth_key=LEAK2&access%5Ftoken=LEAK3#code=LEAK4",
                "?subscription-key=[REDACTED]&auth_key=[REDACTED]&access%5Ftoken=[REDACTED]#code=[REDACTED]",
            ),
            (r#"{"pin":73195046}"#, r#"{"pin":"[REDACTED]"}"#),
            (
                r#"password="LEAK-f6" next"#,
                r#"password="[REDACTED]" next"#,
            ),
            (
                r#"{"m":"password=\"LEAK-f6\" next"}"#,
                r#"{"m":"password=\"[REDACTED]\" next"}"#,
            ),
            (
                "{'password': 'LEAK-f7', 'api_key': 'LEAK-f8'}",
                "{'password': '[REDACTED]', 'api_key': '[REDACTED]'}",
            ),
            (
                "_token=LEAK MYSQL_PWD=LEAK authKey=LEAK tokenValue=LEAK",
                "_token=[REDACTED] MYSQL_PWD=[REDACTED] authKey=[REDACTED] tokenValue=[REDACTED]",
            ),
            ("x-functions-key=LEAK", "x-functions-key=[REDACTED]"),
            (
                ":password => LEAK, password => \"LEAK\"",
                ":password => [REDACTED], password => \"[REDACTED]\"",
            ),
            (
                "sent Cookie: theme=dark; session=LEAK\nnext",
                "sent Cookie: [REDACTED]\nnext",
            ),
            (
                "AccountKey=LEAK==;EndpointSuffix=core",
                "AccountKey=[REDACTED];EndpointSuffix=core",
            ),
            (
                "code=LEAKcode9&grant_type=authorization_code",
                "code=[REDACTED]&grant_type=authorization_code",
            ),
            ("got token: [LEAK] then", "got token: [REDACTED] then"),
            (
                "Authorization failed for Bearer LEAKS41 now",
                "Authorization failed for Bearer [REDACTED] now",
            ),
            // HAR objects in any order, with other members.
            (
                r#"{"value":"LEAK-h7","name":"X-Api-Key"}"#,
                r#"{"value":"[REDACTED]","name":"X-Api-Key"}"#,
            ),
            (
                r#"{"name":"X-Functions-Key","comment":"","value":"LEAK-h8"}"#,
                r#"{"name":"X-Functions-Key","comment":"","value":"[REDACTED]"}"#,
            ),
            (
                r#"{"name":"pin","value":"LEAK"}"#,
                r#"{"name":"pin","value":"[REDACTED]"}"#,
            ),
            (
                r#"{"name":"pin","value":"LEAK-{P}"},{"name":"a","value":"b"}"#,
                r#"{"name":"pin","value":"[REDACTED]"},{"name":"a","value":"b"}"#,
            ),
            // A numeric secret in a HAR body (a JSON string) stays JSON.
            (
                r#""text":"{\"password\":1234,\"id\":1}""#,
                r#""text":"{\"password\":\"[REDACTED]\",\"id\":1}""#,
            ),
            (
                r#"{"id":"authKey=LEAK-id2","method":"x/s?subscription-key=LEAK-m3"}"#,
                r#"{"id":"authKey=[REDACTED]","method":"x/s?subscription-key=[REDACTED]"}"#,
            ),
            (
                "run: login --password FTsecret05 --user bob",
                "run: login --password [REDACTED] --user bob",
            ),
            (
                "use token FTsecret12 now; the token expired",
                "use token [REDACTED] now; the token expired",
            ),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEFTsecret11\nabc=\n-----END RSA PRIVATE KEY-----",
                "-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----",
            ),
            (
                r#""key":"-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----""#,
                r#""key":"-----BEGIN PRIVATE KEY-----[REDACTED]-----END PRIVATE KEY-----""#,
            ),
            // Folded header lines (obsolete, RFC 9112 §5.2).
            (
                "X-Api-Key:\r\n LEAK-fold1\r\nAccept: */*",
                "X-Api-Key:[REDACTED]\r\nAccept: */*",
            ),
            (
                "Cookie: a=1;\r\n\tsid=LEAK-fold2\r\n",
                "Cookie: [REDACTED]\r\n",
            ),
            (
                "Authorization: Bearer abcdefgh123\n  indented next",
                "Authorization: [REDACTED]\n  indented next",
            ),
            // A Node dump's `token: '…',` line leaves the lines after it.
            (
                "{\n  token: 'LEAK-n1',\n  id: 3\n}",
                "{\n  token: [REDACTED]\n  id: 3\n}",
            ),
            // A quoted line cut after a URL's password.
            (
                "first lines: \"redis://:LEAK-st…\"",
                "first lines: \"redis://:[REDACTED]…\"",
            ),
            // Two strings deep: slashes, `=>` and quotes escaped thrice.
            (
                r#"\\\"https:\\\/\\\/bob:LEAK@db\\\/x\\\""#,
                r#"\\\"https:\\\/\\\/bob:[REDACTED]@db\\\/x\\\""#,
            ),
            (
                r#"password =\u003e \\\"LEAK-f15\\\" then"#,
                r#"password =\u003e \\\"[REDACTED]\\\" then"#,
            ),
            // A pretty-printed HAR object inside a JSON string.
            (
                r#"{\n  \"name\": \"pin\",\n  \"value\": \"LEAK-p2\"\n}"#,
                r#"{\n  \"name\": \"pin\",\n  \"value\": \"[REDACTED]\"\n}"#,
            ),
            // A raw SSE event whose value is on the next data line.
            (
                "data: {\"password\":\ndata: \"LEAK-split1\",\"x\":1}",
                "data: {\"password\":\ndata: \"[REDACTED]\",\"x\":1}",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(r(input), want, "{input}");
        }
    }

    /// Shapes the third held-back corpus (`tests/data/hostile/third/`)
    /// found leaking, each with the exact redacted text.
    #[test]
    fn third_corpus_shapes() {
        let cases: [(&str, &str); 35] = [
            // Signature and credentials headers.
            (
                "X-Hub-Signature-256: sha256=LEAKab12\nX-Client-Credentials: c1\nAccept: */*",
                "X-Hub-Signature-256: [REDACTED]\nX-Client-Credentials: [REDACTED]\nAccept: */*",
            ),
            // A name right after a `\n` escape in a JSON string.
            (
                r#"{"t":"env:\nAWS_SECRET_ACCESS_KEY=LEAK/x+y\nNODE_ENV=production"}"#,
                r#"{"t":"env:\nAWS_SECRET_ACCESS_KEY=[REDACTED]\nNODE_ENV=production"}"#,
            ),
            (
                r#"{"h":"X-API-KEY: k1\r\nx-auth-token: LEAK-t2"}"#,
                r#"{"h":"X-API-KEY: [REDACTED]\r\nx-auth-token: [REDACTED]"}"#,
            ),
            // Dotted setting names; a file's name stays.
            (
                r#""a\nspring.datasource.password=LEAK-d2\nspring.datasource.username=app""#,
                r#""a\nspring.datasource.password=[REDACTED]\nspring.datasource.username=app""#,
            ),
            ("env.SECRET_KEY=LEAK-d1 x", "env.SECRET_KEY=[REDACTED] x"),
            ("logs/x.token: cannot read", "logs/x.token: cannot read"),
            (
                "retry with client_secret LEAK-s1x later; the access_token expired",
                "retry with client_secret [REDACTED] later; the access_token expired",
            ),
            // Header pairs of Python and Node dumps.
            (
                "[(b'set-cookie', b'sid=LEAK; Path=/'), (b'content-type', b'text/plain')]",
                "[(b'set-cookie', b'[REDACTED]'), (b'content-type', b'text/plain')]",
            ),
            (
                r#"[["Authorization", "Basic dXNlcjpwYXNz"], ['author', 'Jane']]"#,
                r#"[["Authorization", "[REDACTED]"], ['author', 'Jane']]"#,
            ),
            // Webhook tokens and a Kubernetes bearer subprotocol.
            (
                "https://hooks.slack.com/services/T0A1B2C3D/B0E4F5G6H/abcdefghijklmnopqrstuvwx",
                "https://hooks.slack.com/services/T0A1B2C3D/B0E4F5G6H/[REDACTED]",
            ),
            (
                r#""https:\/\/discord.com\/api\/webhooks\/123456\/abcdefghijklmnopqrstuvwxyz0123""#,
                r#""https:\/\/discord.com\/api\/webhooks\/123456\/[REDACTED]""#,
            ),
            (
                "mcp, base64url.bearer.authorization.k8s.io.abcdefghijklmnop1234",
                "mcp, base64url.bearer.authorization.k8s.io.[REDACTED]",
            ),
            // Command lines without a secret's name.
            (
                "repro: curl -u bob:LEAK-c1 https://ci/",
                "repro: curl -u bob:[REDACTED] https://ci/",
            ),
            (
                "docker login -u ci -p LEAK-c2 registry.example.com",
                "docker login -u ci -p [REDACTED] registry.example.com",
            ),
            ("mysql -uroot -pLEAKc3 app", "mysql -uroot -p[REDACTED] app"),
            (
                "http --auth bob:LEAK-c4 :8080",
                "http --auth [REDACTED] :8080",
            ),
            // Key prefixes.
            (
                "hf_abcdefghijklmnopqrstuvwxyzABCDEF, npm_abcdefghijklmnopqrstuvwxyz0123456789",
                "[REDACTED], [REDACTED]",
            ),
            (
                "whsec_abcdefghijklmnopqrstuvwxyz SG.abcdefghijklmnop.qrstuvwxyzABCDEF",
                "[REDACTED] [REDACTED]",
            ),
            // Gson's escapes: `=` `&` `'` as \u003d \u0026 \u0027.
            (
                r"cb?code\u003dLEAKcode12\u0026state\u003dok; db password\u003dLEAK-g2; x",
                r"cb?code\u003d[REDACTED]\u0026state\u003dok; db password\u003d[REDACTED]; x",
            ),
            (
                r"{\u0027api_key\u0027: \u0027LEAK-g3\u0027}",
                r"{\u0027api_key\u0027: \u0027[REDACTED]\u0027}",
            ),
            // Member names with spaces and colons.
            (
                r#"{"Display Name":"bob","API Key":"LEAK","Client Secret":"LEAK","x:access-token":"LEAK"}"#,
                r#"{"Display Name":"bob","API Key":"[REDACTED]","Client Secret":"[REDACTED]","x:access-token":"[REDACTED]"}"#,
            ),
            // Name/value objects of util.inspect and repr.
            (
                "HeadersList { cookies: null, m: { name: 'X-Api-Key', value: 'LEAK-u1' }, { name: 'Accept', value: 'text/html' } }",
                "HeadersList { cookies: null, m: { name: 'X-Api-Key', value: '[REDACTED]' }, { name: 'Accept', value: 'text/html' } }",
            ),
            (
                "{'name': 'pin', 'value': 'LEAK-u2'}",
                "{'name': 'pin', 'value': '[REDACTED]'}",
            ),
            // A percent-encoded URL in a query value.
            (
                "?next=https%3A%2F%2Fapp%2Fcb%3Faccess_token%3DLEAK-e1%26state%3D1%26q%3Dshoes",
                "?next=https%3A%2F%2Fapp%2Fcb%3Faccess_token%3D[REDACTED]%26state%3D1%26q%3Dshoes",
            ),
            // YAML in a JSON string: a plain value to the line's end, a
            // block scalar's next line.
            (
                r#""db:\n    password: correct horse battery\n    api_key: >-\n      LEAK-y2\n    port: 5432""#,
                r#""db:\n    password: [REDACTED]\n    api_key: >-\n      [REDACTED]\n    port: 5432""#,
            ),
            // Escaped letters and slashes inside a bare value.
            (
                r"login with password=p\u00e4ssw\u00f6rd-9 ok; token=abc\/def+ghi",
                r"login with password=[REDACTED] ok; token=[REDACTED]",
            ),
            (
                r#"OAuth oauth_token="LEAK1", oauth_signature="LEAK2%3D""#,
                r#"OAuth oauth_token="[REDACTED]", oauth_signature="[REDACTED]""#,
            ),
            (
                "POST /acs SAMLResponse=PHNhbWxw&RelayState=%2Fhome",
                "POST /acs SAMLResponse=[REDACTED]&RelayState=%2Fhome",
            ),
            // Tokens cut where a message quotes a line's start.
            (
                "first lines: line 1 \"eyJhbGciOiJSUzI1NiJ9.eyJzdWIi…\", line 2 \"ghp_abc…\"",
                "first lines: line 1 \"[REDACTED]…\", line 2 \"[REDACTED]…\"",
            ),
            // Nothing sent is no secret.
            ("password=None, token: null", "password=None, token: null"),
            ("docker run -u 1000:1000 img", "docker run -u 1000:1000 img"),
            (
                "machine git.example.com login bob password p@ss!w0rd#1\nnext",
                "machine git.example.com login bob password [REDACTED]\nnext",
            ),
            (
                "sshpass -p 'LEAK-s1' ssh ci@host; sshpass -p LEAK-s2 scp a b",
                "sshpass -p '[REDACTED]' ssh ci@host; sshpass -p [REDACTED] scp a b",
            ),
            (
                "jdbc:oracle:thin:scott/LEAK-j1@db.example.com:1521/ORCL",
                "jdbc:oracle:thin:scott/[REDACTED]@db.example.com:1521/ORCL",
            ),
            (
                r#"{"client_key":"LEAK","DD_APP_KEY":"LEAK","hmac_key":"LEAK","license_key":"LEAK","key":"k"}"#,
                r#"{"client_key":"[REDACTED]","DD_APP_KEY":"[REDACTED]","hmac_key":"[REDACTED]","license_key":"[REDACTED]","key":"k"}"#,
            ),
        ];
        for (input, want) in cases {
            assert_eq!(r(input), want, "{input}");
        }
    }

    /// Token shapes opening a line of a JSON string's text (after its
    /// `\n` escape, at any depth), where no word boundary is.
    #[test]
    fn token_shapes_after_an_escape() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln";
        let input = format!(
            r"a\nghp_abcdefghijklmnopqrstuvwxyz0123456789 b\tsk-proj-abcdefghijklmnopqrstuvwx c\\nBearer abcdefgh123 d\rAKIAABCDEFGHIJKLMNOP e\n{jwt}\ncurl -u bob:pw1 x\nclient_secret s3cr3t-1"
        );
        assert_eq!(
            r(&input),
            r"a\n[REDACTED] b\t[REDACTED] c\\nBearer [REDACTED] d\r[REDACTED] e\n[REDACTED]\ncurl -u bob:[REDACTED] x\nclient_secret [REDACTED]"
        );
        // `\n` before an ordinary word changes nothing.
        for s in [
            r"a\nnotes b",
            r"x\nBearer tokens",
            r"\tskip-this",
            "tsk-proj-abcdefghijklmnopqrstuvwx",
        ] {
            assert_eq!(r(s), s);
        }
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for s in [
            "id 9 is still pending",
            "tools/call",
            "fb0b5df5-3256-4083-a965-a3c9625f5b7c",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        ] {
            assert!(matches!(redact(s), Cow::Borrowed(_)), "{s}");
        }
    }
}
