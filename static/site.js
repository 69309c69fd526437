// atenção: the script of every page of the site. Trunk puts it where index.html has
// <link data-trunk rel="rust"> (Trunk.toml: pattern_script). The page itself is static HTML,
// prerendered at build time (build.rs, scripts/pages.sh): the text, the formulas, the links and
// the table of contents work without this file. It
//   1. sends old links (`./#/slug?w2=…`, the site's addresses before each page had its own file)
//      to the page's file (`slug.html?w2=…`);
//   2. opens and closes the table of contents on narrow screens (the "Sumário" button; Escape
//      and choosing a link close it) and marks in it the pages already read (localStorage);
//   3. loads the wasm once the page has been painted, and only when the page needs it: when a
//      widget comes within a screen of the viewport, or at once on the pages it draws (the
//      catalogue, the benchmark). The text never waits for it, and a page of text only (the
//      home page, the articles' introductions) never compiles it; the service worker fetches it
//      in the background for the next page. The wasm then mounts the widgets in place as they
//      near the viewport (src/web/pages.rs); where it cannot run, they say why. A widget marked
//      `data-on-demand` (the one at the top of the home page) waits for its "experimentar aqui"
//      button instead, so the home page compiles no wasm until the reader asks;
//   4. opens the map of the model under an article page's heading on a wide screen (on a phone
//      it stays one line, "Mapa do modelo · esta página: …", until the reader opens it);
//   5. once the page has loaded, registers the offline service worker (sw.js) and runs
//      "salvar para ler offline" (the rest of the site, the model included, on request).
//   6. shows a glossary term's definition in a popover, and the header's search box (issue 38).
// A module with no inline code: it runs under a strict Content-Security-Policy.
import { SUPPORTED, MESSAGE, showUnsupported } from './compat.js';

const app = document.querySelector('main#app[data-site]');

/** The address of the page an old link (`#/slug?params`) names, with its parameters in the
 * query string; null when the hash is no such link or names no page (the wasm then says so). */
function oldLinkTarget() {
  const match = /^#\/([a-z0-9-]*)(?:\?(.*))?$/.exec(location.hash);
  if (!match) return null;
  const [, slug, query] = match;
  let file;
  if (slug === '' || slug === 'inicio') file = './';
  // Every article and section is in the table of contents; the catalogue, the original articles
  // and the notation are in the footer.
  // (slug is [a-z0-9-]*: safe inside the selector's quotes.)
  else if (slug === 'bench' || document.querySelector(`a[href="${slug}.html"]`)) file = `${slug}.html`;
  else return null;
  const url = new URL(file, document.baseURI);
  const params = new URLSearchParams(location.search);
  for (const [name, value] of new URLSearchParams(query ?? '')) params.set(name, value);
  url.search = params.toString();
  return url.href;
}

/** The "Sumário" button of narrow screens: opens and closes the table of contents. Escape
 * closes it and gives the focus back to the button; choosing a link in it closes it too. */
function menu() {
  const button = document.getElementById('menu-button');
  const toc = document.getElementById('toc');
  if (!button) return;
  const isOpen = () => document.body.classList.contains('menu-open');
  const setOpen = (open) => {
    document.body.classList.toggle('menu-open', open);
    button.setAttribute('aria-expanded', String(open));
  };
  button.addEventListener('click', () => setOpen(!isOpen()));
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !isOpen() || event.defaultPrevented) return;
    setOpen(false);
    button.focus();
  });
  // A link chosen in the contents: closed before the next page (and on the way back to this one).
  toc?.addEventListener('click', (event) => {
    if (event.target instanceof Element && event.target.closest('a[href]') && isOpen()) setOpen(false);
  });
  addEventListener('pageshow', (event) => { if (event.persisted) setOpen(false); });
}

/** Where the pages read are kept: one list per copy of the site (its folder), as page names. */
const READ_KEY = `atencao.lidas ${new URL('./', location.href).pathname}`;
const PAGE_NAME = /^[a-z0-9-]+$/;

/** localStorage, or null where the browser refuses it (private mode, blocked storage). */
function storage() {
  try {
    const store = window.localStorage;
    return store && typeof store.getItem === 'function' ? store : null;
  } catch (error) {
    return null;
  }
}

