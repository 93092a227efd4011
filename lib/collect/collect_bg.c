/* collect_bg: see collect_bg.h.  The entry in the registry moves through
 * starting -> recording -> finished (with collect's exit status), each written whole. */
#include "collect_bg.h"
#include "collect.h"
#include "collect_registry.h"
#include "collect_tracedir.h"
#include "base/tracefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Copies what the collector printed, from byte from (to byte to, the end if < 0), to
 * stderr. */
static void relay_output(struct registry *r, const char *name, long from, long to)
{
	size_t len;
	char *s = registry_read_output(r, name, from, to, &len);
	if (s)
		fwrite(s, 1, len, stderr);
	else if (errno != ENOENT)
		fprintf(stderr, "perfcollect-c: warning: not showing the collector's output: %s\n",
			pc_strerror());
	free(s);
}

/* "perfcollect-c merge DIR -o ZIP": what makes the zip of a trace directory a dead
 * collector left, wherever the command runs. */
static char *merge_command(const char *name, const struct registry_entry *e)
{
	char *dir = xstrdup(e->trace_dir);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	struct tracedir td = {
	    .name = name, .outdir = dir, .path = e->trace_dir, .zip_path = e->zip};
	char *cmd = tracedir_merge_command(&td);
	free(dir);
	return cmd;
}

/* Says why an entry's collector is gone, removes the entry, returns -1 (pc_err). */
static int explain_stale(struct registry *r, const char *name, const struct registry_entry *e)
{
	struct stat sb;
	bool have_dir = lstat(e->trace_dir, &sb) == 0;
	relay_output(r, name, e->shown, -1);
	registry_remove(r, name);
	if (!have_dir)
		return pc_err(
		    "the background collection '%s' (pid %ld, started %s) ended without "
		    "finishing (killed, crashed, or the machine restarted) and left no %s",
		    name, e->pid, e->started, e->trace_dir);
	char *cmd = merge_command(name, e);
	pc_err("the background collection '%s' (pid %ld, started %s) ended without finishing "
	       "(killed, crashed, or the machine restarted); what it recorded is in %s: '%s' "
	       "makes %s",
	       name, e->pid, e->started, e->trace_dir, cmd, e->zip);
	free(cmd);
	return -1;
}

/* ---- start ---- */

struct child {
	struct registry *reg;
	const char *name;
	struct registry_entry *e;
	int ready_fd;
};

static void now_utc(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void on_recording(void *arg)
{
	struct child *c = arg;
	fflush(NULL);
	struct stat sb;
	c->e->shown = fstat(STDERR_FILENO, &sb) == 0 ? (long)sb.st_size : 0;
	snprintf(c->e->state, sizeof(c->e->state), "recording");
	if (registry_write(c->reg, c->name, c->e, false) < 0)
		fprintf(stderr, "perfcollect-c: warning: %s\n", pc_strerror());
	char ok = 'R';
	if (write(c->ready_fd, &ok, 1) != 1)
		fprintf(stderr, "perfcollect-c: warning: start is gone: %s\n", strerror(errno));
	close(c->ready_fd);
	c->ready_fd = -1;
}

/* The forked collector: its own session, registered, output to the registry; never
 * returns.  Until its output is redirected, it speaks on start's stderr. */
static void run_child(struct collect_opts *o, struct registry *reg, struct registry_entry *e,
		      int ready_fd)
{
	setsid();
	e->status = -1;
	now_utc(e->started, sizeof(e->started));
	snprintf(e->state, sizeof(e->state), "starting");
	if (registry_entry_self(e) < 0 || registry_write(reg, o->name, e, true) < 0) {
		fprintf(stderr, "perfcollect-c: %s\n", pc_strerror());
		_exit(1);
	}
	int out_fd = registry_create_output(reg, o->name);
	if (out_fd < 0) {
		fprintf(stderr, "perfcollect-c: %s\n", pc_strerror());
		registry_remove(reg, o->name);
		_exit(1);
	}
	dup2(out_fd, STDOUT_FILENO);
	dup2(out_fd, STDERR_FILENO);
	close(out_fd);
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd >= 0)
		dup2(null_fd, STDIN_FILENO);
	struct child c = {.reg = reg, .name = o->name, .e = e, .ready_fd = ready_fd};
	o->on_recording = on_recording;
	o->on_recording_arg = &c;
	int rc = collect_run(o) < 0 ? 1 : 0;
	if (rc)
		fprintf(stderr, "perfcollect-c: %s\n", pc_strerror());
	fflush(NULL);
	snprintf(e->state, sizeof(e->state), "finished");
	e->status = rc;
	/* Unless a stop found it stale and removed it meanwhile (it took us for another
	 * process): a removed entry stays removed. */
	struct registry_entry now;
	if (registry_read(reg, o->name, &now) > 0 && now.pid == e->pid &&
	    now.starttime == e->starttime)
		registry_write(reg, o->name, e, false);
	registry_entry_release(&now);
	/* A forked copy of the command: its work is done, and the caller's stack is not its own. */
	_exit(rc);
}

