/* postprocess_jit: see postprocess_jit.h. */
#include "postprocess_jit.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct jit_entry {
	enum jit_file_kind kind;
	uint32_t pid;
	char *name; /* in out_dir, NULL when not gathered */
	char *from; /* where it was found, NULL when missing */
	char *why;  /* why it is missing or was not copied */
	uint64_t size;
};

struct jitfiles {
	char *src_dir, *out_dir;
	struct symbolizer *symbolizer; /* during jitfiles_collect() */
	struct jit_entry *e;
	size_t n, cap;
	bool sorted;
};

static const char *const kind_fmt[] = {
    [JIT_PERF_MAP] = "perf-%" PRIu32 ".map",
    [JIT_PERFINFO_MAP] = "perfinfo-%" PRIu32 ".map",
    [JIT_DUMP] = "jit-%" PRIu32 ".dump",
};

char *jitfiles_file_name(enum jit_file_kind kind, uint32_t pid)
{
	return xasprintf(kind_fmt[kind], pid);
}

struct jitfiles *jitfiles_new(const char *src_dir, const char *out_dir)
{
	struct jitfiles *j = xcalloc(1, sizeof(*j));
	j->src_dir = xstrdup(src_dir);
	j->out_dir = xstrdup(out_dir);
	return j;
}

void jitfiles_free(struct jitfiles *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++) {
		free(j->e[i].name);
		free(j->e[i].from);
		free(j->e[i].why);
	}
	free(j->e);
	free(j->src_dir);
	free(j->out_dir);
	free(j);
}

static struct jit_entry *find(struct jitfiles *j, enum jit_file_kind kind, uint32_t pid)
{
	for (size_t i = 0; i < j->n; i++)
		if (j->e[i].kind == kind && j->e[i].pid == pid)
			return &j->e[i];
	return NULL;
}

static struct jit_entry *add(struct jitfiles *j, enum jit_file_kind kind, uint32_t pid)
{
	grow_array((void **)&j->e, &j->cap, j->n + 1, sizeof(*j->e));
	struct jit_entry *e = &j->e[j->n++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->pid = pid;
	j->sorted = false;
	return e;
}

/* Opens a side file of the trace directory being merged, without following a symlink.
 * (Files inside a live target's root come through symbolizer_copy_jit_file().) */
static int open_found(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? pc_err("%s is a symlink", path)
				      : pc_err_errno("cannot open %s", path);
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return pc_err("%s is not a regular file", path);
	}
	return fd;
}

/* Copies the open file src to dest unless dest already is that file: as much as it held
 * when it was opened.  Returns the size. */
static int copy_to(int src, const char *dest, uint64_t *size)
{
	struct stat s, d;
	if (fstat(src, &s) < 0)
		return pc_err_errno("cannot stat the source of %s", dest);
	*size = s.st_size;
	if (lstat(dest, &d) == 0 && d.st_dev == s.st_dev && d.st_ino == s.st_ino)
		return 0;
	return outfile_copy(src, dest, (uint64_t)s.st_size, size);
}

/* Gathers the file at `from` as out_dir/<name of kind, pid>. */
static void gather(struct jitfiles *j, struct jit_entry *e, const char *from)
{
	char *name = jitfiles_file_name(e->kind, e->pid);
	char *dest = xasprintf("%s/%s", j->out_dir, name);
	e->from = xstrdup(from);
	int fd = open_found(from);
	if (fd >= 0 && copy_to(fd, dest, &e->size) == 0) {
		e->name = name;
		name = NULL;
	} else {
		e->why = xstrdup(pc_strerror());
		unlink(dest); /* no half copy in the archive */
	}
	if (fd >= 0)
		close(fd);
	free(name);
	free(dest);
}

static void on_jit_file(void *arg, uint32_t pid, enum jit_file_kind kind, const char *found,
			const char *why)
{
	struct jitfiles *j = arg;
	if ((unsigned)kind >= ARRAY_SIZE(kind_fmt))
		return;
	struct jit_entry *e = find(j, kind, pid);
	if (e && (e->name || !found))
		return; /* already gathered, or already known missing */
	if (!e)
		e = add(j, kind, pid);
	free(e->why);
	e->why = NULL;
	if (!found) {
		e->why = xstrdup(why ? why : "not found");
		return;
	}
	/* The symbolizer copies what it read, re-checked to be the same file: a path could
	 * have been swapped (or hard-linked) inside an untrusted container since. */
	char *name = jitfiles_file_name(kind, pid);
	char *dest = xasprintf("%s/%s", j->out_dir, name);
	free(e->from);
	e->from = xstrdup(found);
	if (symbolizer_copy_jit_file(j->symbolizer, pid, kind, dest, &e->size) == 0) {
		e->name = name;
		name = NULL;
	} else {
		e->why = xstrdup(pc_strerror());
		unlink(dest); /* no half copy in the archive */
	}
	free(name);
	free(dest);
}

