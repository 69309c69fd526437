// The race of issue 41 in headless Chromium: the `train` widget's "comparar as duas arquiteturas"
// on the preset story with the default sizes (the original and the moderna at a matched parameter
// count, the same seed and batches), on the CPU, until both have taken `--steps` steps. Prints what
// the widget measured: each architecture's parameters and validation loss at the last common point,
// the step at which each first went below the bigram line, and the widget's own summary. Reported,
// never asserted.
// Usage: node tests/e2e/bench-race.mjs [dist] [--steps 500] [--seeds 23]
import { chromium } from 'playwright-core';
import path from 'node:path';

import { serve, mountingPage } from './lib.mjs';

const args = process.argv.slice(2);
const at = (flag) => args.indexOf(flag);
const STEPS = at('--steps') >= 0 ? Number(args[at('--steps') + 1]) : 500;
const DIST = path.resolve(args.find((a, i) => !a.startsWith('--') && args[i - 1]?.startsWith('--') !== true) ?? 'dist');
const HOST = '[data-widget=train]';

const server = await serve(DIST);
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage', '--disable-gpu'],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = mountingPage(await context.newPage());
await page.goto(`${base}/treinar-no-navegador.html`);
await page.waitForSelector(`${HOST}[data-state=ready]`, { timeout: 60000 });
const started = Date.now();
await page.click(`${HOST} [data-action=compare]`);
await page.waitForFunction(([h, n]) => [...document.querySelectorAll(`${h} [data-arch-loss]`)].length === 2
  && [...document.querySelectorAll(`${h} [data-arch-loss]`)].every((e) => Number(e.dataset.step) >= n), [HOST, STEPS], { timeout: 3600000, polling: 500 });
await page.click(`${HOST} [data-action=pause]`);
const seconds = (Date.now() - started) / 1000;
const sides = await page.$$eval(`${HOST} [data-arch-loss]`, (els) => els.map((e) => ({ name: e.dataset.archLoss, step: Number(e.dataset.step), validation: Number(e.dataset.value), text: e.textContent })));
const summary = await page.textContent(`${HOST} [data-race]`);
const bigram = Number(await page.getAttribute(HOST, 'data-bigram-loss'));
console.log(`CPU, default sizes, ${seconds.toFixed(0)} s; bigram ${bigram.toFixed(4)}`);
for (const s of sides) console.log(`  ${s.name}: validation ${s.validation.toFixed(4)} at step ${s.step} (${s.text})`);
console.log(`  ${summary}`);
await browser.close();
server.close();
