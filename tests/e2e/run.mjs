// End-to-end tests of the built site (dist/) in headless Chromium, once with WebGPU
// (SwiftShader) and once without a GPU (CPU fallback). Usage: node tests/e2e/run.mjs [dist]
//
// Each suite in suites/ covers one part of the site and reads golden numbers back from the
// widgets' table twins. E2E_MODES=webgpu,cpu and E2E_SUITES=site,attention,… pick
// a subset while developing (E2E_ONLY=text: only the checks whose name contains it); the suites in ONCE run in one mode only. Screenshots go to
// tests/artifacts/. Ends with "N passed, M failed".
import { chromium } from 'playwright-core';
import path from 'node:path';

import { counts, check, assert, serve, mountingBrowser } from './lib.mjs';
import site from './suites/site.mjs';
import attention from './suites/attention.mjs';
import prerender from './suites/prerender.mjs';
import vectorization from './suites/vectorization.mjs';
import decoder from './suites/decoder.mjs';
import transformer from './suites/transformer.mjs';
import sequence from './suites/sequence.mjs';
import embed from './suites/embed.mjs';
import hood from './suites/hood.mjs';
import offline from './suites/offline.mjs';
import robust from './suites/robust.mjs';
import a11y from './suites/a11y.mjs';
import home from './suites/home.mjs';
import train from './suites/train.mjs';
import reading from './suites/reading.mjs';
import checkpoints from './suites/checkpoints.mjs';
import modern from './suites/modern.mjs';

const DIST = path.resolve(process.argv[2] ?? 'dist');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

const BASE_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];
const MODES = {
  webgpu: [...BASE_ARGS, '--enable-unsafe-webgpu', '--enable-features=Vulkan'],
  cpu: [...BASE_ARGS, '--disable-gpu'],
};

/** Suites in running order, each named by its topic (as the folders of core and the widgets);
 * site first (it checks the backend the others rely on). */
const SUITES = { site, attention, prerender, vectorization, sequence, transformer, decoder, embed, hood, offline, robust, a11y };
// The home page, reading progress, the folding contents and the phone's menu (issue 22).
SUITES.home = home;
// Training in the browser (issue 23).
SUITES.train = train;
// The glossary and the search (issue 38).
SUITES.reading = reading;
// Checkpoints, exercises with worked solutions (issue 38): no wasm, one mode.
SUITES.checkpoints = checkpoints;
// Today's block, part by part (issue 41): RoPE, RMSNorm, SwiGLU, GQA.
SUITES.modern = modern;

/**
 * Headless Chromium's WebGPU is SwiftShader, a software adapter the site leaves aside on its
 * own (the CPU is faster there). The WebGPU mode exercises WebGPU, so every context chooses it
 * as a reader would (the footer's select, remembered in localStorage) unless the reader has
 * chosen otherwise; `newContext({ autoBackend: true })` leaves the choice to the site.
 */
function chooseWebGpu(browser) {
  const original = browser.newContext.bind(browser);
  browser.newContext = async (options = {}) => {
    const { autoBackend, ...rest } = options;
    const context = await original(rest);
    if (!autoBackend) {
      await context.addInitScript(() => {
        try {
          if (localStorage.getItem('atencao.backend') === null) localStorage.setItem('atencao.backend', 'webgpu');
        } catch (e) { /* storage disabled: the site then decides */ }
      });
    }
    return context;
  };
}

/** Suites whose pages do not depend on the backend (the prerendered prose, the home page, the
 * offline worker, accessibility): run in one mode only, the CPU's where both run (issue 40: the
 * test command's time). The others compare, time or break the backend, and run in both. */
// The checkpoints run in both modes: they need no wasm, but the issue asks it of every page's.
const ONCE = new Set(['prerender', 'home', 'offline', 'a11y', 'reading']);

async function runMode(mode, base, suites) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: MODES[mode] });
  if (mode === 'webgpu') chooseWebGpu(browser);
  // Every navigation ends with each widget of the page scrolled into view once (lib.mjs: the
  // site mounts widgets as they near the viewport, the suites read them anywhere on a page).
  mountingBrowser(browser);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 2 });
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
  page.on('pageerror', (err) => consoleErrors.push(String(err)));

  for (const name of suites) {
    const started = Date.now();
    await page.setViewportSize({ width: 1280, height: 900 });
    await SUITES[name]({ page, base, mode, browser });
    console.log(`     ${mode} ${name}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }

  await check(`[${mode}] no console errors`, async () => {
    assert(consoleErrors.length === 0, consoleErrors.join('\n'));
  });
  await browser.close();
}

const server = await serve(DIST);
const base = `http://127.0.0.1:${server.address().port}`;
const modes = process.env.E2E_MODES ? process.env.E2E_MODES.split(',') : ['webgpu', 'cpu'];
const suites = process.env.E2E_SUITES ? process.env.E2E_SUITES.split(',') : Object.keys(SUITES);
for (const name of suites) if (!SUITES[name]) throw new Error(`unknown suite ${name}`);
const onceIn = modes.includes('cpu') ? 'cpu' : modes.at(-1);
for (const mode of modes) await runMode(mode, base, suites.filter((name) => !ONCE.has(name) || mode === onceIn));
server.close();
console.log(`e2e: ${counts.passed} passed, ${counts.failed} failed`);
process.exit(counts.failed === 0 ? 0 : 1);
