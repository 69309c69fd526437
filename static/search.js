// atenção: the header's search (issue 38), loaded by static/site.js only when the reader focuses
// the box, so a visit that never searches downloads none of it. It runs Pagefind's own script
// (pagefind/pagefind.js, written by scripts/search-index.sh after the build: an index of the
// pages' prose, with Portuguese stemming, in which "atencao" also finds "atenção") and lists
// the pages found, each with its title and an excerpt. Every address is relative to the site's
// folder, found from this file's own address, so the search works under a sub-path. After the
// first search the offline worker is asked to keep the whole index (sw.js, group 'search'), so
// later searches work offline too. The keyboard: ↓ and ↑ move through the results, Escape
// closes them and goes back to the box, ↓ there opens them again. Excerpts are built as text, with <mark> elements.

const SITE = new URL('../', import.meta.url);
const SHOWN = 8;

let engine = null;

/** Pagefind, loaded and set up once. */
function pagefind() {
  engine ??= import(new URL('pagefind/pagefind.js', SITE).href).then(async (module) => {
    await module.options({ baseUrl: SITE.pathname, excerptLength: 22 });
    return module;
  });
  return engine;
}

/** The characters Pagefind's excerpts escape, back as text. */
const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'" };
const unescape = (text) => text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (entity) => ENTITIES[entity]);

/** An excerpt (`… <mark>softmax</mark> …`) as nodes: text, and the words found in <mark>. */
function excerpt(html) {
  const out = document.createElement('span');
  html.split(/<\/?mark>/).forEach((piece, i) => {
    const text = document.createTextNode(unescape(piece));
    if (i % 2 === 0) {
      out.append(text);
    } else {
      const mark = document.createElement('mark');
      mark.append(text);
      out.append(mark);
    }
  });
  return out;
}

/** Asks the offline worker to keep the whole search index, once: the active worker, even
 * before it controls this page (a first visit's search). */
let kept = false;
function keepIndex() {
  if (kept || !('serviceWorker' in navigator)) return;
  kept = true;
  navigator.serviceWorker.ready.then((registration) => registration.active?.postMessage({ type: 'keep-search' })).catch(() => {});
}

/** Wires the search box `box` (`[data-search]`: its input and `#search-results`). */
export function attach(box) {
  const input = box.querySelector('input[type=search]');
  const panel = box.querySelector('.search-results');
  const status = document.createElement('p');
  status.className = 'search-status';
  status.setAttribute('role', 'status');
  const list = document.createElement('ol');
  panel.replaceChildren(status, list);
  const links = () => [...list.querySelectorAll('a')];
  const close = () => { panel.hidden = true; };
  const open = () => { panel.hidden = false; };
  let asked = '';

  async function run() {
    const query = input.value.trim();
    asked = query;
    if (!query) {
      list.replaceChildren();
      status.textContent = '';
      return close();
    }
    let found;
    try {
      const search = await (await pagefind()).debouncedSearch(query, {}, 150);
      if (search === null || asked !== query) return;
      found = { count: search.results.length, pages: await Promise.all(search.results.slice(0, SHOWN).map((result) => result.data())) };
    } catch (error) {
      status.textContent = `A busca não carregou (${error?.message ?? error}). Verifique a conexão e tente de novo.`;
      list.replaceChildren();
      engine = null;
      return open();
    }
    if (asked !== query) return;
    list.replaceChildren(...found.pages.map((page) => {
      const item = document.createElement('li');
      const link = document.createElement('a');
      link.href = page.url;
      const title = document.createElement('strong');
      title.textContent = page.meta?.title ?? page.url;
      link.append(title, excerpt(page.excerpt));
      item.append(link);
      return item;
    }));
    const count = found.count;
    status.textContent = count === 0 ? `Nenhuma página encontrada para «${query}».`
      : count === 1 ? '1 página encontrada.'
      : count > SHOWN ? `${count} páginas encontradas; as ${SHOWN} mais relevantes:` : `${count} páginas encontradas.`;
    panel.dataset.query = query;
    open();
    keepIndex();
  }

  input.addEventListener('input', run);
  // Back in the box, a click or ↓ shows the last results again.
  const reopen = () => { if (input.value.trim() && panel.dataset.query === input.value.trim()) open(); };
  input.addEventListener('click', reopen);
  box.addEventListener('keydown', (event) => {
    const all = links();
    const at = all.indexOf(document.activeElement);
    if (event.key === 'Escape' && !panel.hidden) {
      event.preventDefault();
      close();
      input.focus();
    } else if (event.key === 'ArrowDown' && panel.hidden) {
      reopen();
    } else if ((event.key === 'ArrowDown' || event.key === 'ArrowUp') && all.length && !panel.hidden) {
      event.preventDefault();
      const next = event.key === 'ArrowDown' ? at + 1 : at - 1;
      if (next < 0) input.focus();
      else all[Math.min(next, all.length - 1)].focus();
    }
  });
  // Focus or a click outside the box closes the results.
  box.addEventListener('focusout', (event) => { if (!box.contains(event.relatedTarget)) close(); });
  document.addEventListener('pointerdown', (event) => { if (!box.contains(event.target)) close(); });
  if (input.value.trim()) run();
}
