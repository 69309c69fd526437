// Foundation: backend badge, table of contents, every page, the attention and masked-softmax widgets, the CPU switch, phone layout, dark theme.
import path from 'node:path';
import fs from 'node:fs';
import { ARTIFACTS, check, assert, parsePt, readTable, readResults, readTwin, readIdf, near, waitWidget, assertMatrix, waitReady, pageSettled } from '../lib.mjs';

// Golden values: ../shared/spec/4-transformer.md, textbook Example 2 (corrected where the article is wrong).
export const GOLDEN = {
  q: [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.5, 0.7, 0.9]],
  k: [[0.9, 0.8, 0.7], [0.6, 0.5, 0.4], [1.5, 1.3, 1.1]],
  v: [[0.2, 0.4, 0.6], [0.1, 0.3, 0.5], [0.3, 0.7, 1.1]],
  scores: [[0.2656, 0.1617, 0.4272], [0.6813, 0.4215, 1.1027], [0.9469, 0.5831, 1.5300]],
  weights: [[0.3250, 0.2929, 0.3820], [0.3035, 0.2340, 0.4625], [0.2868, 0.1994, 0.5138]],
  output: [[0.2089, 0.4853, 0.7617], [0.2228, 0.5154, 0.8079], [0.2314, 0.5342, 0.8370]],
};
export const GOLDEN_CAUSAL = {
  weights: [[1, 0, 0], [0.5646, 0.4354, 0], [0.2868, 0.1994, 0.5138]],
  output: [[0.2, 0.4, 0.6], [0.1565, 0.3565, 0.5565], [0.2314, 0.5342, 0.8370]],
};
export const ATTENTION_PAGE = 'queries-keys-values.html';

