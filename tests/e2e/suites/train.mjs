// Training in the browser (issue 23): the `train` widget on its page. The preset story trained
// for a bounded number of steps goes below the bigram line (read from the widget's numbers);
// pausing and resuming continue the same run; a hidden tab pauses it and a visible one resumes
// it; bad input (empty text, one repeated character, a 5 MB paste, NaN in a size field) gets a
// message; the page has no serious axe violation and nothing overflows at 390 and 1280 px, with
// screenshots in the light and the dark theme (tests/artifacts/train23/).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ARTIFACTS, check, assert, parsePt, readResults, pageSettled } from '../lib.mjs';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const PAGE = 'treinar-no-navegador.html';
const HOST = '[data-widget=train]';
/** The most steps the preset may take to beat the bigram (natively it does at 350). */
const MAX_STEPS = 700;
const SHOTS = path.join(ARTIFACTS, 'train23');

/** What the widget has measured, unrounded (its host's data attributes). */
async function numbers(page) {
  return page.$eval(HOST, (w) => ({
    steps: Number(w.dataset.steps),
    points: Number(w.dataset.points),
    validation: Number(w.dataset.validationLoss),
    bigram: Number(w.dataset.bigramLoss),
    uniform: Number(w.dataset.uniformLoss),
    stepMs: Number(w.dataset.stepMs),
    rate: Number(w.dataset.stepsPerSecond),
    training: w.dataset.training === 'true',
  }));
}

async function settled(page) {
  await page.waitForFunction((h) => ['ready', 'error'].includes(document.querySelector(h)?.dataset.state), HOST, { timeout: 60000 });
  return page.getAttribute(HOST, 'data-state');
}

async function errorText(page) {
  return page.$eval(HOST, (el) => el.querySelector(':scope > .widget-error')?.textContent ?? '');
}

/** Sets a control's value and fires the event of an edit. */
async function edit(page, selector, value, event = 'input') {
  await page.$eval(selector, (el, [v, e]) => { el.value = v; el.dispatchEvent(new Event(e, { bubbles: true })); }, [value, event]);
}

/** The loss curve's twin as [step label, training, validation]. */
async function curve(page) {
  return page.$$eval(`${HOST} table.twin[data-plot=loss] tr`, (rows) => rows.slice(1).map((tr) =>
    [tr.querySelector('th').textContent, ...[...tr.querySelectorAll('td')].map((td) => td.textContent)]));
}

/** Waits until the worker has confirmed a pause (no more steps are coming). */
async function stopped(page) {
  await page.waitForFunction((h) => document.querySelector(h).dataset.training === 'false', HOST, { timeout: 30000 });
}

