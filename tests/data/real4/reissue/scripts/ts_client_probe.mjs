// TS SDK v2 @modelcontextprotocol/client 2.4.0 against break_server.py (no proxy): what the
// real library does when the first tools/call's SSE stream breaks. Logs every fetch as sent
// (µs not available in JS: ms) and the outcome of each call. No re-issue logic of ours.
// node ts_client_probe.mjs URL TIMEOUT_MS   (versionNegotiation pinned to 2026-07-28)
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const [url, tmo] = [process.argv[2], Number(process.argv[3] || 5000)];
const t = () => new Date().toISOString();
const fetchTap = async (u, init) => {
  console.log(t(), 'fetch', init?.method, init?.body ?? '');
  const r = await fetch(u, init);
  console.log(t(), '  ->', r.status, r.headers.get('content-type'));
  return r;
};
const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: fetchTap });
transport.onerror = (e) => console.log(t(), 'transport.onerror', String(e));
const client = new Client({ name: 'ts-probe', version: '0.1.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
await client.connect(transport);
console.log(t(), 'protocol', client.getNegotiatedProtocolVersion?.() ?? '?');
console.log(t(), 'tools', (await client.listTools()).tools.map((x) => x.name));
for (const attempt of [1]) {
  try {
    const r = await client.callTool({ name: 'count_with_progress', arguments: { steps: 3 } },
      { timeout: tmo, onprogress: (p) => console.log(t(), 'progress', JSON.stringify(p)) });
    console.log(t(), 'count result', JSON.stringify(r.content));
  } catch (e) { console.log(t(), 'count attempt', attempt, 'threw', e?.constructor?.name, e?.code, String(e?.message)); }
}
console.log(t(), 'add', JSON.stringify((await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).content));
await client.close();
