// atenção: can this browser run the site's wasm? It is compiled with WebAssembly SIMD
// (.cargo/config.toml: 2 to 4 times faster CPU products, see BENCHMARKS.md), which browsers
// have had since Chrome 91, Firefox 89 and Safari 16.4. Where it is missing, the wasm cannot
// compile: say so in Portuguese in each widget instead of leaving it empty. Imported by the
// site's script (static/site.js) and by embed.js; no inline code, so it runs under a strict CSP.

// The smallest module using a SIMD instruction (i8x16.splat, i8x16.popcnt).
const PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

export const SUPPORTED = typeof WebAssembly === 'object' && WebAssembly.validate(PROBE);

export const MESSAGE = 'Este navegador não consegue rodar os exemplos: falta o WebAssembly SIMD ' +
  '(presente desde o Chrome 91, o Firefox 89 e o Safari 16.4). Atualize o navegador para ver os cálculos.';

/** Puts the message, as text, in place of `host`'s content. */
export function showUnsupported(host) {
  const note = document.createElement('p');
  note.className = 'widget-error unsupported';
  note.setAttribute('role', 'alert');
  note.textContent = MESSAGE;
  host.replaceChildren(note);
}
