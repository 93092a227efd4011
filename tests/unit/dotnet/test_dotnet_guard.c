/* dotnet_guard (issue 24, finding 15): the guard undoes a change only in the very process it
 * was made in.  A start time alone does not say so: a process whose pid another took within
 * the same clock tick has the same one.  In a pid namespace of its own (where ns_last_pid
 * chooses the next pid) A is noted to the guard, killed, and B takes A's pid, again until B
 * also has A's start time; then the caller "dies" (the guard's socket closes): the guard
 * must leave B alone (it pinned A), and still act on C, a process it was told of that runs.
 * The guard says on stderr each process it acts on (here each fails: no runtime answers). */
#include "dotnet/dotnet_guard.h"
#include "base/proc.h"
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SKIPPED 77

/* A process that waits to be killed, holding none of our fds (the guard's socket is
 * close-on-exec: a child holding it would keep the guard from seeing us gone); spawned
 * (vfork-like: quick even from a sanitizer's huge address space, so that B can start in
 * A's clock tick). */
static pid_t sleeper(void)
{
	static char *argv[] = {"sleep", "600", NULL};
	pid_t pid;
	return posix_spawnp(&pid, "sleep", NULL, NULL, argv, environ) == 0 ? pid : -1;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The pidfds the guard holds (its pins). */
static int guard_pidfds(pid_t guard)
{
	char path[64], link[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)guard);
	DIR *d = opendir(path);
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char fd[400];
		snprintf(fd, sizeof(fd), "%s/%s", path, de->d_name);
		ssize_t len = readlink(fd, link, sizeof(link) - 1);
		if (len > 0) {
			link[len] = 0;
			n += strstr(link, "pidfd") != NULL;
		}
	}
	if (d)
		closedir(d);
	return n;
}

static bool wait_pidfds(pid_t guard, int n)
{
	for (int i = 0; i < 5000; i++) {
		if (guard_pidfds(guard) == n)
			return true;
		usleep(1000);
	}
	return false;
}

static int set_last_pid(pid_t pid)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	if (!f)
		return -1;
	int r = fprintf(f, "%d", (int)pid) > 0 ? 0 : -1;
	return fclose(f) == 0 ? r : -1;
}

/* pid 1 of the new namespaces: the scenario; its exit status is the result. */
static int scenario(const char *log)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", 0, NULL) < 0)
		return SKIPPED;
	int logfd = open(log, O_WRONLY | O_TRUNC);
	if (logfd < 0 || dup2(logfd, STDERR_FILENO) < 0)
		return 1;
	struct dotnet_guard *g = dotnet_guard_start();
	if (!g)
		return 1;
	pid_t gpid = dotnet_guard_pid(g), a = 0, b = 0;
	bool same = false, pins = true;
	/* a few tries on an idle machine; a loaded one may take many (each must fit in a tick) */
	uint64_t end = monotonic_ns() + 30000000000ull;
	int tries = 0;
	for (; monotonic_ns() < end && !same; tries++) {
		a = sleeper();
		uint64_t start = proc_start_time(a);
		dotnet_guard_perfmap(g, a, start, true);
		/* A is killed once the guard has pinned it (a guard that takes no pin is waited
		 * for once: then there is nothing to wait for) */
		if (pins && !wait_pidfds(gpid, 1)) {
			printf("the guard took no pidfd of A in 5 s\n");
			pins = false;
		}
		reap(a);
		if (set_last_pid(a - 1) < 0) {
			dotnet_guard_finish(g);
			return SKIPPED;
		}
		b = sleeper();
		same = b == a && proc_start_time(b) == start;
		if (!same) {
			reap(b);
			dotnet_guard_perfmap(g, a, start, false);
			if (pins)
				wait_pidfds(gpid, 0);
		}
	}
	if (!same) {
		printf("no process got A's pid and start time in %d tries (30 s)\n", tries);
		dotnet_guard_finish(g);
		return SKIPPED;
	}
	printf("B is pid %d, started in A's clock tick (try %d)\n", (int)b, tries);
	pid_t c = sleeper();
	dotnet_guard_perfmap(g, c, proc_start_time(c), true);
	if (pins)
		wait_pidfds(gpid, 2);
	dotnet_guard_finish(g); /* as if we were killed: A's and C's perf maps are still on */
	reap(b);
	reap(c);
	char *text = read_file(log, NULL);
	char *on_b = xasprintf("asked of pid %d", (int)b),
	     *on_c = xasprintf("asked of pid %d", (int)c);
	int ret = 0;
	if (!text || strstr(text, on_b)) {
		printf("FAIL: the guard acted on B, which took A's pid and start time:\n%s\n",
		       text ? text : "");
		ret = 1;
	}
	if (!text || !strstr(text, on_c)) {
		printf("FAIL: the guard did not act on C, which still ran:\n%s\n",
		       text ? text : "");
		ret = 1;
	}
	free(text);
	free(on_b);
	free(on_c);
	return ret;
}

int main(void)
{
	if (geteuid() != 0)
		SKIP("needs root (a pid namespace, ns_last_pid)");
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		SKIP("no pidfd_open here (Linux 5.3+): the guard has start times alone, and a pid "
		     "reused within a clock tick is not told apart by them");
	close(pidfd);
	char log[] = "/tmp/pc-guardtest-XXXXXX";
	int fd = mkstemp(log);
	CHECK(fd >= 0);
	close(fd);
	fflush(NULL);
	pid_t outer = fork();
	if (outer == 0) {
		if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0)
			_exit(SKIPPED);
		pid_t init = fork();
		if (init == 0) {
			int r = scenario(log);
			fflush(NULL);
			_exit(r);
		}
		int st;
		waitpid(init, &st, 0);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
	int st;
	CHECK(waitpid(outer, &st, 0) == outer);
	unlink(log);
	if (WIFEXITED(st) && WEXITSTATUS(st) == SKIPPED)
		SKIP("cannot reuse a pid in a pid namespace of our own here (root outside a "
		     "container that forbids unshare, a kernel with pidfd_open and ns_last_pid)");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return TEST_DONE();
}
