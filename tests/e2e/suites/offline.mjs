// Offline (issue 21: a lean first visit). The service worker (sw.js, stamped per build by
// scripts/sw-precache.sh) keeps, from the first visit, the shell and every page, and nothing
// heavy: the pretrained model is kept when a decoder widget loads it (src/web/model_store.rs's
// cache), or when the reader asks for the whole site ("salvar para ler offline"). Under
// Save-Data nothing is fetched ahead. Also: a new build's worker replaces the old cache, and the
// site works under a sub-path.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { ARTIFACTS, check, assert, serve, pageSettled, pageName } from '../lib.mjs';

const DIST = path.resolve(process.argv[2] ?? 'dist');
const VERSION = () => fs.readFileSync(path.join(DIST, 'sw.js'), 'utf8').match(/const VERSION = '([0-9a-f]{16})'/)?.[1];
/** Pages whose widgets need the model's files, which a first visit does not keep. */
// Pages whose widgets download files kept only once fetched: the model, and the train page's
// preset story (static/train/, an 'extra' file) beside its decoder.
const NEEDS_MODEL = ['decodificador', 'tokenizacao-bpe', 'treinar-no-navegador'];

/** A copy of dist/ to publish under a sub-path (every link of the site is relative). */
function copyOfSite() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atencao-offline-'));
  fs.cpSync(DIST, dir, { recursive: true });
  return dir;
}

/** Polls `predicate` (async, run in the page) until it is true. (page.waitForFunction does not
 * wait for a promise: an async predicate would pass at once.) */
async function waitUntil(page, predicate, timeout = 60000) {
  const end = Date.now() + timeout;
  while (!(await page.evaluate(predicate))) {
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms: ${predicate}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function waitControlled(page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
    }
  });
}

/** The site cache's paths (its keys without the `?v=` hash), and the other caches' names. */
async function cached(page) {
  return page.evaluate(async () => {
    const scope = (await navigator.serviceWorker.ready).scope;
    const names = await caches.keys();
    const site = names.find((n) => n.startsWith('atencao-site '));
    const paths = site ? (await (await caches.open(site)).keys()).map((r) => r.url.slice(scope.length).split('?')[0]) : [];
    return { names, site, paths };
  });
}

/** The widgets of the page at `route` that are not ready (their error messages). */
async function allSettled(page, route, timeout = 120000) {
  await pageSettled(page, route, timeout);
  return page.$$eval('[data-widget]', (ws) => ws.filter((w) => w.dataset.state !== 'ready').map((w) => `${w.dataset.widget}: ${w.querySelector('.widget-error')?.textContent}`));
}

/** A fresh browser context on its own server, whose requests are logged. */
async function fresh(browser, options = {}) {
  const log = [];
  const server = await serve(DIST, { log });
  const base = `http://127.0.0.1:${server.address().port}`;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const close = async () => { await context.close(); server.close(); };
  return { log, base, context, page, errors, close };
}

