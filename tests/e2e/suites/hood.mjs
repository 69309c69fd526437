// Under the hood: the "por dentro" panel (the attention widget's kernels and shapes, the WGSL
// shown equal to the repository's files, the CPU/WebGPU comparison under 1e-4 on Example 2, the
// decoder's ops grouped by block, a panel on every computing widget) and the compute-layer
// page (prose excerpts of matmul.wgsl, the size slider measuring both backends). Times are
// printed, never asserted.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, check, assert, waitWidget, pageSettled } from '../lib.mjs';
import { ATTENTION_PAGE } from './attention.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const HOST = '[data-widget=attention]';
const PANEL = `${HOST} details.hood`;
const COMPUTE_PAGE = 'por-dentro-da-gpu.html';
const BENCH = '[data-widget=matmul-bench]';
const LABEL = { webgpu: 'WebGPU', cpu: 'CPU' };

const shader = (name) => fs.readFileSync(path.join(REPO, 'src/gpu/shaders', `${name}.wgsl`), 'utf8');

/** Widget kinds whose module runs jobs through the panel (read from the sources). */
function computingKinds() {
  const kinds = new Set();
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.rs')) {
        const source = fs.readFileSync(file, 'utf8');
        if (/update::(run|compute)\b|shell\.compute(_or|_after)?\(/.test(source)) for (const m of source.matchAll(/WidgetKind \{ doc: &crate::site::widgets::([A-Z_]+)/g)) kinds.add(m[1].toLowerCase().replaceAll('_', '-'));
      }
    }
  };
  walk(path.join(REPO, 'src/web/widgets'));
  return kinds;
}

/** Opens a panel; its content is built on the (asynchronous) toggle event. */
async function openPanel(page, panel) {
  await page.click(`${panel} > summary`);
  await page.waitForSelector(`${panel}[open] .hood-content table[data-hood=ops]`, { state: 'attached' });
}

async function opsRows(page, panel) {
  return page.$$eval(`${panel} table[data-hood=ops] tr[data-op]`, (trs) => trs.map((tr) => ({
    op: tr.dataset.op,
    kernel: tr.dataset.kernel,
    shapes: tr.querySelector('[data-col=shapes]').textContent,
    params: tr.querySelector('[data-col=params]').textContent,
    ms: tr.querySelector('[data-col=ms]').textContent,
  })));
}

/** Clicks "comparar" and returns { maxDiff, times: { backend: text } }. */
async function compare(page, panel) {
  await page.click(`${panel} [data-action=hood-compare]`);
  await page.waitForSelector(`${panel} table[data-results=hood-compare]`, { timeout: 60000 });
  return page.$eval(`${panel} table[data-results=hood-compare]`, (t) => ({
    maxDiff: Number(t.dataset.maxDiff),
    times: Object.fromEntries([...t.querySelectorAll('tr[data-backend]')].map((tr) => [tr.dataset.backend, tr.querySelector('td').textContent])),
  }));
}

