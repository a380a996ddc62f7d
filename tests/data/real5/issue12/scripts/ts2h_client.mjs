// @modelcontextprotocol/client 2.4.0 (TS SDK v2) healthy 2026-07-28 session (versionNegotiation auto).
// usage: node ts2h_client.mjs http URL --tap FILE [--hold MS]
//        node ts2h_client.mjs stdio --tap FILE [--hold MS] -- CMD ARGS...
// Client tap (HTTP only; µs UTC): every fetch as sent (method, url, headers, body), the response
// (status, headers), each body chunk as read, its end or the abort. Client events (call start/end)
// go to the tap in both modes. The run:
//   connect (server/discover); listTools; listen {toolsListChanged}; three concurrent calls
//   slow_echo A 400 ms, slow_echo B 60 ms, add(2,3) (they finish B/add, then A); count_with_progress 4
//   with onprogress; book_flight (MRTR: destination, date, seat; the elicitation handler waits 800 ms
//   like a person); weather Oslo, weather Zürich, forecast 東京 3 false (Mcp-Param-City/-Days/-Metric; non-ASCII values go =?base64?…?=); slow_echo C 3000 ms aborted after 300 ms (cancelled);
//   enable_extra, wait for the listen's tools/list_changed; listTools; hold, then exit with the listen open.
import fs from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const mode = process.argv[2];
const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
const tapf = fs.openSync(arg('--tap'), 'w');
const hold = Number(arg('--hold', '1500'));
const t0 = process.hrtime.bigint(), w0 = BigInt(Date.now()) * 1000n;
const now = () => { const us = w0 + (process.hrtime.bigint() - t0) / 1000n; const d = new Date(Number(us / 1000n)).toISOString(); return d.replace('Z', String(us % 1000n).padStart(3, '0') + 'Z'); };
const log = (o) => fs.writeSync(tapf, JSON.stringify({ ts: now(), ...o }) + '\n');
const sleep = (ms) => new Promise(r => setTimeout(r, ms));
let n = 0;

async function tapFetch(url, init = {}) {
  const rid = ++n;
  const h = {}; new Headers(init.headers ?? {}).forEach((v, k) => { h[k] = v; });
  log({ ev: 'req', rid, method: init.method ?? 'GET', url: String(url), headers: h, body: typeof init.body === 'string' ? init.body : null });
  init.signal?.addEventListener?.('abort', () => log({ ev: 'abort', rid }));
  let resp;
  try { resp = await fetch(url, init); } catch (e) { log({ ev: 'fetch_error', rid, error: String(e) }); throw e; }
  const rh = {}; resp.headers.forEach((v, k) => { rh[k] = v; });
  log({ ev: 'resp', rid, status: resp.status, headers: rh });
  if (!resp.body) { log({ ev: 'resp_end', rid }); return resp; }
  const reader = resp.body.getReader();
  const dec = new TextDecoder();
  const body = new ReadableStream({
    async pull(c) {
      try {
        const { value, done } = await reader.read();
        if (done) { log({ ev: 'resp_end', rid }); c.close(); return; }
        log({ ev: 'resp_chunk', rid, data: dec.decode(value, { stream: true }) });
        c.enqueue(value);
      } catch (e) { log({ ev: 'resp_error', rid, error: String(e) }); c.error(e); }
    },
    cancel(r) { log({ ev: 'resp_cancel', rid }); return reader.cancel(r); }
  });
  return new Response(body, { status: resp.status, statusText: resp.statusText, headers: resp.headers });
}

const client = new Client({ name: 'capture-ts2h-client', version: '0.1.0' },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
const answers = { destination: 'Paris', date: '2026-08-01', seat: '12A' };
client.setRequestHandler('elicitation/create', async (req) => {
  const field = Object.keys(req.params.requestedSchema.properties)[0];
  log({ ev: 'elicit', field }); await sleep(800);
  return { action: 'accept', content: { [field]: answers[field] } };
});
let changed;
const changedP = new Promise(r => { changed = r; });
client.setNotificationHandler('notifications/tools/list_changed', () => { log({ ev: 'list_changed' }); changed(); });

let transport;
if (mode === 'http') transport = new StreamableHTTPClientTransport(new URL(process.argv[3]), { fetch: tapFetch });
else {
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const c = process.argv.slice(process.argv.indexOf('--') + 1);
  transport = new StdioClientTransport({ command: c[0], args: c.slice(1), stderr: 'inherit' });
}
const step = async (name, f) => { log({ ev: 'start', name }); const t = Date.now(); try { const r = await f(); log({ ev: 'end', name, ms: Date.now() - t, r }); console.log(name, 'ok', Date.now() - t, 'ms', JSON.stringify(r).slice(0, 160)); return r; } catch (e) { log({ ev: 'fail', name, error: String(e) }); console.log(name, 'FAIL', String(e)); } };
const tool = (name, args, opts) => () => client.callTool({ name, arguments: args }, opts);

await step('connect', async () => { await client.connect(transport); return { era: client.getProtocolEra?.(), version: client.getNegotiatedProtocolVersion?.() }; });
await step('listTools', async () => (await client.listTools()).tools.map(t => t.name));
let sub;
await step('listen', async () => { sub = await client.listen({ toolsListChanged: true }); return 'open'; });
await step('concurrent', () => Promise.all([
  step('slow_echo A', tool('slow_echo', { text: 'A', delay_ms: 400 })),
  step('slow_echo B', tool('slow_echo', { text: 'B', delay_ms: 60 })),
  step('add', tool('add', { a: 2, b: 3 }))]).then(() => 'done'));
await step('count_with_progress', tool('count_with_progress', { steps: 4 }, { onprogress: (p) => log({ ev: 'progress', p }) }));
await step('book_flight', tool('book_flight', {}));
await step('weather', tool('weather', { city: 'Oslo' }));
await step('weather Zürich', tool('weather', { city: 'Zürich' }));
await step('forecast', tool('forecast', { city: '東京', days: 3, metric: false }));
const ac = new AbortController();
setTimeout(() => { log({ ev: 'abort_call' }); ac.abort('user cancelled'); }, 300);
await step('slow_echo C (cancelled)', tool('slow_echo', { text: 'C', delay_ms: 3000 }, { signal: ac.signal }));
await step('enable_extra', tool('enable_extra', {}));
await step('wait list_changed', () => Promise.race([changedP.then(() => 'heard'), sleep(3000).then(() => 'not heard')]));
await step('listTools 2', async () => (await client.listTools()).tools.map(t => t.name));
await sleep(hold);
log({ ev: 'exit', listen: sub ? 'open' : 'none' });
process.exit(0);
