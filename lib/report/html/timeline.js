/* timeline.js: each thread's time on one axis: on-CPU (the CPU view's samples, as density per
 * pixel), off-CPU spans (the blocked view's waits), the GC pauses as bands across every row
 * and the exceptions as ticks on a row of their own.  Dragging selects a time range; the
 * caller filters the views to it (PerfView's time range). */
'use strict';

PC.Timeline = function (canvas, D, onRange) {
  this.canvas = canvas;
  this.D = D;
  this.onRange = onRange;
  this.range = null;
  this.label = 150;  /* px for the threads' names */
  this.rowH = 14;
  this.maxRows = 40;
  var self = this, drag = null;
  canvas.addEventListener('mousedown', function (e) {
    var x = self.xOf(e);
    if (x === null) return;
    drag = {x0: x};
    e.preventDefault();
  });
  window.addEventListener('mousemove', function (e) {
    if (!drag) return;
    var x = self.xOf(e, true);
    self.preview = {a: Math.min(drag.x0, x), b: Math.max(drag.x0, x)};
    self.draw();
  });
  window.addEventListener('mouseup', function (e) {
    if (!drag) return;
    var x = self.xOf(e, true), a = Math.min(drag.x0, x), b = Math.max(drag.x0, x);
    drag = null;
    self.preview = null;
    if (b - a < 2) { self.draw(); return; }
    self.setRange({a: self.usAt(a), b: self.usAt(b)});
  });
};

PC.Timeline.prototype.width = function () {
  return (this.canvas.parentNode.clientWidth || 1000) - this.label;
};

/* The x of a mouse event in the plot (null outside it, unless clamp). */
PC.Timeline.prototype.xOf = function (e, clamp) {
  var b = this.canvas.getBoundingClientRect(), x = e.clientX - b.left - this.label;
  if (!clamp && (x < 0 || x > this.width())) return null;
  return Math.max(0, Math.min(this.width(), x));
};

PC.Timeline.prototype.usAt = function (x) {
  return x / this.width() * this.D.span;
};

PC.Timeline.prototype.setRange = function (r) {
  this.range = r;
  this.draw();
  this.onRange(r);
};

/* The views drawn: the first CPU one (on-CPU spans), blocked time, exceptions. */
PC.Timeline.prototype.drawn = function () {
  var d = {cpu: null, blocked: null, exc: null};
  this.D.views.forEach(function (v) {
    if (v.kind === 0 && !d.cpu) d.cpu = v;
    if (v.kind === 1) d.blocked = v;
    if (v.kind === 3) d.exc = v;
  });
  return d;
};

/* Rows: the threads with the most events drawn first (a thread with events of other views
   only, such as the tasks a sched_switch names, would be an empty row). */
PC.Timeline.prototype.rows = function () {
  var D = this.D, count = new Float64Array(D.threads.length), d = this.drawn();
  [d.cpu, d.blocked].forEach(function (v) {
    if (v) v.timed.forEach(function (th) { count[th.thread] += th.t.length; });
  });
  var order = D.threads.map(function (t, i) { return i; })
    .filter(function (i) { return count[i] > 0; });
  order.sort(function (a, b) { return count[b] - count[a] || D.threads[a][1] - D.threads[b][1]; });
  return order.slice(0, this.maxRows);
};

