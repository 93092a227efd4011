/* synth: see synth.h. */
#include "synth.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/proc.h"
#include "base/proc_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)
#define REC_MAX	  8192 /* fixed fields + a PATH_MAX name + the trailer */

/* The sample_id_all trailer: pid/tid, time, id, stream_id, cpu, identifier, in the order
 * the kernel writes them (perf_event_open(2)), each present if sample_type asks. */
static size_t put_trailer(const struct synth *s, unsigned char *p)
{
	uint64_t type = s->attr->sample_type;
	size_t n = 0;
	if (!s->attr->sample_id_all)
		return 0;
	uint64_t zero = 0;
	if (type & PERF_SAMPLE_TID)
		memcpy(p + n, &zero, 8), n += 8;
	if (type & PERF_SAMPLE_TIME)
		memcpy(p + n, &zero, 8), n += 8;
	if (type & PERF_SAMPLE_ID)
		memcpy(p + n, &s->id, 8), n += 8;
	if (type & PERF_SAMPLE_STREAM_ID)
		memcpy(p + n, &s->id, 8), n += 8;
	if (type & PERF_SAMPLE_CPU)
		memcpy(p + n, &zero, 8), n += 8;
	if (type & PERF_SAMPLE_IDENTIFIER)
		memcpy(p + n, &s->id, 8), n += 8;
	return n;
}

/* Finishes a record whose fixed part and NUL-padded string end at `len`: appends the
 * trailer, sets the size and emits it. */
static int emit(struct synth *s, unsigned char *buf, size_t len, uint32_t type, uint16_t misc)
{
	len += put_trailer(s, buf + len);
	struct perf_event_header h = {.type = type, .misc = misc, .size = (uint16_t)len};
	memcpy(buf, &h, sizeof(h));
	return s->emit(s->arg, (const struct perf_event_header *)buf);
}

/* Appends name NUL-padded to 8 bytes, cut at max - 1 bytes. */
static size_t put_string(unsigned char *buf, size_t len, const char *name, size_t max)
{
	size_t n = strnlen(name, max - 1);
	size_t padded = ALIGN8(n + 1);
	memset(buf + len, 0, padded);
	memcpy(buf + len, name, n);
	return len + padded;
}

static int emit_mmap(struct synth *s, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
		     uint64_t pgoff, const char *name, uint16_t misc)
{
	unsigned char buf[REC_MAX] __attribute__((aligned(8)));
	size_t n = sizeof(struct perf_event_header);
	uint32_t ids[2] = {pid, tid};
	uint64_t range[3] = {start, len, pgoff};
	memcpy(buf + n, ids, sizeof(ids)), n += sizeof(ids);
	memcpy(buf + n, range, sizeof(range)), n += sizeof(range);
	n = put_string(buf, n, name, PATH_MAX);
	return emit(s, buf, n, PERF_RECORD_MMAP, misc);
}

static int emit_fork(struct synth *s, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	unsigned char buf[128] __attribute__((aligned(8)));
	size_t n = sizeof(struct perf_event_header);
	uint32_t ids[4] = {pid, ppid, tid, ptid};
	uint64_t time = 0;
	memcpy(buf + n, ids, sizeof(ids)), n += sizeof(ids);
	memcpy(buf + n, &time, sizeof(time)), n += sizeof(time);
	/* FORK_EXEC: "not a real fork, do not copy the parent's maps", as perf marks its own. */
	return emit(s, buf, n, PERF_RECORD_FORK, PERF_RECORD_MISC_FORK_EXEC);
}

static int emit_comm(struct synth *s, uint32_t pid, uint32_t tid, const char *comm)
{
	unsigned char buf[256] __attribute__((aligned(8)));
	size_t n = sizeof(struct perf_event_header);
	uint32_t ids[2] = {pid, tid};
	char name[17] = {0};
	memcpy(name, comm, strnlen(comm, sizeof(name) - 1)); /* TASK_COMM_LEN, as the kernel */
	memcpy(buf + n, ids, sizeof(ids)), n += sizeof(ids);
	n = put_string(buf, n, name, sizeof(name));
	return emit(s, buf, n, PERF_RECORD_COMM, 0);
}

/* The address of a symbol in /proc/kallsyms (0 if absent or hidden by kptr_restrict). */
static void kallsyms_lookup(const char *path, const char *const *names, uint64_t *addrs, size_t n)
{
	FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0, found = 0;
	while (found < n && getline(&line, &cap, f) > 0) {
		unsigned long long addr;
		char type, name[128];
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
			continue;
		for (size_t i = 0; i < n; i++)
			if (!addrs[i] && !strcmp(name, names[i])) {
				addrs[i] = addr;
				found++;
			}
	}
	free(line);
	fclose(f);
}

/* modules.dep maps "kernel/.../foo-bar.ko.xz" to module "foo_bar"; perf names module maps
 * by that full path.  Returns a malloc'd path or NULL. */
static char *module_path(const char *release, const char *module)
{
	char *dep = xasprintf("/lib/modules/%s/modules.dep", release);
	FILE *f = fopen(dep, "re");
	char *result = NULL, *line = NULL;
	size_t cap = 0;
	while (f && !result && getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		const char *base = strrchr(line, '/');
		base = base ? base + 1 : line;
		size_t len = strcspn(base, ".");
		if (len != strlen(module))
			continue;
		bool same = true;
		for (size_t i = 0; i < len && same; i++) {
			char a = base[i] == '-' ? '_' : base[i];
			char b = module[i] == '-' ? '_' : module[i];
			same = a == b;
		}
		if (same)
			result = line[0] == '/' ? xstrdup(line)
						: xasprintf("/lib/modules/%s/%s", release, line);
	}
	free(line);
	if (f)
		fclose(f);
	free(dep);
	return result;
}

