// Runs the script embedded in a view flame graph under node, on a small stand-in for the
// SVG DOM built from the file's own frames, and checks what a user would see:
//   node svgcheck.js FILE.svg NAME
// zooming on NAME's widest frame gives it the full width and hides frames outside it,
// its callers stay (faded), a search for NAME reports the matched share, reset restores.
'use strict';
const fs = require('fs');
const [file, name] = process.argv.slice(2);
const svg = fs.readFileSync(file, 'utf8');
const script = svg.match(/<!\[CDATA\[([\s\S]*?)\]\]>/)[1];
const unxml = s => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
	.replace(/&apos;/g, "'").replace(/&amp;/g, '&');

function el(tag, attrs, text) {
	const e = {tagName: tag, attrs: Object.assign({}, attrs), style: {}, children: [],
		parentNode: null, textContent: text || '', listeners: {}};
	e.getAttribute = k => (k in e.attrs ? e.attrs[k] : null);
	e.setAttribute = (k, v) => { e.attrs[k] = String(v); };
	e.getElementsByTagName = t => e.children.filter(c => c.tagName === t);
	e.addEventListener = (ev, fn) => { e.listeners[ev] = fn; };
	e.add = c => { c.parentNode = e; e.children.push(c); return c; };
	return e;
}
const root = el('svg', {});
const byId = {};
for (const id of ['details', 'matched', 'unzoom', 'search', 'ic'])
	byId[id] = root.add(el('text', {id}));
const groups = [];
const re = /<g class="f" data-s="(\d+)" data-n="(\d+)" data-d="(\d+)"><title>([^<]*)<\/title><rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"[^>]* fill="([^"]+)"[^>]*\/><text[^>]*>([^<]*)<\/text><\/g>/g;
for (let m; (m = re.exec(svg));) {
	const g = root.add(el('g', {class: 'f', 'data-s': m[1], 'data-n': m[2], 'data-d': m[3]}));
	g.add(el('title', {}, unxml(m[4])));
	g.add(el('rect', {x: m[5], width: m[6], fill: m[7]}));
	g.add(el('text', {}, unxml(m[8])));
	groups.push(g);
}
const win = {listeners: {}, addEventListener(ev, fn) { this.listeners[ev] = fn; }};
const doc = {documentElement: root, getElementById: id => byId[id],
	getElementsByTagName: t => (t === 'g' ? groups : [])};
let answer = name;
const run = new Function('document', 'window', 'prompt', 'alert',
	script + '\nreturn {init: init, zoom: zoom, search: search, frames: function () { return frames; }};');
const api = run(doc, win, () => answer, msg => { throw new Error('alert: ' + msg); });
api.init({});

const fail = msg => { console.log('FAIL: ' + msg); process.exitCode = 1; };
const frames = api.frames();
if (frames.length !== groups.length || !frames.length) fail('init saw ' + frames.length + ' frames');
const mine = frames.filter(f => f.name === name).sort((a, b) => b.n - a.n);
if (!mine.length) { fail('no frame named ' + name); process.exit(); }
const z = mine[0];
const width = +root.attrs.width || 1200;
// Hover shows the frame's details.
root.listeners.mouseover({target: z.r});
if (!byId.details.textContent.startsWith(name + '  |  ')) fail('hover shows ' + byId.details.textContent);
// Click zooms.
root.listeners.click({target: z.r});
const zw = +z.r.getAttribute('width');
if (Math.abs(zw - (width - 20)) > 0.01) fail('zoomed frame is ' + zw + ' px wide');
if (z.t.textContent !== name) fail('zoomed label is "' + z.t.textContent + '"');
const callers = frames.filter(f => f.d < z.d && f.s <= z.s && f.s + f.n >= z.s + z.n);
if (callers.length !== z.d) fail(callers.length + ' callers for depth ' + z.d);
if (callers.some(f => f.g.style.display === 'none' || f.g.style.opacity !== '0.5')) fail('callers not shown faded');
const outside = frames.filter(f => f.d >= z.d && (f.s + f.n <= z.s || f.s >= z.s + z.n));
if (outside.some(f => f.g.style.display !== 'none')) fail('frames outside the zoom still shown');
if (byId.unzoom.style.display !== '') fail('no reset button while zoomed');
// Search colors the matches and reports their share (nested matches once).
api.search();
const hits = frames.filter(f => f.r.getAttribute('fill') === 'rgb(230,0,230)');
if (hits.length !== frames.filter(f => f.d > 0 && new RegExp(name).test(f.name)).length) fail('search colored ' + hits.length);
const share = frames.filter(f => f.d > 0 && f.name === name).reduce((s, f) => s + f.n, 0) / frames[0].n * 100;
if (!byId.matched.textContent.startsWith('Matched: ' + share.toFixed(2) + '%')) fail('matched says ' + byId.matched.textContent + ', expected ' + share.toFixed(2));
// Escape resets zoom and search.
win.listeners.keydown({keyCode: 27, preventDefault() {}});
if (Math.abs(+frames[0].r.getAttribute('width') - (width - 20)) > 0.01) fail('reset: root not full width');
if (frames.some(f => f.g.style.display === 'none')) fail('reset left frames hidden');
if (hits.some(f => f.r.getAttribute('fill') === 'rgb(230,0,230)')) fail('search not cleared');
if (!process.exitCode) console.log('ok: ' + frames.length + ' frames; zoom, hover, search, reset work');
