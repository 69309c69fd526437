// What one frame costs the decoder's page at 4× throttling when the frame changes nothing, one
// text, one chip or one canvas (issue 36): the floor under the lag that bench-main-thread.mjs
// measures while a generation draws. The page is loaded and settled, then a chained
// `setTimeout(0)` probe runs while every third turn asks for an animation frame that makes one
// change; each probe sample is how late a turn came, so the largest ones are whole frames.
// Prints, for each kind of change, the median over the runs of its 5 largest samples. Timings
// are reported, never asserted.
// Usage: node tests/e2e/bench-frame-floor.mjs DIST [--throttle 4] [--runs 3]
import { chromium } from 'playwright-core';
import path from 'node:path';

import { serve, mountingPage } from './lib.mjs';

const args = process.argv.slice(2);
const option = (flag, fallback) => (args.indexOf(flag) >= 0 ? Number(args[args.indexOf(flag) + 1]) : fallback);
const THROTTLE = option('--throttle', 4);
const RUNS = option('--runs', 3);
const dist = path.resolve(args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? 'dist');
const HOST = '[data-widget=decoder]';
const KINDS = ['nothing', 'one text', 'one chip', 'one canvas'];

/// In the page: 90 probe turns, a frame making one change of `kind` every third; the 5 largest samples.
async function probe(kind) {
  const w = document.querySelector('[data-widget=decoder]');
  const change = {
    nothing: () => {},
    'one text': (n) => { w.querySelector('.decoder-text').lastChild.textContent = `x${n}`; },
    'one chip': () => { const chip = document.createElement('span'); chip.className = 'chip'; chip.textContent = 'ab'; w.querySelector('.chips').append(chip); },
    'one canvas': (n) => { const canvas = w.querySelector('.decoder-bars canvas'); const g = canvas.getContext('2d'); g.fillStyle = n % 2 ? '#c00' : '#00c'; g.fillRect(0, 0, canvas.width, canvas.height); },
  }[kind];
  const lags = [];
  let last = performance.now();
  let n = 0;
  await new Promise((done) => {
    const tick = () => {
      const now = performance.now();
      lags.push(now - last);
      last = now;
      if (++n % 3 === 0) requestAnimationFrame(() => change(n));
      if (n < 90) setTimeout(tick, 0);
      else done();
    };
    setTimeout(tick, 0);
  });
  return lags.sort((a, b) => b - a).slice(0, 5);
}

const server = await serve(dist);
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage', '--disable-gpu'] });
const samples = Object.fromEntries(KINDS.map((k) => [k, []]));
for (let run = 0; run < RUNS; run++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const p = mountingPage(await context.newPage());
  const cdp = await context.newCDPSession(p);
  await p.goto(`${base}/decodificador.html`);
  await p.waitForSelector(`${HOST}[data-state=ready]`, { timeout: 120000 });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
  await p.$eval(HOST, (el) => el.scrollIntoView({ block: 'start' }));
  await p.waitForTimeout(3000);
  for (const kind of KINDS) samples[kind].push(...await p.evaluate(probe, kind));
  await context.close();
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`Chromium, CPU path, CPU throttled ${THROTTLE}×, ${RUNS} runs: a frame that changes`);
for (const kind of KINDS) console.log(`  ${kind.padEnd(10)} ${median(samples[kind]).toFixed(0)} ms (median of each run's 5 largest samples; largest ${Math.max(...samples[kind]).toFixed(0)} ms)`);
await browser.close();
server.close();
