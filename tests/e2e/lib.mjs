// Shared helpers of the end-to-end suites: a static server for dist/, the check counter,
// assertions, and readers of the widgets' twin and results tables.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's tests/artifacts/ (git ignores it), wherever the suites are run from: resolved
 * against the working directory, a run from tests/e2e wrote screenshots into a folder git tracks. */
export const ARTIFACTS = fileURLToPath(new URL('../artifacts', import.meta.url));
fs.mkdirSync(ARTIFACTS, { recursive: true });

const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json', '.png': 'image/png',
  '.safetensors': 'application/octet-stream', '.md': 'text/markdown; charset=utf-8' };

/** Serves `root`; options: `prefix` (serve it under a sub-path, e.g. '/atencao'), `headers(pathname)`
 * (extra response headers, e.g. a CSP or CORS), `log` (an array that receives each requested path),
 * `files` ({ path: [content type, body] } served besides `root`: a test's own pages) and `inject`
 * (markup put right after `<head>` in every HTML page: a test's recorder, first to run), `port`
 * (0: any free one). */
export function serve(root, { prefix = '', headers = () => ({}), log, files = {}, inject, port = 0 } = {}) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let pathname = decodeURIComponent(url.pathname);
    log?.push(pathname);
    if (files[pathname]) {
      const [type, body] = files[pathname];
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache' });
      return res.end(body);
    }
    if (prefix) {
      if (!pathname.startsWith(`${prefix}/`)) { res.writeHead(404); return res.end('not found'); }
      pathname = pathname.slice(prefix.length);
    }
    let file = path.join(root, pathname);
    if (!file.startsWith(root)) { res.writeHead(403); return res.end(); }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!fs.existsSync(file)) { res.writeHead(404); return res.end('not found'); }
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream', ...headers(pathname) });
    if (inject && file.endsWith('.html')) {
      return res.end(fs.readFileSync(file, 'utf8').replace(/<head>/i, (head) => head + inject));
    }
    // A file can vanish between the check and the read (a suite removing its temporary copy
    // of the site while the browser still asks for it): end that response, not the test run.
    fs.createReadStream(file).on('error', () => res.destroy()).pipe(res);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

export const counts = { passed: 0, failed: 0 };
/** E2E_ONLY=text runs only the checks whose name contains it (while developing). */
const ONLY = process.env.E2E_ONLY;
export async function check(name, fn) {
  if (ONLY && !name.includes(ONLY)) return;
  try {
    await fn();
    counts.passed++;
    console.log(`ok   ${name}`);
  } catch (error) {
    counts.failed++;
    console.log(`FAIL ${name}\n     ${String(error?.stack ?? error).split('\n').slice(0, 4).join('\n     ')}`);
  }
}
export function assert(cond, message) { if (!cond) throw new Error(message); }

/** The name of a page (`main#app[data-page]`) from its address: 'vetores.html', '#/vetores'
 * (an old link), './' or '' (the home page, `index`). */
export function pageName(route) {
  const name = route.replace(/^\.?\//, '').replace(/^#\//, '').split(/[?#]/)[0].replace(/\.html$/, '');
  return name === '' || name === 'inicio' ? 'index' : name;
}

/** Waits until the page `route` (its file, 'vetores.html', or an old '#/vetores') is the one shown
 * and each of its widgets is ready or in error. Pages are prerendered and the widgets mount as they
 * near the viewport: the harness scrolls each into view after every navigation (`mountAll`). */
export async function pageSettled(page, route, timeout = 120000) {
  await page.waitForFunction((name) => {
    const app = document.getElementById('app');
    // A widget that waits for the reader (`data-on-demand`, the home page's) is settled as it is.
    return app?.dataset.page === name && !!app.querySelector('h1')
      && [...app.querySelectorAll('[data-widget]')].every((w) => w.hasAttribute('data-on-demand') || w.dataset.state === 'ready' || w.dataset.state === 'error');
  }, pageName(route), { timeout });
}

/** Has every widget of a site page mounted. The site loads its wasm when the first widget nears
 * the viewport and mounts each widget as it nears (src/web/pages.rs), so a widget far down a page
 * stays a placeholder until the reader scrolls to it; the suites read widgets anywhere on a page,
 * so this scrolls each into view in turn, waits for it to start mounting, and scrolls back to
 * the top. A widget that waits for its "experimentar aqui" button (the home page's) is left as is. Pages that are not the site's (a blog post), the catalogue (its examples mount as
 * embedded widgets do, which embed.mjs tests) and pages without widgets are left alone. */
export async function mountAll(page, timeout = 60000) {
  await page.evaluate(async (timeout) => {
    // Widgets that wait for the reader's click (`data-on-demand`) are left waiting: suites that
    // want them press their button (suites/home.mjs).
    const widgets = [...document.querySelectorAll('main#app[data-site]:not([data-page=catalogo]) [data-widget]:not([data-on-demand])')];
    const frames = (n) => new Promise((resolve) => {
      const step = () => (n-- > 0 ? requestAnimationFrame(step) : resolve());
      step();
    });
    const end = Date.now() + timeout;
    for (const widget of widgets) {
      widget.scrollIntoView({ block: 'center' });
      // Until it starts mounting (it has a state), or the wasm could not load (all in error).
      while (!widget.dataset.state && Date.now() < end) await frames(2);
    }
    if (widgets.length) window.scrollTo(0, 0);
  }, timeout).catch(() => {});
}

/** Makes every navigation of `page` (goto, reload, back, forward) end with `mountAll`. */
export function mountingPage(page) {
  page.gotoWithoutMounting = page.goto.bind(page);
  for (const name of ['goto', 'reload', 'goBack', 'goForward']) {
    const navigate = page[name].bind(page);
    page[name] = async (...args) => {
      const response = await navigate(...args);
      await mountAll(page);
      return response;
    };
  }
  return page;
}

/** `mountingPage` for every page opened in `browser`, in any of its contexts (except those with
 * JavaScript off, where nothing mounts). */
export function mountingBrowser(browser) {
  const wrapContext = (context, options) => {
    if (options?.javaScriptEnabled === false) return context;
    const newPage = context.newPage.bind(context);
    context.newPage = async (...args) => mountingPage(await newPage(...args));
    return context;
  };
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args) => wrapContext(await newContext(...args), args[0]);
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...args) => mountingPage(await newPage(...args));
  return browser;
}

