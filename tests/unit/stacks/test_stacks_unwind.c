/* stacks_unwind against libdw's own unwinder (dwfl_getthread_frames) on the same stopped
 * threads: real programs stopped at random moments (tests/workloads/nofp in code that holds
 * a number in rbp, libc_hot in qsort's callback and memcpy, hot with frame pointers, and
 * sleep in libc's nanosleep); every frame we unwind from the copy of the stack must be
 * libdw's.  With FUZZ_SEED_DIR set, each stop is also written there in fuzz_unwind's input
 * format (tests/fuzz/fuzz_unwind.c), with a frame-pointer chain walked as the kernel's. */
#include "stacks/stacks_unwind.h"
#include "test.h"

#include <elfutils/libdwfl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAMES 64

struct libdw_frames {
	uint64_t pc[MAX_FRAMES];
	size_t n;
};

static int on_frame(Dwfl_Frame *f, void *arg)
{
	struct libdw_frames *lf = arg;
	Dwarf_Addr pc;
	if (!dwfl_frame_pc(f, &pc, NULL))
		return DWARF_CB_ABORT;
	lf->pc[lf->n++] = pc;
	return lf->n < MAX_FRAMES ? DWARF_CB_OK : DWARF_CB_ABORT;
}

static size_t libdw_unwind(pid_t pid, struct libdw_frames *lf)
{
	static char *debuginfo_path;
	static const Dwfl_Callbacks cb = {
	    .find_elf = dwfl_linux_proc_find_elf,
	    .find_debuginfo = dwfl_standard_find_debuginfo,
	    .debuginfo_path = &debuginfo_path,
	};
	lf->n = 0;
	Dwfl *dwfl = dwfl_begin(&cb);
	dwfl_report_begin(dwfl);
	dwfl_linux_proc_report(dwfl, pid);
	dwfl_report_end(dwfl, NULL, NULL);
	if (dwfl_linux_proc_attach(dwfl, pid, true) == 0)
		dwfl_getthread_frames(dwfl, pid, on_frame, lf);
	dwfl_end(dwfl);
	return lf->n;
}

static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* One stop as fuzz_unwind's input: registers, the process's code mappings (libc's and the
 * loader's with their tables, the others frame-pointer code), a frame-pointer chain as the
 * kernel walks it (within the copy), the first 4 KiB of the stack. */
static void write_seed(pid_t pid, const struct thread_copy *c, const char *what, int n)
{
	const char *dir = getenv("FUZZ_SEED_DIR");
	if (!dir)
		return;
	uint64_t maps[16][4];
	size_t nmaps = 0;
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	while (f && nmaps < 16 && fgets(line, sizeof(line), f)) {
		unsigned long long a, b, off;
		char perms[8];
		int at = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &a, &b, perms, &off, &at) < 4 ||
		    perms[2] != 'x')
			continue;
		uint64_t kind = strstr(line + at, "/libc.so")	 ? 0
				: strstr(line + at, "/ld-linux") ? 1
								 : 2;
		maps[nmaps][0] = a, maps[nmaps][1] = b, maps[nmaps][2] = off, maps[nmaps][3] = kind;
		nmaps++;
	}
	if (f)
		fclose(f);
	uint64_t chain[64];
	size_t nchain = 0;
	const struct unwind_stack *st = &c->stack;
	chain[nchain++] = c->regs.r[UNWIND_RIP];
	for (uint64_t fp = c->regs.r[UNWIND_RBP];
	     nchain < 64 && fp >= st->base && fp - st->base + 16 <= st->len;) {
		uint64_t next, ret;
		memcpy(&next, st->data + (fp - st->base), 8);
		memcpy(&ret, st->data + (fp - st->base) + 8, 8);
		chain[nchain++] = ret;
		fp = next;
	}
	const char *base = strrchr(what, '/');
	snprintf(path, sizeof(path), "%s/%s-%d", dir, base ? base + 1 : what, n);
	FILE *o = fopen(path, "w");
	if (!o)
		return;
	uint8_t head[8] = {(uint8_t)nchain, (uint8_t)nmaps};
	fwrite(head, 1, 8, o);
	fwrite(c->regs.r, 8, UNWIND_NREGS, o);
	fwrite(maps, 32, nmaps, o);
	fwrite(chain, 8, nchain, o);
	fwrite(st->data, 1, st->len < 4096 ? st->len : 4096, o);
	fclose(o);
}

