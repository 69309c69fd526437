// The math and vectorization article: vectors, dot product, matmul, one-hot, BoW, TF, IDF, TF-IDF, search, corpus bad input.
import path from 'node:path';
import fs from 'node:fs';
import { ARTIFACTS, check, assert, parsePt, readTable, readResults, readTwin, readIdf, near, waitWidget, assertMatrix, waitReady } from '../lib.mjs';


export default async function vectorization({ page, base, mode }) {
  await check(`[${mode}] vectors: a + b, −a and k·a, and dragging b's tip`, async () => {
    const host = '[data-widget=vectors]';
    await page.goto(`${base}/vetores.html`);
    await waitWidget(page, host);
    let r = await readResults(page, host, 'vectors');
    assert(r['a + b'] === '(4; 1)' && r['−a'] === '(−1; −2)' && r['k·a (k = 2)'] === '(2; 4)', JSON.stringify(r));
    const canvas = await page.$(`${host} canvas`);
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    // b = (3, −1) on a 340 px plane spanning −6…6: tip at (255, 198.3); drag it to (2, 2).
    await page.mouse.move(box.x + 255, box.y + 198.3);
    await page.mouse.down();
    await page.mouse.move(box.x + 240, box.y + 160, { steps: 3 });
    await page.mouse.move(box.x + 226.7, box.y + 113.3, { steps: 3 });
    await page.mouse.up();
    r = await readResults(page, host, 'vectors');
    assert(r.b === '(2; 2)' && r['a + b'] === '(3; 4)', JSON.stringify(r));
  });

  await check(`[${mode}] dot product: 15, cosine, normalisation, obtuse angle`, async () => {
    const host = '[data-widget=dot-product]';
    await page.goto(`${base}/produto-escalar.html`);
    await waitWidget(page, host);
    let r = await readResults(page, host, 'dot');
    assert(r['u·v'] === '15,0000' && r['cos θ'] === '0,5371' && r['relação'].includes('agudo'), JSON.stringify(r));
    const strip = await page.$$eval(`${host} table.twin[data-bars=products] td`, (tds) => tds.map((td) => td.textContent));
    assert(strip.join(' ') === '6,0000 5,0000 4,0000', `products ${strip}`);
    await page.check(`${host} [data-control=normalize]`);
    await waitWidget(page, host);
    r = await readResults(page, host, 'dot');
    assert(r['u·v'] === '0,5371' && r['‖u‖'] === '1,0000', JSON.stringify(r));
    await page.goto(`${base}/norma-e-similaridade.html`);
    await waitWidget(page, host);
    r = await readResults(page, host, 'dot');
    assert(r['θ (graus)'] === '135,00' && r['relação'].includes('obtuso'), JSON.stringify(r));
    await page.selectOption(`${host} [data-control=preset]`, 'one-hot');
    r = await readResults(page, host, 'dot');
    assert(r['u·v'] === '0,7000' && r['‖v‖'] === '0,7348', JSON.stringify(r));
  });

  await check(`[${mode}] matmul: the article's product, cell steps and the one-hot lookup`, async () => {
    const host = '[data-widget=matmul]';
    await page.goto(`${base}/multiplicacao-de-matrizes.html`);
    await waitWidget(page, host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'matmul backend');
    assertMatrix('C', await readTable(page, 'c', host), [[25, 28], [57, 64], [89, 100]]);
    await page.click(`${host} [data-action=next-cell]`);
    await page.click(`${host} [data-action=next-cell]`);
    const step = await page.textContent(`${host} .matmul-step`);
    assert(step === 'C[2, 1] = linha 2 de A · coluna 1 de B = 3·7 + 4·9 = 57', step);
    const lit = await page.$$eval(`${host} [data-editor=a] input.highlight`, (xs) => xs.length);
    assert(lit === 2, `${lit} highlighted cells in A`);
    await page.goto(`${base}/one-hot.html`);
    await waitWidget(page, host);
    const oneHot = '[data-widget=one-hot]';
    await waitWidget(page, oneHot);
    const rows = await readTwin(page, oneHot, 'one-hot');
    assert(rows['2 gato'].gato === '1,0000' && rows['2 gato'].dorme === '0,0000', JSON.stringify(rows['2 gato']));
    await page.selectOption(`${oneHot} [data-control=preset]`, 'frutas');
    await waitWidget(page, oneHot);
    assertMatrix('encontrar fruta maçã', await readTable(page, 'one-hot', oneHot), [[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0]]);
    await page.fill(`${oneHot} [data-control=sentence]`, 'fruta banana fruta kiwi');
    await waitWidget(page, oneHot);
    assert((await page.textContent(`${oneHot} .ids`)).includes('Fora do vocabulário (linha só de zeros): kiwi'), 'unknown word not reported');
    assertMatrix('gram', await readTable(page, 'gram', oneHot), [[1, 0, 1, 0], [0, 1, 0, 0], [1, 0, 1, 0], [0, 0, 0, 0]]);
    assertMatrix('lookup', await readTable(page, 'c', host), [[10, 11], [40, 41], [30, 31]]);
    const note = await page.textContent(`${host} .note`);
    assert(note.includes('linha 2 de C = linha 4 de B'), note);
    await page.screenshot({ path: path.join(ARTIFACTS, `matmul-${mode}.png`), fullPage: true });
  });

  await check(`[${mode}] bag of words: counts, identical vectors, cosines 0,5 and 0,8944`, async () => {
    const host = '[data-widget=bow]';
    await page.goto(`${base}/frequencia-de-termos.html`);
    await waitWidget(page, host);
    const counts = await readTwin(page, host, 'counts');
    const row = ['dorme', 'gato', 'no', 'o', 'preto', 'subiu', 'telhado'].map((t) => counts.D1[t]);
    assert(row.join(' ') === '1,0000 2,0000 2,0000 2,0000 1,0000 1,0000 2,0000', `D1 ${row}`);
    await page.goto(`${base}/limitacoes-da-frequencia.html`);
    await waitWidget(page, host);
    assert((await readTwin(page, host, 'cosine')).D1.D2 === '1,0000', 'João/Maria cosine');
    for (const [preset, want] of [['carro', 0.5], ['filme', 0.8944]]) {
      await page.selectOption(`${host} [data-control=preset]`, preset);
      await waitWidget(page, host);
      const cos = (await readTwin(page, host, 'cosine')).D1.D2;
      assert(near(cos, want), `${preset}: cosine ${cos}`);
    }
  });

  await check(`[${mode}] TF variants: normalized 2/7 and 1/6, augmented, log base`, async () => {
    const host = '[data-widget=tf]';
    await page.goto(`${base}/tf-bruta-e-normalizada.html`);
    await waitWidget(page, host);
    let tf = await readTwin(page, host, 'tf');
    assert(near(tf.D1.preto, 2 / 7) && near(tf.D2.gato, 1 / 6) && near(tf.D3.preto, 1 / 7), JSON.stringify(tf.D1));
    await page.selectOption(`${host} [data-control=tf]`, 'log');
    await waitWidget(page, host);
    tf = await readTwin(page, host, 'tf');
    assert(near(tf.D1.preto, 1.6931), `ln: ${tf.D1.preto}`);
    await page.selectOption(`${host} [data-control=base]`, '10');
    await waitWidget(page, host);
    tf = await readTwin(page, host, 'tf');
    assert(near(tf.D1.preto, 1.3010), `log10: ${tf.D1.preto}`);
    await page.goto(`${base}/tf-variantes.html`);
    await waitWidget(page, host);
    tf = await readTwin(page, host, 'tf');
    assert(near(tf.D1.gato, 1) && near(tf.D1.preto, 0.8333) && near(tf.D1.dormiu, 0.6667), JSON.stringify(tf.D1));
  });

  await check(`[${mode}] IDF variants: basic, IDF+1, probabilistic with −∞, base 10`, async () => {
    const host = '[data-widget=idf]';
    await page.goto(`${base}/idf.html`);
    await waitWidget(page, host);
    let idf = await readIdf(page, host);
    assert(idf.preto[0] === '2' && idf.preto[1] === '0,4055' && idf.cachorro[1] === '1,0986' && idf.gato[1] === '0,0000', JSON.stringify(idf));
    await page.selectOption(`${host} [data-control=idf]`, 'plus1');
    await waitWidget(page, host);
    idf = await readIdf(page, host);
    assert(idf.gato[1] === '−0,2877' && idf.preto[1] === '0,0000' && idf.cachorro[1] === '0,4055', JSON.stringify(idf));
    await page.selectOption(`${host} [data-control=idf]`, 'probabilistic');
    await waitWidget(page, host);
    idf = await readIdf(page, host);
    assert(idf.gato[1] === '−∞' && idf.preto[1] === '−0,6931' && idf.cachorro[1] === '0,6931', JSON.stringify(idf));
    await page.selectOption(`${host} [data-control=base]`, '10');
    await waitWidget(page, host);
    idf = await readIdf(page, host);
    assert(idf.preto[1] === '−0,3010', JSON.stringify(idf.preto));
    const text = await page.textContent('main');
    assert(!/NaN/.test(text), 'NaN shown on the page');
  });

  await check(`[${mode}] TF-IDF: the three-document table and the detailed example`, async () => {
    const host = '[data-widget=tfidf]';
    await page.goto(`${base}/tf-idf-e-cosseno.html`);
    await waitWidget(page, host);
    let t = await readTwin(page, host, 'tfidf');
    assert(near(t.D1.preto, 0.1158) && near(t.D2.rato, 0.0676) && near(t.D1['caça'], 0.1569) && near(t.D2.branco, 0.1831), JSON.stringify(t.D1));
    await page.goto(`${base}/tf-idf-busca.html`);
    await waitWidget(page, host);
    t = await readTwin(page, host, 'tfidf');
    assert(near(t.D1.gato, 0.1260) && near(t.D1.dorme, 0.0630) && near(t.D2['é'], 0.1733), JSON.stringify(t));
    await page.selectOption(`${host} [data-control=base]`, '10');
    await waitWidget(page, host);
    t = await readTwin(page, host, 'tfidf');
    assert(near(t.D1.gato, 0.0547), `log10 ${t.D1.gato}`);
  });

  await check(`[${mode}] search: 0,6019, 0,0722 and 0 (not the article's 0,92 and 0,16)`, async () => {
    const host = '[data-widget=search]';
    await page.goto(`${base}/tf-idf-busca.html`);
    await waitWidget(page, host);
    const ranking = async () => page.$$eval(`${host} table.twin[data-bars=ranking] tr`, (rows) => rows.map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent]));
    let r = await ranking();
    assert(JSON.stringify(r) === JSON.stringify([['D1', '0,6019'], ['D2', '0,0722'], ['D3', '0,0000']]), JSON.stringify(r));
    await page.selectOption(`${host} [data-control=base]`, '10');
    await waitWidget(page, host);
    assert(JSON.stringify(await ranking()) === JSON.stringify(r), 'log base changed the cosines');
    await page.fill(`${host} [data-control=query]`, 'pássaro azul');
    await waitWidget(page, host);
    r = await ranking();
    // D3 has five equally weighted terms, two of them in the query: 2/(√2·√5) = 0,6325.
    assert(r[0][0] === 'D3' && near(r[0][1], 2 / Math.sqrt(10)) && r[1][1] === '0,0000', JSON.stringify(r));
    await page.screenshot({ path: path.join(ARTIFACTS, `search-${mode}.png`), fullPage: true });
  });

  await check(`[${mode}] corpus bad input: empty, punctuation only, emoji and scripts, 10 000 documents, 1 MB paste`, async () => {
    const host = '[data-widget=bow]';
    const corpus = `${host} [data-control=corpus]`;
    await page.goto(`${base}/frequencia-de-termos.html`);
    await waitWidget(page, host);
    await page.fill(corpus, '');
    await page.waitForSelector(`${host}[data-state=error]`);
    assert((await page.textContent(`${host} .widget-error`)).includes('vazio'), 'empty corpus message');
    await page.fill(corpus, '!!! ... ???');
    await page.waitForSelector(`${host}[data-state=error]`);
    assert(await page.inputValue(corpus) === '!!! ... ???', 'text lost');
    await page.fill(corpus, 'o gato e o rato\nde o a');
    await waitWidget(page, host);
    await page.check(`${host} [data-control=stopwords]`);
    await waitWidget(page, host);
    // The second document holds only stopwords: an empty row, not an error.
    const counts = await readTwin(page, host, 'counts');
    assert(Object.keys(counts.D1).join(' ') === 'gato rato' && counts.D2.gato === '0,0000', JSON.stringify(counts));
    await page.fill(corpus, 'o a de\npara com');
    await page.waitForSelector(`${host}[data-state=error]`);
    assert((await page.textContent(`${host} .widget-error`)).includes('stopwords'), 'stopword-only corpus message');
    await page.uncheck(`${host} [data-control=stopwords]`);
    await page.fill(corpus, '日本語 café 🙂 Ελληνικά\n<img src=x onerror=window.__pwned=1> café');
    await waitWidget(page, host);
    const vocab = await page.textContent(`${host} .vocabulary`);
    assert(vocab.includes('café') && vocab.includes('日本語'), vocab);
    assert(!(await page.evaluate(() => window.__pwned)), 'payload executed');
    // Large texts are set directly: typing them through the driver would take minutes.
    const paste = (text) => page.$eval(corpus, (el, t) => { el.value = t; el.dispatchEvent(new Event('input', { bubbles: true })); }, text);
    const words = ['gato', 'rato', 'cachorro', 'telhado', 'preto', 'branco', 'corre', 'late', 'dorme', 'caça'];
    await paste(Array.from({ length: 10000 }, (_, i) => `o ${words[i % 10]} e o ${words[(i * 7) % 10]} no documento`).join('\n'));
    await waitWidget(page, host);
    assert((await page.textContent(`${host} .note`)).includes('20 de 10000 documentos'), 'no summary for 10 000 documents');
    // 10 000 documents × 10 006 distinct words is past the size cap: a clear message, text kept.
    await paste(Array.from({ length: 10000 }, (_, i) => `documento ${i} fala de gato`).join('\n'));
    await page.waitForSelector(`${host}[data-state=error]`);
    assert((await page.textContent(`${host} .widget-error`)).includes('grande demais'), 'no size message');
    // 1 MB pastes: record long tasks (main-thread blocks) while the widget recomputes.
    await page.evaluate(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
    });
    for (const [shape, everyWords, expect] of [['100 documentos', 1500, 'ready'], ['7 700 linhas', 13, 'error']]) {
      let big = '';
      for (let i = 0; big.length < 1_000_000; i++) big += words[i % 10] + (i % 97) + ((i + 1) % everyWords === 0 ? '\n' : ' ');
      await page.evaluate(() => { window.__longTasks.length = 0; });
      const started = Date.now();
      await paste(big);
      await page.waitForSelector(`${host}[data-state=${expect}]`, { timeout: 30000 });
      const elapsed = Date.now() - started;
      await page.waitForTimeout(300);
      const longest = await page.evaluate(() => Math.max(0, ...window.__longTasks));
      const line = `${mode}: 1 MB paste in ${shape}: ${expect} after ${elapsed} ms; longest main-thread block ${longest.toFixed(0)} ms`;
      console.log(`     ${line}`);
      fs.appendFileSync(path.join(ARTIFACTS, 'measurements.txt'), `${line}\n`);
      if (expect === 'error') assert((await page.textContent(`${host} .widget-error`)).includes('grande demais'), 'no size message');
      else assert((await page.textContent(`${host} .vocabulary`)).includes('970 termos'), 'wrong vocabulary for the 1 MB paste');
    }
  });

}
