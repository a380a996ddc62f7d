// @modelcontextprotocol/client 2.4.0 (TS SDK v2) Client with versionNegotiation { mode: 'auto' }
// (server/discover probe at 2026-07-28, fallback to initialize) against an older server. /work/mixed.
// node ts2_client.mjs http URL --tap FILE   (a fetch wrapper logs each request as sent and each
//                                            response chunk as read: the client-side truth)
// node ts2_client.mjs stdio -- COMMAND ARGS...  (StdioClientTransport: the SDK probes on a disposable
//                                            SIBLING process, then spawns the session process)
// Run: connect, listTools, callTool add(2,3), callTool count_with_progress(3) with onprogress, close.
import fs from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const mode = process.argv[2];
const ti = process.argv.indexOf('--tap');
const tap = ti > 0 ? fs.openSync(process.argv[ti + 1], 'w') : null;
const t0 = process.hrtime.bigint(), w0 = BigInt(Date.now()) * 1000n;
const now = () => { const us = w0 + (process.hrtime.bigint() - t0) / 1000n; const d = new Date(Number(us / 1000n)).toISOString(); return d.replace('Z', String(us % 1000n).padStart(3, '0') + 'Z'); };
const log = (o) => { if (tap !== null) fs.writeSync(tap, JSON.stringify({ ts: now(), ...o }) + '\n'); };
const say = (...a) => console.log(now(), ...a);
let n = 0;
const tapFetch = async (url, init = {}) => {
  const rid = ++n;
  const h = new Headers(init.headers || {});
  log({ ev: 'request', rid, method: init.method || 'GET', url: String(url), headers: Object.fromEntries(h.entries()), body: typeof init.body === 'string' ? init.body : (init.body == null ? '' : String(init.body)) });
  const resp = await fetch(url, init);
  log({ ev: 'resp_start', rid, status: resp.status, headers: Object.fromEntries(resp.headers.entries()) });
  if (!resp.body) { log({ ev: 'resp_end', rid }); return resp; }
  const dec = new TextDecoder();
  const ts = new TransformStream({
    transform(chunk, c) { log({ ev: 'resp_chunk', rid, data: dec.decode(chunk, { stream: true }) }); c.enqueue(chunk); },
    flush() { log({ ev: 'resp_end', rid }); },
  });
  return new Response(resp.body.pipeThrough(ts), { status: resp.status, statusText: resp.statusText, headers: resp.headers });
};

let transport;
if (mode === 'http') transport = new StreamableHTTPClientTransport(new URL(process.argv[3]), { fetch: tapFetch });
else { const cmd = process.argv.slice(process.argv.indexOf('--') + 1); transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: 'inherit' }); }
const client = new Client({ name: 'ts2-mixed-client', version: '0.1.0' }, { versionNegotiation: { mode: 'auto' } });
await client.connect(transport);
say('protocol', client.getNegotiatedProtocolVersion());
say('tools', (await client.listTools()).tools.map(t => t.name));
say('add', (await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).content[0].text);
say('count', (await client.callTool({ name: 'count_with_progress', arguments: { steps: 3 } }, { onprogress: (p) => say('progress', JSON.stringify(p)) })).content[0].text);
await client.close();
say('closed');