PC.Timeline.prototype.draw = function () {
  var D = this.D, W = this.width(), L = this.label, rowH = this.rowH;
  var rows = this.rows(), rowOf = {};
  rows.forEach(function (t, i) { rowOf[t] = i; });
  var d = this.drawn(), cpu = d.cpu, blocked = d.blocked, exc = d.exc;
  var top = 16 + (exc ? rowH : 0) + (D.gcs && D.gcs.length ? rowH : 0);
  var H = top + rows.length * rowH + 4, dpr = window.devicePixelRatio || 1;
  this.canvas.width = Math.round((W + L) * dpr);
  this.canvas.height = Math.round(H * dpr);
  this.canvas.style.width = (W + L) + 'px';
  this.canvas.style.height = H + 'px';
  var g = this.canvas.getContext('2d'), span = D.span, x = function (us) { return L + us / span * W; };
  /* what was drawn, for the tests: {tid, kind: 'on' | 'off', a, b} in us */
  var spans = this.spans = [];
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, W + L, H);
  g.font = '11px sans-serif';
  g.textBaseline = 'middle';
  /* the axis */
  g.fillStyle = '#444';
  for (var k = 0; k <= 10; k++) {
    var us = span * k / 10;
    g.textAlign = k === 10 ? 'right' : 'left'; /* the last one ends at the plot's end */
    g.fillText((us / 1000).toFixed(us < 10000 ? 1 : 0) + ' ms', x(us), 7);
  }
  g.textAlign = 'left';
  var y = 16;
  if (D.gcs && D.gcs.length) {
    g.fillStyle = '#000';
    g.fillText('GC pauses', 4, y + rowH / 2);
    g.fillStyle = 'rgba(220,40,40,0.25)';
    var pauseUs = D.gcCols.indexOf('pause start us'), pauseMs = D.gcCols.indexOf('Pause MSec');
    D.gcs.forEach(function (r) {
      if (r[pauseUs] < 0) return;
      var x0 = x(r[pauseUs]), w = Math.max(1, r[pauseMs] * 1000 / span * W);
      g.fillRect(x0, y, w, H - y);
    });
    y += rowH;
  }
  if (exc) {
    g.fillStyle = '#000';
    g.fillText('exceptions', 4, y + rowH / 2);
    g.fillStyle = 'rgb(200,120,0)';
    exc.timed.forEach(function (th) {
      for (var i = 0; i < th.t.length; i++) g.fillRect(x(th.t[i]), y + 2, 1, rowH - 4);
    });
    y += rowH;
  }
  rows.forEach(function (t, i) {
    var th = D.threads[t], ry = y + i * rowH;
    g.fillStyle = i % 2 ? '#f4f4f4' : '#fafafa';
    g.fillRect(L, ry, W, rowH - 1);
    g.fillStyle = '#000';
    var name = (th[2] || 'thread') + ' ' + th[1];
    if (name.length > 24) name = name.slice(0, 23) + '\u2026';
    g.fillText(name, 4, ry + rowH / 2);
  });
  if (blocked) {
    g.fillStyle = 'rgba(60,90,220,0.55)';
    blocked.timed.forEach(function (th) {
      if (!(th.thread in rowOf)) return;
      var ry = y + rowOf[th.thread] * rowH, tid = D.threads[th.thread][1];
      for (var i = 0; i < th.t.length; i++) {
        /* a wait starts at its time and lasts its weight (ns) */
        var us = (th.w ? th.w[i] : 1) / 1000;
        g.fillRect(x(th.t[i]), ry + 3, Math.max(1, us / span * W), rowH - 7);
        spans.push({tid: tid, kind: 'off', a: th.t[i], b: th.t[i] + us});
      }
    });
  }
  if (cpu) {
    /* on-CPU spans: samples closer than three sampling intervals (the thread's median gap)
       run together */
    g.fillStyle = 'rgb(220,90,20)';
    var median = function (th) {
      if (th.median !== undefined) return th.median;
      var gaps = [];
      for (var i = 1; i < th.t.length && gaps.length < 5000; i++) gaps.push(th.t[i] - th.t[i - 1]);
      gaps.sort(function (p, q) { return p - q; });
      th.median = gaps.length ? Math.max(gaps[gaps.length >> 1], 1) : Infinity;
      return th.median;
    };
    /* the sampling interval, as the busy threads show it */
    var interval = Infinity;
    cpu.timed.forEach(function (th) { if (th.t.length >= 50) interval = Math.min(interval, median(th)); });
    if (interval === Infinity) interval = 1000;
    cpu.timed.forEach(function (th) {
      if (!(th.thread in rowOf) || !th.t.length) return;
      var ry = y + rowOf[th.thread] * rowH, i, step = Math.min(median(th), interval), start = th.t[0];
      var tid = D.threads[th.thread][1];
      for (i = 1; i <= th.t.length; i++) {
        if (i < th.t.length && th.t[i] - th.t[i - 1] <= 3 * step) continue;
        var end = th.t[i - 1] + step;
        g.fillRect(x(start), ry + 1, Math.max(1, x(end) - x(start)), rowH - 3);
        spans.push({tid: tid, kind: 'on', a: start, b: end});
        if (i < th.t.length) start = th.t[i];
      }
    });
  }
  var sel = this.preview || (this.range && {a: x(this.range.a) - L, b: x(this.range.b) - L});
  if (sel) {
    g.fillStyle = 'rgba(0,0,0,0.18)';
    g.fillRect(L, 14, sel.a, H - 14);
    g.fillRect(L + sel.b, 14, W - sel.b, H - 14);
    g.strokeStyle = '#000';
    g.strokeRect(L + sel.a, 14, sel.b - sel.a, H - 15);
  }
};
