// Checkpoints (issue 38): loaded only by the pages that have one (their head, written by the page
// generator, site/src/generate/checkpoints.rs) and by a blog post's embed.js when the post has an
// element [data-checkpoint]. The page carries the first instance prerendered, with what is right
// (data-expect, data-decimals) and the known slips (li[data-slip]): this script judges, reveals and
// keeps the progress; static/checkpoint-examples.js, loaded only on "outro exemplo" or in a blog
// post, builds the other instances. Everything is set as text. Progress: the ids solved per
// article in localStorage, shown in the contents as "✎3/9"; where storage is refused nothing is
// kept and nothing fails.
export const here = (p) => new URL(p, import.meta.url);
const KEY = 'atencao.checkpoints ' + here('..').pathname;
// What holds a checkpoint's parts: its shadow root in a blog post, the element itself on the site.
export const box = (cp) => cp.shadowRoot || cp;
const examples = () => import('./checkpoint-examples.js');

export function el(tag, props, kids) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...(kids || []));
  return e;
}

export function mark(e, name, value = '') {
  e.setAttribute(name, value);
  return e;
}

function solved() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || {};
  } catch {
    return {};
  }
}

// The contents' link of the article this page belongs to (none in a blog post).
function article() {
  return document.querySelector('#toc [aria-current=page]')?.closest('.toc-group')?.querySelector('.toc-article')?.getAttribute('href');
}

function progress() {
  const s = solved();
  for (const g of document.querySelectorAll('#toc .toc-group[data-checkpoints]')) {
    const a = g.querySelector('.toc-article');
    const done = (s[a.getAttribute('href')] || []).length;
    const all = g.dataset.checkpoints;
    const m = a.querySelector('.toc-checks') || a.appendChild(el('span', { className: 'toc-checks' }));
    m.replaceChildren(mark(el('span', { textContent: `✎${done}/${all}` }), 'aria-hidden', 'true'), el('span', { className: 'visually-hidden', textContent: ` (${done} de ${all} exercícios resolvidos)` }));
  }
}

function record(id) {
  const a = article();
  if (!a) return;
  const s = solved();
  s[a] = [...new Set([...(s[a] || []), id])];
  try {
    localStorage.setItem(KEY, JSON.stringify(s));
  } catch {}
  progress();
}

export function say(cp, result, text) {
  if (result) cp.dataset.result = result;
  else delete cp.dataset.result;
  box(cp).querySelector('[role=status]').textContent = text;
}

// "0,5", "0.5", " −1,25 " → a number; anything else → NaN.
function number(s) {
  s = s.replace(/\s/g, '').replace('−', '-').replace(',', '.');
  return /^[-+]?(\d+\.?\d*|\.\d+)$/.test(s) ? +s : NaN;
}

function check(cp) {
  const b = box(cp).querySelector('.checkpoint-body');
  const { expect, decimals } = b.dataset;
  let given, right, near, almost;
  if (decimals === '') {
    given = b.querySelector('[aria-pressed=true]')?.dataset.choice;
    if (given == null) return say(cp, null, 'Escolha uma opção antes de conferir.');
    right = given === expect;
    near = (v) => v === given;
  } else {
    const raw = b.querySelector('[data-answer]').value.trim();
    const x = number(raw);
    if (!raw) return say(cp, null, 'Escreva sua resposta antes de conferir.');
    if (isNaN(x)) return say(cp, null, `«${raw}» não é um número: use vírgula ou ponto para os decimais.`);
    // Judged at the places shown: within half a unit of the last place.
    const tolerance = 0.5 * 10 ** -decimals + 1e-9;
    near = (v) => Math.abs(x - number(v)) <= tolerance;
    right = near(expect);
    // Close, but not a known slip: fewer places than asked, or the last place rounded the other way.
    const off = Math.abs(x - number(expect));
    const typed = (raw.split(/[,.]/)[1] || '').length;
    if (typed < decimals && off <= 0.5 * 10 ** -typed + 1e-9) almost = `Quase: escreva com ${decimals} casas decimais.`;
    else if (decimals > 0 && off <= 1.5 * 10 ** -decimals) almost = 'Quase: confira o arredondamento da última casa.';
  }
  if (right) {
    record(cp.dataset.checkpoint);
    return say(cp, 'certo', `Certo! ${b.querySelector('[data-value]').textContent}.`);
  }
  const slip = [...b.querySelectorAll('[data-slip]')].find((li) => near(li.dataset.slip));
  say(cp, 'errado', slip ? `Ainda não. ${slip.textContent}` : almost || 'Ainda não. Confira as contas, ou veja a solução.');
}

// The checkpoint a node belongs to: its ancestor, or the host of its shadow root.
const owner = (node) => node.closest('[data-checkpoint]') || node.getRootNode().host;

document.addEventListener('click', (e) => {
  const button = e.composedPath()[0].closest?.('button');
  const cp = button && owner(button);
  if (!cp?.dataset.checkpoint) return;
  const action = button.dataset.action;
  if (button.dataset.choice != null) {
    for (const b of button.parentNode.querySelectorAll('[data-choice]')) b.setAttribute('aria-pressed', b === button);
  } else if (action === 'check') check(cp);
  else if (action === 'reveal') box(cp).querySelector('[data-solution]').hidden = false;
  else if (action === 'another') examples().then((m) => m.another(cp), () => say(cp, null, 'Não deu para carregar outro exemplo (sem conexão?). Tente de novo.'));
});
document.addEventListener('keydown', (e) => {
  const input = e.composedPath()[0];
  if (e.key === 'Enter' && input.matches?.('[data-answer]')) check(owner(input));
});
for (const cp of document.querySelectorAll('[data-checkpoint]')) if (!cp.querySelector('.checkpoint-body')) examples().then((m) => m.mount(cp));
progress();
