// Playwright recordHar (content: embed) around the page; writes HAR + page log.
import { chromium } from "playwright-core"; import fs from "node:fs"; import os from "node:os"; import path from "node:path";
import { ARGS, CHROMIUM, sleep, waitDone } from "./rec_common.mjs";
const [pageUrl, har, logFile] = process.argv.slice(2);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pw-"));
const ctx = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, args: ARGS.filter((a) => a !== "--headless"), headless: true, recordHar: { path: har, content: "embed" } });
const page = ctx.pages()[0] || await ctx.newPage();
await page.goto(pageUrl); await waitDone(page); await sleep(1500);
fs.writeFileSync(logFile, JSON.stringify(await page.evaluate(() => window.__log), null, 0));
await ctx.close();
