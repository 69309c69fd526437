// Today's decoder block, part by part (issue 41): the four widgets of "Do Transformer de 2017
// aos modelos de hoje" (rope, rms-norm, swiglu, gqa). Numbers are checked against what this
// file derives by hand (RoPE's closed form, the norms' statistics, the parameter counts, the KV
// cache's bytes) and compared between the two modes (WebGPU vs CPU); bad input gets a message
// and keeps what the reader typed.
import path from 'node:path';
import { ARTIFACTS, acrossModes, check, assert, parsePt, readTable, readResults, waitWidget, assertNear } from '../lib.mjs';

const PAGE = 'do-transformer-de-2017-aos-modelos-de-hoje.html';
/** Numbers seen in the first mode, compared with the second: the backends must agree. */
const sameInBothModes = acrossModes();
const numbers = (rows) => rows.map((r) => r.map(parsePt));
const shot = (page, host, name, mode) => page.locator(host).first().screenshot({ path: path.join(ARTIFACTS, `modern-${name}-${mode}.png`) });

/** RoPE's score for q at m and k at n, by the closed form (pairs turned by (n − m)·ω_i). */
function ropeScore(q, k, offset, theta = 10000) {
  let sum = 0;
  for (let i = 0; i < q.length / 2; i++) {
    const [q0, q1, k0, k1] = [q[2 * i], q[2 * i + 1], k[2 * i], k[2 * i + 1]];
    const angle = offset * theta ** (-2 * i / q.length);
    sum += (q0 * k0 + q1 * k1) * Math.cos(angle) + (q0 * k1 - q1 * k0) * Math.sin(angle);
  }
  return sum;
}

async function errorText(page, host) {
  await page.waitForSelector(`${host}[data-state=error]`, { timeout: 10000 });
  return page.textContent(`${host} .widget-error`);
}

