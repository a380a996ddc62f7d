// Test MCP server (official TypeScript SDK). Usage:
//   node server.mjs stdio
//   node server.mjs http PORT      (stateful Streamable HTTP on 127.0.0.1:PORT/mcp)
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { McpError, ErrorCode, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { randomUUID } from "node:crypto";
import { z } from "zod";

const sleep = (ms, signal) => new Promise((res, rej) => {
  const t = setTimeout(res, ms);
  signal?.addEventListener("abort", () => { clearTimeout(t); rej(new Error("aborted")); });
});

function build() {
  const server = new McpServer({ name: "fresh-user-ts", version: "1.0.0" },
    { capabilities: { logging: {} } });
  server.registerTool("echo", { description: "echo", inputSchema: { text: z.string(), delay: z.number().optional() } },
    async ({ text, delay }, extra) => {
      if (delay) await sleep(delay, extra.signal);
      return { content: [{ type: "text", text }] };
    });
  server.registerTool("slow", { description: "slow with progress", inputSchema: { steps: z.number(), ms: z.number() } },
    async ({ steps, ms }, extra) => {
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        await sleep(ms, extra.signal);
        if (token !== undefined) {
          await extra.sendNotification({ method: "notifications/progress",
            params: { progressToken: token, progress: i, total: steps, message: `step ${i}` } });
        }
      }
      return { content: [{ type: "text", text: `done ${steps}` }] };
    });
  server.registerTool("fail", { description: "tool-level failure", inputSchema: {} },
    async () => ({ isError: true, content: [{ type: "text", text: "it failed on purpose" }] }));
  server.registerTool("boom", { description: "throws McpError", inputSchema: {} },
    async () => { throw new McpError(ErrorCode.InternalError, "boom on purpose"); });
  server.registerTool("login", { description: "takes a password", inputSchema: { user: z.string(), password: z.string() } },
    async ({ user }) => ({ content: [{ type: "text", text: `hello ${user}, your session token is tok_SECRETRESULT123` }] }));
  server.registerTool("ask_llm", { description: "sampling", inputSchema: {} },
    async () => {
      const r = await server.server.createMessage({ messages: [{ role: "user", content: { type: "text", text: "say hi" } }], maxTokens: 10 });
      return { content: [{ type: "text", text: `llm said: ${r.content.text}` }] };
    });
  server.registerTool("ask_user", { description: "elicitation", inputSchema: {} },
    async () => {
      const r = await server.server.elicitInput({ message: "your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } });
      return { content: [{ type: "text", text: `user: ${JSON.stringify(r)}` }] };
    });
  server.registerTool("roots", { description: "roots", inputSchema: {} },
    async () => {
      const r = await server.server.listRoots();
      return { content: [{ type: "text", text: JSON.stringify(r.roots) }] };
    });
  server.registerTool("log", { description: "logs", inputSchema: {} },
    async (_a, extra) => {
      await server.sendLoggingMessage({ level: "info", data: "a log line" }, extra.sessionId);
      return { content: [{ type: "text", text: "logged" }] };
    });
  return server;
}

const mode = process.argv[2] ?? "stdio";
if (mode === "stdio") {
  await build().connect(new StdioServerTransport());
} else {
  const express = (await import("express")).default;
  const app = express();
  app.use(express.json());
  const transports = {};
  app.all("/mcp", async (req, res) => {
    const sid = req.headers["mcp-session-id"];
    let t = sid && transports[sid];
    if (!t) {
      if (req.method !== "POST" || !isInitializeRequest(req.body)) {
        res.status(400).json({ jsonrpc: "2.0", error: { code: -32000, message: "no session" }, id: null });
        return;
      }
      t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => { transports[id] = t; },
      });
      t.onclose = () => { if (t.sessionId) delete transports[t.sessionId]; };
      await build().connect(t);
    }
    await t.handleRequest(req, res, req.body);
  });
  const port = Number(process.argv[3] ?? 3001);
  app.listen(port, "127.0.0.1", () => console.error(`listening ${port}`));
}
