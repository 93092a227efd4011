/* eventpipe_collect: see eventpipe_collect.h. */
#include "eventpipe_collect.h"
#include "base/search.h"
#include "base/log.h"
#include "base/outfile.h"
#include "base/proc.h"
#include "dotnet_ipc.h"
#include "dotnet_guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SCAN_INTERVAL_NS 1000000000ULL /* how soon a new .NET process is found */
#define YOUNG_S		 10	       /* a process this young may still be loading its runtime */
#define CHUNK		 (256 * 1024)
#define CHUNKS_PER_ROUND 8 /* per stream and poll round: a busy one does not starve others */

enum target_state { STREAMING, STOPPING, DONE };

struct target {
	pid_t pid;
	unsigned long long start_time;
	struct eventpipe_session s;
	int out;
	char *path;
	uint64_t bytes;
	int stop_fd; /* the StopTracing answer's connection, or -1 */
	enum target_state state;
	bool write_failed, stop_sent;
	bool capped; /* eventpipe_stream_max() reached: the rest is dropped */
};

/* A process seen by a scan, and what became of it. */
struct seen {
	pid_t pid;
	unsigned long long start_time;
	char comm[32];
	bool decided; /* a target now, or given up on */
};

struct eventpipe_collector {
	char *trace_dir;
	pid_t pid;
	const struct eventpipe_config *config;
	struct target *targets;
	size_t ntargets, targets_cap;
	struct seen *seen;
	size_t nseen;
	struct dotnet_guard *guard; /* the caller's */
	pthread_t thread;
	bool thread_running;
	int wake[2];
	uint8_t *buf;
	uint64_t stream_max; /* eventpipe_stream_max() */
	uint64_t next_scan;
	bool stopping;
	uint64_t deadline;
	uint64_t started, failed;
};

/* ---- /proc ---------------------------------------------------------------------------------- */

/* comm and start time (clock ticks after boot) of pid; -1 when it is gone. */
static int proc_stat_of(pid_t pid, char *comm, size_t commlen, unsigned long long *start)
{
	struct proc_stat st;
	if (proc_task_stat(pid, pid, &st) < 0)
		return -1;
	snprintf(comm, commlen, "%s", st.comm);
	*start = st.starttime;
	return 0;
}

/* Seconds since the process started. */
static double age_of(unsigned long long start_ticks)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	long hz = sysconf(_SC_CLK_TCK);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9 -
	       (double)start_ticks / (double)(hz > 0 ? hz : 100);
}

/* ---- sessions ------------------------------------------------------------------------------- */

static char *trace_file(struct eventpipe_collector *c, pid_t pid, int *fd)
{
	for (int n = 1; n < 100; n++) {
		char *path = n == 1
				 ? xasprintf("%s/dotnet-%d.nettrace", c->trace_dir, (int)pid)
				 : xasprintf("%s/dotnet-%d-%d.nettrace", c->trace_dir, (int)pid, n);
		*fd = outfile_create(path, 0);
		if (*fd >= 0)
			return path;
		if (errno != EEXIST) {
			free(path);
			return NULL;
		}
		free(path);
	}
	pc_err("too many trace files for pid %d", (int)pid);
	return NULL;
}

/* Starts pid's session; false with pc_err() when it cannot. */
static bool start_target(struct eventpipe_collector *c, pid_t pid, unsigned long long start)
{
	struct eventpipe_session s;
	if (eventpipe_session_start(pid, c->config, &s) < 0)
		return false;
	/* Reads must not wait: poll() says when there is something, drain() takes it all. */
	fcntl(s.fd, F_SETFL, fcntl(s.fd, F_GETFL) | O_NONBLOCK);
	int out;
	char *path = trace_file(c, pid, &out);
	if (!path) {
		char *why = xstrdup(pc_strerror());
		int afd = eventpipe_session_stop_send(&s);
		eventpipe_session_close(&s); /* the runtime ends it at its next write anyway */
		if (afd >= 0)
			close(afd);
		pc_err("%s", why);
		free(why);
		return false;
	}
	dotnet_guard_session(c->guard, pid, start, s.id, true);
	grow_array((void **)&c->targets, &c->targets_cap, c->ntargets + 1, sizeof(*c->targets));
	c->targets[c->ntargets++] = (struct target){
	    .pid = pid, .start_time = start, .s = s, .out = out, .path = path, .stop_fd = -1};
	c->started++;
	bool filtered = false;
	for (size_t i = 0; i < c->config->nproviders; i++)
		filtered |= c->config->providers[i].nids != 0;
	if (s.command == 2 && filtered)
		log_info(
		    "pid %d: its runtime (before .NET 10) cannot filter by event id: it records "
		    "every event of the chosen keywords and levels",
		    (int)pid);
	const char *base = strrchr(path, '/');
	log_say("pid %d: recording its .NET runtime events (EventPipe session, CollectTracing%d) "
		"into %s",
		(int)pid, s.command, base ? base + 1 : path);
	return true;
}