void jitfiles_collect(struct jitfiles *j, struct symbolizer *s)
{
	j->symbolizer = s;
	symbolizer_foreach_jit_file(s, on_jit_file, j);
	j->symbolizer = NULL;
}

/* "perf-123.map" -> kind and pid, only for exactly the names the layout uses. */
static bool parse_name(const char *name, enum jit_file_kind *kind, uint32_t *pid)
{
	for (size_t k = 0; k < ARRAY_SIZE(kind_fmt); k++) {
		unsigned long v;
		int off = 0;
		const char *prefix = k == JIT_PERF_MAP	     ? "perf-"
				     : k == JIT_PERFINFO_MAP ? "perfinfo-"
							     : "jit-";
		size_t pl = strlen(prefix);
		if (strncmp(name, prefix, pl) || name[pl] < '1' || name[pl] > '9')
			continue;
		if (sscanf(name + pl, "%lu%n", &v, &off) != 1 || v > UINT32_MAX)
			continue;
		char *canon = jitfiles_file_name(k, (uint32_t)v);
		bool same = !strcmp(canon, name);
		free(canon);
		if (same) {
			*kind = k;
			*pid = (uint32_t)v;
			return true;
		}
	}
	return false;
}

void jitfiles_add_dir(struct jitfiles *j)
{
	DIR *d = opendir(j->src_dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		enum jit_file_kind kind;
		uint32_t pid;
		if (!parse_name(de->d_name, &kind, &pid))
			continue;
		struct jit_entry *e = find(j, kind, pid);
		if (e && e->name)
			continue;
		if (!e)
			e = add(j, kind, pid);
		free(e->why);
		free(e->from);
		e->why = e->from = NULL;
		char *from = xasprintf("%s/%s", j->src_dir, de->d_name);
		gather(j, e, from);
		free(from);
	}
	closedir(d);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct jit_entry *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void sort_entries(struct jitfiles *j)
{
	if (!j->sorted && j->n)
		qsort(j->e, j->n, sizeof(*j->e), cmp_entry);
	j->sorted = true;
}

void jitfiles_log(struct jitfiles *j)
{
	sort_entries(j);
	size_t missing_maps = 0;
	for (size_t i = 0; i < j->n; i++) {
		const struct jit_entry *e = &j->e[i];
		char *name = jitfiles_file_name(e->kind, e->pid);
		if (e->name)
			log_info("pid %" PRIu32 ": %s: found at %s (%" PRIu64 " bytes)", e->pid,
				 name, e->from, e->size);
		else if (e->from)
			log_warn("pid %" PRIu32 ": %s: found at %s but not taken: %s", e->pid, name,
				 e->from, e->why);
		else
			log_info("pid %" PRIu32 ": %s: missing: %s", e->pid, name, e->why);
		/* A jitdump alone names the JIT code too (node --perf-prof). */
		const struct jit_entry *dump = find(j, JIT_DUMP, e->pid);
		if (!e->name && e->kind == JIT_PERF_MAP && !(dump && dump->name))
			missing_maps++;
		free(name);
	}
	if (missing_maps)
		log_warn("no perf map or jitdump for %zu process%s with JIT code: those frames "
			 "stay [unknown] "
			 "(perfcollect.log says which and why; .NET needs DOTNET_PerfMapEnabled=1, "
			 "node --perf-basic-prof)",
			 missing_maps, missing_maps == 1 ? "" : "es");
}

size_t jitfiles_count(struct jitfiles *j)
{
	sort_entries(j);
	size_t n = 0;
	for (size_t i = 0; i < j->n; i++)
		n += j->e[i].name != NULL;
	return n;
}

const char *jitfiles_name(struct jitfiles *j, size_t i)
{
	sort_entries(j);
	for (size_t k = 0; k < j->n; k++)
		if (j->e[k].name && i-- == 0)
			return j->e[k].name;
	return NULL;
}
