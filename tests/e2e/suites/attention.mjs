// The attention widgets (src/web/widgets/attention): the attention widget (Example 2, golden
// values from ../shared/spec/4-transformer.md, corrected where the article is wrong; its heatmaps,
// bars, tooltip, causal mask and a non-numeric cell), the masked softmax, the soft dictionary
// ("Explicando Transformers": Example 2 read as a dictionary) and the gradient checker ("Prestando
// atenção", differentiable attention: the softmax Jacobian and central differences, and a whole
// decoder's backward pass). Everything not golden is recomputed here from the numbers shown.
import path from 'node:path';
import { ARTIFACTS, check, assert, assertNear, parsePt, readTable, readTwin, waitWidget, assertMatrix, waitReady } from '../lib.mjs';

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


const DICT = '[data-widget=soft-dictionary]';
const GRAD = '[data-widget=gradient-check]:not([data-part])';
const GRAD_MODEL = '[data-widget=gradient-check][data-part=modelo]';
const DICT_PAGE = 'dicionario-suave.html';
const GRAD_PAGE = 'atencao-diferenciavel.html';

/** Waits until the widget has left "loading" (ready or error) and returns its state. */
async function settled(page, host) {
  await page.waitForFunction((h) => ['ready', 'error'].includes(document.querySelector(h)?.dataset.state), host, { timeout: 60000 });
  return page.getAttribute(host, 'data-state');
}

async function errorText(page, host) {
  return page.$eval(host, (el) => el.querySelector(':scope > .widget-error')?.textContent ?? '');
}

/** Types `value` into an editor cell (or sets a control) and fires the event of an edit. */
async function edit(page, selector, value, event = 'input') {
  await page.$eval(selector, (el, [v, e]) => { el.value = v; el.dispatchEvent(new Event(e, { bubbles: true })); }, [value, event]);
}

/** The values of a matrix editor, row by row. */
async function editorValues(page, host, key) {
  return page.$$eval(`${host} [data-editor=${key}] .editor-cell`, (cells) => {
    const rows = [];
    for (const c of cells) {
      const [r, col] = c.dataset.cell.split('.').map(Number);
      (rows[r] ??= [])[col] = Number(c.value.replace(',', '.').replace('−', '-'));
    }
    return rows;
  });
}

/** Runs an edit and waits for its result. The widgets leave "ready" in the edit's own event
 * handler (loading, or error at once), so waiting for ready or error afterwards sees the new one. */
async function afterEdit(page, host, action) {
  await action();
  return settled(page, host);
}