/* Stops pid, unwinds it both ways, lets it go.  Returns whether the frames agree; *frames
 * gets how many we found. */
static bool compare_once(pid_t pid, size_t *frames, const char *what, int round)
{
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) < 0 ||
	    ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) < 0)
		return false;
	int st;
	waitpid(pid, &st, __WALL);
	struct stacks_unwinder *u = stacks_unwinder_new(pid, getuid());
	struct thread_copy copy;
	char *why = NULL;
	bool copied = u && stacks_copy_thread(u, pid, &copy, &why) == 0;
	struct libdw_frames lf;
	libdw_unwind(pid, &lf);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	if (!copied) {
		fprintf(stderr, "%s: no copy: %s\n", what, why ? why : "?");
		free(why);
		stacks_unwinder_free(u);
		return false;
	}
	if (round < 2)
		write_seed(pid, &copy, what, round);
	struct unwind_frame ours[MAX_FRAMES];
	size_t n = stacks_unwind(u, &copy, ours, MAX_FRAMES);
	stacks_copy_free(&copy);
	stacks_unwinder_free(u);
	*frames = n;
	/* libdw may stop one frame earlier or later at the outermost frame (_start, clone3) */
	bool same = n + 1 >= lf.n && lf.n + 1 >= n;
	for (size_t i = 0; i < n && i < lf.n && same; i++)
		same = ours[i].pc == lf.pc[i];
	if (!same) {
		fprintf(stderr, "%s: ours (%zu) vs libdw (%zu):\n", what, n, lf.n);
		for (size_t i = 0; i < n || i < lf.n; i++)
			fprintf(stderr, "  %#18llx %#18llx\n",
				i < n ? (unsigned long long)ours[i].pc : 0ull,
				i < lf.n ? (unsigned long long)lf.pc[i] : 0ull);
	}
	return same;
}

int main(void)
{
	if (getuid() != 0)
		SKIP("needs root to trace the workloads");
	const char *build = getenv("BUILD_DIR");
	if (!build)
		SKIP("BUILD_DIR is not set");
	char nofp[512], libc_hot[512], hot[512];
	snprintf(nofp, sizeof(nofp), "%s/tests/workloads/nofp", build);
	snprintf(libc_hot, sizeof(libc_hot), "%s/tests/workloads/libc_hot", build);
	snprintf(hot, sizeof(hot), "%s/tests/workloads/hot", build);
	char *const progs[][5] = {
	    {nofp, "30", "clobber", "3", NULL},
	    {libc_hot, "30", NULL},
	    {hot, "30", NULL},
	    {"/bin/sleep", "30", NULL},
	};
	for (size_t p = 0; p < sizeof(progs) / sizeof(progs[0]); p++) {
		pid_t pid = spawn(progs[p]);
		struct timespec settle = {0, 200 * 1000 * 1000};
		nanosleep(&settle, NULL);
		int agree = 0, tries = 20;
		size_t total = 0;
		for (int i = 0; i < tries; i++) {
			size_t n = 0;
			agree += compare_once(pid, &n, progs[p][0], i);
			total += n;
			struct timespec gap = {0, (7 + 13 * i % 29) * 1000 * 1000};
			nanosleep(&gap, NULL);
		}
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		printf("%s: %d of %d stops unwound as libdw does (%.1f frames each)\n", progs[p][0],
		       agree, tries, (double)total / tries);
		CHECK(agree == tries);
		CHECK(total >= (size_t)tries * 3);
	}
	return TEST_DONE();
}
