// Shared helpers of the end-to-end suites: a static server for dist/, the check counter,
// assertions, and readers of the widgets' twin and results tables.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

export const ARTIFACTS = path.resolve('tests/artifacts');
fs.mkdirSync(ARTIFACTS, { recursive: true });

const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json', '.png': 'image/png',
  '.safetensors': 'application/octet-stream', '.md': 'text/markdown; charset=utf-8' };

/** Serves `root`; options: `prefix` (serve it under a sub-path, e.g. '/atencao'), `headers(pathname)`
 * (extra response headers, e.g. a CSP or CORS), `log` (an array that receives each requested path). */
export function serve(root, { prefix = '', headers = () => ({}), log } = {}) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let pathname = decodeURIComponent(url.pathname);
    log?.push(pathname);
    if (prefix) {
      if (!pathname.startsWith(`${prefix}/`)) { res.writeHead(404); return res.end('not found'); }
      pathname = pathname.slice(prefix.length);
    }
    let file = path.join(root, pathname);
    if (!file.startsWith(root)) { res.writeHead(403); return res.end(); }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!fs.existsSync(file)) { res.writeHead(404); return res.end('not found'); }
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream', ...headers(pathname) });
    // A file can vanish between the check and the read (a suite removing its temporary copy
    // of the site while the browser still asks for it): end that response, not the test run.
    fs.createReadStream(file).on('error', () => res.destroy()).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export const counts = { passed: 0, failed: 0 };
export async function check(name, fn) {
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

/** Waits until the page at `route` (a `#/slug` of the contents) is drawn and each of its widgets
 * is ready or in error. One predicate, checked at once: the contents mark a route as current as
 * soon as the hash changes, while the prose (and so the widgets) arrives later; in between the
 * page has no widgets at all, and the old page's heading may still be there. */
export async function pageSettled(page, route, timeout = 120000) {
  await page.waitForFunction((route) => {
    const current = document.querySelector('#toc a[aria-current=page]');
    const app = document.getElementById('app');
    return current?.getAttribute('href') === route && app && !app.hasAttribute('aria-busy') && !!app.querySelector('h1')
      && [...document.querySelectorAll('[data-widget]')].every((w) => w.dataset.state === 'ready' || w.dataset.state === 'error');
  }, route, { timeout });
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