export default async function offline({ browser, mode }) {
  const pages = fs.readdirSync(DIST).filter((f) => f.endsWith('.html'));

  await check(`[${mode}] first visit to the home page: the shell and every page kept, the model never fetched; offline, every page reads`, async () => {
    const { log, base, context, page, errors, close } = await fresh(browser);
    try {
      await page.goto(`${base}/`);
      await waitControlled(page);
      const { names, site, paths } = await cached(page);
      const version = VERSION();
      assert(version, 'sw.js was not stamped by scripts/sw-precache.sh');
      assert(site?.endsWith(version), JSON.stringify(names));
      // The builds of the page's module that pages load, and the page worker's (issues 36, 41);
      // the build with every widget (the catalogue's, blogs') waits for "salvar".
      for (const file of [...pages, 'atencao-sequences.js', 'atencao-sequences_bg.wasm', 'atencao-attention.js', 'atencao-attention_bg.wasm', 'atencao-models.js', 'atencao-models_bg.wasm', 'atencao-modern.js', 'atencao-modern_bg.wasm', 'atencao-resident.js', 'atencao-resident_bg.wasm', 'atencao-worker.js', 'atencao-worker_bg.wasm', 'main.css', 'static/site.js']) {
        assert(paths.includes(file), `${file} is not in the offline copy`);
      }
      assert(!paths.includes('atencao_bg.wasm'), 'the build with every widget was fetched on a first visit');
      assert(!names.includes('atencao-modelo'), `the model's cache exists after a first visit: ${names}`);
      const model = log.filter((p) => p.startsWith('/static/model/'));
      assert(model.length === 0, `the first visit fetched ${model.join(', ')}`);
      // The footer offers the rest, with its size.
      await page.waitForSelector('#offline-save:visible');
      const offer = await page.textContent('#offline-save');
      assert(/^salvar para ler offline \(\d+,\d MB\)$/.test(offer), offer);

      await context.setOffline(true);
      await page.reload();
      await page.waitForSelector('main h1');
      const routes = await page.$$eval('#toc a', (as) => as.map((a) => a.getAttribute('href')));
      assert(routes.length >= 40, `${routes.length} routes`);
      for (const route of routes) {
        await page.goto(`${base}/${route}`);
        const notReady = await allSettled(page, route);
        if (NEEDS_MODEL.includes(pageName(route))) {
          // The model was never opened: its widgets say they cannot download it.
          assert(notReady.every((w) => /baixar|download|rede/i.test(w)), `${route} offline: ${notReady.join('; ')}`);
        } else {
          assert(notReady.length === 0, `${route} offline: ${notReady.join('; ')}`);
        }
      }
      assert(errors.length === 0, errors.join('\n'));
    } finally {
      await close();
    }
  });

  await check(`[${mode}] the decoder, opened once, works offline (its model kept by model_store)`, async () => {
    const { base, context, page, errors, close } = await fresh(browser);
    try {
      await page.goto(`${base}/decodificador.html`);
      assert((await allSettled(page, 'decodificador.html')).length === 0, 'the decoder did not load online');
      await waitControlled(page);
      const { names } = await cached(page);
      assert(names.includes('atencao-modelo'), `no model cache after opening the decoder: ${names}`);
      // A cold load, offline: document, wasm and model from the caches.
      await context.setOffline(true);
      await page.goto('about:blank');
      await page.goto(`${base}/decodificador.html`);
      const notReady = await allSettled(page, 'decodificador.html');
      assert(notReady.length === 0, `decoder offline: ${notReady.join('; ')}`);
      assert(await page.$$eval('[data-widget=decoder] .chip', (cs) => cs.length) > 0, 'no tokens');
      await page.$eval('[data-widget=decoder]', (w) => w.scrollIntoView());
      await page.screenshot({ path: path.join(ARTIFACTS, `offline-decoder-${mode}.png`) });
      assert(errors.length === 0, errors.join('\n'));
    } finally {
      await close();
    }
  });

  // The worker and the caches do not depend on the backend: run.mjs runs this suite once, in
  // the CPU mode (or in the only mode asked for).
  await subPathAndNewBuild({ browser, mode });

  await check(`[${mode}] a worker that cannot answer falls through to the network (the Cache API failing, waitUntil refused)`, async () => {
    const site = 'http://127.0.0.1:9/';
    const network = (request) => new Response(`network: ${new URL(request.url).pathname}`, { status: 200 });
    // The Cache API fails on every call; the network answers.
    let worker = builtWorker(site, { caches: failingCaches(), fetch: async (request) => network(request) });
    for (const file of ['atencao-attention.js', 'atencao-attention_bg.wasm', 'main.css', 'queries-keys-values.html']) {
      const answer = await worker.fetch(new Request(site + file), { refuseWaitUntil: true });
      assert(answer !== null, `${file}: the worker did not answer`);
      const response = await answer;
      assert(response.ok && (await response.text()) === `network: /${file}`, `${file}: answered ${response.status}`);
    }
    // The network fails too, with nothing kept: the request fails, as it would without a worker.
    worker = builtWorker(site, { caches: failingCaches(), fetch: async () => { throw new TypeError('offline'); } });
    const lost = await worker.fetch(new Request(`${site}atencao.js`)).then(() => 'answered', (error) => String(error));
    assert(lost === 'TypeError: offline', `with neither cache nor network: ${lost}`);
  });

  await check(`[${mode}] "salvar para ler offline" keeps the rest of the site, the model included`, async () => {
    const { base, context, page, errors, close } = await fresh(browser);
    try {
      await page.goto(`${base}/`);
      await waitControlled(page);
      await page.click('#offline-save');
      await page.waitForFunction(() => document.getElementById('offline-status').textContent === 'Site salvo para ler offline.', null, { timeout: 120000 });
      assert(await page.isHidden('#offline-save'), 'the button still offers to save');
      await page.locator('.site-footer').screenshot({ path: path.join(ARTIFACTS, 'offline-saved-footer.png') });
      await context.setOffline(true);
      for (const route of ['tokenizacao-bpe.html', 'decodificador.html']) {
        await page.goto('about:blank');
        await page.goto(`${base}/${route}`);
        const notReady = await allSettled(page, route);
        assert(notReady.length === 0, `${route} offline after saving: ${notReady.join('; ')}`);
      }
      const embed = await page.evaluate(async () => (await fetch('embed.js')).ok);
      assert(embed, 'embed.js was not saved');
      assert(errors.length === 0, errors.join('\n'));
    } finally {
      await close();
    }
  });

  await check(`[${mode}] Save-Data: nothing fetched ahead; the pages and the wasm kept as the reader opens them`, async () => {
    const { log, base, page, errors, close } = await fresh(browser);
    try {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setDataSaverOverride', { dataSaverEnabled: true });
      await page.goto(`${base}/`);
      await waitControlled(page);
      const scriptURL = await page.evaluate(async () => (await navigator.serviceWorker.ready).active.scriptURL);
      assert(scriptURL.endsWith('sw.js?save-data'), scriptURL);
      const first = await cached(page);
      assert(!first.paths.some((p) => p.endsWith('.html') && p !== 'index.html'), `pages fetched ahead: ${first.paths}`);
      const fetched = log.filter((p) => /\.html$|\.wasm$|\/static\/model\//.test(p) && p !== '/index.html');
      assert(fetched.length === 0, `fetched ahead under Save-Data: ${fetched.join(', ')}`);
      // A page with a widget near the top: it and the wasm are kept as they load.
      await page.goto(`${base}/vetores.html`);
      await pageSettled(page, 'vetores.html');
      await waitUntil(page, async () => {
        const site = (await caches.keys()).find((n) => n.startsWith('atencao-site '));
        const keys = (await (await caches.open(site)).keys()).map((r) => r.url);
        return keys.some((k) => k.includes('/vetores.html?')) && keys.some((k) => k.includes('/atencao-sequences_bg.wasm?'));
      }, 30000);
      assert(errors.length === 0, errors.join('\n'));
    } finally {
      await close();
    }
  });
}

/** A Cache API whose every call fails, as storage can (quota, a profile gone bad). */
function failingCaches() {
  const fail = async () => { throw new DOMException('the storage failed', 'UnknownError'); };
  return { match: fail, open: fail, has: fail, keys: fail, delete: fail };
}

/** dist/sw.js (this build's, stamped) run in a Node VM with `caches` and `fetch` given. Its
 * `fetch(request, { refuseWaitUntil })` dispatches a fetch event and returns the promise handed
 * to respondWith, or null when the worker leaves the request to the network. `refuseWaitUntil`:
 * waitUntil throws, as in an engine that takes it only while the event is dispatched. */
function builtWorker(scope, { caches, fetch }) {
  const listeners = {};
  const self = {
    registration: { scope },
    location: { href: `${scope}sw.js` },
    navigator: {},
    addEventListener: (type, listener) => { listeners[type] = listener; },
    skipWaiting: async () => {},
    clients: { claim: async () => {} },
  };
  const context = vm.createContext({ self, caches, fetch, URL, Request, Response, Headers, DOMException, crypto: globalThis.crypto, setTimeout, Promise, Map, console });
  vm.runInContext(fs.readFileSync(path.join(DIST, 'sw.js'), 'utf8'), context);
  return {
    fetch: async (request, { refuseWaitUntil = false } = {}) => {
      let answer = null;
      listeners.fetch({
        request,
        respondWith: (promise) => { answer = Promise.resolve(promise); },
        waitUntil: () => { if (refuseWaitUntil) throw new DOMException('the event is no longer active', 'InvalidStateError'); },
      });
      return answer;
    },
  };
}

async function subPathAndNewBuild({ browser, mode }) {
  await check(`[${mode}] under a sub-path, and a new build replaces the old cache`, async () => {
    const prefix = '/publicado/atencao/';
    const dir = copyOfSite();
    // Only under the prefix, as a site published in a folder.
    const server = await serve(dir, { prefix: prefix.replace(/\/$/, '') });
    const site = `http://127.0.0.1:${server.address().port}${prefix}`;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(site);
      await waitControlled(page);
      const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
      assert(scope === site, `scope ${scope}`);
      const before = await page.evaluate(() => caches.keys());
      assert(before.length === 1 && before[0].startsWith(`atencao-site ${site} `), JSON.stringify(before));

      await context.setOffline(true);
      await page.goto('about:blank');
      await page.goto(`${site}queries-keys-values.html`);
      const notReady = await allSettled(page, 'queries-keys-values.html');
      assert(notReady.length === 0, `offline under ${prefix}: ${notReady.join('; ')}`);
      await context.setOffline(false);

      // "A new build": other bytes in a page give a new version; the update replaces the cache,
      // and the unchanged files are copied from the old one, not downloaded again.
      fs.appendFileSync(path.join(dir, 'vetores.html'), '\n<!-- rebuilt -->\n');
      const sw = path.join(dir, 'sw.js');
      const hash = (await import('node:crypto')).createHash('sha256').update(fs.readFileSync(path.join(dir, 'vetores.html'))).digest('hex').slice(0, 16);
      fs.writeFileSync(sw, fs.readFileSync(sw, 'utf8')
        .replace(/const VERSION = '[0-9a-f]+'/, "const VERSION = '0123456789abcdef'")
        .replace(/\['vetores\.html', '[0-9a-f]+'/, `['vetores.html', '${hash}'`));
      await page.goto(site);
      await page.evaluate(async () => {
        const registration = await navigator.serviceWorker.ready;
        await registration.update();
      });
      const swapped = async () => {
        const keys = await caches.keys();
        return keys.length === 1 && keys[0].endsWith('0123456789abcdef');
      };
      try {
        try {
          await waitUntil(page, swapped, 40000);
        } catch (stillWaiting) {
          // Chromium sometimes keeps the new worker waiting behind the old one while a page it
          // controls stays open, skipWaiting and the page's nudges notwithstanding (sw.js,
          // 'skip-waiting'); seen only after other suites ran in the same browser, never alone.
          // A reader's next visit, once the old build's tabs are closed, is the update's other
          // path: take it, and the cache must be replaced then.
          console.log(`     [${mode}] the new worker still waited after 40 s with the page open; the page left and came back`);
          await page.goto('about:blank');
          await page.waitForTimeout(1000);
          await page.goto(site);
          await waitUntil(page, swapped, 40000);
        }
      } catch (error) {
        // Which worker is where, for the next engineer.
        const state = await page.evaluate(async () => {
          const r = await navigator.serviceWorker.getRegistration();
          const w = (x) => x && `${x.state} ${x.scriptURL.split('/').pop()}`;
          return { installing: w(r?.installing), waiting: w(r?.waiting), active: w(r?.active), caches: await caches.keys() };
        });
        throw new Error(`${error.message}; workers ${JSON.stringify(state)}`);
      }
      const rebuilt = await page.evaluate(async () => {
        const cache = await caches.open((await caches.keys()).find((k) => k.endsWith('0123456789abcdef')));
        const keys = (await cache.keys()).map((r) => r.url);
        const page = keys.find((k) => k.includes('/vetores.html?'));
        return { count: keys.length, key: page, page: page && (await (await cache.match(page)).text()).includes('<!-- rebuilt -->') };
      });
      assert(rebuilt.page, `the new cache has the old vetores.html (${rebuilt.key}, want the hash ${hash})`);
      assert(rebuilt.count >= 70, `the new cache has ${rebuilt.count} files`);
    } finally {
      await context.close();
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