/** Reading progress: records this page as read (if the contents list it) and marks every page
 * read in the table of contents, with a check and a hidden "(lida)" for screen readers, and
 * each article with how many of its pages were read.
 * Without storage nothing is recorded and nothing marked. */
function readingProgress() {
  const toc = document.getElementById('toc');
  const store = storage();
  if (!toc || !store) return;
  let read = [];
  try {
    const saved = JSON.parse(store.getItem(READ_KEY) ?? '[]');
    if (Array.isArray(saved)) read = saved.filter((name) => typeof name === 'string' && PAGE_NAME.test(name));
  } catch (error) {
    read = [];
  }
  const name = app.dataset.page ?? '';
  if (PAGE_NAME.test(name) && toc.querySelector(`a[href="${name}.html"]`) && !read.includes(name)) {
    read.push(name);
    try {
      store.setItem(READ_KEY, JSON.stringify(read));
    } catch (error) {
      // Full or refused: the marks of this visit still show.
    }
  }
  const marked = new Set(read);
  for (const link of toc.querySelectorAll('a[href$=".html"]')) {
    if (!marked.has(link.getAttribute('href').slice(0, -'.html'.length)) || link.classList.contains('read')) continue;
    link.classList.add('read');
    const check = document.createElement('span');
    check.className = 'read-mark';
    check.setAttribute('aria-hidden', 'true');
    check.textContent = '✓';
    const label = document.createElement('span');
    label.className = 'visually-hidden';
    label.textContent = ' (lida)';
    link.append(check, label);
  }
  // Each article's share read, beside its title: visible with its sections folded.
  for (const group of toc.querySelectorAll('.toc-group')) {
    const head = group.querySelector('.toc-article');
    const links = [...group.querySelectorAll('a[href$=".html"]')];
    const done = links.filter((link) => link.classList.contains('read')).length;
    if (!head || done === 0) continue;
    let count = head.querySelector('.read-count');
    let label = head.querySelector('.read-count-label');
    if (!count) {
      count = document.createElement('span');
      count.className = 'read-count';
      count.setAttribute('aria-hidden', 'true');
      label = document.createElement('span');
      label.className = 'visually-hidden read-count-label';
      head.append(count, label);
    }
    count.textContent = `${done}/${links.length}`;
    label.textContent = ` (${done} de ${links.length} páginas lidas)`;
  }
}

/** Widgets that wait for the reader (`data-on-demand`, the home page's): each mounts when its
 * "experimentar aqui" button is pressed, or at once when the address carries its saved state
 * (`?w0=…`, a link copied from it). The mark comes off first, so the wasm, when it starts, mounts
 * it like any other; if the wasm already runs, the widget is told (`atencao:mount`). */
function onDemandWidgets() {
  const all = [...app.querySelectorAll('[data-widget]')];
  const params = new URLSearchParams(location.search);
  for (const host of app.querySelectorAll('[data-widget][data-on-demand]')) {
    const button = host.querySelector('.on-demand-start');
    const mount = () => {
      if (!host.hasAttribute('data-on-demand')) return;
      host.removeAttribute('data-on-demand');
      if (button) {
        button.textContent = 'carregando…';
        button.setAttribute('aria-disabled', 'true');
        // The button goes away when the widget mounts: the focus goes to the widget.
        if (document.activeElement === button) {
          host.tabIndex = -1;
          new MutationObserver((_, observer) => {
            if (!host.dataset.state) return;
            observer.disconnect();
            if (!button.isConnected) host.focus({ preventScroll: true });
          }).observe(host, { attributes: true, attributeFilter: ['data-state'] });
        }
      }
      host.dispatchEvent(new CustomEvent('atencao:mount'));
      startWasm();
    };
    button?.addEventListener('click', mount);
    if (params.has(`w${all.indexOf(host)}`)) mount();
  }
}

