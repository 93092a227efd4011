/* proc: see proc.h. */
#include "proc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool proc_exists(pid_t pid)
{
	char path[64];
	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	struct stat st;
	return stat(path, &st) == 0;
}

static bool parse_pid_name(const char *name, pid_t *out)
{
	long v;
	if (!isdigit((unsigned char)name[0]) || parse_int(name, 1, INT32_MAX, &v) < 0)
		return false;
	*out = (pid_t)v;
	return true;
}

/* Every numeric entry of a /proc directory, sorted order is not promised. */
static int list_pid_dir(const char *dir, pid_t **out, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return pc_err_errno("cannot open %s", dir);
	pid_t *ids = NULL;
	size_t cap = 0, cnt = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		pid_t id;
		if (!parse_pid_name(de->d_name, &id))
			continue;
		grow_array((void **)&ids, &cap, cnt + 1, sizeof(*ids));
		ids[cnt++] = id;
	}
	closedir(d);
	*out = ids;
	*n = cnt;
	return 0;
}

int proc_threads(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (list_pid_dir(path, tids, n) < 0) {
		if (errno == ENOENT)
			return pc_err("no process %d", (int)pid);
		return -1;
	}
	return 0;
}

int proc_pids(pid_t **pids, size_t *n)
{
	return list_pid_dir("/proc", pids, n);
}

int proc_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (!len)
		return pc_err("proc_comm: empty buffer");
	char *s = read_file(path, NULL);
	if (!s)
		return -1;
	s[strcspn(s, "\n")] = 0;
	snprintf(buf, len, "%s", s);
	free(s);
	return 0;
}

/* The fields of /proc/<pid>/stat after "pid (comm)" (comm may hold spaces and
 * parentheses: they start after its last ')'); *text is to be freed, NULL when gone. */
static const char *stat_fields(pid_t pid, char **text)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	*text = read_file(path, NULL);
	char *p = *text ? strrchr(*text, ')') : NULL;
	return p ? p + 1 : NULL;
}

bool proc_is_kernel_thread(pid_t pid)
{
	char *text;
	const char *f = stat_fields(pid, &text);
	unsigned long flags = 0; /* "state ppid pgrp session tty_nr tpgid flags ..." */
	bool kthread = f && sscanf(f, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1 &&
		       (flags & 0x00200000); /* PF_KTHREAD */
	free(text);
	return kthread;
}

uint64_t proc_start_time(pid_t pid)
{
	char *text;
	const char *f = stat_fields(pid, &text);
	unsigned long long start = 0;
	/* field 22, the 20th after "(comm)" */
	if (f && sscanf(f,
			" %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
			"%*d %llu",
			&start) != 1)
		start = 0;
	free(text);
	return start;
}

int proc_online_cpus(int **cpus, size_t *n)
{
	char *text = read_file("/proc/stat", NULL);
	if (!text)
		return -1;
	int *list = NULL;
	size_t cap = 0, cnt = 0;
	for (const char *line = text; line && *line;
	     line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char *end;
		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		long c = strtol(line + 3, &end, 10);
		if (*end != ' ' || c < 0 || c >= 65536 || (cnt && c <= list[cnt - 1]))
			continue; /* "cpu " is the total; the kernel lists CPUs in ascending order
				   */
		grow_array((void **)&list, &cap, cnt + 1, sizeof(*list));
		list[cnt++] = (int)c;
	}
	free(text);
	if (!cnt)
		return pc_err("no CPUs listed in /proc/stat");
	*cpus = list;
	*n = cnt;
	return 0;
}

/* The value after "Key:" in a status file, or NULL. */
static const char *status_field(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *line = text;
	while (*line) {
		if (!strncmp(line, key, klen) && line[klen] == ':')
			return line + klen + 1;
		const char *nl = strchr(line, '\n');
		if (!nl)
			break;
		line = nl + 1;
	}
	return NULL;
}

int proc_status(pid_t pid, struct proc_status *st)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	char *text = read_file(path, NULL);
	if (!text)
		return errno == ENOENT ? pc_err("no process %d", (int)pid) : -1;
	const char *tgid = status_field(text, "Tgid");
	const char *ppid = status_field(text, "PPid");
	const char *uid = status_field(text, "Uid");
	const char *state = status_field(text, "State");
	const char *nspid = status_field(text, "NSpid");
	int r = 0;
	if (!tgid || !ppid || !uid || !state) {
		r = pc_err("%s: unexpected format", path);
		goto out;
	}
	memset(st, 0, sizeof(*st));
	st->tgid = (pid_t)strtol(tgid, NULL, 10);
	st->ppid = (pid_t)strtol(ppid, NULL, 10);
	st->uid = (uid_t)strtoul(uid, NULL, 10);
	while (*state == ' ' || *state == '\t')
		state++;
	st->state = *state;
	st->nspid = pid;
	if (nspid) {
		/* "NSpid:\t1234\t56\t1": the last one is the pid in the innermost namespace. */
		const char *end = nspid + strcspn(nspid, "\n");
		const char *p = nspid;
		while (p < end) {
			char *next;
			long v = strtol(p, &next, 10);
			if (next == p)
				break;
			if (next <= end)
				st->nspid = (pid_t)v;
			p = next;
		}
	}
out:
	free(text);
	return r;
}
