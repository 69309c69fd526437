// Reading aids (issue 38): the glossary and the search.
// - The glossary page (glossario.html) defines at least 40 terms, each a `dt[id]` with its English
//   term; at least 40 pages link their first use of a term to it (`a[data-glossary]`), each link
//   to an entry that exists. A focused term shows its definition in a `role=tooltip` named by the
//   link's aria-describedby, Escape closes it; hovering shows it too; on a touch screen a first
//   tap shows it and a second follows the link; at 390 px it stays inside the viewport. Without
//   JavaScript a term is a plain link and the search box is hidden. axe finds no serious
//   violation on the glossary page (light and dark, 1280 and 390 px) nor with a popover open.
// - The header's search (Pagefind): nothing of it loads before the reader focuses the box;
//   "softmax", "atencao" (no accent) and "verossimilhança" each find at least 3 pages, listed
//   with excerpts; the keyboard moves through the results and Escape closes them; the results
//   link the right pages under a sub-path; after a first search it works offline. The bytes a
//   first search fetches go to tests/artifacts/measurements.txt.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ARTIFACTS, check, assert, serve, pageSettled } from '../lib.mjs';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const DIST = path.resolve(process.argv[2] ?? 'dist');

/** A page of prose whose terms the tests point at. */
const PAGE = 'queries-keys-values.html';