/** Resolves once the page as loaded has been painted (at once in a hidden tab, which paints nothing). */
function painted() {
  if (document.visibilityState === 'hidden') return Promise.resolve();
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/** Puts `message` in every widget of the page, and in the note of a page the wasm draws. */
function widgetsCannotRun(message) {
  for (const host of app.querySelectorAll('[data-widget]')) {
    if (message === MESSAGE) {
      showUnsupported(host);
    } else {
      const note = document.createElement('p');
      note.className = 'widget-error';
      note.setAttribute('role', 'alert');
      note.textContent = message;
      host.replaceChildren(note);
    }
    host.dataset.state = 'error';
  }
  for (const note of app.querySelectorAll('.page-loading')) {
    note.className = 'widget-error';
    note.textContent = message;
  }
}

/** How near the viewport a widget must be for the wasm to load: a screen's height, as the wasm
 * mounts them (src/web/pages.rs, LAZY_MARGIN). */
const NEAR = '100% 0px';

/** Starts the wasm when this page has something for it to do: at once for a page it draws (the
 * catalogue, the benchmark: their `.page-loading` note) or an old link to a page that does not
 * exist; when the first widget comes near the viewport on a page with widgets (a reader who
 * stays in the text above them never downloads or compiles it); never on a page of text only. */
function startWasmWhenNeeded() {
  // Where it cannot compile, every widget says so at once.
  if (!SUPPORTED) return widgetsCannotRun(MESSAGE);
  if (app.querySelector('.page-loading') || location.hash.startsWith('#/')) return startWasm();
  const hosts = app.querySelectorAll('[data-widget]:not([data-on-demand])');
  if (hosts.length === 0) return;
  if (!('IntersectionObserver' in window)) return startWasm();
  const observer = new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) {
      observer.disconnect();
      startWasm();
    }
  }, { rootMargin: NEAR });
  for (const host of hosts) observer.observe(host);
}

let wasmStarted = false;

async function startWasm() {
  if (wasmStarted) return;
  wasmStarted = true;
  if (!SUPPORTED) return widgetsCannotRun(MESSAGE);
  await painted();
  try {
    // The build of the page's module that has this page's widgets (issue 36: article pages
    // load the one of their group, sequences or attention, without the models; the decoder and
    // training pages the one with their drawing only; issue 41: today's block's page, its own;
    // build.rs names it in <main data-module>).
    const module = /^atencao(-sequences|-attention|-models|-resident|-modern)?$/.test(app.dataset.module ?? '') ? app.dataset.module : 'atencao';
    const bindings = await import(`../${module}.js`);
    await bindings.default({ module_or_path: new URL(`../${module}_bg.wasm`, import.meta.url) });
    // As trunk's own loader did: memoryReport() for the load tests and the curious.
    window.wasmBindings = bindings;
    // The footer's backend badge, its select (automático/CPU/WebGPU) and note, which the wasm runs.
    const backend = document.getElementById('backend');
    if (backend) backend.hidden = false;
  } catch (error) {
    widgetsCannotRun(`Não foi possível carregar o WebAssembly dos exemplos (${error?.message ?? error}). O texto da página continua aqui; recarregue para tentar de novo.`);
  }
}

/** "1,2 MB" (written out: the first use of Intl's Portuguese data costs a long task). */
function megabytes(bytes) {
  return `${(bytes / 1e6).toFixed(1).replace('.', ',')} MB`;
}

/** The footer's "salvar para ler offline": asks the service worker what the offline copy lacks
 * (its size, from the file list scripts/sw-precache.sh wrote at build time) and saves it on request. */
async function offlineControl() {
  const box = document.getElementById('offline');
  const button = document.getElementById('offline-save');
  const status = document.getElementById('offline-status');
  if (!box || !button || !status) return;
  const registration = await navigator.serviceWorker.ready;
  const ask = (message, onProgress) => new Promise((resolve, reject) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = ({ data }) => {
      if (data?.type === 'progress') onProgress?.(data);
      else if (data?.type === 'error') reject(new Error(data.message));
      else resolve(data);
    };
    registration.active.postMessage(message, [channel.port2]);
  });
  const show = ({ missing }) => {
    if (!(missing > 0)) {
      button.hidden = true;
      status.textContent = 'Site salvo para ler offline.';
    } else {
      button.hidden = false;
      button.textContent = `salvar para ler offline (${megabytes(missing)})`;
    }
    box.hidden = false;
  };
  show(await ask({ type: 'status' }));
  button.addEventListener('click', async () => {
    button.disabled = true;
    status.textContent = 'Salvando…';
    try {
      show(await ask({ type: 'save' }, ({ done, total }) => {
        status.textContent = `Salvando… ${Math.floor((100 * done) / Math.max(total, 1))} %`;
      }));
    } catch (error) {
      status.textContent = `Não foi possível salvar tudo: ${error.message}. Tente de novo com a conexão ativa.`;
    } finally {
      button.disabled = false;
    }
  });
}

