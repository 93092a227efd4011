/* proc: see proc.h. */
#include "proc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

void proc_path(char *buf, size_t len, pid_t pid, const char *file)
{
	if (pid > 0)
		snprintf(buf, len, "/proc/%d/%s", (int)pid, file);
	else
		snprintf(buf, len, "/proc/self/%s", file);
}

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

static const char *const task_file_names[] = {
    [TASK_STAT] = "stat",   [TASK_STATUS] = "status", [TASK_COMM] = "comm",
    [TASK_WCHAN] = "wchan", [TASK_STACK] = "stack",   [TASK_SYSCALL] = "syscall",
};

char *proc_task_read(pid_t pid, pid_t tid, enum proc_task_file file, size_t *len)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid, (int)tid,
		 task_file_names[file]);
	return read_file(path, len);
}

int proc_task_line(pid_t pid, pid_t tid, enum proc_task_file file, char *buf, size_t len)
{
	if (!len)
		return pc_err("proc_task_line: empty buffer");
	buf[0] = 0;
	char *s = proc_task_read(pid, tid, file, NULL);
	if (!s)
		return -1;
	s[strcspn(s, "\n")] = 0;
	snprintf(buf, len, "%s", s);
	free(s);
	return 0;
}

int proc_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	/* Whatever the thread named itself, newlines included: only the kernel's own last
	 * newline goes. */
	size_t n;
	char *s = len ? proc_task_read(pid, tid, TASK_COMM, &n) : NULL;
	if (len)
		buf[0] = 0;
	if (!s)
		return -1;
	if (n && s[n - 1] == '\n')
		s[n - 1] = 0;
	snprintf(buf, len, "%s", s);
	free(s);
	return 0;
}

int proc_stat_parse(const char *text, struct proc_stat *st)
{
	memset(st, 0, sizeof(*st));
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	if (!open || !close || close < open)
		return -1;
	snprintf(st->comm, sizeof(st->comm), "%.*s", (int)(close - open - 1), open + 1);
	/* the fields after comm, counted as proc_pid_stat(5) does: state is field 3 */
	const char *p = close + 1;
	for (int field = 3; field <= 22; field++) {
		if (*p != ' ')
			return -1;
		p++;
		const char *end = p + strcspn(p, " \n");
		if (end == p)
			return -1;
		if (field == 3)
			st->state = *p;
		else if (field == 4)
			st->ppid = (pid_t)strtol(p, NULL, 10);
		else if (field == 9)
			st->flags = strtoul(p, NULL, 10);
		else if (field == 22)
			st->starttime = strtoull(p, NULL, 10);
		p = end;
	}
	return 0;
}

int proc_task_stat(pid_t pid, pid_t tid, struct proc_stat *st)
{
	char *text = proc_task_read(pid, tid, TASK_STAT, NULL);
	int r = text ? proc_stat_parse(text, st) : -1;
	if (text && r < 0)
		pc_err("/proc/%d/task/%d/stat: unexpected format", (int)pid, (int)tid);
	free(text);
	return r;
}

bool proc_is_kernel_thread(pid_t pid)
{
	struct proc_stat st;
	return proc_task_stat(pid, pid, &st) == 0 && (st.flags & 0x00200000); /* PF_KTHREAD */
}

uint64_t proc_start_time(pid_t pid)
{
	struct proc_stat st;
	if (proc_task_stat(pid, pid, &st) < 0 || st.state == 'Z' || st.state == 'X')
		return 0;
	return st.starttime;
}

int proc_pin(pid_t pid, struct proc_pin *pin)
{
	pin->pid = pid;
	pin->pidfd = -1;
#ifdef SYS_pidfd_open
	pin->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	/* read after the pidfd is open: then both name the same process */
	pin->start = proc_start_time(pid);
	if (pin->start)
		return 0;
	proc_pin_release(pin);
	return pc_err("no process with PID %d", (int)pid);
}

bool proc_pin_alive(const struct proc_pin *pin)
{
#ifdef SYS_pidfd_send_signal
	if (pin->pidfd >= 0 && syscall(SYS_pidfd_send_signal, pin->pidfd, 0, NULL, 0) < 0 &&
	    errno == ESRCH)
		return false; /* it exited: its pid may name another process now */
#endif
	return pin->start && proc_start_time(pin->pid) == pin->start;
}