/** The mean luminance of the opaque pixels of the canvas at `selector` (Playwright's selectors
 * reach into open shadow roots): how light a heatmap is drawn, in either theme. */
export async function meanLuminance(page, selector) {
  return page.$eval(selector, (canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let sum = 0;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] === 255) { sum += 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2]; n++; }
    }
    return sum / n;
  });
}

/** "−0,5000" → -0.5; "−∞" → -Infinity. */
export function parsePt(text) {
  const t = text.trim().replace('−', '-');
  if (t === '-∞') return -Infinity;
  return Number(t.replace(',', '.'));
}

export async function readTable(page, key, host = '[data-widget=attention]') {
  return page.$$eval(`${host} table.twin[data-matrix="${key}"] tr`, (rows) =>
    rows.slice(1).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
}

/** A widget's results table as { label: value }. */
export async function readResults(page, host, key) {
  return page.$$eval(`${host} table.results[data-results="${key}"] tr`, (rows) =>
    Object.fromEntries(rows.map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent])));
}

/** A twin table as { row label: { column label: text } }. */
export async function readTwin(page, host, key) {
  return page.$$eval(`${host} table.twin[data-matrix="${key}"] tr`, (rows) => {
    const cols = [...rows[0].querySelectorAll('th')].slice(1).map((th) => th.textContent);
    return Object.fromEntries(rows.slice(1).map((tr) => [tr.querySelector('th').textContent,
      Object.fromEntries([...tr.querySelectorAll('td')].map((td, i) => [cols[i], td.textContent]))]));
  });
}

/** The IDF table as { term: [df, idf] }. */
export async function readIdf(page, host) {
  return page.$$eval(`${host} table[data-results=idf] tr[data-term]`, (rows) =>
    Object.fromEntries(rows.map((tr) => [tr.dataset.term, [...tr.querySelectorAll('td')].map((td) => td.textContent)])));
}

export function near(text, want, tol = 1e-4) {
  return Math.abs(parsePt(text) - want) <= tol;
}

/** Fails unless the shown `text` is `want` within `tol`. */
export function assertNear(name, text, want, tol = 1e-4) {
  assert(text !== undefined, `${name}: missing`);
  assert(near(text, want, tol), `${name} = "${text}", want ${want}`);
}

export async function waitWidget(page, host) {
  await page.waitForSelector(`${host}[data-state=ready]`, { timeout: 30000 });
}

export function assertMatrix(name, texts, want, tol = 1e-4) {
  assert(texts.length === want.length, `${name}: ${texts.length} rows, want ${want.length}`);
  texts.forEach((row, r) => {
    assert(row.length === want[r].length, `${name} row ${r}: ${row.length} cols`);
    row.forEach((text, c) => {
      const got = parsePt(text);
      assert(Math.abs(got - want[r][c]) <= tol, `${name}[${r}][${c}] = "${text}", want ${want[r][c]}`);
    });
  });
}

export async function waitReady(page) {
  await page.waitForSelector('[data-widget=attention][data-state=ready]', { timeout: 30000 });
}

/** A suite's memory of numbers across its two modes: `same(mode, key, values)` keeps the first
 * mode's values and fails when the other mode's differ by more than `tol` (WebGPU vs CPU). */
export function acrossModes() {
  const first = {};
  return async function sameInBothModes(mode, key, values, tol = 1e-4) {
    if (!(key in first)) { first[key] = { mode, values }; return; }
    const before = first[key];
    if (before.mode === mode) return;
    assert(before.values.length === values.length, `${key}: ${values.length} values on ${mode}, ${before.values.length} on ${before.mode}`);
    values.forEach((v, i) => assert(Math.abs(v - before.values[i]) <= tol, `${key}[${i}]: ${v} on ${mode}, ${before.values[i]} on ${before.mode}`));
  };
}
