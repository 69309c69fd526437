// Browser benchmarks of the built site (not tests: nothing here asserts a time). Measures, in
// the same run and on the same backend, the ratios BENCHMARKS.md reports:
//   - the playground's generation rate (what its status line shows) against the model's own
//     next-token rate on #/bench;
//   - one article-sized edit of the attention widget, from the edit to the frame after it is
//     drawn, on the CPU and on forced WebGPU.
// Usage: node tests/e2e/bench.mjs [dist] [--modes cpu,webgpu] [--tokens 120]
// WebGPU in headless Chromium is SwiftShader (software), forced through the footer's choice.
import { chromium } from 'playwright-core';
import path from 'node:path';

import { serve, parsePt } from './lib.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const DIST = path.resolve(args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? 'dist');
const MODES = option('modes', 'cpu,webgpu').split(',');
const TOKENS = Number(option('tokens', '100'));
const RUNS = 3;

const BASE_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];
const BROWSER_ARGS = { webgpu: [...BASE_ARGS, '--enable-unsafe-webgpu', '--enable-features=Vulkan'], cpu: [...BASE_ARGS, '--disable-gpu'] };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x, d = 2) => x.toFixed(d).replace('.', ',');

async function benchPage(page, base) {
  await page.goto(`${base}/#/bench`);
  await page.waitForSelector('[data-bench-state=done], [data-bench-state=error]', { timeout: 600000 });
  const json = JSON.parse(await page.textContent('[data-bench-json]'));
  return json.decoder.decode_tokens_per_s;
}

async function playgroundRate(page, base) {
  const host = '[data-widget=decoder]';
  await page.goto(`${base}/#/decodificador?preset=machado&seed=7`);
  await page.waitForSelector(`${host}[data-state=ready]`, { timeout: 120000 });
  const rates = [];
  for (let run = 0; run < RUNS; run++) {
    await page.click(`${host} [data-action=restart]`);
    await page.waitForSelector(`${host}[data-state=ready]`, { timeout: 120000 });
    await page.fill(`${host} [data-control=tokens]`, String(TOKENS));
    await page.click(`${host} [data-action=generate]`);
    await page.waitForSelector(`${host}[data-state=ready]`, { timeout: 300000 });
    const status = await page.textContent(`${host} .widget-backend`);
    const match = status.match(/([\d.]+,\d+|\d+) tokens\/s/);
    rates.push(parsePt(match[1].replace(/\./g, '')));
  }
  return median(rates);
}

async function attentionEdit(page, base) {
  const host = '[data-widget=attention]';
  await page.goto(`${base}/#/queries-keys-values`);
  await page.waitForSelector(`${host}[data-state=ready]`, { timeout: 60000 });
  const times = [];
  for (let run = 0; run < 7; run++) {
    // From the edit to the next frame after the widget says it is ready (drawn).
    const ms = await page.evaluate(async ({ host, value }) => {
      const widget = document.querySelector(host);
      const cell = widget.querySelector('[data-editor] input');
      const settled = new Promise((resolve) => {
        const observer = new MutationObserver(() => {
          if (widget.dataset.state === 'ready') {
            observer.disconnect();
            requestAnimationFrame(() => resolve(performance.now()));
          }
        });
        observer.observe(widget, { attributes: true, attributeFilter: ['data-state'] });
      });
      const start = performance.now();
      cell.value = value;
      cell.dispatchEvent(new Event('input', { bubbles: true }));
      return (await settled) - start;
    }, { host, value: String(0.1 + run / 10).replace('.', ',') });
    times.push(ms);
    await page.waitForTimeout(200);
  }
  return median(times.slice(2));
}

const server = await serve(DIST);
const base = `http://127.0.0.1:${server.address().port}`;
const results = {};
for (const mode of MODES) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: BROWSER_ARGS[mode] });
  const context = await browser.newContext();
  await context.addInitScript((m) => { try { localStorage.setItem('atencao.backend', m); } catch (e) { /* none */ } }, mode);
  const page = await context.newPage();
  const bench = await benchPage(page, base);
  const playground = await playgroundRate(page, base);
  const attention = await attentionEdit(page, base);
  results[mode] = { bench, playground, attention };
  console.log(`${mode}: #/bench next token ${fmt(bench, 1)} tokens/s · playground ${fmt(playground, 1)} tokens/s (${fmt(playground / bench)} ×) · attention edit ${fmt(attention)} ms`);
  await browser.close();
}
if (results.cpu && results.webgpu) {
  console.log(`attention edit, forced WebGPU / CPU: ${fmt(results.webgpu.attention / results.cpu.attention)} ×`);
}
server.close();
