/* dotnet_guard: see dotnet_guard.h.  The protocol on the socket pair is one line per
 * change: "<kind><+|-> <pid> <start> <arg>...", kind s (an EventPipe session: its id in
 * hex), p (perf maps turned on), b (maps borrowed: the directory, and the variable's old
 * value in hex or "-" when it was unset). */
#include "dotnet_guard.h"
#include "base/proc.h"
#include "base/sandbox.h"
#include "base/safe_open.h"
#include "dotnet_ipc.h"
#include "eventpipe_session.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PATH_VAR "DOTNET_PerfMapJitDumpPath"
/* Each runtime request of an undo waits at most this long. */
#define UNDO_TIMEOUT_MS 2000
/* The longest line: a borrowed directory and a variable's value, hex. */
#define LINE_MAX_BYTES 16384

struct dotnet_guard {
	pid_t pid;
	int fd;
};

struct change {
	char kind;
	pid_t pid;
	uint64_t start, session;
	char *dir, *old_path; /* b */
	bool has_old;
	int parent_fd; /* b: dir's parent, opened while pinned; or -1 */
	/* The process, pinned when the guard learns of the change (a pidfd where the kernel
	 * has them): a pid that names another process by the undo, even one started in the
	 * same clock tick (the same start time), is left alone.  pin.start 0: it was gone, or
	 * another process, already then: nothing to undo. */
	struct proc_pin pin;
};

static void change_free(struct change *c)
{
	free(c->dir);
	free(c->old_path);
	if (c->parent_fd >= 0)
		close(c->parent_fd);
	proc_pin_release(&c->pin);
}

static char *unhex(const char *hex)
{
	size_t n = strlen(hex) / 2;
	char *out = xcalloc(1, n + 1);
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
			free(out);
			return NULL;
		}
		out[i] = (char)v;
	}
	return out;
}

/* The directory holding dir (as pid sees it), through pid's root; or -1. */
static int open_parent(pid_t pid, const char *dir)
{
	const char *slash = strrchr(dir, '/');
	if (!slash || slash[1] == 0)
		return pc_err("%s: not a directory of ours", dir);
	char *parent = xstrndup(dir, slash - dir);
	int fd = root_open_dir(pid, parent[0] ? parent : "/");
	free(parent);
	return fd;
}

static void apply(struct change **list, size_t *n, size_t *cap, char *line)
{
	struct change c = {.pin = {.pidfd = -1}, .parent_fd = -1};
	char op;
	int pid, used = 0;
	unsigned long long start;
	if (sscanf(line, "%c%c %d %llu %n", &c.kind, &op, &pid, &start, &used) != 4 ||
	    (op != '+' && op != '-'))
		return;
	c.pid = pid;
	c.start = start;
	char *arg = line + used;
	if (c.kind == 's') {
		unsigned long long id;
		if (sscanf(arg, "%llx", &id) != 1)
			return;
		c.session = id;
	}
	if (op == '-') {
		for (size_t i = 0; i < *n; i++) {
			struct change *e = &(*list)[i];
			if (e->kind == c.kind && e->pid == c.pid && e->start == c.start &&
			    e->session == c.session) {
				change_free(e);
				*e = (*list)[--*n];
				return;
			}
		}
		return;
	}
	if (c.kind == 'b') {
		char *sp = strchr(arg, ' ');
		if (!sp)
			return;
		*sp = 0;
		c.dir = xstrdup(arg);
		c.has_old = strcmp(sp + 1, "-") != 0;
		c.old_path = c.has_old ? unhex(sp + 1) : NULL;
		if (c.has_old && !c.old_path) {
			change_free(&c);
			return;
		}
	} else if (c.kind != 's' && c.kind != 'p') {
		return;
	}
	if (proc_pin(c.pid, &c.pin) < 0 || c.pin.start != c.start) {
		proc_pin_release(&c.pin);
		c.pin.start = 0;
	} else if (c.kind == 'b') {
		c.parent_fd = open_parent(c.pid, c.dir);
		if (!proc_pin_alive(&c.pin) && c.parent_fd >= 0) {
			close(c.parent_fd); /* the pid is another's already */
			c.parent_fd = -1;
		}
	}
	grow_array((void **)list, cap, *n + 1, sizeof(**list));
	(*list)[(*n)++] = c;
}

/* Undoes one change the caller left, if pid is still the process it was made in; of a
 * process gone, only removes our directory. */
static void undo(const struct change *c)
{
	if (!proc_pin_alive(&c->pin)) {
		/* gone, or another process now: nothing to ask; our directory stays in its
		 * /tmp unless removed through the parent opened while it was pinned */
		if (c->kind == 'b' && c->parent_fd >= 0)
			dotnet_give_back_maps(c->pid, c->parent_fd, c->dir, NULL, false);
		return;
	}
	const char *what = NULL;
	if (c->kind == 's') {
		struct eventpipe_session s = {.pid = c->pid, .id = c->session, .fd = -1};
		int afd = eventpipe_session_stop_send(&s);
		if (afd >= 0 && eventpipe_session_stop_answer(&s, afd) == 0)
			what = "ended its EventPipe session";
	} else if (c->kind == 'p') {
		if (dotnet_disable_perfmap(c->pid) == 0)
			what = "turned its perf maps off";
	} else if (dotnet_give_back_maps(c->pid, c->parent_fd, c->dir, c->old_path, true) == 0) {
		what = "gave its perf maps back (off, " PATH_VAR " as it was, directory removed)";
	}
	if (what)
		fprintf(stderr,
			"perfcollect-c: stopped before undoing what it asked of pid %d: %s\n",
			(int)c->pid, what);
	else
		fprintf(stderr,
			"perfcollect-c: stopped before undoing what it asked of pid %d, "
			"which could not be undone: %s\n",
			(int)c->pid, pc_strerror());
}

