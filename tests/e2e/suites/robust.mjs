// Robustness (issue 9): the reader's inputs survive a reload and travel in a link (on the site
// and inside an embedded widget), garbage and hostile links are refused or shown as text,
// hostile data attributes and prompts never run, out-of-range attributes are clamped with a
// warning, a weights file with a wrong checksum gets a message and a retry while the rest of
// the page works, and load: a 5 MB paste, 10 000 documents and 1 000 recomputations in a row
// with the main thread's longest block and the wasm and GPU memory measured (reported in
// tests/artifacts/measurements.txt; only "memory stays flat" is asserted, never a time).
import fs from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, check, assert, readTable, waitWidget } from '../lib.mjs';
import { GOLDEN, ATTENTION_PAGE } from './attention.mjs';

const DIST = path.resolve(process.argv[2] ?? 'dist');
const ATTENTION = '[data-widget=attention]';
const BOW_PAGE = 'frequencia-de-termos.html';
const BOW = '[data-widget=bow]';
/** A page of the site's folder that only exists in these tests (served by a route). */
const TEST_POST = '/static/blog/robusto.html';

/** A blog-like page embedding `widgets` (HTML of the `data-widget` elements). */
function post(widgets) {
  return `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>robusto</title>
<script type="module" src="../../embed.js"></script></head>
<body><h1>Um post</h1>${widgets}</body></html>`;
}

/** A fresh context whose `TEST_POST` is `html`; records page errors. */
async function openPost(browser, html, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  await context.route(`**${TEST_POST}*`, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  return { context, page, errors };
}

/** Waits for an embedded widget (mounted when scrolled near) to reach `state`. */
async function settled(page, host, state = 'ready', timeout = 60000) {
  await page.locator(host).scrollIntoViewIfNeeded();
  // '*': ready or error, whichever the widget answers.
  const wanted = state === '*' ? ':is([data-state=ready], [data-state=error])' : `[data-state=${state}]`;
  await page.waitForSelector(`${host}${wanted}`, { timeout });
}

function record(line) {
  console.log(`     ${line}`);
  fs.appendFileSync(path.join(ARTIFACTS, 'measurements.txt'), `${line}\n`);
}

/** Starts collecting long tasks (main-thread blocks over 50 ms). */
async function watchLongTasks(page) {
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
  });
}

async function longestTask(page) {
  return page.evaluate(() => { const t = Math.max(0, ...window.__longTasks); window.__longTasks.length = 0; return t; });
}

/** Sets a (large) text directly and fires the input event: typing it would take minutes. */
function paste(page, selector, text) {
  return page.$eval(selector, (el, t) => { el.value = t; el.dispatchEvent(new Event('input', { bubbles: true })); }, text);
}

/** A state link parameter as core::widget_state writes it. */
function stateParam(kind, controls) {
  return Buffer.from(JSON.stringify({ v: 1, k: kind, c: controls })).toString('base64url');
}

/** No element a payload could have created, anywhere (shadow roots included), and no flag. */
async function assertNothingRan(page) {
  const found = await page.evaluate(() => {
    const roots = [document, ...[...document.querySelectorAll('*')].filter((e) => e.shadowRoot).map((e) => e.shadowRoot)];
    const injected = roots.flatMap((r) => [...r.querySelectorAll('img, iframe, [onerror], [onload], script')])
      .filter((e) => e.tagName !== 'SCRIPT' || e.textContent.includes('__pwned'));
    return { pwned: window.__pwned, injected: injected.map((e) => e.outerHTML.slice(0, 80)) };
  });
  assert(found.pwned === undefined, `a payload ran: window.__pwned = ${found.pwned}`);
  assert(found.injected.length === 0, `elements from payloads: ${found.injected.join(' | ')}`);
}

