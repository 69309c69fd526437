// End-to-end tests of the built site (dist/) in headless Chromium, once with WebGPU
// (SwiftShader) and once without a GPU (CPU fallback). Usage: node tests/e2e/run.mjs [dist]
//
// Each mode: the backend attribute, the table of contents, every page without console
// errors and with MathML, the attention widget's golden numbers read from its table twin,
// the causal mask, bad input, drawn canvas pixels, the forced-CPU switch; screenshots go to
// tests/artifacts/. Ends with the line "N passed, M failed".
import { chromium } from 'playwright-core';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const DIST = path.resolve(process.argv[2] ?? 'dist');
const ARTIFACTS = path.resolve('tests/artifacts');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
fs.mkdirSync(ARTIFACTS, { recursive: true });

const BASE_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];
const MODES = {
  webgpu: [...BASE_ARGS, '--enable-unsafe-webgpu', '--enable-features=Vulkan'],
  cpu: [...BASE_ARGS, '--disable-gpu'],
};

// Golden values: ../shared/spec/4-transformer.md, textbook Example 2 (corrected where the article is wrong).
const GOLDEN = {
  q: [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.5, 0.7, 0.9]],
  k: [[0.9, 0.8, 0.7], [0.6, 0.5, 0.4], [1.5, 1.3, 1.1]],
  v: [[0.2, 0.4, 0.6], [0.1, 0.3, 0.5], [0.3, 0.7, 1.1]],
  scores: [[0.2656, 0.1617, 0.4272], [0.6813, 0.4215, 1.1027], [0.9469, 0.5831, 1.5300]],
  weights: [[0.3250, 0.2929, 0.3820], [0.3035, 0.2340, 0.4625], [0.2868, 0.1994, 0.5138]],
  output: [[0.2089, 0.4853, 0.7617], [0.2228, 0.5154, 0.8079], [0.2314, 0.5342, 0.8370]],
};
const GOLDEN_CAUSAL = {
  weights: [[1, 0, 0], [0.5646, 0.4354, 0], [0.2868, 0.1994, 0.5138]],
  output: [[0.2, 0.4, 0.6], [0.1565, 0.3565, 0.5565], [0.2314, 0.5342, 0.8370]],
};
const ATTENTION_PAGE = '#/queries-keys-values';

const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json', '.png': 'image/png' };

function serve(root) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root)) { res.writeHead(403); return res.end(); }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!fs.existsSync(file)) { res.writeHead(404); return res.end('not found'); }
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (error) {
    failed++;
    console.log(`FAIL ${name}\n     ${String(error?.stack ?? error).split('\n').slice(0, 4).join('\n     ')}`);
  }
}
function assert(cond, message) { if (!cond) throw new Error(message); }

/** "−0,5000" → -0.5; "−∞" → -Infinity. */
function parsePt(text) {
  const t = text.trim().replace('−', '-');
  if (t === '-∞') return -Infinity;
  return Number(t.replace(',', '.'));
}

async function readTable(page, key, host = '[data-widget=attention]') {
  return page.$$eval(`${host} table.twin[data-matrix="${key}"] tr`, (rows) =>
    rows.slice(1).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
}

/** A widget's results table as { label: value }. */
async function readResults(page, host, key) {
  return page.$$eval(`${host} table.results[data-results="${key}"] tr`, (rows) =>
    Object.fromEntries(rows.map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent])));
}

/** A twin table as { row label: { column label: text } }. */
async function readTwin(page, host, key) {
  return page.$$eval(`${host} table.twin[data-matrix="${key}"] tr`, (rows) => {
    const cols = [...rows[0].querySelectorAll('th')].slice(1).map((th) => th.textContent);
    return Object.fromEntries(rows.slice(1).map((tr) => [tr.querySelector('th').textContent,
      Object.fromEntries([...tr.querySelectorAll('td')].map((td, i) => [cols[i], td.textContent]))]));
  });
}

/** The IDF table as { term: [df, idf] }. */
async function readIdf(page, host) {
  return page.$$eval(`${host} table[data-results=idf] tr[data-term]`, (rows) =>
    Object.fromEntries(rows.map((tr) => [tr.dataset.term, [...tr.querySelectorAll('td')].map((td) => td.textContent)])));
}

