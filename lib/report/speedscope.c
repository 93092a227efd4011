/* speedscope: see speedscope.h. */
#include "speedscope.h"
#include "base/json.h"

#include <stdlib.h>
#include <string.h>

struct writer {
	FILE *out;
	const struct calltree *t;
	const struct functable *ft;
	const struct speedscope_opts *o;
	int64_t *frame_of; /* function id -> index in shared.frames, -1 if not yet */
	size_t nframes;
	uint32_t *path;
	size_t path_cap;
	uint32_t *proc_of; /* node -> its ancestor at depth 1 (its process); ROOT for the root */
};

static bool is_process(const struct writer *w, const struct calltree_node *nd)
{
	return nd->depth == 1 && functable_kind(w->ft, nd->func) == FRAME_PROCESS;
}

static void write_frames(struct writer *w)
{
	size_t nf = functable_count(w->ft);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"shared\":{\"frames\":[",
	      w->out);
	for (uint32_t i = 1; i < calltree_count(w->t); i++) {
		uint32_t f = calltree_node(w->t, i)->func;
		if (f >= nf || w->frame_of[f] >= 0)
			continue;
		w->frame_of[f] = (int64_t)w->nframes++;
		fputs(w->nframes > 1 ? ",\n{\"name\":" : "\n{\"name\":", w->out);
		json_put_string(w->out, functable_name(w->ft, f), 0);
		const char *dso = functable_dso(w->ft, f);
		if (*dso && functable_kind(w->ft, f) != FRAME_PROCESS) {
			fputs(",\"file\":", w->out);
			json_put_string(w->out, dso, 0);
		}
		putc('}', w->out);
	}
	fputs("]},\n", w->out);
}

static double weight_of(const struct writer *w, uint64_t x)
{
	return w->o->unit_div > 1 ? (double)x / (double)w->o->unit_div : (double)x;
}

/* Does node i's stack belong in the profile of top (a process node, or ROOT for all)? */
static bool in_profile(const struct writer *w, uint32_t i, uint32_t top)
{
	return calltree_node(w->t, i)->self && (top == CALLTREE_ROOT || w->proc_of[i] == top) &&
	       i != top;
}

/* One profile of the stacks under `top` (a process node), or of all stacks (top = ROOT, the
 * process kept as the outermost frame). */
static void write_profile(struct writer *w, uint32_t top, bool first)
{
	const struct calltree_node *tn = calltree_node(w->t, top);
	fputs(first ? "\n{" : ",\n{", w->out);
	fputs("\"type\":\"sampled\",\"name\":", w->out);
	char *name = top == CALLTREE_ROOT
			 ? xasprintf("all processes: %.15g %s", weight_of(w, tn->total), w->o->what)
			 : xasprintf("%s: %.15g %s", functable_name(w->ft, tn->func),
				     weight_of(w, tn->total), w->o->what);
	json_put_string(w->out, name, 0);
	free(name);
	fprintf(w->out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%.15g,\"samples\":[",
		w->o->unit, weight_of(w, tn->total));
	size_t n = 0;
	for (uint32_t i = 1; i < calltree_count(w->t); i++) {
		if (!in_profile(w, i, top))
			continue;
		size_t len = 0;
		for (uint32_t at = i; at != top && at != CALLTREE_ROOT;
		     at = calltree_node(w->t, at)->parent) {
			grow_array((void **)&w->path, &w->path_cap, len + 1, sizeof(*w->path));
			w->path[len++] = calltree_node(w->t, at)->func;
		}
		fputs(n++ ? ",[" : "[", w->out);
		for (size_t k = len; k-- > 0;)
			fprintf(w->out, "%lld%s", (long long)w->frame_of[w->path[k]], k ? "," : "");
		putc(']', w->out);
	}
	fputs("],\"weights\":[", w->out);
	n = 0;
	for (uint32_t i = 1; i < calltree_count(w->t); i++)
		if (in_profile(w, i, top))
			fprintf(w->out, "%s%.15g", n++ ? "," : "",
				weight_of(w, calltree_node(w->t, i)->self));
	fputs("]}", w->out);
}

int speedscope_write(FILE *out, const struct calltree *t, const struct speedscope_opts *o)
{
	struct writer w = {.out = out, .t = t, .ft = calltree_functable(t), .o = o};
	size_t nf = functable_count(w.ft);
	w.frame_of = xmalloc((nf ? nf : 1) * sizeof(*w.frame_of));
	memset(w.frame_of, 0xff, (nf ? nf : 1) * sizeof(*w.frame_of));
	size_t nn = calltree_count(t);
	w.proc_of = xcalloc(nn, sizeof(*w.proc_of));
	/* A parent is always added before its children: one pass in node order. */
	for (uint32_t i = 1; i < nn; i++) {
		const struct calltree_node *nd = calltree_node(t, i);
		w.proc_of[i] = nd->depth == 1 ? i : w.proc_of[nd->parent];
	}
	write_frames(&w);
	fputs("\"profiles\":[", out);
	write_profile(&w, CALLTREE_ROOT, true);
	uint32_t *kids = NULL;
	size_t cap = 0, nk = calltree_children(t, CALLTREE_ROOT, CALLTREE_BY_TOTAL, &kids, &cap);
	for (size_t i = 0; i < nk; i++)
		if (is_process(&w, calltree_node(t, kids[i])) && calltree_node(t, kids[i])->total)
			write_profile(&w, kids[i], false);
	free(kids);
	fputs("],\n\"name\":", out);
	json_put_string(out, o->name ? o->name : "perfcollect-c", 0);
	fprintf(out, ",\"activeProfileIndex\":0,\"exporter\":\"perfcollect-c %s\"}\n", PC_VERSION);
	free(w.frame_of);
	free(w.path);
	free(w.proc_of);
	if (fflush(out) || ferror(out))
		return pc_err_errno("cannot write the speedscope file");
	return 0;
}
