/* symbols_jit: see symbols_jit.h. */
#include "symbols_jit.h"
#include "base/search.h"

#include "base/log.h"
#include "base/outfile.h"
#include "base/proc.h"
#include "base/safe_open.h"
#include "proc_uids.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct jit_procs {
	char *side_dir;
	bool side_foreign; /* side_dir is not ours: its files go by the host's rule */
	bool live;
	struct proc_uids *uids; /* not ours; NULL: none recorded */
	struct jit_proc **v;	/* sorted by pid */
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

void jit_procs_trust(struct jit_procs *j, struct proc_uids *uids, bool side_dir_ours)
{
	j->uids = uids;
	j->side_foreign = !side_dir_ours;
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
			free(p->src[k].path);
		}
		free(p->dso_name);
		free(p->jitdump_hint);
		free(p->map_dir);
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
	size_t lo = LOWER_BOUND(j->n, i, j->v[i]->pid < pid);
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

uint64_t jit_file_max(void)
{
	static uint64_t max;
	if (!max) {
		max = JIT_FILE_MAX_DEFAULT;
		if (env_size("PERFCOLLECT_C_JIT_FILE_MAX", &max) < 0)
			log_warn("%s; using 1G", pc_strerror());
	}
	return max;
}

/* A host file that must not be reached through a symlink. */
static int open_plain(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? pc_err("%s: is a symlink", path) : pc_err_errno("%s", path);
	struct stat st;
	int err = fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ? EINVAL
		  : (uint64_t)st.st_size > jit_file_max()    ? EFBIG
							     : 0;
	if (!err)
		return fd;
	close(fd);
	errno = err;
	return err == EINVAL
		   ? pc_err("%s: not a regular file", path)
		   : pc_err("%s: %llu bytes, more than the %llu read", path,
			    (unsigned long long)st.st_size, (unsigned long long)jit_file_max());
}

static const char *const side_fmt[3] = {
    [JIT_PERF_MAP] = "%s/perf-%u.map",
    [JIT_PERFINFO_MAP] = "%s/perfinfo-%u.map",
    [JIT_DUMP] = "%s/jit-%u.dump",
};
static const char *const target_fmt[3] = {
    [JIT_PERF_MAP] = "%s/perf-%u.map",
    [JIT_PERFINFO_MAP] = "%s/perfinfo-%u.map",
    [JIT_DUMP] = "%s/jit-%u.dump",
};

static int open_src(const struct jit_src *src)
{
	if (src->root_pid)
		return safe_open_in_root((pid_t)src->root_pid, src->path, src->uid, jit_file_max());
	if (!src->host)
		return open_plain(src->path); /* the side directory: the trace's own */
	/* our own root walked as a target's: no symlink, a regular file of one link, root's or
	 * the process's user's */
	return safe_open_in_root(getpid(), src->path, src->uid, jit_file_max());
}

/* A host file of p's (not through its root: it is gone, or the side directory is one
 * anybody may write, /tmp for a bare perf.data): any local user can write
 * /tmp/perf-<pid>.map for a pid, so it is taken only when it is root's or belongs to a user
 * the process ran as: the one it runs as now (alive), one the collector recorded while it
 * ran, or the user running us (our own files).  Sets src->uid to the owner taken. */
