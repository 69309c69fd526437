// The home page and the reading path (issue 22): the live widget at the top (it waits for its
// "experimentar aqui" button, so the home page compiles no wasm until the reader asks), the
// "comece aqui" path, the map of the five articles; reading progress in the table of contents
// (localStorage, per copy of the site; nothing breaks without storage), the contents folded per
// article (<details>, without JavaScript too), the phone's menu closing with Escape and on a link.
import path from 'node:path';
import { ARTIFACTS, check, assert, readTable } from '../lib.mjs';

/** `page.goto` without the harness's scrolling through the widgets (lib.mjs: mountingPage). */
async function gotoUntouched(page, url) {
  return (page.gotoWithoutMounting ?? page.goto).call(page, url);
}

/** WCAG contrast of two `rgb(…)` colours. */
function contrast(a, b) {
  const lum = (rgb) => {
    const [r, g, b2] = rgb.match(/[\d.]+/g).slice(0, 3).map(Number).map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b2;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The text colour of `selector` and the first opaque background behind it. */
async function colours(page, selector) {
  return page.$eval(selector, (el) => {
    let bg = 'rgb(255, 255, 255)';
    for (let node = el; node; node = node.parentElement) {
      const c = getComputedStyle(node).backgroundColor;
      if (c && c !== 'transparent' && !/rgba\(.*, 0\)$/.test(c)) { bg = c; break; }
    }
    return { fg: getComputedStyle(el).color, bg };
  });
}

/** What the home page offers without running anything: the map and the path. (A link's text
 * without the reading marks static/site.js adds to the contents.) */
async function homeContents(page) {
  return page.evaluate(() => {
    const text = (a) => {
      const copy = a.cloneNode(true);
      for (const mark of copy.querySelectorAll('.read-mark, .read-count, .visually-hidden')) mark.remove();
      return copy.textContent;
    };
    return {
    cards: [...document.querySelectorAll('main .series-map .card')].map((card) => ({
      title: card.querySelector('h3 a')?.textContent ?? '',
      href: card.querySelector('h3 a')?.getAttribute('href') ?? '',
      summary: card.querySelector('h3 + p')?.textContent ?? '',
      widgets: [...card.querySelectorAll('.card-widgets a')].map((a) => [a.getAttribute('href'), a.dataset.widgetKind, a.textContent]),
    })),
    path: [...document.querySelectorAll('main .start-path ol > li > a:first-child')].map((a) => [a.getAttribute('href'), a.textContent]),
    articles: [...document.querySelectorAll('#toc .toc-article')].map((a) => [a.getAttribute('href'), text(a)]),
    toc: [...document.querySelectorAll('#toc a')].map((a) => [a.getAttribute('href'), text(a)]),
    widget: document.querySelector('main .home-try [data-widget]')?.dataset.widget ?? null,
    };
  });
}

export default async function home({ browser, page, base, mode }) {
  await check(`[${mode}] home: the map of the five articles links each article's first page; "comece aqui" links pages that exist`, async () => {
    await gotoUntouched(page, `${base}/`);
    const info = await homeContents(page);
    assert(info.cards.length === 5, `${info.cards.length} cards`);
    assert(JSON.stringify(info.cards.map((c) => [c.href, c.title])) === JSON.stringify(info.articles),
      `the cards ${JSON.stringify(info.cards.map((c) => c.href))} are not the articles of the contents ${JSON.stringify(info.articles)}`);
    for (const card of info.cards) {
      assert(card.summary.length > 40, `${card.href}: summary «${card.summary}»`);
      assert(card.widgets.length >= 2, `${card.href}: ${card.widgets.length} widgets named`);
      for (const [href, kind, title] of card.widgets) {
        const response = await page.request.get(`${base}/${href}`);
        assert(response.ok(), `${href}: ${response.status()}`);
        assert((await response.text()).includes(`data-widget="${kind}"`), `${href} has no ${kind} widget (card of ${card.href})`);
        assert(title.length > 5, `${kind}: title «${title}»`);
      }
      // The article's first page is the page its card links.
      const response = await page.request.get(`${base}/${card.href}`);
      assert(response.ok() && (await response.text()).includes(`<h1>${card.title}</h1>`), `${card.href} is not «${card.title}»`);
    }
    assert(info.path.length >= 4 && info.path.length <= 8, `${info.path.length} steps in "comece aqui"`);
    for (const [href, text] of info.path) {
      assert(info.toc.some(([h, t]) => h === href && t === text), `"comece aqui": ${href} «${text}» is not a page of the contents under that title`);
      const response = await page.request.get(`${base}/${href}`);
      assert(response.ok(), `${href}: ${response.status()}`);
    }
    // The path's links work as links.
    await page.click(`main .start-path a[href="${info.path[0][0]}"]`);
    await page.waitForURL(`${base}/${info.path[0][0]}`);
    assert(await page.textContent('main h1') === info.path[0][1], 'the first step of the path');
  });

  await check(`[${mode}] home: the widget at the top waits for its button, then mounts and computes (no wasm before)`, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const fresh = await context.newPage();
    const requests = [];
    fresh.on('request', (r) => requests.push(new URL(r.url()).pathname));
    try {
      await gotoUntouched(fresh, `${base}/`);
      await fresh.waitForTimeout(1200);
      assert(!requests.some((p) => p.endsWith('.wasm')), 'the home page loaded the wasm before the reader asked');
      const host = 'main .home-try [data-widget=decoder]';
      assert(await fresh.getAttribute(host, 'data-state') === null, 'the widget mounted on its own');
      assert(await fresh.isVisible(`${host} .on-demand-start`), 'no "experimentar aqui" button');
      assert((await fresh.textContent(`${host} .widget-placeholder`)).includes('Uma noite destas'), 'the preview names the sentence');
      await fresh.screenshot({ path: path.join(ARTIFACTS, `home-before-${mode}.png`) });
      // By keyboard: the focus moves into the widget once it replaces the button.
      await fresh.focus(`${host} .on-demand-start`);
      await fresh.keyboard.press('Enter');
      await fresh.waitForSelector(`${host}[data-state=ready]`, { timeout: 120000 });
      // A real sentence through the real model: its tokens and the next token's bars.
      const chips = await fresh.$$eval(`${host} .chips .chip`, (cs) => cs.map((c) => c.textContent).join(''));
      assert(chips.replace(/[·\s]+/g, ' ').includes('Engenho Novo'), `tokens ${JSON.stringify(chips)}`);
      const bars = await fresh.$$eval(`${host} table.twin[data-bars="next-model"] tr`, (rows) => rows.length);
      assert(bars === 10, `${bars} next-token bars`);
      // The decoder's page loads the build of the page's module with the decoder's drawing only;
      // its model runs in the page's worker (issue 36).
      const wasm = requests.filter((p) => p.endsWith('.wasm'));
      assert(wasm.length === 2 && wasm.some((p) => p.endsWith('/atencao-resident_bg.wasm')) && wasm.some((p) => p.endsWith('/atencao-worker_bg.wasm')), `the home page's decoder loaded ${wasm.join(', ')}`);
      assert(await fresh.$$eval(`${host} .widget-placeholder, ${host} .on-demand-start`, (e) => e.length) === 0, 'the preview stayed');
      assert(await fresh.evaluate((h) => document.querySelector(h).contains(document.activeElement), host), 'the focus was lost');
      await fresh.screenshot({ path: path.join(ARTIFACTS, `home-widget-${mode}.png`) });
    } finally {
      await context.close();
    }
  });

  await check(`[${mode}] reading progress: the pages visited, and only those, are marked "(lida)" in the contents`, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const reader = await context.newPage();
    const errors = [];
    reader.on('pageerror', (e) => errors.push(String(e)));
    try {
      await gotoUntouched(reader, `${base}/vetores.html`);
      await reader.waitForSelector('main h1');
      await gotoUntouched(reader, `${base}/atencao-multicabeca.html`);
      await reader.waitForSelector('main h1');
      await gotoUntouched(reader, `${base}/`);
      const marks = () => reader.$$eval('#toc a.read', (as) => as.map((a) => [a.getAttribute('href'), a.querySelector('.visually-hidden')?.textContent, a.querySelector('.read-mark')?.getAttribute('aria-hidden')]));
      await reader.waitForFunction(() => document.querySelectorAll('#toc a.read').length > 0);
      const read = await marks();
      assert(JSON.stringify(read.map((r) => r[0]).sort()) === JSON.stringify(['atencao-multicabeca.html', 'vetores.html']), `marked: ${JSON.stringify(read)}`);
      assert(read.every(([, label, hidden]) => label === ' (lida)' && hidden === 'true'), `marks: ${JSON.stringify(read)}`);
      // Folded, each article says how much of it was read.
      const counts = await reader.$$eval('#toc .toc-group', (groups) => groups.map((g) => [g.querySelector('.toc-article .read-count')?.textContent ?? null,
        g.querySelectorAll('a[href$=".html"]').length, g.querySelector('.toc-article .read-count-label')?.textContent ?? null]));
      const want = counts.map(([, n], i) => ([0, 3].includes(i) ? [`1/${n}`, n, ` (1 de ${n} páginas lidas)`] : [null, n, null]));
      assert(JSON.stringify(counts) === JSON.stringify(want), `counts ${JSON.stringify(counts)}`);
      // Contrast of the mark, light and dark, on the contents and on the current page's link.
      for (const scheme of ['light', 'dark']) {
        await reader.emulateMedia({ colorScheme: scheme });
        const { fg, bg } = await colours(reader, '#toc a.read .read-mark');
        assert(contrast(fg, bg) >= 4.5, `${scheme}: the check is ${fg} on ${bg} (${contrast(fg, bg).toFixed(2)}:1)`);
      }
      await gotoUntouched(reader, `${base}/vetores.html`);
      for (const scheme of ['light', 'dark']) {
        await reader.emulateMedia({ colorScheme: scheme });
        const { fg, bg } = await colours(reader, '#toc a[aria-current=page].read .read-mark');
        assert(contrast(fg, bg) >= 4.5, `${scheme}, current page: the check is ${fg} on ${bg}`);
      }
      await reader.emulateMedia({ colorScheme: 'light' });
      // A page's own visit counts once; the home page, not in the contents, is not recorded.
      const stored = await reader.evaluate(() => Object.entries(localStorage).filter(([k]) => k.startsWith('atencao.lidas')));
      assert(stored.length === 1 && JSON.parse(stored[0][1]).length === 2, `stored: ${JSON.stringify(stored)}`);
      assert(errors.length === 0, errors.join('\n'));
    } finally {
      await context.close();
    }
    // Storage refused (private mode, blocked cookies): no errors, no marks, the contents intact.
    const blocked = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await blocked.addInitScript(() => {
      Object.defineProperty(window, 'localStorage', { configurable: true, get() { throw new DOMException('The operation is insecure.', 'SecurityError'); } });
    });
    const plain = await blocked.newPage();
    const blockedErrors = [];
    plain.on('pageerror', (e) => blockedErrors.push(String(e)));
    plain.on('console', (m) => { if (m.type() === 'error') blockedErrors.push(m.text()); });
    try {
      for (const route of ['vetores.html', '']) {
        await gotoUntouched(plain, `${base}/${route}`);
        await plain.waitForSelector('main h1');
        await plain.waitForTimeout(300);
      }
      assert(await plain.$$eval('#toc a.read', (as) => as.length) === 0, 'marks without storage');
      assert(await plain.$$eval('#toc a', (as) => as.length) >= 60, 'the contents are broken');
      // The menu still works.
      await plain.setViewportSize({ width: 390, height: 800 });
      await plain.click('#menu-button');
      assert(await plain.isVisible('#toc'), 'the menu does not open without storage');
      assert(blockedErrors.length === 0, blockedErrors.join('\n'));
    } finally {
      await blocked.close();
    }
  });

  await check(`[${mode}] the contents fold per article (<details>), the current article open; by keyboard too`, async () => {
    await gotoUntouched(page, `${base}/queries-keys-values.html`);
    const folds = () => page.$$eval('#toc .toc-group', (groups) => groups.map((g) => [g.querySelector('.toc-article').getAttribute('href'), g.querySelector('details').open]));
    const open = (await folds()).filter(([, o]) => o).map(([h]) => h);
    assert(JSON.stringify(open) === JSON.stringify(['transformer-autoatencao.html']), `open: ${open}`);
    assert(await page.isVisible('#toc a[aria-current=page]'), 'the current page is folded away');
    assert(await page.isHidden('#toc a[href="vetores.html"]'), 'another article is unfolded');
    // Tab from the first article's link reaches its fold; Enter opens it.
    await page.focus('#toc a.toc-article[href="matematica-e-vetorizacao.html"]');
    await page.keyboard.press('Tab');
    assert(await page.evaluate(() => document.activeElement.tagName === 'SUMMARY' && document.activeElement.textContent === 'Seções de Matemática e vetorização'), 'Tab does not reach the fold');
    await page.keyboard.press('Enter');
    assert(await page.isVisible('#toc a[href="vetores.html"]'), 'Enter did not unfold the article');
    await page.keyboard.press('Enter');
    assert(await page.isHidden('#toc a[href="vetores.html"]'), 'Enter did not fold it again');
    // The home page is in no article: every article folded, the contents five lines long.
    await gotoUntouched(page, `${base}/`);
    assert((await folds()).every(([, o]) => !o), 'an article unfolded on the home page');
  });

  await check(`[${mode}] with JavaScript off: the home page's map and path, and the contents fold`, async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const plain = await context.newPage();
    try {
      await plain.goto(`${base}/`);
      const info = await homeContents(plain);
      assert(info.cards.length === 5 && info.cards.every((c) => c.href.endsWith('.html') && c.widgets.length >= 2), JSON.stringify(info.cards));
      assert(info.path.length >= 4, `${info.path.length} steps`);
      assert(await plain.isVisible('main .series-map .card h3 a'), 'the map is hidden');
      assert(await plain.isVisible('main .start-path ol a'), 'the path is hidden');
      assert(info.widget === 'decoder', `widget ${info.widget}`);
      assert(await plain.isVisible('main .home-try .widget-placeholder'), 'no preview of the widget');
      assert(await plain.isHidden('main .home-try .on-demand-start'), 'a button that cannot work');
      await plain.click(`main .series-map .card h3 a[href="${info.cards[2].href}"]`);
      await plain.waitForURL(`${base}/${info.cards[2].href}`);
      // On that article's page, its sections are unfolded; another article opens by its summary.
      assert(await plain.$eval('#toc a[aria-current=page]', (a) => a.closest('li.toc-group').querySelector('details').open) === true, 'the current article is folded');
      assert(await plain.isHidden('#toc a[href="vetores.html"]'), 'vetores unfolded');
      await plain.click('#toc .toc-group:has(a[href="matematica-e-vetorizacao.html"]) summary');
      assert(await plain.isVisible('#toc a[href="vetores.html"]'), 'the summary did not unfold the article without JavaScript');
      await plain.click('#toc a[href="vetores.html"]');
      await plain.waitForURL(`${base}/vetores.html`);
      await plain.goto(`${base}/`);
      await plain.screenshot({ path: path.join(ARTIFACTS, `home-nojs-${mode}.png`), fullPage: true });
    } finally {
      await context.close();
    }
  });

  await check(`[${mode}] phone (390 px): Escape closes the menu and gives the focus back to "Sumário"; a link chosen closes it`, async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
    const phone = await context.newPage();
    try {
      await gotoUntouched(phone, `${base}/queries-keys-values.html`);
      assert(await phone.isHidden('#toc'), 'the contents show before the menu opens');
      await phone.click('#menu-button');
      assert(await phone.isVisible('#toc') && await phone.getAttribute('#menu-button', 'aria-expanded') === 'true', 'the menu did not open');
      // Into the contents by keyboard, then Escape.
      await phone.focus('#toc a[aria-current=page]');
      await phone.keyboard.press('Escape');
      assert(await phone.isHidden('#toc'), 'Escape did not close the menu');
      assert(await phone.getAttribute('#menu-button', 'aria-expanded') === 'false', 'aria-expanded stayed true');
      assert(await phone.evaluate(() => document.activeElement?.id === 'menu-button'), 'the focus did not return to "Sumário"');
      // Open by keyboard; choose a link: the menu closes (checked with the navigation held back,
      // then for real).
      await phone.keyboard.press('Enter');
      assert(await phone.isVisible('#toc'), 'Enter on "Sumário" did not open the menu');
      await phone.screenshot({ path: path.join(ARTIFACTS, `home-menu-phone-${mode}.png`) });
      await phone.evaluate(() => document.addEventListener('click', (e) => e.preventDefault(), { once: true }));
      await phone.click('#toc a[href="forma-matricial-e-mascara.html"]');
      assert(await phone.isHidden('#toc'), 'choosing a link left the menu open');
      assert(await phone.getAttribute('#menu-button', 'aria-expanded') === 'false', 'aria-expanded stayed true after a link');
      await phone.click('#menu-button');
      await phone.click('#toc a[href="forma-matricial-e-mascara.html"]');
      await phone.waitForURL(`${base}/forma-matricial-e-mascara.html`);
      assert(await phone.isHidden('#toc'), 'the menu is open on the next page');
      await phone.goBack();
      await phone.waitForSelector('main h1');
      assert(await phone.isHidden('#toc'), 'the menu is open again on the way back');
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert(overflow <= 0, `${overflow}px wider than the phone`);
    } finally {
      await context.close();
    }
  });
}
