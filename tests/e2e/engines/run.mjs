// The smoke suite (smoke.mjs) in the engines readers use besides the Chromium of the other
// suites: Gecko (Debian's firefox-esr, over WebDriver BiDi) and WebKit (WebKitGTK's MiniBrowser
// through WebKitWebDriver; needs a display, so scripts/test.sh runs this under xvfb-run), on the
// CPU path. Then, in Gecko with dom.webgpu.enabled, the WebGPU path where Firefox gives an adapter
// (what it gives is printed, and written to tests/artifacts/measurements.txt).
// Usage: xvfb-run -a node tests/e2e/engines/run.mjs [dist] ; ENGINES=gecko,webkit,chromium picks
// the engines (chromium runs the same suite, to check the suite itself); GECKO_WEBGPU=0 skips
// Firefox's WebGPU. Ends with "N passed, M failed".
import fs from 'node:fs';
import path from 'node:path';

import { ARTIFACTS, counts, check, assert, serve } from '../lib.mjs';
import { launch, gecko, PHONE_FILES } from './drivers.mjs';
import smoke, { RECORDER } from './smoke.mjs';

const DIST = path.resolve(process.argv[2] ?? 'dist');
const ENGINES = (process.env.ENGINES ?? 'gecko,webkit').split(',');

/** Every page of the built site: the prerendered NAME.html at its root (bench.html is a tool). */
const pages = fs.readdirSync(DIST).filter((f) => f.endsWith('.html') && f !== 'bench.html').sort();

/** The site on a fixed port that `down()` stops (connections refused: offline) and `up()` restarts. */
async function siteServer() {
  const options = { inject: RECORDER, files: PHONE_FILES };
  let server = await serve(DIST, options);
  const { port } = server.address();
  const down = async () => { server.closeAllConnections(); await new Promise((resolve) => server.close(resolve)); };
  return {
    base: `http://127.0.0.1:${port}`,
    down,
    up: async () => { server = await serve(DIST, { ...options, port }); },
    close: down,
  };
}

/** Gecko's WebGPU (dom.webgpu.enabled, blocklist ignored: drivers.mjs), chosen in the footer as a
 * reader would: what adapter Firefox gives is printed and written to measurements.txt; with one,
 * the golden numbers, the decoder and training run on it. */
async function geckoWebGpu(base) {
  const driver = await gecko({ webgpu: true });
  try {
    await driver.goto(`${base}/index.html`);
    const adapter = await driver.eval(async () => {
      if (!navigator.gpu) return { gpu: false };
      try {
        const a = await navigator.gpu.requestAdapter();
        if (!a) return { gpu: true, adapter: false };
        const info = a.info ?? {};
        return { gpu: true, adapter: true, info: [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' '), fallback: a.isFallbackAdapter ?? info.isFallbackAdapter ?? null };
      } catch (error) {
        return { gpu: true, adapter: false, error: String(error) };
      }
    });
    const line = `gecko, dom.webgpu.enabled: ${JSON.stringify(adapter)}`;
    console.log(`     ${line}`);
    fs.appendFileSync(path.join(ARTIFACTS, 'measurements.txt'), `${new Date().toISOString()} ${line}\n`);
    await check('[gecko webgpu] Firefox gives a WebGPU adapter', async () => assert(adapter.adapter, line));
    if (!adapter.adapter) return;
    await driver.eval(() => localStorage.setItem('atencao.backend', 'webgpu'));
    await smoke({ driver, base, pages, backend: 'webgpu', parts: ['golden', 'decoder', 'training'] });
  } finally {
    await driver.close();
  }
}

const site = await siteServer();
for (const engine of ENGINES) {
  const started = Date.now();
  let driver;
  try {
    driver = await launch(engine);
  } catch (error) {
    await check(`[${engine}] the browser starts`, async () => { throw error; });
    continue;
  }
  try {
    await smoke({ driver, base: site.base, pages, server: site });
  } finally {
    await driver.close().catch(() => {});
  }
  console.log(`     ${engine}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
if (ENGINES.includes('gecko') && process.env.GECKO_WEBGPU !== '0') await geckoWebGpu(site.base);
await site.close();
console.log(`engines: ${counts.passed} passed, ${counts.failed} failed`);
process.exit(counts.failed === 0 ? 0 : 1);
