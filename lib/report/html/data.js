/* data.js: the report's data (the JSON html.c writes) made ready to draw: each view's tree
 * with its children and totals, weights filtered to a time range, functions' self and
 * inclusive weights, callers and callees.  Names are data: nothing here touches the DOM. */
'use strict';

var PC = {timing: {start: performance.now()}};

PC.load = function () {
  var D = JSON.parse(document.getElementById('pc-data').textContent);
  PC.timing.parsed = performance.now();
  D.frames.count = D.frames.name.length;
  D.views.forEach(function (v, i) { PC.prepareView(D, v, i); });
  PC.timing.prepared = performance.now();
  return D;
};

PC.prepareView = function (D, v, index) {
  var n = v.parent.length, i;
  v.index = index;
  v.n = n;
  v.depth = new Int32Array(n);
  v.kids = new Array(n);
  for (i = 0; i < n; i++) v.kids[i] = [];
  for (i = 1; i < n; i++) {
    v.depth[i] = v.depth[v.parent[i]] + 1;
    v.kids[v.parent[i]].push(i);
  }
  v.fullSelf = Float64Array.from(v.self);
  if (v.base) v.baseTot = Float64Array.from(v.base);
  /* The events' times, absolute (us from t0), per thread. */
  v.timed = [];
  (v.times || []).forEach(function (t) {
    /* zigzag: the change of the difference from the event before */
    var abs = PC.varuints(t[1], Float64Array), gap = 0, at = 0;
    for (var k = 0; k < abs.length; k++) {
      var z = abs[k];
      gap += z % 2 ? -(z + 1) / 2 : z / 2;
      at += gap;
      abs[k] = at;
    }
    var node = PC.varuints(t[2], Uint32Array);
    for (var j = 0; j < node.length; j++) node[j] = v.leaves[node[j]];
    v.timed.push({thread: t[0], t: abs, node: node, w: t[3] || null});
  });
  delete v.times;
  delete v.leaves;
  PC.setWeights(v, null);
};

/* LEB128 varuints in base64 (html.c's times and nodes) into a typed array. */
PC.varuints = function (b64, Type) {
  var s = atob(b64), n = 0, i;
  for (i = 0; i < s.length; i++) if (s.charCodeAt(i) < 128) n++;
  var out = new Type(n), v = 0, mult = 1, k = 0;
  for (i = 0; i < s.length; i++) {
    var c = s.charCodeAt(i);
    v += (c & 127) * mult;
    if (c < 128) { out[k++] = v; v = 0; mult = 1; } else mult *= 128;
  }
  return out;
};

/* The view's weights: the whole trace (range null) or the events in [range.a, range.b] us;
   blocked time (kind 1: a wait from its time for its weight in ns) counts the part of each
   wait inside the range. */
PC.setWeights = function (v, range) {
  var n = v.n, self, i;
  if (!range || !v.timed.length) {
    self = v.fullSelf;
  } else {
    self = new Float64Array(n);
    v.timed.forEach(function (th) {
      for (var k = 0; k < th.t.length; k++) {
        var t = th.t[k], w = th.w ? th.w[k] : 1;
        if (v.kind === 1) {
          var part = Math.min(range.b, t + w / 1000) - Math.max(range.a, t);
          if (part > 0) self[th.node[k]] += Math.round(part * 1000);
        } else if (t >= range.a && t <= range.b) {
          self[th.node[k]] += w;
        }
      }
    });
  }
  var tot = Float64Array.from(self);
  for (i = n - 1; i > 0; i--) tot[v.parent[i]] += tot[i];
  v.curSelf = self;
  v.tot = tot;
  v.total = tot[0];
  v.ranged = !!(range && v.timed.length);
};

/* Children of node i that carry weight, heaviest first. */
PC.children = function (v, i) {
  var k = v.kids[i].filter(function (c) { return v.tot[c] > 0; });
  k.sort(function (a, b) { return v.tot[b] - v.tot[a]; });
  return k;
};

PC.name = function (D, v, i) {
  return i === 0 ? 'all' : D.frames.name[v.func[i]];
};

PC.kindName = function (D, f) {
  return D.kinds[D.frames.kind[f]];
};