/* An existing entry before a start: a live collector is an error; a finished one is
 * reported and cleared; a stale one is explained (and cleared). */
static int clear_old_entry(struct registry *r, const char *name)
{
	struct registry_entry e;
	int rr = registry_read(r, name, &e);
	if (rr <= 0)
		return rr;
	int rc = 0;
	if (!strcmp(e.state, "finished")) {
		fprintf(stderr,
			"perfcollect-c: note: the earlier background collection '%s' had finished "
			"(status %d) and was never stopped; its output was:\n",
			name, e.status);
		relay_output(r, name, e.shown, -1);
		registry_remove(r, name);
	} else if (registry_entry_alive(&e)) {
		rc = pc_err("'%s' is already collecting in the background (pid %ld, since %s, "
			    "into %s); 'perfcollect-c stop %s' ends it",
			    name, e.pid, e.started, e.zip, name);
	} else {
		rc = explain_stale(r, name, &e);
	}
	registry_entry_release(&e);
	return rc;
}

/* A command started with 0, 1 or 2 closed (CI, cron) would hand them out as the output file
 * or the pipe, and the child's redirections would then close what they mean to keep. */
static void open_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
			if (n >= 0 && n != fd) {
				dup2(n, fd);
				close(n);
			}
		}
}

/* The output directory, made and made absolute: stop runs anywhere. */
static char *absolute_outdir(const char *outdir)
{
	const char *dir = outdir && *outdir ? outdir : ".";
	if (strchr(dir, '\n')) {
		pc_err("-o: a directory whose name holds a newline is refused");
		return NULL;
	}
	if (mkdir_p(dir, 0700) < 0) /* as collect makes it */
		return NULL;
	char *abs = realpath(dir, NULL);
	if (!abs)
		pc_err_errno("cannot resolve %s", dir);
	return abs;
}

int collect_bg_start(struct collect_opts *o)
{
	open_std_fds();
	if (registry_check_name(o->name) < 0)
		return -1;
	char *abs = absolute_outdir(o->outdir);
	if (!abs)
		return -1;
	struct registry *reg = registry_open(true);
	struct registry_entry e = {.zip = tracefile_path(abs, o->name, TRACE_ZIP_SUFFIX),
				   .trace_dir = tracefile_path(abs, o->name, TRACE_DIR_SUFFIX)};
	char *hint = xasprintf("'perfcollect-c stop %s' stops it", o->name);
	const char *given_outdir = o->outdir;
	int rc = -1, pipefd[2] = {-1, -1};
	if (!reg || clear_old_entry(reg, o->name) < 0)
		goto out;
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		pc_err_errno("pipe failed");
		goto out;
	}
	o->outdir = abs;
	o->stop_hint = hint;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		pc_err_errno("fork failed");
		goto out;
	}
	if (pid == 0) {
		close(pipefd[0]);
		run_child(o, reg, &e, pipefd[1]);
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	char ok = 0;
	ssize_t n;
	do
		n = read(pipefd[0], &ok, 1);
	while (n < 0 && errno == EINTR);
	struct registry_entry now;
	int rr = registry_read(reg, o->name, &now);
	bool ours = rr > 0 && now.pid == pid;
	if (n == 1 && ok == 'R' && ours) {
		relay_output(reg, o->name, 0, now.shown);
		fprintf(stderr,
			"perfcollect-c: collecting '%s' in the background (pid %d); "
			"'perfcollect-c stop %s' (from any directory) ends it and writes %s\n",
			o->name, (int)pid, o->name, e.zip);
		rc = 0;
	} else {
		/* The collector ended before recording: its messages say why. */
		int status;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (ours) {
			relay_output(reg, o->name, 0, -1);
			registry_remove(reg, o->name);
		}
		pc_err("the background collection did not start");
	}
	if (rr > 0)
		registry_entry_release(&now);
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	free(hint);
	registry_entry_release(&e);
	registry_free(reg);
	o->outdir = given_outdir;
	free(abs);
	return rc;
}

