// Static server for the page (127.0.0.1:8800, another origin than the MCP server).
import http from "node:http"; import fs from "node:fs";
http.createServer((q, r) => {
  const f = q.url.startsWith("/bundle.js") ? "bundle.js" : q.url.startsWith("/?") || q.url === "/" ? "index.html" : null;
  if (!f) { r.writeHead(404, { "content-type": "text/plain" }); r.end("no"); return; }
  r.writeHead(200, { "content-type": f.endsWith(".js") ? "text/javascript" : "text/html" }); r.end(fs.readFileSync(f));
}).listen(8800, "127.0.0.1");
