/* postprocess_nettrace: see postprocess_nettrace.h. */
#include "postprocess_nettrace.h"
#include "base/log.h"
#include "base/tracefile.h"
#include "nettrace/nettrace_read.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **nettrace_files_find(const char *dir, size_t *n)
{
	char **names = NULL;
	size_t cap = 0;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	for (struct dirent *e; (e = readdir(d));) {
		if (!tracefile_is_runtime_stream(e->d_name))
			continue;
		grow_array((void **)&names, &cap, *n + 1, sizeof(*names));
		names[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), cmp_name);
	return names;
}

static void log_one(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "re");
	if (!f) {
		log_warn("cannot read %s: %s", path, strerror(errno));
		free(path);
		return;
	}
	struct nettrace_reader *r = nettrace_reader_new_file(f, name);
	struct nettrace_item it;
	int rc;
	while ((rc = nettrace_reader_next(r, &it)) > 0)
		;
	const struct nettrace_stats *st = nettrace_reader_stats(r);
	const struct nettrace_trace *t = nettrace_reader_trace(r);
	double secs = st->events && t ? (double)(nettrace_ticks_to_ns(t, st->last_ticks) -
						 nettrace_ticks_to_ns(t, st->first_ticks)) /
					    1e9
				      : 0;
	if (rc < 0)
		log_warn("%s: %s; what came before is kept", name, pc_strerror());
	log_info("%s: NetTrace version %u, runtime pid %u, %llu events (%llu event types) over "
		 "%.3f s, %llu stacks, %llu bytes%s%s",
		 name, t ? t->version : 0, t ? t->pid : 0, (unsigned long long)st->events,
		 (unsigned long long)st->metadata, secs, (unsigned long long)st->stacks,
		 (unsigned long long)st->bytes,
		 st->truncated ? "; the stream stops before its end (the process exited or the "
				 "collection was cut)"
			       : "",
		 "");
	if (st->lost_events)
		log_warn("%s: the runtime dropped %llu events (its buffer was full)", name,
			 (unsigned long long)st->lost_events);
	nettrace_reader_free(r);
	fclose(f);
	free(path);
}

void nettrace_files_log(const char *dir, char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		log_one(dir, names[i]);
}

void nettrace_files_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