/* ---- stop ---- */

static int wait_exit(long pid, int pidfd)
{
	if (pidfd >= 0) {
		struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
		while (poll(&pfd, 1, -1) < 0)
			if (errno != EINTR)
				return pc_err_errno("waiting for pid %ld failed", pid);
		return 0;
	}
	/* Without pidfds (Linux < 5.3): look again every 100 ms. */
	while (kill((pid_t)pid, 0) == 0 || errno == EPERM) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Says where the zip went when stop -o named another directory. */
static void note_outdir(const char *outdir, const struct registry_entry *e)
{
	if (!outdir)
		return;
	char *want = realpath(outdir, NULL);
	size_t len = want ? strlen(want) : 0;
	if (!want || strncmp(e->zip, want, len) || e->zip[len] != '/' ||
	    strchr(e->zip + len + 1, '/'))
		fprintf(stderr, "perfcollect-c: note: -o %s: the zip goes where start put it: %s\n",
			outdir, e->zip);
	free(want);
}

/* The entry once its collector is gone: 0 when it finished (*e is its last state now),
 * else -1 (pc_err): it died without finishing, which is explained and the entry removed. */
static int reread_finished(struct registry *r, const char *name, struct registry_entry *e)
{
	struct registry_entry now;
	if (registry_read(r, name, &now) <= 0 || strcmp(now.state, "finished")) {
		registry_entry_release(&now);
		return explain_stale(r, name, e);
	}
	registry_entry_release(e);
	*e = now;
	return 0;
}

/* Signals a live collector, waits until it is gone and rereads its entry.  0 when the
 * entry is finished now, -1 (pc_err, entry removed) when it is stale. */
static int stop_live(struct registry *r, const char *name, struct registry_entry *e)
{
	int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)e->pid, 0);
	/* Checked after the pidfd is open: the pidfd then is this collector, not a process
	 * that got its PID later. */
	if (!registry_entry_alive(e)) {
		if (pidfd >= 0)
			close(pidfd);
		/* It may have finished between the two reads. */
		return reread_finished(r, name, e);
	}
	int sent = pidfd >= 0 ? (int)syscall(SYS_pidfd_send_signal, pidfd, SIGINT, NULL, 0)
			      : kill((pid_t)e->pid, SIGINT);
	if (sent < 0) {
		pc_err_errno("cannot stop pid %ld (run stop as the user who ran start)", e->pid);
		if (pidfd >= 0)
			close(pidfd);
		return -1;
	}
	fprintf(stderr, "perfcollect-c: stopping '%s' (pid %ld); waiting for %s ...\n", name,
		e->pid, e->zip);
	int w = wait_exit(e->pid, pidfd);
	if (pidfd >= 0)
		close(pidfd);
	return w < 0 ? -1 : reread_finished(r, name, e);
}

