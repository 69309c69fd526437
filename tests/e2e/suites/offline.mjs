// Offline: after one visit the service worker (sw.js, stamped per build by
// scripts/sw-precache.sh) holds the whole site. Load once, go offline (DevTools network
// emulation), reload: every page and widget is still ready, the pretrained model included.
// Also: a new build's worker replaces the old cache, and the site works under a sub-path.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ARTIFACTS, check, assert, serve, pageSettled } from '../lib.mjs';

const DIST = path.resolve(process.argv[2] ?? 'dist');
/** A copy of dist/ as trunk would build it with `--public-url <prefix>`. */
function copyForPrefix(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atencao-offline-'));
  fs.cpSync(DIST, dir, { recursive: true });
  const index = path.join(dir, 'index.html');
  fs.writeFileSync(index, fs.readFileSync(index, 'utf8').replace(/(["'])\/(atencao-|main-)/g, `$1${prefix}$2`));
  return dir;
}

async function waitControlled(page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
    }
  });
}

/** The widgets of the page at `route` that are not ready (their error messages). */
async function allSettled(page, route, timeout = 120000) {
  await pageSettled(page, route, timeout);
  return page.$$eval('[data-widget]', (ws) => ws.filter((w) => w.dataset.state !== 'ready').map((w) => `${w.dataset.widget}: ${w.querySelector('.widget-error')?.textContent}`));
}

export default async function offline({ browser, base, mode }) {
  await check(`[${mode}] offline after one visit: every page and widget ready, the model included`, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // The first visit: the home page only (the model is never opened online).
    await page.goto(`${base}/`);
    await page.waitForSelector('html[data-backend]');
    await waitControlled(page);
    const keys = await page.evaluate(() => caches.keys());
    const version = fs.readFileSync(path.join(DIST, 'sw.js'), 'utf8').match(/const VERSION = '([0-9a-f]{16})'/)?.[1];
    assert(version, 'sw.js was not stamped by scripts/sw-precache.sh');
    assert(keys.some((k) => k.startsWith('atencao-site ') && k.endsWith(version)), JSON.stringify(keys));
    assert(!keys.includes('atencao-modelo'), 'the model was fetched by a page during the first visit');

    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('html[data-backend]');
    const routes = await page.$$eval('#toc a', (as) => as.map((a) => a.getAttribute('href')));
    assert(routes.length >= 40, `${routes.length} routes`);
    for (const route of routes) {
      await page.goto(`${base}/${route}`);
      const notReady = await allSettled(page, route);
      assert(notReady.length === 0, `${route} offline: ${notReady.join('; ')}`);
    }
    // A cold load of the decoder's page, offline: document, wasm and model from the cache.
    await page.goto('about:blank');
    await page.goto(`${base}/#/decodificador`);
    const notReady = await allSettled(page, '#/decodificador');
    assert(notReady.length === 0, `decoder offline: ${notReady.join('; ')}`);
    assert(await page.$$eval('[data-widget=decoder] .chip', (cs) => cs.length) > 0, 'no tokens');
    await page.$eval('[data-widget=decoder]', (w) => w.scrollIntoView());
    await page.screenshot({ path: path.join(ARTIFACTS, `offline-decoder-${mode}.png`) });
    assert(errors.length === 0, errors.join('\n'));
    await context.close();
  });

  if (mode !== 'webgpu') return;

  await check('[webgpu] under a sub-path, and a new build replaces the old cache', async () => {
    const prefix = '/publicado/atencao/';
    const dir = copyForPrefix(prefix);
    // Only under the prefix, as a site published in a folder.
    const server = await serve(dir, { prefix: prefix.replace(/\/$/, '') });
    const site = `http://127.0.0.1:${server.address().port}${prefix}`;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(site);
      await page.waitForSelector('html[data-backend]');
      await waitControlled(page);
      const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
      assert(scope === site, `scope ${scope}`);
      const before = await page.evaluate(() => caches.keys());
      assert(before.length === 1 && before[0].startsWith(`atencao-site ${site} `), JSON.stringify(before));

      await context.setOffline(true);
      await page.goto('about:blank');
      await page.goto(`${site}#/queries-keys-values`);
      const notReady = await allSettled(page, '#/queries-keys-values');
      assert(notReady.length === 0, `offline under ${prefix}: ${notReady.join('; ')}`);
      await context.setOffline(false);

      // "A new build": other bytes in index.html give a new version; the update replaces the cache.
      fs.appendFileSync(path.join(dir, 'index.html'), '\n<!-- rebuilt -->\n');
      const sw = path.join(dir, 'sw.js');
      fs.writeFileSync(sw, fs.readFileSync(sw, 'utf8').replace(/const VERSION = '[0-9a-f]+'/, "const VERSION = '0123456789abcdef'"));
      await page.goto(site);
      await page.waitForSelector('html[data-backend]');
      await page.evaluate(async () => {
        const registration = await navigator.serviceWorker.ready;
        await registration.update();
      });
      await page.waitForFunction(async () => {
        const keys = await caches.keys();
        return keys.length === 1 && keys[0].endsWith('0123456789abcdef');
      }, null, { timeout: 60000, polling: 250 });
    } finally {
      await context.close();
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
