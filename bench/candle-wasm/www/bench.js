// The decoder against candle in one page (issue 42). Both engines are wasm modules built by
// scripts/bench-candle.sh into ../pkg/: `ours` (atencao-core's decoder, the site's profile) and
// `candle` (candle-core + candle-nn, atencao_train::model::Gpt). Both read static/model; the ids
// come from the site's tokenizer. Served from the repository root (the script does).
//
// 1. Equal answers: the logits of the 64-token prompt, and of the next token after 127 cached
//    positions, from both engines; the largest absolute difference must be ≤ 1e-4.
// 2. Speed, in turns: each round times one sample of each engine (which goes first alternates),
//    after `warmup` untimed rounds. A prefill sample is `leituras` prefills of the 64-token
//    prompt from an empty cache, divided; a next-token sample is `passos` single tokens at
//    position 127 (context 128), each after cutting the cache back to the 127 primed
//    positions. The medians of the rounds, and candle's median / ours, go to #result as JSON.
import initOurs, { Ours, lanes_check as lanesCheck } from '../pkg/ours/atencao_bench_ours.js';
import initCandle, { Candle } from '../pkg/candle/atencao_bench_candle.js';

const TEXT = 'Uma noite destas, vindo da cidade para o Engenho Novo, encontrei no trem da Central um rapaz '
  + 'aqui do bairro, que eu conheço de vista e de chapéu. Cumprimentou-me, sentou-se ao pé de mim, '
  + 'falou da lua e dos ministros, e acabou recitando-me versos. A viagem era curta, e os versos pode ser '
  + 'que não fossem inteiramente maus. Sucedeu, porém, que, como eu estava cansado, fechei os olhos três '
  + 'ou quatro vezes; tanto bastou para que ele interrompesse a leitura e metesse os versos no bolso. '
  + 'No dia seguinte entrou a dizer de mim nomes feios, e acabou alcunhando-me Dom Casmurro.';
const PROMPT = 64;
const CONTEXT = 128;
const TOLERANCE = 1e-4;

const params = new URLSearchParams(location.search);
const int = (name, fallback) => Math.max(1, Number.parseInt(params.get(name) ?? '', 10) || fallback);
const ROUNDS = int('rodadas', 25);
const PREFILLS = int('leituras', 3);
const STEPS = int('passos', 20);
const WARMUP = int('aquecimento', 2);
// `?apenas=leitura` or `?apenas=passo` times only the prefill or only the next token (for a
// CPU profile of one of them: `--profile` in tests/e2e/bench-candle.mjs).
const ONLY = params.get('apenas');

const status = document.getElementById('status');
const result = document.getElementById('result');
const say = (text) => { status.textContent = text; };
const pause = () => new Promise((resolve) => setTimeout(resolve, 0));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const maxDiff = (a, b) => {
  if (a.length !== b.length) throw new Error(`logits: ${a.length} against ${b.length}`);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
};
const fmt = (x, digits = 3) => x.toLocaleString('pt-BR', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function bytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function main() {
  const model = '../../../static/model/';
  const [, , config, tokenizer, weights] = await Promise.all([
    initOurs(), initCandle(),
    fetch(`${model}config.json`).then((r) => r.text()), bytes(`${model}tokenizer.json`), bytes(`${model}model.safetensors`),
  ]);
  const engines = { atencao: new Ours(config, tokenizer, weights), candle: new Candle(config, weights) };
  const ids = engines.atencao.encode(TEXT);
  if (ids.length < CONTEXT) throw new Error(`the text gives ${ids.length} tokens, fewer than ${CONTEXT}`);
  const prompt = Uint32Array.from(ids.slice(0, PROMPT));
  const primed = Uint32Array.from(ids.slice(0, CONTEXT - 1));
  const next = ids[CONTEXT - 1];

  const lanes = lanesCheck(Date.now() % 1e6);
  if (lanes) throw new Error(`the core's simd128 kernel differs from its plain twin: ${lanes}`);
  say('Comparando os logits…');
  const prefillDiff = maxDiff(engines.atencao.prefill(prompt), engines.candle.prefill(prompt));
  for (const e of Object.values(engines)) e.prime(primed);
  const stepDiff = maxDiff(engines.atencao.step(next), engines.candle.step(next));
  const logitsMaxDiff = Math.max(prefillDiff, stepDiff);
  if (!(logitsMaxDiff <= TOLERANCE)) throw new Error(`the logits differ by ${logitsMaxDiff} (> ${TOLERANCE})`);

  const times = { atencao: { prefill: [], step: [] }, candle: { prefill: [], step: [] } };
  const order = [['atencao', 'candle'], ['candle', 'atencao']];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    say(round < WARMUP ? `Aquecendo (${round + 1} de ${WARMUP})…` : `Medindo: rodada ${round - WARMUP + 1} de ${ROUNDS}…`);
    for (const name of order[round % 2]) {
      const e = engines[name];
      let start = performance.now();
      if (ONLY !== 'passo') e.prefill_runs(prompt, PREFILLS);
      const prefill = (performance.now() - start) / PREFILLS;
      start = performance.now();
      if (ONLY !== 'leitura') e.step_runs(next, STEPS);
      const step = (performance.now() - start) / STEPS;
      if (round >= WARMUP) {
        times[name].prefill.push(prefill);
        times[name].step.push(step);
      }
    }
    await pause();
  }
  const med = (name, what) => median(times[name][what]);
  const summary = {
    prompt_tokens: PROMPT,
    next_token_position: CONTEXT - 1,
    rounds: ROUNDS, warmup_rounds: WARMUP, prefills_per_sample: PREFILLS, steps_per_sample: STEPS,
    logits_max_abs_diff: { prefill: prefillDiff, next_token: stepDiff, max: logitsMaxDiff, tolerance: TOLERANCE },
    atencao: { prefill_ms: med('atencao', 'prefill'), next_token_ms: med('atencao', 'step') },
    candle: { prefill_ms: med('candle', 'prefill'), next_token_ms: med('candle', 'step') },
    ratio: {
      prefill: med('candle', 'prefill') / med('atencao', 'prefill'),
      next_token: med('candle', 'step') / med('atencao', 'step'),
    },
    samples: times,
    user_agent: navigator.userAgent,
    cross_origin_isolated: self.crossOriginIsolated,
  };
  const body = document.querySelector('#table tbody');
  for (const [label, key, ratio] of [[`ler ${PROMPT} tokens`, 'prefill_ms', summary.ratio.prefill], [`gerar 1 token na posição ${CONTEXT - 1}`, 'next_token_ms', summary.ratio.next_token]]) {
    const row = body.insertRow();
    for (const text of [label, fmt(summary.atencao[key]), fmt(summary.candle[key]), `${fmt(ratio, 2)}×`]) row.insertCell().textContent = text;
  }
  document.getElementById('table').hidden = false;
  say(`Pronto. Logits iguais (diferença máxima ${logitsMaxDiff.toExponential(2)}); ${ROUNDS} rodadas em turnos.`);
  result.textContent = JSON.stringify(summary, null, 2);
  result.dataset.state = 'done';
}

main().catch((error) => {
  say(`Falhou: ${error.message ?? error}`);
  result.textContent = JSON.stringify({ error: String(error.message ?? error) });
  result.dataset.state = 'error';
});
