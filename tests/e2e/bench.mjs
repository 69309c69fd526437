// The browser benchmark (bench.html) in headless Chromium, with WebGPU (SwiftShader) and with the
// CPU only; prints one table with both columns and writes the JSON of each run to
// tests/artifacts/bench-<mode>.json; then the start-up time: navigation to the first widget
// `ready` on the attention page (queries-keys-values.html), median of 10 fresh loads (new context, no service worker,
// nothing cached); then the decoder playground generating 100 tokens, its tokens/s against the
// model's own next-token rate (bench.html?medir=decodificador), pairs taken in turns; then one article-sized edit of the attention widget, from the
// edit to the frame after it is drawn (median of 5 after 2 warm-ups). The WebGPU run chooses
// WebGPU (the site would leave SwiftShader aside on its own). Timings are reported, never
// asserted.
// Usage: node tests/e2e/bench.mjs [dist] [--modes cpu,webgpu] [--attention-pairs N] [--attention-only]
// --attention-only skips everything but the attention pairs (a quick A/B of two builds: run it
// on each build's dist in turns).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';

import { ARTIFACTS, serve } from './lib.mjs';

const args = process.argv.slice(2);
const modesAt = args.indexOf('--modes');
const WANTED = modesAt >= 0 ? args[modesAt + 1].split(',') : ['webgpu', 'cpu'];
const ATTENTION_ONLY = args.includes('--attention-only');
const DIST = path.resolve(args.find((a, i) => !a.startsWith('--') && i !== modesAt + 1 && args[i - 1] !== '--attention-pairs') ?? 'dist');
const BASE_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];
const MODES = {
  webgpu: [...BASE_ARGS, '--enable-unsafe-webgpu', '--enable-features=Vulkan'],
  cpu: [...BASE_ARGS, '--disable-gpu'],
};

const server = await serve(DIST);
const base = `http://127.0.0.1:${server.address().port}`;
const results = {};
const startup = {};
const playground = {};
const attention = {};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function attentionEdit(page, base) {
  const host = '[data-widget=attention]';
  await page.goto(`${base}/queries-keys-values.html`);
  // The site mounts a widget as it nears the viewport.
  await page.locator(host).scrollIntoViewIfNeeded();
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

/** The WebGPU run chooses WebGPU as a reader would (footer select, kept in localStorage). */
async function contextFor(browser, mode, options = {}) {
  const context = await browser.newContext(options);
  if (mode === 'webgpu') await context.addInitScript(() => localStorage.setItem('atencao.backend', 'webgpu'));
  return context;
}
const LOADS = 10;
// Pairs of the playground and its reference per mode, and the tokens each "Gerar" makes: through
// SwiftShader a token takes most of a second, so fewer and shorter there.
const PAIRS = { cpu: { rounds: 5, tokens: 100 }, webgpu: { rounds: 2, tokens: 20 } };
for (const [mode, browserArgs] of Object.entries(MODES).filter(([m]) => WANTED.includes(m) && !ATTENTION_ONLY)) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: browserArgs });
  const page = await (await contextFor(browser, mode)).newPage();
  await page.goto(`${base}/bench.html`);
  await page.waitForSelector('.bench[data-bench-state=done], .bench[data-bench-state=error]', { timeout: 600000 });
  const text = await page.textContent('[data-bench-json]');
  if (!text.trim()) throw new Error(`${mode}: ${await page.textContent('.bench .widget-backend')}`);
  results[mode] = JSON.parse(text);
  fs.writeFileSync(path.join(ARTIFACTS, `bench-${mode}.json`), text);
  const times = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await contextFor(browser, mode, { serviceWorkers: 'block' });
    const fresh = await context.newPage();
    await fresh.goto(`${base}/queries-keys-values.html`);
    await fresh.waitForFunction(() => document.querySelector('[data-widget][data-state=ready]'), null, { polling: 'raf', timeout: 60000 });
    times.push(await fresh.evaluate(() => performance.now()));
    await context.close();
  }
  times.sort((a, b) => a - b);
  startup[mode] = { median: (times[LOADS / 2 - 1] + times[LOADS / 2]) / 2, min: times[0], max: times[LOADS - 1] };
  // The playground against the model's own next-token rate, in turns under the same load:
  // bench.html?medir=decodificador (the median of its 7 runs of 16 tokens), then the playground
  // generating tokens from a fixed seed (the rate it shows); PAIRS[mode] pairs, each its own ratio.
  const host = '[data-widget=decoder]';
  await page.goto(`${base}/decodificador.html?preset=machado&seed=7`);
  await page.locator(host).scrollIntoViewIfNeeded();
  await page.waitForSelector(`${host}[data-state=ready]`, { timeout: 120000 });
  // Opened once the playground is idle: the two pages never compute at the same time.
  const reference = await (await contextFor(browser, mode)).newPage();
  await reference.goto(`${base}/bench.html?medir=decodificador`);
  const pairs = [];
  for (let round = 0; round < PAIRS[mode].rounds; round++) {
    await reference.bringToFront();
    if (round > 0) await reference.click('[data-action=bench-run]');
    await reference.waitForSelector('.bench[data-bench-state=done], .bench[data-bench-state=error]', { timeout: 600000 });
    const own = JSON.parse(await reference.textContent('[data-bench-json]')).decoder.decode_tokens_per_s;
    await page.bringToFront();
    await page.click(`${host} [data-action=restart]`);
    await page.waitForSelector(`${host}[data-state=ready]`, { timeout: 120000 });
    await page.fill(`${host} [data-control=tokens]`, String(PAIRS[mode].tokens));
    await page.click(`${host} [data-action=generate]`);
    await page.waitForSelector(`${host}[data-state=ready]`, { timeout: 600000 });
    const status = await page.textContent(`${host} .widget-backend`);
    const shown = Number(/([\d.,]+) tokens\/s/.exec(status)[1].replace(/\./g, '').replace(',', '.'));
    pairs.push({ shown, own, ratio: shown / own });
  }
  await reference.close();
  playground[mode] = pairs;
  attention[mode] = await attentionEdit(page, base);
  await browser.close();
}
// --attention-pairs N: the attention edit again, N times in each mode, in turns (two browsers
// open at once), so each WebGPU/CPU ratio compares runs taken under the same load.
const pairsAt = args.indexOf('--attention-pairs');
const attentionPairs = [];
if (pairsAt >= 0 && WANTED.includes('webgpu') && WANTED.includes('cpu')) {
  const pages = {};
  for (const mode of ['webgpu', 'cpu']) {
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: MODES[mode] });
    pages[mode] = await (await contextFor(browser, mode)).newPage();
  }
  for (let i = 0; i < Number(args[pairsAt + 1]); i++) {
    const webgpu = await attentionEdit(pages.webgpu, base);
    const cpu = await attentionEdit(pages.cpu, base);
    attentionPairs.push({ webgpu, cpu, ratio: webgpu / cpu });
  }
  for (const page of Object.values(pages)) await page.context().browser().close();
}
server.close();

