// @modelcontextprotocol/server 2.4.0 (TS SDK v2) for the real5 healthy 2026-07-28 captures.
// createMcpHandler (legacy 'stateless', responseMode 'auto') behind node:http on 127.0.0.1:PORT/mcp,
// or --stdio: serveStdio. Tools:
//   add {a,b}; slow_echo {text, delay_ms}; count_with_progress {steps} (progress 40 ms apart);
//   book_flight {} MRTR in 3 rounds: destination (no requestState), then date (requestState
//     "dest=X"), then seat (requestState "dest=X;date=Y"), then complete;
//   enable_extra {} registers extra_tool (module flag) and publishes toolsChanged to the listens;
//   weather {city} with x-mcp-header "City" (SEP-2243 Mcp-Param-City); forecast {city, days, metric}
//   with x-mcp-header City, Days (integer), Metric (boolean).
// --tap FILE: server-side truth (µs UTC) per HTTP request and response chunk.
import http from 'node:http';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { McpServer, createMcpHandler, inputRequired, acceptedContent } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

const stdio = process.argv.includes('--stdio');
const PORT = Number(process.argv[2]);
const ti = process.argv.indexOf('--tap');
const tap = ti > 0 ? fs.openSync(process.argv[ti + 1], 'a') : null;
const t0 = process.hrtime.bigint(), w0 = BigInt(Date.now()) * 1000n;
const now = () => { const us = w0 + (process.hrtime.bigint() - t0) / 1000n; const d = new Date(Number(us / 1000n)).toISOString(); return d.replace('Z', String(us % 1000n).padStart(3, '0') + 'Z'); };
const log = (o) => { if (tap !== null) fs.writeSync(tap, JSON.stringify({ ts: now(), ...o }) + '\n'); };
let extra = false;
let handler;
const sleep = (ms) => new Promise(r => setTimeout(r, ms));
const txt = (t) => ({ content: [{ type: 'text', text: t }] });
const str1 = (k) => ({ type: 'object', properties: { [k]: { type: 'string' } }, required: [k] });

const factory = () => {
  const server = new McpServer({ name: 'capture-demo-ts2h', version: '0.2.0' }, { capabilities: { tools: { listChanged: true } } });
  server.registerTool('add', { description: 'Add two integers.', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => txt(String(a + b)));
  server.registerTool('slow_echo', { description: 'Echo text after delay_ms.', inputSchema: z.object({ text: z.string(), delay_ms: z.number() }) },
    async ({ text, delay_ms }, ctx) => { await new Promise((r) => { const t = setTimeout(r, delay_ms); ctx?.mcpReq?.signal?.addEventListener?.('abort', () => { clearTimeout(t); r(); }); }); return txt(text); });
  server.registerTool('count_with_progress', { description: 'One progress notification per step, 40 ms apart.', inputSchema: z.object({ steps: z.number() }) },
    async ({ steps }, ctx) => {
      for (let s = 1; s <= steps; s++) {
        const tok = ctx?.mcpReq?._meta?.progressToken;
        if (tok !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: tok, progress: s, total: steps, message: `step ${s}/${steps}` } }).catch(() => {});
        await sleep(40);
      }
      return txt(`counted ${steps}`);
    });
  server.registerTool('book_flight', { description: 'Book a flight (MRTR, three questions).', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const r = ctx.mcpReq.inputResponses ?? {};
      const st = ctx.mcpReq.requestState?.() ?? '';
      const got = (k) => r[k]?.content?.[k];
      if (got('destination') === undefined && !st)
        return inputRequired({ inputRequests: { destination: inputRequired.elicit({ message: 'Where to?', requestedSchema: str1('destination') }) } });
      if (got('destination') !== undefined)
        return inputRequired({ inputRequests: { date: inputRequired.elicit({ message: 'When?', requestedSchema: str1('date') }) }, requestState: `dest=${got('destination')}` });
      if (got('date') !== undefined)
        return inputRequired({ inputRequests: { seat: inputRequired.elicit({ message: 'Seat?', requestedSchema: str1('seat') }) }, requestState: `${st};date=${got('date')}` });
      return txt(`Booked ${st};seat=${got('seat')}`);
    });
  server.registerTool('enable_extra', { description: 'Add extra_tool and tell the listens.', inputSchema: z.object({}) },
    async () => { extra = true; if (handler) handler.notify.toolsChanged(); else server.sendToolListChanged(); return txt('extra_tool enabled'); });
  server.registerTool('weather', { description: 'Weather for a city (City header).', inputSchema: z.object({ city: z.string().meta({ 'x-mcp-header': 'City' }) }) },
    async ({ city }) => txt(`sunny in ${city}`));
  server.registerTool('forecast', { description: 'Forecast (City, Days, Metric headers).', inputSchema: z.object({ city: z.string().meta({ 'x-mcp-header': 'City' }), days: z.number().int().meta({ 'x-mcp-header': 'Days' }), metric: z.boolean().meta({ 'x-mcp-header': 'Metric' }) }) },
    async ({ city, days, metric }) => txt(`${days} days in ${city} (${metric ? 'C' : 'F'})`));
  server.registerTool('close_listens', { description: 'Close the modern leg 100 ms after answering (graceful listen close).', inputSchema: z.object({}) },
    async () => { setTimeout(() => handler?.close().catch((e) => console.error('close:', e.message)), 100); return txt('closing'); });
  if (extra) server.registerTool('extra_tool', { description: 'Added at run time.', inputSchema: z.object({}) }, async () => txt('extra'));
  return server;
};

if (stdio) {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  await serveStdio(factory);
} else {
  handler = createMcpHandler(factory, { onerror: (e) => console.error('onerror:', e.message) });
  http.createServer(async (req, res) => {
    const rid = randomUUID().slice(0, 8);
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    log({ ev: 'request', rid, method: req.method, url: req.url, headers: req.headers, body: body.toString('utf8') });
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const ac = new AbortController();
    res.on('close', () => { if (!res.writableFinished) { log({ ev: 'client_closed', rid }); ac.abort(); } });
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, signal: ac.signal, body: ['GET', 'HEAD', 'DELETE'].includes(req.method) ? undefined : body });
    const resp = await handler.fetch(request);
    const rh = Object.fromEntries(resp.headers);
    res.writeHead(resp.status, rh);
    log({ ev: 'response_start', rid, status: resp.status, headers: rh });
    if (resp.body) {
      const reader = resp.body.getReader();
      res.on('close', () => reader.cancel().catch(() => {}));
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ done: true }));
        if (done) break;
        log({ ev: 'response_chunk', rid, data: Buffer.from(value).toString('utf8') });
        res.write(value);
      }
    }
    res.end();
    log({ ev: 'response_end', rid, status: resp.status });
  }).listen(PORT, '127.0.0.1', () => console.error(`capture-demo-ts2h listening on 127.0.0.1:${PORT}`));
  process.on('SIGTERM', () => process.exit(0));
}
