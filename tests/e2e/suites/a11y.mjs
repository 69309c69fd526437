// Accessibility: axe-core (from the npm registry, run in Debian's Chromium) on the home page,
// five widget pages and the blog example with embedded widgets, in the light and the dark
// theme; no serious or critical violation. Also the widget kit's contract: every heatmap has
// a legend and a colour domain that follows its meaning, nothing overflows at 390 and 1280 px,
// arrow keys move between the cells of a matrix editor (one Tab stop), typed numbers are
// computed in full, and hovering a result outlines where it came from.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ARTIFACTS, check, assert, readTable, waitWidget, pageSettled } from '../lib.mjs';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const PAGES = ['', 'queries-keys-values.html', 'tf-idf-e-cosseno.html', 'matriz-de-transicao.html', 'decodificador.html', 'atencao-multicabeca.html'];
// The soft dictionary and the gradient checker (issue 22).
const SOFT_LOOKUP_AND_GRADIENT_PAGES = ['dicionario-suave.html', 'atencao-diferenciavel.html'];
PAGES.push(...SOFT_LOOKUP_AND_GRADIENT_PAGES);
// The page on the original articles and the notation table (issue 37).
PAGES.push('artigos-originais.html', 'notacao.html');
const BLOG = 'static/blog/exemplo.html';

