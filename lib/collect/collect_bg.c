/* collect_bg: see collect_bg.h.  The state file is a few "key value" lines, replaced whole
 * (temporary name + rename) at each change, so a reader never sees half of one:
 *
 *   pid 4242
 *   starttime 1234567      (field 22 of /proc/<pid>/stat: clock ticks since boot)
 *   boot_id 0b5e...        (/proc/sys/kernel/random/boot_id)
 *   started 2026-01-01T10:00:00Z
 *   state starting | recording | finished
 *   status 0               (collect's exit status, once finished)
 *   shown 312              (bytes of the .out file that start already showed)
 */
#include "collect_bg.h"
#include "collect.h"
#include "base/outfile.h"
#include "base/proc.h"
#include "base/tracefile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct bg_state {
	long pid;
	unsigned long long starttime;
	char boot_id[64];
	char started[32];
	char state[16];
	int status; /* -1 until finished */
	long shown; /* bytes of the output start showed */
};

struct bg_paths {
	char *state, *out, *trace_dir, *zip;
};

static void paths_init(struct bg_paths *p, const char *name, const char *outdir)
{
	p->state = tracefile_path(outdir, name, TRACE_DIR_SUFFIX ".state");
	p->out = tracefile_path(outdir, name, TRACE_DIR_SUFFIX ".out");
	p->trace_dir = tracefile_path(outdir, name, TRACE_DIR_SUFFIX);
	p->zip = tracefile_path(outdir, name, TRACE_ZIP_SUFFIX);
}

static void paths_free(struct bg_paths *p)
{
	free(p->state);
	free(p->out);
	free(p->trace_dir);
	free(p->zip);
}

static void read_boot_id(char *buf, size_t len)
{
	char *s = sysctl_read("kernel.random.boot_id");
	snprintf(buf, len, "%s", s ? s : "unknown");
	free(s);
}

static int state_write(const char *path, const struct bg_state *st)
{
	char *text = xasprintf("pid %ld\nstarttime %llu\nboot_id %s\nstarted %s\nstate %s\n",
			       st->pid, st->starttime, st->boot_id, st->started, st->state);
	if (st->status >= 0) {
		char *more = xasprintf("%sstatus %d\n", text, st->status);
		free(text);
		text = more;
	}
	char *more = xasprintf("%sshown %ld\n", text, st->shown);
	free(text);
	text = more;
	int rc = -1;
	struct outfile *o = outfile_open(path);
	if (o && write_all(outfile_fd(o), text, strlen(text)) < 0) {
		pc_err_errno("cannot write %s", path);
		outfile_abort(o);
	} else if (o) {
		rc = outfile_commit(o);
	}
	free(text);
	return rc;
}

/* 1 read, 0 no state file, -1 unreadable (pc_err). */
static int state_read(const char *path, struct bg_state *st)
{
	memset(st, 0, sizeof(*st));
	st->status = -1;
	size_t len;
	char *s = read_file(path, &len);
	if (!s)
		return errno == ENOENT ? 0 : pc_err_errno("cannot read %s", path);
	bool have_pid = false;
	for (char *line = s, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *val = strchr(line, ' ');
		if (!val)
			continue;
		*val++ = '\0';
		if (!strcmp(line, "pid"))
			have_pid = (st->pid = strtol(val, NULL, 10)) > 0;
		else if (!strcmp(line, "starttime"))
			st->starttime = strtoull(val, NULL, 10);
		else if (!strcmp(line, "boot_id"))
			snprintf(st->boot_id, sizeof(st->boot_id), "%s", val);
		else if (!strcmp(line, "started"))
			snprintf(st->started, sizeof(st->started), "%s", val);
		else if (!strcmp(line, "state"))
			snprintf(st->state, sizeof(st->state), "%s", val);
		else if (!strcmp(line, "status"))
			st->status = atoi(val);
		else if (!strcmp(line, "shown"))
			st->shown = strtol(val, NULL, 10);
	}
	free(s);
	if (!have_pid)
		return pc_err("%s is not a perfcollect-c state file (no pid); remove it", path);
	return 1;
}

/* Is the process the state names still its collector?  Same boot, same start time. */
static bool state_alive(const struct bg_state *st)
{
	char boot[64];
	read_boot_id(boot, sizeof(boot));
	return !strcmp(boot, st->boot_id) && st->starttime && st->pid <= INT32_MAX &&
	       proc_start_time((pid_t)st->pid) == st->starttime;
}

