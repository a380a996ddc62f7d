// Static server for the Firefox recording (127.0.0.1:8800, another origin than
// the MCP server). Like serve.mjs, plus: /bye is the page the recording page
// navigates to when done (the navigation makes Firefox DevTools' automatic HAR
// export write the HAR of the page left behind); /bye posts the page's log
// (kept in localStorage) to /log, which writes it to LOGFILE and exits. / is
// a hop that waits 4 s for the toolbox, then loads /run, the recording page.
import http from "node:http"; import fs from "node:fs";
const LOGFILE = process.argv[2];
const FF = `<!doctype html><meta charset="utf-8"><title>mcp capture</title><script type="module" src="bundle.js"></script>
<script>const w=setInterval(()=>{if(window.__done){clearInterval(w);setTimeout(()=>{localStorage.setItem("log",JSON.stringify(window.__log));location.href="/bye";},9000);}},100);</script>`;
const HOP = `<!doctype html><meta charset="utf-8"><title>wait</title><script>setTimeout(()=>location.replace("/run"+location.search),4000);</script>`;
const BYE = `<!doctype html><meta charset="utf-8"><title>bye</title><script>fetch("/log",{method:"POST",body:localStorage.getItem("log")}).then(()=>document.title="logged");</script>`;
http.createServer((q, r) => {
  if (q.url === "/log" && q.method === "POST") {
    let b = ""; q.on("data", (c) => (b += c)); q.on("end", () => { fs.writeFileSync(LOGFILE, b); r.end("ok"); setTimeout(() => process.exit(0), 200); });
    return;
  }
  const html = q.url.startsWith("/bye") ? BYE : q.url.startsWith("/run") ? FF : q.url.startsWith("/?") || q.url === "/" ? HOP : null;
  if (q.url.startsWith("/bundle.js")) { r.writeHead(200, { "content-type": "text/javascript" }); r.end(fs.readFileSync("bundle.js")); return; }
  if (!html) { r.writeHead(404, { "content-type": "text/plain" }); r.end("no"); return; }
  r.writeHead(200, { "content-type": "text/html" }); r.end(html);
}).listen(8800, "127.0.0.1");