/** Tells a newer worker that waits (a new build installed while this page was open) to take
 * over: its `install` already called skipWaiting, but Chromium can leave it waiting behind the
 * old worker until that one is stopped for good; asking again re-runs the browser's check. The
 * old build's pages keep working either way (every file they load is in its own cache). */
function activateWaiting(registration) {
  // Asked again every few seconds while it waits (for a minute at most): the old worker may
  // become idle well after the new one is installed.
  const nudge = (worker, times = 12) => {
    if (worker?.state !== 'installed' || times === 0) return;
    worker.postMessage({ type: 'skip-waiting' });
    setTimeout(() => nudge(worker, times - 1), 5000);
  };
  const watch = (worker) => worker?.addEventListener('statechange', () => nudge(worker));
  nudge(registration.waiting);
  // A worker already installing when this runs (the page registers once it is idle, and an
  // update check may have begun before): its 'updatefound' has fired, so watch it directly.
  // Missed, it was never nudged: only its own skipWaiting in `install` asked, while this page
  // was still loading through the old worker (a likely cause of the 40-60 s waits seen in the
  // offline suite, not proven).
  watch(registration.installing);
  registration.addEventListener('updatefound', () => watch(registration.installing));
}

/** Registers sw.js (scope: the site's folder) once the page has loaded and the browser is idle,
 * so that filling the offline copy never competes with the page itself. Under Save-Data it is
 * told so (`sw.js?save-data`): then it fetches nothing ahead, the pages and the wasm are kept as
 * the reader opens them. */
function registerOffline() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  const script = navigator.connection?.saveData ? 'sw.js?save-data' : 'sw.js';
  const register = () => navigator.serviceWorker.register(script).then((registration) => {
    activateWaiting(registration);
    return offlineControl();
  }).catch((error) => {
    // Without it the site works as before, online only: a warning, not an error.
    console.warn(`atencao: sem modo offline (${error?.message ?? error})`);
  });
  const whenIdle = () => ('requestIdleCallback' in window ? requestIdleCallback(register, { timeout: 3000 }) : setTimeout(register, 1000));
  if (document.readyState === 'complete') whenIdle();
  else addEventListener('load', whenIdle, { once: true });
}

/** The boxes styles/main.css lets scroll sideways: a long formula or table on a phone, code, a
 * wide matrix or result. */
const SCROLLERS = 'math[display=block], pre, table, .widget, .editor, .steps, .table-scroll, .wiring, .hood-content, .hood-compare-out, .mv-frame';

/** Such a box is a Tab stop while it scrolls, so the keyboard can scroll it too (WCAG 2.1.1),
 * unless something focusable inside already lets it in. Checked when the page is idle after
 * loading, after a resize, after a widget draws, opens a panel or shows a tab, and after the
 * wasm writes a page. */
function keyboardScrolling() {
  let queued = false;
  const check = () => {
    queued = false;
    for (const box of app.querySelectorAll(SCROLLERS)) {
      const mine = box.hasAttribute('data-scrolls');
      const scrolls = box.scrollWidth > box.clientWidth + 1 && /auto|scroll/.test(getComputedStyle(box).overflowX)
        && (mine || !box.matches('[tabindex]') && !box.querySelector('a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])'));
      if (scrolls !== mine) {
        box.toggleAttribute('data-scrolls', scrolls);
        if (scrolls) box.tabIndex = 0; else box.removeAttribute('tabindex');
      }
    }
  };
  const queue = () => { if (!queued) { queued = true; (window.requestIdleCallback ?? setTimeout)(check); } };
  queue();
  addEventListener('resize', queue);
  new MutationObserver(queue).observe(app, { subtree: true, attributeFilter: ['data-state', 'open'] });
  // A page the wasm writes (the catalogue) adds its sections to main itself.
  new MutationObserver(queue).observe(app, { childList: true });
}

/** The glossary's popover (issue 38): hovering, focusing or tapping a term linked to the
 * glossary (`a[data-glossary]`) shows its definition, which the page carries in a
 * `<template data-glossary-defs>`, in a `role=tooltip` the link names in `aria-describedby`.
 * Escape, focus or a tap elsewhere, or the mouse leaving both, closes it; on a touch screen the
 * first tap shows it and a second follows the link. Kept at the viewport's edges on a phone. */
