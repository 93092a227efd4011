// The HTML report (view -format html) in a real browser: Debian's chromium, headless, driven
// over the DevTools protocol by puppeteer-core.  One browser for every page given.
//
//   node html_check.js OUTDIR SPEC.json
//
// SPEC: [{"file": "app.html", "name": "app", "zoom": "NAME", "search": "TERM",
//         "range": true, "text": "STRING", "butterfly": "NAME", "offcpu": TID}, ...]; every
//         key but file and name optional.  butterfly: the function's callers and callees
//         as the panel lists them (chosen by a click on its row in the top functions);
//         offcpu: the off- and on-CPU spans the timeline drew for thread TID.
// Prints "name<TAB>key<TAB>value..." lines (what the page showed) and writes a screenshot of
// each view, OUTDIR/<name>-<view>.png.  Exit 1 when the browser cannot run the page.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

const [outdir, specFile] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';

function out(name, key, ...vals) {
  console.log([name, key, ...vals].join('\t'));
}

// The drawn frames of the flame graph: [{node, name, x, y, w}], and the canvas's box.
async function frames(page) {
  return page.evaluate(() => {
    const b = document.getElementById('flame').getBoundingClientRect();
    return {left: b.left + window.scrollX, top: b.top + window.scrollY, width: b.width,
            rects: window.pcReport.flame.rects.map((r) => ({node: r.node, name: r.name, x: r.x, y: r.y, w: r.w}))};
  });
}

async function clickAt(page, x, y) {
  await page.evaluate((yy) => window.scrollTo(0, Math.max(0, yy - 200)), y);
  const sy = await page.evaluate(() => window.scrollY);
  await page.mouse.click(x, y - sy);
}

