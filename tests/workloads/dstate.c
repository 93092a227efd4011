/* A task in uninterruptible sleep ('D' in /proc), on demand: the parent of vfork() sleeps
 * killable (shown as D) in the kernel until its child execs or exits; the child sleeps
 * instead.  Prints "<parent pid> <child pid>" first.  Killing either ends both. */
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	printf("%d ", (int)getpid());
	fflush(stdout);
	if (vfork() == 0) {
		/* only raw system calls in a vfork child: it runs on the parent's stack */
		pid_t me = (pid_t)syscall(SYS_getpid);
		char buf[16];
		int n = 0;
		for (pid_t v = me; v; v /= 10)
			n++;
		for (int i = n - 1, v = me; i >= 0; i--, v /= 10)
			buf[i] = (char)('0' + v % 10);
		buf[n] = '\n';
		syscall(SYS_write, 1, buf, n + 1);
		struct timespec ts = {600, 0};
		syscall(SYS_nanosleep, &ts, NULL);
		syscall(SYS_exit, 0);
	}
	return 0;
}