static void end_target(struct eventpipe_collector *c, struct target *t, const char *how)
{
	if (t->state == DONE)
		return;
	dotnet_guard_session(c->guard, t->pid, t->start_time, t->s.id, false);
	eventpipe_session_close(&t->s);
	if (t->stop_fd >= 0)
		close(t->stop_fd);
	t->stop_fd = -1;
	if (t->out >= 0 && close(t->out) < 0 && !t->write_failed)
		log_warn("%s: %s", t->path, strerror(errno));
	t->out = -1;
	t->state = DONE;
	log_info("pid %d: EventPipe session %#llx %s; %llu bytes in %s", (int)t->pid,
		 (unsigned long long)t->s.id, how, (unsigned long long)t->bytes, t->path);
}

uint64_t eventpipe_stream_max(void)
{
	uint64_t max = EVENTPIPE_STREAM_MAX_DEFAULT;
	if (env_size("PERFCOLLECT_C_NETTRACE_MAX", &max) < 0)
		log_warn("%s; using 4G", pc_strerror());
	return max;
}

/* Moves what the runtime sent to the file; ends the target at the end of its stream. */
static void drain(struct eventpipe_collector *c, struct target *t)
{
	for (int i = 0; i < CHUNKS_PER_ROUND; i++) {
		ssize_t n = read(t->s.fd, c->buf, CHUNK);
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			end_target(c, t,
				   n < 0       ? "ended with a read error"
				   : t->capped ? "stopped at the size cap"
				   : t->state == STOPPING
				       ? "stopped; rundown written"
				       : "ended by the runtime (the process exited?)");
			return;
		}
		size_t take = (size_t)n;
		if (t->write_failed || t->capped)
			take = 0;
		else if (t->bytes + take > c->stream_max)
			take = (size_t)(c->stream_max - t->bytes);
		if (take && write_all(t->out, c->buf, take) < 0) {
			t->write_failed = true;
			log_warn("pid %d: cannot write %s (%s); its .NET events end here",
				 (int)t->pid, t->path, pc_strerror());
		} else {
			t->bytes += take;
		}
		if (!t->write_failed && !t->capped && take < (size_t)n) {
			t->capped = true;
			log_warn("pid %d: its .NET events reached %llu bytes, the most kept "
				 "(PERFCOLLECT_C_NETTRACE_MAX raises it): %s ends there",
				 (int)t->pid, (unsigned long long)c->stream_max, t->path);
		}
		/* Keep reading (the runtime must not block on us), stop the session. */
		if ((t->write_failed || t->capped) && !t->stop_sent) {
			t->stop_fd = eventpipe_session_stop_send(&t->s);
			t->stop_sent = true;
		}
		if (n < CHUNK)
			return;
	}
}

static void send_stop(struct target *t)
{
	if (t->state != STREAMING)
		return;
	t->state = STOPPING;
	if (t->stop_sent)
		return;
	t->stop_sent = true;
	t->stop_fd = eventpipe_session_stop_send(&t->s);
	if (t->stop_fd < 0) /* the process is gone: its stream ends by itself */
		log_info("pid %d: StopTracing not sent: %s", (int)t->pid, pc_strerror());
}

/* ---- finding .NET processes ---------------------------------------------------------------- */

static struct seen *find_seen(struct eventpipe_collector *c, pid_t pid)
{
	size_t lo = LOWER_BOUND(c->nseen, i, c->seen[i].pid < pid);
	return lo < c->nseen && c->seen[lo].pid == pid ? &c->seen[lo] : NULL;
}