void proc_pin_release(struct proc_pin *pin)
{
	if (pin->pidfd >= 0)
		close(pin->pidfd);
	pin->pidfd = -1;
}

bool proc_runs_our_program(pid_t pid)
{
	char theirs[64];
	snprintf(theirs, sizeof(theirs), "/proc/%d/exe", (int)pid);
	struct stat a, b;
	if (stat(theirs, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		return true;
	/* The binary was replaced since it started (an upgrade): the old one, deleted, had
	 * our path. */
	char them[4096], us[4096];
	ssize_t n = readlink(theirs, them, sizeof(them) - 1);
	ssize_t m = readlink("/proc/self/exe", us, sizeof(us) - 1);
	if (n <= 0 || m <= 0)
		return false;
	them[n] = us[m] = 0;
	return !strncmp(them, us, (size_t)m) && !strcmp(them + m, " (deleted)");
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
	const char *cap_eff = status_field(text, "CapEff");
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
	st->cap_eff = cap_eff ? strtoull(cap_eff, NULL, 16) : 0;
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

uint64_t proc_self_caps(void)
{
	struct proc_status st;
	return proc_status(getpid(), &st) == 0 ? st.cap_eff : 0;
}

char *proc_getenv(pid_t pid, const char *name)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	size_t len;
	char *env = read_file(path, &len);
	if (!env)
		return NULL;
	size_t nlen = strlen(name);
	char *value = NULL;
	for (size_t off = 0; off < len;) {
		const char *var = env + off;
		size_t vlen = strnlen(var, len - off);
		if (vlen > nlen && !memcmp(var, name, nlen) && var[nlen] == '=') {
			free(value); /* the last one wins, as with getenv() */
			value = xstrndup(var + nlen + 1, vlen - nlen - 1);
		}
		off += vlen + 1;
	}
	free(env);
	return value;
}

struct proc_fds {
	DIR *d;
	const char *name; /* the current entry's */
	char target[4096];
};

struct proc_fds *proc_fds_open(pid_t pid)
{
	char path[64];
	proc_path(path, sizeof(path), pid, "fd");
	DIR *d = opendir(path);
	if (!d) {
		pc_err_errno("cannot list %s", path);
		return NULL;
	}
	struct proc_fds *f = xcalloc(1, sizeof(*f));
	f->d = d;
	return f;
}

bool proc_fds_next(struct proc_fds *f, int *fd)
{
	for (struct dirent *e; (e = readdir(f->d));) {
		long v;
		if (e->d_name[0] == '.' || parse_int(e->d_name, 0, INT32_MAX, &v) < 0 ||
		    (int)v == dirfd(f->d))
			continue;
		f->name = e->d_name;
		*fd = (int)v;
		return true;
	}
	f->name = NULL;
	return false;
}

const char *proc_fds_target(struct proc_fds *f)
{
	ssize_t n =
	    f->name ? readlinkat(dirfd(f->d), f->name, f->target, sizeof(f->target) - 1) : -1;
	if (n <= 0)
		return NULL;
	f->target[n] = 0;
	return f->target;
}

int proc_fds_stat(struct proc_fds *f, struct stat *st)
{
	if (!f->name || fstatat(dirfd(f->d), f->name, st, 0) < 0)
		return pc_err_errno("cannot stat an open file");
	return 0;
}

void proc_fds_close(struct proc_fds *f)
{
	if (!f)
		return;
	closedir(f->d);
	free(f);
}

char *sysctl_read(const char *name)
{
	char path[256];
	int n = snprintf(path, sizeof(path), "/proc/sys/%s", name);
	for (int i = (int)strlen("/proc/sys/"); i < n && i < (int)sizeof(path); i++)
		if (path[i] == '.')
			path[i] = '/';
	char *s = read_file(path, NULL);
	if (s)
		s[strcspn(s, "\n")] = 0;
	return s;
}

long sysctl_long(const char *name, long fallback)
{
	char *s = sysctl_read(name);
	char *end;
	long v = s ? strtol(s, &end, 10) : fallback;
	if (s && (end == s || (*end && *end != ' ' && *end != '\t')))
		v = fallback;
	free(s);
	return v;
}
