// Sequence modelling (issue 4): the widgets of "modelagem-de-sequencias" and "prestando-atencao".
// Golden values: ../shared/spec/2-modelagem-de-sequencias.md and 3-prestando-atencao.md, section 3,
// corrected where the inventories mark the article wrong; read back from the widgets' twin tables.
import path from 'node:path';
import { ARTIFACTS, check, assert, assertNear, parsePt, readTable, readResults, readTwin, waitWidget, assertMatrix } from '../lib.mjs';

/** Every page of the two articles with the widgets it holds. */
const PAGES = {
  'cadeias-de-markov': ['markov'],
  'matriz-de-transicao': ['transitions'],
  'vetorizacao-por-documento': ['doc-vectors'],
  'token-start': ['transitions'],
  'razao-de-verossimilhanca': ['likelihood'],
  'pares-com-saltos': ['votes'],
  'mascaramento-seletivo': ['vote-mask'],
  'atencao-matricial': ['attention'],
  'ffn-detector': ['ffn-detector'],
  'esparsidade-ngramas': ['sparsity'],
  'agregacao-de-pares': ['votes'],
  'agregacao-exemplo-detalhado': ['votes'],
  'produto-de-hadamard': ['vote-mask'],
  'mascaramento-com-embeddings': ['mask-embeddings'],
  'atencao-diferenciavel': ['softmax-lab'],
  'atencao-exemplo-numerico': ['attention'],
  'rede-feed-forward': ['ffn-detector'],
};

/** A bar chart's twin as { label: text }. */
async function readBars(page, host, key) {
  return page.$$eval(`${host} table.twin[data-bars="${key}"] tr`, (rows) =>
    Object.fromEntries(rows.map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent])));
}

/** Any label/value table with data-results=key (results tables and the graph's twin). */
async function readRows(page, host, key) {
  return page.$$eval(`${host} table[data-results="${key}"] tr`, (rows) =>
    Object.fromEntries(rows.filter((tr) => tr.querySelector('td')).map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent])));
}

/** Example 1's Table 1 (the three commands), read as { row: { column: text } }: the article's
 * row order and its transition probabilities. */
export function assertTable1(t) {
  assert(Object.keys(t).join(' ') === 'mostre me meus minhas diretórios arquivos fotos por favor', Object.keys(t).join(' '));
  assertNear('mostre → me', t.mostre.me, 1);
  assertNear('me → meus', t.me.meus, 2 / 3);
  assertNear('me → minhas', t.me.minhas, 1 / 3);
  assertNear('meus → diretórios', t.meus['diretórios'], 0.5);
  assertNear('fotos → por', t.fotos.por, 1);
}

/** h_meus × T: the row of "meus" (Example 1). */
export const LOOKUP_MEUS = [[0, 0, 0, 0, 0.5, 0.5, 0, 0, 0]];

function assertBars(name, got, want) {
  for (const [label, value] of Object.entries(want)) assertNear(`${name} ${label}`, got[label], value);
}

/** Waits until the widget has left "loading" (ready or error). */
async function settled(page, host) {
  await page.waitForFunction((h) => ['ready', 'error'].includes(document.querySelector(h)?.dataset.state), host, { timeout: 60000 });
  return page.getAttribute(host, 'data-state');
}

/** The widget's error message, or '' (without waiting for one to appear). */
async function errorText(page, host) {
  return page.$eval(host, (el) => el.querySelector(':scope > .widget-error')?.textContent ?? '');
}

async function noNaN(page, host) {
  // What is shown (innerText), once on screen: a block far from it is not rendered (content-visibility).
  const text = await page.$eval(host, async (el) => {
    el.scrollIntoView({ block: 'nearest' });
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    return el.innerText + [...el.querySelectorAll('table')].map((t) => t.textContent).join(' ');
  });
  assert(!/NaN|undefined|indefinido/.test(text), `${host} shows NaN/undefined`);
}

/** Sets a textarea (or input) in one go and fires "input", as a paste would. */
async function paste(page, selector, value) {
  await page.$eval(selector, (el, v) => { el.value = v; el.dispatchEvent(new Event('input', { bubbles: true })); }, value);
}

/** About 1 MB of text in the page: lines of 5–24 words from a 5 000-word vocabulary (seeded). */
async function megabyte(page) {
  return page.evaluate(() => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const lines = [];
    let size = 0;
    while (size < 1_000_000) {
      const n = 5 + Math.floor(next() * 20);
      const line = Array.from({ length: n }, () => `palavra${Math.floor(next() * 5000)}`).join(' ');
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join('\n');
  });
}

async function goto(page, base, route, host) {
  await page.goto(`${base}/${route}.html`);
  await waitWidget(page, host);
}