static int cmp_seen(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Looks at one process: starts its session when it runs .NET. */
static void consider(struct eventpipe_collector *c, struct seen *now, const struct seen *before)
{
	if (before && before->start_time == now->start_time) {
		now->decided = before->decided;
		/* exec changes the comm: a process that became .NET is looked at again */
		if (now->decided && !strcmp(before->comm, now->comm))
			return;
		if (!now->decided && !strcmp(before->comm, now->comm) &&
		    age_of(now->start_time) > YOUNG_S)
			return;
	}
	now->decided = false;
	if (!dotnet_runtime_present(now->pid)) {
		/* a young process may still be loading its runtime: look again next time */
		now->decided = age_of(now->start_time) > YOUNG_S;
		return;
	}
	if (start_target(c, now->pid, now->start_time)) {
		now->decided = true;
		return;
	}
	/* The diagnostics server starts a moment after the runtime loads: retry a young one. */
	if (age_of(now->start_time) <= 2 && strstr(pc_strerror(), "no diagnostics socket"))
		return;
	now->decided = true;
	c->failed++;
	log_warn("pid %d (%s): no .NET runtime events: %s", (int)now->pid, now->comm,
		 pc_strerror());
}

static void scan(struct eventpipe_collector *c)
{
	pid_t *pids;
	size_t n;
	if (proc_pids(&pids, &n) < 0)
		return;
	struct seen *next = xcalloc(n ? n : 1, sizeof(*next));
	size_t m = 0;
	pid_t self = getpid(), guard = dotnet_guard_pid(c->guard);
	for (size_t i = 0; i < n; i++) {
		if (pids[i] == self || pids[i] == guard)
			continue;
		struct seen *s = &next[m];
		s->pid = pids[i];
		if (proc_stat_of(s->pid, s->comm, sizeof(s->comm), &s->start_time) < 0)
			continue;
		m++;
	}
	qsort(next, m, sizeof(*next), cmp_seen);
	for (size_t i = 0; i < m; i++) {
		bool running = false;
		for (size_t k = 0; k < c->ntargets && !running; k++)
			running = c->targets[k].pid == next[i].pid &&
				  c->targets[k].start_time == next[i].start_time &&
				  c->targets[k].state != DONE;
		if (running) {
			next[i].decided = true;
			continue;
		}
		consider(c, &next[i], find_seen(c, next[i].pid));
	}
	free(c->seen);
	c->seen = next;
	c->nseen = m;
	free(pids);
}

/* ---- the thread ----------------------------------------------------------------------------- */

static void *run(void *arg)
{
	struct eventpipe_collector *c = arg;
	struct pollfd *pfd = NULL;
	size_t pfd_cap = 0;
	bool said_waiting = false;
	for (;;) {
		uint64_t now = monotonic_ns();
		size_t open = 0;
		for (size_t i = 0; i < c->ntargets; i++)
			open += c->targets[i].state != DONE;
		if (c->stopping && !open)
			break;
		if (c->stopping && now >= c->deadline) {
			for (size_t i = 0; i < c->ntargets; i++)
				if (c->targets[i].state != DONE) {
					log_warn("pid %d: its runtime did not finish the rundown "
						 "in %d s; "
						 "%s may lack method names",
						 (int)c->targets[i].pid, EVENTPIPE_RUNDOWN_WAIT_S,
						 c->targets[i].path);
					end_target(c, &c->targets[i],
						   "abandoned during the rundown");
				}
			break;
		}
		if (c->stopping && !said_waiting &&
		    now >= c->deadline - (uint64_t)(EVENTPIPE_RUNDOWN_WAIT_S - 1) * 1000000000ULL) {
			log_say("Waiting for the rundown of %zu .NET process%s (method names)...",
				open, open == 1 ? "" : "es");
			said_waiting = true;
		}
		grow_array((void **)&pfd, &pfd_cap, 1 + 2 * c->ntargets, sizeof(*pfd));
		size_t np = 0;
		pfd[np++] = (struct pollfd){.fd = c->wake[0], .events = POLLIN};
		for (size_t i = 0; i < c->ntargets; i++) {
			struct target *t = &c->targets[i];
			if (t->state == DONE)
				continue;
			pfd[np++] = (struct pollfd){.fd = t->s.fd, .events = POLLIN};
			if (t->stop_fd >= 0)
				pfd[np++] = (struct pollfd){.fd = t->stop_fd, .events = POLLIN};
		}
		int timeout = 1000;
		if (c->stopping)
			timeout = said_waiting ? 1000 : 200;
		else if (c->pid < 0)
			timeout =
			    c->next_scan > now ? (int)((c->next_scan - now) / 1000000) + 1 : 0;
		if (poll(pfd, np, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents) {
			char b[16];
			if (read(c->wake[0], b, sizeof(b)) > 0 && !c->stopping) {
				c->stopping = true;
				c->deadline =
				    monotonic_ns() + EVENTPIPE_RUNDOWN_WAIT_S * 1000000000ULL;
				for (size_t i = 0; i < c->ntargets; i++)
					send_stop(&c->targets[i]);
			}
		}
		for (size_t k = 1; k < np; k++) {
			if (!pfd[k].revents)
				continue;
			for (size_t i = 0; i < c->ntargets; i++) {
				struct target *t = &c->targets[i];
				if (t->state == DONE)
					continue;
				if (pfd[k].fd == t->s.fd) {
					drain(c, t);
				} else if (pfd[k].fd == t->stop_fd) {
					if (eventpipe_session_stop_answer(&t->s, t->stop_fd) < 0)
						log_info("pid %d: %s", (int)t->pid, pc_strerror());
					t->stop_fd = -1;
				}
			}
		}
		if (!c->stopping && c->pid < 0 && monotonic_ns() >= c->next_scan) {
			scan(c);
			c->next_scan = monotonic_ns() + SCAN_INTERVAL_NS;
		}
	}
	free(pfd);
	return NULL;
}

struct eventpipe_collector *eventpipe_collector_start(const struct eventpipe_collect_opts *o)
{
	struct eventpipe_collector *c = xcalloc(1, sizeof(*c));
	c->trace_dir = xstrdup(o->trace_dir);
	c->pid = o->pid;
	c->config = o->config;
	c->buf = xmalloc(CHUNK);
	c->stream_max = eventpipe_stream_max();
	if (pipe2(c->wake, O_CLOEXEC) < 0) {
		pc_err_errno("pipe");
		free(c->buf);
		free(c->trace_dir);
		free(c);
		return NULL;
	}
	char *what = eventpipe_config_describe(o->config);
	log_info(".NET runtime events (EventPipe): %s; rundown keywords %#llx", what,
		 (unsigned long long)o->config->rundown_keywords);
	free(what);
	c->guard = o->guard;
	if (o->pid > 0) {
		char comm[32] = "";
		unsigned long long start = 0;
		proc_stat_of(o->pid, comm, sizeof(comm), &start);
		if (!dotnet_runtime_present(o->pid))
			log_info("pid %d: no .NET runtime; no .NET runtime events", (int)o->pid);
		else if (!start_target(c, o->pid, start))
			log_warn("pid %d: no .NET runtime events: %s", (int)o->pid, pc_strerror());
	} else {
		scan(c);
		c->next_scan = monotonic_ns() + SCAN_INTERVAL_NS;
		if (!c->started)
			log_info(
			    "no .NET process with an EventPipe session yet; looking for new ones "
			    "every second");
	}
	if (pthread_create(&c->thread, NULL, run, c) == 0)
		c->thread_running = true;
	else
		log_warn("cannot start the EventPipe thread; .NET runtime events are not recorded");
	return c;
}

void eventpipe_collector_stop(struct eventpipe_collector *c)
{
	if (!c)
		return;
	if (c->thread_running) {
		ssize_t w = write(c->wake[1], "s", 1);
		(void)w;
		pthread_join(c->thread, NULL);
	}
	for (size_t i = 0; i < c->ntargets; i++)
		end_target(c, &c->targets[i], "closed");
	uint64_t bytes = 0;
	for (size_t i = 0; i < c->ntargets; i++) {
		bytes += c->targets[i].bytes;
		free(c->targets[i].path);
	}
	log_info(".NET runtime events: %llu session%s, %llu bytes; %llu .NET process%s without",
		 (unsigned long long)c->started, c->started == 1 ? "" : "s",
		 (unsigned long long)bytes, (unsigned long long)c->failed,
		 c->failed == 1 ? "" : "es");
	close(c->wake[0]);
	close(c->wake[1]);
	free(c->targets);
	free(c->seen);
	free(c->buf);
	free(c->trace_dir);
	free(c);
}
