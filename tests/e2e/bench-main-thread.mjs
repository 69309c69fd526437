// How free the page's main thread stays while a model works (issue 36): the train widget trains
// for N seconds, then the decoder generates 40 tokens, in headless Chromium on the CPU path, with
// the CPU throttled (4× by default, as on a mid-range phone). While each runs, a chained
// `setTimeout(0)` measures the event loop's lag (how late each turn comes) and a
// PerformanceObserver('longtask') records main-thread tasks over 50 ms. Also prints the work's
// own speed: training steps per second (the widget's `data-steps-per-second`) and generation
// tokens per second (40 tokens over the time from the click to the last token's chip shown),
// with how much later the widget was ready (its lens and tables drawn). Each long animation
// frame (PerformanceObserver('long-animation-frame'), frames over 50 ms) is split into what
// scripts ran in it (ours: event handlers, the worker's messages, animation-frame callbacks, the
// wasm they call) and the browser's rendering after them (style, layout, paint), so a long frame
// says whose time it was.
// Measuring starts once the page has settled (the widget scrolled into view, every widget of
// the page ready, 1,5 s without a long task), so the page's own loading is not counted; the
// generation is started by a press and release of the mouse on its button, as a reader would,
// not by Playwright's `click`, whose checks run in the page while the lag is measured.
// Several builds can be given: each run measures them in turn, so a before/after comparison
// shares the machine's load. Timings are reported, never asserted.
// Usage: node tests/e2e/bench-main-thread.mjs DIST [DIST ...] [--throttle 4] [--seconds 15] [--tokens 40] [--runs 3] [--generation-only]
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
  const state = { on: false, lags: [], tasks: [], frames: [], lastTaskEnd: 0 };
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
    for (const e of list.getEntries()) {
      state.lastTaskEnd = Math.max(state.lastTaskEnd, e.startTime + e.duration);
      if (state.on) state.tasks.push(e.duration);
    }
  }).observe({ type: 'longtask', buffered: false });
  try {
    new PerformanceObserver((list) => {
      if (!state.on) return;
      for (const e of list.getEntries()) {
        const script = e.scripts.reduce((sum, s) => sum + s.duration, 0);
        // After the animation-frame callbacks (ours, counted in `script`): style, layout, paint.
        const render = e.styleAndLayoutStart > 0 ? e.startTime + e.duration - e.styleAndLayoutStart : 0;
        state.frames.push({ duration: e.duration, script, render });
      }
    }).observe({ type: 'long-animation-frame', buffered: false });
  } catch { /* no LoAF in this browser: the frames' split is left out */ }
  state.start = () => { state.lags = []; state.tasks = []; state.frames = []; state.on = true; };
  state.stop = () => { state.on = false; return { lags: state.lags, tasks: state.tasks, frames: state.frames }; };
}

const percentile = (values, p) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const summary = ({ lags, tasks, frames }) => ({
  p50: percentile(lags, 50), p95: percentile(lags, 95), longest: Math.max(0, ...tasks), over100: tasks.filter((t) => t > 100).length,
  frames: frames.length, script: Math.max(0, ...frames.map((f) => f.script)), render: Math.max(0, ...frames.map((f) => f.render)),
  scriptOver50: frames.filter((f) => f.script > 50).length,
});
const line = (s) => `lag p50 ${s.p50.toFixed(0)} ms, p95 ${s.p95.toFixed(0)} ms; longest task ${s.longest.toFixed(0)} ms, ${s.over100} over 100 ms; `
  + `${s.frames} frames over 50 ms, the most script in one ${s.script.toFixed(0)} ms (${s.scriptOver50} over 50 ms), the most rendering in one ${s.render.toFixed(0)} ms`;

const settled = (p) => p.waitForFunction(() => [...document.querySelectorAll('[data-widget]')].every((w) => w.dataset.state === 'ready')
  && performance.now() - window.__mainThread.lastTaskEnd > 1500, null, { timeout: 120000, polling: 250 });

async function page(browser, base, route, host) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(probe);
  const p = mountingPage(await context.newPage());
  const cdp = await context.newCDPSession(p);
  await p.goto(`${base}/${route}`);
  await p.waitForSelector(`${host}[data-state=ready]`, { timeout: 120000 });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
  // What is measured is the work, not the page settling: the widget's buttons scrolled into
  // view first, then every widget of the page ready and 1,5 s without a long task.
  await p.$eval(host, (el) => el.scrollIntoView({ block: 'start' }));
  await settled(p);
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
  await settled(p);
  // The time the last token's chip shows (the text the reader waits for), and the time the
  // widget is ready (the enlarged map, the lens and its tables drawn too).
  await p.evaluate(([h, n]) => {
    const chips = document.querySelector(`${h} .chips`);
    window.__generation = { began: 0, chips: 0, ready: 0 };
    const widget = document.querySelector(h);
    new MutationObserver(() => {
      if (window.__generation.chips && widget.dataset.state === 'ready' && !window.__generation.ready) window.__generation.ready = performance.now();
    }).observe(widget, { attributes: true, attributeFilter: ['data-state'] });
    new MutationObserver((_, observer) => {
      if (chips.children.length >= n) { window.__generation.chips = performance.now(); observer.disconnect(); }
    }).observe(chips, { childList: true });
  }, [host, wanted]);
  // The reader's pointer is on the button before the measuring starts, and the click is the
  // browser's own input (press and release at that point): Playwright's `click` would first run
  // its checks in the page (hit tests, waiting for two frames), on the measured main thread.
  const button = await p.$eval(`${host} [data-action=generate]`, (b) => { const r = b.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; });
  await p.mouse.move(button.x, button.y);
  await settled(p);
  await p.evaluate(() => { window.__mainThread.start(); window.__generation.began = performance.now(); });
  await p.mouse.down();
  await p.mouse.up();
  await p.waitForFunction(([h, n]) => document.querySelectorAll(`${h} .chips .chip`).length >= n && document.querySelector(h).dataset.state === 'ready', [host, wanted], { timeout: 600000, polling: 100 });
  const measured = await p.evaluate(() => window.__mainThread.stop());
  const { began, chips: chipsAt, ready: readyAt } = await p.evaluate(() => window.__generation);
  const seconds = (chipsAt - began) / 1000;
  const computedOn = await p.getAttribute(host, 'data-computed-on');
  await context.close();
  return `generation of ${TOKENS} tokens: ${line(summary(measured))}; ${(TOKENS / seconds).toFixed(1)} tokens/s to the last chip, ready ${((readyAt - chipsAt) / 1000).toFixed(2)} s later (${computedOn})`;
}

const servers = await Promise.all(DISTS.map((d) => serve(d)));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ARGS });
console.log(`Chromium, CPU path, CPU throttled ${THROTTLE}×`);
for (let run = 1; run <= RUNS; run++) {
  for (const [i, server] of servers.entries()) {
    const base = `http://127.0.0.1:${server.address().port}`;
    const name = path.relative(process.cwd(), DISTS[i]) || '.';
    if (!args.includes('--generation-only')) console.log(`run ${run}, ${name}: ${await training(browser, base)}`);
    console.log(`run ${run}, ${name}: ${await generation(browser, base)}`);
  }
}
await browser.close();
for (const s of servers) s.close();
