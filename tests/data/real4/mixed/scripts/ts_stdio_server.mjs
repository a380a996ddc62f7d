// @modelcontextprotocol/sdk 1.32.2 McpServer over StdioServerTransport (the tools of ts_http_server.mjs).
// usage: node ts_stdio_server.mjs
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';
const server = new McpServer({ name: 'capture-demo-ts-stdio', version: '0.1.0' }, { capabilities: { logging: {} } });
server.registerTool('add', { description: 'Add two integers.', inputSchema: { a: z.number(), b: z.number() } },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
server.registerTool('count_with_progress', { description: 'One progress notification per step, 50 ms apart.', inputSchema: { steps: z.number() } },
  async ({ steps }, extra) => {
    const tok = extra._meta?.progressToken;
    for (let s = 1; s <= steps; s++) {
      if (tok !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: tok, progress: s, total: steps } });
      await new Promise(r => setTimeout(r, 50));
    }
    return { content: [{ type: 'text', text: `counted ${steps}` }] };
  });
await server.connect(new StdioServerTransport());
