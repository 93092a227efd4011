/* symbols_jit: JIT files of a real process in its own mount namespace (a private tmpfs on
 * /tmp, as in a container), read through /proc/<pid>/root; the traps a hostile target can
 * plant there (a symlink to a host file, a hard link, a file swapped after it was read); the
 * copy for the archive; a dead process's jitdump name; a dead process's files on the host
 * (issue 24, finding 12): only root's or its recorded user's, of one link. */
#include "symbols/proc_uids.h"
#include "symbols/symbols_jit.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char MAP[] = "1000 10 jitted_fn\n";

/* A child in a new mount namespace with its own /tmp holding perf-<pid>.map (its pid in
 * every namespace: only the mount namespace is new).  Returns its pid, or -1. */
static pid_t start_target(void)
{
	int pfd[2];
	if (pipe(pfd) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char ok = 'n';
		if (unshare(CLONE_NEWNS) == 0 &&
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
		    mount("tmpfs", "/tmp", "tmpfs", 0, NULL) == 0) {
			char *path = xasprintf("/tmp/perf-%d.map", (int)getpid());
			int fd = open(path, O_WRONLY | O_CREAT, 0644);
			if (fd >= 0 && write(fd, MAP, strlen(MAP)) == (ssize_t)strlen(MAP))
				ok = 'y';
			close(fd);
			free(path);
		}
		(void)!write(pfd[1], &ok, 1);
		if (ok == 'y')
			pause();
		_exit(1);
	}
	char c = 0;
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1 || c != 'y') {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(pfd[0]);
	return pid;
}

static char *slurp(const char *path)
{
	size_t len;
	return read_file(path, &len);
}

/* The map as the target sees it, reached from here. */
static char *target_map(pid_t pid)
{
	return xasprintf("/proc/%d/root/tmp/perf-%d.map", (int)pid, (int)pid);
}

static void test_read_and_copy(pid_t pid, const char *dir)
{
	struct jit_procs *j = jit_procs_new(NULL, true);
	struct jit_proc *p = jit_procs_get(j, (uint32_t)pid);
	jit_proc_load(j, p);
	CHECK_STR(jit_proc_lookup(p, 0x1005, 0, NULL), "jitted_fn");
	char *shown = target_map(pid);
	CHECK_STR(p->found[JIT_PERF_MAP], shown);
	CHECK(p->why[JIT_DUMP] && strstr(p->why[JIT_DUMP], "No such file"));

	/* The copy: the same bytes, named by the caller. */
	char *dest = xasprintf("%s/perf-%d.map", dir, (int)pid);
	uint64_t size = 0;
	CHECK(jit_procs_copy(j, (uint32_t)pid, JIT_PERF_MAP, dest, &size) == 0);
	CHECK_EQ_U64(size, strlen(MAP));
	char *got = slurp(dest);
	CHECK_STR(got, MAP);
	free(got);
	/* Nothing was read of the jitdump, so there is nothing to copy. */
	CHECK(jit_procs_copy(j, (uint32_t)pid, JIT_DUMP, dest, NULL) < 0);

	/* Appended since it was read (a live JIT): the copy has it all. */
	int fd = open(shown, O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, "2000 10 later_fn\n", 17) == 17);
	close(fd);
	CHECK(jit_procs_copy(j, (uint32_t)pid, JIT_PERF_MAP, dest, &size) == 0);
	CHECK_EQ_U64(size, strlen(MAP) + 17);

	/* Swapped for another file after it was read: not copied, and no stale copy left. */
	char *old = xasprintf("/proc/%d/root/tmp/old.map", (int)pid);
	CHECK(rename(shown, old) == 0);
	fd = open(shown, O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0 && write(fd, "3000 10 swapped\n", 16) == 16);
	close(fd);
	CHECK(jit_procs_copy(j, (uint32_t)pid, JIT_PERF_MAP, dest, NULL) < 0);
	CHECK(strstr(pc_strerror(), "replaced") != NULL);
	CHECK(rename(old, shown) == 0);
	free(old);

	jit_procs_free(j);
	free(dest);
	free(shown);
}