export default async function robust({ page, base, mode, browser }) {
  await check(`[${mode}] state: attention edits survive a reload and travel in a link; "descartar" brings the example back`, async () => {
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await waitWidget(page, ATTENTION);
    const cell = `${ATTENTION} [data-editor=x] [data-cell="0.0"]`;
    const original = await page.inputValue(cell);
    await page.fill(cell, '2');
    await waitWidget(page, ATTENTION);
    await page.waitForFunction(() => /[?&]w\d+=/.test(location.search));
    const edited = await readTable(page, 'weights');
    let changed = false;
    try { assertGolden(edited); } catch { changed = true; }
    assert(changed, 'the edit changed nothing');
    await page.reload();
    await waitWidget(page, ATTENTION);
    assert(await page.inputValue(cell) === '2', `after a reload X[0][0] = ${await page.inputValue(cell)}`);
    assert(JSON.stringify(await readTable(page, 'weights')) === JSON.stringify(edited), 'weights differ after the reload');

    await page.click(`${ATTENTION} [data-action=share]`);
    const link = await page.inputValue(`${ATTENTION} .share-link`);
    assert(link.includes(ATTENTION_PAGE) && /[?&]w\d+=/.test(link), link);
    const other = await browser.newContext();
    const friend = await other.newPage();
    await friend.goto(link);
    await waitWidget(friend, ATTENTION);
    assert(await friend.inputValue(cell) === '2', 'the link did not bring the edit');
    assert(JSON.stringify(await readTable(friend, 'weights')) === JSON.stringify(edited), 'weights differ from the link');
    assert((await friend.textContent(`${ATTENTION} .state-note`)).includes('restauradas do link'), 'no note about the link');
    await other.close();

    await page.click(`${ATTENTION} [data-action=forget-state]`);
    await waitWidget(page, ATTENTION);
    assert(await page.inputValue(cell) === original, 'descartar did not restore the example');
    await page.waitForFunction(() => !/[?&]w\d+=/.test(location.search));
    // A visit without state shows the article's example.
    await page.fill(cell, '3');
    await waitWidget(page, ATTENTION);
    await page.waitForFunction(() => /[?&]w\d+=/.test(location.search));
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await waitWidget(page, ATTENTION);
    assert(await page.inputValue(cell) === original, 'a plain visit kept old edits');
  });

  await check(`[${mode}] state: rows the reader added or removed survive a reload and travel in a link (attention "+ token", soft dictionary "+ entrada" / "− entrada")`, async () => {
    const rows = (p, host, editor) => p.$$eval(`${host} [data-editor=${editor}] .editor-row-label`, (labels) => labels.length);
    const DICT = '[data-widget=soft-dictionary]';
    // The attention widget: one more token, with a value in its new row.
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await waitWidget(page, ATTENTION);
    const before = await rows(page, ATTENTION, 'x');
    await page.click(`${ATTENTION} [data-action=add-token]`);
    await waitWidget(page, ATTENTION);
    await page.waitForFunction(() => /[?&]w\d+=/.test(location.search));
    const added = `${ATTENTION} [data-editor=x] [data-cell="${before}.0"]`;
    const withRow = await page.evaluate(() => location.search);
    await page.fill(added, '1,5');
    await waitWidget(page, ATTENTION);
    // The edit of the new row is saved (after the keeper's pause) into the address.
    await page.waitForFunction((s) => location.search !== s, withRow);
    const edited = await readTable(page, 'weights');
    assert(edited.length === before + 1, `${edited.length} rows of weights after "+ token"`);
    await page.reload();
    await waitWidget(page, ATTENTION);
    assert(await rows(page, ATTENTION, 'x') === before + 1, `after a reload X has ${await rows(page, ATTENTION, 'x')} rows, not ${before + 1}`);
    assert(await page.inputValue(added) === '1,5', `after a reload the added row holds ${await page.inputValue(added)}`);
    assert(JSON.stringify(await readTable(page, 'weights')) === JSON.stringify(edited), 'weights differ after the reload');
    await page.click(`${ATTENTION} [data-action=share]`);
    const link = await page.inputValue(`${ATTENTION} .share-link`);
    const other = await browser.newContext();
    const friend = await other.newPage();
    await friend.goto(link);
    await waitWidget(friend, ATTENTION);
    assert(await rows(friend, ATTENTION, 'x') === before + 1, 'the link did not bring the added token');
    assert(await friend.inputValue(added) === '1,5', 'the link did not bring the added row\'s value');
    assert(JSON.stringify(await readTable(friend, 'weights')) === JSON.stringify(edited), 'weights differ from the link');
    await page.click(`${ATTENTION} [data-action=forget-state]`);
    await waitWidget(page, ATTENTION);
    assert(await rows(page, ATTENTION, 'x') === before, '"descartar" left the added token');

    // The soft dictionary: an entry added (K and V grow together), then one removed.
    await friend.goto(`${base}/dicionario-suave.html`);
    await waitWidget(friend, DICT);
    const entries = await rows(friend, DICT, 'keys');
    await friend.click(`${DICT} [data-action=add-entry]`);
    await waitWidget(friend, DICT);
    await friend.waitForFunction(() => /[?&]w\d+=/.test(location.search));
    const withEntry = await friend.evaluate(() => location.search);
    await friend.fill(`${DICT} [data-editor=values] [data-cell="${entries}.0"]`, '7');
    await waitWidget(friend, DICT);
    await friend.waitForFunction((s) => location.search !== s, withEntry);
    await friend.reload();
    await waitWidget(friend, DICT);
    assert(await rows(friend, DICT, 'keys') === entries + 1 && await rows(friend, DICT, 'values') === entries + 1, 'the added entry did not survive a reload');
    assert(await friend.inputValue(`${DICT} [data-editor=values] [data-cell="${entries}.0"]`) === '7', 'the added value did not survive a reload');
    await friend.click(`${DICT} [data-action=remove-entry]`);
    await friend.click(`${DICT} [data-action=remove-entry]`);
    await waitWidget(friend, DICT);
    await friend.waitForFunction((n) => document.querySelectorAll('[data-widget=soft-dictionary] [data-editor=keys] .editor-row-label').length === n, entries - 1);
    await friend.waitForTimeout(700);
    await friend.click(`${DICT} [data-action=share]`);
    const dictLink = await friend.inputValue(`${DICT} .share-link`);
    const third = await other.newPage();
    await third.goto(dictLink);
    await waitWidget(third, DICT);
    assert(await rows(third, DICT, 'keys') === entries - 1, `the link gave ${await rows(third, DICT, 'keys')} entries, not ${entries - 1}`);
    await friend.reload();
    await waitWidget(friend, DICT);
    assert(await rows(friend, DICT, 'keys') === entries - 1, 'the removed entry came back after a reload');
    await other.close();
  });

  await check(`[${mode}] state: a 1 MB corpus stays out of the link (with a note) but survives a reload; a 5 MB paste is refused and not stored`, async () => {
    await page.goto(`${base}/${BOW_PAGE}`);
    await waitWidget(page, BOW);
    const corpus = `${BOW} [data-control=corpus]`;
    const words = ['gato', 'rato', 'cachorro', 'telhado', 'preto', 'branco', 'corre', 'late', 'dorme', 'caça'];
    let big = '';
    for (let i = 0; big.length < 1_000_000; i++) big += words[i % 10] + (i % 97) + ((i + 1) % 1500 === 0 ? '\n' : ' ');
    await paste(page, corpus, big);
    await waitWidget(page, BOW);
    await page.waitForFunction((host) => document.querySelector(`${host} .state-note`).textContent.includes('não cabe no endereço'), BOW);
    await page.check(`${BOW} [data-control=accents]`);
    await waitWidget(page, BOW);
    await page.waitForFunction(() => /[?&]w\d+=/.test(location.search));
    await page.waitForTimeout(500);
    await page.reload();
    await waitWidget(page, BOW);
    const back = await page.$eval(corpus, (el) => el.value);
    assert(back === big, `after a reload the corpus has ${back.length} characters, want ${big.length}`);
    assert(await page.isChecked(`${BOW} [data-control=accents]`), 'the checkbox was not restored');
    await page.click(`${BOW} [data-action=share]`);
    const link = await page.inputValue(`${BOW} .share-link`);
    assert(link.length < 7000, `link of ${link.length} characters`);
    assert((await page.textContent(`${BOW} .state-note`)).includes('O link não leva «corpus»'), 'no note about the corpus left out');
    const other = await browser.newContext();
    const friend = await other.newPage();
    await friend.goto(link);
    await waitWidget(friend, BOW);
    assert(await friend.isChecked(`${BOW} [data-control=accents]`), 'the link lost the checkbox');
    const note = await friend.textContent(`${BOW} .state-note`);
    assert(note.includes('O link não trouxe «corpus»'), note);
    await other.close();

    // 5 MB: the widget refuses it with a message, keeps it in the field, and does not store it.
    await watchLongTasks(page);
    let huge = '';
    while (huge.length < 5 * 1024 * 1024) huge += big;
    huge = huge.slice(0, 5 * 1024 * 1024);
    const started = Date.now();
    await paste(page, corpus, huge);
    await page.waitForSelector(`${BOW}[data-state=error]`, { timeout: 60000 });
    const elapsed = Date.now() - started;
    await page.waitForFunction((host) => document.querySelector(`${host} .state-note`).textContent.includes('grande demais para ser guardado'), BOW, { timeout: 10000 });
    const longest = await longestTask(page);
    const message = await page.textContent(`${BOW} .widget-error`);
    assert(message.includes('limite'), message);
    assert(await page.$eval(corpus, (el) => el.value.length) === huge.length, 'the 5 MB text left the field');
    record(`${mode}: 5 MB paste into bow: "${message.trim()}" after ${elapsed} ms; longest main-thread block ${longest.toFixed(0)} ms`);
    await page.goto(`${base}/${BOW_PAGE}`);
  });

  await check(`[${mode}] state: garbage, a wrong kind and hostile values in a state link are refused or shown as text`, async () => {
    await page.goto(`${base}/${BOW_PAGE}?w0=!!!`);
    await waitWidget(page, BOW);
    assert((await page.textContent(`${BOW} .state-note`)).includes('foram ignoradas'), 'garbage state not reported');
    await page.goto(`${base}/${BOW_PAGE}?w0=%zz`);
    await waitWidget(page, BOW);
    assert((await page.textContent(`${BOW} .state-note`)).includes('O endereço tem um erro'), 'bad escape not reported');
    await page.goto(`${base}/${BOW_PAGE}?w0=${stateParam('attention', [['corpus', 'x']])}`);
    await waitWidget(page, BOW);
    assert((await page.textContent(`${BOW} .state-note`)).includes('outro widget'), 'wrong kind not reported');
    // Values no control takes (an example that does not exist, a size past the widget's limit)
    // are named and ignored; the rest of the state is set.
    await page.goto(`${base}/${BOW_PAGE}?w0=${stateParam('bow', [['preset', '<img src=x onerror="window.__pwned=7">'], ['accents', '0']])}`);
    await waitWidget(page, BOW);
    assert((await page.textContent(`${BOW} .state-note`)).includes('«preset»') && !(await page.isChecked(`${BOW} [data-control=accents]`)), 'an unknown preset was not refused alone');
    await page.goto(`${base}/${ATTENTION_PAGE}?w0=${stateParam('attention', [['x@size', '99999'], ['causal', '1']])}`);
    await waitWidget(page, ATTENTION);
    assert((await page.textContent(`${ATTENTION} .state-note`)).includes('ignoradas: «x@size»'), 'a size past the limit was not refused');
    assert(await page.isChecked(`${ATTENTION} [data-control=causal]`), 'the rest of the state was lost with the size');
    const payload = '<img src=x onerror="window.__pwned=1"> gato\n<script>window.__pwned=2</script> javascript:window.__pwned=3 cão';
    await page.goto(`${base}/${BOW_PAGE}?w0=${stateParam('bow', [['corpus', payload]])}`);
    await waitWidget(page, BOW);
    assert(await page.inputValue(`${BOW} [data-control=corpus]`) === payload, 'the payload was not restored as text');
    const vocabulary = await page.textContent(`${BOW} .vocabulary`);
    assert(vocabulary.includes('img') && vocabulary.includes('script'), vocabulary);
    await assertNothingRan(page);
    // The decoder's preset in the route, and its prompt.
    await page.goto(`${base}/decodificador.html?preset=${encodeURIComponent('<img src=x onerror="window.__pwned=4">')}`);
    await page.waitForSelector('[data-widget=decoder] .widget-warning');
    const warning = await page.textContent('[data-widget=decoder] .widget-warning');
    assert(warning.includes('<img src=x onerror="window.__pwned=4">'), warning);
    await waitWidget(page, '[data-widget=decoder]').catch(() => {});
    await page.waitForSelector('[data-widget=decoder][data-state=ready]', { timeout: 120000 });
    const prompt = '<img src=x onerror="window.__pwned=5"><script>window.__pwned=6</script>';
    await page.fill('[data-widget=decoder] [data-control=prompt]', prompt);
    await page.dispatchEvent('[data-widget=decoder] [data-control=prompt]', 'change');
    await page.waitForSelector('[data-widget=decoder][data-state=ready]', { timeout: 60000 });
    const chips = await page.$$eval('[data-widget=decoder] .chips .chip', (cs) => cs.map((c) => c.textContent).join(''));
    assert(chips.includes('<img') && chips.includes('script'), chips);
    await assertNothingRan(page);
  });

  await check(`[${mode}] embedded: edits kept in localStorage across a reload, a link restores them and leaves the post's address`, async () => {
    const html = post('<div data-widget="tfidf" id="t" data-corpus="o gato dorme\no cão late"></div>');
    const { context, page: blog, errors } = await openPost(browser, html);
    await blog.goto(`${base}${TEST_POST}`);
    await settled(blog, '#t');
    const corpus = '#t [data-control=corpus]';
    await blog.fill(corpus, 'o gato dorme\no cão late\no pássaro canta');
    await settled(blog, '#t');
    await blog.waitForFunction(() => Object.keys(localStorage).some((k) => k.startsWith('atencao.estado ')));
    assert(!blog.url().includes('#'), `the post's address changed: ${blog.url()}`);
    await blog.reload();
    await settled(blog, '#t');
    assert(await blog.inputValue(corpus) === 'o gato dorme\no cão late\no pássaro canta', 'not restored after a reload');
    assert((await blog.textContent('#t .state-note')).includes('edições anteriores'), 'no note about the restore');
    await blog.click('#t [data-action=share]');
    const link = await blog.inputValue('#t .share-link');
    assert(link.startsWith(`${base}${TEST_POST}#?w0=`), link);
    await context.close();
    const fresh = await openPost(browser, html);
    await fresh.page.goto(link);
    await settled(fresh.page, '#t');
    assert(await fresh.page.inputValue(corpus) === 'o gato dorme\no cão late\no pássaro canta', 'the link did not restore');
    await fresh.page.waitForFunction(() => !location.hash.includes('w0='));
    await fresh.context.close();
    assert(errors.length + fresh.errors.length === 0, [...errors, ...fresh.errors].join('\n'));
  });

  await check(`[${mode}] state: links and a saved state from before state became a struct (tests/fixtures/state_links.json) restore, without replayed events`, async () => {
    const fixtures = JSON.parse(fs.readFileSync(path.resolve('tests/fixtures/state_links.json'), 'utf8'));
    const other = await browser.newContext();
    // Events a script dispatched (not the reader's): a restore that replays edits shows here.
    await other.addInitScript(() => {
      window.__replayed = 0;
      for (const kind of ['input', 'change', 'click']) window.addEventListener(kind, (e) => { if (!e.isTrusted) window.__replayed += 1; }, true);
    });
    const shown = (p, host, selector) => p.$eval(`${host} ${selector}`, (e) => e.classList.contains('editor-row-label')
      ? String(e.parentElement.querySelectorAll('.editor-row-label').length)
      : e.type === 'checkbox' ? (e.checked ? 'marcado' : 'desmarcado') : e.value);
    const page2 = await other.newPage();
    for (const link of fixtures.links) {
      const host = `[data-widget=${link.kind}]`;
      await page2.goto(`${base}/${link.url}`);
      await waitWidget(page2, host);
      for (const [selector, want] of link.shows) {
        const got = await shown(page2, host, selector);
        assert(got === want, `${link.name}: ${selector} shows ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      }
      assert((await page2.textContent(`${host} .state-note`)).includes('restauradas do link'), `${link.name}: no note about the link`);
      const events = await page2.evaluate(() => window.__replayed);
      assert(events === 0, `${link.name}: the restore dispatched ${events} events`);
    }
    await other.close();
    // Embedded: the post's "copiar link" link, then the state its reader's browser kept.
    const { embedded } = fixtures;
    for (const how of ['link', 'stored']) {
      const { context, page: blog, errors } = await openPost(browser, embedded.html);
      if (how === 'stored') {
        await context.addInitScript((entries) => { for (const [k, v] of entries) localStorage.setItem(k, v); }, embedded.stored);
      }
      await context.route(`**${embedded.post}*`, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: embedded.html }));
      await blog.goto(how === 'link' ? `${base}${embedded.link}` : `${base}${embedded.post}`);
      await settled(blog, '#t');
      for (const [selector, want] of embedded.shows) {
        const got = await blog.$eval(`#t ${selector}`, (e) => e.value);
        assert(got === want, `embedded (${how}): ${selector} shows ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      }
      await context.close();
      assert(errors.length === 0, errors.join('\n'));
    }
  });

  await check(`[${mode}] hostile data attributes in an embedded post are shown as text and never run`, async () => {
    const html = post(`
<div data-widget="bow" id="h-corpus" data-corpus="&lt;img src=x onerror=window.__pwned=1&gt; gato
&lt;script&gt;window.__pwned=2&lt;/script&gt; cão"></div>
<div data-widget="bpe" id="h-text" data-text="&lt;img src=x onerror=window.__pwned=3&gt;"></div>
<div data-widget="attention" id="h-preset" data-preset="&lt;img src=x onerror=window.__pwned=4&gt;"></div>
<div data-widget="attention" id="h-matrices" data-matrices='{"&lt;img src=x onerror=window.__pwned=5&gt;": [[1]]}'></div>
<div data-widget="&lt;img src=x onerror=window.__pwned=6&gt;" id="h-kind"></div>
<div data-widget="transformer-block" id="h-block" data-text="&lt;svg onload=window.__pwned=7&gt;"></div>
<div data-widget="bpe" id="h-model" data-model="javascript:window.__pwned=8//"></div>`);
    const { context, page: blog } = await openPost(browser, html);
    await blog.goto(`${base}${TEST_POST}`);
    await settled(blog, '#h-corpus');
    const vocabulary = await blog.textContent('#h-corpus .vocabulary');
    assert(vocabulary.includes('img') && vocabulary.includes('script'), vocabulary);
    await settled(blog, '#h-text');
    const chips = await blog.$$eval('#h-text .chips .chip', (cs) => cs.map((c) => c.textContent).join(''));
    assert(chips.includes('<img'), chips);
    await settled(blog, '#h-preset');
    assert((await blog.textContent('#h-preset .widget-warning')).includes('«<img src=x onerror=window.__pwned=4>»'), 'preset payload not quoted as text');
    await settled(blog, '#h-matrices', 'error');
    assert((await blog.textContent('#h-matrices .widget-error')).includes('<img src=x'), 'matrix name payload not quoted');
    await settled(blog, '#h-kind', 'error');
    assert((await blog.textContent('#h-kind .widget-error')).includes('«<img src=x onerror=window.__pwned=6>»'), 'kind payload not quoted');
    await settled(blog, '#h-block', '*');
    await settled(blog, '#h-model', 'error');
    await blog.waitForTimeout(300);
    await assertNothingRan(blog);
    await context.close();
  });

  await check(`[${mode}] out-of-range and unknown data attributes are clamped or replaced, with a warning, and the widget works`, async () => {
    const html = post(`
<div data-widget="positional-encoding" id="pe" data-t="999" data-d="7"></div>
<div data-widget="scaling" id="sc" data-d="-3"></div>
<div data-widget="tf" id="tf" data-tf="xyz" data-base="3"></div>
<div data-widget="likelihood" id="lk" data-document="99"></div>
<div data-widget="self-attention-steps" id="sa" data-causal="talvez"></div>
<div data-widget="sparsity" id="sp" data-n="0" data-vocabulary="50.000"></div>`);
    const { context, page: blog, errors } = await openPost(browser, html);
    await blog.goto(`${base}${TEST_POST}`);
    const warnings = async (host) => blog.$$eval(`${host} .widget-warning`, (ps) => ps.map((p) => p.textContent));
    await settled(blog, '#pe');
    let w = await warnings('#pe');
    assert(w.length === 2 && w[0] === 'data-t = 999 está fora do intervalo de 4 a 128; usando 128.' && w[1].includes('data-d = 7 deve ser um número par; usando 8'), JSON.stringify(w));
    assert(await blog.inputValue('#pe [data-control=t]') === '128' && await blog.inputValue('#pe [data-control=d]') === '8', 'sliders not clamped');
    await settled(blog, '#sc');
    w = await warnings('#sc');
    assert(w.length === 1 && w[0].includes('data-d = −3 está fora do intervalo'), JSON.stringify(w));
    await settled(blog, '#tf');
    w = await warnings('#tf');
    assert(w.length === 2 && w[0].includes('«xyz» não é uma opção') && w[1].includes('data-base'), JSON.stringify(w));
    assert(await blog.inputValue('#tf [data-control=tf]') === 'normalized' && await blog.inputValue('#tf [data-control=base]') === 'e', 'tf selects');
    await settled(blog, '#lk');
    w = await warnings('#lk');
    assert(w.length === 1 && w[0].includes('data-document = 99 está fora do intervalo de 1 a 8; usando 8'), JSON.stringify(w));
    await settled(blog, '#sa');
    w = await warnings('#sa');
    assert(w.length === 1 && w[0].includes('«talvez» não é true nem false'), JSON.stringify(w));
    await settled(blog, '#sp');
    w = await warnings('#sp');
    assert(w.length === 1 && w[0].includes('data-n = 0 está fora do intervalo de 1 a 10; usando 1'), JSON.stringify(w));
    assert(await blog.inputValue('#sp [data-control=vocabulary]') === '50000', 'data-vocabulary with a thousands dot');
    const role = await blog.$eval('#pe .widget-warning', (p) => p.getAttribute('role'));
    assert(role === 'status', `warning role ${role}`);
    assert(errors.length === 0, errors.join('\n'));
    await blog.screenshot({ path: path.join(ARTIFACTS, `robust-warnings-${mode}.png`), fullPage: true });
    await context.close();
  });

  await check(`[${mode}] weights with one byte flipped: a checksum message and a retry, while another widget of the page is ready`, async () => {
    const html = post('<div data-widget="attention" id="att"></div><div data-widget="decoder" id="dec"></div>');
    // No service worker and a fresh Cache API: the request reaches the (broken) network.
    const { context, page: blog } = await openPost(browser, html, { serviceWorkers: 'block' });
    const weights = fs.readFileSync(path.join(DIST, 'static/model/model.safetensors'));
    const flipped = Buffer.from(weights);
    flipped[flipped.length >> 1] ^= 0x01;
    let broken = true;
    await context.route('**/model.safetensors*', (route) => (broken ? route.fulfill({ status: 200, body: flipped }) : route.continue()));
    await blog.goto(`${base}${TEST_POST}`);
    await settled(blog, '#att');
    await settled(blog, '#dec', 'error', 120000);
    const message = await blog.textContent('#dec .widget-error');
    assert(message.includes('diferente do esperado') && message.includes('SHA-256'), message);
    assert(await blog.isVisible('#dec [data-action=retry]'), 'no retry button');
    assertGolden(await readTable(blog, 'weights', '#att'));
    await blog.fill('#att [data-editor=x] [data-cell="0.0"]', '1');
    await settled(blog, '#att');
    broken = false;
    await blog.click('#dec [data-action=retry]');
    await settled(blog, '#dec', 'ready', 120000);
    await context.close();
  });

  await check(`[${mode}] a page whose wasm does not arrive keeps its text, and each widget says so; a reload works`, async () => {
    // No service worker: the request for the wasm reaches the (broken) server.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
    let broken = true;
    await context.route('**/atencao-sequences_bg.wasm', (route) => (broken ? route.fulfill({ status: 404, body: 'not found' }) : route.continue()));
    const site = await context.newPage();
    await site.goto(`${base}/tf-idf-e-cosseno.html`);
    await site.waitForSelector('main [data-widget][data-state=error] .widget-error', { timeout: 30000 });
    const message = await site.textContent('main [data-widget] .widget-error');
    assert(message.includes('Não foi possível carregar o WebAssembly'), message);
    assert(await site.getAttribute('main [data-widget] .widget-error', 'role') === 'alert', 'message not announced');
    // The page itself is all there: heading, prose, formulas, contents.
    assert((await site.textContent('main h1')).trim().length > 0, 'no page title with the message');
    assert((await site.$$('main .prose math')).length > 0, 'no formulas');
    assert((await site.$$('#toc a')).length > 30, 'the table of contents is gone');
    broken = false;
    await site.reload();
    await site.waitForSelector('main .prose [data-widget][data-state=ready]', { timeout: 30000 });
    assert(!(await site.$('main .widget-error[role=alert]')), 'the message stayed after a successful reload');
    await context.close();
  });

  await check(`[${mode}] a browser without WebAssembly SIMD gets a message on the site and in every embedded widget`, async () => {
    // Such a browser cannot compile the wasm: the probe says no, and the wasm never arrives.
    const html = post('<div data-widget="attention" id="att"></div><div data-widget="bow" id="bow"></div>');
    const { context, page: old } = await openPost(browser, html, { serviceWorkers: 'block' });
    await context.addInitScript(() => { WebAssembly.validate = () => false; });
    await context.route('**/atencao*_bg.wasm', (route) => route.abort());
    // On the site, every widget of the page says so; the page's text stays.
    await old.goto(`${base}/${ATTENTION_PAGE}`);
    await old.waitForSelector('main#app [data-widget] .unsupported[role=alert]', { timeout: 30000 });
    const notes = await old.$$eval('main#app [data-widget]', (ws) => ws.map((w) => `${w.dataset.state}: ${w.querySelector('.unsupported')?.textContent}`));
    assert(notes.length > 0 && notes.every((n) => n.startsWith('error: ') && n.includes('WebAssembly SIMD')), notes.join('\n'));
    assert((await old.textContent('main#app .prose')).length > 500, 'the page lost its text');
    await old.goto(`${base}${TEST_POST}`);
    for (const host of ['#att', '#bow']) {
      await old.waitForSelector(`${host}[data-state=error]`, { timeout: 30000 });
      const text = await old.textContent(`${host} .widget-error`);
      assert(text.includes('WebAssembly SIMD'), `${host}: ${text}`);
    }
    await context.close();
  });

  await check(`[${mode}] load: 10 000 documents and 1 000 recomputations in a row; wasm and GPU memory stay flat`, async () => {
    await page.goto(`${base}/tf-idf-e-cosseno.html`);
    const tfidf = '[data-widget=tfidf]';
    await waitWidget(page, tfidf);
    await watchLongTasks(page);
    const words = ['gato', 'rato', 'cachorro', 'telhado', 'preto', 'branco', 'corre', 'late', 'dorme', 'caça'];
    let started = Date.now();
    await paste(page, `${tfidf} [data-control=corpus]`, Array.from({ length: 10000 }, (_, i) => `o ${words[i % 10]} e o ${words[(i * 7) % 10]} no documento ${i % 50}`).join('\n'));
    await page.waitForSelector(`${tfidf}:is([data-state=ready], [data-state=error])`, { timeout: 60000 });
    await waitWidget(page, tfidf);
    let elapsed = Date.now() - started;
    assert((await page.textContent(`${tfidf} .note`)).includes('20 de 10000 documentos'), 'no summary for 10 000 documents');
    record(`${mode}: 10 000 documents into tfidf: ready after ${elapsed} ms; longest main-thread block ${(await longestTask(page)).toFixed(0)} ms`);

    // Another page is another document (each page is its own file): watch its long tasks too.
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await waitWidget(page, ATTENTION);
    await watchLongTasks(page);
    const recompute = (n) => page.evaluate(async (count) => {
      const host = document.querySelector('[data-widget=attention]');
      const cell = host.querySelector('[data-editor=x] [data-cell="0.0"]');
      const ready = () => new Promise((resolve) => { const poll = () => (host.dataset.state === 'ready' ? resolve() : setTimeout(poll, 0)); poll(); });
      for (let i = 0; i < count; i++) {
        cell.value = String((i % 10) / 10);
        cell.dispatchEvent(new Event('input', { bubbles: true }));
        await ready();
      }
    }, n);
    const memory = () => page.evaluate(() => ({ ...window.wasmBindings.memoryReport(), jsHeap: performance.memory?.usedJSHeapSize ?? 0 }));
    await recompute(100);
    const before = await memory();
    await longestTask(page);
    started = Date.now();
    await recompute(1000);
    elapsed = Date.now() - started;
    await page.waitForTimeout(500);
    const after = await memory();
    const longest = await longestTask(page);
    const mb = (b) => (b / 1048576).toFixed(2);
    const kb = (b) => (b / 1024).toFixed(1);
    record(`${mode}: 1 000 attention recomputations in ${elapsed} ms (${(elapsed / 1000).toFixed(1)} ms each); longest main-thread block ${longest.toFixed(0)} ms; `
      + `wasm memory ${mb(before.wasmBytes)} → ${mb(after.wasmBytes)} MB; GPU pool ${before.gpuPooledBuffers} → ${after.gpuPooledBuffers} buffers `
      + `(${kb(before.gpuPooledBytes)} → ${kb(after.gpuPooledBytes)} kB); JS heap ${mb(before.jsHeap)} → ${mb(after.jsHeap)} MB`);
    assert(after.wasmBytes <= before.wasmBytes * 1.1, `wasm memory grew from ${before.wasmBytes} to ${after.wasmBytes}`);
    assert(after.gpuPooledBytes <= before.gpuPooledBytes * 1.1 + 65536, `GPU pool grew from ${before.gpuPooledBytes} to ${after.gpuPooledBytes} bytes`);
    if (mode === 'cpu') assert(after.gpuPooledBuffers === 0, 'GPU buffers on the CPU backend');
    await page.goto(`${base}/${ATTENTION_PAGE}`);
  });
}

function assertGolden(weights) {
  weights.forEach((row, r) => row.forEach((text, c) => {
    const got = Number(text.replace('−', '-').replace(',', '.'));
    assert(Math.abs(got - GOLDEN.weights[r][c]) <= 1e-4, `weights[${r}][${c}] = ${text}`);
  }));
}
