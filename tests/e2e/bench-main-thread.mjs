// How free the page's main thread stays while a model works (issue 36): the train widget trains
// for N seconds, then the decoder generates 40 tokens, in headless Chromium on the CPU path, with
// the CPU throttled (4× by default, as on a mid-range phone). While each runs, a chained
// `setTimeout(0)` measures the event loop's lag (how late each turn comes) and a
// PerformanceObserver('longtask') records main-thread tasks over 50 ms. Also prints the work's
// own speed: training steps per second (the widget's `data-steps-per-second`) and generation
// tokens per second (40 tokens over the wall time from the click to ready).
// Several builds can be given: each run measures them in turn, so a before/after comparison
// shares the machine's load. Timings are reported, never asserted.
// Usage: node tests/e2e/bench-main-thread.mjs DIST [DIST ...] [--throttle 4] [--seconds 15] [--tokens 40] [--runs 3]
import { chromium } from 'playwright-core';
import path from 'node:path';

import { serve, mountingPage } from './lib.mjs';

const args = process.argv.slice(2);
const option = (flag, fallback) => (args.indexOf(flag) >= 0 ? Number(args[args.indexOf(flag) + 1]) : fallback);
const THROTTLE = option('--throttle', 4);
const SECONDS = option('--seconds', 15);
const TOKENS = option('--tokens', 40);
const RUNS = option('--runs', 3);
const DISTS = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')).map((d) => path.resolve(d));
if (DISTS.length === 0) DISTS.push(path.resolve('dist'));
const ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-dev-shm-usage', '--disable-gpu'];

/// Installed before any page script: the lag probe and the long-task observer, off until `start`.
function probe() {
  const state = { on: false, lags: [], tasks: [] };
  window.__mainThread = state;
  let last = 0;
  const tick = () => {
    const now = performance.now();
    if (state.on && last) state.lags.push(now - last);
    last = now;
    setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  new PerformanceObserver((list) => {
    if (state.on) for (const e of list.getEntries()) state.tasks.push(e.duration);
  }).observe({ type: 'longtask', buffered: false });
  state.start = () => { state.lags = []; state.tasks = []; state.on = true; };
  state.stop = () => { state.on = false; return { lags: state.lags, tasks: state.tasks }; };
}

const percentile = (values, p) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const summary = ({ lags, tasks }) => ({
  p50: percentile(lags, 50), p95: percentile(lags, 95), longest: Math.max(0, ...tasks), over100: tasks.filter((t) => t > 100).length,
});
const line = (s) => `lag p50 ${s.p50.toFixed(0)} ms, p95 ${s.p95.toFixed(0)} ms; longest task ${s.longest.toFixed(0)} ms, ${s.over100} over 100 ms`;

async function page(browser, base, route, host) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(probe);
  const p = mountingPage(await context.newPage());
  const cdp = await context.newCDPSession(p);
  await p.goto(`${base}/${route}`);
  await p.waitForSelector(`${host}[data-state=ready]`, { timeout: 120000 });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
  return { context, p };
}

async function training(browser, base) {
  const host = '[data-widget=train]';
  const { context, p } = await page(browser, base, 'treinar-no-navegador.html', host);
  await p.evaluate(() => window.__mainThread.start());
  await p.click(`${host} [data-action=train]`);
  await p.waitForTimeout(SECONDS * 1000);
  const measured = await p.evaluate(() => window.__mainThread.stop());
  await p.click(`${host} [data-action=pause]`);
  const w = await p.$eval(host, (el) => ({ ...el.dataset }));
  await context.close();
  return `training ${SECONDS} s: ${line(summary(measured))}; ${w.steps} steps, ${Number(w.stepsPerSecond).toFixed(1)} steps/s (${w.computedOn})`;
}

async function generation(browser, base) {
  const host = '[data-widget=decoder]';
  const { context, p } = await page(browser, base, 'decodificador.html', host);
  await p.fill(`${host} [data-control=tokens]`, String(TOKENS));
  const chips = () => p.$$eval(`${host} .chips .chip`, (cs) => cs.length);
  const wanted = (await chips()) + TOKENS;
  await p.evaluate(() => window.__mainThread.start());
  const began = Date.now();
  await p.click(`${host} [data-action=generate]`);
  // Done once the last token is drawn and the widget is ready again.
  await p.waitForFunction(([h, n]) => document.querySelectorAll(`${h} .chips .chip`).length >= n && document.querySelector(h).dataset.state === 'ready', [host, wanted], { timeout: 600000, polling: 100 });
  const seconds = (Date.now() - began) / 1000;
  const measured = await p.evaluate(() => window.__mainThread.stop());
  const computedOn = await p.getAttribute(host, 'data-computed-on');
  await context.close();
  return `generation of ${TOKENS} tokens: ${line(summary(measured))}; ${(TOKENS / seconds).toFixed(1)} tokens/s (${computedOn})`;
}

const servers = await Promise.all(DISTS.map((d) => serve(d)));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ARGS });
console.log(`Chromium, CPU path, CPU throttled ${THROTTLE}×`);
for (let run = 1; run <= RUNS; run++) {
  for (const [i, server] of servers.entries()) {
    const base = `http://127.0.0.1:${server.address().port}`;
    const name = path.relative(process.cwd(), DISTS[i]) || '.';
    console.log(`run ${run}, ${name}: ${await training(browser, base)}`);
    console.log(`run ${run}, ${name}: ${await generation(browser, base)}`);
  }
}
await browser.close();
for (const s of servers) s.close();
