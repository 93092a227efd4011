/* cli: see cli.h. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xcalloc(lb + 1, sizeof(*row));
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = (a[i - 1] | 0x20) == (b[j - 1] | 0x20) ? 0 : 1;
			size_t v = diag + cost;
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

static const struct cli_opt *find_opt(const struct cli_opt *opts, const char *name, size_t len)
{
	for (const struct cli_opt *o = opts; o->name; o++)
		if (strlen(o->name) == len && !strncasecmp(o->name, name, len))
			return o;
	if (len == 1)
		for (const struct cli_opt *o = opts; o->name; o++)
			if (o->short_name && o->short_name == name[0])
				return o;
	return NULL;
}

static void unknown(const char *cmd, const struct cli_opt *opts, const char *word)
{
	const char *name = word;
	while (*name == '-')
		name++;
	char *bare = xstrndup(name, strcspn(name, "="));
	const struct cli_opt *best = NULL;
	size_t best_d = (size_t)-1;
	for (const struct cli_opt *o = opts; o->name; o++) {
		size_t d = edit_distance(bare, o->name);
		if (d < best_d) {
			best_d = d;
			best = o;
		}
	}
	if (best && best_d <= 3)
		fprintf(stderr,
			"perfcollect-c %s: unknown option '%s'; did you mean '-%s'? (see "
			"'perfcollect-c %s --help')\n",
			cmd, word, best->name, cmd);
	else
		fprintf(stderr,
			"perfcollect-c %s: unknown option '%s' (see 'perfcollect-c %s --help')\n",
			cmd, word, cmd);
	free(bare);
}

static int set_value(const char *cmd, const struct cli_opt *o, const char *val)
{
	switch (o->kind) {
	case CLI_FLAG:
		*(bool *)o->dest = true;
		return 0;
	case CLI_STR:
		*(const char **)o->dest = val;
		return 0;
	case CLI_INT: {
		long v;
		if (parse_int(val, 0, 1L << 40, &v) < 0)
			break;
		*(long *)o->dest = v;
		return 0;
	}
	case CLI_SIZE:
		if (parse_size(val, (uint64_t *)o->dest) < 0)
			break;
		return 0;
	case CLI_LIST: {
		struct cli_list *l = o->dest;
		grow_array((void **)&l->items, &l->cap, l->n + 1, sizeof(*l->items));
		l->items[l->n++] = val;
		return 0;
	}
	case CLI_DOUBLE: {
		char *end;
		errno = 0;
		double v = strtod(val, &end);
		if (errno || end == val || *end || !isfinite(v) || v < 0) {
			pc_err("'%s' is not a number >= 0 (e.g. 10 or 0.5)", val);
			break;
		}
		*(double *)o->dest = v;
		return 0;
	}
	}
	fprintf(stderr, "perfcollect-c %s: -%s: %s\n", cmd, o->name, pc_strerror());
	return -1;
}

/* Every option of perfcollect's parser (ProcessArguments): its name, and whether it takes
 * the next word as its value. */
static const struct {
	const char *name;
	bool value;
} perfcollect_opts[] = {
    {"pid", true},	  {"processfilter", true}, {"graphtype", true}, {"threadtime", false},
    {"offcpu", false},	  {"system", false},	   {"hwevents", false}, {"perfopt", true},
    {"viewer", true},	  {"nolttng", false},	   {"noperf", false},	{"gccollectonly", false},
    {"gconly", false},	  {"gcwithheap", false},   {"events", true},	{"rawevents", true},
    {"collectsec", true}, {"buffersize", true},
};

struct notes {
	char **line;
	size_t n, cap;
};

static void note(struct notes *ns, char *line)
{
	grow_array((void **)&ns->line, &ns->cap, ns->n + 1, sizeof(*ns->line));
	ns->line[ns->n++] = line;
}

/* One of perfcollect's options that this verb does not use: taken as perfcollect took it. */
static int take_ignored(const char *cmd, const char *name, size_t len, int argc, char **argv,
			int *i, struct notes *ns)
{
	for (size_t k = 0; k < ARRAY_SIZE(perfcollect_opts); k++) {
		const char *pn = perfcollect_opts[k].name;
		if (strlen(pn) != len || strncasecmp(pn, name, len))
			continue;
		const char *val = NULL;
		if (name[len] == '=')
			val = name + len + 1;
		else if (perfcollect_opts[k].value && *i + 1 < argc)
			val = argv[++*i];
		else if (perfcollect_opts[k].value) {
			fprintf(stderr, "perfcollect-c %s: -%s needs a value\n", cmd, pn);
			return -1;
		}
		/* perfcollect refused a viewer other than these on every verb. */
		if (!strcmp(pn, "viewer") && strcasecmp(val, "perf") && strcasecmp(val, "lttng")) {
			fprintf(stderr,
				"perfcollect-c %s: -viewer is perf or lttng (as perfcollect's), "
				"not '%s'\n",
				cmd, val);
			return -1;
		}
		note(ns, xasprintf("-%s%s%s: ignored: %s does not use it (perfcollect's %s took it "
				   "and ignored it too)",
				   pn, val ? " " : "", val ? val : "", cmd, cmd));
		return 1;
	}
	return 0;
}

