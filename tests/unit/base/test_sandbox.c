/* Unit tests for sandbox: a child confined as trace_fields' libtraceevent child is tries
 * what code that took it over would try (open a file, reach a socket, signal its parent,
 * start a program or a process, map code, use an fd it had before) and reports over the one
 * fd it kept: all refused, writing to that fd works, root is gone. */
#include "base/sandbox.h"
#include "base/util.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

enum {
	OPENED = 1 << 0,     /* open() of a file worked */
	CREATED = 1 << 1,    /* a file was created */
	SOCKET = 1 << 2,     /* socket() worked */
	SIGNALLED = 1 << 3,  /* kill() of the parent (signal 0) worked */
	FORKED = 1 << 4,     /* fork() worked */
	EXEC_MAP = 1 << 5,   /* executable memory was mapped */
	OLD_FD = 1 << 6,     /* an fd open before could still be read */
	ROOT = 1 << 7,	     /* some uid is still 0 */
	NO_HEAP = 1 << 8,    /* plain memory could not be had */
	NOT_EPERM = 1 << 9,  /* a refusal was not EPERM */
	EXECUTED = 1 << 10,  /* execve() came back other than refused */
	WRONG_UID = 1 << 11, /* root became another uid than SANDBOX_UID */
};

static unsigned try_everything(int old_fd)
{
	unsigned r = 0;
	int fd = open("/etc/hostname", O_RDONLY);
	r |= fd >= 0 ? OPENED : errno != EPERM ? NOT_EPERM : 0;
	fd = openat(AT_FDCWD, "/tmp/test_sandbox_must_not_exist", O_WRONLY | O_CREAT, 0600);
	r |= fd >= 0 ? CREATED : 0;
	r |= socket(AF_UNIX, SOCK_STREAM, 0) >= 0 ? SOCKET : 0;
	r |= kill(getppid(), 0) == 0 ? SIGNALLED : 0;
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	r |= pid >= 0 ? FORKED : 0;
	void *code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r |= code != MAP_FAILED ? EXEC_MAP : 0;
	char c;
	r |= read(old_fd, &c, 1) >= 0 ? OLD_FD : 0;
	void *heap = malloc(1 << 20); /* large enough to be mmap'd */
	r |= heap ? 0 : NO_HEAP;
	free(heap);
	char *argv[] = {(char *)"true", NULL};
	execve("/bin/true", argv, argv + 1);
	r |= errno == EPERM ? 0 : EXECUTED;
	uid_t ru, eu, su;
	getresuid(&ru, &eu, &su);
	r |= !ru || !eu || !su ? ROOT : 0;
	return r;
}

int main(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	int old_fd = open("/proc/self/status", O_RDONLY);
	CHECK(old_fd >= 0);
	bool root = geteuid() == 0;
	pid_t child = fork();
	if (child == 0) {
		close(p[0]);
		int fd = sandbox_enter(p[1], 10, 1ull << 32);
		if (fd < 0)
			_exit(2);
		unsigned r = try_everything(old_fd);
		if (root && getuid() != SANDBOX_UID)
			r |= WRONG_UID;
		_exit(write(fd, &r, sizeof(r)) == sizeof(r) ? 0 : 3);
	}
	close(p[1]);
	unsigned r = ~0u; /* arrives only from a child that was confined (else it exits 2) */
	CHECK(read(p[0], &r, sizeof(r)) == sizeof(r));
	/* its exit status is not looked at: a sanitizer's exit-time leak check cannot run
	 * confined, and makes it 1 */
	CHECK(waitpid(child, NULL, 0) == child);
	if (r & OPENED)
		fprintf(stderr, "the confined child opened a file\n");
	CHECK(!(r & OPENED));
	CHECK(!(r & CREATED));
	CHECK(access("/tmp/test_sandbox_must_not_exist", F_OK) < 0);
	CHECK(!(r & SOCKET));
	CHECK(!(r & SIGNALLED));
	CHECK(!(r & FORKED));
	CHECK(!(r & EXEC_MAP));
	CHECK(!(r & OLD_FD));
	CHECK(!(r & NO_HEAP));
	CHECK(!(r & NOT_EPERM));
	CHECK(!(r & EXECUTED));
	CHECK(!(r & ROOT));
	CHECK(!(r & WRONG_UID));
	unlink("/tmp/test_sandbox_must_not_exist");
	return TEST_DONE();
}
