/* flamegraph: see flamegraph.h. */
#include "flamegraph.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FG_PAD	   10	/* left and right margin, px */
#define FG_FRAME_H 16	/* one row */
#define FG_FONT	   12	/* px */
#define FG_TOP	   64	/* title, subtitle, buttons, legend */
#define FG_BOTTOM  30	/* the details line */
#define FG_MIN_W   0.1	/* narrower frames (and their children) are left out */
#define FG_CHAR_W  0.59 /* average glyph width, in font sizes */

/* ---- walking the tree in name order, with each node's offset ---- */

struct level {
	uint32_t node;
	uint64_t x;    /* where the node starts, in weight units */
	uint64_t next; /* where its next child starts */
	uint32_t *kids;
	size_t n, i, cap;
};

/* enter() sees the path levels[0..depth] (root at 0) and says whether to go below it. */
typedef bool (*enter_fn)(void *arg, const struct level *path, size_t depth);

static void walk(const struct calltree *t, enter_fn enter, void *arg)
{
	struct level *lv = NULL;
	size_t cap = 0, d = 0;
	grow_array((void **)&lv, &cap, 1, sizeof(*lv));
	memset(lv, 0, cap * sizeof(*lv));
	lv[0].node = CALLTREE_ROOT;
	lv[0].n = enter(arg, lv, 0) ? calltree_children(t, CALLTREE_ROOT, CALLTREE_BY_NAME,
							&lv[0].kids, &lv[0].cap)
				    : 0;
	for (;;) {
		struct level *top = &lv[d];
		if (top->i >= top->n) {
			if (!d)
				break;
			d--;
			continue;
		}
		uint32_t c = top->kids[top->i++];
		uint64_t x = top->next;
		top->next += calltree_node(t, c)->total;
		if (d + 1 >= cap) {
			size_t old = cap;
			grow_array((void **)&lv, &cap, d + 2, sizeof(*lv));
			memset(lv + old, 0, (cap - old) * sizeof(*lv));
		}
		struct level *l = &lv[++d];
		l->node = c;
		l->x = l->next = x;
		l->i = 0;
		l->n = enter(arg, lv, d)
			   ? calltree_children(t, c, CALLTREE_BY_NAME, &l->kids, &l->cap)
			   : 0;
	}
	for (size_t i = 0; i < cap; i++)
		free(lv[i].kids);
	free(lv);
}

static int finish(FILE *out)
{
	if (fflush(out) || ferror(out))
		return pc_err_errno("cannot write the flame graph");
	return 0;
}

/* ---- folded ---- */

struct folded {
	FILE *out;
	const struct calltree *t;
	const struct functable *ft;
	uint64_t div;
};

static void put_folded_name(FILE *out, const char *s)
{
	for (; *s; s++)
		putc(*s == ';' ? ':' : *s, out);
}

static bool folded_enter(void *arg, const struct level *path, size_t depth)
{
	struct folded *f = arg;
	const struct calltree_node *nd = calltree_node(f->t, path[depth].node);
	uint64_t w = nd->self / f->div + (nd->self % f->div >= (f->div + 1) / 2);
	if (depth && w) {
		for (size_t i = 1; i <= depth; i++) {
			if (i > 1)
				putc(';', f->out);
			put_folded_name(
			    f->out, functable_name(f->ft, calltree_node(f->t, path[i].node)->func));
		}
		fprintf(f->out, " %llu\n", (unsigned long long)w);
	}
	return true;
}

int flamegraph_write_folded(FILE *out, const struct calltree *t)
{
	return flamegraph_write_folded_scaled(out, t, 1);
}

int flamegraph_write_folded_scaled(FILE *out, const struct calltree *t, uint64_t div)
{
	/* One line per stack of names: two functions that print alike (the same JIT symbol in
	 * two processes' maps) are one frame for the tools that read this. */
	struct calltree *named = calltree_derive(t, CALLTREE_MERGE_NAMES);
	struct folded f = {
	    .out = out, .t = named, .ft = calltree_functable(named), .div = div ? div : 1};
	walk(named, folded_enter, &f);
	calltree_free(named);
	return finish(out);
}

