// Embedding: the example blog post (static/blog/exemplo.html) with the site's widgets, served
// under a sub-path (/atencao/) with a strict Content-Security-Policy, and from another origin
// (CORS); golden numbers; host styles intact both ways; lazy mounting; the decoder's weights
// never requested; widgets added later; dark theme; the catalogue page (catalogo.html).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ARTIFACTS, check, assert, parsePt, readTable, readResults, readTwin, assertMatrix, serve, meanLuminance } from '../lib.mjs';
import { GOLDEN } from './attention.mjs';

const DIST = path.resolve(process.argv[2] ?? 'dist');
const PREFIX = '/atencao';
const POST = `${PREFIX}/static/blog/exemplo.html`;
/** The policy the issue asks for, plus everything else locked to the page's own origin. */
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; "
  + "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
/** The headers README documents for a site whose widgets other origins embed. */
const CORS = { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' };

/** Widgets of the post (id → kind), in page order; the last one sits below a tall spacer. */
const POST_WIDGETS = { atencao: 'attention', 'atencao-json': 'attention', mascara: 'masked-softmax', busca: 'search', tfidf: 'tfidf', bpe: 'bpe', softmax: 'softmax-lab' };

/** README's widget table: kind → the data-… attributes of its last column. */
function readmeWidgets() {
  const lines = fs.readFileSync(path.resolve('README.md'), 'utf8').split('\n');
  const start = lines.indexOf('| kind | what | attributes |');
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split(' | ');
    const kind = cells[0].replace(/^\| `|`$/g, '');
    const attributes = [...cells.at(-1).matchAll(/`(data-[a-z-]+)/g)].map((m) => m[1]);
    rows.push([kind, [...new Set(attributes)].sort()]);
  }
  return new Map(rows);
}

/** A fresh page that records console errors, failed requests and every URL it asks for. */
async function openPage(browser, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  // Counts the GPU devices the page asks for (an init script: the page's CSP does not apply to it).
  await context.addInitScript(() => {
    window.__gpuDevices = 0;
    if (typeof GPUAdapter === 'undefined') return;
    const requestDevice = GPUAdapter.prototype.requestDevice;
    GPUAdapter.prototype.requestDevice = function (...args) { window.__gpuDevices++; return requestDevice.apply(this, args); };
  });
  const page = await context.newPage();
  const errors = [];
  const requests = [];
  page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text()); });
  page.on('pageerror', (err) => errors.push(String(err)));
  page.on('request', (req) => requests.push(req.url()));
  page.on('requestfailed', (req) => errors.push(`request failed: ${req.url()}`));
  page.on('response', (res) => { if (res.status() >= 400) errors.push(`${res.status()} ${res.url()}`); });
  return { context, page, errors, requests };
}

async function ready(page, host) {
  await page.locator(host).scrollIntoViewIfNeeded();
  await page.waitForSelector(`${host}[data-state=ready]`, { timeout: 30000 });
}

/** The golden numbers of the post's widgets (all mounted by now). */
async function assertPostNumbers(page, mode) {
  assert(await page.getAttribute('#atencao', 'data-computed-on') === mode, 'attention not computed on the expected backend');
  assertMatrix('attention weights', await readTable(page, 'weights', '#atencao'), GOLDEN.weights);
  assertMatrix('attention output', await readTable(page, 'output', '#atencao'), GOLDEN.output);
  // Zero queries and keys: equal weights, and the output is the mean of V's rows.
  assertMatrix('JSON weights', await readTable(page, 'weights', '#atencao-json'), [[0.5, 0.5], [0.5, 0.5]]);
  assertMatrix('JSON output', await readTable(page, 'output', '#atencao-json'), [[2, 3], [2, 3]]);
  assertMatrix('masked weights', await readTable(page, 'weights', '#mascara'), [[1, 0, 0], [0.0590, 0.9410, 0], [0.1232, 0.7991, 0.0777]]);
  const ranking = await page.$$eval('#busca table.twin[data-bars=ranking] tr', (rows) => rows.map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent]));
  assert(JSON.stringify(ranking) === JSON.stringify([['D1', '0,6019'], ['D2', '0,0722'], ['D3', '0,0000']]), JSON.stringify(ranking));
  // data-corpus "o gato dorme / o cão late": TF = 1/3, IDF = ln 2 for the words not shared, 0 for "o".
  const tfidf = await readTwin(page, '#tfidf', 'tfidf');
  for (const [doc, word] of [['D1', 'gato'], ['D1', 'dorme'], ['D2', 'cão'], ['D2', 'late']]) {
    assert(Math.abs(parsePt(tfidf[doc][word]) - Math.log(2) / 3) < 1e-4, `tf-idf ${doc} ${word} = ${tfidf[doc][word]}`);
  }
  assert(parsePt(tfidf.D1.o) === 0 && parsePt(tfidf.D1.late) === 0, JSON.stringify(tfidf.D1));
  assert(await page.inputValue('#tfidf [data-control=preset]') === 'pagina', 'the page corpus is not the chosen one');
  const bpe = await readResults(page, '#bpe', 'bpe');
  assert(bpe.caracteres === '17' && bpe.bytes === '20' && Number(bpe.tokens) < 17, JSON.stringify(bpe));
  // Chips show a space as "·".
  const chips = await page.$$eval('#bpe .chips .chip', (cs) => cs.map((c) => c.textContent).join(''));
  assert(chips.replaceAll('·', ' ') === 'A atenção é tudo.', `BPE chips spell "${chips}"`);
}

/** Computed styles of a widget's parts, to compare the blog's copy with the site's. */
async function widgetLook(page, host) {
  return page.$eval(host, (el) => {
    const root = el.shadowRoot ?? el.getRootNode();
    const scope = el.shadowRoot ? root.querySelector('[data-widget]') : el;
    const pick = (sel, props) => {
      const node = sel === ':scope' ? scope : scope.querySelector(sel);
      const style = getComputedStyle(node);
      return Object.fromEntries(props.map((p) => [p, style.getPropertyValue(p)]));
    };
    const text = ['font-family', 'font-size', 'font-style', 'font-weight', 'color', 'letter-spacing', 'word-spacing', 'text-transform', 'line-height', 'text-align'];
    return {
      widget: pick(':scope', [...text, 'background-color', 'border-top-style', 'border-top-width', 'padding-top']),
      title: pick('.widget-title', text),
      button: pick('.btn', [...text, 'background-color', 'border-top-color', 'border-top-width', 'padding-left']),
      cell: pick('.editor-cell', [...text, 'background-color', 'border-top-width', 'width']),
      canvas: { ...pick('[data-matrix=weights] canvas', ['display', 'border-top-width', 'width', 'height']), pixels: scope.querySelector('[data-matrix=weights] canvas').width },
      twin: pick('table.twin', ['font-family', 'font-size', 'border-collapse']),
    };
  });
}


export default async function embed({ mode, browser }) {
  // The site under /atencao/, CORS on every file; the blog posts in it also get the strict CSP.
  const site = await serve(DIST, {
    prefix: PREFIX,
    headers: (pathname) => ({ ...CORS, ...(pathname.startsWith('/static/blog/') && pathname.endsWith('.html') ? { 'content-security-policy': CSP } : {}) }),
  });
  const siteOrigin = `http://127.0.0.1:${site.address().port}`;

  // Another origin: the same post, loading embed.js from the site's origin.
  const blogRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'atencao-blog-'));
  const post = fs.readFileSync(path.join(DIST, 'static/blog/exemplo.html'), 'utf8');
  assert(post.includes('src="../../embed.js"'), 'the post no longer loads ../../embed.js');
  fs.writeFileSync(path.join(blogRoot, 'exemplo.html'), post
    .replace('src="../../embed.js"', `src="${siteOrigin}${PREFIX}/embed.js"`)
    .replace('href="../favicon.svg"', 'href="favicon.svg"'));
  fs.copyFileSync(path.join(DIST, 'static/blog/blog.css'), path.join(blogRoot, 'blog.css'));
  fs.copyFileSync(path.join(DIST, 'static/favicon.svg'), path.join(blogRoot, 'favicon.svg'));
  const crossCsp = `default-src 'self'; script-src 'self' ${siteOrigin} 'wasm-unsafe-eval'; connect-src 'self' ${siteOrigin}; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'`;
  // Two posts with a training widget (issue 36): it trains in a worker made from a Blob, which the
  // policy must allow, with the site's origin (a module worker's imports are checked against
  // worker-src: README); without that line it trains on the page.
  const trainPost = (title) => `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="favicon.svg">`
    + `<script type="module" src="${siteOrigin}${PREFIX}/embed.js"></script></head><body><main><h1>${title}</h1><div id="treino" data-widget="train"></div></main></body></html>`;
  fs.writeFileSync(path.join(blogRoot, 'treino.html'), trainPost('Treino num post'));
  fs.writeFileSync(path.join(blogRoot, 'treino-sem-worker.html'), trainPost('Treino num post sem workers'));
  // A post with article widgets of one group only (issue 36: it loads that group's build).
  fs.writeFileSync(path.join(blogRoot, 'artigos.html'), `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>Só artigos</title><link rel="icon" href="favicon.svg">`
    + `<script type="module" src="${siteOrigin}${PREFIX}/embed.js"></script></head><body><main class="post"><h1>Só artigos</h1><div id="atencao" data-widget="attention"></div></main></body></html>`);
  const policy = (pathname) => (pathname === '/treino.html' ? `${crossCsp}; worker-src 'self' blob: ${siteOrigin}` : crossCsp);
  const blog = await serve(blogRoot, { headers: (pathname) => (pathname.endsWith('.html') ? { 'content-security-policy': policy(pathname) } : {}) });
  const blogOrigin = `http://127.0.0.1:${blog.address().port}`;

  await check(`[${mode}] blog post under ${PREFIX}/ with a strict CSP: seven widgets of six kinds ready, golden numbers, lazy below the fold, no weights`, async () => {
    const { context, page, errors, requests } = await openPage(browser);
    await page.goto(`${siteOrigin}${POST}`);
    const csp = (await page.request.get(`${siteOrigin}${POST}`)).headers()['content-security-policy'];
    assert(csp === CSP, `the post was served with CSP "${csp}"`);
    await page.waitForSelector('#atencao[data-state=ready]', { timeout: 30000 });
    // Far below the fold, the last widget waits, with nothing built in its shadow root.
    const far = await page.$eval('#softmax', (el) => ({ state: el.dataset.state, built: el.shadowRoot.querySelectorAll('.widget, canvas, table').length }));
    assert(far.state === 'waiting' && far.built === 0, `the widget below the fold is ${JSON.stringify(far)}`);
    for (const id of Object.keys(POST_WIDGETS).filter((id) => id !== 'softmax')) await ready(page, `#${id}`);
    assert(await page.getAttribute('#softmax', 'data-state') === 'waiting', 'the far widget mounted before it was scrolled to');
    await ready(page, '#softmax');
    const softmax = await page.$$eval('#softmax table.twin[data-bars=plain] td', (tds) => tds.map((td) => td.textContent));
    assertMatrix('softmax(z)', [softmax], [[0.6590, 0.2424, 0.0986]]);
    await assertPostNumbers(page, mode);
    // Only the tokenizer came down for the BPE widget: the decoder's weights were never asked for.
    const model = requests.filter((u) => u.includes('/static/model/')).map((u) => new URL(u).pathname.replace(/.*\//, ''));
    assert(model.includes('config.json') && model.includes('tokenizer.json'), `model files: ${model}`);
    assert(!model.some((f) => f.startsWith('model.safetensors') || f.startsWith('bigram.bin')), `weights requested: ${model}`);
    assert(requests.every((u) => u.startsWith(`${siteOrigin}${PREFIX}/`)), `a request left the sub-path: ${requests.filter((u) => !u.startsWith(`${siteOrigin}${PREFIX}/`))}`);
    // Seven widgets, one wasm download and (with WebGPU) one GPU device.
    assert(requests.filter((u) => u.endsWith('/atencao_bg.wasm')).length === 1, 'the wasm was fetched more than once');
    const devices = await page.evaluate(() => window.__gpuDevices);
    assert(devices === (mode === 'webgpu' ? 1 : 0), `${devices} GPU devices requested`);
    assert(errors.length === 0, errors.join('\n'));
    await page.screenshot({ path: path.join(ARTIFACTS, `embed-blog-${mode}.png`), fullPage: true });
    await context.close();
  });

  await check(`[${mode}] host styles do not reach the widgets and widget styles do not leak into the post`, async () => {
    const { context, page, errors } = await openPage(browser);
    // The site's own attention widget, for reference (same sub-path, light DOM, site CSS).
    await page.goto(`${siteOrigin}${PREFIX}/queries-keys-values.html`);
    await page.waitForSelector('main [data-widget=attention][data-state=ready]', { timeout: 30000 });
    const onSite = await widgetLook(page, 'main [data-widget=attention]');
    await page.goto(`${siteOrigin}${POST}`);
    await page.waitForSelector('#atencao[data-state=ready]', { timeout: 30000 });
    const inPost = await widgetLook(page, '#atencao');
    for (const part of Object.keys(onSite)) {
      for (const [prop, value] of Object.entries(onSite[part])) {
        assert(inPost[part][prop] === value, `${part} ${prop}: "${inPost[part][prop]}" in the post, "${value}" on the site`);
      }
    }
    assert(inPost.canvas.display === 'block' && inPost.canvas.pixels > 100, `canvas ${JSON.stringify(inPost.canvas)}`);
    // The post's own .widget, .btn and .note keep the post's look; nothing was added to its document.
    const host = await page.evaluate(() => {
      const style = (sel, prop) => getComputedStyle(document.querySelector(sel)).getPropertyValue(prop);
      return {
        aside: [style('aside.widget', 'border-top-style'), style('aside.widget', 'background-color'), style('aside.widget', 'padding-top')],
        button: [style('#assinar', 'background-color'), style('#assinar', 'border-top-left-radius'), style('#assinar', 'font-size')],
        note: [style('p.note', 'font-size'), style('p.note', 'color')],
        body: [style('body', 'font-family'), style('body', 'background-color')],
        sheets: document.styleSheets.length,
        adopted: document.adoptedStyleSheets.length,
        styleElements: document.querySelectorAll('style').length,
        htmlAttributes: document.documentElement.getAttributeNames(),
        fallbackShown: document.querySelector('#atencao > p').getClientRects().length > 0,
      };
    });
    const want = {
      aside: ['dotted', 'rgb(238, 245, 238)', '6.4px'],
      button: ['rgb(45, 106, 79)', '999px', '15px'],
      note: ['14.4px', 'rgb(122, 106, 90)'],
      body: ['Georgia, "Times New Roman", serif', 'rgb(251, 247, 239)'],
    };
    for (const [key, values] of Object.entries(want)) assert(JSON.stringify(host[key]) === JSON.stringify(values), `${key}: ${JSON.stringify(host[key])}, want ${JSON.stringify(values)}`);
    assert(host.sheets === 1 && host.adopted === 0 && host.styleElements === 0, `stylesheets in the post: ${host.sheets} + ${host.adopted} adopted + ${host.styleElements} <style>`);
    assert(JSON.stringify(host.htmlAttributes) === '["lang"]', `<html> got attributes: ${host.htmlAttributes}`);
    assert(!host.fallbackShown, 'the fallback text still shows next to the mounted widget');
    await page.locator('#atencao').screenshot({ path: path.join(ARTIFACTS, `embed-blog-attention-${mode}.png`) });
    assert(errors.length === 0, errors.join('\n'));
    await context.close();
  });

  await check(`[${mode}] widgets added to the post later mount too; bad attributes say why`, async () => {
    const { context, page, errors } = await openPage(browser);
    await page.goto(`${siteOrigin}${POST}`);
    await page.waitForSelector('#atencao[data-state=ready]', { timeout: 30000 });
    await page.evaluate(() => {
      const add = (id, attributes) => {
        const div = document.createElement('div');
        div.id = id;
        for (const [name, value] of Object.entries(attributes)) div.setAttribute(name, value);
        document.querySelector('.post h1').after(div);
      };
      add('tarde', { 'data-widget': 'masked-softmax', 'data-matrices': '{"scores": [[0, 0], [0, 0]]}' });
      add('torta', { 'data-widget': 'attention', 'data-matrices': '{"x": [[1, 2], [3]]}' });
      add('inexistente', { 'data-widget': 'nao-existe' });
    });
    await page.waitForSelector('#tarde[data-state=ready]', { timeout: 30000 });
    assertMatrix('late masked softmax', await readTable(page, 'weights', '#tarde'), [[1, 0], [0.5, 0.5]]);
    await page.waitForSelector('#torta[data-state=error]', { timeout: 30000 });
    const message = await page.textContent('#torta .widget-error');
    assert(message.includes('a linha 2 tem 1 números e a linha 1 tem 2'), message);
    await page.waitForSelector('#inexistente[data-state=error]', { timeout: 30000 });
    assert((await page.textContent('#inexistente .widget-error')).includes('«nao-existe»'), 'unknown kind not reported');
    assert(errors.length === 0, errors.join('\n'));
    await context.close();
  });

  await check(`[${mode}] the post on another origin loads the widgets from ${siteOrigin}${PREFIX}/ (CORS)`, async () => {
    const { context, page, errors, requests } = await openPage(browser);
    await page.goto(`${blogOrigin}/exemplo.html`);
    for (const id of Object.keys(POST_WIDGETS)) await ready(page, `#${id}`);
    await assertPostNumbers(page, mode);
    const fromSite = requests.filter((u) => u.startsWith(siteOrigin)).map((u) => new URL(u).pathname);
    for (const file of ['/embed.js', '/atencao.js', '/atencao_bg.wasm', '/static/model/tokenizer.json']) {
      assert(fromSite.some((p) => p.startsWith(`${PREFIX}${file}`)), `${file} not fetched from the site: ${fromSite}`);
    }
    assert(!fromSite.some((p) => p.includes('model.safetensors')), 'weights requested');
    assert(errors.length === 0, errors.join('\n'));
    await page.screenshot({ path: path.join(ARTIFACTS, `embed-cross-origin-${mode}.png`) });
    await context.close();
  });

  if (mode === 'cpu') await check(`[${mode}] a training widget in a post on another origin trains in the page's worker (worker-src 'self' blob: and the site), and on the page where the policy refuses it`, async () => {
    for (const [file, inWorker] of [['treino.html', true], ['treino-sem-worker.html', false]]) {
      const { context, page, errors, requests } = await openPage(browser);
      await page.goto(`${blogOrigin}/${file}`);
      await ready(page, '#treino');
      // A post with a training widget loads the build with the decoder and training (issue 36).
      const pageWasm = requests.filter((u) => u.endsWith('.wasm') && !u.endsWith('/atencao-worker_bg.wasm')).map((u) => u.replace(/.*\//, ''));
      assert(pageWasm.join() === 'atencao-resident_bg.wasm', `${file} loaded ${pageWasm.join(', ')}`);
      // The widget's own element, inside the host's shadow root, holds its numbers.
      await page.click('#treino [data-action=train]');
      await page.waitForFunction(() => Number(document.querySelector('#treino').shadowRoot.querySelector('.widget.train').dataset.steps) >= 20, null, { timeout: 60000 });
      const message = await page.textContent('#treino .train-message');
      assert(page.workers().length === (inWorker ? 1 : 0) && message.includes('própria página') === !inWorker, `${file}: ${page.workers().length} workers; ${message}`);
      await page.click('#treino [data-action=pause]');
      await page.waitForFunction(() => document.querySelector('#treino').shadowRoot.querySelector('.widget.train').dataset.training === 'false', null, { timeout: 30000 });
      // The refused worker is the policy's own report; nothing else goes wrong.
      const unexpected = errors.filter((e) => !(inWorker === false && /worker|Content Security Policy/i.test(e)));
      assert(unexpected.length === 0, unexpected.join('\n'));
      await context.close();
    }
  });

  await check(`[${mode}] a post with attention's article widgets only loads their build (from another origin); a model widget added later says to reload`, async () => {
    const { context, page, errors, requests } = await openPage(browser);
    await page.goto(`${blogOrigin}/artigos.html`);
    await ready(page, '#atencao');
    assertMatrix('attention weights', await readTable(page, 'weights', '#atencao'), GOLDEN.weights);
    const wasm = requests.filter((u) => u.endsWith('.wasm')).map((u) => u.replace(/.*\//, ''));
    assert(wasm.join() === 'atencao-attention_bg.wasm', `the post loaded ${wasm.join(', ')}`);
    await page.evaluate(() => {
      const div = document.createElement('div');
      div.id = 'tarde';
      div.dataset.widget = 'decoder';
      document.querySelector('.post h1').after(div);
    });
    await page.waitForSelector('#tarde[data-state=error]', { timeout: 30000 });
    const message = await page.textContent('#tarde .widget-error');
    assert(message.includes('«decoder»') && message.includes('recarregue a página'), message);
    assert(errors.length === 0, errors.join('\n'));
    await context.close();
  });

  await check(`[${mode}] dark theme reaches the widgets inside their shadow roots`, async () => {
    const { context, page, errors } = await openPage(browser, { colorScheme: 'light' });
    await page.goto(`${siteOrigin}${POST}`);
    await page.waitForSelector('#atencao[data-state=ready]', { timeout: 30000 });
    const light = await meanLuminance(page, '#atencao [data-matrix=q] canvas');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => matchMedia('(prefers-color-scheme: dark)').matches);
    await page.waitForTimeout(300);
    await page.waitForSelector('#atencao[data-state=ready]');
    const dark = await meanLuminance(page, '#atencao [data-matrix=q] canvas');
    assert(dark < light - 40, `heatmap luminance light ${light.toFixed(0)} vs dark ${dark.toFixed(0)}`);
    const bg = await page.$eval('#atencao', (el) => getComputedStyle(el.shadowRoot.querySelector('.widget')).backgroundColor);
    assert(bg === 'rgb(13, 17, 23)', `widget background ${bg} in the dark theme`);
    await page.locator('#atencao').screenshot({ path: path.join(ARTIFACTS, `embed-blog-attention-${mode}-dark.png`) });
    assert(errors.length === 0, errors.join('\n'));
    await context.close();
  });

  await check(`[${mode}] catalogue (catalogo.html under ${PREFIX}/): every registered kind, its attributes, a snippet that copies, a live example`, async () => {
    const { context, page, errors, requests } = await openPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: siteOrigin });
    await page.goto(`${siteOrigin}${PREFIX}/catalogo.html`);
    // Prerendered whole; the wasm then attaches the examples and makes the snippets absolute.
    await page.waitForSelector('#app[data-catalogue=live]');
    const readme = readmeWidgets();
    const entries = await page.$$eval('.catalogue-entry', (sections) => sections.map((s) => ({
      kind: s.dataset.kind,
      attributes: [...s.querySelectorAll('tr[data-attribute]')].map((tr) => tr.dataset.attribute).sort(),
      snippet: s.querySelector('code[data-snippet]')?.textContent ?? '',
      state: s.querySelector(':scope > [data-widget]')?.dataset.state,
    })));
    assert(await page.$$eval('[data-orphan-doc]', (e) => e.length) === 0, 'documentation without a registered kind');
    // The jump index: one link per kind, each to its entry, in the entries' order.
    const index = await page.$$eval('nav.catalogue-index a', (as) => as.map((a) => a.getAttribute('href')));
    assert(JSON.stringify(index) === JSON.stringify(entries.map((e) => `#w-${e.kind}`)), `index ${index}`);
    assert(await page.$$eval('.catalogue-entry', (s) => s.every((e) => e.id === `w-${e.dataset.kind}`)), 'an entry the index cannot reach');
    assert(!(await page.textContent('main')).includes('README'), 'the catalogue points to a README the site does not have');
    assert(JSON.stringify(entries.map((e) => e.kind).sort()) === JSON.stringify([...readme.keys()].sort()), `catalogue ${entries.map((e) => e.kind)} vs README ${[...readme.keys()]}`);
    const script = `<script type="module" src="${siteOrigin}${PREFIX}/embed.js"></script>`;
    for (const e of entries) {
      assert(JSON.stringify(e.attributes) === JSON.stringify(readme.get(e.kind)), `${e.kind}: attributes ${e.attributes} vs README ${readme.get(e.kind)}`);
      assert(e.snippet.startsWith(`${script}\n<div data-widget="${e.kind}"`), `${e.kind} snippet: ${e.snippet}`);
    }
    assert(entries.at(-1).state === 'waiting', `the last example is ${entries.at(-1).state} before scrolling`);
    const first = '.catalogue-entry[data-kind=attention]';
    await page.click(`${first} [data-action=copy]`);
    await page.waitForSelector(`${first} .copy-status:text("copiado")`);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert(copied === entries[0].snippet, `clipboard holds ${copied}`);
    for (const e of entries) await ready(page, `.catalogue-entry[data-kind="${e.kind}"] > [data-widget]`);
    assertMatrix('catalogue attention example', await readTable(page, 'weights', `${first} > [data-widget]`), [[0.5, 0.5], [0.5, 0.5]]);
    assert(requests.some((u) => u.includes(`${PREFIX}/static/model/model.safetensors`)), 'the decoder example did not load the weights from the sub-path');
    assert(errors.length === 0, errors.join('\n'));
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(ARTIFACTS, `embed-catalogue-${mode}.png`) });
    await page.setViewportSize({ width: 390, height: 800 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert(overflow <= 0, `the catalogue is ${overflow}px wider than a phone screen`);
    await context.close();
  });

  site.close();
  blog.close();
  fs.rmSync(blogRoot, { recursive: true, force: true });
}
