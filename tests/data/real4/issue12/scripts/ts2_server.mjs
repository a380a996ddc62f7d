// @modelcontextprotocol/server 2.4.0 (TS SDK v2) McpServer served by createMcpHandler
// (defaults: legacy 'stateless' serving of 2025-era traffic, responseMode 'auto' for
// 2026-07-28) behind a minimal node:http -> fetch Request adapter on 127.0.0.1:PORT/mcp.
// Tools: add {a,b}, slow_echo {text, delay_ms}, count_with_progress {steps}.
// --tap FILE: server-side truth (µs UTC): each request (method, url, headers, body text)
// and each response (status, headers, body chunks as written, end).
// usage: node ts2_server.mjs PORT [--tap FILE]
import http from 'node:http';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

const PORT = Number(process.argv[2]);
const ti = process.argv.indexOf('--tap');
const tap = ti > 0 ? fs.openSync(process.argv[ti + 1], 'a') : null;
const t0 = process.hrtime.bigint(), w0 = BigInt(Date.now()) * 1000n;
const now = () => { const us = w0 + (process.hrtime.bigint() - t0) / 1000n; const d = new Date(Number(us / 1000n)).toISOString(); return d.replace('Z', String(us % 1000n).padStart(3, '0') + 'Z'); };
const log = (o) => { if (tap !== null) fs.writeSync(tap, JSON.stringify({ ts: now(), ...o }) + '\n'); };

const factory = () => {
  const server = new McpServer({ name: 'capture-demo-ts2', version: '0.1.0' });
  server.registerTool('add', { description: 'Add two integers.', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  server.registerTool('slow_echo', { description: 'Echo text after delay_ms.', inputSchema: z.object({ text: z.string(), delay_ms: z.number() }) },
    async ({ text, delay_ms }) => { await new Promise(r => setTimeout(r, delay_ms)); return { content: [{ type: 'text', text }] }; });
  server.registerTool('count_with_progress', { description: 'One progress notification per step, 50 ms apart.', inputSchema: z.object({ steps: z.number() }) },
    async ({ steps }, ctx) => {
      for (let s = 1; s <= steps; s++) {
        if (ctx?.mcpReq?.notify) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: ctx.mcpReq._meta?.progressToken, progress: s, total: steps } }).catch(() => {});
        await new Promise(r => setTimeout(r, 50));
      }
      return { content: [{ type: 'text', text: `counted ${steps}` }] };
    });
  return server;
};
const handler = createMcpHandler(factory, { onerror: (e) => console.error('onerror:', e.message) });

http.createServer(async (req, res) => {
  const rid = randomUUID().slice(0, 8);
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks);
  log({ ev: 'request', rid, method: req.method, url: req.url, headers: req.headers, body: body.toString('utf8') });
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body: ['GET', 'HEAD', 'DELETE'].includes(req.method) ? undefined : body });
  const resp = await handler.fetch(request);
  const rh = Object.fromEntries(resp.headers);
  res.writeHead(resp.status, rh);
  log({ ev: 'response_start', rid, status: resp.status, headers: rh });
  if (resp.body) {
    const reader = resp.body.getReader();
    req.on('close', () => reader.cancel().catch(() => {}));
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ done: true }));
      if (done) break;
      log({ ev: 'response_chunk', rid, data: Buffer.from(value).toString('utf8') });
      res.write(value);
    }
  }
  res.end();
  log({ ev: 'response_end', rid, status: resp.status });
}).listen(PORT, '127.0.0.1', () => console.error(`capture-demo-ts2 listening on 127.0.0.1:${PORT}`));
process.on('SIGTERM', () => process.exit(0));
