/* Unit tests for util: size and integer parsing as perfcollect's options need them; the
 * directory lock a collection holds on its trace directory; what a target's name becomes on
 * a terminal; a bounded read; rm_rf against a directory swapped for a symlink. */
#include "base/util.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* One holder at a time, named by pid; gone with its holder, even one killed. */
static void test_lock_dir(void)
{
	char dir[] = "/tmp/test_util_lock.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	int holder;
	int fd = lock_dir(dir, &holder);
	CHECK(fd >= 0);
	CHECK(lock_dir(dir, &holder) < 0); /* another open of it: refused */
	CHECK(holder == getpid());
	close(fd);
	fd = lock_dir(dir, &holder);
	CHECK(fd >= 0); /* released with its fd */
	close(fd);
	/* The child says on a pipe when it holds the lock (no polling: a probe of ours could
	 * hold it at the moment the child tried, and a busy machine can take seconds). */
	int ready[2];
	CHECK(pipe(ready) == 0);
	pid_t child = fork();
	if (child == 0) {
		close(ready[0]);
		int h;
		if (lock_dir(dir, &h) < 0 || write(ready[1], "1", 1) != 1)
			_exit(1);
		pause(); /* killed while holding it */
		_exit(0);
	}
	close(ready[1]);
	char c = 0;
	CHECK(read(ready[0], &c, 1) == 1 && c == '1');
	close(ready[0]);
	fd = lock_dir(dir, &holder);
	CHECK(fd < 0 && holder == child);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	fd = lock_dir(dir, &holder);
	CHECK(fd >= 0); /* the kernel dropped a dead holder's lock */
	if (fd >= 0)
		close(fd);
	CHECK(lock_dir("/nonexistent-dir", &holder) < 0 && holder == -1);
	rm_rf(dir);
}

/* Nothing that moves a terminal's cursor, clears it, sets its title or splits a line gets
 * through; printable UTF-8 does. */