function near(text, want, tol = 1e-4) {
  return Math.abs(parsePt(text) - want) <= tol;
}

async function waitWidget(page, host) {
  await page.waitForSelector(`${host}[data-state=ready]`, { timeout: 30000 });
}

function assertMatrix(name, texts, want, tol = 1e-4) {
  assert(texts.length === want.length, `${name}: ${texts.length} rows, want ${want.length}`);
  texts.forEach((row, r) => {
    assert(row.length === want[r].length, `${name} row ${r}: ${row.length} cols`);
    row.forEach((text, c) => {
      const got = parsePt(text);
      assert(Math.abs(got - want[r][c]) <= tol, `${name}[${r}][${c}] = "${text}", want ${want[r][c]}`);
    });
  });
}

async function waitReady(page) {
  await page.waitForSelector('[data-widget=attention][data-state=ready]', { timeout: 30000 });
}

async function runMode(mode, base) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: MODES[mode] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 2 });
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
  page.on('pageerror', (err) => consoleErrors.push(String(err)));

  await check(`[${mode}] <html data-backend> is "${mode}"`, async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector('html[data-backend]', { timeout: 30000 });
    const backend = await page.getAttribute('html', 'data-backend');
    assert(backend === mode, `data-backend = ${backend}`);
    const badge = await page.textContent('#backend-badge');
    assert(badge === (mode === 'webgpu' ? 'WebGPU' : 'CPU'), `badge says ${badge}`);
  });

  await check(`[${mode}] table of contents lists the five articles and their sections`, async () => {
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
      await page.waitForSelector('main h1');
      await page.waitForFunction(() => [...document.querySelectorAll('[data-widget]')].every((w) => w.dataset.state === 'ready' || w.dataset.state === 'error'), null, { timeout: 30000 });
      const info = await page.evaluate(() => ({
        math: document.querySelectorAll('main math').length,
        raw: /\$\$|\\frac|\\sqrt/.test(document.querySelector('main').innerText),
        errors: document.querySelectorAll('[data-state=error]').length,
        merror: document.querySelectorAll('main merror').length,
      }));
      assert(!info.raw, `${route}: raw LaTeX in text`);
      assert(info.errors === 0, `${route}: a widget in error state`);
      assert(info.merror === 0, `${route}: a formula failed to render`);
      if (info.math > 0) mathPages++;
    }
    assert(mathPages >= 20, `only ${mathPages} pages have formulas`);
    await page.goto(`${base}/#/nao-existe`);
    const notFound = await page.textContent('main');
    assert(notFound.includes('nao-existe'), 'unknown route not reported');
  });

  await check(`[${mode}] vectors: a + b, −a and k·a, and dragging b's tip`, async () => {
    const host = '[data-widget=vectors]';
    await page.goto(`${base}/#/vetores`);
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
    await page.goto(`${base}/#/produto-escalar`);
    await waitWidget(page, host);
    let r = await readResults(page, host, 'dot');
    assert(r['u·v'] === '15,0000' && r['cos θ'] === '0,5371' && r['relação'].includes('agudo'), JSON.stringify(r));
    const strip = await page.$$eval(`${host} table.twin[data-bars=products] td`, (tds) => tds.map((td) => td.textContent));
    assert(strip.join(' ') === '6,0000 5,0000 4,0000', `products ${strip}`);
    await page.check(`${host} [data-control=normalize]`);
    await waitWidget(page, host);
    r = await readResults(page, host, 'dot');
    assert(r['u·v'] === '0,5371' && r['‖u‖'] === '1,0000', JSON.stringify(r));
    await page.goto(`${base}/#/norma-e-similaridade`);
    await waitWidget(page, host);
    r = await readResults(page, host, 'dot');
    assert(r['θ (graus)'] === '135,00' && r['relação'].includes('obtuso'), JSON.stringify(r));
    await page.selectOption(`${host} [data-control=preset]`, 'one-hot');
    r = await readResults(page, host, 'dot');
    assert(r['u·v'] === '0,7000' && r['‖v‖'] === '0,7348', JSON.stringify(r));
  });

  await check(`[${mode}] matmul: the article's product, cell steps and the one-hot lookup`, async () => {
    const host = '[data-widget=matmul]';
    await page.goto(`${base}/#/multiplicacao-de-matrizes`);
    await waitWidget(page, host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'matmul backend');
    assertMatrix('C', await readTable(page, 'c', host), [[25, 28], [57, 64], [89, 100]]);
    await page.click(`${host} [data-action=next-cell]`);
    await page.click(`${host} [data-action=next-cell]`);
    const step = await page.textContent(`${host} .matmul-step`);
    assert(step === 'C[2, 1] = linha 2 de A · coluna 1 de B = 3·7 + 4·9 = 57', step);
    const lit = await page.$$eval(`${host} [data-editor=a] input.highlight`, (xs) => xs.length);
    assert(lit === 2, `${lit} highlighted cells in A`);
    await page.goto(`${base}/#/one-hot`);
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
    await page.goto(`${base}/#/frequencia-de-termos`);
    await waitWidget(page, host);
    const counts = await readTwin(page, host, 'counts');
    const row = ['dorme', 'gato', 'no', 'o', 'preto', 'subiu', 'telhado'].map((t) => counts.D1[t]);
    assert(row.join(' ') === '1,0000 2,0000 2,0000 2,0000 1,0000 1,0000 2,0000', `D1 ${row}`);
    await page.goto(`${base}/#/limitacoes-da-frequencia`);
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
    await page.goto(`${base}/#/tf-bruta-e-normalizada`);
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
    await page.goto(`${base}/#/tf-variantes`);
    await waitWidget(page, host);
    tf = await readTwin(page, host, 'tf');
    assert(near(tf.D1.gato, 1) && near(tf.D1.preto, 0.8333) && near(tf.D1.dormiu, 0.6667), JSON.stringify(tf.D1));
  });

  await check(`[${mode}] IDF variants: basic, IDF+1, probabilistic with −∞, base 10`, async () => {
    const host = '[data-widget=idf]';
    await page.goto(`${base}/#/idf`);
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
    await page.goto(`${base}/#/tf-idf-e-cosseno`);
    await waitWidget(page, host);
    let t = await readTwin(page, host, 'tfidf');
    assert(near(t.D1.preto, 0.1158) && near(t.D2.rato, 0.0676) && near(t.D1['caça'], 0.1569) && near(t.D2.branco, 0.1831), JSON.stringify(t.D1));
    await page.goto(`${base}/#/tf-idf-busca`);
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
    await page.goto(`${base}/#/tf-idf-busca`);
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
    await page.goto(`${base}/#/frequencia-de-termos`);
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

  await check(`[${mode}] masked softmax: the explicando-transformers mask example`, async () => {
    const host = '[data-widget=masked-softmax]';
    await page.goto(`${base}/#/autorregressao-e-mascara`);
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
    await check('[webgpu] the "forçar CPU" switch recomputes on the CPU and is remembered', async () => {
      await page.goto(`${base}/${ATTENTION_PAGE}`);
      await waitReady(page);
      await page.check('#force-cpu');
      await page.waitForSelector('html[data-backend=cpu]');
      await page.waitForSelector('[data-widget=attention][data-computed-on=cpu][data-state=ready]');
      assertMatrix('weights on CPU', await readTable(page, 'weights'), GOLDEN.weights);
      await page.reload();
      await page.waitForSelector('html[data-backend=cpu]');
      assert(await page.isChecked('#force-cpu'), 'switch not remembered');
      await page.uncheck('#force-cpu');
      await page.waitForSelector('html[data-backend=webgpu]');
      await page.waitForSelector('[data-widget=attention][data-computed-on=webgpu][data-state=ready]');
    });
    await check('[webgpu] ?backend=cpu in the URL forces the CPU', async () => {
      await page.goto(`${base}/?backend=cpu${ATTENTION_PAGE}`);
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

  await check(`[${mode}] no console errors`, async () => {
    assert(consoleErrors.length === 0, consoleErrors.join('\n'));
  });
  await browser.close();
}

const server = await serve(DIST);
const base = `http://127.0.0.1:${server.address().port}`;
const modes = process.env.E2E_MODES ? process.env.E2E_MODES.split(',') : ['webgpu', 'cpu'];
for (const mode of modes) await runMode(mode, base);
server.close();
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
