/* symbols_jit: see symbols_jit.h. */
#include "symbols_jit.h"

#include "log.h"
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct jit_procs {
	char *side_dir;
	bool live;
	struct jit_proc **v; /* sorted by pid */
	size_t n, cap;
	struct jit_proc *last;
};

struct jit_procs *jit_procs_new(const char *side_dir, bool live)
{
	struct jit_procs *j = xcalloc(1, sizeof(*j));
	j->side_dir = side_dir ? xstrdup(side_dir) : NULL;
	j->live = live;
	return j;
}

void jit_procs_free(struct jit_procs *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++) {
		struct jit_proc *p = j->v[i];
		perfmap_free(p->perfmap);
		jitdump_free(p->jitdump);
		perfinfo_free(p->perfinfo);
		for (int k = 0; k < 3; k++) {
			free(p->found[k]);
			free(p->why[k]);
		}
		free(p->dso_name);
		free(p->jitdump_hint);
		free(p);
	}
	free(j->v);
	free(j->side_dir);
	free(j);
}

struct jit_proc *jit_procs_get(struct jit_procs *j, uint32_t pid)
{
	if (j->last && j->last->pid == pid)
		return j->last;
	size_t lo = 0, hi = j->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (j->v[mid]->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == j->n || j->v[lo]->pid != pid) {
		grow_array((void **)&j->v, &j->cap, j->n + 1, sizeof(*j->v));
		memmove(&j->v[lo + 1], &j->v[lo], (j->n - lo) * sizeof(*j->v));
		struct jit_proc *p = xcalloc(1, sizeof(*p));
		p->pid = pid;
		p->dso_name = xasprintf("/tmp/perf-%u.map", pid);
		j->v[lo] = p;
		j->n++;
	}
	return j->last = j->v[lo];
}

/* A host file that must not be reached through a symlink. */
static int open_plain(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? pc_err("%s: is a symlink", path) : pc_err_errno("%s", path);
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return pc_err("%s: not a regular file", path);
	}
	return fd;
}

static const char *const side_fmt[3] = {
    [JIT_PERF_MAP] = "%s/perf-%u.map",
    [JIT_PERFINFO_MAP] = "%s/perfinfo-%u.map",
    [JIT_DUMP] = "%s/jit-%u.dump",
};
static const char *const target_fmt[3] = {
    [JIT_PERF_MAP] = "/tmp/perf-%u.map",
    [JIT_PERFINFO_MAP] = "/tmp/perfinfo-%u.map",
    [JIT_DUMP] = "/tmp/jit-%u.dump",
};

/* Opens one kind of file for p; sets found/why.  Returns the fd or -1. */
static int open_kind(struct jit_procs *j, struct jit_proc *p, enum jit_file_kind kind,
		     const struct proc_status *st, bool alive)
{
	p->looked[kind] = true;
	if (j->side_dir) {
		char *path = xasprintf(side_fmt[kind], j->side_dir, p->pid);
		int fd = open_plain(path);
		if (fd >= 0) {
			p->found[kind] = path;
			return fd;
		}
		free(path);
	}
	char *inner = kind == JIT_DUMP && p->jitdump_hint
			  ? xstrdup(p->jitdump_hint)
			  : xasprintf(target_fmt[kind], alive ? (unsigned)st->nspid : p->pid);
	int fd;
	char *shown;
	if (j->live && alive) {
		fd = safe_open_in_root((pid_t)p->pid, inner, st->uid);
		shown = xasprintf("/proc/%u/root%s", p->pid, inner);
	} else {
		fd = open_plain(inner);
		shown = xstrdup(inner);
	}
	if (fd >= 0) {
		p->found[kind] = shown;
	} else {
		p->why[kind] = xstrdup(pc_strerror());
		free(shown);
	}
	free(inner);
	return fd;
}

void jit_proc_load(struct jit_procs *j, struct jit_proc *p)
{
	if (p->loaded)
		return;
	p->loaded = true;
	struct proc_status st = {0};
	bool alive = j->live && proc_status((pid_t)p->pid, &st) == 0;
	if (!alive) {
		st.nspid = (pid_t)p->pid;
		st.uid = 0;
	}
	int fd = open_kind(j, p, JIT_PERF_MAP, &st, alive);
	if (fd >= 0) {
		p->perfmap = perfmap_load_fd(fd);
		close(fd);
		if (!p->perfmap)
			log_warn("%s: %s", p->found[JIT_PERF_MAP], pc_strerror());
		else if (perfmap_bad_lines(p->perfmap))
			log_warn("%s: skipped %zu malformed line(s), kept %zu entries",
				 p->found[JIT_PERF_MAP], perfmap_bad_lines(p->perfmap),
				 perfmap_count(p->perfmap));
	}
	fd = open_kind(j, p, JIT_DUMP, &st, alive);
	if (fd >= 0) {
		p->jitdump = jitdump_load_fd(fd);
		close(fd);
		if (!p->jitdump)
			log_warn("%s: %s", p->found[JIT_DUMP], pc_strerror());
		else if (jitdump_truncated(p->jitdump))
			log_warn("%s: cut mid-record; kept the %zu complete code loads",
				 p->found[JIT_DUMP], jitdump_nr_loads(p->jitdump));
	}
	fd = open_kind(j, p, JIT_PERFINFO_MAP, &st, alive);
	if (fd >= 0) {
		p->perfinfo = perfinfo_load_fd(fd);
		close(fd);
	}
}

const char *jit_proc_lookup(struct jit_proc *p, uint64_t addr, uint64_t time)
{
	if (p->jitdump) {
		const struct jitdump_load *l = jitdump_lookup(p->jitdump, addr, time);
		if (l)
			return l->name;
	}
	if (p->perfmap) {
		const struct perfmap_entry *e = perfmap_lookup(p->perfmap, addr);
		if (e)
			return e->name;
	}
	return NULL;
}

void jit_procs_foreach(struct jit_procs *j,
		       void (*fn)(void *arg, uint32_t pid, enum jit_file_kind kind,
				  const char *found_path, const char *why),
		       void *arg)
{
	for (size_t i = 0; i < j->n; i++) {
		struct jit_proc *p = j->v[i];
		for (int k = 0; k < 3; k++)
			if (p->looked[k])
				fn(arg, p->pid, (enum jit_file_kind)k, p->found[k], p->why[k]);
	}
}