/* perf-<pid>.map replaced by a link in the target; the map must be refused and say why. */
static void check_refused(pid_t pid, const char *what)
{
	struct jit_procs *j = jit_procs_new(NULL, true);
	struct jit_proc *p = jit_procs_get(j, (uint32_t)pid);
	jit_proc_load(j, p);
	CHECK(p->found[JIT_PERF_MAP] == NULL);
	CHECK(p->perfmap == NULL);
	CHECK(jit_proc_lookup(p, 0x1005, 0, NULL) == NULL);
	const char *why = p->why[JIT_PERF_MAP];
	if (!why || strncmp(why, "refused: ", 9) || !strstr(why, what)) {
		fprintf(stderr, "why: %s, expected refused: ... %s\n", why ? why : "(null)", what);
		CHECK(!"refused with the reason");
	}
	CHECK(jit_procs_copy(j, (uint32_t)pid, JIT_PERF_MAP, "/nonexistent/x", NULL) < 0);
	jit_procs_free(j);
}

static void test_traps(pid_t pid, const char *dir)
{
	char *shown = target_map(pid);
	char *kept = xasprintf("/proc/%d/root/tmp/kept.map", (int)pid);
	CHECK(rename(shown, kept) == 0);

	/* A symlink to a file only the host has (the target's /tmp hides dir). */
	char *secret = xasprintf("%s/secret", dir);
	int fd = open(secret, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0 && write(fd, "1000 10 host_secret\n", 20) == 20);
	close(fd);
	CHECK(symlink(secret, shown) == 0);
	check_refused(pid, "is a symlink");
	CHECK(unlink(shown) == 0);

	/* A hard link: a second name makes the owner check meaningless. */
	CHECK(link(kept, shown) == 0);
	check_refused(pid, "has 2 hard links");
	CHECK(unlink(shown) == 0);

	/* Owned by a user that is neither the target's nor root. */
	CHECK(rename(kept, shown) == 0);
	CHECK(chown(shown, 12345, 12345) == 0);
	check_refused(pid, "owned by uid 12345");
	CHECK(chown(shown, 0, 0) == 0);

	free(secret);
	free(kept);
	free(shown);
}

/* The merge of a .trace directory in place: the copy's source is its destination, which
 * must not be truncated. */
static void test_copy_onto_itself(const char *dir)
{
	char *side = xasprintf("%s/side", dir);
	CHECK(mkdir(side, 0755) == 0);
	char *path = xasprintf("%s/perf-4242.map", side);
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && write(fd, MAP, strlen(MAP)) == (ssize_t)strlen(MAP));
	close(fd);
	struct jit_procs *j = jit_procs_new(side, false);
	struct jit_proc *p = jit_procs_get(j, 4242);
	jit_proc_load(j, p);
	CHECK_STR(p->found[JIT_PERF_MAP], path);
	uint64_t size = 0;
	CHECK(jit_procs_copy(j, 4242, JIT_PERF_MAP, path, &size) == 0);
	CHECK_EQ_U64(size, strlen(MAP));
	char *got = slurp(path);
	CHECK_STR(got, MAP);
	free(got);
	jit_procs_free(j);
	free(path);
	free(side);
}

/* A dead process's jitdump is taken from the host only when its name carries the pid we know
 * the process by: a container's /tmp/jit-1.dump is not the host's. */
static void test_dead_jitdump_hint(const char *dir)
{
	char *other = xasprintf("%s/jit-1.dump", dir);
	char *own = xasprintf("%s/jit-999999.dump", dir);
	for (int i = 0; i < 2; i++) {
		int fd = open(i ? own : other, O_WRONLY | O_CREAT, 0644);
		CHECK(fd >= 0);
		close(fd);
	}
	struct jit_procs *j = jit_procs_new(NULL, false);
	struct jit_proc *p = jit_procs_get(j, 999999);
	p->jitdump_hint = xstrdup(other);
	jit_proc_load(j, p);
	CHECK(p->found[JIT_DUMP] == NULL);
	CHECK(p->why[JIT_DUMP] && strstr(p->why[JIT_DUMP], "/tmp/jit-999999.dump"));
	jit_procs_free(j);

	j = jit_procs_new(NULL, false);
	p = jit_procs_get(j, 999999);
	p->jitdump_hint = xstrdup(own);
	jit_proc_load(j, p); /* an empty file: found, and said to be no jitdump */
	CHECK_STR(p->found[JIT_DUMP], own);
	jit_procs_free(j);
	free(other);
	free(own);
}

