// TS SDK v2 2.4.0 Client: connect (auto), listen {toolsListChanged}, add, then close_listens (the server
// closes its modern leg 100 ms later: the listen's graceful close, a result for the listen), wait 1 s, exit.
// (The demo server's node:http adapter does not serve after the close, so nothing is sent after it.)
// usage: node ts2h_close_client.mjs URL --tap FILE   (the fetch tap of ts2h_client.mjs)
import fs from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const arg = (k) => process.argv[process.argv.indexOf(k) + 1];
const tapf = fs.openSync(arg('--tap'), 'w');
const log = (o) => fs.writeSync(tapf, JSON.stringify({ ts: new Date().toISOString(), ...o }) + '\n');
let n = 0;
async function tapFetch(url, init = {}) {
  const rid = ++n; const h = {}; new Headers(init.headers ?? {}).forEach((v, k) => { h[k] = v; });
  log({ ev: 'req', rid, method: init.method ?? 'GET', body: typeof init.body === 'string' ? init.body : null, headers: h });
  const resp = await fetch(url, init); log({ ev: 'resp', rid, status: resp.status });
  if (!resp.body) return resp;
  const reader = resp.body.getReader(); const dec = new TextDecoder();
  return new Response(new ReadableStream({ async pull(c) { try { const { value, done } = await reader.read(); if (done) { log({ ev: 'resp_end', rid }); c.close(); return; } log({ ev: 'resp_chunk', rid, data: dec.decode(value) }); c.enqueue(value); } catch (e) { log({ ev: 'resp_error', rid, error: String(e) }); c.error(e); } } }), { status: resp.status, headers: resp.headers });
}
const client = new Client({ name: 'capture-ts2h-close', version: '0.1.0' }, { versionNegotiation: { mode: 'auto' } });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2]), { fetch: tapFetch }));
const sub = await client.listen({ toolsListChanged: true });
console.log('add', JSON.stringify((await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).content));
console.log('close_listens', JSON.stringify((await client.callTool({ name: 'close_listens', arguments: {} })).content));
await new Promise(r => setTimeout(r, 1000));
process.exit(0);
