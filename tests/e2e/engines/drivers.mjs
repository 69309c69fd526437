// One small interface over the three engines readers use, so the smoke suite (smoke.mjs) is
// written once: Chromium through playwright-core, Gecko (Debian's firefox-esr) over WebDriver
// BiDi through puppeteer-core, WebKit (WebKitGTK's MiniBrowser, the engine of Safari) over
// classic WebDriver through selenium-webdriver and Debian's WebKitWebDriver. Every one is a
// browser from Debian; nothing here downloads a browser or a driver.
//
// A driver has:
// - `goto(url)`: navigates and resolves once the page has loaded;
// - `eval(fn, ...args)`: runs `fn(...args)` in the page (awaited; JSON in, JSON out);
// - `phone(on)`: a 390 × 844 viewport, or back to 1280 × 900. MiniBrowser's window does not
//   shrink under about 450 px (its toolbar), so on WebKit the page then loads in a 390 × 844
//   iframe of a harness page on the same origin, and `eval` runs inside that frame: media
//   queries, `innerWidth` and scrolling are the frame's, as on a phone;
// - `consoleErrors()`: what the engine itself logged as an error, where its protocol reports it
//   (Chromium and Gecko; WebKit's classic WebDriver has no log, and smoke.mjs also records the
//   page's own errors with a script the test server puts first in every page);
// - `screenshot(file)`: a PNG of what the window shows;
// - `close()`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };

/** The path of the harness page that holds a phone-sized frame (WebKit). */
export const PHONE_FRAME = '/__engines/phone.html';

/** The harness, for the test server (lib.mjs `serve`'s `files`): loads `?src=` into a 390 × 844
 * iframe and marks the frame once it has loaded. */
export const PHONE_FILES = {
  [PHONE_FRAME]: ['text/html; charset=utf-8', `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>390 px</title>
<style>html, body { margin: 0 } iframe { display: block; border: 0; width: ${PHONE.width}px; height: ${PHONE.height}px }</style></head>
<body><iframe title="página"></iframe><script src="/__engines/phone.js"></script></body></html>`],
  '/__engines/phone.js': ['text/javascript', `const frame = document.querySelector('iframe');
frame.addEventListener('load', () => { frame.dataset.loaded = '1'; });
frame.src = new URLSearchParams(location.search).get('src');`],
};

export async function launch(engine) {
  if (engine === 'chromium') return chromium();
  if (engine === 'gecko') return gecko();
  if (engine === 'webkit') return webkit();
  throw new Error(`unknown engine ${engine}`);
}

/** The driver of a playwright or puppeteer page (their calls used here are the same), whose
 * viewport `resize(size)` sets. */
function pageDriver(name, browser, page, resize) {
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  return {
    name,
    goto: async (url) => { await page.goto(url, { waitUntil: 'load', timeout: 60000 }); },
    eval: (fn, ...args) => page.evaluate(`(${fn})(...${JSON.stringify(args)})`),
    phone: (on) => resize(on ? PHONE : DESKTOP),
    consoleErrors: () => errors.splice(0),
    screenshot: async (file) => { await page.screenshot({ path: file }); },
    close: () => browser.close(),
  };
}

async function chromium() {
  const { chromium: playwright } = await import('playwright-core');
  const browser = await playwright.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--no-first-run', '--disable-dev-shm-usage', '--disable-gpu'],
  });
  const page = await browser.newPage({ viewport: DESKTOP });
  return pageDriver('chromium', browser, page, (size) => page.setViewportSize(size));
}

/** Firefox ESR. `webgpu`: WebGPU on, as Linux has it behind dom.webgpu.enabled; without a GPU
 * (headless, llvmpipe) Firefox also needs its blocklist ignored to give an adapter. */
export async function gecko({ webgpu = false } = {}) {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: process.env.FIREFOX ?? '/usr/bin/firefox-esr',
    headless: true,
    extraPrefsFirefox: webgpu ? { 'dom.webgpu.enabled': true, 'gfx.webgpu.ignore-blocklist': true } : {},
  });
  const page = await browser.newPage();
  await page.setViewport(DESKTOP);
  return pageDriver('gecko', browser, page, (size) => page.setViewport(size));
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); });
  });
}

/** Resolves once something listens on `port`, or throws after `timeout` ms. */
async function listening(port, timeout = 20000) {
  const end = Date.now() + timeout;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => { socket.end(); resolve(true); });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`nothing listens on 127.0.0.1:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** WebKitGTK's MiniBrowser, driven by WebKitWebDriver (needs a display: run under xvfb-run). */
async function webkit() {
  const { Builder, By, until } = await import('selenium-webdriver');
  const port = await freePort();
  const server = spawn(process.env.WEBKIT_DRIVER ?? 'WebKitWebDriver', [`--port=${port}`, '--host=127.0.0.1'], { stdio: 'ignore' });
  await listening(port);
  const capabilities = {
    browserName: 'MiniBrowser',
    'webkitgtk:browserOptions': {
      binary: process.env.MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
      args: ['--automation'],
    },
  };
  let driver;
  try {
    driver = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities(capabilities).build();
  } catch (error) {
    server.kill();
    throw error;
  }
  await driver.manage().setTimeouts({ script: 180000, pageLoad: 60000 });
  await driver.manage().window().setRect(DESKTOP);
  let phone = false;
  const run = async (fn, args) => {
    // Promise results are awaited through the asynchronous script's callback.
    const outcome = await driver.executeAsyncScript(`const done = arguments[arguments.length - 1];
      Promise.resolve().then(() => (${fn})(...${JSON.stringify(args)}))
        .then((value) => done({ value: value === undefined ? null : value }), (e) => done({ error: String((e && e.stack) || e) }));`);
    if (outcome.error) throw new Error(outcome.error);
    return outcome.value;
  };
  const goto = async (url) => {
    if (!phone) {
      await driver.switchTo().defaultContent();
      await driver.get(url);
      return;
    }
    const target = new URL(url);
    await driver.switchTo().defaultContent();
    await driver.get(`${target.origin}${PHONE_FRAME}?src=${encodeURIComponent(target.pathname + target.search + target.hash)}`);
    const frame = await driver.wait(until.elementLocated(By.css('iframe')), 30000);
    await driver.wait(async () => (await driver.executeScript('return document.querySelector("iframe").dataset.loaded === "1"')), 60000);
    await driver.switchTo().frame(frame);
  };
  return {
    name: 'webkit',
    goto,
    eval: (fn, ...args) => run(fn, args),
    phone: async (on) => { phone = on; },
    consoleErrors: () => [],
    screenshot: async (file) => { fs.writeFileSync(file, await driver.takeScreenshot(), 'base64'); },
    close: async () => { try { await driver.quit(); } finally { server.kill(); } },
  };
}
