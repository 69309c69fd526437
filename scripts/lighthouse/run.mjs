// Lighthouse (mobile preset, simulated throttling) against an already built site, served the
// way a real host serves it: gzip for text and wasm, an ETag and `Cache-Control: no-cache` on
// every file (README: revalidate, so a new build is picked up). Run by scripts/lighthouse.sh;
// builds nothing.
//
//   node scripts/lighthouse/run.mjs DIST [PAGE ...]
//
// PAGE is a path relative to the site's root ('' for the home page, 'queries-keys-values.html',
// '#/decodificador' for an old hash route); the default is the three pages of issue 21. Each
// page is measured LIGHTHOUSE_RUNS times (default 3), each in a fresh Chromium, and the run with
// the median performance score is reported. Then the first visit to the home page is weighed:
// every byte the server sends to a fresh browser until the service worker has filled the
// offline cache and the network has been quiet for 3 s. LIGHTHOUSE_SAVE=dir keeps each report
// (JSON), LIGHTHOUSE_VERBOSE=1 lists the first visit's requests.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';

import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';
import puppeteer from 'puppeteer-core';

const DIST = path.resolve(process.argv[2] ?? 'dist');
const PAGES = process.argv.length > 3 ? process.argv.slice(3) : ['', 'queries-keys-values.html', 'decodificador.html'];
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = ['--headless=new', '--no-sandbox', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];

const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json',
  '.png': 'image/png', '.md': 'text/markdown; charset=utf-8', '.csv': 'text/csv', '.txt': 'text/plain' };
/** What hosts compress (the model's weights are binary and barely shrink: sent as they are). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.wasm', '.css', '.svg', '.json', '.md', '.csv', '.txt']);

/** A static server like a CDN's: gzip (level 6, as hosts do on the fly), ETag, revalidation.
 * `sent` counts the bytes of every response (headers and body) since the last reset. */
function serve(root) {
  const files = new Map();
  const load = (file) => {
    if (!files.has(file)) {
      const body = fs.readFileSync(file);
      const ext = path.extname(file);
      const gz = COMPRESSIBLE.has(ext) ? zlib.gzipSync(body, { level: 6 }) : null;
      const etag = `"${crypto.createHash('sha1').update(body).digest('hex').slice(0, 20)}"`;
      files.set(file, { body, gz, etag, type: MIME[ext] ?? 'application/octet-stream' });
    }
    return files.get(file);
  };
  const stats = { sent: 0, requests: [] };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root)) { res.writeHead(403); return res.end(); }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!fs.existsSync(file)) { res.writeHead(404); return res.end('not found'); }
    const f = load(file);
    const headers = { 'content-type': f.type, 'cache-control': 'no-cache', etag: f.etag, vary: 'accept-encoding' };
    let body = f.body;
    if (req.headers['if-none-match'] === f.etag) {
      res.writeHead(304, headers);
      body = Buffer.alloc(0);
    } else {
      if (f.gz && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
        headers['content-encoding'] = 'gzip';
        body = f.gz;
      }
      headers['content-length'] = body.length;
      res.writeHead(200, headers);
    }
    const headerBytes = Object.entries(headers).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 17);
    stats.sent += headerBytes + body.length;
    stats.requests.push(`${res.statusCode} ${url.pathname}${url.search} ${body.length}`);
    res.end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, stats })));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (v) => `${(v / 1000).toFixed(2).replace('.', ',')} s`;

async function audit(url) {
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: FLAGS });
  try {
    const { lhr } = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error',
      onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'] });
    if (process.env.LIGHTHOUSE_SAVE) {
      fs.mkdirSync(process.env.LIGHTHOUSE_SAVE, { recursive: true });
      const name = `${new URL(url).pathname.replace(/\W+/g, '_')}${new URL(url).hash.replace(/\W+/g, '_')}-${Date.now()}.json`;
      fs.writeFileSync(path.join(process.env.LIGHTHOUSE_SAVE, name), JSON.stringify(lhr));
    }
    const score = (c) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
    const num = (a) => lhr.audits[a]?.numericValue ?? NaN;
    // The audits that cost points outside performance.
    const failing = Object.values(lhr.categories).filter((c) => c.id !== 'performance').flatMap((c) => c.auditRefs)
      .filter((ref) => ref.weight > 0).map((ref) => lhr.audits[ref.id])
      .filter((a) => a && a.score !== null && a.score < 1).map((a) => a.id);
    return {
      performance: score('performance'), accessibility: score('accessibility'), bestPractices: score('best-practices'), seo: score('seo'),
      fcp: num('first-contentful-paint'), lcp: num('largest-contentful-paint'), tbt: num('total-blocking-time'),
      cls: num('cumulative-layout-shift'), si: num('speed-index'), bytes: num('total-byte-weight'),
      lcpElement: lhr.audits['largest-contentful-paint-element']?.details?.items?.[0]?.items?.[0]?.node?.snippet ?? '',
      failing, warnings: lhr.runWarnings ?? [],
    };
  } finally {
    await chrome.kill();
  }
}

