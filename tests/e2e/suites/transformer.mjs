// The two Transformer articles (issue 5): character tokenizer and padding, embeddings,
// self-attention step by step (Examples 1 and 2, corrected), scaling, multi-head (Example 3 and
// the reshape), positional encoding, the shift table, the block, cross-attention and the output
// head. Golden numbers come from ../shared/spec/4-transformer.md and are read from the widgets'
// tables; numbers without a golden value are compared between the two modes (WebGPU vs CPU).
import path from 'node:path';
import { ARTIFACTS, acrossModes, check, assert, parsePt, readTable, readResults, near, waitWidget, assertMatrix } from '../lib.mjs';

/** Numbers seen in the first mode, compared with the second: the backends must agree. */
const sameInBothModes = acrossModes();

const flat = (rows) => rows.flat().map(parsePt);
/** A picture of the widget alone (tests/artifacts/tf-NAME-MODE.png), to check the canvases by eye. */
const shot = (page, host, name, mode) => page.locator(host).first().screenshot({ path: path.join(ARTIFACTS, `tf-${name}-${mode}.png`) });

async function setSlider(page, selector, value) {
  await page.$eval(selector, (el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', { bubbles: true })); }, value);
}

async function chipIds(page, host, row = 0) {
  return page.$$eval(`${host} .token-row[data-row="${row}"] .chip`, (cs) => cs.map((c) => Number(c.dataset.id)));
}

async function stepCells(page, host, col) {
  return page.$$eval(`${host} table[data-results=steps] tr[data-key] td[data-col=${col}]`, (tds) => tds.map((td) => td.textContent));
}

async function errorText(page, host) {
  await page.waitForSelector(`${host}[data-state=error]`, { timeout: 10000 });
  return page.textContent(`${host} .widget-error`);
}

export default async function transformer({ page, base, mode }) {
  await check(`[${mode}] char tokenizer: the running example, gato → [1, 9, 3, 22, 17, 2], <unk>, empty text`, async () => {
    const host = '[data-widget=char-tokenizer]';
    await page.goto(`${base}/tokenizacao-por-caractere.html`);
    await waitWidget(page, host);
    // The page starts from the sentence article 5 carries (o=17, space=29, d=6, r=20, m=15, e=7).
    assert((await chipIds(page, host)).join(',') === '1,17,29,9,3,22,17,29,6,17,20,15,7,2', `o gato dorme ${await chipIds(page, host)}`);
    await page.fill(`${host} [data-control=texts]`, 'gato');
    await waitWidget(page, host);
    assert((await chipIds(page, host)).join(',') === '1,9,3,22,17,2', `gato ${await chipIds(page, host)}`);
    await page.fill(`${host} [data-control=texts]`, 'baba\nÑandu 😀');
    await waitWidget(page, host);
    assert((await chipIds(page, host)).join(',') === '1,4,3,4,3,2', 'baba');
    const unk = await page.$$eval(`${host} .token-row[data-row="1"] .chip.unk`, (cs) => cs.map((c) => c.textContent));
    assert(unk.length === 2 && unk[0].includes('Ñ'), `unk chips ${unk}`);
    const note = await page.textContent(`${host} .note`);
    assert(note.includes('<unk>') && note.includes('«😀»'), note);
    await page.fill(`${host} [data-control=texts]`, '   \n');
    assert((await errorText(page, host)).includes('pelo menos um texto'), 'empty text message');
    assert((await page.inputValue(`${host} [data-control=texts]`)) === '   \n', 'typed text lost');
  });

  await check(`[${mode}] padding: the article's batch, left/right, fixed length, truncation`, async () => {
    const host = '[data-widget=char-tokenizer]';
    await page.goto(`${base}/padding-e-truncamento.html`);
    await waitWidget(page, host);
    let batch = await readTable(page, 'batch', host);
    assertMatrix('right-padded batch', batch.slice(0, 2), [[1, 9, 3, 22, 17, 2, 0, 0, 0, 0], [1, 7, 14, 7, 8, 3, 16, 22, 7, 2]], 0);
    assert(batch.length === 5, `${batch.length} rows`);
    await page.selectOption(`${host} [data-control=side]`, 'esquerda');
    await waitWidget(page, host);
    batch = await readTable(page, 'batch', host);
    assertMatrix('left-padded gato', [batch[0]], [[0, 0, 0, 0, 1, 9, 3, 22, 17, 2]], 0);
    await page.selectOption(`${host} [data-control=side]`, 'direita');
    await page.selectOption(`${host} [data-control=length]`, 'fixo');
    await page.fill(`${host} [data-control=width]`, '6');
    await waitWidget(page, host);
    assert((await page.textContent(`${host} .note`)).includes('maior que t = 6'), 'widened batch not explained');
    await page.check(`${host} [data-control=truncate]`);
    await waitWidget(page, host);
    batch = await readTable(page, 'batch', host);
    assertMatrix('truncated elefante', [batch[1]], [[1, 7, 14, 7, 8, 3]], 0);
    assert((await page.textContent(`${host} .note`)).includes('descartou 8 tokens'), await page.textContent(`${host} .note`));
    await shot(page, host, 'padding', mode);
  });

  await check(`[${mode}] embeddings: one-hot × table = gather; editing b's row moves both b rows`, async () => {
    const host = '[data-widget=embedding-lookup]';
    await page.goto(`${base}/embeddings.html`);
    await waitWidget(page, host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'backend');
    // The running example: the three «o» rows of X (positions 1, 6 and 9) are one row of E.
    const sentence = await readTable(page, 'product', host);
    assert(sentence.length === 14 && sentence[1].join() === sentence[6].join() && sentence[1].join() === sentence[9].join(), 'o gato dorme: the «o» rows differ');
    await page.fill(`${host} [data-control=text]`, 'baba');
    await waitWidget(page, host);
    const oneHot = await readTable(page, 'one-hot', host);
    assertMatrix('O (baba)', oneHot, [[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]], 0);
    let x = await readTable(page, 'product', host);
    const rows = await readTable(page, 'table', host);
    assert(x[1].join() === x[3].join() && x[1].join() === rows[3].join(), 'b rows of X are E[b]');
    await sameInBothModes(mode, 'embedding product', flat(x));
    assert((await page.textContent(`${host} .note`)).includes('diferença máxima 0,0000'), 'gather and product disagree');
    await page.click(`${host} [data-action=next]`);
    await page.click(`${host} [data-action=next]`);
    const step = await page.textContent(`${host} .step-note`);
    assert(step.startsWith('Posição 2: o token «b» (id 4)'), step);
    await page.fill(`${host} [data-editor=table] input >> nth=12`, '2,5');
    await waitWidget(page, host);
    x = await readTable(page, 'product', host);
    assert(near(x[1][0], 2.5) && near(x[3][0], 2.5), `b rows after the edit: ${x[1]} / ${x[3]}`);
    await page.click(`${host} [data-action=play]`);
    await page.waitForFunction((h) => document.querySelector(`${h} .step-note`).textContent.startsWith('Posição 6'), host, { timeout: 15000 });
    await page.fill(`${host} [data-control=text]`, 'um texto longo demais aqui');
    assert((await errorText(page, host)).includes('até 16 caracteres'), 'long text message');
    await page.fill(`${host} [data-control=text]`, 'baba');
    await waitWidget(page, host);
    await shot(page, host, 'embeddings', mode);
  });

  await check(`[${mode}] Example 1 step by step: corrected weights, causal version`, async () => {
    const host = '[data-widget=self-attention-steps]';
    await page.goto(`${base}/autoatencao-basica.html`);
    await waitWidget(page, host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'backend');
    assertMatrix('α₂', [await stepCells(page, host, 'weight')], [[0.1554, 0.4223, 0.4223]]);
    assertMatrix('scores', [await stepCells(page, host, 'score')], [[0, 1, 1]]);
    const total = await page.textContent(`${host} tr.total td[data-col=output]`);
    assert(total === 'a₂ = [0,5777; 0,8446; 0,0000]', total);
    assert(near(await page.textContent(`${host} tr.total td[data-col=exp]`), 6.4366), 'Σ exp = 1 + 2e');
    const note = await page.textContent(`${host} .correction`);
    // The printed (wrong) values live in the page's correction notes, not in the widget (issue 37).
    assert(note.includes('0,1554; 0,4223; 0,4223') && !note.includes('0,14; 0,43; 0,43'), note);
    await page.check(`${host} [data-control=causal]`);
    await waitWidget(page, host);
    assertMatrix('causal α₂', [await stepCells(page, host, 'weight')], [[0.2689, 0.7311, 0]]);
    assert((await stepCells(page, host, 'score'))[2].includes('−∞'), 'future key not masked');
    assertMatrix('causal output', await readTable(page, 'output', host), [[1, 0, 0], [0.2689, 0.7311, 0], [0.7881, 0.7881, 0]]);
    await shot(page, host, 'example-1', mode);
  });

  await check(`[${mode}] Example 2 step by step and in matrix form with the mask`, async () => {
    const host = '[data-widget=self-attention-steps]';
    await page.goto(`${base}/queries-keys-values.html`);
    await waitWidget(page, host);
    assertMatrix('q₂·k', [await stepCells(page, host, 'dot')], [[1.18, 0.73, 1.91]]);
    assertMatrix('÷√3', [await stepCells(page, host, 'score')], [[0.6813, 0.4215, 1.1027]]);
    assertMatrix('exp', [await stepCells(page, host, 'exp')], [[1.9763, 1.5242, 3.0124]], 2e-3);
    assertMatrix('α₂', [await stepCells(page, host, 'weight')], [[0.3035, 0.2340, 0.4625]]);
    const total = await page.textContent(`${host} tr.total td[data-col=output]`);
    assert(total === 'a₂ = [0,2228; 0,5154; 0,8079]', total);
    assert((await page.textContent(`${host} .correction`)).includes('0,3035; 0,2340; 0,4625'), 'computed weights not in the caption');
    await page.fill(`${host} [data-editor=w_q] input >> nth=0`, 'abc');
    assert((await errorText(page, host)).includes('não é um número'), 'bad cell message');
    await page.fill(`${host} [data-editor=w_q] input >> nth=0`, '0,1');
    await waitWidget(page, host);
    await page.goto(`${base}/forma-matricial-e-mascara.html`);
    await waitWidget(page, host);
    assertMatrix('causal weights', await readTable(page, 'weights', host), [[1, 0, 0], [0.5646, 0.4354, 0], [0.2868, 0.1994, 0.5138]]);
    assertMatrix('causal output', await readTable(page, 'output', host), [[0.2, 0.4, 0.6], [0.1565, 0.3565, 0.5565], [0.2314, 0.5342, 0.8370]]);
    const scores = await readTable(page, 'scores', host);
    assert(scores[0][1] === '−∞' && scores[1][2] === '−∞' && near(scores[2][2], 1.53), JSON.stringify(scores));
    await shot(page, host, 'matrix-mask', mode);
  });

  await check(`[${mode}] scaling: variance ≈ d without ÷√d, ≈ 1 with it; huge d refused`, async () => {
    const host = '[data-widget=scaling]';
    await page.goto(`${base}/atencao-escalonada.html`);
    await waitWidget(page, host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'backend');
    let r = await readResults(page, host, 'scaling');
    const raw = parsePt(r['variância de q·k']);
    const scaled = parsePt(r['variância de q·k/√d']);
    assert(raw > 45 && raw < 85 && scaled > 0.7 && scaled < 1.3, JSON.stringify(r));
    await sameInBothModes(mode, 'scaling d=64', Object.values(r).map(parsePt), 2e-3);
    const curve = await page.$$eval(`${host} table.twin[data-plot=saturation] tr`, (trs) => trs.slice(1).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert(curve.length === 11 && parsePt(curve[10][0]) > 0.9 && parsePt(curve[10][1]) < 0.6, JSON.stringify(curve));
    await setSlider(page, `${host} [data-control=log-d]`, 10);
    await waitWidget(page, host);
    r = await readResults(page, host, 'scaling');
    assert(r.d === '1024' && parsePt(r['maior peso médio, sem escala']) > 0.9, JSON.stringify(r));
    await page.fill(`${host} [data-control=d]`, '100000');
    assert((await errorText(page, host)).includes('o limite é 4096'), 'huge d message');
    await page.fill(`${host} [data-control=d]`, '64');
    await waitWidget(page, host);
    await shot(page, host, 'scaling', mode);
  });

  await check(`[${mode}] multi-head Example 3: corrected [1,6339; 1,6285; 1,6231], printed head [1,593; 1,580; 1,567]`, async () => {
    const host = '[data-widget=multi-head]';
    await page.goto(`${base}/atencao-multicabeca.html`);
    await waitWidget(page, host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'backend');
    assertMatrix('concat', await readTable(page, 'concat', host), [[0.2228, 0.5154, 0.8079, 0.5, 0.2, 0.9]]);
    assertMatrix('concat · W^O', await readTable(page, 'output', host), [[1.6339, 1.6285, 1.6231]], 2e-4);
    await page.selectOption(`${host} [data-control=source]`, 'artigo');
    await waitWidget(page, host);
    assertMatrix('as printed', await readTable(page, 'output', host), [[1.593, 1.580, 1.567]], 1e-3);
    // The product the original article prints lives in the page's correction note (issue 37).
    const caption = await page.textContent(`${host} .correction`);
    assert(caption.includes('[1,593') && !caption.includes('0,914'), caption);
    await shot(page, host, 'example-3', mode);
  });

  await check(`[${mode}] multi-head reshape: shapes, head columns, d not divisible by h, caps`, async () => {
    const host = '[data-widget=multi-head]';
    await page.goto(`${base}/multi-head-em-lote.html`);
    await waitWidget(page, host);
    let r = await readResults(page, host, 'reshape');
    assert(r['transposta (cabeças como lote)'] === '2 × 2 × 4 × 4' && r['com d = 512 (artigo original)'] === '1.048.576', JSON.stringify(r));
    assertMatrix('columns per head', await readTable(page, 'assignment', host), [[0, 1, 2, 3], [4, 5, 6, 7]], 0);
    await page.fill(`${host} [data-control=h]`, '3');
    const message = await errorText(page, host);
    assert(message.includes('d = 8 não se divide em h = 3') && message.includes('1, 2, 4, 8'), message);
    await page.fill(`${host} [data-control=d]`, '4000');
    assert((await errorText(page, host)).includes('limite de 64'), 'huge d message');
    await page.fill(`${host} [data-control=d]`, '12');
    await waitWidget(page, host);
    r = await readResults(page, host, 'reshape');
    assert(r.remodelada === '2 × 4 × 3 × 4', JSON.stringify(r));
    await setSlider(page, `${host} [data-control=h-slider]`, 6);
    await waitWidget(page, host);
    assert((await readResults(page, host, 'reshape')).remodelada === '2 × 4 × 6 × 2', 'h slider');
    await shot(page, host, 'reshape', mode);
  });

  await check(`[${mode}] positional encoding: the t=5, d=4 table and the offset property`, async () => {
    const host = '[data-widget=positional-encoding]';
    await page.goto(`${base}/codificacao-posicional.html`);
    await waitWidget(page, host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'backend');
    const small = await readTable(page, 'pe-small', host);
    assertMatrix('PE t=5 d=4', small, [[0, 1, 0, 1], [0.8415, 0.5403, 0.0100, 0.99995], [0.9093, -0.4161, 0.0200, 0.9998],
      [0.1411, -0.98999, 0.0300, 0.9996], [-0.7568, -0.6536, 0.0400, 0.9992]]);
    let r = await readResults(page, host, 'positional');
    assert(near(r['PE(p)·PE(p) = d/2'], 16) && parsePt(r['maior |PE(p)·PE(p+k) − PE(0)·PE(k)|']) < 2e-3
      && parsePt(r['maior |R(1)·PE(p) − PE(p+1)|']) < 1e-3, JSON.stringify(r));
    const offsets = await page.$$eval(`${host} table.twin[data-plot=offset] td`, (tds) => tds.map((td) => td.textContent));
    assert(offsets.length === 64, `${offsets.length} offsets`);
    await sameInBothModes(mode, 'PE offsets', offsets.map(parsePt), 2e-3);
    await setSlider(page, `${host} [data-control=d]`, 8);
    await waitWidget(page, host);
    const cols = await page.$$eval(`${host} table.twin[data-matrix=pe] tr:nth-of-type(2) td`, (tds) => tds.length);
    assert(cols === 8, `${cols} columns for d = 8`);
    r = await readResults(page, host, 'positional');
    assert(near(r['PE(p)·PE(p) = d/2'], 4), JSON.stringify(r));
    await shot(page, host, 'positional', mode);
  });

  await check(`[${mode}] shift table: cachorro → dog, achorro<eos><bos>d at step 2`, async () => {
    const host = '[data-widget=shift-table]';
    await page.goto(`${base}/autorregressao-e-mascara.html`);
    await waitWidget(page, host);
    await page.click(`${host} [data-action=next]`);
    await page.click(`${host} [data-action=next]`);
    const rows = () => page.$$eval(`${host} tr[data-step]`, (trs) => trs.map((tr) => tr.dataset.text));
    let seen = await rows();
    assert(seen.length === 3 && seen[0] === '<bos>cachorro<eos>' && seen[2] === 'achorro<eos><bos>d', JSON.stringify(seen));
    assert((await page.textContent(`${host} .step-note`)).includes('saiu «c» do início, e «d» entrou'), 'step note');
    await page.click(`${host} [data-action=all]`);
    seen = await rows();
    assert(seen.length === 6 && seen[5] === 'orro<eos><bos>dog<eos>', JSON.stringify(seen));
    assert((await page.textContent(`${host} .step-note`)).includes('gerou <eos>'), 'stop reason');
    await page.fill(`${host} [data-control=max-steps]`, '3');
    await waitWidget(page, host);
    await page.click(`${host} [data-action=all]`);
    assert((await page.textContent(`${host} .step-note`)).includes('número máximo de passos'), 'step limit');
    await page.fill(`${host} [data-control=input]`, '');
    assert((await errorText(page, host)).includes('texto de entrada'), 'empty input message');
    await page.fill(`${host} [data-control=input]`, 'cachorro');
    await waitWidget(page, host);
    await shot(page, host, 'shift', mode);
  });

  await check(`[${mode}] transformer block: post-LN vs pre-LN, LN statistics, 4× ReLU layer, parameter counts`, async () => {
    const host = '[data-widget=transformer-block]';
    await page.goto(`${base}/bloco-transformer.html`);
    await waitWidget(page, host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'backend');
    // The running example's 14 tokens, then the article's «gato» for the checks below.
    assert((await readTable(page, 'hidden', host)).length === 14, 'o gato dorme: 14 rows');
    await page.fill(`${host} [data-control=text]`, 'gato');
    await waitWidget(page, host);
    assert(await page.getAttribute(`${host} .block-diagram`, 'data-norm') === 'post', 'diagram');
    let r = await readResults(page, host, 'block');
    assert(r['média e desvio da 1ª linha, depois da LN'] === '0,0000 e 1,0000', JSON.stringify(r));
    assert(r['parâmetros do bloco'] === '3.150.336' && r['parâmetros da FFN (d = 512, dff = 2048)'] === '2.099.712', JSON.stringify(r));
    const hidden = await readTable(page, 'hidden', host);
    assert(hidden.length === 6 && hidden[0].length === 32 && hidden.flat().every((v) => parsePt(v) >= 0), 'ReLU layer 6 × 32, non-negative');
    const post = flat(await readTable(page, 'output', host));
    await sameInBothModes(mode, 'block post-LN output', post, 2e-4);
    await page.selectOption(`${host} [data-control=norm]`, 'pre');
    await waitWidget(page, host);
    assert(await page.getAttribute(`${host} .block-diagram`, 'data-norm') === 'pre', 'diagram did not switch');
    const steps = await page.$$eval(`${host} .block-diagram li`, (lis) => lis.map((li) => li.textContent));
    assert(steps[1] === 'LayerNorm' && steps.length === 8, JSON.stringify(steps));
    const pre = flat(await readTable(page, 'output', host));
    assert(pre.some((v, i) => Math.abs(v - post[i]) > 1e-3), 'pre-LN output equals post-LN output');
    await sameInBothModes(mode, 'block pre-LN output', pre, 2e-4);
    await page.fill(`${host} [data-control=text]`, 'um texto comprido demais para o bloco');
    assert((await errorText(page, host)).includes('até 22 caracteres'), 'long text message');
    await page.fill(`${host} [data-control=text]`, 'gato');
    await waitWidget(page, host);
    await shot(page, host, 'block', mode);
  });

  await check(`[${mode}] cross-attention: the article's wiring leaks later decoder positions`, async () => {
    const host = '[data-widget=cross-attention]';
    await page.goto(`${base}/encoder-e-decoder.html`);
    await waitWidget(page, host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'backend');
    const paper = await readTable(page, 'paper-weights', host);
    assert(paper.length === 10 && paper.every((row) => Math.abs(row.map(parsePt).reduce((a, b) => a + b) - 1) < 1e-3), 'paper rows sum to 1');
    await sameInBothModes(mode, 'paper weights', flat(paper), 2e-4);
    const r = await readResults(page, host, 'probe');
    assert(r['original: maior mudança nas saídas anteriores à última'] === '0,0000', JSON.stringify(r));
    assert(parsePt(r['código do artigo original: mudança na saída da posição 1']) > 1e-3, JSON.stringify(r));
    assert(parsePt(r['código do artigo original: peso futuro na posição 1']) > 0.5, JSON.stringify(r));
    await page.selectOption(`${host} [data-control=decoder]`, 'resposta');
    await waitWidget(page, host);
    assert(await page.isVisible(`${host} .wiring-message`), 'length mismatch not explained');
    assert((await page.textContent(`${host} .wiring-message`)).includes('mesmo comprimento'), 'message');
    assert((await readTable(page, 'paper-weights', host)).length === 5, 'paper wiring with <bos>dog<eos>');
    await page.selectOption(`${host} [data-control=decoder]`, '1');
    await waitWidget(page, host);
    await shot(page, host, 'cross', mode);
  });

  await check(`[${mode}] output head: argmax, temperature, the article's argmax + 2`, async () => {
    const host = '[data-widget=output-head]';
    await page.goto(`${base}/cabeca-de-saida-e-geracao.html`);
    await waitWidget(page, host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'backend');
    let r = await readResults(page, host, 'choice');
    const chosen = r['argmax (escolha gulosa)'];
    const id = Number(chosen.split(' ')[0]);
    // h starts as o's unit embedding and the head is tied to the embeddings: o wins with logit 4.
    assert(chosen === '17 («o»)', `argmax ${chosen}`);
    const logits = await page.$$eval(`${host} table.twin[data-bars=logits] td`, (tds) => tds.map((td) => td.textContent));
    assert(near(logits[0], 4, 2e-3), `top logit ${logits[0]}`);
    assert(r['soma das probabilidades'] === '1,0000', JSON.stringify(r));
    assert(r['o código do artigo original devolveria (argmax + 2)'].startsWith(String(id + 2)), JSON.stringify(r));
    const probs = await page.$$eval(`${host} table.twin[data-bars=probs] td`, (tds) => tds.map((td) => td.textContent));
    assert(near(probs[0], parsePt(r['probabilidade do escolhido'])), 'top bar is the argmax');
    await sameInBothModes(mode, 'output probs', probs.map(parsePt), 1e-4);
    const p1 = parsePt(r['probabilidade do escolhido']);
    await setSlider(page, `${host} [data-control=temperature]`, 0.2);
    await waitWidget(page, host);
    r = await readResults(page, host, 'choice');
    assert(r['argmax (escolha gulosa)'] === chosen && parsePt(r['probabilidade do escolhido']) > p1, JSON.stringify(r));
    await page.fill(`${host} [data-editor=hidden] input >> nth=0`, 'x');
    assert((await errorText(page, host)).includes('não é um número'), 'bad h message');
    await page.fill(`${host} [data-editor=hidden] input >> nth=0`, '0');
    await waitWidget(page, host);
    await shot(page, host, 'output-head', mode);
  });
}