static int open_host(struct jit_procs *j, const struct jit_proc *p, struct jit_src *src,
		     const struct proc_status *st, bool alive)
{
	uid_t cand[3] = {0}; /* root is always allowed */
	size_t n = 0;
	if (alive)
		cand[n++] = st->uid;
	if (geteuid() != 0)
		cand[n++] = geteuid();
	const uid_t *rec = NULL;
	size_t nrec = j->uids ? proc_uids_of(j->uids, p->pid, &rec) : 0;
	src->host = true;
	int fd = -1;
	for (size_t i = 0; i < (n + nrec ? n + nrec : 1); i++) {
		src->uid = i < n ? cand[i] : i - n < nrec ? rec[i - n] : 0;
		fd = open_src(src);
		if (fd >= 0 || errno != EPERM)
			break;
	}
	if (fd < 0 && errno == EPERM) {
		char *why = xstrdup(pc_strerror());
		if (alive)
			pc_err("%s (pid %u runs as uid %u)", why, p->pid, (unsigned)st->uid);
		else if (nrec)
			pc_err("%s (pid %u is gone: a file on the host is taken for it only when "
			       "it is root's or belongs to the user it ran as, recorded by the "
			       "collector)",
			       why, p->pid);
		else
			pc_err("%s (pid %u is gone and no user was recorded for it while it ran, "
			       "as for a bare perf.data: only root's file is taken)",
			       why, p->pid);
		free(why);
		errno = EPERM;
	}
	return fd;
}

/* The jitdump a dead process mmapped is looked for on the host only when its name carries
 * the pid we know it by: a container's /tmp/jit-1.dump is not the host's. */
static bool hint_usable(const struct jit_proc *p, bool alive)
{
	if (!p->jitdump_hint)
		return false;
	if (alive)
		return true;
	const char *base = strrchr(p->jitdump_hint, '/');
	char *want = xasprintf("jit-%u.dump", p->pid);
	bool ok = !strcmp(base ? base + 1 : p->jitdump_hint, want);
	free(want);
	return ok;
}

/* Opens one kind of file for p; sets found/why and remembers where it came from.  Returns
 * the fd or -1. */
static int find_kind(struct jit_procs *j, struct jit_proc *p, enum jit_file_kind kind,
		     const struct proc_status *st, bool alive)
{
	struct jit_src *src = &p->src[kind];
	char *side = NULL;
	int side_errno = 0;
	if (j->side_dir) {
		src->path = xasprintf(side_fmt[kind], j->side_dir, p->pid);
		int fd = j->side_foreign ? open_host(j, p, src, st, alive) : open_plain(src->path);
		if (fd >= 0) {
			p->found[kind] = xstrdup(src->path);
			return fd;
		}
		side_errno = errno;
		if (j->side_foreign && errno != ENOENT)
			log_warn("pid %u: JIT file refused: %s", p->pid, pc_strerror());
		side = src->path;
		src->path = NULL;
		src->host = false;
	}
	src->path = kind == JIT_DUMP && hint_usable(p, alive)
			? xstrdup(p->jitdump_hint)
			: xasprintf(target_fmt[kind], p->map_dir ? p->map_dir : "/tmp",
				    alive ? (unsigned)st->nspid : p->pid);
	int fd;
	if (j->live && alive) {
		src->root_pid = p->pid;
		src->uid = st->uid;
		fd = open_src(src);
	} else if (j->side_foreign && side && !strcmp(side, src->path)) {
		/* the side directory was that host directory: refused (or missing) once */
		fd = -1;
		errno = side_errno;
		p->why[kind] =
		    xasprintf("%s%s", side_errno == ENOENT ? "" : "refused: ", pc_strerror());
		free(side);
		return fd;
	} else {
		fd = open_host(j, p, src, st, alive);
	}
	free(side);
	if (fd >= 0) {
		p->found[kind] = src->root_pid ? xasprintf("/proc/%u/root%s", p->pid, src->path)
					       : xstrdup(src->path);
	} else if (errno == ENOENT || errno == ESRCH) {
		p->why[kind] = xstrdup(pc_strerror());
	} else if (errno == EACCES) {
		/* Our own lack of privilege, not the target's doing: once per process. */
		p->why[kind] = xstrdup(pc_strerror());
		if (!p->no_access_said)
			log_warn("pid %u: cannot read its JIT files: %s (looking into another "
				 "user's process, or one with capabilities we lack, needs "
				 "CAP_SYS_PTRACE)",
				 p->pid, pc_strerror());
		p->no_access_said = true;
	} else if (errno == EFBIG) {
		p->why[kind] = xasprintf("too large: %s", pc_strerror());
		log_warn("pid %u: JIT file not read: %s (PERFCOLLECT_C_JIT_FILE_MAX raises the "
			 "limit); its JIT frames stay unnamed",
			 p->pid, pc_strerror());
	} else {
		/* There, but not trusted: say so loudly, it may be an attack on the collector. */
		p->why[kind] = xasprintf("refused: %s", pc_strerror());
		if (src->root_pid)
			log_warn("pid %u: JIT file refused: %s (inside /proc/%u/root; a target's "
				 "files are read only as regular files of its user, never through "
				 "a link)",
				 p->pid, pc_strerror(), p->pid);
		else
			log_warn("pid %u: JIT file refused: %s", p->pid, pc_strerror());
	}
	return fd;
}