async function check(browser, s) {
  const page = await browser.newPage();
  await page.setViewport({width: 1400, height: 900});
  const errors = [], requests = [], dialogs = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  page.on('request', (r) => { if (!/^(file|data|about):/.test(r.url())) requests.push(r.url()); });
  const cdp = await page.createCDPSession();
  await cdp.send('Performance.enable', {timeDomain: 'threadTicks'});
  const t0 = Date.now();
  await page.goto('file://' + path.resolve(s.file), {waitUntil: 'load', timeout: 60000});
  await page.waitForFunction(() => window.pcReport, {timeout: 30000});
  const wall = Date.now() - t0;
  const nav = await page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0], t = window.pcReport.timing;
    return {load: n.loadEventEnd - n.startTime, dcl: n.domContentLoadedEventEnd - n.startTime,
            resp: n.responseEnd - n.startTime, start: t.start, parse: t.parsed - t.start,
            prepare: t.prepared - t.parsed, draw: t.drawn - t.prepared};
  });
  // the renderer's CPU time (load-independent where wall times are not: a shared machine)
  const metrics = (await cdp.send('Performance.getMetrics')).metrics;
  const cpu = metrics.find((m) => m.name === 'ProcessTime');
  out(s.name, 'load_ms', nav.load.toFixed(0), 'domcontentloaded_ms', nav.dcl.toFixed(0), 'wall_ms', wall,
      'response_end_ms', nav.resp.toFixed(0), 'script_start_ms', nav.start.toFixed(0),
      'json_ms', nav.parse.toFixed(0), 'prepare_ms', nav.prepare.toFixed(0), 'draw_ms', nav.draw.toFixed(0),
      'renderer_cpu_ms', cpu ? (cpu.value * 1000).toFixed(0) : '?');
  const views = await page.evaluate(() => window.pcReport.data.views.map((v) => v.id));
  out(s.name, 'views', views.join('|'));
  for (const id of views) {
    await page.click(`button.view[data-view="${id}"]`);
    const f = await frames(page);
    const total = await page.evaluate(() => window.pcReport.state.view.total);
    // the frames at least 1% of the width, their names
    const names = [...new Set(f.rects.filter((r) => r.w >= 0.01 * f.width).map((r) => r.name))];
    out(s.name, 'view', id, total, names.join('|'));
    await page.screenshot({path: path.join(outdir, `${s.name}-${id.replace(/[^\w.-]/g, '_')}.png`), fullPage: true});
  }
  await page.click(`button.view[data-view="${views[0]}"]`);
  if (s.zoom) {
    let f = await frames(page);
    const r = f.rects.find((x) => x.name === s.zoom && x.node > 0);
    if (!r) {
      out(s.name, 'zoom', 'no frame named', s.zoom);
    } else {
      await clickAt(page, f.left + r.x + r.w / 2, f.top + r.y + 8);
      f = await frames(page);
      const z = f.rects.find((x) => x.node === r.node);
      const crumbs = await page.evaluate(() => Array.from(document.querySelectorAll('.crumb')).map((c) => c.textContent));
      out(s.name, 'zoom', s.zoom, r.w.toFixed(1), z ? z.w.toFixed(1) : 'gone', f.width.toFixed(1));
      out(s.name, 'crumbs', crumbs.join(' > '));
      await page.screenshot({path: path.join(outdir, `${s.name}-zoomed.png`), fullPage: true});
      await page.click('.crumb'); // "all": back to the root
      f = await frames(page);
      const again = f.rects.find((x) => x.node === r.node);
      out(s.name, 'unzoom', again ? again.w.toFixed(1) : 'gone');
    }
  }
  if (s.search) {
    await page.type('input.search', s.search);
    const res = await page.evaluate(() => ({
      text: document.querySelector('.matched').textContent,
      hits: window.pcReport.flame.rects.filter((r) => window.pcReport.state.found.hits[r.node]).length,
      tree: document.querySelectorAll('.ctname.hit').length,
    }));
    out(s.name, 'search', s.search, res.text, res.hits, res.tree);
    await page.screenshot({path: path.join(outdir, `${s.name}-search.png`), fullPage: true});
    await page.evaluate(() => window.pcReport.setSearch(''));
  }
  if (s.range) {
    const box = await page.evaluate(() => {
      const c = document.getElementById('timeline');
      if (!c) return null;
      window.scrollTo(0, 0);
      const b = c.getBoundingClientRect();
      return {left: b.left, top: b.top, width: b.width, height: b.height, label: window.pcReport.timeline.label};
    });
    if (!box) {
      out(s.name, 'range', 'no timeline');
    } else {
      const before = await page.evaluate(() => window.pcReport.state.view.total);
      const plot = box.width - box.label, y = box.top + box.height - 6;
      await page.mouse.move(box.left + box.label + plot * 0.25, y);
      await page.mouse.down();
      await page.mouse.move(box.left + box.label + plot * 0.4, y, {steps: 4});
      await page.mouse.move(box.left + box.label + plot * 0.5, y, {steps: 4});
      await page.mouse.up();
      const after = await page.evaluate(() => [window.pcReport.state.view.total,
        document.querySelector('.facts').textContent, window.pcReport.state.range.a,
        window.pcReport.state.range.b]);
      out(s.name, 'range', before, ...after);
      await page.screenshot({path: path.join(outdir, `${s.name}-range.png`), fullPage: true});
      // every view keeps the range: its total, the weight of its events inside the range
      // (from the page's decoded times; a wait of the blocked view, the ns of it inside),
      // its whole total, what the page says
      for (const id of views) {
        await page.click(`button.view[data-view="${id}"]`);
        const r = await page.evaluate(() => {
          const P = window.pcReport, v = P.state.view, g = P.state.range;
          let inside = 0, whole = 0;
          for (let i = 0; i < v.fullSelf.length; i++) whole += v.fullSelf[i];
          v.timed.forEach((th) => {
            for (let k = 0; k < th.t.length; k++) {
              const w = th.w ? th.w[k] : 1;
              if (v.kind === 1) {
                const from = Math.max(g.a, th.t[k]), to = Math.min(g.b, th.t[k] + w / 1000);
                if (to > from) inside += Math.round((to - from) * 1000);
              } else if (th.t[k] >= g.a && th.t[k] <= g.b) {
                inside += w;
              }
            }
          });
          return [v.total, v.timed.length ? inside : whole, whole,
                  document.querySelector('.facts').textContent, g.a, g.b];
        });
        out(s.name, 'range_view', id, ...r);
        await page.screenshot({path: path.join(outdir, `${s.name}-range-${id.replace(/[^\w.-]/g, '_')}.png`), fullPage: true});
      }
      await page.click(`button.view[data-view="${views[0]}"]`);
      await page.evaluate(() => window.pcReport.timeline.setRange(null));
    }
  }
  if (s.text) {
    const res = await page.evaluate((t) => ({
      tree: document.querySelector('.panel').textContent.includes(t),
      imgs: document.querySelectorAll('img').length,
      crumbs: document.querySelector('.crumbs').textContent,
    }), s.text);
    out(s.name, 'text', res.tree ? 'shown' : 'missing', 'img_elements', res.imgs);
  }
  if (s.butterfly) {
    await page.click('button.tab[data-panel="top"]');
    const link = await page.evaluateHandle((name) =>
      Array.from(document.querySelectorAll('.panel td.link')).find((td) => td.textContent === name) || null, s.butterfly);
    if (!(await link.evaluate((e) => e !== null))) {
      out(s.name, 'butterfly', s.butterfly, 'not in the top functions');
    } else {
      await link.click();
      const b = await page.evaluate(() => {
        const t = Array.from(document.querySelectorAll('.panel .butterfly table'));
        const names = (tb) => tb ? Array.from(tb.querySelectorAll('tbody tr')).map((r) => r.cells[0].textContent) : [];
        return {title: (document.querySelector('.panel .butterfly h3') || {}).textContent,
                callers: names(t[0]), callees: names(t[1])};
      });
      out(s.name, 'butterfly', b.title, b.callers.join('|'), b.callees.join('|'));
      await page.screenshot({path: path.join(outdir, `${s.name}-butterfly.png`), fullPage: true});
    }
  }
  if (s.offcpu !== undefined) {
    const r = await page.evaluate((tid) => {
      const tl = window.pcReport.timeline, res = {off: 0, offUs: 0, longest: 0, on: 0, onUs: 0};
      ((tl && tl.spans) || []).forEach((sp) => {
        if (sp.tid !== tid) return;
        res[sp.kind] += 1;
        res[sp.kind + 'Us'] += sp.b - sp.a;
        if (sp.kind === 'off') res.longest = Math.max(res.longest, sp.b - sp.a);
      });
      return res;
    }, s.offcpu);
    out(s.name, 'offcpu', s.offcpu, r.off, (r.offUs / 1000).toFixed(1), (r.longest / 1000).toFixed(1),
        r.on, (r.onUs / 1000).toFixed(1));
  }
  for (const tab of ['top', 'gc', 'jit', 'about']) {
    const has = await page.$(`button.tab[data-panel="${tab}"]`);
    if (!has) continue;
    await page.click(`button.tab[data-panel="${tab}"]`);
    const rows = await page.evaluate(() => document.querySelectorAll('.panel tbody tr, .panel li').length);
    const first = await page.evaluate(() => {
      const r = document.querySelector('.panel tbody tr');
      return r ? r.textContent.slice(0, 200) : '';
    });
    out(s.name, 'panel', tab, rows, first);
    // the tabs and the panel's first 900 px (a full page of a long table is too tall to see),
    // scrolled to the top (a table's sticky header would cover rows of the clip)
    const clip = await page.evaluate(() => {
      window.scrollTo(0, 0);
      const y = document.querySelector('nav.tabs').getBoundingClientRect().top + window.scrollY;
      return {x: 0, y: Math.max(0, y - 10), width: 1400,
              height: Math.max(100, Math.min(900, document.documentElement.scrollHeight - y + 10))};
    });
    await page.screenshot({path: path.join(outdir, `${s.name}-panel-${tab}.png`), clip});
  }
  out(s.name, 'console_errors', errors.length, errors.slice(0, 3).join(' | '));
  out(s.name, 'requests', requests.length, requests.slice(0, 3).join(' '));
  out(s.name, 'dialogs', dialogs.length);
  await page.close();
}

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: profile,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync',
           '--disable-dev-shm-usage'],
  });
  let rc = 0;
  try {
    for (const s of spec) await check(browser, s);
  } catch (e) {
    console.error('html_check: ' + (e.stack || e));
    rc = 1;
  } finally {
    await browser.close();
    fs.rmSync(profile, {recursive: true, force: true});
  }
  process.exit(rc);
})();