static void test_printable(void)
{
	const char *clean = "Program.Main() [pc-app] \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	CHECK(str_printable(clean) == clean);
	CHECK_STR(str_printable("\x1b[2J\x1b]0;pwn\x07"), "\\e[2J\\e]0;pwn\\x07");
	CHECK_STR(str_printable("a\nb\tc\rd\x7f"), "a\\nb\\tc\\x0dd\\x7f");
	/* C1 CSI as UTF-8 (U+009B) and as a lone byte, an overlong '/', a surrogate, a cut
	 * sequence */
	CHECK_STR(str_printable("\xc2\x9b"
				"2J"),
		  "\\xc2\\x9b2J");
	CHECK_STR(str_printable("\x9b"
				"2J"),
		  "\\x9b2J");
	CHECK_STR(str_printable("\xc0\xaf"), "\\xc0\\xaf");
	CHECK_STR(str_printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	CHECK_STR(str_printable("ok\xe2\x82"), "ok\\xe2\\x82");
	CHECK_STR(str_printable_n("a\0b", 3), "a\\x00b");
	/* eight results live at once */
	const char *r[8];
	for (int i = 0; i < 8; i++)
		r[i] = str_printable(i % 2 ? "\x1b" : "\x07");
	for (int i = 0; i < 8; i++)
		CHECK_STR(r[i], i % 2 ? "\\e" : "\\x07");
}

/* Doubles from input (a contention's duration, a mean period) become integers saturated,
 * never by an out-of-range cast (UBSan found one in view's contention weights). */
static void test_round(void)
{
	CHECK(u64_round(0.49) == 0 && u64_round(0.5) == 1 && u64_round(2.5) == 3);
	CHECK(u64_round(-1e300) == 0 && u64_round(NAN) == 0);
	CHECK(u64_round(1.1e277) == UINT64_MAX && u64_round(INFINITY) == UINT64_MAX);
	CHECK(u64_round(18446744073709551616.0) == UINT64_MAX);
	CHECK(u64_round(9007199254740992.0) == 9007199254740992ull);
	CHECK(i64_round(-2.5) == -3 && i64_round(2.4) == 2 && i64_round(NAN) == 0);
	CHECK(i64_round(1e300) == INT64_MAX && i64_round(-1e300) == INT64_MIN);
	CHECK(i64_round(-INFINITY) == INT64_MIN);
}

/* A file that grows while it is read is read no further than asked. */
static void test_read_max(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK(write(p[1], "0123456789", 10) == 10);
	size_t len;
	char *s = read_fd_max(p[0], 4, &len);
	CHECK(s && len == 4 && !strcmp(s, "0123"));
	free(s);
	close(p[1]);
	s = read_fd_max(p[0], 100, &len);
	CHECK(s && len == 6 && !strcmp(s, "456789"));
	free(s);
	close(p[0]);
}

/* While rm_rf() removes a tree, another process (here a thread) swaps a directory in it with
 * a symlink to a directory it must never touch, again and again (RENAME_EXCHANGE: the
 * name is a directory one moment, the link the next).  The victim holds files of the same
 * names as the directory, so a remover that goes by paths deletes them whenever the link
 * is in place; whatever rm_rf() manages, every file of the victim stays. */
#define SWAP_FILES 200
static atomic_bool swapping;
static atomic_int swaps;
static char swap_dir[64];

static void *swapper(void *arg)
{
	(void)arg;
	char a[128], l[128];
	snprintf(a, sizeof(a), "%s/a", swap_dir);
	snprintf(l, sizeof(l), "%s/l", swap_dir);
	while (atomic_load(&swapping))
		if (renameat2(AT_FDCWD, a, AT_FDCWD, l, RENAME_EXCHANGE) == 0)
			atomic_fetch_add(&swaps, 1);
	return NULL;
}

static void make_files(const char *dir)
{
	for (int i = 0; i < SWAP_FILES; i++) {
		char f[160];
		snprintf(f, sizeof(f), "%s/f%d", dir, i);
		int fd = open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
	}
}

static int count_files(const char *dir)
{
	int n = 0;
	for (int i = 0; i < SWAP_FILES; i++) {
		char f[160];
		snprintf(f, sizeof(f), "%s/f%d", dir, i);
		n += access(f, F_OK) == 0;
	}
	return n;
}

static void test_rm_rf_swap(void)
{
	char victim[] = "/tmp/test_util_victim.XXXXXX";
	CHECK(mkdtemp(victim) != NULL);
	make_files(victim);
	int lost = 0;
	for (int round = 0; round < 60 && !lost; round++) {
		snprintf(swap_dir, sizeof(swap_dir), "/tmp/test_util_swap.%d", (int)getpid());
		char a[128], l[128];
		snprintf(a, sizeof(a), "%s/a", swap_dir);
		snprintf(l, sizeof(l), "%s/l", swap_dir);
		if (mkdir(swap_dir, 0700) < 0 || mkdir(a, 0700) < 0 || symlink(victim, l) < 0)
			break;
		make_files(a);
		atomic_store(&swapping, true);
		pthread_t t;
		atomic_store(&swaps, 0);
		pthread_create(&t, NULL, swapper, NULL);
		while (atomic_load(&swaps) < 100) /* it runs */
			sched_yield();
		rm_rf(swap_dir);
		atomic_store(&swapping, false);
		pthread_join(t, NULL);
		lost = SWAP_FILES - count_files(victim);
		rm_rf(swap_dir); /* what the race left */
	}
	if (lost)
		fprintf(stderr, "rm_rf removed %d files through a swapped symlink\n", lost);
	CHECK(!lost);
	rm_rf(victim);
	/* a plain tree, a symlink at the top (removed, not followed), a missing path */
	char tree[] = "/tmp/test_util_tree.XXXXXX";
	CHECK(mkdtemp(tree) != NULL);
	char sub[128], link[128];
	snprintf(sub, sizeof(sub), "%s/d/e", tree);
	CHECK(mkdir_p(sub, 0700) == 0);
	snprintf(link, sizeof(link), "/tmp/test_util_link.%d", (int)getpid());
	CHECK(symlink(tree, link) == 0);
	CHECK(rm_rf(link) == 0);
	CHECK(access(sub, F_OK) == 0);
	char slashed[160];
	snprintf(slashed, sizeof(slashed), "%s/", tree);
	CHECK(rm_rf(slashed) == 0);
	CHECK(access(tree, F_OK) < 0 && errno == ENOENT);
	CHECK(rm_rf(tree) == 0);
}

/* A message wrapping the one before it (pc_err("...: %s", pc_strerror()), as callers that
 * add context do) keeps both: the buffer is not read while it is written. */
static void test_err_wrap(void)
{
	pc_err("inner %d", 5);
	pc_err("cannot read %s in %s: %s", "a.txt", "t.zip", pc_strerror());
	CHECK_STR(pc_strerror(), "cannot read a.txt in t.zip: inner 5");
	errno = ENOENT;
	pc_err_errno("open %s", "x");
	pc_err("outer: %s", pc_strerror());
	CHECK_STR(pc_strerror(), "outer: open x: No such file or directory");
}

int main(void)
{
	test_err_wrap();
	test_lock_dir();
	test_printable();
	test_read_max();
	test_round();
	test_rm_rf_swap();
	uint64_t v;
	CHECK(parse_size("100", &v) == 0 && v == 100);
	CHECK(parse_size("4K", &v) == 0 && v == 4096);
	CHECK(parse_size("4kb", &v) == 0 && v == 4096);
	CHECK(parse_size("2M", &v) == 0 && v == 2u << 20);
	CHECK(parse_size("1G", &v) == 0 && v == 1u << 30);
	CHECK(parse_size("12B", &v) == 0 && v == 12);
	CHECK(parse_size("", &v) < 0);
	CHECK(parse_size("-1", &v) < 0);
	CHECK(parse_size("3X", &v) < 0);
	CHECK(parse_size("3MM", &v) < 0);
	CHECK(parse_size("99999999999999999999G", &v) < 0);
	long l;
	CHECK(parse_int("42", 0, 100, &l) == 0 && l == 42);
	CHECK(parse_int("101", 0, 100, &l) < 0);
	CHECK(parse_int("4x", 0, 100, &l) < 0);
	CHECK(str_endswith("a.trace.zip", ".trace.zip"));
	CHECK(!str_endswith("zip", ".trace.zip"));
	return TEST_DONE();
}
