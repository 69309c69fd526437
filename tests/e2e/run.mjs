// End-to-end tests of the built site (dist/) in headless Chromium, once with WebGPU
// (SwiftShader) and once without a GPU (CPU fallback). Usage: node tests/e2e/run.mjs [dist]
//
// Each mode: the backend attribute, the table of contents, every page without console
// errors and with MathML, the attention widget's golden numbers read from its table twin,
// the causal mask, bad input, drawn canvas pixels, the forced-CPU switch; screenshots go to
// tests/artifacts/. Ends with the line "N passed, M failed".
import { chromium } from 'playwright-core';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const DIST = path.resolve(process.argv[2] ?? 'dist');
const ARTIFACTS = path.resolve('tests/artifacts');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
fs.mkdirSync(ARTIFACTS, { recursive: true });

const BASE_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];
const MODES = {
  webgpu: [...BASE_ARGS, '--enable-unsafe-webgpu', '--enable-features=Vulkan'],
  cpu: [...BASE_ARGS, '--disable-gpu'],
};

// Golden values: ../shared/spec/4-transformer.md, textbook Example 2 (corrected where the article is wrong).
const GOLDEN = {
  q: [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.5, 0.7, 0.9]],
  k: [[0.9, 0.8, 0.7], [0.6, 0.5, 0.4], [1.5, 1.3, 1.1]],
  v: [[0.2, 0.4, 0.6], [0.1, 0.3, 0.5], [0.3, 0.7, 1.1]],
  scores: [[0.2656, 0.1617, 0.4272], [0.6813, 0.4215, 1.1027], [0.9469, 0.5831, 1.5300]],
  weights: [[0.3250, 0.2929, 0.3820], [0.3035, 0.2340, 0.4625], [0.2868, 0.1994, 0.5138]],
  output: [[0.2089, 0.4853, 0.7617], [0.2228, 0.5154, 0.8079], [0.2314, 0.5342, 0.8370]],
};
const GOLDEN_CAUSAL = {
  weights: [[1, 0, 0], [0.5646, 0.4354, 0], [0.2868, 0.1994, 0.5138]],
  output: [[0.2, 0.4, 0.6], [0.1565, 0.3565, 0.5565], [0.2314, 0.5342, 0.8370]],
};
const ATTENTION_PAGE = '#/queries-keys-values';

const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json', '.png': 'image/png' };

function serve(root) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root)) { res.writeHead(403); return res.end(); }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!fs.existsSync(file)) { res.writeHead(404); return res.end('not found'); }
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (error) {
    failed++;
    console.log(`FAIL ${name}\n     ${String(error?.stack ?? error).split('\n').slice(0, 4).join('\n     ')}`);
  }
}
function assert(cond, message) { if (!cond) throw new Error(message); }

/** "−0,5000" → -0.5; "−∞" → -Infinity. */
function parsePt(text) {
  const t = text.trim().replace('−', '-');
  if (t === '-∞') return -Infinity;
  return Number(t.replace(',', '.'));
}