export default async function modern({ page, base, mode }) {
  await check(`[${mode}] the page of today's block loads its own build, its four widgets ready on ${mode}`, async () => {
    await page.goto(`${base}/${PAGE}`);
    assert(await page.getAttribute('main', 'data-module') === 'atencao-modern', await page.getAttribute('main', 'data-module'));
    for (const name of ['rope', 'rms-norm', 'swiglu', 'gqa']) {
      const host = `[data-widget=${name}]`;
      await waitWidget(page, host);
      assert(await page.getAttribute(host, 'data-computed-on') === mode, `${name} computed on ${await page.getAttribute(host, 'data-computed-on')}`);
      assert(await page.$(`${host} .legend, ${host} canvas`), `${name}: nothing drawn`);
    }
    // The module fetched is that build, not the one with every widget.
    const fetched = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname.split('/').pop()).filter((f) => f.endsWith('_bg.wasm')));
    assert(fetched.join() === 'atencao-modern_bg.wasm', `fetched ${fetched.join()}`);
  });

  await check(`[${mode}] rope: q_m·k_n is RoPE's closed form and constant along each diagonal; the added encoding's is not`, async () => {
    const host = '[data-widget=rope]';
    await page.goto(`${base}/${PAGE}`);
    await waitWidget(page, host);
    const [q, k] = [[1, 0.5, -0.3, 0.8], [0.6, -0.2, 0.9, 0.4]];
    const scores = numbers(await readTable(page, 'rope-scores', host));
    assert(scores.length === 8 && scores[0].length === 8, `${scores.length} positions`);
    for (let m = 0; m < 8; m++) for (let n = 0; n < 8; n++) {
      const want = ropeScore(q, k, m - n);
      assert(Math.abs(scores[m][n] - want) <= 1e-4, `q_${m}·k_${n} = ${scores[m][n]}, want ${want}`);
    }
    const added = numbers(await readTable(page, 'added-scores', host));
    const spread = Math.max(...added.map((row, m) => Math.abs(row[m] - added[0][0])));
    assert(spread > 0.1, `the added encoding's main diagonal is nearly constant (${spread})`);
    const results = await readResults(page, host, 'rope');
    assert(parsePt(results['RoPE: maior variação ao longo de uma diagonal (m − n fixo)']) < 1e-4, JSON.stringify(results));
    assert(parsePt(results['2017: maior variação ao longo de uma diagonal']) > 0.5, JSON.stringify(results));
    assertNear('ω₁', results['par 1: ângulo por posição ω₁ (rad)'], 1);
    assertNear('ω₂', results['par 2: ângulo por posição ω₂ (rad)'], 0.01);
    await sameInBothModes(mode, 'rope added', added.flat());
    // An edit: q's first number; the diagonals stay constant, by the closed form again.
    await page.fill(`${host} [data-editor=qk] input >> nth=0`, '2');
    await waitWidget(page, host);
    const edited = numbers(await readTable(page, 'rope-scores', host));
    assert(Math.abs(edited[5][2] - ropeScore([2, 0.5, -0.3, 0.8], k, 3)) <= 1e-4, `after the edit q_5·k_2 = ${edited[5][2]}`);
    await page.fill(`${host} [data-editor=qk] input >> nth=0`, 'abc');
    assert((await errorText(page, host)).length > 0, 'a non-number gets a message');
    assert(await page.inputValue(`${host} [data-editor=qk] input >> nth=0`) === 'abc', 'what the reader typed is kept');
    await page.fill(`${host} [data-editor=qk] input >> nth=0`, '1');
    await waitWidget(page, host);
    await shot(page, host, 'rope', mode);
  });

  await check(`[${mode}] rms-norm: layer norm forgets the shift and the scale, RMSNorm only the scale; the statistics by hand`, async () => {
    const host = '[data-widget=rms-norm]';
    await waitWidget(page, host);
    const x = [2, -1, 0.5, 3, 1.5];
    const mean = x.reduce((a, b) => a + b) / 5;
    const rms = Math.sqrt(x.reduce((a, b) => a + b * b, 0) / 5);
    const results = await readResults(page, host, 'rms-norm');
    assertNear('μ', results['média μ de x'], mean);
    assertNear('RMS', results['RMS(x) = √(média de x²)'], rms);
    assertNear('LN after shift', results['layer norm: maior mudança ao somar 1'], 0);
    assert(parsePt(results['RMSNorm: maior mudança ao somar 1']) > 0.1, JSON.stringify(results));
    assertNear('LN after scale', results['layer norm: maior mudança ao multiplicar por 2'], 0);
    assertNear('RMS after scale', results['RMSNorm: maior mudança ao multiplicar por 2'], 0);
    assertNear('RMSNorm output mean', results['média da saída: RMSNorm (μ / RMS)'], mean / Math.sqrt(rms * rms + 1e-5));
    assert(results['parâmetros aprendidos: layer norm (γ e β)'] === '10' && results['parâmetros aprendidos: RMSNorm (só γ)'] === '5', JSON.stringify(results));
    const rmsRows = numbers(await readTable(page, 'rms-norm', host));
    x.forEach((v, j) => assert(Math.abs(rmsRows[0][j] - v / Math.sqrt(rms * rms + 1e-5)) <= 1e-4, `RMSNorm(x)[${j}] = ${rmsRows[0][j]}`));
    const layerRows = await readTable(page, 'layer-norm', host);
    assert(layerRows[0].join() === layerRows[1].join(), `layer norm of x and x + 1 differ: ${layerRows[0]} / ${layerRows[1]}`);
    await sameInBothModes(mode, 'rms rows', rmsRows.flat());
    await page.fill(`${host} [data-control=factor]`, '0');
    assert((await errorText(page, host)).includes('maior que 0'), 'a zero factor gets a message');
    await page.fill(`${host} [data-control=factor]`, 'dois');
    assert((await errorText(page, host)).includes('não é um número'), 'a word gets a message');
    await page.fill(`${host} [data-control=factor]`, '2');
    await waitWidget(page, host);
    await shot(page, host, 'rms-norm', mode);
  });

  await check(`[${mode}] swiglu: the ⅔ rule's counts (the article's 2 099 712), ReLU's zeros and none in SwiGLU`, async () => {
    const host = '[data-widget=swiglu]';
    await waitWidget(page, host);
    const results = await readResults(page, host, 'swiglu');
    assert(results['artigo de 2017 (d = 512, dff = 2048): FFN com ReLU'] === '2.099.712', JSON.stringify(results));
    assert(results['mesmo d: SwiGLU com 1365 unidades'] === '2.096.640', JSON.stringify(results));
    // d = 8, d_ff = 32: 2·8·32 + 32 + 8; 3·8·32; ⅔·32 → 21 units, 3·8·21.
    assert(results['d = 8, dff = 32: FFN de 2017 (W₁, b₁, W₂, b₂)'] === '552', JSON.stringify(results));
    assert(results['SwiGLU com as mesmas 32 unidades (3 matrizes)'] === '768' && results['SwiGLU com ⅔·dff = 21 unidades'] === '504', JSON.stringify(results));
    const relu = numbers(await readTable(page, 'relu-hidden', host));
    const gated = numbers(await readTable(page, 'swiglu-hidden', host));
    assert(relu.length === 4 && relu[0].length === 32 && gated[0].length === 21, `${relu.length}×${relu[0].length}, ${gated[0].length}`);
    const zeros = relu.flat().filter((v) => v === 0).length / 128;
    assertNear('ReLU zeros', results['ReLU: unidades exatamente zero'].replace(' %', ''), 100 * zeros, 0.05);
    assert(results['SwiGLU: unidades exatamente zero'] === '0,0 %', results['SwiGLU: unidades exatamente zero']);
    assert(relu.flat().every((v) => v >= 0) && gated.flat().some((v) => v < 0), 'ReLU is never negative, the gate is signed');
    await sameInBothModes(mode, 'swiglu hidden', gated.flat());
    await page.fill(`${host} [data-control=d-ff]`, '1000');
    assert((await errorText(page, host)).includes('1000'), 'an oversized d_ff gets a message');
    await page.fill(`${host} [data-control=d-ff]`, '32');
    await waitWidget(page, host);
    await shot(page, host, 'swiglu', mode);
  });

  await check(`[${mode}] gqa: each query head reads its group's keys; the KV cache of MHA, GQA and MQA by hand`, async () => {
    const host = '[data-widget=gqa]';
    await waitWidget(page, host);
    const cached = await readTable(page, 'keys-cached', host);
    const lent = await readTable(page, 'keys-lent', host);
    assert(cached[0].length === 8 && lent[0].length === 32, `${cached[0].length} and ${lent[0].length} columns`);
    for (let t = 0; t < 6; t++) for (let c = 0; c < 32; c++) {
      const head = Math.floor(c / 4);
      assert(lent[t][c] === cached[t][Math.floor(head / 4) * 4 + (c % 4)], `head ${head + 1} does not read its group's key at t${t + 1}`);
    }
    const weights = numbers(await readTable(page, 'gqa-weights', host));
    assert(weights.length === 48, `${weights.length} rows of weights`);
    weights.forEach((row, r) => {
      assert(Math.abs(row.reduce((a, b) => a + b) - 1) < 1e-3, `row ${r} sums to ${row.reduce((a, b) => a + b)}`);
      assert(row.slice((r % 6) + 1).every((v) => v === 0), `row ${r} looks ahead`);
    });
    // h = 8: 2 · 32 layers · 8192 tokens · g · 128 · 2 bytes.
    const results = await readResults(page, host, 'gqa');
    assert(results['MHA (g = 8): cache KV'] === '1 GiB (100,0 % do MHA)', results['MHA (g = 8): cache KV']);
    assert(results['GQA (g = 2): cache KV'] === '256 MiB (25,0 % do MHA)', results['GQA (g = 2): cache KV']);
    assert(results['MQA (g = 1): cache KV'] === '128 MiB (12,5 % do MHA)', results['MQA (g = 1): cache KV']);
    await sameInBothModes(mode, 'gqa weights', weights.flat());
    // Six heads offer their divisors; MHA lends each head its own keys.
    await page.fill(`${host} [data-control=heads]`, '6');
    await waitWidget(page, host);
    const options = await page.$$eval(`${host} [data-control=kv-heads] option`, (os) => os.map((o) => o.value));
    assert(options.join() === '6,3,2,1', options.join());
    await page.selectOption(`${host} [data-control=kv-heads]`, '6');
    await waitWidget(page, host);
    const [c6, l6] = [await readTable(page, 'keys-cached', host), await readTable(page, 'keys-lent', host)];
    assert(c6[0].length === 24 && c6.map((r) => r.join()).join() === l6.map((r) => r.join()).join(), 'MHA: the lent keys are the cached ones');
    await page.fill(`${host} [data-control=context]`, 'muito');
    assert((await errorText(page, host)).length > 0, 'a word for the context gets a message');
    await page.fill(`${host} [data-control=context]`, '8192');
    await page.fill(`${host} [data-control=heads]`, '8');
    await waitWidget(page, host);
    await shot(page, host, 'gqa', mode);
  });
}
