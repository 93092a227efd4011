/* unnamed: see unnamed.h.  A few files at most go unnamed in a trace: a list, the last hit
 * tried first (consecutive frames are often in one file). */
#include "unnamed.h"

#include <stdlib.h>
#include <string.h>

struct unnamed_file {
	char *dso;
	uint64_t frames;
};

struct unnamed {
	struct unnamed_file *files;
	size_t nfiles, cap, last;
	uint64_t frames, unnamed;
};

struct unnamed *unnamed_new(void)
{
	return xcalloc(1, sizeof(struct unnamed));
}

void unnamed_free(struct unnamed *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nfiles; i++)
		free(u->files[i].dso);
	free(u->files);
	free(u);
}

/* A file's path: not [unknown], //anon, a perf map, memfd: or a .NET image. */
static bool is_elf_file(const char *dso)
{
	size_t l = strlen(dso);
	return dso[0] == '/' && strcmp(dso, "//anon") && !str_startswith(dso, "/memfd:") &&
	       !str_startswith(dso, "/tmp/perf-") && !(l > 4 && !strcmp(dso + l - 4, ".dll"));
}

void unnamed_frame(struct unnamed *u, const char *sym, const char *dso)
{
	u->frames++;
	if ((*sym && strcmp(sym, "[unknown]")) || !is_elf_file(dso))
		return;
	u->unnamed++;
	if (u->last < u->nfiles && !strcmp(u->files[u->last].dso, dso)) {
		u->files[u->last].frames++;
		return;
	}
	for (size_t i = 0; i < u->nfiles; i++)
		if (!strcmp(u->files[i].dso, dso)) {
			u->files[i].frames++;
			u->last = i;
			return;
		}
	grow_array((void **)&u->files, &u->cap, u->nfiles + 1, sizeof(*u->files));
	u->files[u->nfiles] = (struct unnamed_file){xstrdup(dso), 1};
	u->last = u->nfiles++;
}

static int by_frames(const void *a, const void *b)
{
	const struct unnamed_file *x = a, *y = b;
	return x->frames < y->frames ? 1 : x->frames > y->frames ? -1 : strcmp(x->dso, y->dso);
}

void unnamed_print(const struct unnamed *u, const struct pprof_build_id *ids, size_t n,
		   const char *input, FILE *f)
{
	if (!u->unnamed)
		return;
	struct unnamed_file *sorted = xmalloc(u->nfiles * sizeof(*sorted));
	memcpy(sorted, u->files, u->nfiles * sizeof(*sorted));
	qsort(sorted, u->nfiles, sizeof(*sorted), by_frames);
	fprintf(f,
		"perfcollect-c view: %llu of %llu frames (%.0f%%) are unnamed in files without "
		"symbols:",
		(unsigned long long)u->unnamed, (unsigned long long)u->frames,
		100.0 * u->unnamed / u->frames);
	bool any_id = false;
	for (size_t i = 0; i < u->nfiles; i++) {
		const char *hex = NULL;
		for (size_t k = 0; k < n && !hex; k++)
			if (!strcmp(ids[k].dso, sorted[i].dso))
				hex = ids[k].hex;
		any_id |= hex != NULL;
		fprintf(f, "%s %s %llu (build-id %s)", i ? "," : "", sorted[i].dso,
			(unsigned long long)sorted[i].frames, hex ? hex : "not recorded");
	}
	if (any_id)
		fprintf(f,
			"; 'perfcollect-c merge %s' where a symbol server has them names them "
			"(-symbolserver URL, DEBUGINFOD_URLS)",
			input);
	fputc('\n', f);
	free(sorted);
}