/** The serious and critical violations axe finds on the page as it is now. */
async function violations(page) {
  // The page marks the boxes that scroll sideways as Tab stops when it is idle (static/site.js).
  await page.evaluate(() => new Promise((resolve) => requestIdleCallback(() => requestIdleCallback(resolve))));
  await page.addScriptTag({ content: AXE });
  const found = await page.evaluate(async () => {
    // Shadow roots (the embedded widgets) are checked too: axe walks them by default.
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

async function settled(page, route) {
  await pageSettled(page, route);
  await page.waitForFunction(() => [...document.querySelectorAll('[data-widget]')].every((w) => w.hasAttribute('data-on-demand') || ['ready', 'error'].includes(w.dataset.state)), null, { timeout: 120000 });
}

/** Scrolls to each widget of an embedding page (they mount lazily) and waits for it. */
async function mountEvery(page) {
  // The page's own elements (Playwright's selectors would also find the copies inside the widgets' shadow roots).
  const count = await page.evaluate(() => document.querySelectorAll('[data-widget]').length);
  for (let i = 0; i < count; i++) {
    await page.evaluate((n) => document.querySelectorAll('[data-widget]')[n].scrollIntoView(), i);
    await page.waitForFunction((n) => ['ready', 'error'].includes(document.querySelectorAll('[data-widget]')[n]?.dataset.state), i, { timeout: 60000 });
  }
}

/** Each heatmap shown (a part a widget hides, like the gradient checker's matrices in its
 * whole-model part, is not drawn): its legend, and the domain its meaning fixes. */
async function heatmaps(page) {
  return page.$$eval('figure.mv[data-matrix]', (figs) => figs.filter((f) => !f.closest('[hidden]')).map((f) => ({
    key: f.dataset.matrix,
    widget: f.closest('[data-widget]')?.dataset.widget,
    domain: f.dataset.domain,
    legend: !!f.querySelector('.mv-legend .mv-legend-bar') && f.querySelector('.mv-legend').textContent.trim().length > 0,
  })));
}

export default async function a11y({ page, base, mode, browser }) {
  // The page's structure does not depend on the backend: axe runs once, in the CPU mode. On a
  // phone, long formulas, tables and results scroll sideways: the keyboard must reach them too.
  for (const [scheme, width] of mode === 'cpu' ? [['light', 1280], ['dark', 1280], ['dark', 390]] : []) {
    await check(`[${mode}] axe: no serious or critical violation on six pages and the blog example (${scheme}, ${width} px)`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const fresh = await context.newPage();
      const problems = [];
      for (const route of PAGES) {
        await fresh.goto(`${base}/${route}`);
        await settled(fresh, route);
        for (const v of await violations(fresh)) problems.push(`${route || 'início'}: ${v.impact} ${v.id} (${v.help}) em ${v.nodes.join(', ')}`);
        // The home page's widget waits for its button (issue 22): checked again once it runs.
        if (await fresh.$('[data-widget][data-on-demand] .on-demand-start')) {
          await fresh.click('[data-widget][data-on-demand] .on-demand-start');
          await fresh.waitForSelector('main [data-widget][data-state=ready]', { timeout: 60000 });
          for (const v of await violations(fresh)) problems.push(`${route || 'início'} (widget montado): ${v.impact} ${v.id} (${v.help}) em ${v.nodes.join(', ')}`);
        }
      }
      await fresh.goto(`${base}/${BLOG}`);
      await mountEvery(fresh);
      for (const v of await violations(fresh)) problems.push(`blog: ${v.impact} ${v.id} (${v.help}) em ${v.nodes.join(', ')}`);
      await context.close();
      assert(problems.length === 0, problems.join('\n'));
    });
  }

  if (mode === 'cpu') await check(`[${mode}] widget headings follow the page's outline: none skips a level (with the «por dentro» panels open), two widgets in a row are siblings`, async () => {
    const problems = [];
    for (const route of ['queries-keys-values.html', 'encoder-e-decoder.html', 'bloco-transformer.html', 'decodificador.html', 'treinar-no-navegador.html']) {
      await page.goto(`${base}/${route}`);
      await settled(page, route);
      // The "por dentro" panels build their kernels' heading when they open: open them all (on
      // bloco-transformer the widget's title is an h2, so that heading must be an h3).
      await page.$$eval('main details.hood', (ds) => ds.forEach((d) => { d.open = true; }));
      if (await page.$('main details.hood')) await page.waitForSelector('main details.hood .hood-heading', { timeout: 30000 });
      await page.waitForTimeout(300);
      const headings = await page.$$eval('main :is(h1, h2, h3, h4, h5, h6)', (hs) => hs.filter((h) => !h.closest('details:not([open])'))
        .map((h) => ({ level: Number(h.tagName[1]), text: h.textContent.trim().slice(0, 40), widget: h.closest('[data-widget]')?.dataset.widget ?? null })));
      headings.forEach((h, i) => {
        if (i > 0 && h.level > headings[i - 1].level + 1) problems.push(`${route}: h${h.level} «${h.text}» after h${headings[i - 1].level} «${headings[i - 1].text}»`);
      });
      if (route === 'queries-keys-values.html') {
        const titles = headings.filter((h) => h.widget && h.level === 3).map((h) => h.widget);
        if (titles.join() !== 'attention,self-attention-steps') problems.push(`${route}: widget titles at h3 ${titles.join()} (both sit under «Experimente», an h2)`);
      }
    }
    assert(problems.length === 0, problems.join('\n'));
  });

  await check(`[${mode}] every heatmap has a legend and a colour domain that follows its meaning`, async () => {
    const all = [];
    for (const route of ['queries-keys-values.html', 'tf-idf-e-cosseno.html', 'matriz-de-transicao.html', 'autorregressao-e-mascara.html', 'codificacao-posicional.html', 'vetorizacao-por-documento.html', ...SOFT_LOOKUP_AND_GRADIENT_PAGES]) {
      await page.goto(`${base}/${route}`);
      await settled(page, route);
      all.push(...(await heatmaps(page)).map((h) => ({ ...h, route })));
    }
    assert(all.length >= 15, `${all.length} heatmaps`);
    for (const h of all) {
      assert(h.legend, `${h.route} ${h.widget}/${h.key}: no legend`);
      assert(/^-?[\d.e+-]+,-?[\d.e+-]+$/.test(h.domain ?? ''), `${h.route} ${h.widget}/${h.key}: data-domain "${h.domain}"`);
    }
    const domain = (widget, key) => all.find((h) => h.widget === widget && h.key === key)?.domain;
    // Probabilities on 0–1 whatever their largest value; signed values symmetric around 0.
    assert(domain('attention', 'weights') === '0,1', `attention weights: ${domain('attention', 'weights')}`);
    const [lo, hi] = domain('attention', 'scores').split(',').map(Number);
    assert(lo === -hi && hi > 0, `scores: ${lo},${hi}`);
    assert(domain('positional-encoding', 'pe-small') === '-1,1' && domain('positional-encoding', 'pe') === '-1,1', `PE: ${domain('positional-encoding', 'pe')}`);
    assert(domain('masked-softmax', 'weights') === '0,1', 'masked softmax weights');
  });

  await check(`[${mode}] nothing overflows its widget at 390 and 1280 px; at 390 no heatmap hides a column`, async () => {
    const problems = [];
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      // razao-de-verossimilhanca: rotated column labels and long bar labels at 390 px.
      // The widest matrices of the site (a 28-word transition matrix, the FFN's hidden layer, TF-IDF
      // over a vocabulary) must keep every column in view on a phone (issue 37).
      const widest = width === 390 ? ['token-start.html', 'tf-idf-busca.html', 'tf-bruta-e-normalizada.html', 'vetorizacao-por-documento.html', 'padding-e-truncamento.html'] : [];
      for (const route of ['queries-keys-values.html', 'encoder-e-decoder.html', 'tf-idf-e-cosseno.html', 'decodificador.html', 'atencao-multicabeca.html', 'bloco-transformer.html', 'razao-de-verossimilhanca.html', ...SOFT_LOOKUP_AND_GRADIENT_PAGES, ...widest]) {
        await page.goto(`${base}/${route}`);
        await settled(page, route);
        const wide = await page.evaluate(() => {
          const out = [];
          if (document.documentElement.scrollWidth > window.innerWidth) out.push(`page ${document.documentElement.scrollWidth - window.innerWidth}px`);
          for (const w of document.querySelectorAll('[data-widget]')) {
            // A widget may scroll a wide matrix inside its frame; the widget itself must fit.
            if (w.scrollWidth > w.clientWidth + 1) out.push(`${w.dataset.widget} ${w.scrollWidth - w.clientWidth}px`);
          }
          if (window.innerWidth <= 400) {
            for (const f of document.querySelectorAll('.mv-frame')) {
              if (f.offsetParent && f.scrollWidth > f.clientWidth + 1) out.push(`${f.closest('[data-widget]')?.dataset.widget}/${f.closest('[data-matrix]')?.dataset.matrix} hides ${f.scrollWidth - f.clientWidth}px of columns`);
            }
          }
          return out;
        });
        for (const p of wide) problems.push(`${width}px ${route}: ${p}`);
      }
      await page.screenshot({ path: path.join(ARTIFACTS, `kit-${width}-${mode}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    assert(problems.length === 0, problems.join('\n'));
  });

  await check(`[${mode}] heatmaps follow their panel when the window changes width (a phone turned)`, async () => {
    // The size of every heatmap canvas, as drawn for the current window.
    const sizes = () => page.$$eval('figure[data-matrix] canvas.mv-canvas', (cs) => cs.map((c) => `${c.closest('figure').dataset.matrix} ${c.style.width}`));
    const route = 'encoder-e-decoder.html';
    const fresh = {};
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${base}/${route}`);
      await settled(page, route);
      fresh[width] = await sizes();
    }
    assert(fresh[390].length > 0 && JSON.stringify(fresh[390]) !== JSON.stringify(fresh[1280]), `the sizes do not depend on the width: ${fresh[390]}`);
    // Loaded at 1280 (above), then turned to 390 and back: each time the same sizes as a fresh load.
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll('figure[data-matrix] canvas.mv-canvas')].map((c) => `${c.closest('figure').dataset.matrix} ${c.style.width}`)) === want, JSON.stringify(fresh[width]), { timeout: 5000 })
        .catch(async () => assert(false, `after turning to ${width}px: ${await sizes()} instead of ${fresh[width]}`));
    }
  });

  await check(`[${mode}] a matrix editor is one Tab stop, arrow keys move between its cells`, async () => {
    await page.goto(`${base}/queries-keys-values.html`);
    await waitWidget(page, '[data-widget=attention]');
    const x = '[data-widget=attention] [data-editor=x]';
    const tabbable = await page.$$eval(`${x} .editor-cell`, (cs) => cs.filter((c) => c.tabIndex === 0).length);
    assert(tabbable === 1, `${tabbable} cells in the Tab order`);
    await page.focus(`${x} [data-cell="0.0"]`);
    await page.keyboard.press('ArrowDown');
    assert(await page.evaluate(() => document.activeElement.dataset.cell) === '1.0', 'ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowRight');
    assert(await page.evaluate(() => document.activeElement.dataset.cell) === '1.1', 'ArrowRight at the end of the text');
    await page.keyboard.press('ArrowUp');
    assert(await page.evaluate(() => document.activeElement.dataset.cell) === '0.1', 'ArrowUp');
    const stops = await page.$$eval(`${x} .editor-cell`, (cs) => cs.filter((c) => c.tabIndex === 0).map((c) => c.dataset.cell));
    assert(JSON.stringify(stops) === '["0.1"]', `the Tab stop follows the focus: ${stops}`);
  });

  await check(`[${mode}] numbers in data-matrices are computed as given (0,00004 × 10000 = 0,4)`, async () => {
    // A widget added to the blog post (the embedding script mounts it), with the matrices.
    await page.goto(`${base}/${BLOG}`);
    await page.waitForSelector('[data-widget][data-state=ready]', { timeout: 60000 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.evaluate(() => {
      const host = document.createElement('div');
      host.dataset.widget = 'attention';
      host.dataset.matrices = JSON.stringify({ x: [[0.00004, 1]], w_q: [[1], [0]], w_k: [[1], [0]], w_v: [[10000], [0]] });
      host.id = 'precision';
      document.body.prepend(host);
    });
    await page.waitForSelector('#precision[data-state=ready]', { timeout: 30000 });
    const output = await readTable(page, 'output', '#precision');
    assert(output[0][0] === '0,4000', `output ${JSON.stringify(output)}`);
    assert(await page.inputValue('#precision [data-editor=x] [data-cell="0.0"]') === '0,00004', 'the cell shows the value in full');
  });

  await check(`[${mode}] hovering a result outlines the rows and columns it came from`, async () => {
    await page.goto(`${base}/queries-keys-values.html`);
    const host = '[data-widget=attention]';
    await waitWidget(page, host);
    // The keyboard's way onto output cell (row 1, column 2); the pointer takes the same path.
    await page.focus(`${host} [data-matrix=output] canvas`);
    for (const key of ['ArrowDown', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(key);
    const weights = await page.getAttribute(`${host} [data-matrix=weights]`, 'data-highlight');
    const v = await page.getAttribute(`${host} [data-matrix=v]`, 'data-highlight');
    assert(weights === '[1]|[]', `A: ${weights}`);
    assert(v === '[]|[2]', `V: ${v}`);
    const x = await page.$$eval(`${host} [data-editor=w_v] .editor-cell.highlight`, (cs) => cs.map((c) => c.dataset.cell));
    await page.focus(`${host} [data-matrix=v] canvas`);
    await page.keyboard.press('ArrowRight');
    const column = await page.$$eval(`${host} [data-editor=w_v] .editor-cell.highlight`, (cs) => cs.map((c) => c.dataset.cell).join(' '));
    assert(column === '0.1 1.1 2.1', `V(0, 1) outlines column 1 of W^V: ${column} (${x})`);
  });
}