/* find_kind(), remembering which file it was (device, inode) for jit_procs_copy(). */
static int open_kind(struct jit_procs *j, struct jit_proc *p, enum jit_file_kind kind,
		     const struct proc_status *st, bool alive)
{
	p->looked[kind] = true;
	int fd = find_kind(j, p, kind, st, alive);
	struct stat fst;
	if (fd >= 0 && fstat(fd, &fst) == 0) {
		p->src[kind].dev = fst.st_dev;
		p->src[kind].ino = fst.st_ino;
	}
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

/* Copies src_fd to dest, unless dest already is that file (a trace directory merged in
 * place): as much as it held when it was opened again (a live process may write on). */
static int copy_fd(int src_fd, const struct stat *src, const char *dest, uint64_t *size)
{
	struct stat d;
	if (lstat(dest, &d) == 0 && d.st_dev == src->st_dev && d.st_ino == src->st_ino) {
		if (size)
			*size = (uint64_t)src->st_size;
		return 0;
	}
	return outfile_copy(src_fd, dest, (uint64_t)src->st_size, size);
}

int jit_procs_copy(struct jit_procs *j, uint32_t pid, enum jit_file_kind kind, const char *dest,
		   uint64_t *size)
{
	struct jit_proc *p = NULL;
	for (size_t i = 0; i < j->n && !p; i++)
		if (j->v[i]->pid == pid)
			p = j->v[i];
	if ((unsigned)kind > JIT_DUMP || !p || !p->found[kind])
		return pc_err("pid %u: no JIT file of that kind was read", pid);
	const struct jit_src *src = &p->src[kind];
	int fd = open_src(src);
	if (fd < 0)
		return -1;
	struct stat st;
	int ret;
	if (fstat(fd, &st) < 0)
		ret = pc_err_errno("%s", p->found[kind]);
	else if (st.st_dev != src->dev || st.st_ino != src->ino)
		ret = pc_err("%s: replaced by another file since it was read; not copied",
			     p->found[kind]);
	else
		ret = copy_fd(fd, &st, dest, size);
	close(fd);
	return ret;
}

/* The code at addr at time: its name, the addresses [range) it spans (a perf map entry's
 * part where it is the answer) and where it starts (the entry's own start). */
static const char *lookup(struct jit_proc *p, uint64_t addr, uint64_t time, uint64_t range[2],
			  uint64_t *start)
{
	if (p->jitdump) {
		const struct jitdump_load *l = jitdump_lookup(p->jitdump, addr, time);
		if (l) {
			range[0] = *start = l->addr;
			range[1] = l->addr + l->size;
			return l->name;
		}
	}
	if (p->perfmap) {
		const struct perfmap_entry *e = perfmap_lookup_range(p->perfmap, addr, range);
		if (e) {
			*start = e->start;
			return e->name;
		}
	}
	return NULL;
}

const char *jit_proc_lookup(struct jit_proc *p, uint64_t addr, uint64_t time, uint64_t range[2])
{
	uint64_t r[2], start;
	return lookup(p, addr, time, range ? range : r, &start);
}

const char *jit_proc_lookup_start(struct jit_proc *p, uint64_t addr, uint64_t time, uint64_t *start)
{
	uint64_t r[2], s;
	return lookup(p, addr, time, r, start ? start : &s);
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
