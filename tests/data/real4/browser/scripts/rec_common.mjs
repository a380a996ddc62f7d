export const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];
export const CHROMIUM = "/usr/bin/chromium";
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export async function waitDone(page) {
  for (let k = 0; k < 200; k++) { if (await page.evaluate(() => window.__done === true)) return; await sleep(100); }
  throw new Error("page never finished");
}