/** Bytes sent to a fresh browser that opens the home page, until the service worker is active,
 * its cache filled, and nothing has been asked of the server for 3 s (or 60 s have passed). */
async function firstVisit(site, stats) {
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS.filter((f) => !f.startsWith('--headless')) });
  try {
    const page = await browser.newPage();
    stats.sent = 0;
    stats.requests = [];
    await page.goto(site, { waitUntil: 'load' });
    await page.evaluate(async () => { if ('serviceWorker' in navigator) await navigator.serviceWorker.ready; });
    const started = Date.now();
    let last = -1;
    let quietSince = Date.now();
    while (Date.now() - started < 60000) {
      await new Promise((r) => setTimeout(r, 250));
      if (stats.requests.length !== last) { last = stats.requests.length; quietSince = Date.now(); }
      if (Date.now() - quietSince > 3000) break;
    }
    const cached = await page.evaluate(async () => {
      let n = 0;
      for (const key of await caches.keys()) n += (await (await caches.open(key)).keys()).length;
      return n;
    });
    return { bytes: stats.sent, requests: [...stats.requests], cached };
  } finally {
    await browser.close();
  }
}

const { server, stats } = await serve(DIST);
const site = `http://127.0.0.1:${server.address().port}/`;
console.log(`lighthouse ${JSON.parse(fs.readFileSync(new URL('./node_modules/lighthouse/package.json', import.meta.url))).version}, `
  + `mobile preset (simulated throttling), ${RUNS} run(s) per page, median by performance; ${CHROMIUM}; ${DIST}`);
const rows = [];
for (const page of PAGES) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await audit(site + page));
  const perf = median(runs.map((r) => r.performance));
  const chosen = runs.find((r) => r.performance === perf);
  rows.push({ page: page || '/', runs: runs.map((r) => r.performance).join(' '), ...chosen });
  console.log(`\n${page || '/'}: performance ${chosen.performance} (runs: ${runs.map((r) => r.performance).join(', ')}), `
    + `accessibility ${chosen.accessibility}, best practices ${chosen.bestPractices}, SEO ${chosen.seo}`);
  console.log(`  FCP ${ms(chosen.fcp)}, LCP ${ms(chosen.lcp)}, TBT ${Math.round(chosen.tbt)} ms, CLS ${chosen.cls.toFixed(3)}, `
    + `speed index ${ms(chosen.si)}, weight ${(chosen.bytes / 1e6).toFixed(2)} MB`);
  console.log(`  LCP element: ${chosen.lcpElement.slice(0, 120)}`);
  if (chosen.failing.length) console.log(`  failing audits (not performance): ${chosen.failing.join(', ')}`);
  for (const w of chosen.warnings) console.log(`  warning: ${w}`);
}

const visit = await firstVisit(site, stats);
console.log(`\nfirst visit to the home page: ${(visit.bytes / 1e6).toFixed(3)} MB sent by the server in ${visit.requests.length} responses, `
  + `${visit.cached} entries in the Cache API afterwards`);
if (process.env.LIGHTHOUSE_VERBOSE) for (const r of visit.requests) console.log(`  ${r}`);

console.log('\n| page | performance | accessibility | best practices | SEO | FCP | LCP | TBT | CLS | weight |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| \`${r.page}\` | ${r.performance} (${r.runs}) | ${r.accessibility} | ${r.bestPractices} | ${r.seo} | ${ms(r.fcp)} | ${ms(r.lcp)} | `
    + `${Math.round(r.tbt)} ms | ${r.cls.toFixed(3)} | ${(r.bytes / 1e6).toFixed(2)} MB |`);
}
server.close();