export default async function attention({ page, base, mode }) {
  await check(`[${mode}] attention widget shows the golden Example 2`, async () => {
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await waitReady(page);
    const computedOn = await page.getAttribute('[data-widget=attention]', 'data-computed-on');
    assert(computedOn === mode, `computed on ${computedOn}`);
    for (const [key, want] of Object.entries(GOLDEN)) assertMatrix(key, await readTable(page, key), want);
  });

  await check(`[${mode}] Q, K, V and the output share one colour domain; scores and weights keep theirs`, async () => {
    const domain = (key) => page.getAttribute(`[data-widget=attention] .mv[data-matrix=${key}]`, 'data-domain');
    const [q, k, v, out, weights] = await Promise.all(['q', 'k', 'v', 'output', 'weights'].map(domain));
    assert(q && q === k && k === v && v === out, `domains ${q} / ${k} / ${v} / ${out}`);
    const m = Math.max(...(await Promise.all(['q', 'k', 'v', 'output'].map((key) => readTable(page, key)))).flat(2).map((t) => Math.abs(parsePt(t))));
    assertNear('the shared half-range is the largest |value| of the four', q.split(',')[1], m, 1e-3);
    assert(weights === '0,1', `weights on 0…1, got ${weights}`);
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
    // Its cause, with the numbers: the softmax share of x₃'s own score among its row's scores.
    assert(tip.includes('e^s₃₃ / Σ e^s₃ₖ = e^1,53 / (e^0,947 + e^0,583 + e^1,53)'), `tooltip cause "${tip}"`);
    // A score's cell: q₁·k₂ written out and divided by √dₖ = √3; its operands outlined.
    const scores = await page.$('[data-widget=attention] [data-matrix=scores] canvas');
    const sbox = await scores.boundingBox();
    await scores.hover({ position: { x: sbox.width * 0.5, y: sbox.height * 0.2 } });
    const scoreTip = await page.textContent('[data-widget=attention] [data-matrix=scores] .mv-tooltip');
    assert(scoreTip.includes('0,1617') && scoreTip.includes('q₁·k₂ / √dₖ = (0,1×0,6 + 0,2×0,5 + 0,3×0,4) / 1,732'), `score tooltip "${scoreTip}"`);
    assert(await page.getAttribute('[data-widget=attention] [data-matrix=q]', 'data-highlight') === '[0]|[]', 'q₁ outlined');
    assert(await page.getAttribute('[data-widget=attention] [data-matrix=k]', 'data-highlight') === '[1]|[]', 'k₂ outlined');
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


  await check(`[${mode}] soft dictionary: Example 2's keys, values and q₂ give 1,18 / 0,73 / 1,91, weights 0,3035 / 0,2340 / 0,4625, soft lookup [0,2228; 0,5154; 0,8079], hard v₃`, async () => {
    await page.goto(`${base}/${DICT_PAGE}`);
    await waitWidget(page, DICT);
    assert(await page.getAttribute(DICT, 'data-computed-on') === mode, `computed on ${await page.getAttribute(DICT, 'data-computed-on')}`);
    const scores = await readTwin(page, DICT, 'scores');
    const raw = scores['q·kᵢ'];
    assertNear('q·k₁', raw['k₁'], 1.18);
    assertNear('q·k₂', raw['k₂'], 0.73);
    assertNear('q·k₃', raw['k₃'], 1.91);
    const w = (await readTwin(page, DICT, 'weights')).w;
    assertNear('w₁', w['k₁'], 0.3035);
    assertNear('w₂', w['k₂'], 0.2340);
    assertNear('w₃', w['k₃'], 0.4625);
    const lookups = await readTwin(page, DICT, 'lookups');
    const soft = lookups['suave'];
    const hard = lookups['rígida (v₃)'];
    assert(hard, `hard lookup row: ${Object.keys(lookups)}`);
    [0.2228, 0.5154, 0.8079].forEach((want, c) => assertNear(`suave ${c + 1}`, soft[String(c + 1)], want));
    [0.3, 0.7, 1.1].forEach((want, c) => assertNear(`rígida ${c + 1}`, hard[String(c + 1)], want));
    assert(await page.$eval(`${DICT} details.hood`, (d) => !d.open), 'por dentro starts closed');
    const summary = await page.textContent(`${DICT} details.hood > summary`);
    assert(/8 operações/.test(summary), summary);
  });

  await check(`[${mode}] soft dictionary: the soft lookup is Σ wᵢvᵢ of the shown weights, on edited values`, async () => {
    await page.goto(`${base}/${DICT_PAGE}`);
    await waitWidget(page, DICT);
    await afterEdit(page, DICT, () => edit(page, `${DICT} [data-editor=values] [data-cell="1.2"]`, '-2,5'));
    await afterEdit(page, DICT, () => edit(page, `${DICT} [data-editor=query] [data-cell="0.0"]`, '1,5'));
    assert(await page.getAttribute(DICT, 'data-state') === 'ready', await errorText(page, DICT));
    const values = await editorValues(page, DICT, 'values');
    const w = Object.values((await readTwin(page, DICT, 'weights')).w).map(parsePt);
    const sum = w.reduce((a, b) => a + b, 0);
    assert(Math.abs(sum - 1) <= 3 * 5e-5, `weights sum to ${sum}`);
    const soft = Object.values((await readTwin(page, DICT, 'lookups'))['suave']).map(parsePt);
    for (let c = 0; c < soft.length; c++) {
      const mixed = w.reduce((acc, wi, i) => acc + wi * values[i][c], 0);
      // Each shown weight is rounded to 4 decimals (±5e-5), the shown lookup too.
      const tol = 5e-5 * values.reduce((acc, row) => acc + Math.abs(row[c]), 0) + 5e-5;
      assert(Math.abs(mixed - soft[c]) <= tol, `column ${c + 1}: Σ wᵢvᵢ = ${mixed}, shown ${soft[c]}`);
    }
  });

  await check(`[${mode}] soft dictionary: sharper scores bring the soft lookup to the hard one`, async () => {
    await page.goto(`${base}/${DICT_PAGE}`);
    await waitWidget(page, DICT);
    const distances = Object.values(await page.$$eval(`${DICT} table.twin[data-bars=distance] tr`, (rows) =>
      rows.map((tr) => tr.querySelector('td')?.textContent).filter(Boolean))).map(parsePt);
    assert(distances.length === 8, `${distances.length} rungs`);
    for (let i = 1; i < distances.length; i++) assert(distances[i] <= distances[i - 1] + 1e-4, `distances ${distances}`);
    assert(distances[distances.length - 1] < 1e-3, `β = 32: ${distances.at(-1)}`);
    await afterEdit(page, DICT, () => edit(page, `${DICT} input[data-control=sharpness]`, '5'));
    assert((await page.textContent(`${DICT} output.readout`)).includes('32'), await page.textContent(`${DICT} output.readout`));
    const w = (await readTwin(page, DICT, 'weights')).w;
    assert(parsePt(w['k₃']) > 0.999, `w₃ at β = 32: ${w['k₃']}`);
    const lookups = await readTwin(page, DICT, 'lookups');
    for (const c of ['1', '2', '3']) assertNear(`soft ≈ hard, column ${c}`, lookups['suave'][c], parsePt(lookups['rígida (v₃)'][c]), 1e-3);
    await page.screenshot({ path: path.join(ARTIFACTS, `attention-soft-dictionary-${mode}.png`), fullPage: false });
  });

  await check(`[${mode}] soft dictionary: a cell that is not a number (text, empty, NaN) is named; restoring the example brings it back`, async () => {
    await page.goto(`${base}/${DICT_PAGE}`);
    await waitWidget(page, DICT);
    for (const bad of ['abc', '', 'NaN']) {
      const state = await afterEdit(page, DICT, () => edit(page, `${DICT} [data-editor=query] [data-cell="0.1"]`, bad));
      const message = await errorText(page, DICT);
      assert(state === 'error', `«${bad}»: ${state}`);
      assert(message.includes('consulta q, linha 1, coluna 2') && message.includes('não é um número'), `«${bad}»: ${message}`);
    }
    await afterEdit(page, DICT, () => page.click(`${DICT} [data-action=reset]`));
    assert(await page.getAttribute(DICT, 'data-state') === 'ready', await errorText(page, DICT));
    assertNear('w₃ after reset', (await readTwin(page, DICT, 'weights')).w['k₃'], 0.4625);
  });

  await check(`[${mode}] gradient check: ∂L/∂Q by formula and by central differences agree below 1e-4 at h = 1e-4, and for K and V`, async () => {
    await page.goto(`${base}/${GRAD_PAGE}`);
    await waitWidget(page, GRAD);
    for (const wrt of ['q', 'k', 'v']) {
      await afterEdit(page, GRAD, () => edit(page, `${GRAD} select[data-control=wrt]`, wrt, 'change'));
      const error = Number(await page.getAttribute(`${GRAD} table[data-results=gradient-error]`, 'data-max-rel-error'));
      assert(error < 1e-4, `${wrt}: max relative error ${error}`);
      const analytic = await readTwin(page, GRAD, 'analytic');
      const numeric = await readTwin(page, GRAD, 'numeric');
      assert(JSON.stringify(analytic) === JSON.stringify(numeric), `${wrt}: the tables differ\n${JSON.stringify(analytic)}\n${JSON.stringify(numeric)}`);
      const title = await page.textContent(`${GRAD} [data-matrix=analytic] .mv-name`);
      assert(title.includes(`∂L/∂${wrt.toUpperCase()}`), title);
    }
  });

  await check(`[${mode}] gradient check: the softmax Jacobian of z = (2; 1; 0,1) is sᵢ(δᵢⱼ − sⱼ), columns sum to 0`, async () => {
    await page.goto(`${base}/${GRAD_PAGE}`);
    await waitWidget(page, GRAD);
    await afterEdit(page, GRAD, () => edit(page, `${GRAD} select[data-control=part]`, 'softmax', 'change'));
    assert(await page.$eval(`${GRAD} [data-editor=q]`, (e) => e.hidden) && !(await page.$eval(`${GRAD} [data-editor=z]`, (e) => e.hidden)), 'softmax shows only z');
    const j = await readTwin(page, GRAD, 'analytic');
    assertNear('J₁₁', j['s₁']['z₁'], 0.2247);
    assertNear('J₁₂', j['s₁']['z₂'], -0.1598);
    assertNear('J₂₂', j['s₂']['z₂'], 0.1837);
    assertNear('J₃₃', j['s₃']['z₃'], 0.0889);
    for (const col of ['z₁', 'z₂', 'z₃']) {
      const sum = ['s₁', 's₂', 's₃'].reduce((acc, row) => acc + parsePt(j[row][col]), 0);
      assert(Math.abs(sum) <= 2e-4, `column ${col} sums to ${sum}`);
    }
    const error = Number(await page.getAttribute(`${GRAD} table[data-results=gradient-error]`, 'data-max-rel-error'));
    assert(error < 1e-4, `softmax: ${error}`);
  });

  await check(`[${mode}] gradient check: too small an h is worse, much sooner in f32; the curve is a table too`, async () => {
    await page.goto(`${base}/${GRAD_PAGE}`);
    await waitWidget(page, GRAD);
    const curve = await page.$$eval(`${GRAD} table.twin[data-matrix=error-curve] tr`, (rows) => rows.slice(1).map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent)));
    assert(curve.length === 10 && curve[0][0] === 'h = 10⁻¹' && curve[9][0] === 'h = 10⁻¹⁰', JSON.stringify(curve));
    const sci = (text) => {
      const m = text.match(/^([\d,]+)(?: × 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))?$/);
      assert(m, `not a number: ${text}`);
      const digits = '⁰¹²³⁴⁵⁶⁷⁸⁹';
      const exponent = m[2] ? Number([...m[2]].map((ch) => (ch === '⁻' ? '-' : digits.indexOf(ch))).join('')) : 0;
      return Number(m[1].replace(',', '.')) * 10 ** exponent;
    };
    const f64 = curve.map((row) => sci(row[1]));
    const best = Math.min(...f64);
    assert(f64[9] > 100 * best, `f64: h = 1e-10 (${f64[9]}) is not worse than the best (${best})`);
    await afterEdit(page, GRAD, () => edit(page, `${GRAD} select[data-control=precision]`, 'f32', 'change'));
    await afterEdit(page, GRAD, () => edit(page, `${GRAD} select[data-control=step]`, '9', 'change'));
    const error = Number(await page.getAttribute(`${GRAD} table[data-results=gradient-error]`, 'data-max-rel-error'));
    assert(error > 0.1, `f32 at h = 1e-10: ${error}`);
    assert((await page.textContent(`${GRAD} .gradient-results`)).includes('discordam'), 'the verdict says they disagree');
    await page.screenshot({ path: path.join(ARTIFACTS, `attention-gradient-check-${mode}.png`), fullPage: false });
  });

  await check(`[${mode}] gradient check of the whole decoder: one probe per weight tensor, within 5 % at h = 10⁻³ (f32), worse at 10⁻⁸; too short a text is named`, async () => {
    await page.goto(`${base}/${GRAD_PAGE}`);
    await page.$eval(GRAD_MODEL, (el) => el.scrollIntoView());
    await waitWidget(page, GRAD_MODEL);
    const rows = await page.$$eval(`${GRAD_MODEL} table[data-results=model-probes] tr`, (trs) => trs.slice(1).map((tr) => [...tr.children].map((c) => c.textContent)));
    // 2 blocks × 12 tensors, the embedding and the final norm's γ and β.
    assert(rows.length === 27 && rows[0][0] === 'tok_emb' && rows[26][0] === 'ln_f.bias', JSON.stringify(rows.map((r) => r[0])));
    const error = Number(await page.getAttribute(`${GRAD_MODEL} table[data-results=gradient-error]`, 'data-max-rel-error'));
    assert(error > 0 && error < 5e-2, `model at h = 1e-3: ${error}`);
    assert(await page.$eval(`${GRAD_MODEL} [data-control=precision]`, (e) => e.closest('label').hidden), 'the precision menu is hidden (f32 only)');
    await afterEdit(page, GRAD_MODEL, () => edit(page, `${GRAD_MODEL} select[data-control=step]`, '7', 'change'));
    const noisy = Number(await page.getAttribute(`${GRAD_MODEL} table[data-results=gradient-error]`, 'data-max-rel-error'));
    assert(noisy > 10 * error, `h = 1e-8: ${noisy} against ${error}`);
    const state = await afterEdit(page, GRAD_MODEL, () => edit(page, `${GRAD_MODEL} [data-control=model-text]`, 'aa'));
    assert(state === 'error' && (await errorText(page, GRAD_MODEL)).includes('3 caracteres'), await errorText(page, GRAD_MODEL));
    await page.screenshot({ path: path.join(ARTIFACTS, `attention-gradient-model-${mode}.png`), fullPage: false });
  });

  await check(`[${mode}] gradient check: a cell that is not a number is named`, async () => {
    await page.goto(`${base}/${GRAD_PAGE}`);
    await waitWidget(page, GRAD);
    const state = await afterEdit(page, GRAD, () => edit(page, `${GRAD} [data-editor=k] [data-cell="2.0"]`, 'x1'));
    assert(state === 'error', state);
    const message = await errorText(page, GRAD);
    assert(message.includes('K, linha 3, coluna 1') && message.includes('não é um número'), message);
    await afterEdit(page, GRAD, () => edit(page, `${GRAD} [data-editor=k] [data-cell="2.0"]`, '1,5'));
    assert(await page.getAttribute(GRAD, 'data-state') === 'ready', await errorText(page, GRAD));
  });
}
