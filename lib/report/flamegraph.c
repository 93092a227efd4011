/* flamegraph: see flamegraph.h. */
#include "flamegraph.h"
#include "flamegraph_script.h"
#include "base/hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FG_PAD	   10	/* left and right margin, px */
#define FG_FRAME_H 16	/* one row */
#define FG_FONT	   12	/* px */
#define FG_TOP	   64	/* title, subtitle, buttons, legend */
#define FG_BOTTOM  30	/* the details line */
#define FG_MIN_W   1.0	/* narrower frames merge with their narrow neighbours */
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

/* CPU time: kernel orange, native red, the .NET runtime red-orange, JIT/managed green,
 * ReadyToRun a bluer green, processes blue.  Off-CPU time: blues, kernel pale, native deep,
 * JIT/managed turquoise, processes violet.  The root grey;
 * the shade varies with the name so that neighbours stay apart. */
static void frame_color(enum flamegraph_palette pal, enum frame_kind k, const char *name, bool root,
			int rgb[3])
{
	uint32_t h = hash_stable32(name); /* the same colours in every version */
	double v1 = (h & 0xff) / 255.0, v2 = (h >> 8 & 0xff) / 255.0, v3 = (h >> 16 & 0xff) / 255.0;
	static const int base[][6] = {
	    /* r lo, r span, g lo, g span, b lo, b span */
	    [FRAME_NATIVE] = {200, 55, 40, 70, 40, 40},
	    [FRAME_KERNEL] = {230, 25, 155, 60, 0, 50},
	    [FRAME_JIT] = {50, 60, 175, 55, 50, 50},
	    [FRAME_PROCESS] = {110, 40, 150, 40, 215, 35},
	    [FRAME_R2R] = {90, 50, 190, 50, 110, 50},
	    [FRAME_RUNTIME] = {210, 45, 105, 50, 80, 40},
	};
	static const int offcpu[][6] = {
	    [FRAME_NATIVE] = {40, 50, 90, 60, 200, 55},
	    [FRAME_KERNEL] = {120, 50, 170, 45, 225, 30},
	    [FRAME_JIT] = {30, 40, 160, 50, 190, 50},
	    [FRAME_PROCESS] = {140, 40, 110, 40, 210, 40},
	    [FRAME_R2R] = {60, 40, 180, 40, 210, 40},
	    [FRAME_RUNTIME] = {70, 40, 120, 50, 220, 35},
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

/* ---- .NET names, short ---- */

/* Where the type before "::" starts: after the last space outside brackets. */
static size_t type_start(const char *name, size_t colons)
{
	int depth = 0;
	for (size_t q = colons; q > 0; q--) {
		char c = name[q - 1];
		if (c == ']' || c == '>')
			depth++;
		else if (c == '[' || c == '<')
			depth--;
		else if (c == ' ' && depth <= 0)
			return q;
	}
	return 0;
}

const char *flamegraph_short_name(const char *name, char *buf, size_t len)
{
	const char *colons = strstr(name, "::");
	const char *paren = colons ? strchr(colons, '(') : NULL;
	if (!colons || !paren || len < 8)
		return name;
	/* Only the runtime's "[ret] [Module] Type::Method(args)[Tier]" layout. */
	size_t ts = type_start(name, (size_t)(colons - name));
	if (ts < 3 || name[ts - 2] != ']')
		return name;
	/* The type without its namespace and generic arguments: "Ns.A`1[Int32]+B" -> "A`1+B";
	 * compiler-made names keep their angle brackets: "HotLoop+<Rounds>d__2". */
	size_t o = 0;
	int square = 0, angle = 0;
	for (const char *p = name + ts; p < colons && o + 1 < len; p++) {
		if (*p == '[')
			square++;
		else if (*p == '<')
			angle++;
		if (!square && !angle && *p == '.')
			o = 0; /* a namespace ends here */
		else if (!square)
			buf[o++] = *p;
		if (*p == ']' && square > 0)
			square--;
		else if (*p == '>' && angle > 0)
			angle--;
	}
	for (const char *p = colons; p < paren && o + 1 < len; p++)
		buf[o++] = *p;
	buf[o] = '\0';
	return o > 2 ? buf : name;
}

/* ---- SVG ---- */

/* Neighbouring frames at one depth, each narrower than FG_MIN_W, drawn as one. */
struct merged {
	uint64_t x, w; /* weight units */
	size_t n;      /* 0: none pending */
};

struct svg {
	FILE *out;
	const struct calltree *t;
	const struct functable *ft;
	const struct flamegraph_opts *o;
	const char *unit;
	double scale; /* px per weight unit */
	size_t max_depth;
	unsigned width, height;
	double max_change;	/* differential: the largest change of share, for the color scale */
	struct merged *pending; /* per depth */
	size_t pending_cap;
};

static bool wide_enough(const struct svg *s, uint32_t node)
{
	return (double)calltree_node(s->t, node)->total * s->scale >= FG_MIN_W;
}

/* Differential: how the node's share of the total changed against the base (fractions). */
static double share_change(const struct svg *s, uint32_t node)
{
	uint64_t total = calltree_total(s->t), base = s->o->base_totals[CALLTREE_ROOT];
	double now = total ? (double)calltree_node(s->t, node)->total / (double)total : 0;
	double before = base ? (double)s->o->base_totals[node] / (double)base : 0;
	return now - before;
}

static bool depth_enter(void *arg, const struct level *path, size_t depth)
{
	struct svg *s = arg;
	if (depth > s->max_depth)
		s->max_depth = depth; /* a narrow frame still takes its row, merged */
	if (s->o->base_totals && depth) {
		double c = share_change(s, path[depth].node);
		if (c < 0)
			c = -c;
		if (c > s->max_change)
			s->max_change = c;
	}
	return wide_enough(s, path[depth].node);
}

static double row_y(const struct svg *s, size_t depth)
{
	return s->height - FG_BOTTOM - (double)(depth + 1) * FG_FRAME_H;
}

static void put_rect(const struct svg *s, double x, double y, double w, const int rgb[3])
{
	fprintf(s->out,
		"</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		"fill=\"rgb(%d,%d,%d)\" rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, FG_FRAME_H - 1, rgb[0], rgb[1], rgb[2], x + 3, y + FG_FRAME_H - 4.5);
}

static void flush_merged(struct svg *s, size_t depth)
{
	struct merged *m = &s->pending[depth];
	if (!m->n)
		return;
	uint64_t total = calltree_total(s->t);
	char ws[32];
	static const int grey[3] = {190, 190, 190};
	fprintf(s->out,
		"<g class=\"f m\" data-s=\"%llu\" data-n=\"%llu\" data-d=\"%zu\"><title>"
		"%zu function%s, each narrower than a pixel at %u px\n%s %s, %.2f%%",
		(unsigned long long)m->x, (unsigned long long)m->w, depth, m->n,
		m->n == 1 ? "" : "s", s->width,
		calltree_weight_str(m->w, s->o->unit_div, ws, sizeof(ws)), s->unit,
		total ? 100.0 * (double)m->w / (double)total : 0.0);
	put_rect(s, FG_PAD + (double)m->x * s->scale, row_y(s, depth), (double)m->w * s->scale,
		 grey);
	fputs("</text></g>\n", s->out);
	m->n = 0;
}

static struct merged *pending_at(struct svg *s, size_t depth)
{
	if (depth >= s->pending_cap) {
		size_t old = s->pending_cap;
		grow_array((void **)&s->pending, &s->pending_cap, depth + 1, sizeof(*s->pending));
		memset(s->pending + old, 0, (s->pending_cap - old) * sizeof(*s->pending));
	}
	return &s->pending[depth];
}

/* Pending merges at depth `from` and deeper are complete. */
static void flush_from(struct svg *s, size_t from)
{
	for (size_t d = from; d < s->pending_cap; d++)
		flush_merged(s, d);
}

/* Red for more, blue for less, white for the same; the strongest change is the deepest. */
static void change_color(const struct svg *s, uint32_t node, int rgb[3])
{
	double c = s->max_change > 0 ? share_change(s, node) / s->max_change : 0;
	int fade = (int)(210 * (1 - (c < 0 ? -c : c)) + 45);
	if (fade > 255)
		fade = 255;
	rgb[0] = c < 0 ? fade : 255;
	rgb[1] = fade;
	rgb[2] = c > 0 ? fade : 255;
}

static void put_hover(const struct svg *s, uint32_t node, const char *name, enum frame_kind kind,
		      bool root)
{
	const struct calltree_node *nd = calltree_node(s->t, node);
	uint64_t total = calltree_total(s->t);
	FILE *out = s->out;
	put_xml(out, name, SIZE_MAX);
	if (!root && kind == FRAME_PROCESS) {
		fputs("\nprocess", out);
	} else if (!root) {
		const char *dso = functable_dso(s->ft, nd->func);
		if (*dso || !s->o->base_totals) {
			putc('\n', out);
			put_xml(out, *dso ? dso : "[unknown]", SIZE_MAX);
			fprintf(out, " (%s)", frame_kind_name(kind));
		}
	}
	char ws[32];
	fprintf(out, "\n%s %s, %.2f%%",
		calltree_weight_str(nd->total, s->o->unit_div, ws, sizeof(ws)), s->unit,
		total ? 100.0 * (double)nd->total / (double)total : 0.0);
	if (nd->self && nd->self != nd->total)
		fprintf(out, " (self %s, %.2f%%)",
			calltree_weight_str(nd->self, s->o->unit_div, ws, sizeof(ws)),
			100.0 * (double)nd->self / (double)total);
	if (s->o->base_totals) {
		uint64_t base = s->o->base_totals[CALLTREE_ROOT], b = s->o->base_totals[node];
		fprintf(out, "\nin %s: ", s->o->base_name ? s->o->base_name : "the base");
		put_xml(out, calltree_weight_str(b, s->o->unit_div, ws, sizeof(ws)), SIZE_MAX);
		fprintf(out, " %s, %.2f%%; change %+.2f points", s->unit,
			base ? 100.0 * (double)b / (double)base : 0.0,
			100.0 * share_change(s, node));
	}
}

static bool svg_enter(void *arg, const struct level *path, size_t depth)
{
	struct svg *s = arg;
	const struct level *l = &path[depth];
	const struct calltree_node *nd = calltree_node(s->t, l->node);
	flush_from(s, depth + 1);
	if (!wide_enough(s, l->node)) {
		struct merged *m = pending_at(s, depth);
		if (m->n && m->x + m->w != l->x)
			flush_merged(s, depth);
		if (!m->n)
			*m = (struct merged){.x = l->x};
		m->w += nd->total;
		m->n++;
		return false;
	}
	flush_from(s, depth);
	bool root = l->node == CALLTREE_ROOT;
	const char *name = root ? "all" : functable_name(s->ft, nd->func);
	enum frame_kind kind = root ? FRAME_NATIVE : functable_kind(s->ft, nd->func);
	char shortbuf[512];
	const char *label = frame_kind_managed(kind)
				? flamegraph_short_name(name, shortbuf, sizeof(shortbuf))
				: name;
	double x = FG_PAD + (double)l->x * s->scale, w = (double)nd->total * s->scale;
	int rgb[3];
	if (s->o->base_totals && !root)
		change_color(s, l->node, rgb);
	else
		frame_color(s->o->palette, kind, name, root, rgb);

	fprintf(s->out, "<g class=\"f\" data-s=\"%llu\" data-n=\"%llu\" data-d=\"%zu\"",
		(unsigned long long)l->x, (unsigned long long)nd->total, depth);
	if (label != name) {
		fputs(" data-l=\"", s->out);
		put_xml(s->out, label, SIZE_MAX);
		putc('"', s->out);
	}
	fputs("><title>", s->out);
	put_hover(s, l->node, name, kind, root);
	put_rect(s, x, row_y(s, depth), w, rgb);
	double fit = w / (FG_FONT * FG_CHAR_W);
	if (fit >= 3)
		put_xml(s->out, label, (size_t)fit);
	fputs("</text></g>\n", s->out);
	return true;
}

static void legend(FILE *out, const struct flamegraph_opts *o, unsigned x, unsigned y)
{
	static const struct {
		enum frame_kind k;
		const char *what;
	} items[] = {{FRAME_KERNEL, "kernel"},	      {FRAME_NATIVE, "native"},
		     {FRAME_RUNTIME, ".NET runtime"}, {FRAME_JIT, "JIT/managed"},
		     {FRAME_R2R, "ReadyToRun"},	      {FRAME_PROCESS, "process"}};
	static const struct {
		int rgb[3];
		const char *what;
	} diff_items[] = {{{255, 45, 45}, "more than in the base"},
			  {{45, 45, 255}, "less"},
			  {{255, 255, 255}, "the same share"}};
	if (o->base_totals) {
		for (size_t i = 0; i < ARRAY_SIZE(diff_items); i++) {
			const int *c = diff_items[i].rgb;
			fprintf(out,
				"<rect x=\"%u\" y=\"%u\" width=\"10\" height=\"10\" "
				"fill=\"rgb(%d,%d,%d)\" stroke=\"rgb(150,150,150)\"/>"
				"<text x=\"%u\" y=\"%u\">%s</text>\n",
				x, y - 9, c[0], c[1], c[2], x + 14, y, diff_items[i].what);
			x += 24 + (unsigned)strlen(diff_items[i].what) * 7;
		}
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(items); i++) {
		int rgb[3];
		frame_color(o->palette, items[i].k, "", false, rgb);
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
			.width = o->width >= 200 ? o->width
				 : o->width	 ? 200
						 : 1200};
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
		"g.m rect { fill-opacity: 0.8; }\n"
		".title { font-size: 17px; text-anchor: middle; }\n"
		".sub { text-anchor: middle; fill: rgb(80,80,80); }\n"
		".button { cursor: pointer; fill: rgb(0,0,160); }\n"
		".on { font-weight: bold; text-decoration: underline; }\n"
		"</style>\n",
		FG_FONT);
	fprintf(out,
		"<script type=\"text/ecmascript\"><![CDATA[\n"
		"var WIDTH = %u, HEIGHT = %u, PAD = %d, FONT = %d, CHAR_W = %g;\n%s]]></script>\n",
		s.width, s.height, FG_PAD, FG_FONT, FG_CHAR_W, flamegraph_script);
	fprintf(out,
		"<rect id=\"bg\" x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" "
		"fill=\"rgb(250,250,245)\"/>\n",
		s.width, s.height);
	fprintf(out, "<text id=\"title\" class=\"title\" x=\"%u\" y=\"22\">", s.width / 2);
	put_xml(out, o->title ? o->title : "Flame Graph", SIZE_MAX);
	fputs("</text>\n", out);
	if (o->subtitle) {
		fprintf(out, "<text id=\"subtitle\" class=\"sub\" x=\"%u\" y=\"40\">", s.width / 2);
		put_xml(out, o->subtitle, SIZE_MAX);
		fputs("</text>\n", out);
	}
	fprintf(out,
		"<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"22\" style=\"display:none\">"
		"Reset zoom</text>\n"
		"<text id=\"search\" class=\"button\" x=\"%u\" y=\"22\" "
		"style=\"text-anchor:end\">Search</text>\n"
		"<text id=\"ic\" class=\"button\" x=\"%u\" y=\"22\" style=\"text-anchor:end\">"
		"<title>case-insensitive search (on when underlined)</title>ic</text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%u\" style=\"text-anchor:end\"> </text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n",
		FG_PAD, s.width - FG_PAD, s.width - FG_PAD - 90, s.width - FG_PAD, s.height - 10,
		FG_PAD, s.height - 10);
	legend(out, o, FG_PAD, 58);
	if (total) {
		walk(t, svg_enter, &s);
		flush_from(&s, 0);
	}
	fputs("</svg>\n", out);
	free(s.pending);
	return finish(out);
}
