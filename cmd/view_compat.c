/* view_compat: perfcollect's own `view` options, which pass through to tools perfcollect-c does
 * not use: -perfopt (extra `perf report` options) and -viewer lttng (babeltrace over the LTTng
 * runtime events).  Each does here what it meant there, or says why it cannot. */
#include "view_compat.h"
#include "base/archive.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* `--name=value`, `--name value`, `-x value`, `-xvalue`: the value of option word i, or NULL
 * when word i is not that option.  *i moves past a separate value. */
static const char *take(char **w, size_t n, size_t *i, const char *lng, const char *shrt)
{
	size_t ll = strlen(lng);
	if (!strncmp(w[*i], lng, ll) && w[*i][ll] == '=')
		return w[*i] + ll + 1;
	if (!strcmp(w[*i], lng) || (shrt && !strcmp(w[*i], shrt)))
		return *i + 1 < n ? w[++*i] : "";
	if (shrt && !strncmp(w[*i], shrt, strlen(shrt)) && w[*i][strlen(shrt)])
		return w[*i] + strlen(shrt);
	return NULL;
}

static void keep(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

int perfopt_parse(const char *s, struct perfopt *po)
{
	memset(po, 0, sizeof(*po));
	po->pid = po->tid = -1;
	/* Split at blanks, as the shell did for perfcollect's unquoted $perfOpt. */
	char *copy = xstrdup(s), *save = NULL;
	char **w = NULL;
	size_t n = 0, cap = 0;
	for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		grow_array((void **)&w, &cap, n + 1, sizeof(*w));
		w[n++] = t;
	}
	char *ignored = xstrdup("");
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const char *v;
		if ((v = take(w, n, &i, "--sort", "-s")))
			keep(&po->sort, v);
		else if ((v = take(w, n, &i, "--percent-limit", NULL)))
			keep(&po->percent_limit, v);
		else if ((v = take(w, n, &i, "--comms", "-c")) ||
			 (v = take(w, n, &i, "--comm", NULL)))
			keep(&po->comms, v);
		else if ((v = take(w, n, &i, "--pid", NULL)))
			rc = parse_int(v, 1, INT32_MAX, &po->pid);
		else if ((v = take(w, n, &i, "--tid", NULL)))
			rc = parse_int(v, 1, INT32_MAX, &po->tid);
		else if ((v = take(w, n, &i, "--call-graph", "-g")) ||
			 (v = take(w, n, &i, "-G", NULL))) {
			/* perf's "graph,0.5,caller" style: the order is what has a meaning here. */
			if (!strcmp(w[i], "-G") || strstr(v, "caller"))
				po->graphtype = "caller";
			else if (strstr(v, "callee"))
				po->graphtype = "callee";
		} else if (!strcmp(w[i], "--stdio") || !strcmp(w[i], "-n") ||
			   !strcmp(w[i], "--show-nr-samples")) {
			/* what this report always does */
		} else {
			char *more = xasprintf("%s%s%s", ignored, *ignored ? " " : "", w[i]);
			free(ignored);
			ignored = more;
		}
	}
	if (rc)
		pc_err("-perfopt: %s", pc_strerror());
	else if (*ignored)
		po->ignored = ignored;
	if (!po->ignored)
		free(ignored);
	free(w);
	free(copy);
	return rc;
}

void perfopt_free(struct perfopt *po)
{
	free(po->sort);
	free(po->percent_limit);
	free(po->comms);
	free(po->ignored);
}