/* Copies the collector's output from byte `from` on (to `to`, or the end if < 0) to stderr. */
static void relay_output(const char *path, long from, long to)
{
	size_t len;
	char *s = read_file(path, &len);
	if (s && from >= 0 && (size_t)from < len)
		fwrite(s + from, 1,
		       to >= 0 && (size_t)to < len ? (size_t)(to - from) : len - (size_t)from,
		       stderr);
	free(s);
}

static void remove_state(const struct bg_paths *p)
{
	unlink(p->state);
	unlink(p->out);
}

/* Says why a state's collector is gone, removes the state, returns -1. */
static int explain_stale(const struct bg_paths *p, const struct bg_state *st, const char *name)
{
	struct stat sb;
	bool have_dir = lstat(p->trace_dir, &sb) == 0;
	relay_output(p->out, st->shown, -1);
	remove_state(p);
	if (have_dir)
		return pc_err("the background collection '%s' (pid %ld, started %s) ended without "
			      "finishing (killed, crashed, or the machine restarted); what it "
			      "recorded is in %s: 'perfcollect-c merge %s' makes the trace.zip",
			      name, st->pid, st->started, p->trace_dir, p->trace_dir);
	return pc_err("the background collection '%s' (pid %ld, started %s) ended without "
		      "finishing (killed, crashed, or the machine restarted) and left no %s",
		      name, st->pid, st->started, p->trace_dir);
}

/* ---- start ---- */

struct child {
	struct bg_paths *paths;
	struct bg_state st;
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
	c->st.shown = fstat(STDERR_FILENO, &sb) == 0 ? (long)sb.st_size : 0;
	snprintf(c->st.state, sizeof(c->st.state), "recording");
	if (state_write(c->paths->state, &c->st) < 0)
		fprintf(stderr, "perfcollect-c: warning: %s\n", pc_strerror());
	char ok = 'R';
	if (write(c->ready_fd, &ok, 1) != 1)
		fprintf(stderr, "perfcollect-c: warning: start is gone: %s\n", strerror(errno));
	close(c->ready_fd);
	c->ready_fd = -1;
}

/* The forked collector: its own session, output to the .out file, never returns. */
static void run_child(struct collect_opts *o, struct bg_paths *p, int ready_fd, int out_fd)
{
	setsid();
	dup2(out_fd, STDOUT_FILENO);
	dup2(out_fd, STDERR_FILENO);
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd >= 0)
		dup2(null_fd, STDIN_FILENO);
	struct child c = {.paths = p, .ready_fd = ready_fd};
	c.st.pid = getpid();
	c.st.starttime = proc_start_time((pid_t)c.st.pid);
	c.st.status = -1;
	read_boot_id(c.st.boot_id, sizeof(c.st.boot_id));
	now_utc(c.st.started, sizeof(c.st.started));
	snprintf(c.st.state, sizeof(c.st.state), "starting");
	int rc = 1;
	if (state_write(p->state, &c.st) < 0) {
		fprintf(stderr, "perfcollect-c: %s\n", pc_strerror());
	} else {
		o->on_recording = on_recording;
		o->on_recording_arg = &c;
		rc = collect_run(o) < 0 ? 1 : 0;
		if (rc)
			fprintf(stderr, "perfcollect-c: %s\n", pc_strerror());
	}
	snprintf(c.st.state, sizeof(c.st.state), "finished");
	c.st.status = rc;
	state_write(p->state, &c.st);
	fflush(NULL);
	/* A forked copy of the command: its work is done, and the caller's stack is not its own. */
	_exit(rc);
}

/* An existing state before a start: a live collector is an error; a finished or stale one is
 * cleared when it left nothing in the way. */
