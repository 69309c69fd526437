// The smoke suite every engine runs (run.mjs): each page's widgets ready at phone width with no
// sideways scroll, golden numbers on five widgets, the decoder generating, training taking steps,
// the example blog post's embedded widgets, an offline reload after a first visit, and no console
// error. Written against drivers.mjs's small interface: everything is read in the page with
// `driver.eval`, so the same checks run in Chromium, Gecko and WebKit.
import path from 'node:path';

import { ARTIFACTS, check, assert, assertMatrix, assertNear, parsePt } from '../lib.mjs';
import { GOLDEN, ATTENTION_PAGE } from '../suites/attention.mjs';
import { assertTable1, LOOKUP_MEUS } from '../suites/sequence.mjs';

/** sessionStorage key under which the recorder (RECORDER, put first in every page) keeps errors. */
const ERRORS_KEY = 'engines.errors';

/** Put first in every page by the test server: records the page's errors (console.error, uncaught
 * errors, failed resource loads, unhandled rejections) in sessionStorage, which outlives the page,
 * so the suite sees them in engines whose protocol reports no console (WebKit's WebDriver). */
export const RECORDER = `<script>(() => {
  const keep = (text) => { try {
    const list = JSON.parse(sessionStorage.getItem('${ERRORS_KEY}') || '[]');
    list.push(location.pathname + ': ' + text);
    sessionStorage.setItem('${ERRORS_KEY}', JSON.stringify(list));
  } catch (e) { /* storage refused: nothing to record into */ } };
  const original = console.error;
  console.error = function (...args) { keep(args.map(String).join(' ')); return original.apply(this, args); };
  addEventListener('error', (e) => keep(e.message || ('could not load ' + ((e.target && (e.target.src || e.target.href)) || 'a resource'))), true);
  addEventListener('unhandledrejection', (e) => keep('unhandled rejection: ' + String((e.reason && e.reason.stack) || e.reason)));
})();</script>`;

/** Mounts every widget of a site page (scrolling each into view: they mount as they near the
 * viewport), then waits until each is ready or in error. Returns the page's name, each widget's
 * kind, state and message, and how far the page scrolls sideways. Runs in the page. */
async function settle(timeout) {
  const end = Date.now() + timeout;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  while (!(document.getElementById('app')?.dataset.page && document.querySelector('main h1')) && Date.now() < end) await sleep(50);
  // A page the wasm writes (the catalogue) says it is loading until the wasm has run: leaving it
  // sooner would cut the wasm's download short (Firefox then logs an error for it).
  while (document.querySelector('main#app .page-loading') && Date.now() < end) await sleep(50);
  // The catalogue's examples mount as embedded widgets do (suites/embed.mjs tests them).
  const waiting = () => [...document.querySelectorAll('main#app:not([data-page=catalogo]) [data-widget]:not([data-on-demand])')];
  const unmounted = () => waiting().filter((w) => !w.dataset.state);
  {
    // Down the page a screen at a time, as a reader scrolls: jumping straight to a widget far
    // down lands short of it in WebKit, whose prose blocks (content-visibility: auto) take their
    // real height only as they near the screen. (Timers, not animation frames: WebKit under Xvfb
    // paints a frame in a frame every 50 to 400 ms.)
    for (let still = 0; unmounted().length && still < 5 && Date.now() < end;) {
      const before = window.scrollY;
      window.scrollBy(0, Math.round(innerHeight * 0.8));
      await sleep(60);
      still = window.scrollY === before ? still + 1 : 0;
    }
    // A widget passed before the wasm had loaded is mounted when it is back in view.
    for (const widget of unmounted()) {
      widget.scrollIntoView({ block: 'center' });
      for (let t = 0; !widget.dataset.state && t < 50 && Date.now() < end; t++) await sleep(60);
    }
    window.scrollTo(0, 0);
  }
  while (Date.now() < end && !waiting().every((w) => w.dataset.state === 'ready' || w.dataset.state === 'error')) await sleep(100);
  // A kernel's source shown on the page (the matmul benchmark's) then downloads its commented
  // files; leaving before that ends cuts a request the service worker is answering, which Firefox
  // logs as an error (ROBUSTNESS.md). A reader stays that long; at most 5 s here.
  for (let t = 0; document.querySelector('main#app pre.wgsl[data-source=compilado]') && t < 100 && Date.now() < end; t++) await sleep(50);
  return {
    page: document.getElementById('app')?.dataset.page,
    widgets: waiting().map((w) => [w.dataset.widget, w.dataset.state ?? 'unmounted', w.querySelector('.widget-error')?.textContent ?? '', w.dataset.computedOn ?? '']),
    backends: [...new Set(waiting().map((w) => w.dataset.computedOn).filter(Boolean))],
    sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  };
}

