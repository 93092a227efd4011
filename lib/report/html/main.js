/* main.js: the page: a view switcher, search, the breadcrumb of the zoom, the timeline, the
 * flame graph, and the panels below it (call tree, top functions, callers/callees, GCs, JIT,
 * findings and the recording).  State lives here; data.js computes, flame.js, timeline.js
 * and tables.js draw.  window.pcReport exposes the state to the tests. */
'use strict';

(function () {
  var D = PC.load(), el = PC.el;
  var S = {view: D.views[0], zoom: 0, term: '', found: null, func: -1, range: null, panel: 'tree'};
  var body = document.body;

  var header = el('header');
  header.appendChild(el('h1', null, D.title));
  var facts = el('div', 'facts');
  header.appendChild(facts);
  body.appendChild(header);

  var bar = el('nav', 'bar');
  var viewButtons = el('span', 'views');
  D.views.forEach(function (v) {
    var b = el('button', 'view', (v.kind === 0 ? 'CPU: ' : '') + v.id);
    b.title = v.perfview + ' (' + v.what + ')';
    b.dataset.view = v.id;
    b.addEventListener('click', function () { setView(v); });
    viewButtons.appendChild(b);
  });
  bar.appendChild(viewButtons);
  var search = el('input', 'search');
  search.type = 'search';
  search.placeholder = 'Search functions (text or /regex/)';
  search.addEventListener('input', function () { setSearch(search.value); });
  bar.appendChild(search);
  var matched = el('span', 'matched');
  bar.appendChild(matched);
  body.appendChild(bar);

  var warnings = el('div', 'warnings');
  D.warnings.forEach(function (w) { warnings.appendChild(el('div', null, 'warning: ' + w)); });
  body.appendChild(warnings);

  var timeline = null, rangeLabel = el('span', 'range');
  if (D.threads && D.span) {
    var tsec = el('section', 'timeline');
    var thead = el('div', 'sechead');
    thead.appendChild(el('span', 'title', 'Timeline (drag to select a time range)'));
    thead.appendChild(rangeLabel);
    var clear = el('button', null, 'whole trace');
    clear.addEventListener('click', function () { timeline.setRange(null); });
    thead.appendChild(clear);
    tsec.appendChild(thead);
    var tc = el('canvas');
    tc.id = 'timeline';
    tsec.appendChild(tc);
    var legend = el('div', 'legend');
    [['on-CPU samples', 'oncpu'], ['off-CPU (blocked)', 'offcpu'], ['GC pause', 'gc'], ['exception', 'exc']]
      .forEach(function (l) {
        legend.appendChild(el('span', 'sw ' + l[1]));
        legend.appendChild(el('span', null, l[0]));
      });
    tsec.appendChild(legend);
    body.appendChild(tsec);
    timeline = new PC.Timeline(tc, D, setRange);
  }

  var crumbs = el('div', 'crumbs');
  body.appendChild(crumbs);
  var fsec = el('section', 'flame');
  var canvas = el('canvas');
  canvas.id = 'flame';
  fsec.appendChild(canvas);
  body.appendChild(fsec);
  var tip = el('div', 'tip');
  body.appendChild(tip);
  var keys = el('div', 'legend');
  D.kinds.forEach(function (k) {
    if (k === 'process') return;
    var sw = el('span', 'sw');
    var h = PC.KIND_HUES[k];
    sw.style.background = 'hsl(' + h[0] + ',' + h[1] + '%,' + h[2] + '%)';
    keys.appendChild(sw);
    keys.appendChild(el('span', null, {kernel: 'kernel', native: 'native', jit: 'JIT',
      r2r: 'ReadyToRun', runtime: '.NET runtime'}[k] || k));
  });
  body.appendChild(keys);

  var tabs = el('nav', 'tabs'), panel = el('section', 'panel');
  var panels = [['tree', 'Call tree'], ['top', 'Top functions'], ['butterfly', 'Callers / callees'],
                ['gc', 'GCs'], ['jit', 'JIT'], ['about', 'Findings & recording']];
  panels.forEach(function (p) {
    if (p[0] === 'gc' && !(D.gcs && D.gcs.length)) return;
    if (p[0] === 'jit' && !(D.jits && D.jits.length)) return;
    var b = el('button', 'tab', p[1]);
    b.dataset.panel = p[0];
    b.addEventListener('click', function () { S.panel = p[0]; drawPanel(); });
    tabs.appendChild(b);
  });
  body.appendChild(tabs);
  body.appendChild(panel);

  var flame = new PC.Flame(canvas, D, function (node) { zoom(node); }, function (r, e) {
    if (!r) { tip.style.display = 'none'; return; }
    var v = S.view, f = v.func[r.node];
    tip.textContent = '';
    tip.appendChild(el('div', 'tipname', r.name));
    tip.appendChild(el('div', null, PC.amount(v, v.tot[r.node]) + ' (' + PC.pct(v.tot[r.node], v.total) +
      '), self ' + PC.amount(v, v.curSelf[r.node])));
    if (r.node > 0) tip.appendChild(el('div', 'note', D.modules[D.frames.module[f]] + ' \u00b7 ' + PC.kindName(D, f)));
    if (v.base && r.node > 0) tip.appendChild(el('div', 'note', 'before: ' + PC.pct(v.base[r.node], v.baseTotal)));
    tip.style.display = 'block';
    tip.style.left = Math.min(e.pageX + 12, window.innerWidth - 420) + 'px';
    tip.style.top = (e.pageY + 14) + 'px';
  });

  function drawFacts() {
    var v = S.view;
    facts.textContent = v.perfview + ': ' + PC.amount(v, v.total) +
      (S.range ? (v.ranged ? ' in ' + (S.range.a / 1000).toFixed(1) + '\u2013' + (S.range.b / 1000).toFixed(1) + ' ms'
                           : ' in the whole trace (this view\'s events have no times)') : '') +
      (v.base ? '; against ' + v.baseName + ' (red: more, blue: less, as shares of each total)' : '');
    rangeLabel.textContent = S.range ? 'range ' + (S.range.a / 1000).toFixed(2) + '\u2013' +
      (S.range.b / 1000).toFixed(2) + ' ms of ' + (D.span / 1000).toFixed(1) + ' ms' : 'the whole trace, ' + (D.span / 1000).toFixed(1) + ' ms';
  }

  function drawCrumbs() {
    var v = S.view, chain = [];
    for (var a = S.zoom; a > 0; a = v.parent[a]) chain.unshift(a);
    chain.unshift(0);
    crumbs.textContent = '';
    chain.forEach(function (n, i) {
      if (i) crumbs.appendChild(el('span', 'sep', ' \u203a '));
      var c = el('a', 'crumb', i ? PC.name(D, v, n) : 'all');
      c.href = '#';
      c.addEventListener('click', function (e) { e.preventDefault(); zoom(n); });
      crumbs.appendChild(c);
    });
  }

  function drawFlame() {
    flame.draw(S.view, S.zoom, S.found && S.found.hits);
  }

  function drawSearch() {
    var v = S.view;
    S.found = PC.search(D, v, S.term);
    matched.textContent = S.found ? 'Matched: ' + PC.pct(S.found.matched, v.total) + ' of ' +
      PC.amount(v, v.total) + ' (' + S.found.functions + ' functions)' : '';
  }

  function drawPanel() {
    var v = S.view;
    Array.prototype.forEach.call(tabs.children, function (b) {
      b.classList.toggle('on', b.dataset.panel === S.panel);
    });
    panel.textContent = '';
    if (S.panel === 'tree') panel.appendChild(PC.callTree(D, v, S.found && S.found.hits, pick));
    else if (S.panel === 'top') panel.appendChild(PC.topFunctions(D, v, pick));
    else if (S.panel === 'butterfly') {
      if (S.func < 0) panel.appendChild(el('p', 'note', 'Choose a function: click its name in the call tree or the top functions.'));
      else panel.appendChild(PC.butterflyView(D, v, S.func, pick));
    } else if (S.panel === 'gc') panel.appendChild(PC.gcTable(D));
    else if (S.panel === 'jit') panel.appendChild(PC.jitTable(D));
    else {
      panel.appendChild(el('h3', null, 'Findings'));
      var ul = el('ul');
      D.findings.forEach(function (f) { ul.appendChild(el('li', null, f)); });
      if (!D.findings.length) ul.appendChild(el('li', null, 'none (they need the .NET runtime\'s events)'));
      panel.appendChild(ul);
      panel.appendChild(el('h3', null, 'The recording'));
      panel.appendChild(PC.metaTable(D));
    }
  }

  function redraw() {
    Array.prototype.forEach.call(viewButtons.children, function (b) {
      b.classList.toggle('on', b.dataset.view === S.view.id);
    });
    drawFacts();
    drawSearch();
    drawCrumbs();
    drawFlame();
    drawPanel();
  }

  function setView(v) {
    S.view = v;
    S.zoom = 0;
    S.func = -1;
    redraw();
  }

  function zoom(node) {
    S.zoom = node;
    if (node > 0) S.func = S.view.func[node];
    drawCrumbs();
    drawFlame();
    if (S.panel === 'butterfly') drawPanel();
  }

  function pick(f) {
    S.func = f;
    S.panel = 'butterfly';
    drawPanel();
  }

  function setSearch(term) {
    S.term = term;
    drawSearch();
    drawFlame();
    if (S.panel === 'tree') drawPanel();
  }

  /* A range filters every view (switching keeps it) and all drawn from their weights: the
     flame graph, call tree, top functions, callers/callees, search's share. */
  function setRange(r) {
    S.range = r;
    D.views.forEach(function (v) { PC.setWeights(v, r); });
    if (S.zoom > 0 && !(S.view.tot[S.zoom] > 0)) S.zoom = 0;
    redraw();
  }

  var resizeTimer = null;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { drawFlame(); if (timeline) timeline.draw(); }, 100);
  });

  if (timeline) timeline.draw();
  redraw();
  PC.timing.drawn = performance.now();

  window.pcReport = {
    data: D,
    state: S,
    timing: PC.timing,
    flame: flame,
    timeline: timeline,
    setView: function (id) { setView(D.views.filter(function (v) { return v.id === id; })[0]); },
    setSearch: function (t) { search.value = t; setSearch(t); }
  };
})();
