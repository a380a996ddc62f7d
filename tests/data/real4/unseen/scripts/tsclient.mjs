// TS SDK client feature run against @modelcontextprotocol/server-everything, with a tap.
// usage: node tsclient.mjs stdio TRUTH.jsonl -- CMD ARGS...
//        node tsclient.mjs http|sse TRUTH.jsonl URL
// env PAUSE=FILE: after the first half, create FILE and wait until it is removed (server restart).
import { appendFileSync, writeFileSync, existsSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { ListRootsRequestSchema, CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, truthFile, ...rest] = process.argv.slice(2);
writeFileSync(truthFile, "");
const wall0 = BigInt(Date.now()) * 1000n;
const hr0 = process.hrtime.bigint();
function now() {
  const us = wall0 + (process.hrtime.bigint() - hr0) / 1000n;
  const ms = Number(us / 1000n);
  return new Date(ms).toISOString().slice(0, 19) + "." + String(us % 1000000n).padStart(6, "0") + "Z";
}
const log = (dir, msg) => appendFileSync(truthFile, JSON.stringify({ ts: now(), dir, msg }) + "\n");
const note = (s) => { log("note", s); console.error("[client] " + s); };

class Tap {
  constructor(inner) { this.inner = inner; }
  async start() {
    this.inner.onmessage = (m, extra) => { log("recv", m); this.onmessage?.(m, extra); };
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (e) => { note("transport error: " + e); this.onerror?.(e); };
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
} else if (mode === "sse") {
  inner = new SSEClientTransport(new URL(rest[0]));
} else {
  inner = new StreamableHTTPClientTransport(new URL(rest[0]));
}
const transport = new Tap(inner);
const client = new Client({ name: "unseen-ts-client", version: "1.0.0" },
  { capabilities: { roots: { listChanged: true }, sampling: {} } });
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///tmp/unseen-root", name: "unseen" }] }));
client.setRequestHandler(CreateMessageRequestSchema, async () => ({
  role: "assistant", content: { type: "text", text: "42" }, model: "fake-llm", stopReason: "endTurn" }));

async function step(name, p) {
  try { const r = await p; note(`${name}: ok${r && r.isError ? " (isError)" : ""}`); return r; }
  catch (e) { note(`${name}: threw ${e && e.code !== undefined ? "code " + e.code + " " : ""}${String(e && e.message).slice(0, 160)}`); }
}
const opt = { timeout: 20000 };
await client.connect(transport);
note("connected " + JSON.stringify(client.getServerVersion()));
const tl = await step("tools/list", client.listTools());
const names = new Set((tl?.tools || []).map((t) => t.name));
await step("resources/list", client.listResources());
await step("prompts/list", client.listPrompts());
await step("ping", client.ping());
await step("echo short", client.callTool({ name: "echo", arguments: { message: "hello unseen" } }, undefined, opt));
const long = "L".repeat(40) + " " + Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ") + " " + "é✓".repeat(100);
await step("echo long", client.callTool({ name: "echo", arguments: { message: long } }, undefined, opt));
await step("get-tiny-image", client.callTool({ name: "get-tiny-image", arguments: {} }, undefined, opt));
await step("get-resource-reference", client.callTool({ name: "get-resource-reference", arguments: { resourceType: "Text", resourceId: 3 } }, undefined, opt));
await step("progress", client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 1, steps: 4 } },
  undefined, { ...opt, onprogress: (p) => note("progress " + JSON.stringify(p)) }));
if (process.env.PAUSE) {
  writeFileSync(process.env.PAUSE, "paused\n");
  note("paused for restart");
  while (existsSync(process.env.PAUSE)) await new Promise((r) => setTimeout(r, 100));
  note("resumed");
  await step("ping after restart", client.ping());
  await step("echo after restart", client.callTool({ name: "echo", arguments: { message: "after restart" } }, undefined, opt));
}
// concurrent burst, finishing out of order
const burst = [
  step("burst slow 0.6", client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 0.6, steps: 2 } }, undefined, opt)),
  step("burst slow 0.2", client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 0.2, steps: 1 } }, undefined, opt)),
  step("burst slow 0.4", client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 0.4, steps: 2 } }, undefined, opt)),
  step("burst echo", client.callTool({ name: "echo", arguments: { message: "burst" } }, undefined, opt)),
  step("burst sum", client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } }, undefined, opt)),
];
await Promise.all(burst);
// errors
await step("unknown tool", client.callTool({ name: "no_such_tool", arguments: {} }, undefined, opt));
await step("bad args", client.callTool({ name: "get-sum", arguments: { a: "x" } }, undefined, opt));
await step("read unknown resource", client.readResource({ uri: "demo://resource/static/document/nope.md" }, opt));
if (names.has("trigger-sampling-request"))
  await step("sampling", client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "what is 6*7", maxTokens: 10 } }, undefined, opt));
if (names.has("get-roots-list"))
  await step("get-roots-list", client.callTool({ name: "get-roots-list", arguments: {} }, undefined, opt));
await step("ping end", client.ping());
if (mode === "http") await step("terminate", transport.terminateSession());
await client.close();
note("closed");
