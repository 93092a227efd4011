/* flame.js: a view's tree as a flame graph on a canvas, the root on top: frame widths are
 * shares of the zoomed node's weight, colours say the frame's kind (or, for -diff, more or
 * less than the base), search matches in magenta.  Text is drawn with fillText: a name is
 * never markup. */
'use strict';

PC.KIND_HUES = {
  kernel: [28, 90, 60],   /* orange */
  native: [0, 65, 62],    /* red */
  jit: [120, 45, 52],     /* green */
  r2r: [180, 50, 45],     /* teal */
  runtime: [270, 40, 62], /* violet */
  process: [0, 0, 70]     /* grey */
};

PC.hash = function (s) {
  var h = 0;
  for (var i = 0; i < s.length && i < 40; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return (h >>> 0) / 4294967296;
};

PC.Flame = function (canvas, D, onSelect, onHover) {
  this.canvas = canvas;
  this.D = D;
  this.rowH = 18;
  this.rects = [];
  this.onSelect = onSelect;
  this.onHover = onHover;
  var self = this;
  canvas.addEventListener('click', function (e) {
    var r = self.hit(e);
    if (r) onSelect(r.node);
  });
  canvas.addEventListener('mousemove', function (e) { onHover(self.hit(e), e); });
  canvas.addEventListener('mouseleave', function () { onHover(null); });
};

PC.Flame.prototype.hit = function (e) {
  var b = this.canvas.getBoundingClientRect(), x = e.clientX - b.left, y = e.clientY - b.top;
  for (var i = 0; i < this.rects.length; i++) {
    var r = this.rects[i];
    if (x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + this.rowH) return r;
  }
  return null;
};

PC.Flame.prototype.color = function (v, i) {
  var D = this.D, f = v.func[i], name = PC.name(D, v, i);
  if (this.hits && this.hits[i]) return 'rgb(230,0,230)';
  if (v.base && i > 0) {
    var now = v.total > 0 ? v.tot[i] / v.total : 0;
    var was = v.baseTotal > 0 ? v.base[i] / v.baseTotal : 0;
    var d = now - was, s = Math.min(1, Math.abs(d) * 20);
    var c = Math.round(255 - 180 * s);
    return d > 0 ? 'rgb(255,' + c + ',' + c + ')' : d < 0 ? 'rgb(' + c + ',' + c + ',255)' : 'rgb(235,235,235)';
  }
  var hsl = i === 0 ? [0, 0, 80] : PC.KIND_HUES[PC.kindName(D, f)] || PC.KIND_HUES.native;
  var j = PC.hash(name);
  return 'hsl(' + (hsl[0] + j * 16 - 8) + ',' + hsl[1] + '%,' + (hsl[2] + j * 14 - 7) + '%)';
};

/* Draws view v zoomed to node z (its ancestors full width above it). */
PC.Flame.prototype.draw = function (v, z, hits) {
  var D = this.D, W = this.canvas.parentNode.clientWidth || 1000, rowH = this.rowH;
  this.v = v;
  this.z = z;
  this.hits = hits;
  this.rects = [];
  var rects = this.rects, chain = [], a;
  for (a = z; a > 0; a = v.parent[a]) chain.unshift(a);
  chain.unshift(0);
  /* the levels below z that hold a frame at least half a pixel wide */
  var maxDepth = chain.length - 1, minW = 0.5, scale = v.tot[z] > 0 ? W / v.tot[z] : 0;
  var queue = [[z, 0]], laid = [];
  while (queue.length) {
    var q = queue.pop(), node = q[0], x = q[1], w = v.tot[node] * scale;
    if (w < minW) continue;
    laid.push([node, x, w]);
    maxDepth = Math.max(maxDepth, v.depth[node]);
    var kids = PC.children(v, node), cx = x;
    for (var k = 0; k < kids.length; k++) {
      queue.push([kids[k], cx]);
      cx += v.tot[kids[k]] * scale;
    }
  }
  var dpr = window.devicePixelRatio || 1, H = (maxDepth + 1) * rowH + 4;
  this.canvas.width = Math.round(W * dpr);
  this.canvas.height = Math.round(H * dpr);
  this.canvas.style.width = W + 'px';
  this.canvas.style.height = H + 'px';
  var g = this.canvas.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, W, H);
  g.font = '12px sans-serif';
  g.textBaseline = 'middle';
  var self = this;
  function box(node, x, w, faded) {
    var y = v.depth[node] * rowH;
    g.fillStyle = self.color(v, node);
    g.globalAlpha = faded ? 0.6 : 1;
    g.fillRect(x, y, Math.max(w - 0.5, 0.5), rowH - 1);
    g.globalAlpha = 1;
    rects.push({node: node, x: x, y: y, w: w, name: PC.name(D, v, node)});
    if (w > 24) {
      var label = PC.name(D, v, node), room = Math.floor((w - 6) / 6.5);
      if (label.length > room) label = room > 2 ? label.slice(0, room - 1) + '\u2026' : '';
      g.fillStyle = '#000';
      g.fillText(label, x + 3, y + rowH / 2);
    }
  }
  for (var c = 0; c < chain.length - 1; c++) box(chain[c], 0, W, true);
  laid.forEach(function (l) { box(l[0], l[1], l[2], false); });
};