/* ---- SVG ---- */

/* The length of the valid UTF-8 sequence at s that XML 1.0 allows, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	if (c < 0x80)
		return c >= 0x20 || c == '\t' ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))
			return 0; /* overlong, or a surrogate */
		if (c == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
			return 0; /* U+FFFE, U+FFFF */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t l = utf8_len(p);
		p += l ? l : 1;
		n++;
	}
	return n;
}

/* Writes s as XML text, at most max characters (then ".." instead of the rest); bytes that
 * are not valid UTF-8 or not allowed in XML become '?'. */
static void put_xml(FILE *out, const char *s, size_t max)
{
	bool cut = utf8_chars(s) > max;
	if (cut)
		max = max >= 2 ? max - 2 : 0;
	const unsigned char *p = (const unsigned char *)s;
	for (size_t n = 0; *p && n < max; n++) {
		size_t l = utf8_len(p);
		if (!l) {
			putc('?', out);
			p++;
			continue;
		}
		switch (*p) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			fwrite(p, 1, l, out);
		}
		p += l;
	}
	if (cut)
		fputs("..", out);
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* CPU time: kernel orange, native red, JIT/managed green, processes blue.  Off-CPU time:
 * blues, kernel pale, native deep, JIT/managed turquoise, processes violet.  The root grey;
 * the shade varies with the name so that neighbours stay apart. */
static void frame_color(enum flamegraph_palette pal, enum frame_kind k, const char *name, bool root,
			int rgb[3])
{
	uint32_t h = name_hash(name);
	double v1 = (h & 0xff) / 255.0, v2 = (h >> 8 & 0xff) / 255.0, v3 = (h >> 16 & 0xff) / 255.0;
	static const int base[][6] = {
	    /* r lo, r span, g lo, g span, b lo, b span */
	    [FRAME_NATIVE] = {200, 55, 40, 70, 40, 40},
	    [FRAME_KERNEL] = {230, 25, 155, 60, 0, 50},
	    [FRAME_JIT] = {50, 60, 175, 55, 50, 50},
	    [FRAME_PROCESS] = {110, 40, 150, 40, 215, 35},
	};
	static const int offcpu[][6] = {
	    [FRAME_NATIVE] = {40, 50, 90, 60, 200, 55},
	    [FRAME_KERNEL] = {120, 50, 170, 45, 225, 30},
	    [FRAME_JIT] = {30, 40, 160, 50, 190, 50},
	    [FRAME_PROCESS] = {140, 40, 110, 40, 210, 40},
	};
	if (root) {
		rgb[0] = rgb[1] = rgb[2] = 200;
		return;
	}
	const int *b = pal == FLAMEGRAPH_OFFCPU ? offcpu[k] : base[k];
	rgb[0] = b[0] + (int)(b[1] * v1);
	rgb[1] = b[2] + (int)(b[3] * v2);
	rgb[2] = b[4] + (int)(b[5] * v3);
}

/* A weight as shown: a count, or divided by unit_div with two decimals (ns as ms). */
static const char *fmt_weight(uint64_t w, const struct flamegraph_opts *o, char *buf, size_t len)
{
	if (o->unit_div > 1)
		snprintf(buf, len, "%.2f", (double)w / (double)o->unit_div);
	else
		snprintf(buf, len, "%llu", (unsigned long long)w);
	return buf;
}

struct svg {
	FILE *out;
	const struct calltree *t;
	const struct functable *ft;
	const struct flamegraph_opts *o;
	const char *unit;
	double scale; /* px per weight unit */
	size_t max_depth;
	unsigned width, height;
};

static bool wide_enough(const struct svg *s, uint32_t node)
{
	return (double)calltree_node(s->t, node)->total * s->scale >= FG_MIN_W;
}

