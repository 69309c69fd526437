// The instances of a checkpoint beyond the prerendered one (issue 38), loaded by static/checkpoints.js
// only when needed: on "outro exemplo", which fetches static/checkpoints/ID.json once and builds the
// next instance into the same elements the page generator writes (site/src/generate/checkpoints.rs,
// `body`), and in a blog post, where each checkpoint is built from instance 0 in a shadow root (as
// the widgets are: nothing is added to the post's document, its styles do not reach in).
// Everything is set as text.
import { here, box, el, mark, say } from './checkpoints.js';

const loaded = {};

// An instance of the JSON as the elements the page generator writes (checkpoints.rs, `body`).
function body(x) {
  const b = el('div', { className: 'checkpoint-body' });
  Object.assign(b.dataset, { expect: x.e, decimals: x.d ?? '' });
  const q = el('div', { className: 'checkpoint-question' });
  for (const p of x.q) {
    if (p.t != null) {
      q.append(el('p', { textContent: p.t }));
      continue;
    }
    const t = el('table', { className: 'checkpoint-data' }, [el('caption', { textContent: p.c })]);
    t.createTHead().append(el('tr', {}, p.h.map((h) => el('th', { scope: 'col', textContent: h }))));
    t.createTBody().append(...p.r.map(([l, ...cells]) => el('tr', {}, [el('th', { scope: 'row', textContent: l }), ...cells.map((c) => el('td', { textContent: c }))])));
    q.append(t);
  }
  const answer = x.o
    ? mark(mark(el('p', { className: 'checkpoint-choices' }, x.o.flatMap((o, i) => [mark(mark(el('button', { type: 'button', className: 'btn', textContent: o }), 'data-choice', i), 'aria-pressed', 'false'), ' '])), 'role', 'group'), 'aria-label', 'Opções')
    : el('p', { className: 'checkpoint-answer' }, [el('label', {}, ['Sua resposta: ', mark(el('input', { type: 'text', inputMode: 'decimal', autocomplete: 'off', spellcheck: false }), 'data-answer')])]);
  const solution = mark(el('div', { className: 'checkpoint-solution', hidden: true }, [el('p', { textContent: 'Solução:' }), el('ol', {}, x.s.map((s) => el('li', { textContent: s }))), el('p', {}, ['Resposta: ', mark(el('strong', { textContent: x.v }), 'data-value')])]), 'data-solution');
  const slips = mark(el('ul', { hidden: true }, x.w.map(([a, why]) => mark(el('li', { textContent: why }), 'data-slip', a))), 'data-slips');
  b.append(q, answer, solution, slips);
  return b;
}

function instances(cp) {
  const id = cp.dataset.checkpoint;
  loaded[id] ??= fetch(here(`checkpoints/${id}.json`)).then((r) => {
    if (!r.ok) throw new Error(r.status);
    return r.json();
  });
  return loaded[id].catch((e) => {
    delete loaded[id];
    throw e;
  });
}

export async function another(cp) {
  try {
    const all = (await instances(cp)).i;
    const n = ((+cp.dataset.instance || 0) % (all.length - 1)) + 1;
    cp.dataset.instance = n;
    box(cp).querySelector('.checkpoint-body').replaceWith(body(all[n]));
    say(cp, null, '');
  } catch {
    say(cp, null, 'Não deu para carregar outro exemplo (sem conexão?). Tente de novo.');
  }
}

// In a blog post (no stylesheet link on the page): the sheet, fetched once and adopted by each
// checkpoint's shadow root (which a strict CSP, style-src 'self', allows).
let sheet;
function adopt(root) {
  sheet ??= fetch(here('checkpoints.css')).then((r) => r.text()).then((css) => {
    const s = new CSSStyleSheet();
    s.replaceSync(css);
    return s;
  });
  sheet.then((s) => { root.adoptedStyleSheets = [s]; }, () => {});
}

// An element a blog post placed: built from instance 0 of its JSON in a shadow root.
export async function mount(cp) {
  const button = (action, text) => mark(el('button', { type: 'button', className: 'btn', textContent: text }), 'data-action', action);
  const status = mark(el('p', { className: 'checkpoint-status' }), 'role', 'status');
  const root = cp.attachShadow({ mode: 'open' });
  adopt(root);
  const frame = el('div', { className: 'checkpoint' }, [status]);
  root.append(frame);
  try {
    const data = await instances(cp);
    mark(mark(cp, 'role', 'region'), 'aria-label', `Pare e calcule: ${data.t}`);
    frame.prepend(el('p', { className: 'checkpoint-label', textContent: `Pare e calcule: ${data.t}` }), body(data.i[0]), el('p', { className: 'checkpoint-actions' }, [button('check', 'conferir'), ' ', button('reveal', 'ver solução'), ' ', button('another', 'outro exemplo')]));
  } catch {
    say(cp, null, `Não deu para carregar o exercício «${cp.dataset.checkpoint}».`);
  }
}

