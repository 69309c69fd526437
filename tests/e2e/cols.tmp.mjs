// Temporary: which heatmap frames scroll (hide columns) at 390 px, page by page.
import { chromium } from 'playwright-core';
import { serve, mountAll } from './lib.mjs';
import fs from 'node:fs';
const dist = process.argv[2];
const server = await serve(dist);
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
const pages = fs.readFileSync(`${dist}/../target/site/pages.txt`, 'utf8').split('\n').filter((p) => p && !['index', 'catalogo', 'bench'].includes(p));
for (const p of pages) {
  await page.goto(`${base}${p}.html`);
  await mountAll(page, 60000);
  await page.evaluate(async () => {
    for (const w of document.querySelectorAll('[data-widget]')) { w.scrollIntoView(); await new Promise((r) => setTimeout(r, 50)); }
  });
  await page.waitForTimeout(1500);
  const over = await page.evaluate(() => [...document.querySelectorAll('.mv-frame')].filter((f) => f.offsetParent && f.scrollWidth > f.clientWidth + 1).map((f) => `${f.closest('[data-widget]')?.dataset.widget}/${f.closest('[data-matrix]')?.dataset.matrix}: ${f.scrollWidth}>${f.clientWidth}`));
  const noNums = await page.evaluate(() => [...document.querySelectorAll('.mv-frame canvas')].filter((c) => c.offsetParent && c.dataset.values === 'off').length);
  if (over.length) console.log(p, JSON.stringify(over));
}
await browser.close(); server.close();
