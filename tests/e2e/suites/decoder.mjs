// The pretrained decoder: the BPE page, the playground (model download, tokens, sampling,
// the bigram comparison, attention thumbnails), the same text from the same seed on both
// backends, and broken downloads (404, truncated file) answered with a message and a retry.
import path from 'node:path';
import fs from 'node:fs';
import { ARTIFACTS, check, assert, parsePt, readResults } from '../lib.mjs';

const BPE_PAGE = 'tokenizacao-bpe.html';
const PLAYGROUND = 'decodificador.html';
const HOST = '[data-widget=decoder]';
const BPE = '[data-widget=bpe]';

/** Text generated in each mode with the same seed, compared once both modes ran. */
const seededText = {};

async function ready(page, host, timeout = 120000) {
  await page.waitForSelector(`${host}[data-state=ready]`, { timeout });
}

async function bars(page, key) {
  return page.$$eval(`${HOST} table.twin[data-bars="${key}"] tr`, (rows) =>
    rows.map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent]));
}

async function chipCount(page, host = HOST) {
  return page.$$eval(`${host} .chips .chip`, (cs) => cs.length);
}

export default async function decoder({ page, base, mode, browser }) {
  await check(`[${mode}] BPE page: bytes, merges step by step, tokens that decode back`, async () => {
    await page.goto(`${base}/${BPE_PAGE}`);
    await ready(page, BPE);
    const r = await readResults(page, BPE, 'bpe');
    const [bytes, tokens, chars] = [Number(r.bytes), Number(r.tokens), Number(r.caracteres)];
    assert(tokens < bytes && tokens > 5, JSON.stringify(r));
    assert(bytes > chars, 'accented letters take two bytes');
    assert(await chipCount(page, BPE) === tokens, 'chips at the last step = tokens');
    await page.click(`${BPE} [data-action=first]`);
    assert(await chipCount(page, BPE) === bytes, 'step 0 shows one chip per byte');
    await page.click(`${BPE} [data-action=next]`);
    const note = await page.textContent(`${BPE} .bpe-step`);
    assert(note.startsWith('Passo 1 de') && note.includes('fusão nº'), note);
    assert(await page.$$eval(`${BPE} .chip.fresh`, (cs) => cs.length) >= 1, 'the merged token is highlighted');
    await page.fill(`${BPE} [data-control=text]`, '<img src=x onerror=window.__pwned=1> 🙂');
    await ready(page, BPE);
    const chips = await page.$$eval(`${BPE} .chips .chip`, (cs) => cs.map((c) => c.textContent).join(''));
    assert(chips.includes('<img') && !(await page.evaluate(() => window.__pwned)), chips);
    await page.fill(`${BPE} [data-control=text]`, '');
    await page.waitForSelector(`${BPE}[data-state=error]`);
  });

  await check(`[${mode}] playground: the model loads, reads the prompt and predicts on ${mode}`, async () => {
    await page.goto(`${base}/${PLAYGROUND}?preset=chaves`);
    await ready(page, HOST);
    assert(await page.getAttribute(HOST, 'data-computed-on') === mode, 'backend');
    assert(await page.inputValue(`${HOST} [data-control=prompt]`) === 'As chaves do armário', 'preset from the URL');
    const n = await chipCount(page);
    assert(n >= 3 && n <= 8, `${n} prompt tokens`);
    // The top 10, then the preset's pinned words ("estava, estavam") that are not among them.
    const model = (await bars(page, 'next-model')).slice(0, 10);
    assert(model.length === 10, `${model.length} bars`);
    const probs = model.map(([, p]) => parsePt(p));
    assert(probs.every((p, i) => i === 0 || p <= probs[i - 1]) && probs.reduce((a, b) => a + b) <= 1.0001, probs.join(' '));
    const bigram = await bars(page, 'next-bigram');
    assert(bigram.length > 0, 'no bigram bars');
    // The bigram sees only the last token (a piece of "armário"), named in its caption.
    const last = await page.$eval(`${HOST} .chips .chip:last-child`, (c) => c.textContent);
    const caption = await page.textContent(`${HOST} [data-bars=next-bigram] figcaption`);
    assert(caption.includes(`«${last}»`) && 'armário'.endsWith(last.replace('·', ' ').trim()), `${caption} / last chip ${last}`);
    // The count is written as a reader writes it: thousands grouped by a dot.
    const seen = caption.match(/visto ([\d.]+) vezes/)?.[1] ?? '';
    assert(/^\d{1,3}(\.\d{3})*$/.test(seen), `the bigram's count «${seen}» in ${caption}`);
    const thumbs = await page.$$eval(`${HOST} .attention-grid .thumb`, (t) => t.length);
    assert(thumbs === 24, `${thumbs} attention thumbnails`);
    // One row per layer (4 × 6), labelled, at a desktop's width and at a phone's.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const rows = await page.$$eval(`${HOST} .attention-layer`, (ls) => ls.map((l) => ({
        label: l.getAttribute('aria-label'),
        tops: [...l.querySelectorAll('.thumb')].map((t) => Math.round(t.getBoundingClientRect().top)),
        inside: [...l.querySelectorAll('.thumb')].every((t) => t.getBoundingClientRect().right <= l.getBoundingClientRect().right + 0.5),
      })));
      assert(rows.length === 4 && rows.every((r, i) => r.label === `camada ${i + 1}` && r.tops.length === 6 && new Set(r.tops).size === 1 && r.inside),
        `${width} px: ${JSON.stringify(rows)}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await check(`[${mode}] playground: pinned words, a preset's own or typed, in the bars even outside the top 10 and in the lens's menu and map`, async () => {
    const readPins = () => page.$$eval(`${HOST} table[data-results=pins] tr`, (trs) => trs.map((tr) => {
      const [, label, p, rank] = tr.querySelector('td').textContent.match(/^«(.+?)».*?: (\d+,\d+) \((\d+)º/) ?? [];
      return { word: tr.querySelector('th').textContent, label, p, rank: Number(rank) };
    }));
    const inBars = async (pins) => {
      const model = await bars(page, 'next-model');
      for (const pin of pins) {
        const row = model.find(([l]) => l === (pin.rank > 10 ? `${pin.label} (${pin.rank}º)` : pin.label));
        assert(row && Math.abs(parsePt(row[1]) - parsePt(pin.p)) < 1e-4, `${JSON.stringify(pin)} in ${JSON.stringify(model)}`);
      }
      assert(model.length === 10 + pins.filter((p) => p.rank > 10).length, `${model.length} bars for ${JSON.stringify(pins)}`);
      const options = await page.$$eval(`${HOST} [data-control=lens-token] option`, (os) => os.map((o) => o.textContent));
      const columns = await page.$$eval(`${HOST} table.twin[data-matrix=lens] tr:first-of-type th`, (ths) => ths.map((th) => th.textContent));
      for (const pin of pins) assert(options.some((o) => o.startsWith(`«${pin.label}»`)) && columns.includes(pin.label), `${pin.label}: ${JSON.stringify(options)} / ${JSON.stringify(columns)}`);
    };
    await page.selectOption(`${HOST} [data-control=preset]`, 'meninos');
    await ready(page, HOST);
    assert(await page.inputValue(`${HOST} [data-control=pin]`) === 'eram, era', await page.inputValue(`${HOST} [data-control=pin]`));
    const claim = await readPins();
    // The preset's claim, as the model gives it: "eram" over "era" after "Os meninos".
    assert(claim.length === 2 && claim[0].word === 'eram' && claim[1].word === 'era' && parsePt(claim[0].p) > parsePt(claim[1].p), JSON.stringify(claim));
    await inBars(claim);
    // A typed word the model does not expect here: after the top 10, with its rank.
    await page.fill(`${HOST} [data-control=pin]`, 'eram, Capitu');
    // The worker redraws (issue 36): the widget is busy until its view arrives.
    await ready(page, HOST);
    const typed = await readPins();
    assert(typed.length === 2 && typed[1].word === 'Capitu' && typed[1].rank > 10, JSON.stringify(typed));
    await inBars(typed);
    await page.selectOption(`${HOST} [data-control=preset]`, 'chaves');
    await ready(page, HOST);
    assert(await page.inputValue(`${HOST} [data-control=pin]`) === 'estava, estavam', 'the preset pins its own words');
  });

  await check(`[${mode}] playground: the logit lens, stage by stage, ends at the model's own prediction`, async () => {
    const matrix = (key) => page.$$eval(`${HOST} table.twin[data-matrix=${key}] tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent)));
    // At temperature 1 the bars are the model's distribution, which the lens's last stage must equal.
    await page.fill(`${HOST} [data-control=temperature]`, '1');
    await page.dispatchEvent(`${HOST} [data-control=temperature]`, 'input');
    // The worker redraws (issue 36): the widget is busy until its view arrives.
    await ready(page, HOST);
    const model = await bars(page, 'next-model');
    const lens = await matrix('lens');
    assert(JSON.stringify(lens.slice(1).map((r) => r[0])) === JSON.stringify(['embedding', 'camada 1', 'camada 2', 'camada 3', 'camada 4']), JSON.stringify(lens.map((r) => r[0])));
    assert(lens[0][1] === model[0][0], `first candidate ${lens[0][1]} vs the model's first bar ${model[0][0]}`);
    const last = lens[lens.length - 1];
    for (let c = 1; c < Math.min(last.length, 6); c++) {
      assert(Math.abs(parsePt(last[c]) - parsePt(model[c - 1][1])) < 2e-4, `candidate ${c}: lens ${last[c]} vs bars ${model[c - 1][1]}`);
    }
    assert(await page.getAttribute(`${HOST} [data-matrix=lens]`, 'data-domain') === '0,1', 'lens domain');
    const tops = await page.$$eval(`${HOST} table[data-results=lens-tops] tr`, (trs) => trs.map((tr) => tr.querySelector('td').textContent));
    assert(tops.length === 5 && tops[4].startsWith(`«${model[0][0]}»`), JSON.stringify(tops));
    // The head pushes: 4 layers × (6 heads + FFN), signed, and the parts add up to the logit.
    const pushes = await matrix('head-push');
    assert(pushes.length === 5 && pushes[0].length === 8 && pushes[0][7] === 'FFN', JSON.stringify(pushes[0]));
    const [lo, hi] = (await page.getAttribute(`${HOST} [data-matrix=head-push]`, 'data-domain')).split(',').map(Number);
    assert(lo === -hi && hi > 0, `push domain ${lo},${hi}`);
    const sum = await page.textContent(`${HOST} .push-sum`);
    const numbers = [...sum.matchAll(/−?-?\d+,\d+/g)].map((m) => parsePt(m[0].replace('−', '-')));
    assert(numbers.length === 5, sum);
    assert(Math.abs(numbers[0] + numbers[1] + numbers[2] + numbers[3] - numbers[4]) < 0.03, sum);
    // The settle strip (issue 39): one cell per position of the window, its stage 0…4, and at
    // the last position the stage the lens's own tops give (the first from which the top-1
    // stays the final one).
    const cells = await page.$$eval(`${HOST} [data-strip] [data-settle]`, (cs) => cs.map((c) => ({ position: Number(c.dataset.position), settle: Number(c.dataset.settle), text: c.textContent, bg: getComputedStyle(c).backgroundColor })));
    const n = await chipCount(page);
    assert(cells.length === n && cells.every((c, i) => c.position === i && c.settle >= 0 && c.settle <= 4), JSON.stringify(cells));
    const chipTexts = await page.$$eval(`${HOST} .chips .chip`, (cs) => cs.map((c) => c.textContent));
    assert(cells.every((c, i) => c.text === chipTexts[i]), 'each cell carries its token');
    const top1 = tops.map((t) => t.match(/^«(.*?)»/)[1]);
    const settle = top1.reduce((s, t, i) => (t === top1[top1.length - 1] ? s : i + 1), 0);
    assert(cells[n - 1].settle === settle, `last cell ${cells[n - 1].settle} vs the lens's tops ${JSON.stringify(top1)}`);
    // Same stage, same colour; the legend names all five stages.
    for (const a of cells) for (const b of cells) assert((a.settle === b.settle) === (a.bg === b.bg), `colours ${JSON.stringify([a, b])}`);
    const legend = await page.$$eval(`${HOST} .settle-legend .settle-swatch`, (s) => s.map((e) => e.textContent));
    assert(JSON.stringify(legend) === '["0","1","2","3","4"]', JSON.stringify(legend));
    const summary = await page.textContent(`${HOST} .settle-summary`);
    assert(summary.startsWith(`Das ${n} previsões`), summary);
    const counted = [...summary.matchAll(/(\d+) na etapa/g)].reduce((a, m) => a + Number(m[1]), 0);
    assert(counted === n, `the summary's counts add to ${counted}, not ${n}: ${summary}`);
    await page.click(`${HOST} [data-strip] [data-position="0"]`);
    await ready(page, HOST);
    assert(await page.inputValue(`${HOST} [data-control=lens-position]`) === '0', 'a strip cell reads the lens there');
    assert((await page.$$eval(`${HOST} [data-strip] [data-settle]`, (cs) => cs.length)) === n, 'the strip stays the whole window');
    // A click on a token reads the lens there; the token that really followed is offered.
    await page.click(`${HOST} .chips .chip[data-position="1"]`);
    await ready(page, HOST);
    assert(await page.inputValue(`${HOST} [data-control=lens-position]`) === '1', 'position menu follows the click');
    const title = await page.textContent(`${HOST} [data-matrix=lens] .mv-title`);
    assert(title.includes('posição 2'), title);
    const options = await page.$$eval(`${HOST} [data-control=lens-token] option`, (os) => os.map((o) => o.textContent));
    assert(options.some((o) => o.includes('(o que veio)')) || options.length === 5, JSON.stringify(options));
    await page.selectOption(`${HOST} [data-control=lens-position]`, '');
    await ready(page, HOST);
    await page.fill(`${HOST} [data-control=temperature]`, '0,8');
  });

  await check(`[${mode}] playground: Step adds one token, Generate adds N, attention rows sum to 1`, async () => {
    const before = await chipCount(page);
    // Before any draw the chart is there, empty (appearing at the first token, it moved the page below).
    const empty = await page.$eval(`${HOST} figure[data-bars=drawn]`, (f) => ({ hidden: f.hidden, token: f.dataset.drawn, rows: f.querySelectorAll('table.twin tr td').length, title: f.querySelector('figcaption').textContent, height: f.querySelector('canvas').getBoundingClientRect().height }));
    await page.click(`${HOST} [data-action=step]`);
    await ready(page, HOST);
    assert(await chipCount(page) === before + 1, 'step');
    // The draw made visible: the distribution the new token came from, the drawn one marked,
    // its probability and rank also on its chip's tooltip (the model's, temperature 1).
    const last = await page.$eval(`${HOST} .chips .chip:last-child`, (c) => ({ id: c.dataset.id, text: c.textContent, title: c.title, p: Number(c.dataset.probability), rank: Number(c.dataset.rank) }));
    const drawn = await page.$eval(`${HOST} figure[data-bars=drawn]`, (f) => ({ hidden: f.hidden, token: f.dataset.drawn, height: f.querySelector('canvas').getBoundingClientRect().height }));
    const marked = await page.$$eval(`${HOST} table.twin[data-bars=drawn] tr`, (rows) => rows.map((tr, i) => [i, tr.dataset.marked, tr.querySelector('th').textContent, tr.querySelector('td').textContent]).filter((r) => r[1] === 'true'));
    const shown = await bars(page, 'drawn');
    assert(!empty.hidden && empty.token === undefined && empty.rows === 0 && empty.title.includes("nenhum sorteio"), `before the step: ${JSON.stringify(empty)}`);
    assert(!drawn.hidden && drawn.token === last.id, `drawn figure ${JSON.stringify(drawn)} for chip ${JSON.stringify(last)}`);
    assert(marked.length === 1 && marked[0][2].startsWith(last.text) && Math.abs(parsePt(marked[0][3]) - last.p) < 1e-4, `${JSON.stringify(marked)} vs ${JSON.stringify(last)}`);
    assert(shown.length >= 10 && (last.rank > 10 || marked[0][0] === last.rank - 1), `rank ${last.rank}, marked row ${marked[0][0]}`);
    // Empty, it kept the room of its ten bars: its first draw does not move the page below.
    assert(empty.height > 200 && (shown.length > 10 || drawn.height === empty.height), `the first draw's chart ${drawn.height} px high, ${empty.height} px empty`);
    const probs = shown.slice(0, 10).map(([, p]) => parsePt(p));
    assert(probs.every((p, i) => i === 0 || p <= probs[i - 1]), probs.join(' '));
    assert(last.title.includes(`o ${last.rank}º mais provável`) && last.title.includes('sorteado'), last.title);
    await page.fill(`${HOST} [data-control=tokens]`, '6');
    await page.click(`${HOST} [data-action=generate]`);
    await ready(page, HOST);
    assert(await chipCount(page) === before + 7, `generate: ${await chipCount(page)}`);
    const status = await page.textContent(`${HOST} .widget-backend`);
    assert(status.includes('tokens/s') && status.includes(mode === 'webgpu' ? 'WebGPU' : 'CPU'), status);
    await page.click(`${HOST} .thumb[data-layer="3"][data-head="5"]`);
    const title = await page.textContent(`${HOST} [data-matrix=attention] .mv-title`);
    assert(title.includes('camada 4, cabeça 6'), title);
    const rows = await page.$$eval(`${HOST} table.twin[data-matrix=attention] tr`, (trs) =>
      trs.slice(1).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert(rows.length === Math.min(24, await chipCount(page)), `${rows.length} rows in the enlarged map`);
    // Every thumbnail is painted: each layer's canvas has opaque pixels in each head's cell, and
    // each head's button lies over its cell (the buttons' columns divide the canvas evenly).
    const layers = await page.$$eval(`${HOST} .attention-heads`, (rows) => rows.map((row) => {
      const c = row.querySelector('canvas');
      const heads = Number(c.dataset.heads);
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const cell = c.width / heads;
      const painted = [...Array(heads).keys()].filter((h) => {
        for (let y = 0; y < c.height; y++) for (let x = Math.ceil(h * cell); x < (h + 1) * cell; x++) if (d[(y * c.width + x) * 4 + 3]) return true;
        return false;
      }).length;
      const box = c.getBoundingClientRect();
      const aligned = [...row.querySelectorAll('.thumb')].every((b, h) => {
        const r = b.getBoundingClientRect();
        return Math.abs(r.left - (box.left + (h * box.width) / heads)) < 1.5 && Math.abs(r.width - box.width / heads) < 1.5 && r.top <= box.top + 1 && r.bottom > box.bottom;
      });
      return { heads, painted, aligned };
    }));
    assert(layers.length === 4 && layers.every((l) => l.heads === 6 && l.painted === 6 && l.aligned), `thumbnails: ${JSON.stringify(layers)}`);
    for (const row of rows) {
      const sum = row.filter((t) => t !== '−∞').reduce((a, t) => a + parsePt(t), 0);
      assert(Math.abs(sum - 1) < 0.01 || rows.length === 24, `row sums to ${sum}`);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, `decoder-${mode}.png`), fullPage: true });
  });

  await check(`[${mode}] playground: branches (issue 39): the alternatives at a generated token, another path, the tree, the way back, a link`, async () => {
    await page.goto(`${base}/${PLAYGROUND}?preset=meninos`);
    await ready(page, HOST);
    await page.fill(`${HOST} [data-control=seed]`, '11');
    await page.fill(`${HOST} [data-control=tokens]`, '8');
    await page.click(`${HOST} [data-action=generate]`);
    await ready(page, HOST);
    const generated = () => page.textContent(`${HOST} .decoder-text .generated`);
    const ids = () => page.$$eval(`${HOST} .chips .chip`, (cs) => cs.map((c) => ({ id: c.dataset.id, generated: c.classList.contains('generated') })));
    const original = await generated();
    const before = await ids();
    const at = before.findIndex((c) => c.generated) + 2;
    // A click on the third generated token: what the model offered there, the taken one pressed.
    await page.click(`${HOST} .chips .chip[data-position="${at}"]`);
    await ready(page, HOST);
    const options = await page.$$eval(`${HOST} [data-alternatives] [data-token]`, (bs) => bs.map((b) => ({ token: b.dataset.token, pressed: b.getAttribute('aria-pressed'), text: b.textContent })));
    const taken = options.filter((o) => o.pressed === 'true');
    assert(options.length >= 5 && taken.length === 1 && taken[0].token === before[at].id, JSON.stringify({ options, at: before[at] }));
    assert(options.every((o) => /^«.*» \d,\d{4}/.test(o.text)), JSON.stringify(options));
    const other = options.find((o) => o.pressed !== 'true');
    await page.click(`${HOST} [data-alternatives] [data-token="${other.token}"]`);
    await ready(page, HOST);
    const after = await ids();
    assert(after.length === before.length, `the branch is as long: ${after.length} vs ${before.length}`);
    assert(after.slice(0, at).every((c, i) => c.id === before[i].id), 'the prefix is kept');
    assert(after[at].id === other.token, `the chosen token ${other.token} stands at ${at}: ${after[at].id}`);
    const rows = () => page.$$eval(`${HOST} [data-branches] [data-branch]`, (bs) => bs.map((b) => ({ index: b.dataset.branch, pressed: b.getAttribute('aria-pressed'), text: b.textContent })));
    const tree = await rows();
    assert(tree.length === 2 && tree[0].text.startsWith('original') && tree[1].pressed === 'true' && tree[1].text.includes(`no passo 3`), JSON.stringify(tree));
    assert(tree.every((r) => /log-probabilidade −\d+,\d\d/.test(r.text)), JSON.stringify(tree));
    const branchText = await generated();
    assert(branchText !== original, 'another path, another text');
    const link = await page.getAttribute(`${HOST} [data-branches] [data-link]`, 'href');
    assert(link.includes('escolhas=3') && link.includes('seed=11') && link.includes('tokens=8'), link);
    // The way back: the original, exactly.
    await page.click(`${HOST} [data-branches] [data-branch="0"]`);
    await ready(page, HOST);
    assert(await generated() === original, `back to the original: ${await generated()} vs ${original}`);
    assert((await rows())[0].pressed === 'true', 'the original is the current branch');
    // The link makes the branch again, in a fresh page.
    await page.goto(link);
    await ready(page, HOST);
    assert(await generated() === branchText, `the link's text ${await generated()} vs the branch's ${branchText}`);
    assert(await page.isChecked(`${HOST} [data-control=fixed-seed]`), 'the link fixes its seed');
  });

  await check(`[${mode}] playground: the KV cache made visible (issue 39): prefill, decode, the window again without it, the same tokens`, async () => {
    const run = async (cached) => {
      await page.setChecked(`${HOST} [data-control=kv-cache]`, cached);
      await ready(page, HOST);
      await page.fill(`${HOST} [data-control=seed]`, '5');
      await page.fill(`${HOST} [data-control=temperature]`, '0,9');
      await page.click(`${HOST} [data-action=restart]`);
      await ready(page, HOST);
      const read = await page.textContent(`${HOST} .kv-pass`);
      await page.fill(`${HOST} [data-control=tokens]`, '10');
      await page.click(`${HOST} [data-action=generate]`);
      await ready(page, HOST);
      const grid = await page.$eval(`${HOST} canvas.kv-grid`, (c) => ({ width: c.width, height: c.height }));
      return { read, grid, text: await page.textContent(`${HOST} .decoder-text .generated`), pass: await page.textContent(`${HOST} .kv-pass`), size: await page.textContent(`${HOST} .kv-size`), rates: await page.textContent(`${HOST} .kv-rates`), chips: await chipCount(page) };
    };
    const on = await run(true);
    assert(on.read.startsWith('Prefill: as ') && on.pass.startsWith('Decode: só 1 posição nova') && on.pass.includes(`as outras ${on.chips - 1} vieram do cache`), JSON.stringify(on));
    assert(on.size.startsWith(`Cache: ${on.chips} posições × chave e valor de 192 números`) && on.grid.width === on.chips && on.grid.height === 2 * 4 - 1, JSON.stringify(on));
    const off = await run(false);
    assert(off.pass.startsWith(`Sem cache: a passada recalculou as ${off.chips} posições`), off.pass);
    assert(off.text === on.text, `with the cache «${on.text}», without «${off.text}»`);
    assert(/com cache \d+,\d tokens\/s, sem cache \d+,\d tokens\/s/.test(off.rates), off.rates);
    await page.setChecked(`${HOST} [data-control=kv-cache]`, true);
    await ready(page, HOST);
    assert((await page.textContent(`${HOST} .kv-pass`)).startsWith('Prefill'), 'switched back on: the window runs once into the cache');
  });

  await check(`[${mode}] playground: two generations side by side (issue 39), each token with its probability`, async () => {
    await page.fill(`${HOST} [data-control=tokens]`, '6');
    await page.fill(`${HOST} [data-control=seed]`, '3');
    const before = await page.textContent(`${HOST} .decoder-text .generated`);
    const sides = async (which) => {
      await page.selectOption(`${HOST} [data-control=sides]`, which);
      await page.click(`${HOST} [data-action=sides]`);
      await ready(page, HOST);
      return page.$$eval(`${HOST} .sides [data-side]`, (ss) => ss.map((s) => ({
        side: s.dataset.side,
        title: s.querySelector('h5').textContent,
        tokens: [...s.querySelectorAll('.side-token small')].map((t) => t.textContent),
        text: s.querySelector('.side-text').textContent,
        summary: s.querySelector('.side-summary').textContent,
      })));
    };
    const [greedy, t1] = await sides('greedy-t1');
    assert(greedy.title.startsWith('gulosa') && t1.title.includes('temperatura 1') && t1.title.includes('semente 3'), JSON.stringify([greedy.title, t1.title]));
    for (const s of [greedy, t1]) {
      assert(s.tokens.length === 6 && s.tokens.every((t) => /^\d,\d{4} · \d+º$/.test(t)), JSON.stringify(s));
      assert(/^6 tokens, \d+ deles fora do mais provável; log-probabilidade −\d+,\d\d$/.test(s.summary), s.summary);
    }
    assert(greedy.tokens.every((t) => t.endsWith(' · 1º')) && greedy.summary.startsWith('6 tokens, 0 deles'), 'greedy always takes the first');
    const [a, b] = await sides('two-seeds');
    assert(a.title.startsWith('semente 3,') && b.title.startsWith('semente 4,'), JSON.stringify([a.title, b.title]));
    assert(await page.textContent(`${HOST} .decoder-text .generated`) === before, 'the playground\'s own text is untouched');
  });

  await check(`[${mode}] playground: the same seed gives the same text (and on both backends)`, async () => {
    const generate = async () => {
      await page.fill(`${HOST} [data-control=seed]`, '7');
      await page.fill(`${HOST} [data-control=temperature]`, '0,9');
      await page.click(`${HOST} [data-action=restart]`);
      await ready(page, HOST);
      await page.fill(`${HOST} [data-control=tokens]`, '12');
      await page.click(`${HOST} [data-action=generate]`);
      await ready(page, HOST);
      return page.textContent(`${HOST} .decoder-text .generated`);
    };
    const first = await generate();
    const second = await generate();
    assert(first.length > 0 && first === second, `"${first}" vs "${second}"`);
    seededText[mode] = first;
    fs.appendFileSync(path.join(ARTIFACTS, 'measurements.txt'), `${mode}: seed 7 text: ${JSON.stringify(first)}\n`);
    if (seededText.webgpu && seededText.cpu) {
      assert(seededText.webgpu === seededText.cpu, `WebGPU "${seededText.webgpu}" vs CPU "${seededText.cpu}"`);
    }
  });

  await check(`[${mode}] playground: greedy, 40 tokens from the golden prompt: exactly the golden text (tests/fixtures/greedy_golden.json)`, async () => {
    const golden = JSON.parse(fs.readFileSync(path.resolve('tests/fixtures/greedy_golden.json'), 'utf8'));
    await page.goto(`${base}/${PLAYGROUND}`);
    await ready(page, HOST);
    await page.fill(`${HOST} [data-control=temperature]`, '0');
    await page.fill(`${HOST} [data-control=tokens]`, String(golden.tokens));
    await page.fill(`${HOST} [data-control=prompt]`, golden.prompt);
    await page.click(`${HOST} [data-action=generate]`);
    await ready(page, HOST);
    const text = await page.textContent(`${HOST} .decoder-text`);
    assert(text === golden.text, `greedy text on ${mode}:\n${JSON.stringify(text)}\nwant\n${JSON.stringify(golden.text)}`);
  });

  await check(`[${mode}] playground: "Gerar" right after typing a prompt works on the first click`, async () => {
    await page.goto(`${base}/${PLAYGROUND}?preset=capitu`);
    await ready(page, HOST);
    await page.fill(`${HOST} [data-control=tokens]`, '5');
    await page.fill(`${HOST} [data-control=prompt]`, 'Era uma vez um menino');
    // The click blurs the text box: its change (read the prompt again) and the click (generate)
    // arrive together; both must run, in that order.
    await page.click(`${HOST} [data-action=generate]`);
    await ready(page, HOST);
    const generated = await page.$$eval(`${HOST} .chips .chip.generated`, (cs) => cs.length);
    assert(generated === 5, `${generated} generated tokens after one click`);
    const text = await page.textContent(`${HOST} .decoder-text .from-prompt`);
    assert(text === 'Era uma vez um menino', `prompt shown: ${text}`);
    const seed = await page.inputValue(`${HOST} [data-control=seed]`);
    const status = await page.textContent(`${HOST} .widget-backend`);
    assert(status.includes(`semente ${seed}`), `the seed used is shown: ${status} / ${seed}`);
  });

  await check(`[${mode}] playground: bad settings and an over-long prompt get messages, not a crash`, async () => {
    await page.fill(`${HOST} [data-control=temperature]`, 'muito');
    await page.click(`${HOST} [data-action=step]`);
    await page.waitForSelector(`${HOST}[data-state=error]`);
    assert((await page.textContent(`${HOST} .widget-error`)).includes('temperatura'), 'temperature message');
    await page.fill(`${HOST} [data-control=temperature]`, '0');
    const long = 'Era uma vez um homem que escrevia cartas. '.repeat(60);
    await page.fill(`${HOST} [data-control=prompt]`, long);
    await page.dispatchEvent(`${HOST} [data-control=prompt]`, 'change');
    await ready(page, HOST);
    const status = await page.textContent(`${HOST} .widget-backend`);
    assert(status.includes('descartados'), status);
    await page.click(`${HOST} [data-action=step]`);
    await ready(page, HOST);
    await page.fill(`${HOST} [data-control=prompt]`, '');
    await page.dispatchEvent(`${HOST} [data-control=prompt]`, 'change');
    await page.waitForSelector(`${HOST}[data-state=error]`);
    assert(await page.inputValue(`${HOST} [data-control=prompt]`) === '', 'prompt kept as typed');
  });

  await check(`[${mode}] playground: the model runs in the page's worker; "Parar" stops a long generation, keeps its tokens, and the widget goes on`, async () => {
    // issue 36: the session lives in the worker, so the page only draws.
    assert(page.workers().length >= 1, `${page.workers().length} workers`);
    await page.fill(`${HOST} [data-control=temperature]`, '0,8');
    await page.fill(`${HOST} [data-control=tokens]`, '200');
    // A short prompt, so the window has room for the tokens counted below. Left as a reader
    // leaves it (the browser's own change event), since the clicks below move no focus.
    await page.fill(`${HOST} [data-control=prompt]`, 'Era uma vez');
    await page.$eval(`${HOST} [data-control=prompt]`, (el) => el.blur());
    await ready(page, HOST);
    const before = await chipCount(page);
    // "Parar" in the same task as "Gerar": the worker reads it between two of its 40-ms slices
    // and stops there. (Two clicks from here came too late on a loaded machine: the worker, at
    // 1 500 tokens a second, had 123 tokens before the second arrived.)
    await page.evaluate((host) => {
      document.querySelector(`${host} [data-action=generate]`).click();
      document.querySelector(`${host} [data-action=stop]`).click();
    }, HOST);
    await ready(page, HOST);
    const stopped = await chipCount(page);
    // Stopped before the window filled (200 tokens would have pushed the oldest out of it).
    const status = await page.textContent(`${HOST} .widget-backend`);
    assert(stopped >= before && stopped < before + 120 && !status.includes('descartados'), `${stopped} chips after stopping (from ${before}): ${status}`);
    await page.waitForTimeout(500);
    assert(await chipCount(page) === stopped, 'nothing was generated after "Parar"');
    await page.click(`${HOST} [data-action=step]`);
    await ready(page, HOST);
    assert(await chipCount(page) === stopped + 1, 'a step after the stop');
    await page.fill(`${HOST} [data-control=tokens]`, '40');
  });

  if (mode === 'webgpu') await check(`[${mode}] playground: the device lost inside the worker mid-generation: the text goes on on the CPU, the same greedy golden text token for token, and the widget says so`, async () => {
    const golden = JSON.parse(fs.readFileSync(path.resolve('tests/fixtures/greedy_golden.json'), 'utf8'));
    await page.goto(`${base}/${PLAYGROUND}`);
    await ready(page, HOST);
    assert(await page.getAttribute(HOST, 'data-computed-on') === 'webgpu', 'reading on WebGPU');
    const [worker] = page.workers();
    assert(worker, 'no worker');
    // Every device the worker records commands on, kept where the test can destroy it as a
    // driver reset would (nothing in the site changes).
    await worker.evaluate(() => {
      self.__devices = new Set();
      const encoder = GPUDevice.prototype.createCommandEncoder;
      GPUDevice.prototype.createCommandEncoder = function (...args) {
        self.__devices.add(this);
        return encoder.apply(this, args);
      };
    });
    await page.fill(`${HOST} [data-control=temperature]`, '0');
    await page.fill(`${HOST} [data-control=tokens]`, String(golden.tokens));
    await page.fill(`${HOST} [data-control=prompt]`, golden.prompt);
    await page.dispatchEvent(`${HOST} [data-control=prompt]`, 'change');
    await ready(page, HOST);
    const before = await chipCount(page);
    await page.click(`${HOST} [data-action=generate]`);
    await page.waitForFunction(([h, n]) => document.querySelectorAll(`${h} .chips .chip`).length >= n, [HOST, before + 5], { timeout: 60000, polling: 20 });
    const destroyed = await worker.evaluate(() => { self.__devices.forEach((d) => d.destroy()); return self.__devices.size; });
    assert(destroyed >= 1, 'the worker recorded no GPU commands');
    await ready(page, HOST);
    const generated = (await chipCount(page)) - before;
    const status = await page.textContent(`${HOST} .widget-backend`);
    assert(generated === golden.tokens && status.includes('a GPU falhou'), `${generated} tokens; ${status}`);
    assert(await page.getAttribute(HOST, 'data-computed-on') === 'cpu', 'on the CPU after the loss');
    const text = await page.textContent(`${HOST} .decoder-text`);
    assert(text === golden.text, `after the loss:\n${JSON.stringify(text)}\nwant\n${JSON.stringify(golden.text)}`);
    await page.click(`${HOST} [data-action=step]`);
    await ready(page, HOST);
    assert(await chipCount(page) === before + golden.tokens + 1, 'a step after the loss');
  });

  if (mode === 'cpu') await check(`[${mode}] playground: a worker that crashes is reported, nothing typed is lost, and "tentar de novo" starts a new one`, async () => {
    const typed = 'A casa do Engenho Novo';
    await page.fill(`${HOST} [data-control=prompt]`, typed);
    await page.dispatchEvent(`${HOST} [data-control=prompt]`, 'change');
    await ready(page, HOST);
    const [worker] = page.workers();
    assert(worker, 'no worker');
    await worker.evaluate(() => setTimeout(() => { throw new Error('falha provocada pelo teste'); }, 0));
    await page.waitForSelector(`${HOST}[data-state=error]`, { timeout: 30000 });
    const message = await page.textContent(`${HOST} .widget-error`);
    assert(message.includes('parou') && message.includes('tentar de novo'), message);
    assert(await page.inputValue(`${HOST} [data-control=prompt]`) === typed, 'the prompt was lost');
    await page.click(`${HOST} [data-action=retry]`);
    await ready(page, HOST);
    const chips = await page.$$eval(`${HOST} .chips .chip`, (cs) => cs.map((c) => c.textContent).join(''));
    assert(chips.replace(/[·\s]+/g, ' ').includes('Engenho Novo'), chips);
    // In the middle of a generation: the parts it kept blank in place (the settle strip, the
    // alternatives) go with the session, none stays an empty hole.
    await page.fill(`${HOST} [data-control=tokens]`, '6');
    await page.click(`${HOST} [data-action=generate]`);
    await ready(page, HOST);
    const before = await chipCount(page);
    await page.fill(`${HOST} [data-control=tokens]`, '200');
    await page.click(`${HOST} [data-action=generate]`);
    await page.waitForFunction(([h, n]) => document.querySelectorAll(`${h} .chips .chip`).length > n, [HOST, before], { timeout: 60000, polling: 20 });
    const stale = await page.$$eval(`${HOST} [data-stale]`, (parts) => parts.length);
    const [again] = page.workers();
    await again.evaluate(() => setTimeout(() => { throw new Error('falha provocada pelo teste'); }, 0));
    await page.waitForSelector(`${HOST}[data-state=error]`, { timeout: 30000 });
    const left = await page.$$eval(`${HOST} [data-stale]`, (parts) => parts.map((p) => p.className));
    assert(stale > 0 && left.length === 0, `${stale} parts blank while generating; after the crash: ${left.join(', ')}`);
    await page.fill(`${HOST} [data-control=tokens]`, '40');
    await page.click(`${HOST} [data-action=retry]`);
    await ready(page, HOST);
  });

  if (mode === 'cpu') await check(`[${mode}] playground: where the browser refuses a worker, the model runs on the page itself, with a note`, async () => {
    const context = await browser.newContext();
    await context.addInitScript(() => {
      window.Worker = class { constructor() { throw new DOMException('workers recusados neste teste', 'SecurityError'); } };
    });
    const fresh = await context.newPage();
    await fresh.goto(`${base}/${PLAYGROUND}`);
    await ready(fresh, HOST);
    const status = await fresh.textContent(`${HOST} .widget-backend`);
    assert(status.includes('própria página') && fresh.workers().length === 0, `${fresh.workers().length} workers; ${status}`);
    const before = await chipCount(fresh);
    await fresh.click(`${HOST} [data-action=step]`);
    await ready(fresh, HOST);
    assert(await chipCount(fresh) === before + 1, 'a step on the page');
    await context.close();
  });

  await check(`[${mode}] weights 404 or truncated: a message and a retry that works`, async () => {
    // A fresh context: nothing in the Cache API, so the requests reach the (broken) network.
    // No service worker either: it would precache the weights past the routes below.
    const context = await browser.newContext({ serviceWorkers: 'block' });
    const fresh = await context.newPage();
    const weights = fs.readFileSync(path.resolve(process.argv[2] ?? 'dist', 'static/model/model.safetensors'));
    let fault = '404';
    await fresh.route('**/model.safetensors*', (route) => {
      if (fault === '404') return route.fulfill({ status: 404, body: 'not found' });
      if (fault === 'truncated') return route.fulfill({ status: 200, body: weights.subarray(0, weights.length / 2) });
      return route.continue();
    });
    await fresh.goto(`${base}/${PLAYGROUND}`);
    await fresh.waitForSelector(`${HOST}[data-state=error]`, { timeout: 60000 });
    let message = await fresh.textContent(`${HOST} .widget-error`);
    assert(message.includes('404'), message);
    assert(await fresh.isVisible(`${HOST} [data-action=retry]`), 'no retry button');
    fault = 'truncated';
    await fresh.click(`${HOST} [data-action=retry]`);
    await fresh.waitForSelector(`${HOST}[data-state=error]`, { timeout: 60000 });
    message = await fresh.textContent(`${HOST} .widget-error`);
    assert(message.includes('corrompido') || message.includes('diferente do esperado'), message);
    fault = 'none';
    await fresh.click(`${HOST} [data-action=retry]`);
    await ready(fresh, HOST);
    await context.close();
  });
}