function glossaryTips() {
  const defs = app.querySelector('template[data-glossary-defs]');
  if (!defs) return;
  const tip = document.createElement('div');
  tip.id = 'glossary-tip';
  tip.className = 'glossary-tip';
  tip.setAttribute('role', 'tooltip');
  tip.hidden = true;
  document.body.append(tip);
  let shown = null;
  let tapped = null;
  let touch = false;
  const term = (event) => (event.target instanceof Element ? event.target.closest('a[data-glossary]') : null);
  const hide = () => {
    shown?.removeAttribute('aria-describedby');
    shown = null;
    tip.hidden = true;
  };
  const show = (link) => {
    const def = defs.content.querySelector(`[data-term="${link.dataset.glossary}"]`);
    if (!def || link === shown) return;
    hide();
    tip.replaceChildren(def.cloneNode(true));
    // Measured at the left edge, where its width is not squeezed by an earlier place.
    tip.style.left = '0px';
    tip.hidden = false;
    shown = link;
    link.setAttribute('aria-describedby', tip.id);
    const box = link.getBoundingClientRect();
    const above = box.bottom + tip.offsetHeight + 8 > innerHeight && box.top > tip.offsetHeight + 8;
    tip.style.left = `${scrollX + Math.max(8, Math.min(box.left, document.documentElement.clientWidth - tip.offsetWidth - 8))}px`;
    tip.style.top = `${scrollY + (above ? box.top - tip.offsetHeight - 6 : box.bottom + 6)}px`;
  };
  document.addEventListener('pointerover', (event) => {
    if (event.pointerType !== 'mouse') return;
    const link = term(event);
    if (link) show(link);
    else if (shown && !tip.contains(event.target) && document.activeElement !== shown) hide();
  });
  document.addEventListener('focusin', (event) => { const link = term(event); if (link) show(link); else hide(); });
  document.addEventListener('pointerdown', (event) => {
    touch = event.pointerType !== 'mouse';
    tapped = touch && term(event) === shown ? shown : null;
    if (!term(event) && !tip.contains(event.target)) hide();
  });
  document.addEventListener('click', (event) => {
    const link = term(event);
    if (link && touch && link !== tapped) {
      event.preventDefault();
      show(link);
    }
  });
  document.addEventListener('keydown', (event) => {
    touch = false;
    if (event.key === 'Escape' && shown) hide();
  });
}

/** The header's search box (issue 38), hidden without JavaScript: the search itself
 * (static/search.js, then Pagefind's index) loads only once the reader uses the box. */
function searchBox() {
  const box = document.querySelector('[data-search]');
  const input = box?.querySelector('input[type=search]');
  if (!input) return;
  box.hidden = false;
  const panel = box.querySelector('.search-results');
  // Where it cannot load (offline before a first search), it says so and tries again at the next
  // focus (another address: a browser keeps a failed module's failure).
  let tries = 0;
  const start = () => import(`./search.js${tries++ ? `?${tries}` : ''}`).then((search) => search.attach(box)).catch(() => {
    panel.textContent = 'A busca não carregou. Verifique a conexão e tente de novo.';
    panel.hidden = false;
    input.addEventListener('blur', () => { panel.hidden = true; }, { once: true });
    input.addEventListener('focus', start, { once: true });
  });
  input.addEventListener('focus', start, { once: true });
}

/** The map of the model: open where there is room for it, one line on a phone. */
function mapWhenWide() {
  const map = document.querySelector('[data-model-map] details');
  if (map && matchMedia('(min-width: 60em)').matches) map.open = true;
}

if (app) {
  const target = oldLinkTarget();
  if (target) {
    location.replace(target);
  } else {
    addEventListener('hashchange', () => {
      const next = oldLinkTarget();
      if (next) location.assign(next);
      else if (location.hash.startsWith('#/')) startWasm();
    });
    menu();
    mapWhenWide();
    readingProgress();
    glossaryTips();
    searchBox();
    keyboardScrolling();
    // Back to a page kept in the back/forward cache: the pages read since then are marked too.
    addEventListener('pageshow', (event) => { if (event.persisted) readingProgress(); });
    registerOffline();
    startWasmWhenNeeded();
    if (SUPPORTED) onDemandWidgets();
  }
}