async function setHidden(page, hidden) {
  await page.evaluate((h) => {
    if (h) Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    else delete document.hidden;
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

export default async function train({ page, base, mode, browser }) {
  await check(`[${mode}] train: the preset loads; the parameter count, ln V and the bigram are computed`, async () => {
    await page.goto(`${base}/${PAGE}`);
    await pageSettled(page, PAGE);
    assert(await settled(page) === 'ready', await errorText(page));
    const n = await numbers(page);
    const status = await readResults(page, HOST, 'train-status');
    const vocab = Math.round(Math.exp(n.uniform));
    // 2 blocks, d = 64, F = 256: V·d + 2·(LN 2d + 4d² + LN 2d + d·F + F + F·d + d) + LN_f 2d.
    const d = 64, f = 256;
    const want = vocab * d + 2 * (4 * d + 4 * d * d + d * f + f + f * d + d) + 2 * d;
    const shown = Number(await page.getAttribute(`${HOST} .train-model-info`, 'data-parameters'));
    assert(shown === want, `parameters ${shown}, want ${want} (V = ${vocab})`);
    assert(status['parâmetros'].replace(/\./g, '') === String(want), status['parâmetros']);
    assert(Math.abs(parsePt(status['chute uniforme, ln V']) - Math.log(vocab)) < 1e-4, status['chute uniforme, ln V']);
    assert(n.bigram < n.uniform && n.bigram > 1.5, `bigram ${n.bigram}, uniform ${n.uniform}`);
    assert(Math.abs(n.validation - n.uniform) < 0.3, `fresh weights: validation ${n.validation} ≈ ln V ${n.uniform}`);
    // Automatically on the CPU: in the WebGPU mode the adapter is SwiftShader, and the widget says why.
    assert(status['calculado em'].startsWith('CPU'), status['calculado em']);
    assert((mode === 'webgpu') === status['calculado em'].includes('por software'), status['calculado em']);
    const domain = await page.getAttribute(`${HOST} figure[data-matrix=train-attention]`, 'data-domain');
    assert(domain === '0,1', `attention domain ${domain}`);
  });

  await check(`[${mode}] train: the preset goes below the bigram within ${MAX_STEPS} steps; pausing and resuming continue the same run; a hidden tab pauses it`, async () => {
    await page.goto(`${base}/${PAGE}`);
    await pageSettled(page, PAGE);
    await page.click(`${HOST} [data-action=train]`);
    await page.waitForFunction((h) => Number(document.querySelector(h).dataset.steps) >= 60, HOST, { timeout: 60000 });
    // Pause: the step counter stops, the history stays. The run is in the page's worker: the
    // pause lands after its slice in flight, and the widget says "training" until the worker confirms.
    await page.click(`${HOST} [data-action=pause]`);
    await stopped(page);
    const paused = await numbers(page);
    const before = await curve(page);
    assert(!paused.training, 'paused');
    await page.waitForTimeout(400);
    assert((await numbers(page)).steps === paused.steps, 'no step while paused');
    await page.click(`${HOST} [data-action=train]`);
    await page.waitForFunction(([h, s]) => Number(document.querySelector(h).dataset.steps) > s + 30, [HOST, paused.steps], { timeout: 30000 });
    const after = await curve(page);
    assert(after.length > before.length, `curve ${before.length} → ${after.length} points`);
    assert(JSON.stringify(after.slice(0, before.length)) === JSON.stringify(before), 'the points before the pause are kept');
    // A hidden tab pauses; a visible one resumes (the reader had it running).
    await setHidden(page, true);
    await stopped(page);
    const hidden = await numbers(page);
    assert(!hidden.training && await page.getAttribute(HOST, 'data-paused') === 'hidden', 'hidden: paused');
    assert((await page.textContent(`${HOST} .train-message`)).includes('escondida'), await page.textContent(`${HOST} .train-message`));
    await page.waitForTimeout(300);
    assert((await numbers(page)).steps === hidden.steps, 'no step while hidden');
    await setHidden(page, false);
    assert((await numbers(page)).training, 'visible again: training');
    // Until the validation loss is under the bigram line.
    const started = Date.now();
    await page.waitForFunction(([h, max]) => {
      const w = document.querySelector(h).dataset;
      return Number(w.validationLoss) < Number(w.bigramLoss) || Number(w.steps) >= max;
    }, [HOST, MAX_STEPS], { timeout: 120000, polling: 250 });
    await page.click(`${HOST} [data-action=pause]`);
    await stopped(page);
    const end = await numbers(page);
    const crossed = (await curve(page)).find((row) => parsePt(row[2]) < end.bigram)?.[0];
    console.log(`     ${mode}: validation below the bigram (${end.bigram.toFixed(4)}) first at ${crossed}; paused at step ${end.steps} (${end.validation.toFixed(4)}); ${end.stepMs.toFixed(1)} ms a step, ${end.rate.toFixed(1)} steps/s (${((Date.now() - started) / 1000).toFixed(1)} s for the last stretch)`);
    assert(end.validation < end.bigram, `validation ${end.validation} vs bigram ${end.bigram} after ${end.steps} steps`);
    const status = await readResults(page, HOST, 'train-status');
    assert(parsePt(status['perda de validação']) < parsePt(status['bigrama (validação)']), JSON.stringify(status));
    const samples = await page.$$eval(`${HOST} .train-sample`, (cs) => cs.map((c) => [Number(c.dataset.step), c.querySelector('.train-sample-text').textContent]));
    assert(samples.length >= 3 && samples[0][0] === 0 && samples.at(-1)[0] >= 300, JSON.stringify(samples.map((s) => s[0])));
    // Gibberish becomes words: the last sample has more spaces in sensible places than the first.
    const words = (t) => t.split(/\s+/).filter((w) => /^[a-zà-ú]{2,}$/i.test(w)).length;
    assert(words(samples.at(-1)[1]) > words(samples[0][1]), `${samples[0][1]} → ${samples.at(-1)[1]}`);
    await page.screenshot({ path: path.join(ARTIFACTS, `train-${mode}.png`), fullPage: false });
  });

  await check(`[${mode}] train: "usar no decodificador" hands the trained model to the playground on the page, which generates with it`, async () => {
    const DEC = '[data-widget=decoder]';
    // The run of the previous check is still on the page (paused, below the bigram).
    await page.waitForSelector(`${DEC}[data-state=ready]`, { timeout: 120000 });
    await page.click(`${HOST} [data-action=use]`);
    // The weights come back from the worker: the message follows its reply.
    await page.waitForFunction((h) => document.querySelector(`${h} .train-message`).textContent.includes('agora roda'), HOST, { timeout: 30000 })
      .catch(() => {});
    const message = await page.textContent(`${HOST} .train-message`);
    assert(message.includes('agora roda o modelo treinado'), message);
    await page.waitForFunction((d) => !document.querySelector(`${d} .trained-note`)?.hidden, DEC, { timeout: 30000 });
    const note = await page.textContent(`${DEC} .trained-note`);
    assert(note.includes('treinado nesta página') && /\d+ passos/.test(note), note);
    await page.waitForSelector(`${DEC}[data-state=ready]`, { timeout: 60000 });
    // The trained model has 2 layers × 4 heads: 8 attention thumbnails (the shipped one has 24).
    const thumbs = await page.$$eval(`${DEC} .attention-grid .thumb`, (cs) => cs.length);
    assert(thumbs === 8, `${thumbs} thumbnails`);
    await page.click(`${DEC} [data-action=generate]`);
    await page.waitForFunction((d) => (document.querySelector(`${d} .decoder-text .generated`)?.textContent ?? '').length >= 20
      && document.querySelector(d).getAttribute('aria-busy') !== 'true', DEC, { timeout: 60000 });
    const generated = await page.textContent(`${DEC} .decoder-text .generated`);
    // Its characters are the story's (a character model cannot write anything else).
    const story = await page.evaluate(async () => (await (await fetch('static/train/missa-do-galo.txt')).text()));
    const alien = [...generated].filter((c) => !story.includes(c) && c !== '\n');
    assert(alien.length === 0, `characters outside the story: ${alien.join('')} in «${generated}»`);
  });

  await check(`[${mode}] train: "baixar pesos" saves a safetensors file with every tensor of the model, "baixar config" its sizes and vocabulary`, async () => {
    // The run of the previous checks is still on the page.
    const params = Number(await page.getAttribute(`${HOST} .train-model-info`, 'data-parameters'));
    const [weights] = await Promise.all([page.waitForEvent('download'), page.click(`${HOST} [data-action=download]`)]);
    assert(weights.suggestedFilename() === 'treinado.safetensors', weights.suggestedFilename());
    const bytes = fs.readFileSync(await weights.path());
    const headerLength = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
    const tensors = Object.entries(header).filter(([name]) => name !== '__metadata__');
    assert(tensors.length === 1 + 2 * 12 + 2, `${tensors.length} tensors`);
    assert(tensors.every(([, t]) => t.dtype === 'F32') && 'tok_emb' in header, Object.keys(header).join(', '));
    assert(bytes.length === 8 + headerLength + 4 * params, `${bytes.length} bytes for ${params} parameters`);
    const [config] = await Promise.all([page.waitForEvent('download'), page.click(`${HOST} [data-action=download-config]`)]);
    const json = JSON.parse(fs.readFileSync(await config.path(), 'utf8'));
    const vocab = Math.round(Math.exp((await numbers(page)).uniform));
    assert(json.config.vocab_size === vocab && json.tokenizer.chars.length === vocab && json.config.d_model === 64, JSON.stringify(json.config));
    assert(json.training.steps === (await numbers(page)).steps, `${json.training.steps} steps`);
  });

  await check(`[${mode}] train: the decoder's BPE as the tokenizer: V = 2 048, its parameter count, and training lowers the validation loss`, async () => {
    await page.goto(`${base}/${PAGE}`);
    await pageSettled(page, PAGE);
    const fresh = await numbers(page);
    await edit(page, `${HOST} [data-control=tokenizer]`, 'bpe');
    await page.waitForFunction((u) => Math.abs(Number(document.querySelector('[data-widget=train]').dataset.uniformLoss) - Math.log(2048)) < 1e-9, null, { timeout: 60000 });
    assert(await settled(page) === 'ready', await errorText(page));
    const d = 64, f = 256;
    const want = 2048 * d + 2 * (4 * d + 4 * d * d + d * f + f + f * d + d) + 2 * d;
    const shown = Number(await page.getAttribute(`${HOST} .train-model-info`, 'data-parameters'));
    assert(shown === want, `parameters ${shown}, want ${want}`);
    assert((await page.textContent(`${HOST} .train-model-info`)).includes('tokens para treinar'), await page.textContent(`${HOST} .train-model-info`));
    const start = await numbers(page);
    assert(start.bigram < start.uniform && start.uniform !== fresh.uniform, `bigram ${start.bigram}, uniform ${start.uniform}`);
    await page.click(`${HOST} [data-action=train]`);
    await page.waitForFunction((h) => Number(document.querySelector(h).dataset.points) >= 3, HOST, { timeout: 60000 });
    await page.click(`${HOST} [data-action=pause]`);
    await stopped(page);
    const end = await numbers(page);
    assert(end.validation < start.validation - 0.5, `validation ${start.validation} → ${end.validation} in ${end.steps} steps`);
    console.log(`     ${mode} BPE: ${end.stepMs.toFixed(1)} ms a plain step; validation ${start.validation.toFixed(3)} → ${end.validation.toFixed(3)} in ${end.steps} steps (bigram ${end.bigram.toFixed(3)})`);
  });

  await check(`[${mode}] train: the moderna architecture at a matched size; "comparar" trains both on the same batches, shows both losses and says what the race shows; the moderna goes to the decoder`, async () => {
    await page.goto(`${base}/${PAGE}`);
    await pageSettled(page, PAGE);
    for (const [control, value] of [['layers', '1'], ['width', '16'], ['heads', '2'], ['context', '16'], ['batch', '4']]) {
      await edit(page, `${HOST} [data-control=${control}]`, value);
    }
    await page.waitForFunction((h) => Number(document.querySelector(`${h} .train-model-info`)?.dataset.parameters) < 20000, HOST, { timeout: 30000 });
    assert(await settled(page) === 'ready', await errorText(page));
    const parameters = async () => Number(await page.getAttribute(`${HOST} .train-model-info`, 'data-parameters'));
    const original = await parameters();
    await edit(page, `${HOST} [data-control=architecture]`, 'moderna');
    await page.waitForFunction(([h, n]) => Number(document.querySelector(`${h} .train-model-info`)?.dataset.parameters) !== n, [HOST, original], { timeout: 30000 });
    assert(await settled(page) === 'ready', await errorText(page));
    const moderna = await parameters();
    assert(Math.abs(moderna / original - 1) < 0.02, `matched sizes: moderna ${moderna}, original ${original}`);
    assert(await page.isHidden(`${HOST} .train-race`), 'no race before "comparar"');
    await page.click(`${HOST} [data-action=compare]`);
    assert(await page.getAttribute(`${HOST} [data-action=compare]`, 'aria-pressed') === 'true', 'compare pressed');
    await page.waitForFunction((h) => Number(document.querySelector(h).dataset.points) >= 3, HOST, { timeout: 120000 });
    await page.click(`${HOST} [data-action=pause]`);
    await stopped(page);
    const n = await numbers(page);
    const side = (name) => page.$eval(`${HOST} [data-arch-loss=${name}]`, (el) => ({ value: Number(el.dataset.value), step: Number(el.dataset.step), text: el.textContent }));
    const [m, o] = [await side('moderna'), await side('original')];
    assert(m.step === o.step && m.step > 0 && m.step % 25 === 0, `both measured at the same step: ${m.step}, ${o.step}`);
    assert(m.value === n.validation, `the reader's run is the moderna: ${m.value} vs ${n.validation}`);
    for (const s of [m, o]) assert(s.value < n.uniform - 0.3, `${s.text}: below ln V ${n.uniform}`);
    assert(m.value !== o.value, 'two different models');
    const pt = (x) => x.toFixed(4).replace('.', ',');
    const summary = await page.textContent(`${HOST} [data-race]`);
    const leader = m.value < o.value ? 'moderna' : 'original';
    const want = `No passo ${m.step}, com os mesmos lotes: moderna ${pt(m.value)} e original ${pt(o.value)} nats por caractere na validação; a ${leader} está ${pt(Math.abs(m.value - o.value))} abaixo.`;
    assert(summary.startsWith(want), `${summary}\nwant ${want}`);
    assert(m.text.startsWith(`moderna: ${pt(m.value)} na validação`) && o.text.startsWith(`original: ${pt(o.value)} na validação`), `${m.text} | ${o.text}`);
    // Both validation curves on the plot, in its twin table.
    const headers = await page.$$eval(`${HOST} table.twin[data-plot=loss] tr`, (rows) => [...(rows[0]?.children ?? [])].map((cell) => cell.textContent));
    assert(headers.includes('validação: moderna') && headers.includes('validação: original'), headers.join(' | '));
    // The reader's architecture (the moderna) goes to the decoder, which generates with it.
    const DEC = '[data-widget=decoder]';
    await page.waitForSelector(`${DEC}[data-state=ready]`, { timeout: 120000 });
    await page.click(`${HOST} [data-action=use]`);
    await page.waitForFunction((d) => !document.querySelector(`${d} .trained-note`)?.hidden, DEC, { timeout: 30000 });
    await page.waitForSelector(`${DEC}[data-state=ready]`, { timeout: 60000 });
    const thumbs = await page.$$eval(`${DEC} .attention-grid .thumb`, (cs) => cs.length);
    assert(thumbs === 2, `${thumbs} thumbnails (1 layer × 2 heads)`);
    await page.click(`${DEC} [data-action=generate]`);
    // A context of 16: the text shown is the window's, so at least half of it generated.
    await page.waitForFunction((d) => (document.querySelector(`${d} .decoder-text .generated`)?.textContent ?? '').length >= 8
      && document.querySelector(d).getAttribute('aria-busy') !== 'true', DEC, { timeout: 60000 });
    const generated = await page.textContent(`${DEC} .decoder-text .generated`);
    const story = await page.evaluate(async () => (await (await fetch('static/train/missa-do-galo.txt')).text()));
    assert([...generated].every((c) => story.includes(c) || c === '\n'), `characters outside the story in «${generated}»`);
    // Pressed again: the reader's architecture alone.
    await page.click(`${HOST} [data-action=compare]`);
    await page.waitForFunction((h) => document.querySelector(`${h} .train-race`).hidden, HOST, { timeout: 30000 });
    console.log(`     ${mode} race, ${m.step} steps: ${summary}`);
  });

  if (mode === 'webgpu') {
    await check(`[${mode}] train: forced onto WebGPU, a small model trains there with the CPU's losses (the curve at step 25 within 10⁻³)`, async () => {
      const small = async (placement) => {
        await page.goto(`${base}/${PAGE}`);
        await pageSettled(page, PAGE);
        await settled(page);
        for (const [control, value] of [['layers', '1'], ['width', '16'], ['heads', '2'], ['context', '16'], ['batch', '4']]) {
          await edit(page, `${HOST} [data-control=${control}]`, value);
        }
        await edit(page, `${HOST} [data-control=placement]`, placement, 'change');
        await page.waitForFunction((h) => document.querySelector(`${h} .train-model-info`)?.dataset.parameters < 20000, HOST, { timeout: 30000 });
        await page.click(`${HOST} [data-action=train]`);
        await page.waitForFunction((h) => Number(document.querySelector(h).dataset.steps) >= 26, HOST, { timeout: 180000, polling: 250 });
        await page.click(`${HOST} [data-action=pause]`);
        await stopped(page);
        const status = await readResults(page, HOST, 'train-status');
        const row = (await curve(page)).find((r) => r[0] === 'passo 25');
        assert(row, JSON.stringify(await curve(page)));
        return { on: status['calculado em'], computed: await page.getAttribute(HOST, 'data-computed-on'), validation: parsePt(row[2]), rate: (await numbers(page)).rate };
      };
      const gpu = await small('webgpu');
      const cpu = await small('cpu');
      assert(gpu.on === 'WebGPU' && gpu.computed === 'webgpu', JSON.stringify(gpu));
      assert(cpu.on === 'CPU' && cpu.computed === 'cpu', JSON.stringify(cpu));
      assert(Math.abs(gpu.validation - cpu.validation) <= 1e-3, `validation at step 25: WebGPU ${gpu.validation}, CPU ${cpu.validation}`);
      console.log(`     small model, step 25: validation ${gpu.validation} (WebGPU) / ${cpu.validation} (CPU); ${gpu.rate.toFixed(2)} / ${cpu.rate.toFixed(1)} steps/s`);
    });

    await check(`[${mode}] train: the GPU lost mid-training, the run goes on on the CPU from the last copy of the weights, and the widget says so`, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript(() => localStorage.setItem('atencao.backend', 'webgpu'));
      const fresh = await context.newPage();
      const started = fresh.waitForEvent('worker', { timeout: 60000 });
      await fresh.goto(`${base}/${PAGE}`);
      await fresh.waitForFunction((h) => document.querySelector(h)?.dataset.state === 'ready', HOST, { timeout: 60000 });
      // The run trains in the page's worker, on the device it opened there (perhaps already, for
      // the page's decoder): note every device that records commands, so the test can destroy it
      // (nothing in the site changes).
      const worker = await started;
      await worker.evaluate(() => {
        self.__devices = new Set();
        const encoder = GPUDevice.prototype.createCommandEncoder;
        GPUDevice.prototype.createCommandEncoder = function (...args) {
          self.__devices.add(this);
          return encoder.apply(this, args);
        };
      });
      for (const [control, value] of [['layers', '1'], ['width', '16'], ['heads', '2'], ['context', '16'], ['batch', '4']]) {
        await edit(fresh, `${HOST} [data-control=${control}]`, value);
      }
      await edit(fresh, `${HOST} [data-control=placement]`, 'webgpu', 'change');
      await fresh.waitForFunction((h) => document.querySelector(`${h} .train-model-info`)?.dataset.parameters < 20000, HOST, { timeout: 30000 });
      await fresh.click(`${HOST} [data-action=train]`);
      await fresh.waitForFunction((h) => Number(document.querySelector(h).dataset.steps) >= 30, HOST, { timeout: 120000, polling: 100 });
      assert(await fresh.getAttribute(HOST, 'data-computed-on') === 'webgpu', 'training on WebGPU');
      const destroyed = await worker.evaluate(() => { self.__devices.forEach((d) => d.destroy()); return self.__devices.size; });
      assert(destroyed >= 1, 'the worker recorded no GPU commands');
      await fresh.waitForFunction((h) => document.querySelector(`${h} .train-message`)?.textContent.includes('A GPU falhou'), HOST, { timeout: 60000 });
      const message = await fresh.textContent(`${HOST} .train-message`);
      const [, failedAt, resumedAt] = message.match(/passo (\d+).*a partir do passo (\d+)/s) ?? [];
      assert(failedAt && resumedAt && Number(resumedAt) <= Number(failedAt) && Number(resumedAt) % 25 === 0, message);
      // Training goes on, on the CPU, past the step it failed at.
      await fresh.waitForFunction(([h, s]) => Number(document.querySelector(h).dataset.steps) > s + 20, [HOST, Number(failedAt)], { timeout: 60000 });
      assert(await fresh.getAttribute(HOST, 'data-computed-on') === 'cpu', 'on the CPU after the loss');
      const status = await readResults(fresh, HOST, 'train-status');
      assert(status['calculado em'].startsWith('CPU') && status['calculado em'].includes('a GPU falhou'), status['calculado em']);
      await fresh.click(`${HOST} [data-action=pause]`);
      await context.close();
    });
  }

  await check(`[${mode}] train: bad input gets a message (empty, one repeated character, NaN size, 5 MB paste)`, async () => {
    await page.goto(`${base}/${PAGE}`);
    await pageSettled(page, PAGE);
    await edit(page, `${HOST} [data-control=source]`, 'own');
    await edit(page, `${HOST} [data-control=text]`, '');
    assert(await settled(page) === 'error' && (await errorText(page)).includes('vazio'), await errorText(page));
    await edit(page, `${HOST} [data-control=text]`, 'a'.repeat(3000));
    await page.waitForFunction((h) => document.querySelector(h)?.querySelector(':scope > .widget-error')?.textContent.includes('2 símbolos'), HOST, { timeout: 10000 });
    await edit(page, `${HOST} [data-control=text]`, 'ab');
    await page.waitForFunction((h) => document.querySelector(h)?.querySelector(':scope > .widget-error')?.textContent.includes('pelo menos'), HOST, { timeout: 10000 });
    // "treinar" with a bad text says why instead of training.
    await page.click(`${HOST} [data-action=train]`);
    assert(await settled(page) === 'error' && !(await numbers(page)).training, 'no training on a bad text');
    await page.$eval(`${HOST} [data-control=text]`, (el) => {
      el.value = 'Era noite de Natal. 😀 Ação! '.repeat(Math.ceil(5e6 / 29));
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction((h) => document.querySelector(h)?.querySelector('.train-text-info')?.dataset.cut === 'true', HOST, { timeout: 30000 });
    assert(await settled(page) === 'ready', await errorText(page));
    const info = await page.textContent(`${HOST} .train-text-info`);
    assert(info.includes('200.000'), info);
    await edit(page, `${HOST} [data-control=layers]`, 'NaN');
    await page.waitForFunction((h) => document.querySelector(h)?.querySelector(':scope > .widget-error')?.textContent.includes('Camadas'), HOST, { timeout: 10000 });
    await edit(page, `${HOST} [data-control=layers]`, '2');
    await edit(page, `${HOST} [data-control=heads]`, '3');
    await page.waitForFunction((h) => document.querySelector(h)?.querySelector(':scope > .widget-error')?.textContent.includes('múltipla'), HOST, { timeout: 10000 });
  });

  // The page's structure does not depend on the backend: axe and the screenshots run once.
  if (mode !== 'cpu') return;

  await check(`[${mode}] train: the run lives in the page's worker; a worker that crashes is reported and replaced, keeping the reader's sizes`, async () => {
    const started = page.waitForEvent('worker', { timeout: 60000 });
    await page.goto(`${base}/${PAGE}`);
    await pageSettled(page, PAGE);
    const worker = await started;
    await edit(page, `${HOST} [data-control=layers]`, '1');
    await page.waitForFunction((h) => Number(document.querySelector(`${h} .train-model-info`)?.dataset.parameters) < 80000, HOST, { timeout: 30000 });
    const params = Number(await page.getAttribute(`${HOST} .train-model-info`, 'data-parameters'));
    await page.click(`${HOST} [data-action=train]`);
    await page.waitForFunction((h) => Number(document.querySelector(h).dataset.steps) >= 20, HOST, { timeout: 60000 });
    const message = await page.textContent(`${HOST} .train-message`);
    assert(page.workers().length === 1 && !message.includes('própria página'), `${page.workers().length} workers; ${message}`);
    // An error nobody catches ends the worker's run, as a panic in its wasm would: its message
    // handler now throws, and the next command (another head) reaches it.
    await worker.evaluate(() => { self.onmessage = () => { throw new Error('falha de teste'); }; });
    await edit(page, `${HOST} [data-control=head]`, '1', 'change');
    await page.waitForFunction((h) => document.querySelector(`${h} .train-message`)?.textContent.includes('segundo plano parou'), HOST, { timeout: 30000 });
    assert(await settled(page) === 'ready', await errorText(page));
    await page.waitForFunction((h) => document.querySelector(h).dataset.steps === '0', HOST, { timeout: 30000 });
    assert(await page.$eval(`${HOST} [data-control=layers]`, (el) => el.value) === '1', 'the sizes are kept');
    assert(Number(await page.getAttribute(`${HOST} .train-model-info`, 'data-parameters')) === params, 'the same model, rebuilt');
    await page.click(`${HOST} [data-action=train]`);
    await page.waitForFunction((h) => Number(document.querySelector(h).dataset.steps) >= 10, HOST, { timeout: 60000 });
    await page.click(`${HOST} [data-action=pause]`);
    await stopped(page);
  });

  await check(`[${mode}] train: where the browser refuses a worker, the run trains on the page itself, with a note`, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(() => {
      window.Worker = class { constructor() { throw new DOMException('workers recusados neste teste', 'SecurityError'); } };
    });
    const fresh = await context.newPage();
    await fresh.goto(`${base}/${PAGE}`);
    await fresh.waitForFunction((h) => document.querySelector(h)?.dataset.state === 'ready', HOST, { timeout: 60000 });
    await fresh.click(`${HOST} [data-action=train]`);
    await fresh.waitForFunction((h) => Number(document.querySelector(h).dataset.steps) >= 30, HOST, { timeout: 60000 });
    const message = await fresh.textContent(`${HOST} .train-message`);
    assert(message.includes('própria página') && fresh.workers().length === 0, `${fresh.workers().length} workers; ${message}`);
    await fresh.click(`${HOST} [data-action=pause]`);
    await stopped(fresh);
    const steps = (await numbers(fresh)).steps;
    await fresh.waitForTimeout(300);
    assert((await numbers(fresh)).steps === steps, 'paused on the page too');
    await context.close();
  });

  await check(`[${mode}] train page: no serious or critical axe violation, nothing overflows at 390 and 1280 px (light and dark)`, async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const problems = [];
    for (const scheme of ['light', 'dark']) {
      for (const width of [390, 1280]) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
        const fresh = await context.newPage();
        await fresh.goto(`${base}/${PAGE}`);
        await pageSettled(fresh, PAGE);
        await fresh.waitForSelector(`${HOST}[data-state=ready]`, { timeout: 60000 });
        // A few points on the curve and samples, so the shots show a run.
        await fresh.click(`${HOST} [data-action=train]`);
        await fresh.waitForFunction((h) => Number(document.querySelector(h).dataset.steps) >= 110, HOST, { timeout: 60000 });
        await fresh.click(`${HOST} [data-action=pause]`);
        await stopped(fresh);
        if (width === 1280) {
          await fresh.addScriptTag({ content: AXE });
          const found = await fresh.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
            .filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => `${v.impact} ${v.id} (${v.help}) em ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`));
          problems.push(...found.map((f) => `${scheme}: ${f}`));
        }
        const wide = await fresh.evaluate(() => {
          const out = [];
          if (document.documentElement.scrollWidth > window.innerWidth) out.push(`page ${document.documentElement.scrollWidth - window.innerWidth}px`);
          for (const w of document.querySelectorAll('[data-widget]')) if (w.scrollWidth > w.clientWidth + 1) out.push(`${w.dataset.widget} ${w.scrollWidth - w.clientWidth}px`);
          return out;
        });
        problems.push(...wide.map((p) => `${scheme} ${width}px: ${p}`));
        await fresh.locator(HOST).screenshot({ path: path.join(SHOTS, `train-${scheme}-${width}.png`) });
        await context.close();
      }
    }
    assert(problems.length === 0, problems.join('\n'));
  });
  // The shared page leaves the training page (and any run or device on it) for the suites after this one.
  await page.goto('about:blank');
}
