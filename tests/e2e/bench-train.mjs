// The `train` widget's speed in headless Chromium (issue 23): the preset story with the default
// sizes, trained from fresh weights for a fixed wall-clock time, three times per mode. Prints, per
// run, the widget's own measurements (its host's data attributes): the mean time of a plain step
// (no evaluation or sample) and steps per second over its last 2 s (wall clock, drawing and
// yielding included), and the step at which the validation loss first went below the bigram line.
// Timings are reported, never asserted. `--placement webgpu` sets the widget's "treinar em" (the
// automatic choice keeps a software adapter's run on the CPU).
// Usage: node tests/e2e/bench-train.mjs [dist] [--modes cpu,webgpu] [--seconds 20] [--placement auto|cpu|webgpu]
import { chromium } from 'playwright-core';
import path from 'node:path';

import { serve, mountingPage, parsePt } from './lib.mjs';

const args = process.argv.slice(2);
const at = (flag) => args.indexOf(flag);
const MODES_WANTED = at('--modes') >= 0 ? args[at('--modes') + 1].split(',') : ['cpu', 'webgpu'];
const SECONDS = at('--seconds') >= 0 ? Number(args[at('--seconds') + 1]) : 20;
const PLACEMENT = at('--placement') >= 0 ? args[at('--placement') + 1] : 'auto';
const DIST = path.resolve(args.find((a, i) => !a.startsWith('--') && args[i - 1]?.startsWith('--') !== true) ?? 'dist');
const BASE_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];
const MODES = {
  webgpu: [...BASE_ARGS, '--enable-unsafe-webgpu', '--enable-features=Vulkan'],
  cpu: [...BASE_ARGS, '--disable-gpu'],
};
const HOST = '[data-widget=train]';

const server = await serve(DIST);
const base = `http://127.0.0.1:${server.address().port}`;
for (const mode of MODES_WANTED) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: MODES[mode] });
  for (let run = 1; run <= 3; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    if (mode === 'webgpu') await context.addInitScript(() => localStorage.setItem('atencao.backend', 'webgpu'));
    const page = mountingPage(await context.newPage());
    await page.goto(`${base}/treinar-no-navegador.html`);
    await page.waitForSelector(`${HOST}[data-state=ready]`, { timeout: 60000 });
    await page.selectOption(`${HOST} [data-control=placement]`, PLACEMENT);
    await page.click(`${HOST} [data-action=train]`);
    await page.waitForTimeout(SECONDS * 1000);
    await page.click(`${HOST} [data-action=pause]`);
    const w = await page.$eval(HOST, (el) => ({ ...el.dataset }));
    const bigram = Number(w.bigramLoss);
    const rows = await page.$$eval(`${HOST} table.twin[data-plot=loss] tr`, (trs) => trs.slice(1).map((tr) =>
      [tr.querySelector('th').textContent, tr.querySelectorAll('td')[1].textContent]));
    const crossed = rows.find(([, v]) => parsePt(v) < bigram)?.[0] ?? `not within ${w.steps} steps`;
    console.log(`${mode} (${w.computedOn}) run ${run}: ${w.steps} steps in ${SECONDS} s; ${Number(w.stepMs).toFixed(1)} ms a plain step; ${Number(w.stepsPerSecond).toFixed(1)} steps/s; below the bigram at ${crossed}`);
    await context.close();
  }
  await browser.close();
}
server.close();
