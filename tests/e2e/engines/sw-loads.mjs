// Loads pages of the built site in Firefox (Debian's firefox-esr) one after another from a fresh
// profile, as a first-time reader would: the service worker registers on the first page and fills
// the offline copy while the next pages load through it. Counts the console errors, the service
// worker's included ("A ServiceWorker intercepted the request and encountered an unexpected
// error", issue 40), and the widgets that did not get ready.
// Usage: node tests/e2e/engines/sw-loads.mjs [dist] [--loads 20] [--rounds 1] [--hurry]
// --hurry goes to the next page as soon as one has loaded, without waiting for its widgets: a
// reader who follows a link while the wasm still downloads (its requests are then cut off).
// Exits 1 if any load logged an error or left a widget unready.
import fs from 'node:fs';
import path from 'node:path';

import { serve } from '../lib.mjs';
import { gecko } from './drivers.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const DIST = path.resolve(args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? 'dist');
const LOADS = option('--loads', 20);
const ROUNDS = option('--rounds', 1);
const HURRY = args.includes('--hurry');

/** Pages with widgets first (they load the wasm through the worker), then the rest. */
const pages = fs.readdirSync(DIST).filter((f) => f.endsWith('.html') && f !== 'bench.html')
  .map((f) => [f, fs.readFileSync(path.join(DIST, f), 'utf8').includes('data-widget=')])
  .sort((a, b) => Number(b[1]) - Number(a[1]) || a[0].localeCompare(b[0])).map(([f]) => f);

const server = await serve(DIST);
const base = `http://127.0.0.1:${server.address().port}`;
let failures = 0;
for (let round = 1; round <= ROUNDS; round++) {
  const driver = await gecko();
  try {
    for (let i = 0; i < LOADS; i++) {
      const file = pages[i % pages.length];
      await driver.goto(`${base}/${file}`);
      const seen = await driver.eval(async (patience) => {
        const end = Date.now() + patience;
        const widgets = () => [...document.querySelectorAll('main#app [data-widget]:not([data-on-demand])')];
        for (const w of widgets()) w.scrollIntoView({ block: 'center' });
        while (Date.now() < end && !widgets().every((w) => ['ready', 'error'].includes(w.dataset.state))) await new Promise((r) => setTimeout(r, 50));
        return {
          notReady: widgets().filter((w) => w.dataset.state !== 'ready').map((w) => `${w.dataset.widget} ${w.dataset.state} ${w.querySelector('.widget-error')?.textContent ?? ''}`),
          controlled: !!navigator.serviceWorker?.controller,
        };
      }, HURRY ? 0 : 60000);
      // In a hurry, only the errors count: the widgets had no time to get ready.
      if (HURRY) seen.notReady = [];
      const errors = driver.consoleErrors();
      const bad = errors.length > 0 || seen.notReady.length > 0;
      if (bad) failures++;
      console.log(`${bad ? 'FAIL' : 'ok  '} round ${round} load ${i + 1} ${file} (controlled by the worker: ${seen.controlled})`
        + [...errors, ...seen.notReady].map((e) => `\n     ${e}`).join(''));
    }
  } finally {
    await driver.close();
  }
}
server.close();
console.log(`sw-loads: ${ROUNDS * LOADS - failures} passed, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