export default async function hood({ page, base, mode }) {
  await check(`[${mode}] attention panel: closed, then the six ops of Example 2 with kernels and shapes`, async () => {
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await waitWidget(page, HOST);
    assert(await page.$eval(PANEL, (d) => !d.open), 'the panel starts open');
    const summary = await page.textContent(`${PANEL} > summary`);
    assert(summary.includes('6 operações') && summary.includes(LABEL[mode]), summary);
    await openPanel(page, PANEL);
    if (mode === 'webgpu') {
      // Opening the panel turns on per-kernel timing where the device has it, and the update runs again.
      await page.waitForFunction((sel) => /medido pela própria GPU|não mede o tempo/.test(document.querySelector(sel)?.textContent ?? ''), `${PANEL} .hood-note`, { timeout: 60000 });
    }
    const rows = await opsRows(page, PANEL);
    assert(JSON.stringify(rows.map((r) => r.op)) === JSON.stringify(['matmul', 'matmul', 'matmul', 'matmul_bt', 'softmax_rows', 'matmul']), JSON.stringify(rows));
    assert(JSON.stringify(rows.map((r) => r.kernel)) === JSON.stringify(['matmul_small', 'matmul_small', 'matmul_small', 'matmul_small', 'softmax_small', 'matmul_small']), JSON.stringify(rows));
    const shapes = rows.map((r) => r.shapes);
    assert(JSON.stringify(shapes) === JSON.stringify([...Array(4).fill('3×3 · 3×3 → 3×3'), '3×3 → 3×3', '3×3 · 3×3 → 3×3']), JSON.stringify(shapes));
    assert(rows[3].params === 'α = 0,5774', rows[3].params);
    const note = await page.textContent(`${PANEL} .hood-note`);
    if (mode === 'cpu' || note.includes('medido pela própria GPU')) {
      assert(rows.every((r) => / ms$/.test(r.ms)), `a time is missing: ${rows.map((r) => r.ms)}`);
    } else {
      // No timestamp queries: the batch's time only, never a made-up share per op.
      assert(note.includes('não mede o tempo de cada kernel') && rows.every((r) => r.ms === '—'), `${note} / ${rows.map((r) => r.ms)}`);
    }
    if (mode === 'webgpu') assert(note.includes('num único envio à GPU'), note);
    const header = await page.textContent(`${PANEL} table[data-hood=ops] tr:first-child`);
    assert(header.includes(`tempo (${LABEL[mode]})`), header);
    console.log(`     ${mode} op times: ${rows.map((r) => `${r.op} ${r.ms}`).join(', ')}`);
    await page.check(`${HOST} [data-control=causal]`);
    await waitWidget(page, HOST);
    const causal = await opsRows(page, PANEL);
    assert(causal[4].params === 'causal', `after the mask: ${causal[4].params}`);
    await page.uncheck(`${HOST} [data-control=causal]`);
    await waitWidget(page, HOST);
  });

  await check(`[${mode}] the WGSL shown is the repository's files composed, highlighted (downloaded with their comments; the wasm carries them without)`, async () => {
    const kernels = await page.$$eval(`${PANEL} details.hood-kernel`, (ds) => ds.map((d) => d.dataset.kernel));
    assert(JSON.stringify(kernels) === JSON.stringify(['matmul_small', 'softmax_small']), JSON.stringify(kernels));
    for (const kernel of kernels) {
      // First what the GPU compiled (no comments), then the repository's files, downloaded.
      await page.waitForSelector(`${PANEL} pre.wgsl[data-kernel=${kernel}][data-source=arquivos]`, { state: 'attached', timeout: 30000 });
      const shown = await page.$eval(`${PANEL} pre.wgsl[data-kernel=${kernel}]`, (pre) => pre.textContent);
      // The kernel's file, its Params (written from the Rust struct), then the shared files.
      const shared = await page.$eval(`${PANEL} pre.wgsl[data-kernel=${kernel}]`, (pre) => pre.dataset.shared.split(' ').filter(Boolean));
      assert(shared.length > 0, `${kernel}: no shared files`);
      assert(shown.startsWith(`${shader(kernel)}\nstruct Params {`), `${kernel}: does not open with ${kernel}.wgsl and its Params`);
      assert(shown.endsWith(shared.map(shader).join('\n')), `${kernel}: does not end with ${shared.join(', ')}`);
      assert(shown.split('struct Params {').length === 2, `${kernel}: not one struct Params`);
      const classes = await page.$$eval(`${PANEL} pre.wgsl[data-kernel=${kernel}] span`, (ss) => [...new Set(ss.map((s) => s.className))]);
      for (const c of ['wgsl-comment', 'wgsl-keyword', 'wgsl-type', 'wgsl-attribute', 'wgsl-number']) assert(classes.includes(c), `${kernel}: no ${c}`);
    }
    await page.click(`${PANEL} details.hood-kernel[data-kernel=matmul_small] > summary`);
    await page.$eval(PANEL, (d) => d.scrollIntoView());
    await page.screenshot({ path: path.join(ARTIFACTS, `hood-attention-${mode}.png`) });
  });

  if (mode === 'webgpu') {
    await check('[webgpu] comparar com CPU: both times, difference < 1e-4 on Example 2', async () => {
      const button = await page.textContent(`${PANEL} [data-action=hood-compare]`);
      assert(button === 'comparar com CPU', button);
      const result = await compare(page, PANEL);
      assert(result.maxDiff < 1e-4, `max |Δ| = ${result.maxDiff}`);
      assert(result.times.webgpu && result.times.cpu, JSON.stringify(result.times));
      const perOp = await page.$$eval(`${PANEL} table[data-hood=compare-ops] tr[data-op]`, (trs) => trs.length);
      assert(perOp === 6, `${perOp} ops compared`);
      console.log(`     compare: WebGPU ${result.times.webgpu}, CPU ${result.times.cpu}, max |Δ| ${result.maxDiff}`);
      await page.screenshot({ path: path.join(ARTIFACTS, 'hood-compare-webgpu.png') });
    });

    await check('[webgpu] with the CPU forced, comparar com WebGPU opens a device and agrees', async () => {
      await page.selectOption('#backend-choice', 'cpu');
      await page.waitForSelector('html[data-backend=cpu]');
      await waitWidget(page, HOST);
      await page.waitForFunction((sel) => document.querySelector(sel)?.textContent === 'comparar com WebGPU', `${PANEL} [data-action=hood-compare]`);
      const result = await compare(page, PANEL);
      assert(result.maxDiff < 1e-4, `max |Δ| = ${result.maxDiff}`);
      assert(result.times.webgpu && result.times.cpu, JSON.stringify(result.times));
      await page.selectOption('#backend-choice', 'webgpu');
      await page.waitForSelector('html[data-backend=webgpu]');
      await waitWidget(page, HOST);
    });
  } else {
    await check('[cpu] without WebGPU, the compare button says why it is unavailable', async () => {
      const button = await page.$(`${PANEL} [data-action=hood-compare]`);
      assert(await button.textContent() === 'comparar com WebGPU', await button.textContent());
      assert(await button.isDisabled(), 'the button is enabled without WebGPU');
      const why = await page.textContent(`${PANEL} .hood-unavailable`);
      assert(why.includes('WebGPU'), why);
    });
  }

  await check(`[${mode}] decoder: its ~80 ops per step grouped by block`, async () => {
    const host = '[data-widget=decoder]';
    await page.goto(`${base}/decodificador.html`);
    await page.waitForSelector(`${host}[data-state=ready]`, { timeout: 120000 });
    await openPanel(page, `${host} details.hood`);
    // Two passes: the prompt read (cálculo 1), then the logit lens at the last position (cálculo 2).
    const groups = await page.$$eval(`${host} details.hood details.hood-stage`, (ds) => ds.map((d) => ({ label: d.dataset.group, ops: d.querySelectorAll('tr[data-op]').length })));
    const names = ['embeddings', 'bloco 1', 'bloco 2', 'bloco 3', 'bloco 4', 'saída'];
    const of = (n) => groups.filter((g) => g.label.startsWith(`cálculo ${n} · `));
    for (const n of [1, 2]) {
      const got = of(n).map((g) => g.label.slice(`cálculo ${n} · `.length));
      assert(JSON.stringify(got) === JSON.stringify(names), `cálculo ${n}: ${JSON.stringify(got)}`);
    }
    const count = (n) => of(n).reduce((a, g) => a + g.ops, 0);
    // Embeddings 3; per block 14 ops and the cache's 2 writes and 2 reads; the head 3.
    assert(count(1) === 3 + 4 * 18 + 3, `${count(1)} ops in the step`);
    // The lens adds, after the embedding and each block, a norm, the tied head and a softmax (and the heads' parts).
    assert(count(2) > count(1) + 5 * 3, `${count(2)} ops in the lens pass`);
    const ops = await opsRows(page, `${host} details.hood`);
    assert(ops.some((r) => r.op === 'attention' && r.kernel === 'attention'), 'no attention kernel');
    assert(ops.filter((r) => r.op === 'write_rows').every((r) => r.kernel === 'copia'), 'the cache append is a buffer copy');
    assert(await page.$$eval(`${host} details.hood details.hood-stage[open]`, (ds) => ds.length) === 0, 'groups start open');
  });

  await check(`[${mode}] every computing widget has a closed panel`, async () => {
    const expected = computingKinds();
    assert(expected.size >= 15, `only ${expected.size} computing kinds found in the sources`);
    const seen = new Set();
    await page.goto(`${base}/`);
    const routes = await page.$$eval('#toc a', (as) => as.map((a) => a.getAttribute('href')));
    for (const route of routes) {
      await page.goto(`${base}/${route}`);
      await pageSettled(page, route);
      const found = await page.$$eval('[data-widget]', (ws) => ws.map((w) => ({
        kind: w.dataset.widget,
        panel: !!w.querySelector('details.hood'),
        open: !!w.querySelector('details.hood[open]'),
        summary: w.querySelector('details.hood > summary')?.textContent ?? '',
      })));
      for (const w of found) {
        assert(!w.open, `${route}: ${w.kind}'s panel starts open`);
        if (w.panel) {
          assert(/\d+ operaç/.test(w.summary), `${route}: ${w.kind}: "${w.summary}"`);
          seen.add(w.kind);
        }
      }
    }
    const missing = [...expected].filter((k) => !seen.has(k));
    assert(missing.length === 0, `no panel on: ${missing.join(', ')}`);
  });

  await check(`[${mode}] compute page: the quoted WGSL is matmul.wgsl, highlighted`, async () => {
    await page.goto(`${base}/${COMPUTE_PAGE}`);
    await page.waitForSelector('main h1');
    const excerpts = await page.$$eval('main .prose pre.wgsl[data-excerpt-of]', (ps) => ps.map((p) => ({ of: p.dataset.excerptOf, text: p.textContent, spans: p.querySelectorAll('span').length })));
    assert(excerpts.length >= 4, `${excerpts.length} excerpts`);
    for (const e of excerpts) {
      assert(shader(e.of).includes(e.text), `an excerpt is not in ${e.of}.wgsl:\n${e.text}`);
      assert(e.spans > 0, `excerpt not highlighted:\n${e.text}`);
    }
  });

  await check(`[${mode}] compute page: the slider measures CPU${mode === 'webgpu' ? ' and WebGPU' : ''} and plots both`, async () => {
    await page.waitForSelector(`${BENCH}[data-state=ready]`, { timeout: 120000 });
    const table = async () => page.$$eval(`${BENCH} table.twin[data-matrix=bench] tr`, (trs) =>
      trs.slice(1).map((tr) => [tr.querySelector('th').textContent, ...[...tr.querySelectorAll('td')].map((td) => td.textContent)]));
    const first = await table();
    assert(JSON.stringify(first.map((r) => r[0])) === JSON.stringify(['8', '16', '32', '48', '64', '96', '128']), JSON.stringify(first));
    // Size 192 is index 7 of the slider's steps.
    await page.$eval(`${BENCH} [data-control=size]`, (s) => { s.value = '7'; s.dispatchEvent(new Event('input', { bubbles: true })); s.dispatchEvent(new Event('change', { bubbles: true })); });
    await page.waitForSelector(`${BENCH} table[data-results=bench-last][data-n="192"]`, { timeout: 120000 });
    await page.waitForSelector(`${BENCH}[data-state=ready]`, { timeout: 120000 });
    const rows = await table();
    const row = rows.find((r) => r[0] === '192');
    assert(row, 'no row for n = 192');
    const number = (t) => Number(t.replace(',', '.'));
    assert(number(row[1]) > 0, `CPU time "${row[1]}"`);
    if (mode === 'webgpu') {
      assert(number(row[2]) > 0, `WebGPU time "${row[2]}"`);
      const diff = Number(await page.getAttribute(`${BENCH} table[data-results=bench-last]`, 'data-max-diff'));
      assert(diff < 1e-3, `|Δ| between the products = ${diff}`);
    } else {
      assert(row[2] === '—', `WebGPU "${row[2]}" without a GPU`);
      assert((await page.textContent(`${BENCH} .widget-backend`)).includes('WebGPU indisponível'), 'no reason given');
    }
    const painted = await page.$eval(`${BENCH} [data-plot=bench] canvas`, (c) => {
      const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
      return n;
    });
    assert(painted > 500, `plot nearly empty (${painted} pixels)`);
    console.log(`     ${mode} matmul ms (n: CPU, WebGPU): ${rows.map((r) => `${r[0]}: ${r[1]}, ${r[2]}`).join(' | ')}`);
    await page.$eval(BENCH, (w) => w.scrollIntoView());
    await page.screenshot({ path: path.join(ARTIFACTS, `matmul-bench-${mode}.png`) });
  });
}