static int stop_one(struct registry *r, const char *name, const char *outdir)
{
	struct registry_entry e;
	int rr = registry_read(r, name, &e);
	if (rr < 0)
		return -1;
	if (rr == 0) {
		char *dir = tracefile_path(NULL, name, TRACE_DIR_SUFFIX);
		struct stat sb;
		if (lstat(dir, &sb) == 0)
			pc_err("no background collection '%s' runs (none in %s), but %s is here: "
			       "'perfcollect-c merge %s' makes its trace.zip",
			       name, registry_path(r), dir, dir);
		else
			pc_err("no background collection '%s' (none in %s); 'perfcollect-c stop' "
			       "without a name lists those there are%s",
			       name, registry_path(r),
			       geteuid() ? "; one started as root is stopped as root" : "");
		free(dir);
		return -1;
	}
	int rc = -1;
	note_outdir(outdir, &e);
	if (strcmp(e.state, "finished")) {
		if (stop_live(r, name, &e) < 0)
			goto out;
	} else {
		fprintf(stderr, "perfcollect-c: '%s' had already finished by itself:\n", name);
	}
	relay_output(r, name, e.shown, -1);
	registry_remove(r, name);
	rc = e.status == 0 ? 0 : 1;
out:
	registry_entry_release(&e);
	return rc;
}

/* How an entry stands: "recording" (or "starting", "finished"), or "stale". */
static const char *standing(const struct registry_entry *e)
{
	if (!strcmp(e->state, "finished") || registry_entry_alive(e))
		return e->state;
	return "stale";
}

static void list_line(FILE *f, const char *name, const struct registry_entry *e)
{
	fprintf(f, "%-16s %-9s pid %-7ld since %s  %s\n", name, standing(e), e->pid, e->started,
		e->zip);
}

/* stop without a name: stale entries explained and removed, then the only one left. */
static int stop_only(struct registry *r, const char *outdir)
{
	char **names;
	size_t n, live = 0;
	if (registry_names(r, &names, &n) < 0)
		return -1;
	char **keep = xcalloc(n + 1, sizeof(*keep));
	for (size_t i = 0; i < n; i++) {
		struct registry_entry e;
		if (registry_read(r, names[i], &e) <= 0) {
			fprintf(stderr, "perfcollect-c: warning: %s\n", pc_strerror());
			continue;
		}
		if (!strcmp(standing(&e), "stale")) {
			explain_stale(r, names[i], &e);
			fprintf(stderr, "perfcollect-c: %s\n", pc_strerror());
		} else {
			keep[live++] = names[i];
		}
		registry_entry_release(&e);
	}
	int rc;
	if (live == 1) {
		rc = stop_one(r, keep[0], outdir);
	} else if (!live) {
		rc = pc_err("no background collection runs (none in %s); 'perfcollect-c start "
			    "NAME' starts one%s",
			    registry_path(r),
			    geteuid() ? "; one started as root is stopped as root" : "");
	} else {
		fprintf(stderr, "perfcollect-c: %zu background collections run:\n", live);
		for (size_t i = 0; i < live; i++) {
			struct registry_entry e;
			if (registry_read(r, keep[i], &e) > 0) {
				fputs("  ", stderr);
				list_line(stderr, keep[i], &e);
				registry_entry_release(&e);
			}
		}
		rc = pc_err("which one? 'perfcollect-c stop NAME' stops one");
	}
	free(keep);
	registry_names_free(names, n);
	return rc;
}

int collect_bg_stop(const char *name, const char *outdir)
{
	if (name && registry_check_name(name) < 0)
		return -1;
	struct registry *r = registry_open(false);
	if (!r)
		return -1;
	int rc = name ? stop_one(r, name, outdir) : stop_only(r, outdir);
	registry_free(r);
	return rc;
}

int collect_bg_list(FILE *f)
{
	struct registry *r = registry_open(false);
	if (!r)
		return -1;
	char **names;
	size_t n;
	int rc = registry_names(r, &names, &n);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct registry_entry e;
		if (registry_read(r, names[i], &e) > 0) {
			list_line(f, names[i], &e);
			registry_entry_release(&e);
		}
	}
	if (rc == 0)
		registry_names_free(names, n);
	registry_free(r);
	return rc;
}