/** Opens a site page and settles it; fails on a widget that is not ready, and on a widget of
 * one of the kinds `on.kinds` that did not compute on `on.backend`. */
async function open(driver, url, on = null, timeout = 120000) {
  await driver.goto(url);
  const info = await driver.eval(settle, timeout);
  const bad = info.widgets.filter(([, state]) => state !== 'ready');
  assert(bad.length === 0, `${url}: ${bad.map((w) => w.slice(0, 3).join(' ')).join('; ')}`);
  for (const [kind, , , computedOn] of info.widgets) {
    assert(!on?.kinds.includes(kind) || computedOn === on.backend, `${url}: ${kind} computed on "${computedOn}", not ${on?.backend}`);
  }
  return info;
}

/** A twin table of the widget `host` as rows of cell texts (td only). Runs in the page. */
function twin(host, attribute, key) {
  return [...document.querySelectorAll(`${host} table.twin[${attribute}="${key}"] tr`)].slice(1)
    .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
}

/** A twin table as { row label: { column label: text } }, rows in the table's order. The page
 * sends arrays: an object's key order does not survive WebKit's WebDriver. */
async function twinByLabel(driver, host, key) {
  const { cols, rows } = await driver.eval((h, k) => {
    const trs = [...document.querySelectorAll(`${h} table.twin[data-matrix="${k}"] tr`)];
    return {
      cols: [...trs[0].querySelectorAll('th')].slice(1).map((th) => th.textContent),
      rows: trs.slice(1).map((tr) => [tr.querySelector('th').textContent, [...tr.querySelectorAll('td')].map((td) => td.textContent)]),
    };
  }, host, key);
  return Object.fromEntries(rows.map(([label, cells]) => [label, Object.fromEntries(cells.map((text, i) => [cols[i], text]))]));
}


/** Polls `fn(...args)` in the page until it returns something truthy; returns it. */
async function until(driver, what, timeout, fn, ...args) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await driver.eval(fn, ...args);
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The suite's parts, in running order. */
export const PARTS = ['pages', 'golden', 'decoder', 'training', 'blog', 'offline'];

/**
 * `pages`: every page of the site (file names); `server`: run.mjs's, with `down()` and `up()`
 * for the offline check; `backend`: the backend the widgets compute on (the CPU unless WebGPU
 * was chosen); `parts`: which of PARTS to run.
 */