/* A weight in the view's unit: "1,234 samples", "12.5 ms blocked", "3.2 MB" ... */
PC.amount = function (v, x) {
  if (v.div > 1) return PC.num(x / v.div, 2) + ' ' + v.unit;
  if (v.what === 'bytes') {
    if (x >= 1048576) return PC.num(x / 1048576, 1) + ' MB';
    if (x >= 1024) return PC.num(x / 1024, 1) + ' KB';
  }
  return PC.num(x, 0) + ' ' + v.what;
};

PC.num = function (x, digits) {
  return x.toLocaleString('en-US', {minimumFractionDigits: digits, maximumFractionDigits: digits});
};

PC.pct = function (part, whole) {
  return whole > 0 ? (100 * part / whole).toFixed(2) + '%' : '0.00%';
};

/* Each function's self and inclusive weight (a recursive function counts once per stack). */
PC.functionWeights = function (D, v) {
  var self = new Float64Array(D.frames.count), incl = new Float64Array(D.frames.count);
  var onStack = new Int32Array(D.frames.count), i;
  (function walk(node) {
    var stack = [[node, 0]];
    while (stack.length) {
      var top = stack[stack.length - 1], at = top[0], f = v.func[at];
      if (top[1] === 0) {
        if (v.tot[at] <= 0 && at !== 0) { stack.pop(); continue; }
        if (at !== 0) {
          self[f] += v.curSelf[at];
          if (!onStack[f]) incl[f] += v.tot[at];
          onStack[f]++;
        }
      }
      if (top[1] < v.kids[at].length) {
        stack.push([v.kids[at][top[1]++], 0]);
      } else {
        if (at !== 0) onStack[f]--;
        stack.pop();
      }
    }
  })(0);
  return {self: self, incl: incl};
};

/* Callers and callees of function f: {callers: [[func, weight]], callees: [...], incl, self}. */
PC.butterfly = function (D, v, f) {
  var callers = {}, callees = {}, incl = 0, self = 0, i;
  for (i = 1; i < v.n; i++) {
    if (v.func[i] !== f || v.tot[i] <= 0) continue;
    self += v.curSelf[i];
    /* the outermost f of its stack counts for the inclusive weight and the callers */
    var p = v.parent[i], outer = true;
    for (var a = p; a > 0; a = v.parent[a]) if (v.func[a] === f) { outer = false; break; }
    if (outer) {
      incl += v.tot[i];
      var c = p > 0 ? v.func[p] : -1;
      callers[c] = (callers[c] || 0) + v.tot[i];
    }
    v.kids[i].forEach(function (k) {
      if (v.tot[k] > 0 && v.func[k] !== f) callees[v.func[k]] = (callees[v.func[k]] || 0) + v.tot[k];
    });
  }
  function list(o) {
    return Object.keys(o).map(function (k) { return [+k, o[k]]; })
      .sort(function (a, b) { return b[1] - a[1]; });
  }
  return {callers: list(callers), callees: list(callees), incl: incl, self: self};
};

/* Nodes whose frame matches the search; their share counts each stack once. */
PC.search = function (D, v, term) {
  var re = PC.searchRegExp(term), hits = new Uint8Array(v.n), matched = 0, frames = {}, i;
  if (!re) return null;
  var nameHit = new Int8Array(D.frames.count).fill(-1);
  for (i = 1; i < v.n; i++) {
    var f = v.func[i];
    if (nameHit[f] < 0) nameHit[f] = re.test(D.frames.name[f]) ? 1 : 0;
    if (!nameHit[f] || v.tot[i] <= 0) continue;
    hits[i] = 1;
    frames[f] = 1;
    var inside = false;
    for (var a = v.parent[i]; a > 0; a = v.parent[a]) if (hits[a]) { inside = true; break; }
    if (!inside) matched += v.tot[i];
  }
  return {hits: hits, matched: matched, functions: Object.keys(frames).length};
};

/* A search term: /regex/ or plain text, any case. */
PC.searchRegExp = function (term) {
  if (!term) return null;
  var m = /^\/(.+)\/$/.exec(term);
  try {
    return new RegExp(m ? m[1] : term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  } catch (e) {
    return null;
  }
};
