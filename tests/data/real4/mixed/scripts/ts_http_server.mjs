// @modelcontextprotocol/sdk 1.32.2 McpServer over StreamableHTTPServerTransport,
// stateful (randomUUID session ids), enableJsonResponse: !process.argv.includes('--sse'), on 127.0.0.1:PORT/mcp.
// Tools: add {a,b}, slow_echo {text, delay_ms}, count_with_progress {steps}.
// --tap FILE: server-side truth, JSON lines (µs UTC): every request (method, url,
// headers, parsed body as express.json() gave it) and every response (status,
// headers, each body chunk as written).
// usage: node ts_json_server.mjs PORT [--tap FILE]
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

const PORT = Number(process.argv[2]);
const ti = process.argv.indexOf('--tap');
const tap = ti > 0 ? fs.openSync(process.argv[ti + 1], 'a') : null;
const t0 = process.hrtime.bigint(), w0 = BigInt(Date.now()) * 1000n;
const now = () => { const us = w0 + (process.hrtime.bigint() - t0) / 1000n; const d = new Date(Number(us / 1000n)).toISOString(); return d.replace('Z', String(us % 1000n).padStart(3, '0') + 'Z'); };
const log = (o) => { if (tap !== null) fs.writeSync(tap, JSON.stringify({ ts: now(), ...o }) + '\n'); };

const getServer = () => {
  const server = new McpServer({ name: process.argv.includes('--sse') ? 'capture-demo-ts-sse' : 'capture-demo-ts-json', version: '0.1.0' }, { capabilities: { logging: {} } });
  server.registerTool('add', { description: 'Add two integers.', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  server.registerTool('slow_echo', { description: 'Echo text after delay_ms.', inputSchema: { text: z.string(), delay_ms: z.number() } },
    async ({ text, delay_ms }) => { await new Promise(r => setTimeout(r, delay_ms)); return { content: [{ type: 'text', text }] }; });
  server.registerTool('count_with_progress', { description: 'One progress notification per step, 50 ms apart.', inputSchema: { steps: z.number() } },
    async ({ steps }, extra) => {
      const tok = extra._meta?.progressToken;
      for (let s = 1; s <= steps; s++) {
        if (tok !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: tok, progress: s, total: steps } });
        await new Promise(r => setTimeout(r, 50));
      }
      return { content: [{ type: 'text', text: `counted ${steps}` }] };
    });
  return server;
};

const app = createMcpExpressApp();
app.use((req, res, next) => {
  const rid = randomUUID().slice(0, 8);
  log({ ev: 'request', rid, method: req.method, url: req.url, headers: req.headers, body: req.body === undefined ? null : req.body });
  const ow = res.write.bind(res), oe = res.end.bind(res), owh = res.writeHead.bind(res);
  res.writeHead = (...a) => { const r = owh(...a); log({ ev: 'response_start', rid, status: res.statusCode, headers: res.getHeaders() }); return r; };
  res.write = (chunk, ...a) => { if (chunk && chunk.length) log({ ev: 'response_chunk', rid, data: Buffer.from(chunk).toString('utf8') }); return ow(chunk, ...a); };
  res.end = (chunk, ...a) => { if (chunk && typeof chunk !== 'function' && chunk.length) log({ ev: 'response_chunk', rid, data: Buffer.from(chunk).toString('utf8') }); log({ ev: 'response_end', rid, status: res.statusCode }); return oe(chunk, ...a); };
  next();
});
const sessions = new Map();
app.post('/mcp', async (req, res) => {
  const sid = req.headers['mcp-session-id'];
  if (sid && sessions.has(sid)) return sessions.get(sid).handleRequest(req, res, req.body);
  if (!sid && isInitializeRequest(req.body)) {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(), enableJsonResponse: !process.argv.includes('--sse'),
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
    await getServer().connect(transport);
    return transport.handleRequest(req, res, req.body);
  }
  res.status(sid ? 404 : 400).json({ jsonrpc: '2.0', error: { code: sid ? -32001 : -32000, message: sid ? 'Session not found' : 'Bad Request: No valid session ID provided' }, id: null });
});
app.delete('/mcp', async (req, res) => {
  const sid = req.headers['mcp-session-id'];
  if (sid && sessions.has(sid)) return sessions.get(sid).handleRequest(req, res);
  res.status(404).end();
});
app.get('/mcp', (req, res) => res.status(405).set('Allow', 'POST').send('Method Not Allowed'));
app.listen(PORT, '127.0.0.1', () => console.error(`capture-demo-ts-json listening on 127.0.0.1:${PORT}`));
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