export default async function smoke({ driver, base, pages, server, backend = 'cpu', parts = PARTS }) {
  const tag = `[${driver.name}${backend === 'cpu' ? '' : ` ${backend}`}]`;
  const on = (...kinds) => ({ backend, kinds });
  const want = (part) => parts.includes(part);
  const errors = [];
  const takeErrors = async () => {
    errors.push(...driver.consoleErrors());
    const recorded = await driver.eval((key) => {
      try { const list = JSON.parse(sessionStorage.getItem(key) || '[]'); sessionStorage.removeItem(key); return list; } catch (e) { return []; }
    }, ERRORS_KEY).catch(() => []);
    errors.push(...recorded);
  };

  if (want('pages')) await check(`${tag} every page at 390 px: its widgets ready, none in error, no sideways scroll`, async () => {
    await driver.phone(true);
    const problems = [];
    try {
      for (const file of pages) {
        const started = Date.now();
        try {
          const info = await open(driver, `${base}/${file}`);
          if (process.env.SMOKE_VERBOSE) console.log(`     ${file}: ${Date.now() - started} ms`);
          if (info.sideways > 0) problems.push(`${file}: scrolls ${info.sideways} px sideways`);
          if (file === ATTENTION_PAGE) {
            await driver.eval(() => document.querySelector('[data-widget=attention]').scrollIntoView());
            // WebKit under Xvfb paints a frame in a frame late: let it paint what scrolled in.
            await new Promise((resolve) => setTimeout(resolve, 1500));
            await driver.screenshot(path.join(ARTIFACTS, `engines-${driver.name}-390px-attention.png`));
          }
          const elsewhere = info.backends.filter((b) => b !== backend);
          if (elsewhere.length) problems.push(`${file}: computed on ${elsewhere}`);
        } catch (error) {
          problems.push(String(error.message ?? error).split('\n')[0]);
        }
        await takeErrors();
      }
    } finally {
      await driver.phone(false);
    }
    assert(problems.length === 0, problems.join('\n'));
  });

  if (want('golden')) await check(`${tag} attention: Example 2's Q, K, V, weights and output`, async () => {
    await open(driver, `${base}/${ATTENTION_PAGE}`, on('attention'));
    const host = '[data-widget=attention]';
    for (const [key, want] of Object.entries(GOLDEN)) assertMatrix(key, await driver.eval(twin, host, 'data-matrix', key), want);
    await driver.eval((h) => document.querySelector(h).scrollIntoView(), host);
    await driver.screenshot(path.join(ARTIFACTS, `engines-${driver.name}-${backend}-attention.png`));
  });

  if (want('golden')) await check(`${tag} TF-IDF: the three-document table`, async () => {
    await open(driver, `${base}/tf-idf-e-cosseno.html`);
    const t = await twinByLabel(driver, '[data-widget=tfidf]', 'tfidf');
    assertNear('D1 preto', t.D1?.preto, 0.1158);
    assertNear('D2 rato', t.D2?.rato, 0.0676);
    assertNear('D1 caça', t.D1?.['caça'], 0.1569);
    assertNear('D2 branco', t.D2?.branco, 0.1831);
  });

  if (want('golden')) await check(`${tag} transitions: Example 1's Table 1 and h_meus × T`, async () => {
    await open(driver, `${base}/matriz-de-transicao.html`, on('transitions'));
    const host = '[data-widget=transitions]';
    assertTable1(await twinByLabel(driver, host, 'transitions'));
    assertMatrix('h_meus × T', await driver.eval(twin, host, 'data-matrix', 'lookup'), LOOKUP_MEUS);
  });

  if (want('golden')) await check(`${tag} positional encoding: the t = 5, d = 4 table`, async () => {
    await open(driver, `${base}/codificacao-posicional.html`, on('positional-encoding'));
    assertMatrix('PE t=5 d=4', await driver.eval(twin, '[data-widget=positional-encoding]', 'data-matrix', 'pe-small'),
      [[0, 1, 0, 1], [0.8415, 0.5403, 0.0100, 0.99995], [0.9093, -0.4161, 0.0200, 0.9998],
        [0.1411, -0.98999, 0.0300, 0.9996], [-0.7568, -0.6536, 0.0400, 0.9992]]);
  });

  if (want('golden')) await check(`${tag} softmax: softmax(z) and the masked-softmax example`, async () => {
    await open(driver, `${base}/atencao-diferenciavel.html`);
    assertMatrix('softmax(z)', await driver.eval((h) => [[...document.querySelectorAll(`${h} table.twin[data-bars=plain] td`)].map((td) => td.textContent)], '[data-widget=softmax-lab]'),
      [[0.6590, 0.2424, 0.0986]]);
    await open(driver, `${base}/autorregressao-e-mascara.html`, on('masked-softmax'));
    assertMatrix('masked weights', await driver.eval(twin, '[data-widget=masked-softmax]', 'data-matrix', 'weights'),
      [[1, 0, 0], [0.0590, 0.9410, 0], [0.1232, 0.7991, 0.0777]]);
  });

  if (want('decoder')) await check(`${tag} the decoder loads its model and generates`, async () => {
    await open(driver, `${base}/decodificador.html?preset=chaves`, on('decoder'));
    const host = '[data-widget=decoder]';
    const before = await driver.eval((h) => {
      const widget = document.querySelector(h);
      const count = widget.querySelectorAll('.chips .chip').length;
      widget.querySelector('[data-action=generate]').click();
      return count;
    }, host);
    const after = await until(driver, 'generation', 120000, (h, n) => {
      const widget = document.querySelector(h);
      const count = widget.querySelectorAll('.chips .chip').length;
      return widget.dataset.state === 'ready' && count > n
        ? { count, text: widget.querySelector('.decoder-text .generated')?.textContent ?? '', status: widget.querySelector('.widget-backend')?.textContent ?? '' }
        : null;
    }, host, before);
    assert(after.text.trim().length > 0, `generated "${after.text}"`);
    assert(after.status.includes('tokens/s'), after.status);
    await driver.eval((h) => document.querySelector(h).scrollIntoView(), host);
    await driver.screenshot(path.join(ARTIFACTS, `engines-${driver.name}-${backend}-decoder.png`));
  });

  if (want('training')) await check(`${tag} training takes steps, its loss goes down, and pauses`, async () => {
    await open(driver, `${base}/treinar-no-navegador.html`);
    const host = '[data-widget=train]';
    await driver.eval((h) => document.querySelector(`${h} [data-action=train]`).click(), host);
    await until(driver, '40 training steps', 120000, (h) => Number(document.querySelector(h).dataset.steps) >= 40, host);
    const run = await driver.eval((h) => {
      const widget = document.querySelector(h);
      widget.querySelector('[data-action=pause]').click();
      const rows = [...widget.querySelectorAll('table.twin[data-plot=loss] tr')];
      const column = [...rows[0].querySelectorAll('th')].slice(1).findIndex((th) => /valida/i.test(th.textContent));
      const validation = rows.slice(1).map((tr) => tr.querySelectorAll('td')[column]?.textContent);
      return { steps: Number(widget.dataset.steps), uniform: Number(widget.dataset.uniformLoss), column, validation };
    }, host);
    // The validation loss, measured from step 0: it starts near ln V (uniform) and falls.
    const losses = run.validation.map(parsePt).filter(Number.isFinite);
    assert(run.column >= 0 && losses.length >= 2, `validation column ${run.column}: ${JSON.stringify(run.validation)}`);
    assert(losses.at(-1) < losses[0] && losses[0] <= run.uniform + 0.5, `validation losses ${losses.join(' ')} (uniform ${run.uniform})`);
    // The run is in the page's worker: the pause lands after its slice in flight, and the widget
    // says "training" until the worker confirms; from then on no step is taken.
    await until(driver, 'the pause confirmed', 30000, (h) => document.querySelector(h).dataset.training === 'false', host);
    const paused = await driver.eval((h) => Number(document.querySelector(h).dataset.steps), host);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const later = await driver.eval((h) => ({ steps: Number(document.querySelector(h).dataset.steps), training: document.querySelector(h).dataset.training }), host);
    assert(later.training !== 'true' && later.steps === paused && paused <= run.steps + 10, `still training after pause: ${JSON.stringify(later)} from ${run.steps} (${paused} when confirmed)`);
  });

  if (want('blog')) await check(`${tag} the example blog post: seven embedded widgets ready, with golden numbers`, async () => {
    await driver.goto(`${base}/static/blog/exemplo.html`);
    const ids = ['atencao', 'atencao-json', 'mascara', 'busca', 'tfidf', 'bpe', 'softmax'];
    // Each widget mounts as it nears the viewport: scrolled to one at a time, as a reader would.
    const states = await driver.eval(async (list) => {
      const end = Date.now() + 120000;
      const frames = (n) => new Promise((resolve) => { const step = () => (n-- > 0 ? requestAnimationFrame(step) : resolve()); step(); });
      const state = (id) => document.getElementById(id)?.dataset.state;
      for (const id of list) {
        document.getElementById(id)?.scrollIntoView({ block: 'center' });
        while ((!state(id) || state(id) === 'waiting') && Date.now() < end) await frames(2);
      }
      while (Date.now() < end && !list.every((id) => state(id) === 'ready' || state(id) === 'error')) await frames(2);
      return list.map(state);
    }, ids);
    assert(states.every((s) => s === 'ready'), ids.map((id, i) => `${id} ${states[i]}`).join(', '));
    const numbers = await driver.eval(() => {
      const shadow = (id) => document.getElementById(id).shadowRoot;
      const cells = (root, selector) => [...root.querySelectorAll(selector)].map((td) => td.textContent);
      const rows = (root, key) => [...root.querySelectorAll(`table.twin[data-matrix="${key}"] tr`)].slice(1).map((tr) => cells(tr, 'td'));
      return { softmax: cells(shadow('softmax'), 'table.twin[data-bars=plain] td'), weights: rows(shadow('atencao'), 'weights') };
    });
    assertMatrix('softmax(z)', [numbers.softmax], [[0.6590, 0.2424, 0.0986]]);
    assertMatrix('embedded attention weights', numbers.weights, GOLDEN.weights);
  });

  if (want('offline')) await check(`${tag} offline: after a first visit, a reload without the network reads and computes`, async () => {
    await open(driver, `${base}/`);
    // The service worker keeps the shell, the code and every page when it installs.
    await until(driver, 'the offline copy', 60000, async (page) => {
      if (!navigator.serviceWorker?.controller) return false;
      const names = await caches.keys();
      const site = names.find((n) => n.startsWith('atencao-site '));
      if (!site) return false;
      const paths = (await (await caches.open(site)).keys()).map((r) => new URL(r.url).pathname);
      return [page, 'atencao-attention_bg.wasm', 'atencao-attention.js'].every((p) => paths.some((k) => k.endsWith(`/${p}`)));
    }, ATTENTION_PAGE);
    await server.down();
    try {
      await driver.goto(`${base}/${ATTENTION_PAGE}`);
      const info = await driver.eval(settle, 60000);
      assert(info.page === ATTENTION_PAGE.replace('.html', ''), `offline, the page shown is ${info.page}`);
      const bad = info.widgets.filter(([, state]) => state !== 'ready');
      assert(bad.length === 0, `offline: ${bad.map((w) => w.join(' ')).join('; ')}`);
      assertMatrix('weights offline', await driver.eval(twin, '[data-widget=attention]', 'data-matrix', 'weights'), GOLDEN.weights);
    } finally {
      await server.up();
    }
    await driver.goto(`${base}/`);
  });

  await check(`${tag} no console errors`, async () => {
    await takeErrors();
    assert(errors.length === 0, errors.join('\n'));
  });
}
