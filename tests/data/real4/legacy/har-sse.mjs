import { chromium } from "playwright-core";
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const ctx = await browser.newContext({ bypassCSP: true, recordHar: { path: process.argv[2], content: "embed" } });
const page = await ctx.newPage();
await page.goto("http://127.0.0.1:3918/").catch(()=>{});
const res = await page.evaluate(async () => {
  const es = new EventSource("/sse"); const got = {}; const waiters = {}; const lat={};
  const ep = await new Promise(r => es.addEventListener("endpoint", e => r(e.data)));
  es.onmessage = e => { const m = JSON.parse(e.data); if (m.id !== undefined && waiters[m.id]) waiters[m.id](m); };
  async function rpc(m) { const t0=performance.now(); const p = m.id!==undefined ? new Promise(r => waiters[m.id] = r) : null;
    await fetch(ep, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(m) }); if (p) { await p; lat[m.id]=[m.method, +(performance.now()-t0).toFixed(1)]; } }
  await rpc({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "sse-har", version: "1" } } });
  await rpc({ jsonrpc: "2.0", method: "notifications/initialized" });
  await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  await Promise.all([3,4,5].map(i => rpc({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "echo", arguments: { message: "m"+i } } })));
  await rpc({ jsonrpc: "2.0", id: 6, method: "ping" });
  es.close();
  return { ep, lat };
});
console.log(JSON.stringify(res));
await ctx.close(); await browser.close();
