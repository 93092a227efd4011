/* eventpipe_guard: see eventpipe_guard.h.  The protocol on the socket pair is one line per
 * change: "+ <pid> <session>" or "- <pid> <session>". */
#include "eventpipe_guard.h"
#include "eventpipe_session.h"
#include "base/proc.h"

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

struct eventpipe_guard {
	pid_t pid;
	int fd;
};

struct open_session {
	pid_t pid;
	uint64_t id;
};

/* Closes every fd but keep (the perf fds, the trace files, the log). */
static void close_others(int keep)
{
#ifdef SYS_close_range
	if (keep > 3 && syscall(SYS_close_range, 3, keep - 1, 0) == 0 &&
	    syscall(SYS_close_range, keep + 1, ~0U, 0) == 0)
		return;
	if (keep == 3 && syscall(SYS_close_range, 4, ~0U, 0) == 0)
		return;
#endif
	struct proc_fds *d = proc_fds_open(0);
	for (int fd; d && proc_fds_next(d, &fd);)
		if (fd > 2 && fd != keep)
			close(fd);
	proc_fds_close(d);
}

static void apply(struct open_session **s, size_t *n, size_t *cap, const char *line)
{
	char op;
	int pid;
	unsigned long long id;
	if (sscanf(line, "%c %d %llx", &op, &pid, &id) != 3)
		return;
	if (op == '+') {
		grow_array((void **)s, cap, *n + 1, sizeof(**s));
		(*s)[(*n)++] = (struct open_session){pid, id};
		return;
	}
	for (size_t i = 0; i < *n; i++)
		if ((*s)[i].pid == pid && (*s)[i].id == id) {
			(*s)[i] = (*s)[--*n];
			return;
		}
}

static void guard_main(int fd)
{
	struct open_session *open = NULL;
	size_t n = 0, cap = 0, len = 0;
	char buf[4096];
	for (;;) {
		ssize_t r = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		buf[len] = 0;
		char *start = buf, *nl;
		while ((nl = strchr(start, '\n'))) {
			*nl = 0;
			apply(&open, &n, &cap, start);
			start = nl + 1;
		}
		len -= (size_t)(start - buf);
		memmove(buf, start, len);
		if (len == sizeof(buf) - 1)
			len = 0; /* not our protocol: drop it */
	}
	/* The collector is gone: whatever it left open must not stay open. */
	for (size_t i = 0; i < n; i++) {
		struct eventpipe_session s = {.pid = open[i].pid, .id = open[i].id, .fd = -1};
		int afd = eventpipe_session_stop_send(&s);
		if (afd >= 0 && eventpipe_session_stop_answer(&s, afd) == 0)
			fprintf(stderr,
				"perfcollect-c: the collector stopped without ending its EventPipe "
				"session in pid %d; ended it\n",
				(int)s.pid);
	}
	free(open);
}

struct eventpipe_guard *eventpipe_guard_start(void)
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
		prctl(PR_SET_NAME, "pc-ep-guard", 0, 0, 0);
		int devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
			dup2(devnull, STDOUT_FILENO);
		}
		close_others(sv[1]);
		guard_main(sv[1]);
		_exit(0);
	}
	close(sv[1]);
	struct eventpipe_guard *g = xcalloc(1, sizeof(*g));
	g->pid = pid;
	g->fd = sv[0];
	return g;
}

static void tell(struct eventpipe_guard *g, char op, pid_t pid, uint64_t session)
{
	if (!g || g->fd < 0)
		return;
	char line[64];
	int n =
	    snprintf(line, sizeof(line), "%c %d %llx\n", op, (int)pid, (unsigned long long)session);
	if (send(g->fd, line, (size_t)n, MSG_NOSIGNAL) != n) {
		close(g->fd); /* the guard died: go on without it */
		g->fd = -1;
	}
}

void eventpipe_guard_add(struct eventpipe_guard *g, pid_t pid, uint64_t session)
{
	tell(g, '+', pid, session);
}

void eventpipe_guard_remove(struct eventpipe_guard *g, pid_t pid, uint64_t session)
{
	tell(g, '-', pid, session);
}

pid_t eventpipe_guard_pid(const struct eventpipe_guard *g)
{
	return g ? g->pid : -1;
}

void eventpipe_guard_finish(struct eventpipe_guard *g)
{
	if (!g)
		return;
	if (g->fd >= 0)
		close(g->fd);
	while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(g);
}