async function readTable(page, key) {
  return page.$$eval(`[data-widget=attention] table.twin[data-matrix="${key}"] tr`, (rows) =>
    rows.slice(1).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
}

function assertMatrix(name, texts, want, tol = 1e-4) {
  assert(texts.length === want.length, `${name}: ${texts.length} rows, want ${want.length}`);
  texts.forEach((row, r) => {
    assert(row.length === want[r].length, `${name} row ${r}: ${row.length} cols`);
    row.forEach((text, c) => {
      const got = parsePt(text);
      assert(Math.abs(got - want[r][c]) <= tol, `${name}[${r}][${c}] = "${text}", want ${want[r][c]}`);
    });
  });
}

async function waitReady(page) {
  await page.waitForSelector('[data-widget=attention][data-state=ready]', { timeout: 30000 });
}

async function runMode(mode, base) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: MODES[mode] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 2 });
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
  page.on('pageerror', (err) => consoleErrors.push(String(err)));

  await check(`[${mode}] <html data-backend> is "${mode}"`, async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector('html[data-backend]', { timeout: 30000 });
    const backend = await page.getAttribute('html', 'data-backend');
    assert(backend === mode, `data-backend = ${backend}`);
    const badge = await page.textContent('#backend-badge');
    assert(badge === (mode === 'webgpu' ? 'WebGPU' : 'CPU'), `badge says ${badge}`);
  });

  await check(`[${mode}] table of contents lists the five articles and their sections`, async () => {
    const articles = await page.$$eval('#toc .toc-article', (as) => as.map((a) => a.textContent));
    assert(articles.length === 5, `${articles.length} articles: ${articles}`);
    const sections = await page.$$eval('#toc .toc-sections a', (as) => as.length);
    assert(sections >= 40, `only ${sections} section links`);
    const cards = await page.$$eval('.cards .card', (cs) => cs.length);
    assert(cards === 5, `${cards} cards on the home page`);
  });

  await check(`[${mode}] attention widget shows the golden Example 2`, async () => {
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await waitReady(page);
    const computedOn = await page.getAttribute('[data-widget=attention]', 'data-computed-on');
    assert(computedOn === mode, `computed on ${computedOn}`);
    for (const [key, want] of Object.entries(GOLDEN)) assertMatrix(key, await readTable(page, key), want);
  });

  await check(`[${mode}] heatmaps are drawn (canvas pixels) and the twin tables toggle`, async () => {
    const stats = await page.$eval('[data-widget=attention] [data-matrix=weights] canvas', (canvas) => {
      const ctx = canvas.getContext('2d');
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
      return { painted, total: data.length / 4, width: canvas.width };
    });
    assert(stats.painted > stats.total * 0.3, `only ${stats.painted}/${stats.total} pixels painted`);
    assert(stats.width > 100, `canvas ${stats.width}px wide`);
    assert(await page.isHidden('table.twin[data-matrix=weights]'), 'twin table visible before toggle');
    await page.click('[data-widget=attention] [data-action=twins]');
    assert(await page.isVisible('table.twin[data-matrix=weights]'), 'twin table hidden after toggle');
    await page.screenshot({ path: path.join(ARTIFACTS, `attention-${mode}.png`), fullPage: true });
  });

  await check(`[${mode}] bar chart shows the chosen query's weights (x₂ by default)`, async () => {
    const bars = async () => page.$$eval('[data-widget=attention] table.twin[data-bars=query-weights] td', (tds) => tds.map((td) => td.textContent));
    assertMatrix('x₂ weights', [await bars()], [GOLDEN.weights[1]]);
    await page.selectOption('[data-widget=attention] [data-control=query]', '2');
    await waitReady(page);
    assertMatrix('x₃ weights', [await bars()], [GOLDEN.weights[2]]);
    const caption = await page.textContent('[data-widget=attention] [data-bars=query-weights] figcaption');
    assert(caption.includes('x₃'), caption);
  });

  await check(`[${mode}] hovering a cell shows its value`, async () => {
    const canvas = await page.$('[data-widget=attention] [data-matrix=weights] canvas');
    const box = await canvas.boundingBox();
    // Bottom-right cell: last row, last column (labels sit left and top; 4px margin right and bottom).
    await canvas.hover({ position: { x: box.width - 12, y: box.height - 12 } });
    const tip = await page.textContent('[data-widget=attention] [data-matrix=weights] .mv-tooltip');
    assert(tip.includes('0,5138'), `tooltip says "${tip}"`);
  });

  await check(`[${mode}] causal mask gives the corrected causal weights and output`, async () => {
    await page.check('[data-widget=attention] [data-control=causal]');
    await waitReady(page);
    assertMatrix('causal weights', await readTable(page, 'weights'), GOLDEN_CAUSAL.weights);
    assertMatrix('causal output', await readTable(page, 'output'), GOLDEN_CAUSAL.output);
    const scores = await readTable(page, 'scores');
    assert(scores[0][1] === '−∞' && scores[0][2] === '−∞' && scores[1][2] === '−∞', `masked scores ${scores}`);
    await page.uncheck('[data-widget=attention] [data-control=causal]');
    await waitReady(page);
  });

  await check(`[${mode}] a non-numeric cell gives a message and keeps the text`, async () => {
    const cell = '[data-widget=attention] [data-editor=x] input >> nth=1';
    await page.fill(cell, '<img src=x onerror=window.__pwned=1>');
    await page.waitForSelector('[data-widget=attention][data-state=error]');
    const message = await page.textContent('[data-widget=attention] .widget-error');
    assert(message.includes('não é um número') && message.includes('linha 1, coluna 2'), message);
    assert((await page.inputValue(cell)).startsWith('<img'), 'the typed text was lost');
    assert(!(await page.evaluate(() => window.__pwned)), 'payload executed');
    await page.fill(cell, '0');
    await waitReady(page);
    assertMatrix('weights after fix', await readTable(page, 'weights'), GOLDEN.weights);
  });

  await check(`[${mode}] every page renders, with MathML and no raw LaTeX`, async () => {
    const routes = await page.$$eval('#toc a', (as) => as.map((a) => a.getAttribute('href')));
    let mathPages = 0;
    for (const route of routes) {
      await page.goto(`${base}/${route}`);
      await page.waitForSelector('main h1');
      const info = await page.evaluate(() => ({
        math: document.querySelectorAll('main math').length,
        raw: /\$\$|\\frac|\\sqrt/.test(document.querySelector('main').innerText),
        errors: document.querySelectorAll('[data-state=error]').length,
        merror: document.querySelectorAll('main merror').length,
      }));
      assert(!info.raw, `${route}: raw LaTeX in text`);
      assert(info.errors === 0, `${route}: a widget in error state`);
      assert(info.merror === 0, `${route}: a formula failed to render`);
      if (info.math > 0) mathPages++;
    }
    assert(mathPages >= 20, `only ${mathPages} pages have formulas`);
    await page.goto(`${base}/#/nao-existe`);
    const notFound = await page.textContent('main');
    assert(notFound.includes('nao-existe'), 'unknown route not reported');
  });

  if (mode === 'webgpu') {
    await check('[webgpu] the "forçar CPU" switch recomputes on the CPU and is remembered', async () => {
      await page.goto(`${base}/${ATTENTION_PAGE}`);
      await waitReady(page);
      await page.check('#force-cpu');
      await page.waitForSelector('html[data-backend=cpu]');
      await page.waitForSelector('[data-widget=attention][data-computed-on=cpu][data-state=ready]');
      assertMatrix('weights on CPU', await readTable(page, 'weights'), GOLDEN.weights);
      await page.reload();
      await page.waitForSelector('html[data-backend=cpu]');
      assert(await page.isChecked('#force-cpu'), 'switch not remembered');
      await page.uncheck('#force-cpu');
      await page.waitForSelector('html[data-backend=webgpu]');
      await page.waitForSelector('[data-widget=attention][data-computed-on=webgpu][data-state=ready]');
    });
    await check('[webgpu] ?backend=cpu in the URL forces the CPU', async () => {
      await page.goto(`${base}/?backend=cpu${ATTENTION_PAGE}`);
      await page.waitForSelector('html[data-backend=cpu]');
      await waitReady(page);
      assertMatrix('weights', await readTable(page, 'weights'), GOLDEN.weights);
    });
  }

  await check(`[${mode}] phone-sized screen: menu opens the table of contents`, async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await waitReady(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert(overflow <= 0, `page is ${overflow}px wider than the phone screen`);
    assert(await page.isHidden('#toc'), 'toc visible before opening the menu');
    await page.click('#menu-button');
    assert(await page.isVisible('#toc'), 'menu did not open the toc');
    await page.click('#menu-button');
    await page.screenshot({ path: path.join(ARTIFACTS, `attention-${mode}-phone.png`), fullPage: false });
  });

  await check(`[${mode}] dark theme follows prefers-color-scheme`, async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    // Mean luminance of the painted pixels of the Q heatmap, in each theme.
    const meanLuminance = () => page.$eval('[data-widget=attention] [data-matrix=q] canvas', (canvas) => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let sum = 0;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] === 255) { sum += 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2]; n++; }
      }
      return sum / n;
    });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await page.reload();
    await waitReady(page);
    const light = await meanLuminance();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => matchMedia('(prefers-color-scheme: dark)').matches);
    // The theme switch alone (no reload) must redraw the canvases.
    await page.waitForFunction(() => document.querySelector('[data-widget=attention]').dataset.state === 'ready');
    await page.waitForTimeout(300);
    await waitReady(page);
    const dark = await meanLuminance();
    assert(dark < light - 40, `heatmap luminance light ${light.toFixed(0)} vs dark ${dark.toFixed(0)}`);
    const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g).map(Number);
    assert(r + g + b < 150, `background ${bg} is not dark`);
    await page.locator('[data-widget=attention]').screenshot({ path: path.join(ARTIFACTS, `attention-${mode}-dark.png`) });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  await check(`[${mode}] no console errors`, async () => {
    assert(consoleErrors.length === 0, consoleErrors.join('\n'));
  });
  await browser.close();
}

const server = await serve(DIST);
const base = `http://127.0.0.1:${server.address().port}`;
const modes = process.env.E2E_MODES ? process.env.E2E_MODES.split(',') : ['webgpu', 'cpu'];
for (const mode of modes) await runMode(mode, base);
server.close();
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