static int clear_old_state(const struct bg_paths *p, const char *name, const char *again)
{
	struct bg_state st;
	int r = state_read(p->state, &st);
	if (r <= 0)
		return r;
	if (!strcmp(st.state, "finished")) {
		fprintf(stderr,
			"perfcollect-c: note: the earlier background collection '%s' had finished "
			"(status %d) and was never stopped; its output was:\n",
			name, st.status);
		relay_output(p->out, st.shown, -1);
		remove_state(p);
		return 0;
	}
	if (state_alive(&st))
		return pc_err("'%s' is already collecting in the background (pid %ld, since %s); "
			      "'perfcollect-c stop %s%s' ends it",
			      name, st.pid, st.started, name, again);
	return explain_stale(p, &st, name);
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

int collect_bg_start(struct collect_opts *o)
{
	open_std_fds();
	struct bg_paths p;
	paths_init(&p, o->name, o->outdir);
	char *again = o->outdir && *o->outdir ? xasprintf(" -o %s", o->outdir) : xstrdup("");
	char *hint = xasprintf("'perfcollect-c stop %s%s' stops it", o->name, again);
	int rc = -1, pipefd[2] = {-1, -1}, out_fd = -1;
	if (strchr(o->name, '/') || !*o->name) {
		pc_err("trace name '%s' must be a plain name (use -o DIR for the directory)",
		       o->name);
		goto out;
	}
	if (mkdir_p(o->outdir && *o->outdir ? o->outdir : ".", 0700) < 0 ||
	    clear_old_state(&p, o->name, again) < 0)
		goto out;
	out_fd = outfile_create(p.out, OUTFILE_REPLACE | OUTFILE_APPEND);
	if (out_fd < 0)
		goto out;
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		pc_err_errno("pipe failed");
		goto out;
	}
	o->stop_hint = hint;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		pc_err_errno("fork failed");
		goto out;
	}
	if (pid == 0) {
		close(pipefd[0]);
		run_child(o, &p, pipefd[1], out_fd);
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	char ok = 0;
	ssize_t n;
	do
		n = read(pipefd[0], &ok, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && ok == 'R') {
		struct bg_state st;
		if (state_read(p.state, &st) > 0)
			relay_output(p.out, 0, st.shown);
		fprintf(stderr,
			"perfcollect-c: collecting '%s' in the background (pid %d); "
			"'perfcollect-c stop %s%s' ends it and writes %s\n",
			o->name, (int)pid, o->name, again, p.zip);
		rc = 0;
		goto out;
	}
	/* The collector ended before recording: its messages say why. */
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	relay_output(p.out, 0, -1);
	remove_state(&p);
	pc_err("the background collection did not start");
	rc = -1;
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (out_fd >= 0)
		close(out_fd);
	free(hint);
	free(again);
	paths_free(&p);
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

int collect_bg_stop(const char *name, const char *outdir)
{
	struct bg_paths p;
	paths_init(&p, name, outdir);
	int rc = -1;
	struct bg_state st;
	int r = state_read(p.state, &st);
	if (r == 0) {
		struct stat sb;
		if (lstat(p.trace_dir, &sb) == 0)
			pc_err("no background collection '%s' runs (no %s), but %s is there: "
			       "'perfcollect-c merge %s' makes its trace.zip",
			       name, p.state, p.trace_dir, p.trace_dir);
		else
			pc_err("no background collection '%s' (no %s); 'perfcollect-c start %s' "
			       "starts one%s",
			       name, p.state, name,
			       outdir ? "" : " (use -o DIR when it was started with -o DIR)");
	}
	if (r <= 0)
		goto out;
	if (strcmp(st.state, "finished")) {
		int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)st.pid, 0);
		/* Checked after the pidfd is open: the pidfd then is this collector, not a
		 * process that got its PID later. */
		if (!state_alive(&st)) {
			if (pidfd >= 0)
				close(pidfd);
			struct bg_state again;
			/* It may have finished between the two reads. */
			if (state_read(p.state, &again) <= 0 || strcmp(again.state, "finished")) {
				explain_stale(&p, &st, name);
				goto out;
			}
			st = again;
		} else {
			int sent = pidfd >= 0
				       ? (int)syscall(SYS_pidfd_send_signal, pidfd, SIGINT, NULL, 0)
				       : kill((pid_t)st.pid, SIGINT);
			if (sent < 0) {
				pc_err_errno(
				    "cannot stop pid %ld (run stop as the user who ran start)",
				    st.pid);
				if (pidfd >= 0)
					close(pidfd);
				goto out;
			}
			fprintf(stderr,
				"perfcollect-c: stopping '%s' (pid %ld); waiting for %s ...\n",
				name, st.pid, p.zip);
			int w = wait_exit(st.pid, pidfd);
			if (pidfd >= 0)
				close(pidfd);
			if (w < 0)
				goto out;
			if (state_read(p.state, &st) <= 0 || strcmp(st.state, "finished")) {
				explain_stale(&p, &st, name);
				goto out;
			}
		}
	} else {
		fprintf(stderr, "perfcollect-c: '%s' had already finished by itself:\n", name);
	}
	relay_output(p.out, st.shown, -1);
	remove_state(&p);
	rc = st.status == 0 ? 0 : 1;
out:
	paths_free(&p);
	return rc;
}