static int synth_modules(struct synth *s)
{
	FILE *f = fopen("/proc/modules", "re");
	if (!f)
		return 0; /* a kernel without modules */
	struct utsname u;
	uname(&u);
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		char name[64 + 1];
		unsigned long long size, addr;
		/* "name size refcount deps state address [taint]" */
		if (sscanf(line, "%64s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 || !addr)
			continue;
		char *path = module_path(u.release, name);
		char *bracketed = path ? NULL : xasprintf("[%s]", name);
		rc = emit_mmap(s, UINT32_MAX, 0, addr, size, 0, path ? path : bracketed,
			       PERF_RECORD_MISC_KERNEL);
		free(path);
		free(bracketed);
	}
	free(line);
	fclose(f);
	return rc;
}

int synth_kernel(struct synth *s)
{
	static const char *const names[] = {"_text", "_etext"};
	uint64_t addrs[2] = {0, 0};
	kallsyms_lookup(s->kallsyms_path, names, addrs, 2);
	if (!addrs[0] || addrs[1] <= addrs[0]) {
		log_warn("kernel addresses are hidden (/proc/kallsyms shows zeros: "
			 "kernel.kptr_restrict); kernel frames will not resolve");
		return 0;
	}
	/* As perf: the map covers [_text, _etext), pgoff is the relocation reference _text. */
	if (emit_mmap(s, UINT32_MAX, 0, addrs[0], addrs[1] - addrs[0], addrs[0],
		      "[kernel.kallsyms]_text", PERF_RECORD_MISC_KERNEL) < 0)
		return -1;
	return synth_modules(s);
}

/* One mapping into an MMAP2 record. */
static int synth_map(struct synth *s, pid_t pid, const struct proc_map *map)
{
	const char *name = map->path[0] ? map->path : "//anon";
	const char *perms = map->perms;
	/* code, and with data_maps the readable rest, which perf record --call-graph dwarf
	 * records (PERF_RECORD_MISC_MMAP_DATA) */
	uint16_t misc = PERF_RECORD_MISC_USER | (perms[2] != 'x' ? PERF_RECORD_MISC_MMAP_DATA : 0);
	uint32_t prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			(perms[2] == 'x' ? PROT_EXEC : 0);
	uint32_t flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;

	unsigned char buf[REC_MAX] __attribute__((aligned(8)));
	size_t n = sizeof(struct perf_event_header);
	uint32_t ids[2] = {(uint32_t)pid, (uint32_t)pid};
	uint64_t range[3] = {map->start, map->end - map->start, map->offset};
	uint32_t dev[2] = {map->dev_major, map->dev_minor};
	uint64_t inode[2] = {map->inode, 0}; /* ino, ino_generation */
	uint32_t pf[2] = {prot, flags};
	memcpy(buf + n, ids, sizeof(ids)), n += sizeof(ids);
	memcpy(buf + n, range, sizeof(range)), n += sizeof(range);
	memcpy(buf + n, dev, sizeof(dev)), n += sizeof(dev);
	memcpy(buf + n, inode, sizeof(inode)), n += sizeof(inode);
	memcpy(buf + n, pf, sizeof(pf)), n += sizeof(pf);
	n = put_string(buf, n, name, PATH_MAX);
	s->nmaps++;
	return emit(s, buf, n, PERF_RECORD_MMAP2, misc);
}

static int synth_maps(struct synth *s, pid_t pid)
{
	struct proc_maps *m = proc_maps_open(pid);
	int rc = 0;
	/* only code resolves frames, as perf without --data; with data_maps what can be read */
	for (struct proc_map map; rc == 0 && m && proc_maps_next(m, &map);)
		if (map.perms[2] == 'x' || (s->data_maps && map.perms[0] == 'r'))
			rc = synth_map(s, pid, &map);
	proc_maps_close(m); /* none: exited meanwhile */
	return rc;
}

int synth_process(struct synth *s, pid_t pid)
{
	struct proc_status st;
	if (proc_status(pid, &st) < 0)
		return 0; /* exited meanwhile */
	pid = st.tgid;
	pid_t *tids;
	size_t n;
	if (proc_threads(pid, &tids, &n) < 0)
		return 0;
	char comm[64];
	int rc = 0;
	/* The process first (its maps belong to it), then its other threads. */
	if (proc_comm(pid, pid, comm, sizeof(comm)) == 0) {
		rc = emit_fork(s, pid, st.ppid, pid, st.ppid);
		if (rc == 0)
			rc = emit_comm(s, pid, pid, comm);
		if (rc == 0)
			rc = synth_maps(s, pid);
		s->nthreads++;
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (tids[i] == pid || proc_comm(pid, tids[i], comm, sizeof(comm)) < 0)
			continue;
		rc = emit_fork(s, pid, pid, tids[i], pid);
		if (rc == 0)
			rc = emit_comm(s, pid, tids[i], comm);
		s->nthreads++;
	}
	free(tids);
	return rc;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return x < y ? -1 : x > y;
}

int synth_all_processes(struct synth *s)
{
	pid_t *pids;
	size_t n;
	if (proc_pids(&pids, &n) < 0)
		return -1;
	qsort(pids, n, sizeof(*pids), cmp_pid);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = synth_process(s, pids[i]);
	free(pids);
	return rc;
}

int synth_copy_kallsyms(const char *path)
{
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pc_err_errno("cannot open /proc/kallsyms");
	/* the kernel's own text, to its end (/proc gives it no size) */
	int rc = outfile_copy(fd, path, UINT64_MAX, NULL);
	close(fd);
	return rc;
}
