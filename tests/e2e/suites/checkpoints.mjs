// Checkpoints (issue 38): every checkpoint on the site, prerendered and live. Without JavaScript
// each page carries its question and its worked solution; with it, for every checkpoint, a wrong
// answer checks "errado" with a message (the core's diagnosis when the slip is a known one), the
// revealed answer typed back (or its option chosen) checks "certo", and "outro exemplo" changes
// the question and clears the result. Progress shows in the contents and survives a refused
// storage; a blog post embeds one; axe finds no serious violation (light and dark, 390 and
// 1280 px). The checkpoints need no wasm: one mode is enough.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ARTIFACTS, check, assert, pageSettled } from '../lib.mjs';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Every page of the contents by article: [{ article, total, pages }]. */
async function articles(base) {
  const html = await (await fetch(`${base}/`)).text();
  const groups = html.split('<li class="toc-group"').slice(1).map((g) => g.split('</details></li>')[0]);
  return groups.map((g) => ({
    total: Number(/^ data-checkpoints="(\d+)"/.exec(g)?.[1] ?? 0),
    pages: [...g.matchAll(/href="([a-z0-9-]+\.html)"/g)].map((m) => m[1]),
  }));
}

/** The checkpoints of a page as the page is now: id, kind, question text, choice or number. */
function listed(page) {
  return page.$$eval('main [data-checkpoint]', (cs) => cs.map((c) => ({
    id: c.dataset.checkpoint,
    question: c.querySelector('.checkpoint-question').textContent,
    choice: c.querySelector('.checkpoint-body').dataset.decimals === '',
  })));
}

/** Answers checkpoint `id` with `value` (typed, or the option with that text) and returns the result. */
async function answer(page, id, value) {
  const cp = `[data-checkpoint="${id}"]`;
  if (await page.$(`${cp} [data-answer]`)) await page.fill(`${cp} [data-answer]`, value);
  else await page.locator(`${cp} [data-choice]`, { hasText: value }).first().click();
  await page.click(`${cp} [data-action=check]`);
  return page.$eval(cp, (c) => ({ result: c.dataset.result ?? null, status: (c.shadowRoot || c).querySelector('[role=status]').textContent }));
}

async function revealed(page, id) {
  await page.click(`[data-checkpoint="${id}"] [data-action=reveal]`);
  return page.$eval(`[data-checkpoint="${id}"]`, (host) => {
    const c = host.shadowRoot || host;
    return {
      visible: !c.querySelector('[data-solution]').hidden && c.querySelector('[data-solution]').offsetHeight > 0,
      value: c.querySelector('[data-solution] [data-value]').textContent,
      steps: c.querySelectorAll('[data-solution] li').length,
    };
  });
}

/** A wrong answer for the checkpoint as it is now: a known slip with its diagnosis, or something plainly wrong. */
function wrongFor(page, id) {
  return page.$eval(`[data-checkpoint="${id}"]`, (c) => {
    const body = c.querySelector('.checkpoint-body');
    const slip = body.querySelector('[data-slip]');
    if (body.dataset.decimals === '') {
      const option = [...body.querySelectorAll('[data-choice]')].find((b) => b.dataset.choice !== body.dataset.expect);
      const why = body.querySelector(`[data-slip="${option.dataset.choice}"]`)?.textContent ?? null;
      return { value: option.textContent, why };
    }
    return slip ? { value: slip.dataset.slip, why: slip.textContent } : { value: '987654', why: null };
  });
}