/* What jit_proc_load() takes for a gone process (pid) with uids recorded (NULL: none). */
static struct jit_proc *load_gone(struct jit_procs **j, uint32_t pid, struct proc_uids *uids)
{
	*j = jit_procs_new(NULL, false);
	jit_procs_trust(*j, uids, true);
	struct jit_proc *p = jit_procs_get(*j, pid);
	jit_proc_load(*j, p);
	return p;
}

/* Any local user can write /tmp/perf-<pid>.map for a pid that is gone: it is taken only
 * when root's or the user's the collector recorded for that pid, and of one link. */
static void test_dead_planted(const char *dir)
{
	uint32_t pid = 4190000 + (uint32_t)getpid() % 4000; /* above any pid here, most likely */
	char *map = xasprintf("/tmp/perf-%u.map", pid), *link2 = xasprintf("%s/second", dir);
	int fd = open(map, O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0 && write(fd, MAP, strlen(MAP)) == (ssize_t)strlen(MAP));
	close(fd);
	CHECK(chown(map, 12345, 12345) == 0);

	struct jit_procs *j;
	struct jit_proc *p = load_gone(&j, pid, NULL); /* no user recorded: root's only */
	CHECK(p->perfmap == NULL && p->why[JIT_PERF_MAP]);
	CHECK(p->why[JIT_PERF_MAP] && strstr(p->why[JIT_PERF_MAP], "no user was recorded"));
	jit_procs_free(j);

	struct proc_uids *other = proc_uids_new(), *own = proc_uids_new();
	proc_uids_add(other, pid, 777);
	proc_uids_add(other, pid + 1, 12345); /* another pid's user */
	proc_uids_add(own, pid, 777);	      /* the pid reused by two users */
	proc_uids_add(own, pid, 12345);
	p = load_gone(&j, pid, other);
	CHECK(p->perfmap == NULL);
	CHECK(p->why[JIT_PERF_MAP] && strstr(p->why[JIT_PERF_MAP], "owned by uid 12345"));
	jit_procs_free(j);
	p = load_gone(&j, pid, own);
	CHECK(p->perfmap != NULL);
	CHECK_STR(p->found[JIT_PERF_MAP], map);
	jit_procs_free(j);

	CHECK(link(map, link2) == 0); /* its user's, but a second name */
	p = load_gone(&j, pid, own);
	CHECK(p->perfmap == NULL && p->why[JIT_PERF_MAP] &&
	      strstr(p->why[JIT_PERF_MAP], "hard links"));
	jit_procs_free(j);
	unlink(link2);

	CHECK(chown(map, 0, 0) == 0); /* root's: taken without a user recorded */
	p = load_gone(&j, pid, NULL);
	CHECK(p->perfmap != NULL);
	jit_procs_free(j);

	/* a bare perf.data's side directory (here /tmp) goes by the same rule */
	CHECK(chown(map, 12345, 12345) == 0);
	j = jit_procs_new("/tmp", false);
	jit_procs_trust(j, NULL, false);
	p = jit_procs_get(j, pid);
	jit_proc_load(j, p);
	CHECK(p->perfmap == NULL && p->found[JIT_PERF_MAP] == NULL);
	jit_procs_free(j);
	j = jit_procs_new("/tmp", false); /* a trace directory of ours is read as it is */
	p = jit_procs_get(j, pid);
	jit_proc_load(j, p);
	CHECK(p->perfmap != NULL);
	jit_procs_free(j);

	proc_uids_free(other);
	proc_uids_free(own);
	unlink(map);
	free(map);
	free(link2);
}

int main(void)
{
	char dir[] = "/tmp/pc-symjit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	test_copy_onto_itself(dir);
	test_dead_jitdump_hint(dir);
	if (geteuid() != 0) {
		rm_rf(dir);
		if (test_failures)
			return TEST_DONE();
		SKIP("the mount namespace checks need root: run the tests as root");
	}
	pid_t pid = start_target();
	if (pid < 0) {
		rm_rf(dir);
		SKIP("cannot make a mount namespace here: run as root, outside a container that "
		     "forbids it");
	}
	test_dead_planted(dir);
	test_read_and_copy(pid, dir);
	test_traps(pid, dir);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(rm_rf(dir) == 0);
	return TEST_DONE();
}
