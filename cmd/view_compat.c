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

/* The runtime-event files of the trace (dotnet-<pid>.nettrace), one name per line, or NULL. */
static char *runtime_event_files(const char *input)
{
	char *list = NULL;
	struct stat st;
	if (stat(input, &st) < 0)
		return NULL;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(input);
		struct dirent *de;
		while (d && (de = readdir(d)))
			if (str_endswith(de->d_name, ".nettrace")) {
				char *more = xasprintf("%s  %s\n", list ? list : "", de->d_name);
				free(list);
				list = more;
			}
		if (d)
			closedir(d);
		return list;
	}
	struct archive_reader *zip = archive_reader_open(input);
	for (size_t i = 0; zip && i < archive_reader_count(zip); i++)
		if (str_endswith(archive_reader_name(zip, i), ".nettrace")) {
			char *more =
			    xasprintf("%s  %s\n", list ? list : "", archive_reader_name(zip, i));
			free(list);
			list = more;
		}
	archive_reader_free(zip);
	return list;
}

int view_lttng(const char *input)
{
	char *files = runtime_event_files(input);
	if (!files) {
		fprintf(
		    stderr,
		    "perfcollect-c view: -viewer lttng shows the .NET runtime events (GC, JIT, "
		    "exceptions ...) that perfcollect recorded with LTTng, and %s has none: "
		    "this perfcollect-c records CPU samples only.  '-viewer perf' (the default) "
		    "shows the samples; for runtime events run 'dotnet-trace collect -p PID' "
		    "beside the collection.\n",
		    input);
		return 1;
	}
	fprintf(stderr,
		"perfcollect-c view: %s has .NET runtime events:\n%sthis perfcollect-c cannot "
		"show them yet; open the zip in PerfView (Events view), or take one out with "
		"'perfcollect-c cat %s ENTRY > file.nettrace' for dotnet-trace or TraceEvent\n",
		input, files, input);
	free(files);
	return 1;
}
