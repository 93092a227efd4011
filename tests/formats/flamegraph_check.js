// node flamegraph_check.js FILE.svg WIDTH TERM: loads the SVG flame graph in a DOM (jsdom),
// runs its own script as a browser would on opening the file, with a window WIDTH pixels
// wide, and reports what a user would see: the drawn width, the root frame's width, the
// labels, and what a search for TERM matches with the case-insensitive toggle off and on.
const fs = require('fs');
const {JSDOM} = require('jsdom');
const file = process.argv[2], width = +process.argv[3], term = process.argv[4];
const dom = new JSDOM(fs.readFileSync(file, 'utf8'), {contentType: 'image/svg+xml', runScripts: 'outside-only'});
const w = dom.window, doc = w.document;
Object.defineProperty(w, 'innerWidth', {value: width, configurable: true});
w.prompt = () => term;
w.alert = (m) => { console.log('alert\t' + m); };
const script = doc.getElementsByTagName('script')[0].textContent;
w.eval(script);
w.eval('init()');
const svg = doc.documentElement;
const frames = [...doc.getElementsByTagName('g')].filter(g => /(^| )f( |$)/.test(g.getAttribute('class') || ''));
const rootRect = frames[0].getElementsByTagName('rect')[0];
console.log('svgwidth\t' + svg.getAttribute('width'));
console.log('rootwidth\t' + rootRect.getAttribute('width'));
const labels = frames.map(g => g.getElementsByTagName('text')[0].textContent).filter(t => t);
console.log('labels\t' + labels.join('|'));
const click = (el) => el.dispatchEvent(new w.MouseEvent('click', {bubbles: true}));
click(doc.getElementById('search'));
console.log('search\t' + doc.getElementById('matched').textContent);
click(doc.getElementById('ic'));
console.log('search-ic\t' + doc.getElementById('matched').textContent);
// Zoom into the widest frame below the root: the reset button appears.
click(frames[1].getElementsByTagName('rect')[0]);
console.log('zoomed\t' + (doc.getElementById('unzoom').style.display === '' ? 'yes' : 'no'));