export default async function sequence({ page, base, mode }) {
  await check(`[${mode}] sequence pages: every widget reaches ready on its backend`, async () => {
    for (const [route, kinds] of Object.entries(PAGES)) {
      await page.goto(`${base}/${route}.html`);
      await page.waitForSelector('main h1');
      for (const kind of kinds) {
        const host = `[data-widget=${kind}]`;
        const state = await settled(page, host);
        if (state !== 'ready') throw new Error(`${route}: ${kind} is ${state}: ${await errorText(page, host)}`);
        const on = await page.getAttribute(host, 'data-computed-on');
        assert(on === null || on === mode, `${route}: ${kind} computed on ${on}`);
      }
    }
  });

  await check(`[${mode}] markov: weather graph, stationary (0,625; 0,375), convergence, animated days`, async () => {
    const host = '[data-widget=markov]';
    await goto(page, base, 'cadeias-de-markov', host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'markov backend');
    const edges = await readRows(page, host, 'graph');
    assert(edges['sol → sol'] === '0,7000' && edges['sol → chuva'] === '0,3000' && edges['chuva → sol'] === '0,5000', JSON.stringify(edges));
    const pi = await readResults(page, host, 'stationary');
    assert(pi['π(sol)'] === '0,6250' && pi['π(chuva)'] === '0,3750', JSON.stringify(pi));
    const days30 = await readTwin(page, host, 'convergence');
    assertNear('day 1 from sol', days30['dia 1']['começando com sol'], 0.7);
    assertNear('day 1 from chuva', days30['dia 1']['começando com chuva'], 0.5);
    assertNear('day 2 from sol', days30['dia 2']['começando com sol'], 0.64);
    assertNear('day 30 from sol', days30['dia 30']['começando com sol'], 0.625);
    assertNear('day 30 from chuva', days30['dia 30']['começando com chuva'], 0.625);
    await page.click(`${host} [data-action=sample]`);
    await page.waitForSelector(`${host}[data-animating]`);
    await page.waitForSelector(`${host}:not([data-animating])`, { timeout: 20000 });
    const days = (await page.getAttribute(`${host} .day-strip`, 'data-days')).split(' ');
    assert(days.length === 21 && days.every((d) => d === 'sol' || d === 'chuva'), days.join(' '));
    assert(await page.$$eval(`${host} .day-strip .day`, (xs) => xs.length) === 21, 'not every day was drawn');
    const share = await readResults(page, host, 'sampler');
    assertNear('shares sum to 1', String(parsePt(share['fração de dias de sol']) + parsePt(share['fração de dias de chuva'])), 1);
    await page.screenshot({ path: path.join(ARTIFACTS, `sequence-markov-${mode}.png`), fullPage: true });
  });

  await check(`[${mode}] markov: rows that are not stochastic are normalised or refused, never NaN`, async () => {
    const host = '[data-widget=markov]';
    const cell = (r, c) => `${host} [data-editor=p] input >> nth=${r * 2 + c}`;
    await page.fill(cell(0, 1), '0,4');
    await waitWidget(page, host);
    assert((await page.textContent(`${host} .note`)).includes('«sol» soma 1,1'), 'no note about the row sum');
    assertNear('sol → chuva normalised', (await readRows(page, host, 'graph'))['sol → chuva'], 0.4 / 1.1);
    await noNaN(page, host);
    await page.click(`${host} [data-action=normalize]`);
    await waitWidget(page, host);
    assertNear('written back', await page.inputValue(cell(0, 1)), 0.3636);
    await page.fill(cell(1, 0), '0');
    await page.fill(cell(1, 1), '0');
    await waitWidget(page, host);
    assert((await page.textContent(`${host} .note`)).includes('só tem zeros'), 'zero row not explained');
    const pi = await readResults(page, host, 'stationary');
    assert(pi['π(chuva)'] === '1,0000', JSON.stringify(pi));
    await noNaN(page, host);
    await page.fill(cell(1, 0), '-0,5');
    await page.waitForSelector(`${host}[data-state=error]`);
    assert((await page.textContent(`${host} .widget-error`)).includes('negativas'), 'negative cell message');
    await page.fill(cell(1, 0), 'abc');
    await page.waitForSelector(`${host}[data-state=error]`);
    assert((await page.textContent(`${host} .widget-error`)).includes('não é um número'), 'non-numeric message');
    await page.click(`${host} [data-action=reset]`);
    await waitWidget(page, host);
    assert((await readResults(page, host, 'stationary'))['π(sol)'] === '0,6250', 'reset');
  });

  await check(`[${mode}] transitions: Example 1's Table 1, h_meus × T, sentence probability, dead-end sampler`, async () => {
    const host = '[data-widget=transitions]';
    await goto(page, base, 'matriz-de-transicao', host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'transitions backend');
    const t = await readTwin(page, host, 'transitions');
    assertTable1(t);
    assert(Object.values(t.favor).every((v) => v === '0,0000'), 'favor row is not all zero');
    assertMatrix('h_meus × T', await readTable(page, 'lookup', host), LOOKUP_MEUS);
    assertMatrix('h_meus', await readTable(page, 'h', host), [[0, 0, 1, 0, 0, 0, 0, 0, 0]]);
    // The widget's own label is typeset (h with a subscript), and read as spoken.
    const hRow = await page.$eval(`${host} table.twin[data-matrix="h"] tr:nth-of-type(2) th`, (th) => [th.innerHTML, th.getAttribute('aria-label')]);
    assert(hRow[0] === 'h<sub>meus</sub>' && hRow[1] === 'h meus', `h row header: ${hRow}`);
    assertBars('after meus', await readBars(page, host, 'next'), { 'diretórios': 0.5, arquivos: 0.5 });
    const p = await readResults(page, host, 'sentence');
    assertNear('P(frase 1)', p['P(frase)'], 1 / 3);
    assertNear('P(meus | me)', p['P(meus | me)'], 2 / 3);
    // The chain always runs into "favor", which has no successor: a dead end, not a hang.
    const stop = await page.getAttribute(`${host} .sample`, 'data-stop');
    const words = await page.getAttribute(`${host} .sample`, 'data-words');
    assert(stop === 'dead-end' && words.endsWith('por favor'), `${stop}: ${words}`);
    assert((await page.textContent(`${host} .sample`)).includes('«favor»'), 'dead end not explained');
    await page.selectOption(`${host} [data-control=view]`, 'count');
    await waitWidget(page, host);
    assertNear('count me → meus', (await readTwin(page, host, 'transitions')).me.meus, 2);
    await page.selectOption(`${host} [data-control=word]`, 'me');
    await waitWidget(page, host);
    assertMatrix('h_me × T', await readTable(page, 'lookup', host), [[0, 0, 2 / 3, 1 / 3, 0, 0, 0, 0, 0]]);
    await page.click(`${host} [data-action=animate]`);
    await page.waitForSelector(`${host}[data-animating]`);
    await page.waitForSelector(`${host}:not([data-animating])`, { timeout: 20000 });
    const step = await page.textContent(`${host} .lookup-step`);
    assert(step.startsWith('R[favor]') && step.includes('T[me, favor]'), step);
    await page.check(`${host} [data-control=end]`);
    await waitWidget(page, host);
    await page.selectOption(`${host} [data-control=view]`, 'prob');
    await waitWidget(page, host);
    assertNear('favor → <END>', (await readTwin(page, host, 'transitions')).favor['<END>'], 1);
    await page.click(`${host} [data-action=sample]`);
    assert(await page.getAttribute(`${host} .sample`, 'data-stop') === 'end', 'with <END> the sampler stops at <END>');
    await page.screenshot({ path: path.join(ARTIFACTS, `sequence-transitions-${mode}.png`), fullPage: true });
  });

  await check(`[${mode}] transitions: bad corpora (empty, one-word documents, unknown words, 1 MB)`, async () => {
    const host = '[data-widget=transitions]';
    await goto(page, base, 'matriz-de-transicao', host);
    await page.uncheck(`${host} [data-control=end]`);
    await waitWidget(page, host);
    await paste(page, `${host} [data-control=corpus]`, '   \n  ');
    await page.waitForSelector(`${host}[data-state=error]`);
    assert((await page.textContent(`${host} .widget-error`)).includes('vazio'), 'empty corpus message');
    await paste(page, `${host} [data-control=corpus]`, '!!! ???');
    await page.waitForSelector(`${host}[data-state=error]`);
    assert((await page.textContent(`${host} .widget-error`)).includes('não tem palavras'), 'punctuation-only corpus message');
    // A reader's words are text: `_` and `^` in them are not notation.
    await paste(page, `${host} [data-control=corpus]`, 'x^2 snake_case x^2');
    await waitWidget(page, host);
    const typeset = await page.$$eval(`${host} table.twin[data-matrix="transitions"] :is(sub, sup)`, (els) => els.length);
    assert(typeset === 0, `${typeset} sub/sup elements in the reader's words`);
    await paste(page, `${host} [data-control=corpus]`, 'oi\ntchau');
    await waitWidget(page, host);
    await page.click(`${host} [data-action=sample]`);
    assert(await page.getAttribute(`${host} .sample`, 'data-stop') === 'dead-end', 'one-word documents: dead end');
    await paste(page, `${host} [data-control=sentence]`, 'oi gato');
    await waitWidget(page, host);
    assert((await readResults(page, host, 'sentence'))['P(frase)'] === '0,0000', 'unknown word gives 0');
    assert((await page.textContent(`${host} .note >> nth=-1`)).includes('«gato» não está no vocabulário'), 'unknown word not explained');
    // A probability too small for 4 decimals, in the site's scientific notation: "a" goes on
    // to "a" in 1 of 8 pairs, so five steps give 8⁻⁵ = 3,052 × 10⁻⁵.
    await paste(page, `${host} [data-control=corpus]`, ['a a', ...[...'bcdefgh'].map((w) => `a ${w}`)].join('\n'));
    await waitWidget(page, host);
    await paste(page, `${host} [data-control=sentence]`, 'a a a a a a');
    await waitWidget(page, host);
    const tiny = (await readResults(page, host, 'sentence'))['P(frase)'];
    assert(tiny === '3,052 × 10⁻⁵', `P(a a a a a a) = ${tiny}, expected 3,052 × 10⁻⁵ (8⁻⁵)`);
    await noNaN(page, host);
    const big = await megabyte(page);
    await paste(page, `${host} [data-control=corpus]`, big);
    const state = await settled(page, host);
    if (state !== 'ready') throw new Error(`1 MB corpus: ${state} ${await errorText(page, host)}`);
    assert((await page.textContent(`${host} .note`)).includes('mais frequentes'), 'clipping not announced');
    await page.click(`${host} [data-action=sample]`);
    const stop = await page.getAttribute(`${host} .sample`, 'data-stop');
    assert(['end', 'dead-end', 'max-length'].includes(stop), `sampler on 1 MB: ${stop}`);
    await noNaN(page, host);
  });

  await check(`[${mode}] transitions: eight documents with <START> (meus row corrected to 4/7, 3/7)`, async () => {
    const host = '[data-widget=transitions]';
    await goto(page, base, 'token-start', host);
    const t = await readTwin(page, host, 'transitions');
    assert(Object.keys(t).length === 26, `${Object.keys(t).length} rows`);
    assertBars('<START>', t['<START>'], { mostre: 0.5, por: 0.25, preciso: 0.125, gostaria: 0.125 });
    assertBars('meus', t.meus, { documentos: 4 / 7, arquivos: 3 / 7, fotos: 0 });
    assertBars('documentos', t.documentos, { importantes: 0.25, financeiros: 0.25, de: 0.25, fiscais: 0.25 });
    assertBars('favor (row sum, erratum E7)', t.favor, { mostre: 0.5, encontre: 0.5 });
    assertBars('bars of meus', await readBars(page, host, 'next'), { documentos: 4 / 7, arquivos: 3 / 7 });
    await page.selectOption(`${host} [data-control=word]`, '<START>');
    await waitWidget(page, host);
    assertBars('bars of <START>', await readBars(page, host, 'next'), { mostre: 0.5, por: 0.25 });
    assertNear('P(documento 1)', (await readResults(page, host, 'sentence'))['P(frase)'], 0.5 * 0.6 * (2 / 3) * (4 / 7) * 0.25);
  });

  await check(`[${mode}] doc-vectors: full flattening 0,6 / 0,4, the article's non-zero-only vectors all equal (E6)`, async () => {
    const host = '[data-widget=doc-vectors]';
    await goto(page, base, 'vetorizacao-por-documento', host);
    const cos = await readTwin(page, host, 'cosine');
    assertNear('cos D1 D2', cos.D1.D2, 0.6);
    assertNear('cos D1 D3', cos.D1.D3, 0.4);
    assertNear('cos D2 D3', cos.D2.D3, 0.4);
    const dist = await readTwin(page, host, 'euclidean');
    assertNear('d D1 D2', dist.D1.D2, 0.8944);
    assertNear('d D1 D3', dist.D1.D3, 1.0954);
    const d1 = await readTwin(page, host, 'doc-matrix');
    assertNear('T_1 meus → diretórios', d1.meus['diretórios'], 1);
    assertNear('T_1 meus → arquivos', d1.meus.arquivos, 0);
    await page.screenshot({ path: path.join(ARTIFACTS, `sequence-doc-vectors-${mode}.png`), fullPage: true });
    await page.selectOption(`${host} [data-control=flatten]`, 'nonzero');
    await waitWidget(page, host);
    assertMatrix('non-zero cosines', await readTable(page, 'cosine', host), [[1, 1, 1], [1, 1, 1], [1, 1, 1]]);
    const v = 1 / Math.sqrt(5);
    assertMatrix('non-zero vectors', await readTable(page, 'vectors', host), [[v, v, v, v, v], [v, v, v, v, v], [v, v, v, v, v]]);
    assert((await page.textContent(`${host} .note`)).includes('idênticos'), 'E6 not explained');
    await page.selectOption(`${host} [data-control=approach]`, 'triples');
    await waitWidget(page, host);
    let triples = await readResults(page, host, 'triples');
    assert(Object.keys(triples).length === 5, JSON.stringify(triples));
    assertNear('(mostre, me) normalised', triples['(mostre, me)'], v);
    await page.uncheck(`${host} [data-control=normalize]`);
    await waitWidget(page, host);
    triples = await readResults(page, host, 'triples');
    assertNear('(meus, diretórios)', triples['(meus, diretórios)'], 1);
    await paste(page, `${host} [data-control=corpus]`, 'gato\ncachorro');
    await waitWidget(page, host);
    assertMatrix('one-word documents have no transition', await readTable(page, 'cosine', host), [[0, 0], [0, 0]]);
    await noNaN(page, host);
  });

  await check(`[${mode}] likelihood: v₁* = [2; 1,6667; 1,5; 1,75; 4] (E2 corrected), 1,3333 with case kept`, async () => {
    const host = '[data-widget=likelihood]';
    await goto(page, base, 'razao-de-verossimilhanca', host);
    const bars = await readBars(page, host, 'ratios');
    assertBars('v1*', bars, { '<START> → mostre': 2, 'mostre → me': 5 / 3, 'me → meus': 1.5, 'meus → documentos': 1.75, 'documentos → importantes': 4 });
    assert(Object.keys(bars).length === 5, Object.keys(bars).join(', '));
    const corpus = await readTwin(page, host, 'corpus-matrix');
    assertNear('T_corpus mostre → me', corpus.mostre.me, 0.6);
    await page.screenshot({ path: path.join(ARTIFACTS, `sequence-likelihood-${mode}.png`), fullPage: true });
    await page.uncheck(`${host} [data-control=lowercase]`);
    await waitWidget(page, host);
    assertNear('case kept', (await readBars(page, host, 'ratios'))['Mostre → me'], 4 / 3);
    await page.check(`${host} [data-control=lowercase]`);
    await page.selectOption(`${host} [data-control=document]`, '2');
    await waitWidget(page, host);
    assertBars('v3*', await readBars(page, host, 'ratios'), { '<START> → por': 4, 'por → favor': 1, 'favor → mostre': 2, 'mostre → meus': 2.5 });
  });

  await check(`[${mode}] votes: "ele" prefix gives foi 5 × acabou 3, the accumulated bars and the executado case`, async () => {
    const host = '[data-widget=votes]';
    await goto(page, base, 'pares-com-saltos', host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'votes backend');
    assert((await readResults(page, host, 'model'))['pares (wᵢ, wₜ) distintos no treino'] === '93', 'feature count');
    assertBars('scores', await readBars(page, host, 'scores'), { foi: 5, acabou: 3 });
    const acc = await readTwin(page, host, 'cumulative');
    assertBars('after log', acc['até log'], { foi: 1.5, acabou: 1.5 });
    assertBars('after programa', acc['até programa'], { foi: 3.5, acabou: 1.5 });
    assertBars('after se', acc['até se'], { foi: 5, acabou: 3 });
    const decision = await readResults(page, host, 'prediction');
    assert(decision['previsão'] === 'foi' && decision['margem (1ª − 2ª)'] === '2,0000', JSON.stringify(decision));
    const votes = await readTwin(page, host, 'votes');
    assertBars('(se, ele)', votes['(se, ele)'], { foi: 0.5, acabou: 0.5 });
    assertBars('(programa, ele)', votes['(programa, ele)'], { foi: 1, acabou: 0 });
    await page.fill(`${host} [data-control=prefix]`, '5');
    await waitWidget(page, host);
    assert((await readResults(page, host, 'model'))['wₜ (última palavra do prefixo)'] === 'programa', 'prefix slider');
    await page.fill(`${host} [data-control=sentence]`, 'Verifique o log do programa e descubra se ele foi executado');
    await waitWidget(page, host);
    assertBars('executado', await readBars(page, host, 'scores'), { por: 10 });
    assert(Object.keys(await readResults(page, host, 'triples')).length === 10, 'ten triples with executado');
    for (const word of ['verifique', 'o', 'log', 'do', 'e', 'descubra', 'se', 'ele', 'foi']) {
      await page.uncheck(`${host} input[data-control=row][data-word="${word}"]`);
    }
    await waitWidget(page, host);
    assertBars('{programa}', await readBars(page, host, 'scores'), { por: 1 });
    await page.screenshot({ path: path.join(ARTIFACTS, `sequence-votes-${mode}.png`), fullPage: true });
    await page.fill(`${host} [data-control=weights]`, '0,5');
    await page.waitForSelector(`${host}[data-state=error]`);
    assert((await page.textContent(`${host} .widget-error`)).includes('2 documentos e 1 pesos'), 'weight count message');
    // Skip pairs cost O(T²) per document: a megabyte is refused with the reason, the text kept.
    await page.fill(`${host} [data-control=weights]`, '');
    await paste(page, `${host} [data-control=corpus]`, await megabyte(page));
    assert(await settled(page, host) === 'error', '1 MB of skip pairs should be refused');
    assert((await errorText(page, host)).includes('limite'), await errorText(page, host));
    assert((await page.inputValue(`${host} [data-control=corpus]`)).length > 900_000, 'the pasted text was lost');
  });

  await check(`[${mode}] votes (prestando E2, E3): 17 words and por 10 / 9; five documents 3,5 × 1,5 and the masked 1,0 × 1,0`, async () => {
    const host = '[data-widget=votes]';
    await goto(page, base, 'agregacao-de-pares', host);
    assert((await readResults(page, host, 'model'))['palavras no vocabulário'] === '17', 'E2 vocabulary');
    assertBars('D1 executado', await readBars(page, host, 'scores'), { por: 10 });
    await page.fill(`${host} [data-control=sentence]`, 'Verifique o log da bateria e descubra se ela acabou');
    await waitWidget(page, host);
    assertBars('D2 acabou', await readBars(page, host, 'scores'), { por: 9 });

    await goto(page, base, 'agregacao-exemplo-detalhado', host);
    const model = await readResults(page, host, 'model');
    assert(model['palavras no vocabulário'] === '34' && model['pares (wᵢ, wₜ) distintos no treino'] === '198', JSON.stringify(model));
    assertBars('test A', await readBars(page, host, 'scores'), { por: 3.5, com: 1.5 });
    const triples = await readResults(page, host, 'triples');
    assert(Object.keys(triples).length === 13, `${Object.keys(triples).length} triples`);
    assertNear('(o, executado) → com', triples['(o, executado) → com'], 0.2);
    for (const word of ['verifique', 'se', 'o']) await page.uncheck(`${host} input[data-control=row][data-word="${word}"]`);
    await waitWidget(page, host);
    assertBars('test A, {programa, foi}', await readBars(page, host, 'scores'), { por: 1, com: 1 });
    assert((await readResults(page, host, 'prediction'))['previsão'].startsWith('empate'), 'tie not reported');
    await page.fill(`${host} [data-control=sentence]`, 'Verifique se ele foi executado');
    await waitWidget(page, host);
    await page.uncheck(`${host} input[data-control=row][data-word="foi"]`);
    await waitWidget(page, host);
    const b = await readBars(page, host, 'scores');
    assert(b.por === '1,0000' && b.com === undefined, `test B, {ele}: ${JSON.stringify(b)}`);
  });

  await check(`[${mode}] vote-mask: V, m, V ∘ m; {programa, bateria} leaves foi 1; a weight of 0,5 counts half`, async () => {
    const host = '[data-widget=vote-mask]';
    await goto(page, base, 'mascaramento-seletivo', host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'vote-mask backend');
    const scores = await readBars(page, host, 'scores');
    assert(scores.foi === '1,0000' && scores.acabou === undefined, JSON.stringify(scores));
    const masked = await readTwin(page, host, 'masked');
    assertBars('masked programa', masked['(programa, ele)'], { foi: 1, acabou: 0 });
    assertBars('masked se', masked['(se, ele)'], { foi: 0, acabou: 0 });
    const m = await readTwin(page, host, 'mask');
    assert(m['(programa, ele)'].m === '1,0000' && m['(se, ele)'].m === '0,0000', JSON.stringify(m));
    await page.fill(`${host} input[data-control=weight][data-word=se]`, '0.5');
    await waitWidget(page, host);
    assertBars('se at 0,5', await readBars(page, host, 'scores'), { foi: 1.25, acabou: 0.25 });
    await goto(page, base, 'produto-de-hadamard', host);
    assertBars('test A with {programa, foi}', await readBars(page, host, 'scores'), { por: 1, com: 1 });
    await page.screenshot({ path: path.join(ARTIFACTS, `sequence-vote-mask-${mode}.png`), fullPage: true });
  });

  await check(`[${mode}] mask-embeddings (E4 corrected): −∞ mask, the article's ×0 bug, unmasked`, async () => {
    const host = '[data-widget=mask-embeddings]';
    await goto(page, base, 'mascaramento-com-embeddings', host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'mask-embeddings backend');
    assertMatrix('q4', await readTable(page, 'q', host), [[0.18, 0.31, 0.19]]);
    assertMatrix('k0', [(await readTable(page, 'k', host))[0]], [[0.18, -0.01, 0.21]]);
    const scores = await readTable(page, 'scores', host);
    assertMatrix('s4', [scores[1]], [[0.03995, 0.04659, 0.10456, 0.03083, 0.08412]]);
    assert(scores[2][1] === '−∞' && scores[2][3] === '−∞', `masked scores ${scores[2]}`);
    assertMatrix('α additive', await readTable(page, 'weights', host), [[0.32135, 0, 0.34279, 0, 0.33586]]);
    assertMatrix('c4', await readTable(page, 'context', host), [[0.18879, 0.20173, 0.19456]]);
    await page.selectOption(`${host} [data-control=mode]`, 'multiplicative');
    await waitWidget(page, host);
    assertMatrix('α multiplicative', await readTable(page, 'weights', host), [[0.19867, 0.19089, 0.21192, 0.19089, 0.20764]]);
    assert((await page.textContent(`${host} .note`)).includes('e⁰ = 1'), 'bug not explained');
    await page.selectOption(`${host} [data-control=mode]`, 'none');
    await waitWidget(page, host);
    assertMatrix('α unmasked', await readTable(page, 'weights', host), [[0.19571, 0.19702, 0.20878, 0.19394, 0.20455]]);
    await page.fill(`${host} [data-editor=mask] input >> nth=0`, '2');
    await page.waitForSelector(`${host}[data-state=error]`);
    assert((await page.textContent(`${host} .widget-error`)).includes('entre 0 e 1'), 'mask range message');
    await page.click(`${host} [data-action=reset]`);
    await waitWidget(page, host);
    assertMatrix('after reset', await readTable(page, 'weights', host), [[0.32135, 0, 0.34279, 0, 0.33586]]);
    await page.screenshot({ path: path.join(ARTIFACTS, `sequence-mask-embeddings-${mode}.png`), fullPage: true });
  });

  await check(`[${mode}] attention (prestando E5): A and the output; causal mask on the modelagem page`, async () => {
    const host = '[data-widget=attention]';
    await goto(page, base, 'atencao-exemplo-numerico', host);
    assertMatrix('Q', await readTable(page, 'q', host), [[0.26, 0.24, -0.04], [-0.08, 0.16, 0.33], [0.17, 0.08, 0.36]]);
    assertMatrix('A', await readTable(page, 'weights', host), [[0.334267, 0.326372, 0.339362], [0.344450, 0.328466, 0.327084], [0.332448, 0.334200, 0.333352]]);
    assertMatrix('output', await readTable(page, 'output', host), [[0.265574, 0.035291, 0.218821], [0.262702, 0.033237, 0.218443], [0.263216, 0.033197, 0.220201]]);
    await goto(page, base, 'atencao-matricial', host);
    assert(await page.isChecked(`${host} [data-control=causal]`), 'data-causal ignored');
    assertMatrix('A causal', await readTable(page, 'weights', host), [[1, 0, 0], [0.5119, 0.4881, 0], [0.3324, 0.3342, 0.3334]]);
    assertMatrix('output row 2 causal', [(await readTable(page, 'output', host))[1]], [[0.1717, -0.0381, 0.2323]]);
  });

  await check(`[${mode}] ffn-detector: [1,0,1,1] → [1,0,1,1,0,0,1,0], AND truth table, −1 → 0, GeLU leak`, async () => {
    const host = '[data-widget=ffn-detector]';
    await goto(page, base, 'ffn-detector', host);
    assert(await page.getAttribute(host, 'data-computed-on') === mode, 'ffn backend');
    const values = async (key) => Object.values(await readBars(page, host, key)).map(parsePt);
    assert((await values('pre')).join() === '1,0,1,1,0,0,1,0', `pre ${await values('pre')}`);
    assert((await values('post')).join() === '1,0,1,1,0,0,1,0', `post ${await values('post')}`);
    assert((await readResults(page, host, 'active'))['neurônios ativos'] === 'feat_bateria, feat_executado, feat_bias, feat_bat_exec', 'active neurons');
    const truth = await readTwin(page, host, 'truth');
    assert(Object.keys(truth).length === 8, 'truth table rows');
    for (const [label, row] of Object.entries(truth)) {
      const [b, p, e] = label.match(/\d/g).map(Number);
      assert(parsePt(row['6']) === (b && e ? 1 : 0) && parsePt(row['7']) === (p && e ? 1 : 0), `${label}: ${JSON.stringify(row)}`);
    }
    const inputs = `${host} input[data-control=input]`;
    await page.uncheck(`${inputs} >> nth=0`);
    await page.check(`${inputs} >> nth=1`);
    await waitWidget(page, host);
    assert((await values('post')).join() === '0,1,1,1,0,0,0,1', `programa+executado ${await values('post')}`);
    await page.check(`${inputs} >> nth=0`);
    await page.uncheck(`${inputs} >> nth=1`);
    await page.uncheck(`${inputs} >> nth=2`);
    await waitWidget(page, host);
    assert((await values('pre'))[7] === -1 && (await values('post'))[7] === 0, 'row 7: −1 before, 0 after ReLU');
    await page.selectOption(`${host} [data-control=activation]`, 'gelu');
    await waitWidget(page, host);
    assertNear('GeLU(−1)', String((await values('post'))[7]).replace('.', ','), -0.1588, 1e-3);
    await page.fill(`${host} [data-editor=w1] input >> nth=0`, 'x');
    await page.waitForSelector(`${host}[data-state=error]`);
    assert((await page.textContent(`${host} .widget-error`)).includes('não é um número'), 'W1 cell message');
    await page.click(`${host} [data-action=reset]`);
    await waitWidget(page, host);
    await page.screenshot({ path: path.join(ARTIFACTS, `sequence-ffn-${mode}.png`), fullPage: true });
  });

  await check(`[${mode}] sparsity: 2,5 × 10⁹, 1,25 × 10¹⁴, 6,25 × 10¹⁸; observed vs possible; bad |V|`, async () => {
    const host = '[data-widget=sparsity]';
    await goto(page, base, 'esparsidade-ngramas', host);
    const r = await readResults(page, host, 'explosion');
    assert(r['bigramas (N = 2)'] === '2,5 × 10⁹' && r['trigramas (N = 3)'] === '1,25 × 10¹⁴' && r['tetragramas (N = 4)'] === '6,25 × 10¹⁸', JSON.stringify(r));
    assert(r['por extenso'] === '125.000.000.000.000', r['por extenso']);
    const rows = await page.$$eval(`${host} table[data-results=sparsity] tr[data-n]`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert(rows[0][0] === '34' && rows[0][1] === '34', `N = 1: ${rows[0]}`);
    assert(rows[1][0] === '1156' && Number(rows[1][1]) < 1156, `N = 2: ${rows[1]}`);
    await page.fill(`${host} [data-control=vocabulary]`, 'muitas');
    await page.waitForSelector(`${host}[data-state=error]`);
    assert((await page.textContent(`${host} .widget-error`)).includes('número inteiro'), '|V| message');
    await page.fill(`${host} [data-control=vocabulary]`, '50.000');
    await waitWidget(page, host);
    await paste(page, `${host} [data-control=corpus]`, '');
    await page.waitForSelector(`${host}[data-state=error]`);
    await paste(page, `${host} [data-control=corpus]`, await megabyte(page));
    assert(await settled(page, host) === 'ready', `1 MB: ${await errorText(page, host)}`);
    const big = await page.$$eval(`${host} table[data-results=sparsity] tr[data-n]`, (trs) => trs.map((tr) => tr.querySelector('td:nth-child(3)').textContent));
    assert(Number(big[0]) > 4000 && Number(big[0]) <= 5000, `1 MB vocabulary ${big[0]}`);
    await page.selectOption(`${host} [data-control=preset]`, 'oito-documentos');
    await waitWidget(page, host);
    await page.screenshot({ path: path.join(ARTIFACTS, `sequence-sparsity-${mode}.png`), fullPage: true });
  });

  await check(`[${mode}] softmax-lab: shift changes nothing, scale does, Jacobian s(1 − s)`, async () => {
    const host = '[data-widget=softmax-lab]';
    await goto(page, base, 'atencao-diferenciavel', host);
    assertBars('softmax(z)', await readBars(page, host, 'plain'), { 's₁': 0.6590, 's₂': 0.2424, 's₃': 0.0986 });
    assertBars('softmax(z + c)', await readBars(page, host, 'shifted'), { 's₁': 0.6590, 's₂': 0.2424, 's₃': 0.0986 });
    const inv = await readResults(page, host, 'invariance');
    assert(inv['maior diferença: somar c'] === '0,0000' && parsePt(inv['maior diferença: multiplicar por k']) > 0.1, JSON.stringify(inv));
    const j = await readTwin(page, host, 'jacobian');
    assertNear('J11', j['s₁']['s₁'], 0.6590 * (1 - 0.6590), 2e-4);
    assertNear('J12', j['s₁']['s₂'], -0.6590 * 0.2424, 2e-4);
    await page.screenshot({ path: path.join(ARTIFACTS, `sequence-softmax-lab-${mode}.png`), fullPage: true });
  });
}
