// The site around the widgets: the backend (badge, the footer's choice, a software adapter left
// aside, ?backend=), the table of contents, every page rendered with MathML, the phone's menu and
// the dark theme. Runs first: it checks the backend the other suites rely on.
import path from 'node:path';
import { ARTIFACTS, check, assert, readTable, assertMatrix, waitReady, pageSettled, meanLuminance } from '../lib.mjs';
import { GOLDEN, ATTENTION_PAGE } from './attention.mjs';

export default async function site({ page, base, mode }) {
  await check(`[${mode}] <html data-backend> is "${mode}"`, async () => {
    // A page with widgets: a page of text only (the home page) never loads the wasm.
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await page.waitForSelector('html[data-backend]', { timeout: 30000 });
    const backend = await page.getAttribute('html', 'data-backend');
    assert(backend === mode, `data-backend = ${backend}`);
    const badge = await page.textContent('#backend-badge');
    assert(badge === (mode === 'webgpu' ? 'WebGPU' : 'CPU'), `badge says ${badge}`);
  });


  await check(`[${mode}] table of contents lists the five articles and their sections`, async () => {
    await page.goto(`${base}/`);
    const articles = await page.$$eval('#toc .toc-article', (as) => as.map((a) => a.textContent));
    assert(articles.length === 5, `${articles.length} articles: ${articles}`);
    const sections = await page.$$eval('#toc .toc-sections a', (as) => as.length);
    assert(sections >= 40, `only ${sections} section links`);
    const cards = await page.$$eval('.cards .card', (cs) => cs.length);
    assert(cards === 5, `${cards} cards on the home page`);
  });


  await check(`[${mode}] every page renders, with MathML and no raw LaTeX`, async () => {
    const routes = await page.$$eval('#toc a', (as) => as.map((a) => a.getAttribute('href')));
    let mathPages = 0;
    for (const route of routes) {
      await page.goto(`${base}/${route}`);
      await pageSettled(page, route, 30000);
      const info = await page.evaluate(() => ({
        math: document.querySelectorAll('main math').length,
        // The text, not innerText: the prose's blocks far from the screen are not rendered
        // (content-visibility), and innerText leaves them out. MathML's TeX annotations are not shown.
        raw: (() => { const m = document.querySelector('main').cloneNode(true); m.querySelectorAll('annotation').forEach((a) => a.remove()); return /\$\$|\\frac|\\sqrt/.test(m.textContent); })(),
        errors: document.querySelectorAll('[data-state=error]').length,
        merror: document.querySelectorAll('main merror').length,
      }));
      assert(!info.raw, `${route}: raw LaTeX in text`);
      assert(info.errors === 0, `${route}: a widget in error state`);
      assert(info.merror === 0, `${route}: a formula failed to render`);
      if (info.math > 0) mathPages++;
    }
    assert(mathPages >= 20, `only ${mathPages} pages have formulas`);
    // An old link (#/slug) to a page that does not exist: the home page says so.
    await page.goto(`${base}/#/nao-existe`);
    await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Página não encontrada');
    const notFound = await page.textContent('main');
    assert(notFound.includes('nao-existe'), 'unknown route not reported');
  });


  if (mode === 'webgpu') {
    await check('[webgpu] choosing the CPU in the footer recomputes there and is remembered', async () => {
      await page.goto(`${base}/${ATTENTION_PAGE}`);
      await waitReady(page);
      await page.selectOption('#backend-choice', 'cpu');
      await page.waitForSelector('html[data-backend=cpu]');
      await page.waitForSelector('[data-widget=attention][data-computed-on=cpu][data-state=ready]');
      assertMatrix('weights on CPU', await readTable(page, 'weights'), GOLDEN.weights);
      await page.reload();
      await page.waitForSelector('html[data-backend=cpu]');
      assert(await page.inputValue('#backend-choice') === 'cpu', 'choice not remembered');
      await page.selectOption('#backend-choice', 'webgpu');
      await page.waitForSelector('html[data-backend=webgpu]');
      await page.waitForSelector('[data-widget=attention][data-computed-on=webgpu][data-state=ready]');
    });
    await check('[webgpu] left to itself, the site skips a software adapter and the footer says why', async () => {
      const context = await page.context().browser().newContext({ autoBackend: true });
      const fresh = await context.newPage();
      await fresh.goto(`${base}/${ATTENTION_PAGE}`);
      await fresh.waitForSelector('html[data-backend=cpu]', { timeout: 30000 });
      await fresh.waitForSelector('[data-widget=attention][data-computed-on=cpu][data-state=ready]');
      const note = await fresh.textContent('#backend-note');
      assert(note.includes('WebGPU por software: a CPU é mais rápida aqui'), `footer note: ${note}`);
      assert(await fresh.inputValue('#backend-choice') === 'auto', 'automatic choice');
      // The reader can still choose WebGPU.
      await fresh.selectOption('#backend-choice', 'webgpu');
      await fresh.waitForSelector('html[data-backend=webgpu]');
      await fresh.waitForSelector('[data-widget=attention][data-computed-on=webgpu][data-state=ready]');
      assertMatrix('weights on the chosen WebGPU', await readTable(fresh, 'weights'), GOLDEN.weights);
      // A page whose models run in its worker (the decoder's: the resident build) opens no wgpu
      // device; it asks the browser (gpu::probe) and must say the same, naming the same adapter.
      const adapter = (await fresh.getAttribute('#backend-badge', 'title')).replace(/^WebGPU escolhido pelo leitor /, '');
      await fresh.selectOption('#backend-choice', 'auto');
      await fresh.goto(`${base}/decodificador.html`);
      assert(await fresh.getAttribute('main', 'data-module') === 'atencao-resident', 'the decoder page loads the resident build');
      await fresh.waitForSelector('html[data-backend=cpu]', { timeout: 30000 });
      const residentNote = await fresh.textContent('#backend-note');
      assert(residentNote === `WebGPU por software: a CPU é mais rápida aqui ${adapter}`, `decoder page's footer note: ${residentNote} (article page's adapter: ${adapter})`);
      await fresh.selectOption('#backend-choice', 'webgpu');
      await fresh.waitForSelector('html[data-backend=webgpu]');
      await context.close();
    });
    await check('[webgpu] ?backend=cpu in the URL forces the CPU', async () => {
      await page.goto(`${base}/${ATTENTION_PAGE}?backend=cpu`);
      await page.waitForSelector('html[data-backend=cpu]');
      await waitReady(page);
      assertMatrix('weights', await readTable(page, 'weights'), GOLDEN.weights);
    });
  }


  await check(`[${mode}] phone-sized screen: menu opens the table of contents`, async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await waitReady(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert(overflow <= 0, `page is ${overflow}px wider than the phone screen`);
    assert(await page.isHidden('#toc'), 'toc visible before opening the menu');
    assert(await page.isHidden('table.twin[data-matrix=weights]'), 'twin table visible on a phone before "ver números"');
    // An edit and its result stay together: the input cells are there at load, no tab to switch.
    assert(await page.isVisible('[data-widget=attention] .editor-cell'), 'the input cells are hidden at load on a phone');
    assert(await page.isVisible('[data-widget=attention] .mv[data-matrix=weights] canvas'), 'the weights are hidden at load on a phone');
    assert(await page.$$eval('[data-widget] .widget-tab', (t) => t.length) === 0, 'tabs split the widget');
    await page.click('#menu-button');
    assert(await page.isVisible('#toc'), 'menu did not open the toc');
    await page.click('#menu-button');
    await page.screenshot({ path: path.join(ARTIFACTS, `attention-${mode}-phone.png`), fullPage: false });
  });

  await check(`[${mode}] dark theme follows prefers-color-scheme`, async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    // Mean luminance of the painted pixels of the Q heatmap, in each theme.
    const luminance = () => meanLuminance(page, '[data-widget=attention] [data-matrix=q] canvas');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${base}/${ATTENTION_PAGE}`);
    await page.reload();
    await waitReady(page);
    const light = await luminance();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => matchMedia('(prefers-color-scheme: dark)').matches);
    // The theme switch alone (no reload) must redraw the canvases.
    await page.waitForFunction(() => document.querySelector('[data-widget=attention]').dataset.state === 'ready');
    await page.waitForTimeout(300);
    await waitReady(page);
    const dark = await luminance();
    assert(dark < light - 40, `heatmap luminance light ${light.toFixed(0)} vs dark ${dark.toFixed(0)}`);
    const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g).map(Number);
    assert(r + g + b < 150, `background ${bg} is not dark`);
    await page.locator('[data-widget=attention]').screenshot({ path: path.join(ARTIFACTS, `attention-${mode}-dark.png`) });
    await page.emulateMedia({ colorScheme: 'light' });
  });

}
