//! Which side of a session sends a method: the one table of methods only a
//! server sends, read by every reader that must tell a message's direction
//! from its method alone (MCPSpy, the Inspector's history, bare NDJSON,
//! the envelope's unknown direction values).

/// The methods only a server sends (its requests and notifications, MCP
/// 2025-11-25; FORMATS.md §3.3): the one table of them.
pub const SERVER_ONLY: [&str; 9] = [
    "sampling/createMessage",
    "roots/list",
    "elicitation/create",
    "notifications/message",
    "notifications/resources/updated",
    "notifications/resources/list_changed",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/elicitation/complete",
];

/// Which side a method names its sender (MCP 2025-11-25 §3.3 of
/// FORMATS.md): `Some(true)` only a client sends it, `Some(false)` only a
/// server, `None` either (ping, progress, cancelled, responses).
pub fn sent_by_client(kind: &str, method: Option<&str>) -> Option<bool> {
    let m = method?;
    if kind == "response" {
        return None;
    }
    const EITHER: [&str; 4] = [
        "ping",
        "notifications/progress",
        "notifications/cancelled",
        "notifications/tasks/status",
    ];
    if SERVER_ONLY.contains(&m) {
        Some(false)
    } else if EITHER.contains(&m) || m.starts_with("tasks/") {
        None
    } else {
        Some(true)
    }
}
