// Drives one MCP session with the TypeScript SDK client and records, with the
// client's own clock, every JSON-RPC message it sent and received (the truth).
// usage: node client.mjs stdio TRUTH.jsonl -- CMD ARGS...
//        node client.mjs http  TRUTH.jsonl URL [TAG]
import { appendFileSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, truthFile, ...rest] = process.argv.slice(2);
writeFileSync(truthFile, "");
const wall0 = BigInt(Date.now()) * 1000n; // µs
const hr0 = process.hrtime.bigint();
function now() {
  const us = wall0 + (process.hrtime.bigint() - hr0) / 1000n;
  const ms = Number(us / 1000n);
  const frac = String(us % 1000000n).padStart(6, "0");
  return new Date(ms).toISOString().slice(0, 19) + "." + frac + "Z";
}
const log = (dir, msg) =>
  appendFileSync(truthFile, JSON.stringify({ ts: now(), dir, msg }) + "\n");

class Tap {
  constructor(inner) { this.inner = inner; }
  async start() {
    this.inner.onmessage = (m, extra) => { log("recv", m); this.onmessage?.(m, extra); };
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (e) => this.onerror?.(e);
    return this.inner.start();
  }
  async send(m, opts) { log("send", m); return this.inner.send(m, opts); }
  async close() { return this.inner.close(); }
  get sessionId() { return this.inner.sessionId; }
  setProtocolVersion(v) { this.inner.setProtocolVersion?.(v); }
  async terminateSession() { return this.inner.terminateSession?.(); }
}

let inner;
if (mode === "stdio") {
  const cmd = rest.slice(rest.indexOf("--") + 1);
  inner = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), env: process.env, stderr: "inherit" });
} else {
  inner = new StreamableHTTPClientTransport(new URL(rest[0]));
}
const tag = rest[1] && mode === "http" ? rest[1] : "c";
const transport = new Tap(inner);
const client = new Client({ name: "mcpsnoop-capture-" + tag, version: "1.0.0" },
  { capabilities: { roots: { listChanged: true } } });
client.setRequestHandler(ListRootsRequestSchema, async () => ({
  roots: [{ uri: "file:///tmp/capture-root", name: "capture-root" }],
}));

await client.connect(transport);
await client.listTools();
await client.callTool({ name: "echo", arguments: { message: "hello " + tag } });
await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
await client.listResources();
await client.listPrompts();
await client.ping();
// the slow one, with progress
await client.callTool(
  { name: "trigger-long-running-operation", arguments: { duration: 2, steps: 4 } },
  undefined,
  { onprogress: () => {}, timeout: 30000 },
);
// a concurrent burst: two slow ones with progress and six quick ones at once
const burst = [];
for (let i = 0; i < 2; i++)
  burst.push(client.callTool(
    { name: "trigger-long-running-operation", arguments: { duration: 0.6 + 0.3 * i, steps: 2 } },
    undefined, { onprogress: () => {} }));
for (let i = 0; i < 3; i++) {
  burst.push(client.callTool({ name: "echo", arguments: { message: `burst ${tag} ${i}` } }));
  burst.push(client.callTool({ name: "get-sum", arguments: { a: i, b: 100 } }));
}
await Promise.all(burst);
await client.callTool({ name: "get-structured-content", arguments: { location: "New York" } });
if (mode === "http") await transport.terminateSession();
await client.close();
