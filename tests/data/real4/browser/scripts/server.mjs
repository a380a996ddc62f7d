// TS SDK 1.32.2 demo server over Streamable HTTP (SSE replies), 127.0.0.1 only,
// with a server tap: every request body received and every response chunk sent
// (JSON lines, ms UTC) -> TAP file.
import express from "express";
import cors from "cors";
import fs from "node:fs";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ListToolsRequestSchema, CallToolRequestSchema, CreateMessageResultSchema } from "@modelcontextprotocol/sdk/types.js";

const PORT = +process.argv[2], TAP = process.argv[3];
const tap = (o) => fs.appendFileSync(TAP, JSON.stringify({ ts: new Date().toISOString(), ...o }) + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function makeServer() {
  const s = new Server({ name: "capture-browser-ts", version: "0.4.0" }, { capabilities: { tools: {}, logging: {} } });
  s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [
    { name: "slow_echo", description: "echo after delay_ms", inputSchema: { type: "object", properties: { text: { type: "string" }, delay_ms: { type: "number" } } } },
    { name: "ask_llm", description: "sampling on the call's stream", inputSchema: { type: "object" } },
    { name: "fail_rpc", description: "JSON-RPC error", inputSchema: { type: "object" } },
    { name: "ask_llm_get", description: "sampling on the GET stream", inputSchema: { type: "object" } },
    { name: "notify_later", description: "a log notification on the GET stream after delay_ms", inputSchema: { type: "object" } },
  ] }));
  s.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const a = req.params.arguments || {};
    if (req.params.name === "slow_echo") {
      await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: `slow_echo ${a.text} – ${a.delay_ms} ms` } });
      await sleep(a.delay_ms || 10);
      return { content: [{ type: "text", text: `${a.text} ✓` }] };
    }
    if (req.params.name === "ask_llm") {
      const r = await extra.sendRequest({ method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "6*7?" } }], maxTokens: 10 } }, CreateMessageResultSchema);
      return { content: [{ type: "text", text: `llm said ${r.content.text}` }] };
    }
    if (req.params.name === "ask_llm_get") {
      const r = await s.createMessage({ messages: [{ role: "user", content: { type: "text", text: "2+2?" } }], maxTokens: 10 });
      return { content: [{ type: "text", text: `llm said ${r.content.text}` }] };
    }
    if (req.params.name === "notify_later") {
      setTimeout(() => s.sendLoggingMessage({ level: "info", data: `later – ${a.delay_ms} ms` }).catch(() => {}), a.delay_ms || 100);
      return { content: [{ type: "text", text: "scheduled" }] };
    }
    if (req.params.name === "fail_rpc") throw Object.assign(new Error("fail_rpc always fails"), { code: -32603 });
    throw Object.assign(new Error("no such tool"), { code: -32602 });
  });
  return s;
}

const transports = {};
const app = express();
app.use(cors({ origin: "*", exposedHeaders: ["mcp-session-id", "mcp-protocol-version", "last-event-id"] }));
app.use(express.json());
app.use((req, res, next) => {
  const rid = randomUUID().slice(0, 8);
  tap({ ev: "request", rid, method: req.method, sid: req.headers["mcp-session-id"] || null, body: req.body ?? null });
  const w = res.write.bind(res), e = res.end.bind(res);
  res.write = (c, ...r) => { tap({ ev: "chunk", rid, data: Buffer.from(c).toString("utf8") }); return w(c, ...r); };
  res.end = (c, ...r) => { if (c && typeof c !== "function") tap({ ev: "chunk", rid, data: Buffer.from(c).toString("utf8") }); tap({ ev: "end", rid, status: res.statusCode }); return e(c, ...r); };
  res.on("close", () => tap({ ev: "close", rid }));
  next();
});
app.all("/mcp", async (req, res) => {
  const sid = req.headers["mcp-session-id"];
  let t = sid && transports[sid];
  if (!t) {
    if (req.method !== "POST" || req.body?.method !== "initialize") { res.status(400).json({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "no session" } }); return; }
    t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => { transports[id] = t; } });
    await makeServer().connect(t);
  }
  await t.handleRequest(req, res, req.body);
});
app.listen(PORT, "127.0.0.1", () => console.log("listening", PORT));