/** The serious and critical violations axe finds on the page as it is now. */
async function violations(page) {
  await page.addScriptTag({ content: AXE });
  const found = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The tooltip as the reader sees it: shown or not, its text, where it is, who names it. */
async function tooltip(page) {
  return page.evaluate(() => {
    const tip = document.querySelector('[role=tooltip]');
    const box = tip?.getBoundingClientRect();
    return {
      shown: !!tip && !tip.hidden && box.width > 0,
      text: tip?.textContent ?? '',
      left: box?.left,
      right: box?.right,
      describedBy: [...document.querySelectorAll('a[data-glossary][aria-describedby]')].map((a) => a.getAttribute('aria-describedby')),
      id: tip?.id,
    };
  });
}

/** Types `query` into the header's box and waits for its results: { count, links, excerpts, status }. */
async function search(page, query) {
  await page.fill('[data-search] input[type=search]', query);
  // The results say which query they answer (static/search.js: data-query).
  await page.waitForFunction((q) => {
    const results = document.querySelector('#search-results');
    return !results.hidden && results.dataset.query === q;
  }, query, { timeout: 30000 });
  return page.evaluate(() => ({
    status: document.querySelector('.search-status').textContent,
    count: Number(/^(\d+)/.exec(document.querySelector('.search-status').textContent)?.[1] ?? 0),
    links: [...document.querySelectorAll('#search-results li a')].map((a) => a.href),
    excerpts: [...document.querySelectorAll('#search-results li a')].map((a) => ({ title: a.querySelector('strong')?.textContent, marks: a.querySelectorAll('mark').length, text: a.textContent })),
  }));
}

export default async function reading({ page, base, mode, browser }) {
  await check(`[${mode}] glossary: at least 40 terms with their English names, and at least 40 pages link them to entries that exist`, async () => {
    await page.goto(`${base}/glossario.html`);
    const entries = await page.$$eval('dl.glossary dt[id]', (dts) => dts.map((dt) => ({ id: dt.id, en: dt.querySelector('[lang=en]')?.textContent ?? '', def: dt.nextElementSibling?.textContent.trim() ?? '' })));
    assert(entries.length >= 40, `${entries.length} terms`);
    const bad = entries.filter((e) => !e.en || e.def.length < 30);
    assert(bad.length === 0, `entries without an English term or a definition: ${JSON.stringify(bad.slice(0, 3))}`);
    const ids = new Set(entries.map((e) => e.id));
    for (const id of ['query', 'key', 'value', 'softmax', 'logit', 'embedding', 'token', 'tf', 'idf', 'conexao-residual', 'normalizacao-de-camada', 'cabeca-de-atencao', 'mascara']) {
      assert(ids.has(id), `no entry ${id}`);
    }
    // Every page of the contents and the footer, read as text (no JavaScript needed for any of this).
    const report = await page.evaluate(async () => {
      const hrefs = [...new Set([...document.querySelectorAll('#toc a[href$=".html"], footer a[href$=".html"]')].map((a) => a.getAttribute('href')))];
      const pages = [];
      for (const href of hrefs) {
        const doc = new DOMParser().parseFromString(await (await fetch(href)).text(), 'text/html');
        const links = [...doc.querySelectorAll('main a[data-glossary]')];
        const defs = doc.querySelector('template[data-glossary-defs]');
        pages.push({
          href,
          links: links.map((a) => [a.dataset.glossary, a.getAttribute('href')]),
          defined: links.every((a) => defs?.content.querySelector(`[data-term="${a.dataset.glossary}"]`)),
          inHeadings: doc.querySelectorAll(':is(h1, h2, h3, h4, code, pre, math, summary) a[data-glossary], a a[data-glossary]').length,
        });
      }
      return pages;
    });
    const linking = report.filter((p) => p.links.length > 0);
    assert(linking.length >= 40, `${linking.length} pages link a term to the glossary`);
    for (const p of linking) {
      for (const [id, href] of p.links) {
        assert(href === `glossario.html#${id}` && ids.has(id), `${p.href}: a link to ${href} (${id}), which the glossary does not define`);
      }
      assert(new Set(p.links.map(([id]) => id)).size === p.links.length, `${p.href}: a term linked twice`);
      assert(p.defined, `${p.href}: a linked term without its definition in the page`);
      assert(p.inHeadings === 0, `${p.href}: a term linked inside a heading, code, formula, summary or link`);
    }
    fs.appendFileSync(path.join(ARTIFACTS, 'measurements.txt'), `glossary: ${entries.length} terms, ${linking.length} of ${report.length} pages link to it, ${linking.reduce((n, p) => n + p.links.length, 0)} links\n`);
  });

  await check(`[${mode}] glossary: a focused term shows its definition in a role=tooltip, Escape closes it; hovering shows it`, async () => {
    await page.goto(`${base}/${PAGE}`);
    await pageSettled(page, PAGE);
    const first = await page.$eval('main a[data-glossary]', (a) => ({ id: a.dataset.glossary, def: document.querySelector('template[data-glossary-defs]').content.querySelector(`[data-term="${a.dataset.glossary}"]`).textContent }));
    await page.focus('main a[data-glossary]');
    let tip = await tooltip(page);
    assert(tip.shown, 'no tooltip on focus');
    assert(tip.text === first.def && tip.text.length > 40, `the tooltip says «${tip.text}», want «${first.def}»`);
    assert(tip.describedBy.length === 1 && tip.describedBy[0] === tip.id, `aria-describedby ${JSON.stringify(tip.describedBy)}, tooltip ${tip.id}`);
    await page.keyboard.press('Escape');
    tip = await tooltip(page);
    assert(!tip.shown && tip.describedBy.length === 0, 'Escape leaves the tooltip open');
    // Tab to the next term: its own definition.
    await page.evaluate(() => document.activeElement.blur());
    const second = page.locator('main a[data-glossary]').nth(1);
    const secondId = await second.getAttribute('data-glossary');
    await second.hover();
    tip = await tooltip(page);
    assert(tip.shown && tip.text.includes(await page.$eval(`template[data-glossary-defs]`, (t, id) => t.content.querySelector(`[data-term="${id}"] strong`).textContent, secondId)), `hover: ${tip.text}`);
    await page.mouse.move(5, 5);
    assert(!(await tooltip(page)).shown, 'the tooltip stays after the mouse leaves');
  });

  await check(`[${mode}] glossary: on a phone a tap shows the definition inside the screen, a second tap follows the link`, async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
    try {
      const phone = await context.newPage();
      await phone.goto(`${base}/${PAGE}`);
      await pageSettled(phone, PAGE);
      // The first and the last linked term in view (a folded correction note hides some).
      const links = phone.locator('main a[data-glossary]');
      const visible = await phone.$$eval('main a[data-glossary]', (all) => all.map((a, i) => (a.checkVisibility() ? i : -1)).filter((i) => i >= 0));
      const last = visible.at(-1);
      assert(visible.length >= 2, `${visible.length} terms in view`);
      for (const i of [visible[0], last]) {
        const link = links.nth(i);
        await link.scrollIntoViewIfNeeded();
        await link.tap();
        const tip = await tooltip(phone);
        assert(tip.shown, `tap ${i}: no tooltip`);
        assert(tip.left >= 0 && tip.right <= 390, `tap ${i}: the tooltip spans ${tip.left}…${tip.right} px of 390`);
        assert(phone.url().endsWith(PAGE), `tap ${i}: the first tap left the page (${phone.url()})`);
      }
      await phone.screenshot({ path: path.join(ARTIFACTS, 'glossary-tip-390.png') });
      const id = await links.nth(last).getAttribute('data-glossary');
      await links.nth(last).tap();
      await phone.waitForURL(`**/glossario.html#${id}`, { timeout: 10000 });
    } finally {
      await context.close();
    }
  });

  await check(`[${mode}] without JavaScript a term is a plain link and the search box is hidden`, async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const plain = await context.newPage();
      await plain.goto(`${base}/${PAGE}`);
      const link = await plain.$eval('main a[data-glossary]', (a) => ({ href: a.getAttribute('href'), id: a.dataset.glossary }));
      assert(await plain.locator('[data-search]').isHidden(), 'the search box shows without JavaScript');
      assert(!(await plain.locator('template[data-glossary-defs]').isVisible()), 'the definitions show');
      await plain.click('main a[data-glossary]');
      await plain.waitForURL(`**/glossario.html#${link.id}`);
      assert(await plain.locator(`dt#${link.id}`).isVisible(), `no entry ${link.id}`);
    } finally {
      await context.close();
    }
  });

  for (const [scheme, width] of [['light', 1280], ['dark', 1280], ['light', 390], ['dark', 390]]) {
    await check(`[${mode}] axe: no serious violation on the glossary page, nor with a popover or the search results open (${scheme}, ${width} px)`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      try {
        const fresh = await context.newPage();
        const problems = [];
        await fresh.goto(`${base}/glossario.html`);
        for (const v of await violations(fresh)) problems.push(`glossário: ${v.impact} ${v.id} (${v.help}) em ${v.nodes.join(', ')}`);
        await fresh.goto(`${base}/${PAGE}`);
        await pageSettled(fresh, PAGE);
        await fresh.focus('main a[data-glossary]');
        assert((await tooltip(fresh)).shown, 'no tooltip');
        for (const v of await violations(fresh)) problems.push(`popover: ${v.impact} ${v.id} (${v.help}) em ${v.nodes.join(', ')}`);
        const found = await search(fresh, 'softmax');
        assert(found.links.length > 0, 'no results');
        for (const v of await violations(fresh)) problems.push(`busca: ${v.impact} ${v.id} (${v.help}) em ${v.nodes.join(', ')}`);
        await fresh.screenshot({ path: path.join(ARTIFACTS, `search-${scheme}-${width}.png`) });
        assert(problems.length === 0, problems.join('\n'));
      } finally {
        await context.close();
      }
    });
  }

  await check(`[${mode}] search: nothing loads before the box is used; "softmax", "atencao" and "verossimilhança" each find at least 3 pages, with excerpts`, async () => {
    const context = await browser.newContext();
    try {
      const fresh = await context.newPage();
      // What the search loads, each file with when it was asked for.
      const fetched = [];
      fresh.on('requestfinished', async (request) => {
        if (!/\/(pagefind\/|static\/search\.js)/.test(request.url())) return;
        const started = request.timing().startTime;
        fetched.push({ url: request.url(), started, bytes: (await (await request.response())?.body().catch(() => Buffer.alloc(0)) ?? Buffer.alloc(0)).length });
      });
      await fresh.goto(`${base}/${PAGE}`);
      await pageSettled(fresh, PAGE);
      await fresh.waitForTimeout(500);
      assert(fetched.length === 0, `loaded before any search: ${fetched.map((f) => f.url).join(', ')}`);
      assert(await fresh.locator('[data-search] input[type=search]').isVisible(), 'no search box');
      await fresh.focus('[data-search] input[type=search]');
      const first = await search(fresh, 'softmax');
      const shown = await fresh.evaluate(() => performance.timeOrigin + performance.now());
      await fresh.waitForTimeout(500);
      // What the first results needed: the files asked for before they showed (not the whole
      // index, which the worker keeps afterwards for offline use).
      const firstFiles = fetched.filter((f) => f.started <= shown);
      const firstBytes = firstFiles.reduce((n, f) => n + f.bytes, 0);
      for (const query of ['softmax', 'atencao', 'verossimilhança']) {
        const found = query === 'softmax' ? first : await search(fresh, query);
        assert(found.count >= 3 && found.links.length >= 3, `«${query}»: ${found.status} ${found.links.length} links`);
        assert(found.links.every((href) => href.startsWith(`${base}/`) && href.endsWith('.html') || href === `${base}/`), `«${query}»: ${found.links.join(', ')}`);
        assert(found.excerpts.every((e) => e.title && e.marks > 0), `«${query}»: a result without its title or a marked word: ${JSON.stringify(found.excerpts.slice(0, 2))}`);
        // Text only: no tag (a token such as <bos> is text), no LaTeX source of a formula.
        const raw = found.excerpts.filter((e) => /<\/?(mark|span|a|math|annotation)\b|\\(frac|operatorname|sqrt|top)\b/.test(e.text));
        assert(raw.length === 0, `«${query}»: markup or LaTeX in an excerpt: ${JSON.stringify(raw.slice(0, 2))}`);
      }
      const accentless = await search(fresh, 'atencao');
      assert(accentless.excerpts.some((e) => /atenção/i.test(e.text)), `«atencao» does not find «atenção»: ${JSON.stringify(accentless.excerpts.slice(0, 2))}`);
      // Only the prose: what the index holds of a page has none of its map, pager, breadcrumb,
      // widget placeholders or formulas' LaTeX source.
      const indexed = await fresh.evaluate(async () => {
        const pagefind = await import('./pagefind/pagefind.js');
        const found = await pagefind.search('vetores');
        const pages = await Promise.all(found.results.map((r) => r.data()));
        return pages.find((p) => p.url.endsWith('/vetores.html'))?.content ?? '';
      });
      assert(indexed.includes('Um vetor é uma lista ordenada de números'), `the prose of vetores.html is not indexed: ${indexed.slice(0, 200)}`);
      for (const chrome of ['Mapa do modelo', 'Nesta parte', 'Produto escalar →', 'Exemplo interativo', '\\mathbb', 'Sumário']) {
        assert(!indexed.includes(chrome), `the index of vetores.html holds «${chrome}»`);
      }
      // The keyboard: ↓ into the results, ↑ back to the box, Escape closes them.
      await search(fresh, 'softmax');
      await fresh.focus('[data-search] input[type=search]');
      await fresh.keyboard.press('ArrowDown');
      assert(await fresh.evaluate(() => document.activeElement === document.querySelector('#search-results li a')), 'ArrowDown does not reach the first result');
      await fresh.keyboard.press('ArrowDown');
      assert(await fresh.evaluate(() => document.activeElement === document.querySelectorAll('#search-results li a')[1]), 'ArrowDown does not reach the second result');
      await fresh.keyboard.press('Escape');
      assert(await fresh.evaluate(() => document.querySelector('#search-results').hidden && document.activeElement?.type === 'search'), 'Escape: results still open or the focus lost');
      await fresh.keyboard.press('ArrowDown');
      assert(await fresh.evaluate(() => !document.querySelector('#search-results').hidden), 'ArrowDown in the box does not show the results again');
      // A result is a link to its page.
      const again = await search(fresh, 'verossimilhança');
      await fresh.click('#search-results li a');
      await fresh.waitForURL(again.links[0]);
      assert(await fresh.locator('main h1').isVisible(), `${again.links[0]}: no page`);
      fs.appendFileSync(path.join(ARTIFACTS, 'measurements.txt'),
        `search: a first search («softmax») fetches ${firstBytes} bytes, uncompressed (${firstFiles.length} files: ${firstFiles.map((f) => `${f.url.split('/').pop().split('?')[0]} ${f.bytes}`).join(', ')})\n`);
    } finally {
      await context.close();
    }
  });

  await check(`[${mode}] search: under a sub-path the results link the pages there, and after a first search it works offline`, async () => {
    const prefix = '/publicado/atencao';
    const server = await serve(DIST, { prefix });
    const site = `http://127.0.0.1:${server.address().port}${prefix}/`;
    const context = await browser.newContext();
    try {
      const fresh = await context.newPage();
      await fresh.goto(`${site}${PAGE}`);
      await pageSettled(fresh, PAGE);
      // Offline before any search (the worker installed, the index not kept yet), the box says
      // that the search did not load; back online, it loads.
      await fresh.evaluate(() => navigator.serviceWorker.ready);
      await context.setOffline(true);
      await fresh.focus('[data-search] input[type=search]');
      await fresh.waitForFunction(() => !document.querySelector('#search-results').hidden && document.querySelector('#search-results').textContent.includes('não carregou'), null, { timeout: 10000 });
      await fresh.evaluate(() => document.activeElement.blur());
      assert(await fresh.locator('#search-results').isHidden(), 'the message stays after the box is left');
      await context.setOffline(false);
      // Searched at once, as on a first visit, maybe before the worker controls the page.
      await fresh.focus('[data-search] input[type=search]');
      const found = await search(fresh, 'softmax');
      assert(found.links.length >= 3 && found.links.every((href) => href.startsWith(site)), `results under ${site}: ${found.links.join(', ')}`);
      const status = (await fresh.request.get(found.links[0])).status();
      assert(status === 200, `${found.links[0]}: ${status}`);
      // The worker keeps the whole index, and the box's code, after this first search.
      const files = fs.readdirSync(path.join(DIST, 'pagefind'), { recursive: true }).filter((f) => fs.statSync(path.join(DIST, 'pagefind', f)).isFile());
      files.push('search.js');
      const end = Date.now() + 30000;
      let kept = 0;
      while (Date.now() < end) {
        kept = await fresh.evaluate(async () => {
          const name = (await caches.keys()).find((n) => n.startsWith('atencao-site '));
          return name ? (await (await caches.open(name)).keys()).filter((r) => /\/(pagefind\/|static\/search\.js)/.test(r.url)).length : 0;
        });
        if (kept >= files.length) break;
        await fresh.waitForTimeout(250);
      }
      assert(kept === files.length, `the worker keeps ${kept} of the index's ${files.length} files`);
      await context.setOffline(true);
      await fresh.reload();
      await pageSettled(fresh, PAGE);
      await fresh.focus('[data-search] input[type=search]');
      const offline = await search(fresh, 'verossimilhança');
      assert(offline.links.length >= 3 && offline.excerpts.every((e) => e.marks > 0), `offline: ${offline.status}`);
    } finally {
      await context.setOffline(false);
      await context.close();
      server.close();
    }
  });
}
