// Drives the real Inspector 2.12.0 web UI in headless chromium: connect to the
// ad-hoc server, replay two requests from the Protocol panel, then press the
// Protocol panel's Export button and keep the file the browser downloads.
import puppeteer from 'puppeteer-core';
const dir = process.argv[2];
const b = await puppeteer.launch({executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox']});
const p = await b.newPage();
await p.setViewport({width: 1400, height: 1000});
const cdp = await p.createCDPSession();
await cdp.send('Browser.setDownloadBehavior', {behavior: 'allow', downloadPath: dir});
await p.goto('http://127.0.0.1:6274?MCP_INSPECTOR_API_TOKEN=' + process.argv[3] + '', {waitUntil: 'networkidle2'});
await new Promise(r => setTimeout(r, 2000));
await (await p.$('[role=switch]')).click();
await new Promise(r => setTimeout(r, 5000));
const click = async (label, n) => {
  const bs = await p.$$('button');
  let k = 0;
  for (const x of bs) {
    const t = (await x.evaluate(e => (e.innerText || e.getAttribute('aria-label') || '').trim()));
    if (t === label) { if (k === n) { await x.click(); return true; } k++; }
  }
  return false;
};
console.log('replay', await click('Replay', 0));
await new Promise(r => setTimeout(r, 1500));
console.log('replay', await click('Replay', 1));
await new Promise(r => setTimeout(r, 1500));
console.log('export', await click('Export', 1));
await new Promise(r => setTimeout(r, 3000));
await b.close();
