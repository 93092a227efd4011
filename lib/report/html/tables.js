/* tables.js: the report's tables and the call tree, built with the DOM's text nodes only
 * (a frame named with markup shows as its text). */
'use strict';

PC.el = function (tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
};

/* A table of rows (arrays of cells: text, or {text, cls, onclick}); sortable by a column. */
PC.table = function (cols, rows, opts) {
  opts = opts || {};
  var t = PC.el('table', 'grid' + (opts.cls ? ' ' + opts.cls : '')), head = PC.el('tr'), sortCol = opts.sortCol, desc = true;
  cols.forEach(function (c, i) {
    var th = PC.el('th', null, c);
    th.addEventListener('click', function () {
      desc = sortCol === i ? !desc : true;
      sortCol = i;
      fill();
    });
    head.appendChild(th);
  });
  var thead = PC.el('thead'), body = PC.el('tbody');
  thead.appendChild(head);
  t.appendChild(thead);
  t.appendChild(body);
  function val(c) { return c && typeof c === 'object' ? (c.sort !== undefined ? c.sort : c.text) : c; }
  function fill() {
    var r = rows.slice();
    if (sortCol !== undefined) {
      r.sort(function (a, b) {
        var x = val(a[sortCol]), y = val(b[sortCol]);
        var d = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
        return desc ? -d : d;
      });
    }
    body.textContent = '';
    r.slice(0, opts.limit || 1000).forEach(function (row) {
      var tr = PC.el('tr');
      row.forEach(function (c, ci) {
        var obj = c && typeof c === 'object';
        /* ids (pids, thread ids) as they are, counts with separators, the rest with digits */
        var num = typeof c === 'number' && ((opts.idCols || []).indexOf(ci) >= 0 ? String(c)
          : PC.num(c, (opts.intCols || []).indexOf(ci) >= 0 ? 0 : opts.digits || 0));
        var td = PC.el('td', obj ? c.cls : typeof c === 'number' ? 'n' : null, obj ? c.text : num || c);
        if (obj && c.onclick) { td.classList.add('link'); td.addEventListener('click', c.onclick); }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }
  fill();
  return t;
};

/* The top functions of view v by self (or inclusive) weight. */
PC.topFunctions = function (D, v, onPick) {
  var fw = PC.functionWeights(D, v), rows = [];
  for (var f = 0; f < D.frames.count; f++) {
    if (!fw.incl[f] || D.kinds[D.frames.kind[f]] === 'process') continue;
    rows.push([{text: D.frames.name[f], onclick: onPick.bind(null, f), sort: D.frames.name[f]},
               {text: PC.pct(fw.self[f], v.total), cls: 'n', sort: fw.self[f]},
               {text: PC.pct(fw.incl[f], v.total), cls: 'n', sort: fw.incl[f]},
               {text: PC.amount(v, fw.self[f]), cls: 'n', sort: fw.self[f]},
               {text: PC.amount(v, fw.incl[f]), cls: 'n', sort: fw.incl[f]},
               D.modules[D.frames.module[f]], PC.kindName(D, f)]);
  }
  return PC.table(['function', 'self %', 'inclusive %', 'self', 'inclusive', 'module', 'kind'],
                  rows, {sortCol: 1, limit: 200});
};

/* The callers and callees of function f. */
PC.butterflyView = function (D, v, f, onPick) {
  var b = PC.butterfly(D, v, f), box = PC.el('div', 'butterfly');
  box.appendChild(PC.el('h3', null, D.frames.name[f]));
  box.appendChild(PC.el('p', 'note', 'inclusive ' + PC.amount(v, b.incl) + ' (' + PC.pct(b.incl, v.total) +
    '), self ' + PC.amount(v, b.self) + ' (' + PC.pct(b.self, v.total) + '); module ' +
    D.modules[D.frames.module[f]] + ', ' + PC.kindName(D, f)));
  function rows(list) {
    return list.map(function (e) {
      var name = e[0] < 0 ? '(root)' : D.frames.name[e[0]];
      return [e[0] < 0 ? name : {text: name, onclick: onPick.bind(null, e[0]), sort: name},
              {text: PC.pct(e[1], v.total), cls: 'n', sort: e[1]},
              {text: PC.amount(v, e[1]), cls: 'n', sort: e[1]}];
    });
  }
  box.appendChild(PC.el('h4', null, 'Callers (who called it)'));
  box.appendChild(PC.table(['caller', 'share', 'weight'], rows(b.callers), {sortCol: 1, limit: 100}));
  box.appendChild(PC.el('h4', null, 'Callees (what it called)'));
  box.appendChild(PC.table(['callee', 'share', 'weight'], rows(b.callees), {sortCol: 1, limit: 100}));
  return box;
};

/* The call tree: rows expanded on click, the heaviest path open at first. */
PC.callTree = function (D, v, hits, onPick) {
  var root = PC.el('div', 'calltree');
  function row(node, depth) {
    var r = PC.el('div', 'ctrow'), kids = PC.children(v, node);
    r.style.paddingLeft = (depth * 14) + 'px';
    var tog = PC.el('span', 'tog', kids.length ? '\u25b8' : ' ');
    var name = PC.el('span', 'ctname' + (hits && hits[node] ? ' hit' : ''), PC.name(D, v, node));
    r.appendChild(tog);
    r.appendChild(PC.el('span', 'ctpct', PC.pct(v.tot[node], v.total)));
    r.appendChild(PC.el('span', 'ctpct', PC.pct(v.curSelf[node], v.total)));
    r.appendChild(name);
    if (node > 0) name.addEventListener('click', function () { onPick(v.func[node], node); });
    var box = PC.el('div'), open = false;
    function toggle() {
      open = !open;
      tog.textContent = kids.length ? (open ? '\u25be' : '\u25b8') : ' ';
      box.textContent = '';
      if (open) kids.slice(0, 200).forEach(function (k) { box.appendChild(row(k, depth + 1)); });
    }
    tog.addEventListener('click', toggle);
    var wrap = PC.el('div');
    wrap.appendChild(r);
    wrap.appendChild(box);
    /* open the heaviest path while it holds at least a tenth of the total */
    if (kids.length && (node === 0 || v.tot[node] >= 0.1 * v.total) && depth < 40) toggle();
    return wrap;
  }
  var head = PC.el('div', 'ctrow cthead');
  head.appendChild(PC.el('span', 'tog', ' '));
  head.appendChild(PC.el('span', 'ctpct', 'incl.'));
  head.appendChild(PC.el('span', 'ctpct', 'self'));
  head.appendChild(PC.el('span', 'ctname', 'function'));
  root.appendChild(head);
  root.appendChild(row(0, 0));
  return root;
};

/* PerfView's GCStats columns (the last, the pause on the timeline's axis, is not shown). */
PC.gcTable = function (D) {
  var cols = D.gcCols.slice(0, -1), box = PC.el('div');
  var ints = ['GC Index', 'Gen', 'Pinned Obj', 'CPU samples in pause'].map(function (c) {
    return cols.indexOf(c);
  });
  box.appendChild(PC.el('p', 'note', 'As PerfView\'s GCStats (MB: 10^6 bytes). Without the heaps\' ' +
    'histories (GCPerHeapHistory), Gen0 Alloc MB and Peak MB are estimated from the allocation ' +
    'ticks and the fragmentation is not known (\u2013).'));
  box.appendChild(PC.table(cols, D.gcs.map(function (r) {
    return r.slice(0, -1).map(function (c) { return c === null ? '\u2013' : c; });
  }),
                           {digits: 3, intCols: ints, idCols: [cols.indexOf('pid')], cls: 'gc'}));
  return box;
};

PC.jitTable = function (D) {
  return PC.table(D.jitCols, D.jits, {digits: 3, sortCol: 3, limit: 500, intCols: [4], idCols: [0, 6]});
};

/* The recording's facts and what it did and did not collect. */
PC.metaTable = function (D) {
  var m = D.meta, rows = [], has = {};
  D.views.forEach(function (v) { has[v.kind] = true; });
  rows.push(['trace', D.input]);
  var procs = {};
  D.views.forEach(function (v) {
    v.kids[0].forEach(function (p) { procs[PC.name(D, v, p)] = true; });
  });
  rows.push(['commands (processes sampled)', Object.keys(procs).slice(0, 30).join(', ')]);
  var dur = m.seconds > 0 ? m.seconds : m.lastNs > m.firstNs ? (m.lastNs - m.firstNs) / 1e9 : 0;
  rows.push(['duration', dur ? dur.toFixed(3) + ' s' + (m.seconds > 0 ? ' (perfcollect.log)' : ' (first to last sample)') : 'unknown']);
  rows.push(['samples', PC.num(m.samples, 0) + (m.skipped ? ' (' + PC.num(m.skipped, 0) + ' left out by the filters)' : '')]);
  rows.push(['events', m.events.map(function (e) { return e[0] + ' (' + PC.num(e[1], 0) + ')'; }).join(', ') || 'none']);
  rows.push(['lost samples', m.lost >= 0 ? PC.num(m.lost, 0) : 'unknown (no perfcollect.log)']);
  rows.push(['CPUs', (m.cpus > 0 ? m.cpus + ' on the machine, ' : '') + m.cpusSampled + ' sampled']);
  if (m.hz > 0) rows.push(['sampling rate', m.hz + ' Hz']);
  if (m.wallStart) rows.push(['started', new Date(m.wallStart * 1000).toISOString()]);
  var yes = [], no = [];
  (has[0] ? yes : no).push('CPU samples');
  (has[1] ? yes : no).push('blocked time (collect -offcpu / -threadtime)');
  (m.runtime ? yes : no).push('.NET runtime events (GC, JIT)');
  (has[2] ? yes : no).push('allocations (AllocationTick)');
  (has[3] ? yes : no).push('exceptions (ExceptionThrown)');
  (has[4] ? yes : no).push('lock contention (ContentionStart/Stop)');
  rows.push(['collected', yes.join(', ') || 'nothing']);
  rows.push(['not collected', no.join(', ') || 'nothing']);
  rows.push(['report', 'perfcollect-c ' + D.version]);
  return PC.table(['', ''], rows);
};
