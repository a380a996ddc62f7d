// DevTools' own HAR export: Chromium with --auto-open-devtools-for-tabs (driven by
// puppeteer-core), the Network panel shown before the page loads, and at the end, in
// the DevTools frontend, HAR.Writer.Writer.harStringForRequests(NetworkLog.requests(),
// {sanitize}) -- the code behind "Export HAR (sanitized / with sensitive data)...".
import puppeteer from "puppeteer-core"; import fs from "node:fs"; import os from "node:os"; import path from "node:path";
import { ARGS, CHROMIUM, sleep, waitDone } from "./rec_common.mjs";
const [pageUrl, harSensitive, harSanitized, logFile] = process.argv.slice(2);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dt-"));
const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: [...ARGS, "--user-data-dir=" + dir, "--auto-open-devtools-for-tabs"], headless: true, devtools: false });
let dtTarget;
for (let k = 0; k < 100 && !dtTarget; k++) { dtTarget = browser.targets().find((t) => t.url().startsWith("devtools://")); if (!dtTarget) await sleep(100); }
if (!dtTarget) throw new Error("no DevTools frontend target");
const dt = await dtTarget.asPage();
await dt.waitForFunction(() => globalThis.UI?.ViewManager?.ViewManager?.instance, { timeout: 20000 }).catch(() => {});
const load = (s) => dt.evaluate(`import('./${s}')`);
await dt.evaluate(async () => { const UI = await import("./ui/legacy/legacy.js"); await UI.ViewManager.ViewManager.instance().showView("network"); });
const page = (await browser.pages()).find((p) => !p.url().startsWith("devtools://"));
await page.goto(pageUrl); await waitDone(page); await sleep(3000);
fs.writeFileSync(logFile, JSON.stringify(await page.evaluate(() => window.__log), null, 0));
for (const [file, sanitize] of [[harSensitive, false], [harSanitized, true]]) {
  const text = await dt.evaluate(async (sanitize) => {
    const HAR = await import("./models/har/har.js"); const Logs = await import("./models/logs/logs.js");
    const reqs = Logs.NetworkLog.NetworkLog.instance().requests();
    const progress = new Proxy({}, { get: (_, k) => k === "canceled" ? false : k === "isCanceled" ? () => false : () => progress });
    return await HAR.Writer.Writer.harStringForRequests(reqs, { sanitize }, progress);
  }, sanitize);
  fs.writeFileSync(file, text);
}
await browser.close();
