// Test MCP client (official TypeScript SDK). Usage:
//   node client.mjs http URL TRUTH.json
//   node client.mjs stdio TRUTH.json -- CMD ARGS...
// Writes the sending side's ground truth (every request it made, outcome) to TRUTH.json.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import fs from "node:fs";

const [mode, a1, a2, ...rest] = process.argv.slice(2);
const skip = new Set((process.env.SKIP ?? "").split(",").filter(Boolean));
let transport, truthFile;
if (mode === "http") {
  truthFile = a2;
  transport = new StreamableHTTPClientTransport(new URL(a1), {
    requestInit: { headers: { Authorization: "Bearer sk-live-SUPERSECRET-abcdef123456", Cookie: "session=COOKIESECRET42" } },
  });
} else {
  truthFile = a1;
  const all = [a2, ...rest]; const cmd = all[0] === "--" ? all.slice(1) : all;
  transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: "inherit" });
}
const client = new Client({ name: "fresh-user-client", version: "1.0.0" },
  { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } });
const truth = { client_requests: [], server_requests_answered: [], notes: [] };
client.setRequestHandler(CreateMessageRequestSchema, async () => {
  truth.server_requests_answered.push("sampling/createMessage");
  return { role: "assistant", content: { type: "text", text: "hi" }, model: "fake-model" };
});
client.setRequestHandler(ElicitRequestSchema, async () => {
  truth.server_requests_answered.push("elicitation/create");
  return { action: "accept", content: { name: "Ada" } };
});
client.setRequestHandler(ListRootsRequestSchema, async () => {
  truth.server_requests_answered.push("roots/list");
  return { roots: [{ uri: "file:///tmp/project", name: "project" }] };
});

const t0 = Date.now();
async function call(label, fn) {
  const s = Date.now();
  try {
    const r = await fn();
    const isError = r && r.isError === true;
    truth.client_requests.push({ label, outcome: isError ? "result isError:true" : "ok", ms: Date.now() - s });
    return r;
  } catch (e) {
    truth.client_requests.push({ label, outcome: `error: ${e.code ?? ""} ${e.message}`, ms: Date.now() - s });
  }
}

await client.connect(transport);
truth.client_requests.push({ label: "initialize", outcome: "ok" });
await call("tools/list", () => client.listTools());
// 5 concurrent echo calls with different delays (responses come back out of order)
await Promise.all([400, 100, 300, 0, 200].map((d, i) =>
  call(`tools/call echo #${i} delay ${d}`, () => client.callTool({ name: "echo", arguments: { text: `m${i}`, delay: d } }))));
let progress = 0;
await call("tools/call slow (progress x4)", () => client.callTool({ name: "slow", arguments: { steps: 4, ms: 150 } }, undefined,
  { onprogress: () => { progress++; } }));
truth.notes.push(`progress notifications received: ${progress}`);
await call("tools/call fail (isError)", () => client.callTool({ name: "fail", arguments: {} }));
await call("tools/call boom (McpError thrown)", () => client.callTool({ name: "boom", arguments: {} }));
await call("tools/call nosuchtool", () => client.callTool({ name: "nosuchtool", arguments: {} }));
await call("tools/call login (password arg)", () => client.callTool({ name: "login", arguments: { user: "ada", password: "hunter2-PASSWORD-SECRET" } }));
// cancelled call
const ac = new AbortController();
setTimeout(() => ac.abort("user cancelled"), 300);
await call("tools/call slow (cancelled after 300ms)", () => client.callTool({ name: "slow", arguments: { steps: 10, ms: 200 } }, undefined, { signal: ac.signal }));
if (!skip.has("sampling")) await call("tools/call ask_llm (sampling)", () => client.callTool({ name: "ask_llm", arguments: {} }));
if (!skip.has("elicit")) await call("tools/call ask_user (elicitation)", () => client.callTool({ name: "ask_user", arguments: {} }));
if (!skip.has("roots")) await call("tools/call roots (roots/list)", () => client.callTool({ name: "roots", arguments: {} }));
await call("tools/call log", () => client.callTool({ name: "log", arguments: {} }));
await call("ping", () => client.ping());
await new Promise(r => setTimeout(r, 300));
await client.close();
truth.total_ms = Date.now() - t0;
truth.client_request_count = truth.client_requests.length;
fs.writeFileSync(truthFile, JSON.stringify(truth, null, 2));
console.error(JSON.stringify(truth, null, 2));
