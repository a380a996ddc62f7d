// The page's client: TS SDK Client + StreamableHTTPClientTransport, with a log of
// every JSON-RPC message the transport sent and delivered (the truth).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const log = (window.__log = []);
const now = () => new Date().toISOString();
const url = new URL(location.href).searchParams.get("mcp");
async function main() {
  const t = new StreamableHTTPClientTransport(new URL(url));
  const send = t.send.bind(t);
  t.send = (m, o) => { log.push({ ts: now(), dir: "c2s", msg: m }); return send(m, o); };
  const client = new Client({ name: "capture-browser-page", version: "0.4.0" }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ model: "fake", role: "assistant", content: { type: "text", text: "42" } }));
  const start = t.start.bind(t);
  t.start = async () => {
    const onm = t.onmessage;
    t.onmessage = (m, e) => { log.push({ ts: now(), dir: "s2c", msg: m }); onm(m, e); };
    return start();
  };
  await client.connect(t);
  await client.listTools();
  // concurrent calls that finish out of order
  await Promise.all([300, 40, 160].map((d, k) => client.callTool({ name: "slow_echo", arguments: { text: "c" + k, delay_ms: d } })));
  // a server->client request on the call's stream
  await client.callTool({ name: "ask_llm", arguments: {} });
  // a server->client request on the GET stream
  await client.callTool({ name: "ask_llm_get", arguments: {} });
  // a failing call
  try { await client.callTool({ name: "fail_rpc", arguments: {} }); } catch (e) { log.push({ ts: now(), note: "fail_rpc rejected: " + e.message }); }
  // an aborted stream: a raw POST the page aborts after 150 ms
  const ac = new AbortController();
  const body = { jsonrpc: "2.0", id: 900, method: "tools/call", params: { name: "slow_echo", arguments: { text: "aborted", delay_ms: 1500 } } };
  log.push({ ts: now(), dir: "c2s", msg: body, raw: true });
  const p = fetch(url, { method: "POST", signal: ac.signal, body: JSON.stringify(body), headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": t.sessionId, "mcp-protocol-version": "2025-11-25" } })
    .then((r) => r.text()).catch((e) => log.push({ ts: now(), note: "raw 900 aborted: " + e.name }));
  setTimeout(() => ac.abort(), 150);
  await p;
  await client.ping();
  // a notification on the GET stream, which stays open at export
  await client.callTool({ name: "notify_later", arguments: { delay_ms: 300 } });
  await new Promise((r) => setTimeout(r, 600));
  // the session (and its GET stream) stays open at export
  log.push({ ts: now(), note: "done" });
  window.__done = true;
}
main().catch((e) => { log.push({ ts: now(), note: "error " + e.stack }); window.__done = true; });