const pad = (s, n) => String(s).padEnd(n);
const num = (x, d = 2) => (x === undefined ? '—' : x.toFixed(d));
console.log(`${pad('medida', 58)} ${pad('WebGPU ms', 11)} ${pad('GFLOP/s', 9)} ${pad('CPU ms', 11)} ${pad('GFLOP/s', 9)} CPU/WebGPU`);
(results.webgpu && results.cpu ? results.webgpu.kernels : []).forEach((g, i) => {
  const c = results.cpu.kernels[i];
  console.log(`${pad(g.name, 58)} ${pad(num(g.ms, 3), 11)} ${pad(num(g.gflops), 9)} ${pad(num(c.ms, 3), 11)} ${pad(num(c.gflops), 9)} ${num(c.ms / g.ms)}`);
});
for (const [key, label] of (results.webgpu && results.cpu ? [['prompt_tokens_per_s', 'decodificador: ler 64 tokens (tokens/s)'], ['decode_tokens_per_s', 'decodificador: 1 token (tokens/s)']] : [])) {
  const g = results.webgpu.decoder[key];
  const c = results.cpu.decoder[key];
  console.log(`${pad(label, 58)} ${pad(num(g), 21)} ${pad(num(c), 21)} ${num(g / c)}× (WebGPU/CPU)`);
}
for (const [mode, pairs] of Object.entries(playground)) {
  const list = (key, d) => pairs.map((p) => num(p[key], d)).join(' ');
  console.log(`playground (${mode}), ${pairs.length} pares em turnos: mostra ${list('shown', 1)} tokens/s; bench.html?medir=decodificador ${list('own', 1)}; razões ${list('ratio')}; mediana ${num(median(pairs.map((p) => p.ratio)))}`);
}
for (const [mode, t] of Object.entries(startup)) {
  console.log(`primeiro widget pronto (${mode}), mediana de ${LOADS} cargas: ${num(t.median, 0)} ms (de ${num(t.min, 0)} a ${num(t.max, 0)})`);
}
for (const [mode, ms] of Object.entries(attention)) {
  console.log(`atenção, uma edição do exemplo do artigo até o quadro desenhado (${mode}): ${num(ms, 1)} ms`);
}
if (attention.webgpu && attention.cpu) console.log(`atenção: WebGPU forçada / CPU = ${num(attention.webgpu / attention.cpu)}×`);
if (attentionPairs.length) {
  const list = (key, d) => attentionPairs.map((p) => num(p[key], d)).join(' ');
  console.log(`atenção em turnos, ${attentionPairs.length} pares: WebGPU ${list('webgpu', 1)} ms; CPU ${list('cpu', 1)} ms; razões ${list('ratio')}; mediana ${num(median(attentionPairs.map((p) => p.ratio)))}×`);
}
if (Object.keys(results).length) console.log(`\nbrowser: ${Object.values(results)[0].user_agent}`);
