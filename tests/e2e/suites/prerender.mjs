// Text first (issue 21): every page is a static file, prerendered at build time (build.rs,
// scripts/pages.sh). With JavaScript off each page has its heading, its prose with MathML, the
// table of contents, the neighbouring pages and a placeholder per widget, plus its meta
// description and Open Graph tags; with it, the wasm loads when a widget nears the viewport and
// mounts the widgets in place; old `#/slug` links land on their page.
import path from 'node:path';
import { ARTIFACTS, check, assert, pageSettled, pageName, mountAll, readTable } from '../lib.mjs';

/** `page.goto` without the harness's scrolling through the widgets (lib.mjs: mountingPage). */
async function gotoUntouched(page, url) {
  return (page.gotoWithoutMounting ?? page.goto).call(page, url);
}

export default async function prerender({ browser, page, base, mode }) {
  await check(`[${mode}] with JavaScript off, every page has its heading, prose, contents, neighbours, placeholders and description`, async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const plain = await context.newPage();
    try {
      await plain.goto(`${base}/`);
      const toc = await plain.$$eval('#toc a', (as) => as.map((a) => [a.getAttribute('href'), a.textContent]));
      assert(toc.length >= 60, `${toc.length} pages in the contents`);
      assert(await plain.textContent('main h1') === 'Atenção, passo a passo', 'home heading');
      assert(await plain.$$eval('.cards .card', (cs) => cs.length) === 5, 'home cards');
      let mathPages = 0;
      let widgets = 0;
      // The pages of no article (issue 37) are linked from the footer, not the contents.
      const footer = await plain.$$eval('footer a.footer-link', (as) => as.map((a) => a.getAttribute('href')));
      assert(['artigos-originais.html', 'notacao.html', 'glossario.html', 'catalogo.html'].every((h) => footer.includes(h)), `footer links ${footer}`);
      // The glossary (issue 38) too, also linked from the end of the contents.
      const standalone = [['artigos-originais.html', 'Os artigos originais'], ['notacao.html', 'Tabela de notação'], ['glossario.html', 'Glossário']];
      const pages = [...toc.filter(([h]) => !standalone.some(([s]) => s === h)), ...standalone, ['catalogo.html', 'Catálogo de widgets'], ['bench.html', 'Desempenho neste navegador'], ['./', 'Atenção, passo a passo']];
      let correctionPages = 0;
      for (const [href, title] of pages) {
        await plain.goto(`${base}/${href}`);
        const info = await plain.evaluate(() => ({
          h1: document.querySelector('main h1')?.textContent,
          page: document.querySelector('main#app')?.dataset.page,
          prose: document.querySelector('main .prose')?.textContent.trim().length ?? 0,
          math: document.querySelectorAll('main math').length,
          current: document.querySelector('#toc a[aria-current=page]')?.getAttribute('href') ?? null,
          description: document.querySelector('meta[name=description]')?.content ?? '',
          ogTitle: document.querySelector('meta[property="og:title"]')?.content ?? '',
          ogDescription: document.querySelector('meta[property="og:description"]')?.content ?? '',
          title: document.title,
          widgets: [...document.querySelectorAll('main [data-widget]')].map((w) => ({
            kind: w.dataset.widget, state: w.dataset.state ?? null, placeholder: w.querySelector('.widget-placeholder')?.textContent.replace(/\s+/g, ' ').trim() ?? '',
          })),
          pager: [...document.querySelectorAll('main .pager a')].map((a) => a.getAttribute('href')),
          links: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')).filter((h) => h.startsWith('/') || h.startsWith('#/')),
          note: !!document.querySelector('.noscript-note'),
          // Every correction note, and the line that counts them, link to the page on the original articles.
          corrections: [...document.querySelectorAll('main details.correcao')].map((d) => !!d.querySelector('a[href="artigos-originais.html#correcoes"]')),
          countLink: !!document.querySelector('main .correcoes-contagem a[href="artigos-originais.html"]'),
        }));
        const name = pageName(href);
        assert(info.page === name, `${href}: main#app[data-page] = ${info.page}`);
        assert(info.h1 === title, `${href}: heading «${info.h1}», want «${title}»`);
        assert(info.title.includes('atenção'), `${href}: title ${info.title}`);
        assert(info.description.length >= 40 && info.ogDescription === info.description, `${href}: description «${info.description}»`);
        assert(info.ogTitle.length > 0, `${href}: no og:title`);
        assert(info.links.length === 0, `${href}: absolute or old-style links ${info.links.join(' ')}`);
        assert(info.note, `${href}: no note about JavaScript`);
        if (info.corrections.length > 0) {
          correctionPages++;
          assert(info.countLink && info.corrections.every(Boolean), `${href}: a correction note without its link to artigos-originais.html`);
        }
        if (standalone.some(([h]) => h === href)) {
          assert(info.prose > 100, `${href}: only ${info.prose} characters of prose`);
        } else if (href.endsWith('.html') && !['catalogo.html', 'bench.html'].includes(href)) {
          assert(info.prose > 100, `${href}: only ${info.prose} characters of prose`);
          assert(info.current === href, `${href}: the contents mark ${info.current}`);
          assert(info.pager.length >= 1, `${href}: no previous or next page`);
        }
        for (const w of info.widgets) {
          assert(w.state === null, `${href}: ${w.kind} has a state without JavaScript`);
          assert(w.placeholder.startsWith('Exemplo interativo.') && w.placeholder.length > 40, `${href}: ${w.kind}'s placeholder «${w.placeholder}»`);
          widgets++;
        }
        if (info.math > 0) mathPages++;
      }
      assert(mathPages >= 20, `only ${mathPages} pages with formulas`);
      assert(correctionPages >= 20, `only ${correctionPages} pages with correction notes`);
      assert(widgets >= 30, `only ${widgets} widget placeholders`);

      // Links work as links: the next page, the contents, the brand.
      await plain.goto(`${base}/queries-keys-values.html`);
      const next = await plain.getAttribute('main .pager .next', 'href');
      await plain.click('main .pager .next');
      await plain.waitForURL(`${base}/${next}`);
      // Another article's sections are folded (issue 22): its summary opens them.
      await plain.click('#toc .toc-group:has(a[href="matematica-e-vetorizacao.html"]) summary');
      await plain.click('#toc a[href="vetores.html"]');
      await plain.waitForURL(`${base}/vetores.html`);
      assert(await plain.textContent('main h1') === 'Vetores e espaço vetorial', 'the contents link');
      await plain.click('.brand');
      await plain.waitForURL(`${base}/`);

      // What a reader without JavaScript sees, phone and desktop, light and dark.
      await plain.goto(`${base}/queries-keys-values.html`);
      await plain.screenshot({ path: path.join(ARTIFACTS, `prerendered-nojs-desktop-${mode}.png`) });
      await plain.emulateMedia({ colorScheme: 'dark' });
      await plain.screenshot({ path: path.join(ARTIFACTS, `prerendered-nojs-desktop-dark-${mode}.png`) });
      await plain.setViewportSize({ width: 390, height: 800 });
      const overflow = await plain.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert(overflow <= 0, `the page is ${overflow}px wider than a phone without JavaScript`);
      // Without the menu's script, the contents follow the page on a phone.
      assert(await plain.isVisible('#toc'), 'no contents on a phone without JavaScript');
      assert(await plain.isHidden('#menu-button'), 'a menu button that cannot work');
      await plain.screenshot({ path: path.join(ARTIFACTS, `prerendered-nojs-phone-dark-${mode}.png`) });
      await plain.emulateMedia({ colorScheme: 'light' });
      await plain.screenshot({ path: path.join(ARTIFACTS, `prerendered-nojs-phone-${mode}.png`), fullPage: true });
    } finally {
      await context.close();
    }
  });

  // The prose is the same in both modes (no script runs): once is enough.
  if (mode === 'cpu') await check(`[${mode}] the prose of every page fits a 390-px phone (a long formula is a display one, which scrolls)`, async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 800 } });
    const phone = await context.newPage();
    try {
      await phone.goto(`${base}/`);
      const hrefs = await phone.$$eval('#toc a', (as) => as.map((a) => a.getAttribute('href')));
      const wide = [];
      for (const href of [...hrefs, 'catalogo.html', 'bench.html']) {
        await phone.goto(`${base}/${href}`);
        const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        if (overflow > 0) wide.push(`${href} (+${overflow}px)`);
      }
      assert(hrefs.length >= 60 && wide.length === 0, `wider than a phone: ${wide.join(', ')}`);
    } finally {
      await context.close();
    }
  });

  await check(`[${mode}] widgets mount in place as they near the viewport; the wasm loads only then`, async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
    const phone = await context.newPage();
    const requests = [];
    phone.on('request', (r) => requests.push(new URL(r.url()).pathname));
    try {
      // A page of text only: no wasm.
      await gotoUntouched(phone, `${base}/`);
      await phone.waitForTimeout(1500);
      assert(!requests.some((p) => p.endsWith('.wasm')), 'the home page loaded the wasm');
      // The attention page on a phone: its first widget is more than a screen below the text.
      await gotoUntouched(phone, `${base}/queries-keys-values.html`);
      await phone.waitForSelector('main .prose p');
      await phone.waitForTimeout(1500);
      const before = await phone.evaluate(() => ({
        backend: document.documentElement.dataset.backend ?? null,
        states: [...document.querySelectorAll('main [data-widget]')].map((w) => w.dataset.state ?? null),
        placeholders: document.querySelectorAll('main .widget-placeholder').length,
      }));
      assert(before.backend === null, 'the wasm ran before any widget was near');
      assert(before.states.every((s) => s === null) && before.placeholders === before.states.length, JSON.stringify(before));
      await phone.screenshot({ path: path.join(ARTIFACTS, `prerendered-before-wasm-phone-${mode}.png`) });
      await phone.$eval('[data-widget=attention]', (w) => w.scrollIntoView({ block: 'center' }));
      await phone.waitForSelector('[data-widget=attention][data-state=ready]', { timeout: 60000 });
      assert(await phone.getAttribute('[data-widget=attention]', 'data-computed-on') === mode, 'computed on the wrong backend');
      assert(await phone.$$eval('[data-widget=attention] .widget-placeholder', (ps) => ps.length) === 0, 'the placeholder stayed');
      const weights = await readTable(phone, 'weights');
      assert(weights.length === 3 && weights[0][0] === '0,3250', `weights ${JSON.stringify(weights)}`);
      // An article page loads the build of its group of the page's module, without the models
      // (issue 36): attention's, on this page of attention.
      const wasm = requests.filter((p) => p.endsWith('.wasm'));
      assert(wasm.length === 1 && wasm[0].endsWith('/atencao-attention_bg.wasm'), `the article page loaded ${wasm.join(', ')}`);
      await phone.$eval('[data-widget=attention]', (w) => w.scrollIntoView({ block: 'start' }));
      await phone.screenshot({ path: path.join(ARTIFACTS, `prerendered-mounted-phone-${mode}.png`) });
      // The desktop: the first widget of "Vetores" is near the top, so it mounts at once.
      await phone.setViewportSize({ width: 1280, height: 900 });
      await gotoUntouched(phone, `${base}/vetores.html`);
      await phone.waitForSelector('[data-widget=vectors][data-state=ready]', { timeout: 60000 });
      await phone.emulateMedia({ colorScheme: 'dark' });
      await phone.waitForTimeout(300);
      await phone.screenshot({ path: path.join(ARTIFACTS, `prerendered-mounted-desktop-dark-${mode}.png`) });
      await phone.emulateMedia({ colorScheme: 'light' });
    } finally {
      await context.close();
    }
  });

  await check(`[${mode}] old #/slug links land on their page, with their parameters`, async () => {
    const cases = [
      ['#/vetores', 'vetores.html'],
      ['#/inicio', ''],
      ['#/catalogo', 'catalogo.html'],
      ['#/bench', 'bench.html'],
      ['#/decodificador?preset=capitu', 'decodificador.html?preset=capitu'],
      ['?backend=cpu#/queries-keys-values', 'queries-keys-values.html?backend=cpu'],
    ];
    for (const [old, want] of cases) {
      await gotoUntouched(page, `${base}/${old}`);
      await page.waitForURL(`${base}/${want}`, { timeout: 30000 });
      await page.waitForSelector('main h1');
    }
    // A widget's state in an old link: edit, take the new address's state, write it the old way.
    await page.goto(`${base}/queries-keys-values.html`);
    const cell = '[data-widget=attention] [data-editor=x] [data-cell="0.0"]';
    await page.waitForSelector('[data-widget=attention][data-state=ready]', { timeout: 60000 });
    await page.fill(cell, '7');
    await page.waitForFunction(() => /[?&]w\d+=/.test(location.search));
    const state = await page.evaluate(() => location.search.slice(1));
    await page.goto(`${base}/#/queries-keys-values?${state}`);
    await page.waitForURL(`${base}/queries-keys-values.html?${state}`);
    await mountAll(page);
    await pageSettled(page, 'queries-keys-values.html');
    assert(await page.inputValue(cell) === '7', `the old link's state was not restored: ${await page.inputValue(cell)}`);
    // An old link typed into a page.
    await page.goto(`${base}/vetores.html`);
    await page.evaluate(() => { location.hash = '#/one-hot'; });
    await page.waitForURL(`${base}/one-hot.html`);
    assert(await page.textContent('main h1') !== 'Vetores e espaço vetorial', 'still on the old page');
  });
}