static bool depth_enter(void *arg, const struct level *path, size_t depth)
{
	struct svg *s = arg;
	if (!wide_enough(s, path[depth].node))
		return false;
	if (depth > s->max_depth)
		s->max_depth = depth;
	return true;
}

static bool svg_enter(void *arg, const struct level *path, size_t depth)
{
	struct svg *s = arg;
	const struct level *l = &path[depth];
	if (!wide_enough(s, l->node))
		return false;
	const struct calltree_node *nd = calltree_node(s->t, l->node);
	bool root = l->node == CALLTREE_ROOT;
	const char *name = root ? "all" : functable_name(s->ft, nd->func);
	enum frame_kind kind = root ? FRAME_NATIVE : functable_kind(s->ft, nd->func);
	uint64_t total = calltree_total(s->t);
	double x = FG_PAD + (double)l->x * s->scale, w = (double)nd->total * s->scale;
	double y = s->height - FG_BOTTOM - (double)(depth + 1) * FG_FRAME_H;
	int rgb[3];
	frame_color(s->o->palette, kind, name, root, rgb);
	FILE *out = s->out;

	fprintf(out, "<g class=\"f\" data-s=\"%llu\" data-n=\"%llu\" data-d=\"%zu\"><title>",
		(unsigned long long)l->x, (unsigned long long)nd->total, depth);
	put_xml(out, name, SIZE_MAX);
	if (!root && kind == FRAME_PROCESS) {
		fputs("\nprocess", out);
	} else if (!root) {
		const char *dso = functable_dso(s->ft, nd->func);
		putc('\n', out);
		put_xml(out, *dso ? dso : "[unknown]", SIZE_MAX);
		fprintf(out, " (%s)", frame_kind_name(kind));
	}
	char ws[32];
	fprintf(out, "\n%s %s, %.2f%%", fmt_weight(nd->total, s->o, ws, sizeof(ws)), s->unit,
		total ? 100.0 * (double)nd->total / (double)total : 0.0);
	if (nd->self && nd->self != nd->total)
		fprintf(out, " (self %s, %.2f%%)", fmt_weight(nd->self, s->o, ws, sizeof(ws)),
			100.0 * (double)nd->self / (double)total);
	fprintf(out,
		"</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		"fill=\"rgb(%d,%d,%d)\" "
		"rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, FG_FRAME_H - 1, rgb[0], rgb[1], rgb[2], x + 3, y + FG_FRAME_H - 4.5);
	double fit = w / (FG_FONT * FG_CHAR_W);
	if (fit >= 3)
		put_xml(out, name, (size_t)fit);
	fputs("</text></g>\n", out);
	return true;
}

/* The script: hover, click to zoom, search.  Written for this file only. */
static const char svg_script[] =
    "var svg, frames = [], details, matched, unzoom, searchbtn, total = 0, searching = false;\n"
    "function init(evt) {\n"
    "  svg = document.documentElement;\n"
    "  details = document.getElementById('details');\n"
    "  matched = document.getElementById('matched');\n"
    "  unzoom = document.getElementById('unzoom');\n"
    "  searchbtn = document.getElementById('search');\n"
    "  var gs = document.getElementsByTagName('g');\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var g = gs[i];\n"
    "    if (g.getAttribute('class') !== 'f') continue;\n"
    "    var title = g.getElementsByTagName('title')[0].textContent;\n"
    "    var r = g.getElementsByTagName('rect')[0];\n"
    "    g.frameIndex = frames.length;\n"
    "    frames.push({g: g, r: r, t: g.getElementsByTagName('text')[0],\n"
    "      s: +g.getAttribute('data-s'), n: +g.getAttribute('data-n'),\n"
    "      d: +g.getAttribute('data-d'), fill: r.getAttribute('fill'),\n"
    "      name: title.split('\\n')[0], info: title.replace(/\\n/g, '  |  ')});\n"
    "  }\n"
    "  if (frames.length) total = frames[0].n;\n"
    "  svg.addEventListener('mouseover', function (e) {\n"
    "    var f = frameOf(e.target); if (f) details.textContent = f.info; });\n"
    "  svg.addEventListener('mouseout', function (e) {\n"
    "    if (frameOf(e.target)) details.textContent = ' '; });\n"
    "  svg.addEventListener('click', function (e) {\n"
    "    var f = frameOf(e.target); if (f) zoom(f); });\n"
    "  unzoom.addEventListener('click', function () { if (frames.length) zoom(frames[0]); });\n"
    "  searchbtn.addEventListener('click', function () {\n"
    "    if (searching) clearSearch(); else search(); });\n"
    "  window.addEventListener('keydown', function (e) {\n"
    "    if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {\n"
    "      e.preventDefault(); search();\n"
    "    } else if (e.keyCode === 27) {\n"
    "      if (frames.length) zoom(frames[0]); clearSearch();\n"
    "    }\n"
    "  });\n"
    "}\n"
    "function frameOf(el) {\n"
    "  for (; el && el !== svg; el = el.parentNode)\n"
    "    if (el.frameIndex !== undefined) return frames[el.frameIndex];\n"
    "  return null;\n"
    "}\n"
    "function label(f, w) {\n"
    "  var c = Math.floor(w / (FONT * CHAR_W));\n"
    "  if (c < 3) return '';\n"
    "  return f.name.length <= c ? f.name : f.name.substring(0, c - 2) + '..';\n"
    "}\n"
    "function zoom(z) {\n"
    "  var scale = (WIDTH - 2 * PAD) / z.n;\n"
    "  for (var i = 0; i < frames.length; i++) {\n"
    "    var f = frames[i], lo = Math.max(f.s, z.s), hi = Math.min(f.s + f.n, z.s + z.n);\n"
    "    /* Shown: the zoomed frame, what it calls, and its callers (faded). */\n"
    "    if (hi <= lo || (f.d >= z.d && (f.s < z.s || f.s + f.n > z.s + z.n))) {\n"
    "      f.g.style.display = 'none'; continue;\n"
    "    }\n"
    "    var x = PAD + (lo - z.s) * scale, w = (hi - lo) * scale;\n"
    "    f.g.style.display = '';\n"
    "    f.g.style.opacity = f.d < z.d ? '0.5' : '';\n"
    "    f.r.setAttribute('x', x.toFixed(2));\n"
    "    f.r.setAttribute('width', w.toFixed(2));\n"
    "    f.t.setAttribute('x', (x + 3).toFixed(2));\n"
    "    f.t.textContent = label(f, w);\n"
    "  }\n"
    "  unzoom.style.display = z.d > 0 ? '' : 'none';\n"
    "}\n"
    "function search() {\n"
    "  var term = prompt('Search for (regular expression)', '');\n"
    "  if (term === null || term === '') return;\n"
    "  var re;\n"
    "  try { re = new RegExp(term); } catch (e) { alert('Bad expression: ' + e.message); return; "
    "}\n"
    "  clearSearch();\n"
    "  var hits = [];\n"
    "  for (var i = 1; i < frames.length; i++)\n"
    "    if (re.test(frames[i].name)) {\n"
    "      frames[i].r.setAttribute('fill', 'rgb(230,0,230)'); hits.push(frames[i]);\n"
    "    }\n"
    "  /* Nested matches count once: keep the outermost of each range. */\n"
    "  hits.sort(function (a, b) { return a.s - b.s || b.n - a.n; });\n"
    "  var sum = 0, end = -1;\n"
    "  for (var j = 0; j < hits.length; j++)\n"
    "    if (hits[j].s >= end) { sum += hits[j].n; end = hits[j].s + hits[j].n; }\n"
    "  searching = true;\n"
    "  searchbtn.textContent = 'Clear search';\n"
    "  matched.textContent = 'Matched: ' + (total ? 100 * sum / total : 0).toFixed(2) + '% ('\n"
    "    + hits.length + ' frames)';\n"
    "}\n"
    "function clearSearch() {\n"
    "  for (var i = 0; i < frames.length; i++) frames[i].r.setAttribute('fill', frames[i].fill);\n"
    "  searching = false;\n"
    "  searchbtn.textContent = 'Search';\n"
    "  matched.textContent = ' ';\n"
    "}\n";

static void legend(FILE *out, enum flamegraph_palette pal, unsigned x, unsigned y)
{
	static const struct {
		enum frame_kind k;
		const char *what;
	} items[] = {{FRAME_KERNEL, "kernel"},
		     {FRAME_NATIVE, "native"},
		     {FRAME_JIT, "JIT/managed"},
		     {FRAME_PROCESS, "process"}};
	for (size_t i = 0; i < ARRAY_SIZE(items); i++) {
		int rgb[3];
		frame_color(pal, items[i].k, "", false, rgb);
		fprintf(
		    out,
		    "<rect x=\"%u\" y=\"%u\" width=\"10\" height=\"10\" fill=\"rgb(%d,%d,%d)\"/>"
		    "<text x=\"%u\" y=\"%u\">%s</text>\n",
		    x, y - 9, rgb[0], rgb[1], rgb[2], x + 14, y, items[i].what);
		x += 24 + (unsigned)strlen(items[i].what) * 7;
	}
}

int flamegraph_write_svg(FILE *out, const struct calltree *t, const struct flamegraph_opts *o)
{
	struct svg s = {.out = out,
			.t = t,
			.ft = calltree_functable(t),
			.o = o,
			.unit = o->unit ? o->unit : "samples",
			.width = o->width ? o->width : 1200};
	uint64_t total = calltree_total(t);
	s.scale = total ? (double)(s.width - 2 * FG_PAD) / (double)total : 0;
	walk(t, depth_enter, &s);
	s.height = FG_TOP + (unsigned)(s.max_depth + 1) * FG_FRAME_H + FG_BOTTOM;

	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" onload=\"init(evt)\">\n",
		s.width, s.height, s.width, s.height);
	fprintf(out,
		"<style type=\"text/css\">\n"
		"text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }\n"
		"g.f text { pointer-events: none; }\n"
		"g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }\n"
		".title { font-size: 17px; text-anchor: middle; }\n"
		".sub { text-anchor: middle; fill: rgb(80,80,80); }\n"
		".button { cursor: pointer; fill: rgb(0,0,160); }\n"
		"</style>\n",
		FG_FONT);
	fprintf(out,
		"<script type=\"text/ecmascript\"><![CDATA[\n"
		"var WIDTH = %u, PAD = %d, FONT = %d, CHAR_W = %g;\n%s]]></script>\n",
		s.width, FG_PAD, FG_FONT, FG_CHAR_W, svg_script);
	fprintf(out,
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"rgb(250,250,245)\"/>\n",
		s.width, s.height);
	fprintf(out, "<text class=\"title\" x=\"%u\" y=\"22\">", s.width / 2);
	put_xml(out, o->title ? o->title : "Flame Graph", SIZE_MAX);
	fputs("</text>\n", out);
	if (o->subtitle) {
		fprintf(out, "<text class=\"sub\" x=\"%u\" y=\"40\">", s.width / 2);
		put_xml(out, o->subtitle, SIZE_MAX);
		fputs("</text>\n", out);
	}
	fprintf(out,
		"<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"22\" style=\"display:none\">"
		"Reset zoom</text>\n"
		"<text id=\"search\" class=\"button\" x=\"%u\" y=\"22\" "
		"style=\"text-anchor:end\">Search</text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%u\" style=\"text-anchor:end\"> </text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n",
		FG_PAD, s.width - FG_PAD, s.width - FG_PAD, s.height - 10, FG_PAD, s.height - 10);
	legend(out, o->palette, FG_PAD, 58);
	if (total)
		walk(t, svg_enter, &s);
	fputs("</svg>\n", out);
	return finish(out);
}
