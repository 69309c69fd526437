// atenção: the entry point for putting widgets in any page (a blog post).
//
//   <script type="module" src="https://example.org/atencao/embed.js"></script>
//   <div data-widget="attention"></div>
//
// Copied unchanged to the built site (dist/embed.js) next to atencao.js and atencao_bg.wasm,
// whose names carry no hash (Trunk.toml: filehash = false), so this URL stays valid from one
// build to the next. A module runs once per page however often it is included: every widget
// of the page shares one wasm instance and one GPU device.
//
// The wasm side (src/web/embed.rs) does the rest; it gets the folder this file was served
// from, to find the model files under a sub-path or on another origin. No inline code, no
// eval: it runs under `script-src 'self' 'wasm-unsafe-eval'`.
import init, { embed } from './atencao.js';
import { SUPPORTED, showUnsupported } from './static/compat.js';

// Checkpoints (exercises) need no wasm: their own small script, only where the post has one.
if (document.querySelector('[data-checkpoint]')) import('./static/checkpoints.js');

if (SUPPORTED) {
  await init({ module_or_path: new URL('atencao_bg.wasm', import.meta.url) });
  embed(new URL('.', import.meta.url).href);
} else {
  // The wasm cannot compile here: every widget of the post says why, as text.
  for (const host of document.querySelectorAll('[data-widget]')) {
    showUnsupported(host);
    host.dataset.state = 'error';
  }
}