static int parse(const char *cmd, const struct cli_opt *opts, int argc, char **argv,
		 const char **pos, int max_pos, int *npos, bool *help, struct notes *ns)
{
	*npos = 0;
	*help = false;
	bool only_pos = false;
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		if (only_pos || w[0] != '-' || !w[1]) {
			if (*npos >= max_pos) {
				fprintf(stderr, "perfcollect-c %s: unexpected argument '%s'\n", cmd,
					w);
				return -1;
			}
			pos[(*npos)++] = w;
			continue;
		}
		if (!strcmp(w, "--")) {
			only_pos = true;
			continue;
		}
		const char *name = w + 1 + (w[1] == '-');
		if (!strcasecmp(name, "h") || !strcasecmp(name, "help") || !strcmp(name, "?")) {
			*help = true;
			continue;
		}
		size_t len = strcspn(name, "=");
		const struct cli_opt *o = find_opt(opts, name, len);
		if (!o) {
			int t = ns ? take_ignored(cmd, name, len, argc, argv, &i, ns) : 0;
			if (t < 0)
				return -1;
			if (t > 0)
				continue;
			unknown(cmd, opts, w);
			return -1;
		}
		const char *val = NULL;
		if (name[len] == '=') {
			if (o->kind == CLI_FLAG) {
				fprintf(stderr, "perfcollect-c %s: -%s takes no value\n", cmd,
					o->name);
				return -1;
			}
			val = name + len + 1;
		} else if (o->kind != CLI_FLAG) {
			if (i + 1 >= argc) {
				fprintf(stderr, "perfcollect-c %s: -%s needs a value (%s)\n", cmd,
					o->name, o->arg ? o->arg : "VALUE");
				return -1;
			}
			val = argv[++i];
		}
		if (set_value(cmd, o, val) < 0)
			return -1;
	}
	return 0;
}

int cli_parse(const char *cmd, const struct cli_opt *opts, int argc, char **argv, const char **pos,
	      int max_pos, int *npos, bool *help)
{
	return parse(cmd, opts, argc, argv, pos, max_pos, npos, help, NULL);
}

int cli_parse_perfcollect(const char *cmd, const struct cli_opt *opts, int argc, char **argv,
			  const char **pos, int max_pos, int *npos, bool *help)
{
	struct notes ns = {0};
	int rc = parse(cmd, opts, argc, argv, pos, max_pos, npos, help, &ns);
	const struct cli_opt *v = find_opt(opts, "verbose", strlen("verbose"));
	bool verbose = v && v->kind == CLI_FLAG && *(bool *)v->dest;
	for (size_t i = 0; i < ns.n; i++) {
		if (rc == 0 && verbose && !*help)
			fprintf(stderr, "perfcollect-c %s: %s\n", cmd, ns.line[i]);
		free(ns.line[i]);
	}
	free(ns.line);
	return rc;
}

void cli_print_options(FILE *f, const struct cli_opt *opts)
{
	for (const struct cli_opt *o = opts; o->name; o++) {
		char left[64];
		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, -%s%s%s", o->short_name, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "-%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		fprintf(f, "  %-26s %s\n", left, o->help);
	}
}

int cli_symbols_opts(const char *cmd, struct cli_symbols *sc, struct symsrv_opts *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < sc->servers.n; i++) {
		const char *u = sc->servers.items[i];
		if (strncasecmp(u, "http://", 7) && strncasecmp(u, "https://", 8)) {
			fprintf(stderr,
				"perfcollect-c %s: -symbolserver %s: give an http:// or https:// "
				"URL (e.g. https://msdl.microsoft.com/download/symbols)\n",
				cmd, u);
			return -1;
		}
	}
	if (sc->timeout && symsrv_parse_timeout(sc->timeout, &out->timeout_s) < 0) {
		fprintf(stderr, "perfcollect-c %s: -symboltimeout: %s\n", cmd, pc_strerror());
		return -1;
	}
	if (sc->off && sc->servers.n) {
		fprintf(stderr,
			"perfcollect-c %s: -nosymbolserver asks no server; it does not go "
			"with -symbolserver\n",
			cmd);
		return -1;
	}
	out->servers = sc->servers.items;
	out->nservers = sc->servers.n;
	out->off = sc->off;
	out->cache_dir = sc->cache;
	return 0;
}
