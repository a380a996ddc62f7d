// puppeteer-core + chrome-har 1.3.1 (bodies via Network.getResponseBody at loadingFinished).
import puppeteer from "puppeteer-core"; import { harFromMessages } from "chrome-har"; import fs from "node:fs"; import os from "node:os"; import path from "node:path";
import { ARGS, CHROMIUM, sleep, waitDone } from "./rec_common.mjs";
const [pageUrl, har, logFile] = process.argv.slice(2);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ch-"));
const browser = await puppeteer.launch({ executablePath: CHROMIUM, args: [...ARGS, "--user-data-dir=" + dir], headless: true });
const page = await browser.newPage();
const cdp = await page.createCDPSession();
const events = [], responses = {};
for (const m of ["Page.loadEventFired", "Page.domContentEventFired", "Page.frameStartedLoading", "Page.frameAttached", "Page.frameNavigated",
  "Network.requestWillBeSent", "Network.requestServedFromCache", "Network.dataReceived", "Network.responseReceived", "Network.resourceChangedPriority",
  "Network.loadingFinished", "Network.loadingFailed", "Network.requestWillBeSentExtraInfo", "Network.responseReceivedExtraInfo"]) {
  cdp.on(m, async (params) => {
    const ev = { method: m, params };
    events.push(ev);
    if (m === "Network.responseReceived") responses[params.requestId] = params;
    if (m === "Network.loadingFinished" && responses[params.requestId]) {
      try { const b = await cdp.send("Network.getResponseBody", { requestId: params.requestId }); responses[params.requestId].response.body = b.body; } catch {}
    }
  });
}
await cdp.send("Page.enable"); await cdp.send("Network.enable");
await page.goto(pageUrl); await waitDone(page); await sleep(1500);
fs.writeFileSync(logFile, JSON.stringify(await page.evaluate(() => window.__log), null, 0));
fs.writeFileSync(har, JSON.stringify(harFromMessages(events, { includeTextFromResponseBody: true }), null, 2));
await browser.close();