static void guard_main(int fd)
{
	struct change *list = NULL;
	size_t n = 0, cap = 0, len = 0;
	char *buf = xmalloc(LINE_MAX_BYTES);
	for (;;) {
		ssize_t r = read(fd, buf + len, LINE_MAX_BYTES - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		buf[len] = 0;
		char *start = buf, *nl;
		while ((nl = strchr(start, '\n'))) {
			*nl = 0;
			apply(&list, &n, &cap, start);
			start = nl + 1;
		}
		len -= (size_t)(start - buf);
		memmove(buf, start, len);
		if (len == LINE_MAX_BYTES - 1)
			len = 0; /* not our protocol: drop it */
	}
	free(buf);
	/* The caller is gone: whatever it changed must not stay changed. */
	dotnet_ipc_set_timeout_ms(UNDO_TIMEOUT_MS);
	for (size_t i = 0; i < n; i++) {
		undo(&list[i]);
		change_free(&list[i]);
	}
	free(list);
}

struct dotnet_guard *dotnet_guard_start(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		pc_err_errno("socketpair");
		return NULL;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		pc_err_errno("fork");
		close(sv[0]);
		close(sv[1]);
		return NULL;
	}
	if (pid == 0) {
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		prctl(PR_SET_NAME, "pc-guard", 0, 0, 0);
		int devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
			dup2(devnull, STDOUT_FILENO);
		}
		close_fds_except(sv[1]);
		guard_main(sv[1]);
		_exit(0);
	}
	close(sv[1]);
	struct dotnet_guard *g = xcalloc(1, sizeof(*g));
	g->pid = pid;
	g->fd = sv[0];
	return g;
}

static void tell(struct dotnet_guard *g, const char *line)
{
	if (!g || g->fd < 0)
		return;
	size_t n = strlen(line);
	if (n >= LINE_MAX_BYTES || send(g->fd, line, n, MSG_NOSIGNAL) != (ssize_t)n) {
		close(g->fd); /* the guard died: go on without it */
		g->fd = -1;
	}
}

void dotnet_guard_session(struct dotnet_guard *g, pid_t pid, uint64_t start, uint64_t session,
			  bool open)
{
	char line[96];
	snprintf(line, sizeof(line), "s%c %d %llu %llx\n", open ? '+' : '-', (int)pid,
		 (unsigned long long)start, (unsigned long long)session);
	tell(g, line);
}

void dotnet_guard_perfmap(struct dotnet_guard *g, pid_t pid, uint64_t start, bool on)
{
	char line[64];
	snprintf(line, sizeof(line), "p%c %d %llu\n", on ? '+' : '-', (int)pid,
		 (unsigned long long)start);
	tell(g, line);
}

void dotnet_guard_borrow(struct dotnet_guard *g, pid_t pid, uint64_t start, const char *dir,
			 const char *old_path, bool on)
{
	if (!g)
		return;
	if (!on) {
		char line[64];
		snprintf(line, sizeof(line), "b- %d %llu\n", (int)pid, (unsigned long long)start);
		tell(g, line);
		return;
	}
	size_t olen = old_path ? strlen(old_path) : 0;
	char *hex = hex_encode(old_path ? old_path : "", olen, xmalloc(2 * olen + 1));
	char *line = xasprintf("b+ %d %llu %s %s\n", (int)pid, (unsigned long long)start, dir,
			       old_path ? hex : "-");
	tell(g, line);
	free(line);
	free(hex);
}

pid_t dotnet_guard_pid(const struct dotnet_guard *g)
{
	return g ? g->pid : -1;
}

void dotnet_guard_finish(struct dotnet_guard *g)
{
	if (!g)
		return;
	if (g->fd >= 0)
		close(g->fd);
	while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(g);
}

/* Removes what the runtime wrote into our directory, then the directory: through
 * parent_fd, else (-1) through pid's root now. */
static int remove_private_dir(pid_t pid, int parent_fd, const char *dir)
{
	int pfd = parent_fd >= 0 ? parent_fd : open_parent(pid, dir);
	if (pfd < 0)
		return -1;
	char *shown = xasprintf("/proc/%d/root%s", (int)pid, dir);
	int r = rm_rf_at(pfd, strrchr(dir, '/') + 1, shown);
	free(shown);
	if (pfd != parent_fd)
		close(pfd);
	return r;
}

int dotnet_give_back_maps(pid_t pid, int parent_fd, const char *dir, const char *old_path,
			  bool alive)
{
	char *problem = NULL;
	if (alive && dotnet_disable_perfmap(pid) < 0)
		problem = xasprintf("DisablePerfMap: %s", pc_strerror());
	if (alive && dotnet_set_env(pid, PATH_VAR, old_path) < 0 && !problem)
		problem = xasprintf("restoring %s: %s", PATH_VAR, pc_strerror());
	if ((alive || parent_fd >= 0) && remove_private_dir(pid, parent_fd, dir) < 0 && !problem)
		problem = xstrdup(pc_strerror());
	if (!problem)
		return 0;
	pc_err("%s", problem);
	free(problem);
	return -1;
}