export default async function foundation({ page, base, mode }) {
  await check(`[${mode}] <html data-backend> is "${mode}"`, async () => {
    // A page with widgets: a page of text only (the home page) never loads the wasm.
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await page.waitForSelector('html[data-backend]', { timeout: 30000 });
    const backend = await page.getAttribute('html', 'data-backend');
    assert(backend === mode, `data-backend = ${backend}`);
    const badge = await page.textContent('#backend-badge');
    assert(badge === (mode === 'webgpu' ? 'WebGPU' : 'CPU'), `badge says ${badge}`);
  });

  await check(`[${mode}] table of contents lists the five articles and their sections`, async () => {
    await page.goto(`${base}/`);
    const articles = await page.$$eval('#toc .toc-article', (as) => as.map((a) => a.textContent));
    assert(articles.length === 5, `${articles.length} articles: ${articles}`);
    const sections = await page.$$eval('#toc .toc-sections a', (as) => as.length);
    assert(sections >= 40, `only ${sections} section links`);
    const cards = await page.$$eval('.cards .card', (cs) => cs.length);
    assert(cards === 5, `${cards} cards on the home page`);
  });

  await check(`[${mode}] attention widget shows the golden Example 2`, async () => {
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await waitReady(page);
    const computedOn = await page.getAttribute('[data-widget=attention]', 'data-computed-on');
    assert(computedOn === mode, `computed on ${computedOn}`);
    for (const [key, want] of Object.entries(GOLDEN)) assertMatrix(key, await readTable(page, key), want);
  });

  await check(`[${mode}] results dim only while an update takes longer than 150 ms`, async () => {
    // Dimming results for the frame or two of a quick update flickered on every keystroke.
    const seen = await page.evaluate(async () => {
      const widget = document.querySelector('[data-widget=attention]');
      const outputs = widget.querySelector('.widget-outputs');
      const opacity = () => getComputedStyle(outputs).opacity;
      const after = (ms) => new Promise((resolve) => setTimeout(() => resolve(opacity()), ms));
      widget.dataset.state = 'loading';
      const first = opacity();
      const quick = await after(60);
      const slow = await after(240);
      widget.dataset.state = 'ready';
      return { first, quick, slow, ready: opacity() };
    });
    assert(seen.first === '1' && seen.quick === '1' && seen.slow === '0.6' && seen.ready === '1', `opacity ${JSON.stringify(seen)}`);
  });

  await check(`[${mode}] heatmaps are drawn (canvas pixels) and the twin tables toggle`, async () => {
    const stats = await page.$eval('[data-widget=attention] [data-matrix=weights] canvas', (canvas) => {
      const ctx = canvas.getContext('2d');
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
      return { painted, total: data.length / 4, width: canvas.width };
    });
    assert(stats.painted > stats.total * 0.3, `only ${stats.painted}/${stats.total} pixels painted`);
    assert(stats.width > 100, `canvas ${stats.width}px wide`);
    assert(await page.isHidden('table.twin[data-matrix=weights]'), 'twin table visible before toggle');
    await page.click('[data-widget=attention] [data-action=twins]');
    assert(await page.isVisible('table.twin[data-matrix=weights]'), 'twin table hidden after toggle');
    await page.screenshot({ path: path.join(ARTIFACTS, `attention-${mode}.png`), fullPage: true });
  });

  await check(`[${mode}] bar chart shows the chosen query's weights (x₂ by default)`, async () => {
    const bars = async () => page.$$eval('[data-widget=attention] table.twin[data-bars=query-weights] td', (tds) => tds.map((td) => td.textContent));
    assertMatrix('x₂ weights', [await bars()], [GOLDEN.weights[1]]);
    await page.selectOption('[data-widget=attention] [data-control=query]', '2');
    await waitReady(page);
    assertMatrix('x₃ weights', [await bars()], [GOLDEN.weights[2]]);
    const caption = await page.textContent('[data-widget=attention] [data-bars=query-weights] figcaption');
    assert(caption.includes('x₃'), caption);
  });

  await check(`[${mode}] hovering a cell shows its value`, async () => {
    const canvas = await page.$('[data-widget=attention] [data-matrix=weights] canvas');
    const box = await canvas.boundingBox();
    // Bottom-right cell: last row, last column (labels sit left and top; 4px margin right and bottom).
    await canvas.hover({ position: { x: box.width - 12, y: box.height - 12 } });
    const tip = await page.textContent('[data-widget=attention] [data-matrix=weights] .mv-tooltip');
    assert(tip.includes('0,5138'), `tooltip says "${tip}"`);
  });

  await check(`[${mode}] causal mask gives the corrected causal weights and output`, async () => {
    await page.check('[data-widget=attention] [data-control=causal]');
    await waitReady(page);
    assertMatrix('causal weights', await readTable(page, 'weights'), GOLDEN_CAUSAL.weights);
    assertMatrix('causal output', await readTable(page, 'output'), GOLDEN_CAUSAL.output);
    const scores = await readTable(page, 'scores');
    assert(scores[0][1] === '−∞' && scores[0][2] === '−∞' && scores[1][2] === '−∞', `masked scores ${scores}`);
    await page.uncheck('[data-widget=attention] [data-control=causal]');
    await waitReady(page);
  });

  await check(`[${mode}] a non-numeric cell gives a message and keeps the text`, async () => {
    const cell = '[data-widget=attention] [data-editor=x] input >> nth=1';
    await page.fill(cell, '<img src=x onerror=window.__pwned=1>');
    await page.waitForSelector('[data-widget=attention][data-state=error]');
    const message = await page.textContent('[data-widget=attention] .widget-error');
    assert(message.includes('não é um número') && message.includes('linha 1, coluna 2'), message);
    assert((await page.inputValue(cell)).startsWith('<img'), 'the typed text was lost');
    assert(!(await page.evaluate(() => window.__pwned)), 'payload executed');
    await page.fill(cell, '0');
    await waitReady(page);
    assertMatrix('weights after fix', await readTable(page, 'weights'), GOLDEN.weights);
  });

  await check(`[${mode}] every page renders, with MathML and no raw LaTeX`, async () => {
    const routes = await page.$$eval('#toc a', (as) => as.map((a) => a.getAttribute('href')));
    let mathPages = 0;
    for (const route of routes) {
      await page.goto(`${base}/${route}`);
      await pageSettled(page, route, 30000);
      const info = await page.evaluate(() => ({
        math: document.querySelectorAll('main math').length,
        // The text, not innerText: the prose's blocks far from the screen are not rendered
        // (content-visibility), and innerText leaves them out. MathML's TeX annotations are not shown.
        raw: (() => { const m = document.querySelector('main').cloneNode(true); m.querySelectorAll('annotation').forEach((a) => a.remove()); return /\$\$|\\frac|\\sqrt/.test(m.textContent); })(),
        errors: document.querySelectorAll('[data-state=error]').length,
        merror: document.querySelectorAll('main merror').length,
      }));
      assert(!info.raw, `${route}: raw LaTeX in text`);
      assert(info.errors === 0, `${route}: a widget in error state`);
      assert(info.merror === 0, `${route}: a formula failed to render`);
      if (info.math > 0) mathPages++;
    }
    assert(mathPages >= 20, `only ${mathPages} pages have formulas`);
    // An old link (#/slug) to a page that does not exist: the home page says so.
    await page.goto(`${base}/#/nao-existe`);
    await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Página não encontrada');
    const notFound = await page.textContent('main');
    assert(notFound.includes('nao-existe'), 'unknown route not reported');
  });

  await check(`[${mode}] masked softmax: the explicando-transformers mask example`, async () => {
    const host = '[data-widget=masked-softmax]';
    await page.goto(`${base}/autorregressao-e-mascara.html`);
    await waitWidget(page, host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'masked softmax backend');
    assertMatrix('masked weights', await readTable(page, 'weights', host), [[1, 0, 0], [0.0590, 0.9410, 0], [0.1232, 0.7991, 0.0777]]);
    const masked = await readTable(page, 'masked', host);
    assert(masked[0][1] === '−∞' && masked[1][2] === '−∞' && masked[2][0] === '−1,8100', JSON.stringify(masked));
    await page.uncheck(`${host} [data-control=causal]`);
    await waitWidget(page, host);
    const open = await readTable(page, 'weights', host);
    // Without the mask row 1 also sees the future: softmax(6,32; −1,12; 1,32).
    assertMatrix('row 1 unmasked', [open[0]], [[0.9927, 0.0006, 0.0067]]);
  });

  if (mode === 'webgpu') {
    await check('[webgpu] choosing the CPU in the footer recomputes there and is remembered', async () => {
      await page.goto(`${base}/${ATTENTION_PAGE}`);
      await waitReady(page);
      await page.selectOption('#backend-choice', 'cpu');
      await page.waitForSelector('html[data-backend=cpu]');
      await page.waitForSelector('[data-widget=attention][data-computed-on=cpu][data-state=ready]');
      assertMatrix('weights on CPU', await readTable(page, 'weights'), GOLDEN.weights);
      await page.reload();
      await page.waitForSelector('html[data-backend=cpu]');
      assert(await page.inputValue('#backend-choice') === 'cpu', 'choice not remembered');
      await page.selectOption('#backend-choice', 'webgpu');
      await page.waitForSelector('html[data-backend=webgpu]');
      await page.waitForSelector('[data-widget=attention][data-computed-on=webgpu][data-state=ready]');
    });
    await check('[webgpu] left to itself, the site skips a software adapter and the footer says why', async () => {
      const context = await page.context().browser().newContext({ autoBackend: true });
      const fresh = await context.newPage();
      await fresh.goto(`${base}/${ATTENTION_PAGE}`);
      await fresh.waitForSelector('html[data-backend=cpu]', { timeout: 30000 });
      await fresh.waitForSelector('[data-widget=attention][data-computed-on=cpu][data-state=ready]');
      const note = await fresh.textContent('#backend-note');
      assert(note.includes('WebGPU por software: a CPU é mais rápida aqui'), `footer note: ${note}`);
      assert(await fresh.inputValue('#backend-choice') === 'auto', 'automatic choice');
      // The reader can still choose WebGPU.
      await fresh.selectOption('#backend-choice', 'webgpu');
      await fresh.waitForSelector('html[data-backend=webgpu]');
      await fresh.waitForSelector('[data-widget=attention][data-computed-on=webgpu][data-state=ready]');
      assertMatrix('weights on the chosen WebGPU', await readTable(fresh, 'weights'), GOLDEN.weights);
      await context.close();
    });
    await check('[webgpu] ?backend=cpu in the URL forces the CPU', async () => {
      await page.goto(`${base}/${ATTENTION_PAGE}?backend=cpu`);
      await page.waitForSelector('html[data-backend=cpu]');
      await waitReady(page);
      assertMatrix('weights', await readTable(page, 'weights'), GOLDEN.weights);
    });
  }

  await check(`[${mode}] phone-sized screen: menu opens the table of contents`, async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await waitReady(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert(overflow <= 0, `page is ${overflow}px wider than the phone screen`);
    assert(await page.isHidden('#toc'), 'toc visible before opening the menu');
    assert(await page.isHidden('table.twin[data-matrix=weights]'), 'twin table visible on a phone before "ver números"');
    await page.click('#menu-button');
    assert(await page.isVisible('#toc'), 'menu did not open the toc');
    await page.click('#menu-button');
    await page.screenshot({ path: path.join(ARTIFACTS, `attention-${mode}-phone.png`), fullPage: false });
  });

  await check(`[${mode}] dark theme follows prefers-color-scheme`, async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    // Mean luminance of the painted pixels of the Q heatmap, in each theme.
    const meanLuminance = () => page.$eval('[data-widget=attention] [data-matrix=q] canvas', (canvas) => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let sum = 0;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] === 255) { sum += 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2]; n++; }
      }
      return sum / n;
    });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await page.reload();
    await waitReady(page);
    const light = await meanLuminance();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => matchMedia('(prefers-color-scheme: dark)').matches);
    // The theme switch alone (no reload) must redraw the canvases.
    await page.waitForFunction(() => document.querySelector('[data-widget=attention]').dataset.state === 'ready');
    await page.waitForTimeout(300);
    await waitReady(page);
    const dark = await meanLuminance();
    assert(dark < light - 40, `heatmap luminance light ${light.toFixed(0)} vs dark ${dark.toFixed(0)}`);
    const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g).map(Number);
    assert(r + g + b < 150, `background ${bg} is not dark`);
    await page.locator('[data-widget=attention]').screenshot({ path: path.join(ARTIFACTS, `attention-${mode}-dark.png`) });
    await page.emulateMedia({ colorScheme: 'light' });
  });

}
