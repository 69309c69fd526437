// The decoder against candle in the same headless Chromium (issue 42): serves the repository
// root on 127.0.0.1 (cross-origin isolated, for the fine timer), opens
// bench/candle-wasm/www/index.html in CPU mode (--disable-gpu), waits for its JSON and prints
// the medians and the ratios (candle's time / ours: above 1 ours is faster). Writes the JSON to
// tests/artifacts/bench-candle.json. Fails if the page fails (e.g. logits apart by > 1e-4).
// Run through scripts/bench-candle.sh, which builds the two wasm modules first.
// Usage (from the repository root): node tests/e2e/bench-candle.mjs [--rounds N] [--prefills N] [--steps N]
//   [--warmup N] [--only prefill|step] [--profile] [--matmul MxKxN,...] [--site DIST]
// --site DIST also opens the built site's own bench page (DIST/bench.html?medir=decodificador,
// CPU) in the same browser, after the comparison: its prompt time is the same 64-token prefill
// as the real site's wasm runs it, a check that the `ours` module measures what readers get.
// --matmul times the core's product (ops::matmul, as the ours module has it) against ndarray's
// dot (matrixmultiply) at each size, in turns, after the page (the median of 9 pairs).
// --profile records a CPU profile of the page (Chrome DevTools protocol) and prints the functions
// with the most self time: build the modules with their names kept for it
// (CARGO_PROFILE_SITE_STRIP=false bash scripts/bench-candle.sh --profile --only step).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';

import { ARTIFACTS, serve } from './lib.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const query = new URLSearchParams({
  rodadas: option('rounds', 25), leituras: option('prefills', 3), passos: option('steps', 20), aquecimento: option('warmup', 2),
});
const only = args.indexOf('--only') >= 0 ? args[args.indexOf('--only') + 1] : null;
if (only) query.set('apenas', { prefill: 'leitura', step: 'passo' }[only] ?? only);
const PROFILE = args.includes('--profile');
const ROOT = path.resolve('.');
if (!fs.existsSync(path.join(ROOT, 'bench/candle-wasm/pkg/candle')) || !fs.existsSync(path.join(ROOT, 'bench/candle-wasm/pkg/ours'))) {
  throw new Error('bench/candle-wasm/pkg/ is missing: run scripts/bench-candle.sh (it builds both modules)');
}
const server = await serve(ROOT, {
  headers: () => ({ 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp', 'cache-control': 'no-store' }),
});
const url = `http://127.0.0.1:${server.address().port}/bench/candle-wasm/www/index.html?${query}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const cdp = PROFILE ? await page.context().newCDPSession(page) : null;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
  }
  await page.goto(url);
  await page.waitForSelector('#result[data-state=done], #result[data-state=error]', { timeout: 900000 });
  if (cdp) {
    const { profile } = await cdp.send('Profiler.stop');
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map();
    const dt = profile.timeDeltas;
    profile.samples.forEach((id, i) => {
      const f = byId.get(id).callFrame;
      const key = `${f.functionName || '(anonymous)'} ${f.url.startsWith('wasm') ? '' : path.basename(f.url)}`.trim();
      self.set(key, (self.get(key) ?? 0) + (dt[i + 1] ?? 0) / 1000);
    });
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    console.log(`CPU profile: ${total.toFixed(0)} ms sampled; most self time:`);
    for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 45)) {
      console.log(`${ms.toFixed(1).padStart(9)} ms ${(100 * ms / total).toFixed(1).padStart(5)} %  ${name.slice(0, 150)}`);
    }
  }
  const text = await page.textContent('#result');
  const r = JSON.parse(text);
  if (r.error) throw new Error(`the page failed: ${r.error}${errors.length ? `\n${errors.join('\n')}` : ''}`);
  fs.writeFileSync(path.join(ARTIFACTS, 'bench-candle.json'), text);
  const pt = (x, d = 3) => x.toFixed(d).replace('.', ',');
  const cpus = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU';
  console.log(`${r.user_agent}\n${cpus}, ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} (load average)`);
  console.log(`logits, largest |atencao − candle|: ${r.logits_max_abs_diff.prefill.toExponential(2)} (prompt), ${r.logits_max_abs_diff.next_token.toExponential(2)} (next token); tolerance 1e-4`);
  console.log(`${r.rounds} rounds in turns after ${r.warmup_rounds} warm-up; a sample = ${r.prefills_per_sample} prefills or ${r.steps_per_sample} next tokens`);
  const sizes = args.indexOf('--matmul') >= 0 ? args[args.indexOf('--matmul') + 1].split(',') : [];
  for (const size of sizes) {
    const [m, k, n] = size.split('x').map(Number);
    const t = await page.evaluate(async ({ m, k, n }) => {
      const { matmul_runs } = await import('../pkg/ours/atencao_bench_ours.js');
      const reps = Math.max(1, Math.round(2e7 / (m * k * n)));
      const time = (reference) => { const s = performance.now(); matmul_runs(m, k, n, reps, reference); return (performance.now() - s) / reps; };
      const pairs = [];
      for (let i = 0; i < 11; i++) pairs.push([time(false), time(true)]);
      const med = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
      const kept = pairs.slice(2);
      return { core: med(kept.map((p) => p[0])), ndarray: med(kept.map((p) => p[1])) };
    }, { m, k, n });
    console.log(`matmul ${m}×${k}·${k}×${n}: core ${t.core.toFixed(4)} ms, ndarray ${t.ndarray.toFixed(4)} ms, ndarray / core ${(t.ndarray / t.core).toFixed(2)}×`);
  }
  const siteAt = args.indexOf('--site');
  let site = null;
  if (siteAt >= 0) {
    const dist = await serve(path.resolve(args[siteAt + 1]));
    try {
      const sitePage = await browser.newPage();
      await sitePage.goto(`http://127.0.0.1:${dist.address().port}/bench.html?medir=decodificador&backend=cpu`);
      // Three runs of the page (its "rodar de novo" button), each the median of 7; the last
      // one is reported (the first ran while the browser was still optimising the site's wasm).
      site = [];
      for (let run = 0; run < 3; run++) {
        if (run > 0) await sitePage.click('[data-action=bench-run]');
        await sitePage.waitForSelector('.bench[data-bench-state=done], .bench[data-bench-state=error]', { timeout: 600000 });
        site.push(JSON.parse(await sitePage.textContent('[data-bench-json]')).decoder);
      }
      await sitePage.close();
    } finally {
      dist.close();
    }
  }
  console.log('measure                                  atencao (ms)  candle (ms)  ratio (candle / atencao)');
  console.log(`prefill, ${r.prompt_tokens}-token prompt                  ${pt(r.atencao.prefill_ms).padStart(8)}    ${pt(r.candle.prefill_ms).padStart(8)}     ${pt(r.ratio.prefill, 2)}×`);
  console.log(`next token at position ${r.next_token_position} (context 128) ${pt(r.atencao.next_token_ms).padStart(8)}    ${pt(r.candle.next_token_ms).padStart(8)}     ${pt(r.ratio.next_token, 2)}×`);
  if (site) {
    console.log(`the site's own wasm (${args[siteAt + 1]}/bench.html?medir=decodificador, CPU, three runs of the page, each the median of 7): `
      + `64-token prompt ${site.map((r) => pt(r.prompt_ms)).join(', ')} ms; next token (positions 64 to 79, read back) ${site.map((r) => pt(r.token_ms)).join(', ')} ms`);
  }
} finally {
  await browser.close();
  server.close();
}
