// Drives the real Inspector 2.12.0 web UI in headless chromium: connect, run
// the tools count_with_progress (default 4 steps, with progress) and
// fail_tool (an isError result) from the Tools screen, then press the
// Protocol panel's Export button and keep the file the browser downloads.
// node inspector_capture2.mjs DOWNLOAD_DIR TOKEN
import puppeteer from 'puppeteer-core';
const [dir, token] = process.argv.slice(2);
const b = await puppeteer.launch({executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox']});
const p = await b.newPage();
await p.setViewport({width: 1400, height: 1000});
const cdp = await p.createCDPSession();
await cdp.send('Browser.setDownloadBehavior', {behavior: 'allow', downloadPath: dir});
const wait = ms => new Promise(r => setTimeout(r, ms));
const byText = async t => (await p.$$(`xpath/.//*[normalize-space(text())="${t}"]`))[0];
await p.goto('http://127.0.0.1:6274?MCP_INSPECTOR_API_TOKEN=' + token, {waitUntil: 'networkidle2'});
await wait(2000);
await (await p.$('[role=switch]')).click();
await wait(4000);
await (await byText('Tools')).click();
await wait(2000);
for (const tool of ['count_with_progress', 'fail_tool']) {
  await (await byText(tool)).click();
  await wait(1500);
  await (await byText('Execute Tool')).click();
  await wait(3000);
  console.log('ran', tool);
}
const exports = [];
for (const x of await p.$$('button')) {
  if ((await x.evaluate(e => e.innerText.trim())) === 'Export') exports.push(x);
}
await exports[exports.length - 1].click();
await wait(3000);
await b.close();
