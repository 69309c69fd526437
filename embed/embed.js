// atenção: the entry point for putting widgets in any page (a blog post).
//
//   <script type="module" src="https://example.org/atencao/embed.js"></script>
//   <div data-widget="attention"></div>
//
// Copied to the built site (dist/embed.js) next to the page's module, whose names carry no hash
// (Trunk.toml: filehash = false), so this URL stays valid from one build to the next. A module
// runs once per page however often it is included: every widget of the page shares one wasm
// instance and one GPU device.
//
// The module comes in six builds (issues 36 and 41): the article widgets of vectors, text and
// sequences (atencao-sequences.js), those of attention and the Transformer (atencao-attention.js),
// the models computed on the page (atencao-models.js: BPE, the gradient check), the decoder and
// training, whose models run in the page's worker (atencao-resident.js), today's block
// (atencao-modern.js: rope, rms-norm, swiglu, gqa), and every widget (atencao.js). The post loads the one its widgets need, as the site's pages do
// (site::widgets::module_for): the build of their group, every widget's when they are of
// several. WIDGET_BUILDS (kind → its build; null for a kind in the sequences' and the models'
// builds) is site::widgets::builds_for_embed's, written in at build time by scripts/pages.sh. A
// widget of another group added to the post later says to reload the page.
//
// The wasm side (src/web/embed.rs) does the rest; it gets the folder this file was served
// from, to find the model files under a sub-path or on another origin. No inline code, no
// eval: it runs under `script-src 'self' 'wasm-unsafe-eval'`.
import { SUPPORTED, showUnsupported } from './static/compat.js';

const WIDGET_BUILDS = {};

// Checkpoints (exercises) need no wasm: their own small script, only where the post has one.
if (document.querySelector('[data-checkpoint]')) import('./static/checkpoints.js');

/** The build for the post's widgets, as site::widgets::module_for chooses; an unknown kind is
 * the sequences build's to report. A kind of the sequences' and the models' builds (null) is in
 * no other. */
function buildFor(kinds) {
  const builds = new Set(kinds.map((kind) => (Object.hasOwn(WIDGET_BUILDS, kind) ? WIDGET_BUILDS[kind] : 'atencao-sequences')).filter(Boolean));
  const shared = kinds.some((kind) => Object.hasOwn(WIDGET_BUILDS, kind) && WIDGET_BUILDS[kind] === null);
  const [one] = builds;
  if (builds.size > 1 || (shared && one && one !== 'atencao-sequences' && one !== 'atencao-models')) return 'atencao';
  return one ?? 'atencao-sequences';
}

if (SUPPORTED) {
  const build = buildFor([...document.querySelectorAll('[data-widget]')].map((host) => host.dataset.widget ?? ''));
  // The widgets' stylesheet comes as a module of its own: the site's pages have it already,
  // so the wasm builds do not carry a copy.
  const [{ default: init, embed }, { default: css }] = await Promise.all([import(`./${build}.js`), import('./embed-css.js')]);
  await init({ module_or_path: new URL(`${build}_bg.wasm`, import.meta.url) });
  embed(new URL('.', import.meta.url).href, css);
} else {
  // The wasm cannot compile here: every widget of the post says why, as text.
  for (const host of document.querySelectorAll('[data-widget]')) {
    showUnsupported(host);
    host.dataset.state = 'error';
  }
}
