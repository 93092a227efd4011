/* Unit tests for util: size and integer parsing as perfcollect's options need them; the
 * directory lock a collection holds on its trace directory. */
#include "base/util.h"
#include "test.h"

#include <signal.h>
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
	pid_t child = fork();
	if (child == 0) {
		int h;
		if (lock_dir(dir, &h) < 0)
			_exit(1);
		pause(); /* killed while holding it */
		_exit(0);
	}
	for (int i = 0; i < 200; i++) { /* until the child holds it */
		fd = lock_dir(dir, &holder);
		if (fd < 0)
			break;
		close(fd);
		usleep(10000);
	}
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

int main(void)
{
	test_lock_dir();
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