export default async function checkpoints({ page, base, mode, browser }) {
  const groups = await articles(base);
  const pages = [...new Set(groups.flatMap((g) => g.pages))];
  const onPage = {};

  await check(`[${mode}] at least 30 checkpoints prerendered, at least 5 per article, counted in the contents; each article ends with a recap (formulas linked, three checkpoints); each readable without JavaScript with its solution`, async () => {
    let all = 0;
    for (const g of groups) {
      let mine = 0;
      for (const route of g.pages) {
        const html = await (await fetch(`${base}/${route}`)).text();
        const ids = [...html.matchAll(/<section class="checkpoint" data-checkpoint="([a-z0-9-]+)"/g)].map((m) => m[1]);
        if (ids.length) {
          onPage[route] = ids;
          assert(html.includes('<script type="module" src="static/checkpoints.js"></script>') && html.includes('static/checkpoints.css'), `${route}: loads the checkpoints' script and sheet`);
          for (const id of ids) {
            const section = html.slice(html.indexOf(`data-checkpoint="${id}"`)).split('</section>')[0];
            assert(/<div class="checkpoint-question"><(p|table)/.test(section) && /<strong data-value>[^<]+<\/strong>/.test(section), `${route} ${id}: a question and an answer in the HTML`);
          }
        } else {
          assert(!html.includes('checkpoints.js'), `${route}: no checkpoint, no script`);
        }
        mine += ids.length;
      }
      assert(mine >= 5 && mine === g.total, `an article with ${mine} checkpoints (the contents say ${g.total})`);
      // Item 4: the article's last page ends with a recap, its key formulas linked to the article's
      // pages (each with a formula), then three checkpoints.
      const last = g.pages.at(-1);
      const recap = (await (await fetch(`${base}/${last}`)).text()).split('>Recapitulação</h')[1]?.split('<nav class="pager"')[0] ?? '';
      const formulas = [...recap.matchAll(/<li><a href="([a-z0-9-]+\.html)">[^<]+<\/a>: <math/g)].map((m) => m[1]);
      assert(formulas.length >= 4 && formulas.every((f) => g.pages.includes(f)), `${last}: a recap with formulas linked to the article's pages (${formulas.join(', ')})`);
      assert((recap.match(/<section class="checkpoint"/g) || []).length === 3, `${last}: three checkpoints in the recap`);
      all += mine;
    }
    assert(all >= 30, `${all} checkpoints`);
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 900 } });
    const off = await context.newPage();
    await off.goto(`${base}/queries-keys-values.html`);
    // The <noscript> stylesheet may apply a moment after the load event.
    let solution = '';
    for (let i = 0; i < 50 && !solution; i++, await off.waitForTimeout(100)) solution = await off.$eval('[data-checkpoint] [data-solution]', (s) => (s.offsetHeight > 0 ? s.textContent : ''));
    assert(solution.includes('Resposta:'), 'without JavaScript the worked solution shows');
    assert(await off.$eval('[data-checkpoint] .checkpoint-actions', (a) => getComputedStyle(a).display === 'none'), 'and the buttons that need it do not');
    await context.close();
  });

  await check(`[${mode}] every checkpoint: a wrong answer is «errado» with its diagnosis, the revealed answer is «certo», «outro exemplo» changes the question and clears the result`, async () => {
    let count = 0;
    const problems = [];
    for (const [route, ids] of Object.entries(onPage)) {
      await page.goto(`${base}/${route}`);
      // Every widget drawn first: one that finishes above a checkpoint while it is being clicked
      // moves the checkpoint, and the click lands beside its button (CI saw it once under WebGPU).
      await pageSettled(page, route);
      await page.waitForFunction(() => document.querySelector('#toc .toc-checks'));
      for (const id of ids) {
        count++;
        const wrong = await wrongFor(page, id);
        const w = await answer(page, id, wrong.value);
        if (w.result !== 'errado' || !w.status) problems.push(`${id}: «${wrong.value}» gave ${w.result} «${w.status}»`);
        if (wrong.why && !w.status.includes(wrong.why)) problems.push(`${id}: the slip «${wrong.value}» is not diagnosed: «${w.status}»`);
        const shown = await revealed(page, id);
        if (!shown.visible || shown.steps < 2) problems.push(`${id}: the solution does not show`);
        const r = await answer(page, id, shown.value);
        if (r.result !== 'certo') problems.push(`${id}: the revealed «${shown.value}» gave ${r.result} «${r.status}»`);
        const before = (await listed(page)).find((c) => c.id === id).question;
        await page.click(`[data-checkpoint="${id}"] [data-action=another]`);
        await page.waitForFunction((i) => document.querySelector(`[data-checkpoint="${i}"]`).dataset.instance === '1', id);
        const after = await page.$eval(`[data-checkpoint="${id}"]`, (c) => ({ question: c.querySelector('.checkpoint-question').textContent, result: c.dataset.result ?? null, status: c.querySelector('[role=status]').textContent, hidden: c.querySelector('[data-solution]').hidden }));
        if (after.question === before || after.result !== null || after.status !== '' || !after.hidden) problems.push(`${id}: «outro exemplo» left ${JSON.stringify(after)}`);
        // The new instance is judged by its own answer.
        const again = await revealed(page, id);
        const r2 = await answer(page, id, again.value);
        if (r2.result !== 'certo') problems.push(`${id} (instance 1): «${again.value}» gave ${r2.result}`);
      }
    }
    assert(count >= 30, `${count} checkpoints tried`);
    assert(problems.length === 0, problems.join('\n'));
  });

  await check(`[${mode}] every checkpoint fits a 390-px phone, its solution open (a wide table scrolls inside the prose), and none reaches into the pager below it`, async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const phone = await context.newPage();
    const problems = [];
    const overlaps = [];
    assert(Object.keys(onPage).length >= 20, `${Object.keys(onPage).length} pages with checkpoints (the first check lists them)`);
    for (const route of Object.keys(onPage)) {
      await phone.goto(`${base}/${route}`);
      // Not scrolled to: a checkpoint far below is laid out where it is, so its buttons stay
      // above the previous/next links (Lighthouse's target-size audit once found them overlapping).
      await phone.waitForSelector('[data-checkpoint] button');
      overlaps.push(...await phone.evaluate(() => {
        const pager = document.querySelector('.pager')?.getBoundingClientRect().top ?? Infinity;
        return [...document.querySelectorAll('[data-checkpoint]')].filter((c) => [...c.querySelectorAll('button, input')].some((b) => b.getBoundingClientRect().bottom > pager)).map((c) => c.dataset.checkpoint);
      }));
      await phone.$$eval('[data-checkpoint] [data-solution]', (ss) => ss.forEach((s) => { s.hidden = false; }));
      const wide = await phone.$$eval('[data-checkpoint]', (cs) => cs.filter((c) => c.scrollWidth > c.clientWidth + 1 || c.getBoundingClientRect().right > innerWidth + 1).map((c) => c.dataset.checkpoint));
      problems.push(...wide);
    }
    await context.close();
    assert(problems.length === 0, `wider than the phone: ${problems.join(', ')}`);
    assert(overlaps.length === 0, `buttons below the pager's top: ${overlaps.join(', ')}`);
  });

  await check(`[${mode}] numbers with a comma or a point; empty and non-numbers get a message, not a result; progress per article in the contents`, async () => {
    const context = await browser.newContext();
    const fresh = await context.newPage();
    await fresh.goto(`${base}/atencao-escalonada.html`);
    const id = 'atencao-escalonada-score-escalonado';
    const value = await fresh.$eval(`[data-checkpoint="${id}"] [data-value]`, (v) => v.textContent);
    assert((await answer(fresh, id, '')).result === null, 'empty: no result');
    const junk = await answer(fresh, id, 'abc');
    assert(junk.result === null && junk.status.includes('não é um número'), junk.status);
    // Two places where four are asked: «quase», unless those two already say it all.
    const two = Number(value.replace(',', '.')).toFixed(2).replace('.', ',');
    if (Number(two.replace(',', '.')) !== Number(value.replace(',', '.'))) {
      const short = await answer(fresh, id, two);
      assert(short.result === 'errado' && short.status === 'Quase: escreva com 4 casas decimais.', `fewer places («${two}» for «${value}»): «${short.status}»`);
    }
    const last = await answer(fresh, id, (Number(value.replace(',', '.')) + 0.0001).toFixed(4));
    assert(last.result === 'errado' && last.status.startsWith('Quase'), `the last place off by one: «${last.status}»`);
    assert((await answer(fresh, id, value.replace(',', '.'))).result === 'certo', 'a point is a decimal point');
    const toc = await fresh.$eval('#toc .toc-group:has([aria-current=page]) .toc-checks', (m) => m.textContent);
    assert(/^✎1\/\d+ \(1 de \d+ exercícios resolvidos\)$/.test(toc), `the contents: «${toc}»`);
    await fresh.goto(`${base}/bloco-transformer.html`);
    const later = await fresh.$eval('#toc .toc-group:has([aria-current=page]) .toc-checks', (m) => m.textContent);
    assert(later.startsWith('✎1/'), `kept across pages: «${later}»`);
    await context.close();
  });

  await check(`[${mode}] storage refused: checkpoints still judge, nothing throws`, async () => {
    const context = await browser.newContext();
    await context.addInitScript(() => {
      for (const name of ['getItem', 'setItem']) Storage.prototype[name] = () => { throw new DOMException('refused', 'SecurityError'); };
    });
    const fresh = await context.newPage();
    const errors = [];
    fresh.on('pageerror', (e) => errors.push(String(e)));
    await fresh.goto(`${base}/idf.html`);
    const id = 'idf-idf';
    const { value } = await revealed(fresh, id);
    assert((await answer(fresh, id, value)).result === 'certo', 'judged');
    await fresh.click(`[data-checkpoint="${id}"] [data-action=another]`);
    await fresh.waitForFunction((i) => document.querySelector(`[data-checkpoint="${i}"]`).dataset.instance === '1', id);
    assert(errors.length === 0, errors.join('\n'));
    await context.close();
  });

  await check(`[${mode}] a blog post embeds a checkpoint: built from its data, judged, another example`, async () => {
    await page.goto(`${base}/static/blog/exemplo.html`);
    const id = 'forma-matricial-e-mascara-linha-mascarada';
    await page.waitForSelector(`[data-checkpoint="${id}"] .checkpoint-body`);
    const label = await page.$eval(`[data-checkpoint="${id}"]`, (c) => c.getAttribute('aria-label'));
    assert(label === 'Pare e calcule: uma linha mascarada', label);
    const { value } = await revealed(page, id);
    assert((await answer(page, id, value)).result === 'certo', 'judged in the post');
    await page.click(`[data-checkpoint="${id}"] [data-action=another]`);
    await page.waitForFunction((i) => document.querySelector(`[data-checkpoint="${i}"]`).dataset.instance === '1', id);
    assert((await answer(page, id, 'abc')).status.includes('não é um número'), 'judged again in the post');
    assert(await page.$eval(`[data-checkpoint="${id}"]`, (c) => c.shadowRoot && getComputedStyle(c.shadowRoot.querySelector('.checkpoint-label')).fontWeight === '700'), 'its stylesheet is adopted, in its shadow root');
    assert(await page.evaluate(() => document.adoptedStyleSheets.length === 0 && document.styleSheets.length === 1), 'nothing added to the post\'s document');
  });

  for (const [scheme, width] of [['light', 1280], ['dark', 1280], ['light', 390], ['dark', 390]]) {
    await check(`[${mode}] axe on a page with checkpoints, a result and a solution shown: no serious violation; nothing overflows (${scheme}, ${width} px)`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const fresh = await context.newPage();
      await fresh.goto(`${base}/multi-head-em-lote.html`);
      const problems = [];
      for (const id of ['multi-head-em-lote-formato-cabecas']) {
        const wrong = await wrongFor(fresh, id);
        await answer(fresh, id, wrong.value);
        await revealed(fresh, id);
      }
      await fresh.goto(`${base}/codificacao-posicional.html`);
      const id = 'codificacao-posicional-pe-valor';
      await answer(fresh, id, '0,1234');
      await revealed(fresh, id);
      await fresh.evaluate(() => new Promise((resolve) => requestIdleCallback(resolve, { timeout: 3000 })));
      await fresh.addScriptTag({ content: AXE });
      const found = await fresh.evaluate(async () => {
        const result = await window.axe.run(document.querySelectorAll('[data-checkpoint], #toc'), { resultTypes: ['violations'] });
        return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
      });
      problems.push(...found);
      const overflow = await fresh.$$eval('[data-checkpoint]', (cs) => cs.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.dataset.checkpoint));
      if (overflow.length) problems.push(`wider than the page: ${overflow.join(', ')}`);
      await fresh.locator(`[data-checkpoint="${id}"]`).screenshot({ path: path.join(ARTIFACTS, `checkpoint-${scheme}-${width}.png`) });
      await context.close();
      assert(problems.length === 0, problems.join('\n'));
    });
  }
}
