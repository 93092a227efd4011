/* report: see report.h. */
#include "report.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* "samples" -> "Samples", for column headings; a short unit ("ms") stays as it is. */
static const char *heading(const char *unit, char *buf, size_t len)
{
	snprintf(buf, len, "%s", unit);
	if (strlen(buf) > 2)
		buf[0] = (char)toupper((unsigned char)buf[0]);
	return buf;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static int finish(FILE *out)
{
	if (fflush(out) || ferror(out))
		return pc_err_errno("cannot write the report");
	return 0;
}

/* perf's markers: [k] kernel, [.] user; and [j] for JIT/managed code. */
static const char *kind_marker(enum frame_kind k)
{
	return k == FRAME_KERNEL ? "[k]" : frame_kind_managed(k) ? "[j]" : "[.]";
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b && b[1] ? b + 1 : path;
}

struct printer {
	FILE *out;
	const struct calltree *t;
	const struct functable *ft;
	uint64_t base;
	double limit;
	const struct report_opts *o;
	char *prefix; /* the columns to the left of the current level */
	size_t len, cap;
};

static bool shown(const struct printer *p, uint64_t w)
{
	return w && pct(w, p->base) >= p->limit;
}

static void prefix_push(struct printer *p, char first, size_t spaces)
{
	grow_array((void **)&p->prefix, &p->cap, p->len + spaces + 2, 1);
	p->prefix[p->len++] = first;
	memset(p->prefix + p->len, ' ', spaces);
	p->len += spaces;
	p->prefix[p->len] = '\0';
}

/* Children of `node` that pass the limit, heaviest first. */
static size_t kept_children(const struct printer *p, uint32_t node, uint32_t **kids, size_t *cap)
{
	size_t n = calltree_children(p->t, node, CALLTREE_BY_TOTAL, kids, cap), k = 0;
	for (size_t i = 0; i < n; i++)
		if (shown(p, calltree_node(p->t, (*kids)[i])->total))
			(*kids)[k++] = (*kids)[i];
	return k;
}

static void print_children(struct printer *p, uint32_t node)
{
	uint32_t *kids = NULL;
	size_t cap = 0, n;
	/* A chain where the whole weight goes on to one child: one name per line. */
	while ((n = kept_children(p, node, &kids, &cap)) == 1 &&
	       calltree_node(p->t, kids[0])->total == calltree_node(p->t, node)->total) {
		node = kids[0];
		fprintf(p->out, "%s%s\n", p->prefix,
			functable_name(p->ft, calltree_node(p->t, node)->func));
	}
	for (size_t i = 0; i < n; i++) {
		const struct calltree_node *c = calltree_node(p->t, kids[i]);
		bool last = i + 1 == n;
		char label[80], w[32];
		int ll = snprintf(label, sizeof(label), "%s--%.2f%% [%s]--", last ? " " : "|",
				  pct(c->total, p->base),
				  calltree_weight_str(c->total, p->o->unit_div, w, sizeof(w)));
		fprintf(p->out, "%s|\n%s%s%s\n", p->prefix, p->prefix, label,
			functable_name(p->ft, c->func));
		size_t saved = p->len;
		prefix_push(p, last ? ' ' : '|', (size_t)ll - 1);
		print_children(p, kids[i]);
		p->len = saved;
		p->prefix[p->len] = '\0';
	}
	free(kids);
}

int report_tree(FILE *out, const struct calltree *t, const struct report_opts *o)
{
	struct printer p = {.out = out,
			    .t = t,
			    .ft = calltree_functable(t),
			    .base = calltree_total(t),
			    .limit = o->percent_limit,
			    .o = o};
	uint32_t *entries = NULL;
	size_t cap = 0, hidden = 0;
	uint64_t hidden_w = 0;
	size_t n = calltree_children(t, CALLTREE_ROOT, CALLTREE_BY_TOTAL, &entries, &cap);
	char h[32], w[32];
	fprintf(out, "# %8s  %10s  %s\n", "Overhead", heading(o->unit, h, sizeof(h)),
		"Symbol  (shared object)");
	for (size_t i = 0; i < n; i++) {
		const struct calltree_node *e = calltree_node(t, entries[i]);
		if (!shown(&p, e->total)) {
			hidden++;
			hidden_w += e->total;
			continue;
		}
		const char *name = functable_name(p.ft, e->func);
		const char *dso = functable_dso(p.ft, e->func);
		fprintf(out, "\n%9.2f%%  %10s  %s %s  (%s)\n", pct(e->total, p.base),
			calltree_weight_str(e->total, o->unit_div, w, sizeof(w)),
			kind_marker(functable_kind(p.ft, e->func)), name,
			*dso ? base_name(dso) : "[unknown]");
		fprintf(out, "            |\n            ---%s\n", name);
		p.len = 0;
		prefix_push(&p, ' ', 14);
		print_children(&p, entries[i]);
	}
	if (hidden)
		fprintf(out, "\n# %zu more entr%s under %.2g%%: %s %s (%.2f%%)\n", hidden,
			hidden == 1 ? "y" : "ies", o->percent_limit,
			calltree_weight_str(hidden_w, o->unit_div, w, sizeof(w)), o->unit,
			pct(hidden_w, p.base));
	free(entries);
	free(p.prefix);
	return finish(out);
}

struct ranked {
	const uint64_t *self, *incl;
	const struct functable *ft;
	bool by_incl;
};

static int rank_cmp(const void *a, const void *b, void *arg)
{
	const struct ranked *r = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t kx = r->by_incl ? r->incl[x] : r->self[x],
		 ky = r->by_incl ? r->incl[y] : r->self[y];
	if (kx != ky)
		return kx > ky ? -1 : 1;
	uint64_t sx = r->by_incl ? r->self[x] : r->incl[x],
		 sy = r->by_incl ? r->self[y] : r->incl[y];
	if (sx != sy)
		return sx > sy ? -1 : 1;
	int c = strcmp(functable_name(r->ft, x), functable_name(r->ft, y));
	return c ? c : (x > y) - (x < y);
}

static void top_table(FILE *out, const struct calltree *t, const struct report_opts *o,
		      struct ranked *r, uint32_t *ids, size_t n)
{
	uint64_t base = calltree_total(t);
	qsort_r(ids, n, sizeof(*ids), rank_cmp, r);
	fprintf(out, "\n# Top functions by %s %s\n", r->by_incl ? "inclusive" : "self", o->unit);
	fprintf(out, "# %7s  %10s  %7s  %10s  %s\n", "Self%", "Self", "Incl%", "Incl",
		"Symbol  (shared object)");
	size_t shown = 0;
	for (size_t i = 0; i < n && shown < o->top; i++) {
		uint32_t f = ids[i];
		uint64_t key = r->by_incl ? r->incl[f] : r->self[f];
		if (!key)
			break;
		const char *dso = functable_dso(r->ft, f);
		char ws[32], wi[32];
		fprintf(out, "%8.2f%%  %10s  %6.2f%%  %10s  %s %s  (%s)\n", pct(r->self[f], base),
			calltree_weight_str(r->self[f], o->unit_div, ws, sizeof(ws)),
			pct(r->incl[f], base),
			calltree_weight_str(r->incl[f], o->unit_div, wi, sizeof(wi)),
			kind_marker(functable_kind(r->ft, f)), functable_name(r->ft, f),
			*dso ? base_name(dso) : "[unknown]");
		shown++;
	}
}

int report_top_functions(FILE *out, const struct calltree *t, const struct report_opts *o)
{
	const struct functable *ft = calltree_functable(t);
	uint64_t *self, *incl;
	calltree_func_weights(t, &self, &incl);
	size_t nf = functable_count(ft), n = 0;
	uint32_t *ids = xmalloc((nf ? nf : 1) * sizeof(*ids));
	for (uint32_t f = 0; f < nf; f++)
		if (incl[f] && functable_kind(ft, f) != FRAME_PROCESS)
			ids[n++] = f;
	struct ranked r = {.self = self, .incl = incl, .ft = ft};
	top_table(out, t, o, &r, ids, n);
	r.by_incl = true;
	top_table(out, t, o, &r, ids, n);
	free(ids);
	free(self);
	free(incl);
	return finish(out);
}

int report_processes(FILE *out, const struct calltree *t, const struct report_opts *o)
{
	const struct functable *ft = calltree_functable(t);
	uint32_t *kids = NULL;
	size_t cap = 0, n = calltree_children(t, CALLTREE_ROOT, CALLTREE_BY_TOTAL, &kids, &cap);
	/* Heaviest first: those without weight (stacks whose weight never came) are last. */
	while (n && !calltree_node(t, kids[n - 1])->total)
		n--;
	uint64_t base = calltree_total(t);
	char h[32], w[32];
	heading(o->unit, h, sizeof(h));
	fprintf(out, "\n# %s by command\n# %7s  %10s  %s\n", h, "%", h, "Command");
	for (size_t i = 0; i < n && i < o->top; i++) {
		const struct calltree_node *c = calltree_node(t, kids[i]);
		fprintf(out, "%8.2f%%  %10s  %s\n", pct(c->total, base),
			calltree_weight_str(c->total, o->unit_div, w, sizeof(w)),
			functable_name(ft, c->func));
	}
	if (n > o->top)
		fprintf(out, "# ... and %zu more commands\n", n - o->top);
	free(kids);
	return finish(out);
}

/* ---- perf report --sort ---- */

enum sort_key { KEY_COMM, KEY_DSO, KEY_SYM };

struct sort_row {
	const char *field[3]; /* by sort_key; NULL when not a key */
	uint64_t w;
	enum frame_kind kind; /* of the symbol, for perf's marker */
};

static int parse_keys(const char *keys, enum sort_key *k, size_t *n)
{
	static const struct {
		const char *name;
		enum sort_key key;
	} known[] = {{"comm", KEY_COMM}, {"dso", KEY_DSO}, {"sym", KEY_SYM}, {"symbol", KEY_SYM}};
	*n = 0;
	char *list = xstrdup(keys), *save = NULL;
	int rc = 0;
	for (char *w = strtok_r(list, ",", &save); w && !rc; w = strtok_r(NULL, ",", &save)) {
		size_t i = 0;
		while (i < ARRAY_SIZE(known) && strcmp(known[i].name, w))
			i++;
		if (i == ARRAY_SIZE(known))
			rc = pc_err("--sort %s: this report groups by comm, dso and sym only", w);
		else if (*n < 3)
			k[(*n)++] = known[i].key;
	}
	free(list);
	if (!rc && !*n)
		rc = pc_err("--sort needs keys (comm, dso, sym)");
	return rc;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct sort_row *x = a, *y = b;
	for (int i = 0; i < 3; i++) {
		if (!x->field[i])
			continue;
		int c = strcmp(x->field[i], y->field[i]);
		if (c)
			return c;
	}
	return 0;
}

static int cmp_weight(const void *a, const void *b)
{
	const struct sort_row *x = a, *y = b;
	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return cmp_rows(a, b);
}

int report_sorted(FILE *out, const struct calltree *t, const char *keys,
		  const struct report_opts *o)
{
	enum sort_key k[3];
	size_t nk;
	if (parse_keys(keys, k, &nk) < 0)
		return -1;
	const struct functable *ft = calltree_functable(t);
	struct sort_row *rows = NULL;
	size_t n = 0, cap = 0;
	for (uint32_t i = 1; i < calltree_count(t); i++) {
		const struct calltree_node *nd = calltree_node(t, i);
		if (!nd->self || nd->depth < 2)
			continue;
		uint32_t proc = i;
		while (calltree_node(t, proc)->depth > 1)
			proc = calltree_node(t, proc)->parent;
		const char *dso = functable_dso(ft, nd->func);
		const char *val[3] = {functable_name(ft, calltree_node(t, proc)->func),
				      *dso ? base_name(dso) : "[unknown]",
				      functable_name(ft, nd->func)};
		grow_array((void **)&rows, &cap, n + 1, sizeof(*rows));
		struct sort_row *r = &rows[n++];
		memset(r, 0, sizeof(*r));
		for (size_t j = 0; j < nk; j++)
			r->field[k[j]] = val[k[j]];
		r->w = nd->self;
		r->kind = functable_kind(ft, nd->func);
	}
	/* Group equal keys, then heaviest first. */
	qsort(rows, n, sizeof(*rows), cmp_rows);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !cmp_rows(&rows[m - 1], &rows[i]))
			rows[m - 1].w += rows[i].w;
		else
			rows[m++] = rows[i];
	}
	qsort(rows, m, sizeof(*rows), cmp_weight);
	static const char *const heads[] = {"Command", "Shared Object", "Symbol"};
	int width[3] = {0, 0, 0};
	for (size_t j = 0; j < nk; j++)
		width[k[j]] = (int)strlen(heads[k[j]]);
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j + 1 < nk; j++) {
			int l = (int)strlen(rows[i].field[k[j]]) + (k[j] == KEY_SYM ? 4 : 0);
			if (l > width[k[j]] && l < 60)
				width[k[j]] = l;
		}
	char h[32], w[32];
	uint64_t base = calltree_total(t);
	fprintf(out, "\n# Self %s by %s (perf report --sort %s)\n# %8s  %10s", o->unit, keys, keys,
		"Overhead", heading(o->unit, h, sizeof(h)));
	for (size_t j = 0; j < nk; j++)
		fprintf(out, "  %-*s", j + 1 < nk ? width[k[j]] : 0, heads[k[j]]);
	fputc('\n', out);
	for (size_t i = 0; i < m; i++) {
		if (pct(rows[i].w, base) < o->percent_limit)
			break;
		fprintf(out, "%9.2f%%  %10s", pct(rows[i].w, base),
			calltree_weight_str(rows[i].w, o->unit_div, w, sizeof(w)));
		for (size_t j = 0; j < nk; j++)
			fprintf(out, "  %s%s%-*s", k[j] == KEY_SYM ? kind_marker(rows[i].kind) : "",
				k[j] == KEY_SYM ? " " : "",
				j + 1 < nk ? width[k[j]] - (k[j] == KEY_SYM ? 4 : 0) : 0,
				rows[i].field[k[j]]);
		fputc('\n', out);
	}
	free(rows);
	return finish(out);
}
