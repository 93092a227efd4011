/* jitdump on a real file: node --perf-prof writes jit-<pid>.dump in its working
 * directory.  Its code loads parse, their timestamps never go back, the time-aware lookup
 * picks a load only from its time on, and the same file cut mid-record keeps exactly the
 * complete records and says it was truncated.  Files that are not jitdumps are refused.
 * Issue 24: a runtime's (or a container's) million code moves parse in seconds (finding 9:
 * each move looked for its code from the end, hours), and a jitdump truncated while it is
 * read cannot crash the reader (finding 6: it was mapped, and touching its lost pages
 * raised SIGBUS). */
#include "test.h"

#include "base/bytebuf.h"
#include "symbols/jitdump.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[64];

static char *make_dump(void)
{
	char *script = xasprintf("%s/spin.js", dir);
	FILE *f = fopen(script, "w");
	if (!f)
		return NULL;
	fputs("function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
	      "let x = 0; for (let i = 0; i < 300; i++) x += fib(18);\n",
	      f);
	fclose(f);
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir(dir) == 0)
			execlp("node", "node", "--perf-prof", script, (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	free(script);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return xasprintf("%s/jit-%d.dump", dir, (int)pid);
}

static void check_real(const char *path, size_t *nloads)
{
	struct jitdump *j = jitdump_load(path);
	CHECK(j != NULL);
	if (!j)
		return;
	size_t n = jitdump_nr_loads(j);
	*nloads = n;
	CHECK(n > 50);
	CHECK(!jitdump_truncated(j));
	CHECK_EQ_U64(jitdump_bad_records(j), 0);
	CHECK(!jitdump_arch_timestamps(j));
	uint64_t prev = 0;
	bool fib = false, monotonic = true;
	for (size_t i = 0; i < n; i++) {
		const struct jitdump_load *l = jitdump_load_at(j, i);
		if (l->time < prev)
			monotonic = false;
		prev = l->time;
		CHECK(l->name[0] != 0);
		CHECK(l->size > 0);
		if (strstr(l->name, "fib"))
			fib = true;
		/* at its own time a load is what covers its first byte, or a later load at
		 * the same time and place */
		const struct jitdump_load *at = jitdump_lookup(j, l->addr, l->time);
		CHECK(at != NULL && at->time == l->time && at->addr <= l->addr &&
		      l->addr < at->addr + at->size);
		/* before its time it is not chosen */
		const struct jitdump_load *before = jitdump_lookup(j, l->addr, l->time - 1);
		CHECK(before != l);
		CHECK(!before || before->time < l->time);
	}
	CHECK(monotonic);
	CHECK(fib);
	CHECK_EQ_U64(jitdump_pid(j), (uint64_t)atoi(strrchr(path, '-') + 1));
	jitdump_free(j);
}

/* The same file cut in the middle of its last code load. */
static void check_cut(const char *path, size_t nloads)
{
	size_t len;
	char *text = read_file(path, &len);
	CHECK(text != NULL);
	if (!text)
		return;
	struct jitdump *full = jitdump_load(path);
	const struct jitdump_load *last = jitdump_load_at(full, nloads - 1);
	/* find where the last load record starts: its name is in the file */
	char *cut_path = xasprintf("%s/cut.dump", dir);
	const char *name = last->name;
	char *p = NULL;
	for (char *q = text; (q = memmem(q, len - (q - text), name, strlen(name) + 1)); q++)
		p = q;
	CHECK(p != NULL);
	if (p) {
		size_t cut = (p - text) + 3; /* inside the name of the last load */
		int fd = open(cut_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		CHECK(fd >= 0 && write(fd, text, cut) == (ssize_t)cut);
		close(fd);
		struct jitdump *j = jitdump_load(cut_path);
		CHECK(j != NULL);
		if (j) {
			CHECK(jitdump_truncated(j));
			CHECK_EQ_U64(jitdump_nr_loads(j), nloads - 1);
			for (size_t i = 0; i + 1 < nloads && i < jitdump_nr_loads(j); i++) {
				const struct jitdump_load *a = jitdump_load_at(j, i),
							  *b = jitdump_load_at(full, i);
				CHECK(a->addr == b->addr && a->time == b->time &&
				      !strcmp(a->name, b->name));
			}
		}
		jitdump_free(j);
		/* cut inside the file header */
		fd = open(cut_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		CHECK(fd >= 0 && write(fd, text, 20) == 20);
		close(fd);
		CHECK(jitdump_load(cut_path) == NULL);
	}
	jitdump_free(full);
	free(cut_path);
	free(text);
}

static void check_not_jitdump(void)
{
	char *path = xasprintf("%s/not.dump", dir);
	FILE *f = fopen(path, "w");
	fputs("this is not a jitdump file at all, just some text\n", f);
	fclose(f);
	CHECK(jitdump_load(path) == NULL);
	CHECK(strstr(pc_strerror(), "magic") != NULL);
	free(path);
}

/* A synthetic jitdump: n code loads (index i, "m<i>" at 0x10000000 + 64 i) and, after
 * them, n moves of each to 0x80000000 + 64 i. */
static char *make_moves(size_t n)
{
	char *path = xasprintf("%s/moves-%zu.dump", dir, n);
	FILE *f = fopen(path, "w");
	if (!f)
		return path;
	struct bytebuf b = {0};
	bytebuf_u32(&b, 0x4A695444); /* "JiTD" */
	bytebuf_u32(&b, 1);
	bytebuf_u32(&b, 40);
	bytebuf_u32(&b, 62); /* EM_X86_64 */
	bytebuf_u32(&b, 0);
	bytebuf_u32(&b, 4242);
	bytebuf_u64(&b, 1);
	bytebuf_u64(&b, 0);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			char name[32];
			int nl = snprintf(name, sizeof(name), "m%zu", i) + 1;
			uint32_t size = pass ? 16 + 48 : 16 + 40 + (uint32_t)nl + 32;
			bytebuf_u32(&b, pass); /* JIT_CODE_LOAD, JIT_CODE_MOVE */
			bytebuf_u32(&b, size);
			bytebuf_u64(&b, 10 + pass * n + i); /* time */
			bytebuf_u32(&b, 4242);
			bytebuf_u32(&b, 4242);
			uint64_t a = 0x10000000 + 64 * i, m = 0x80000000 + 64 * i;
			bytebuf_u64(&b, a); /* vma */
			bytebuf_u64(&b, a); /* code_addr, old_code_addr */
			if (pass)
				bytebuf_u64(&b, m); /* new_code_addr */
			bytebuf_u64(&b, 32);	    /* code_size */
			bytebuf_u64(&b, i);	    /* code_index */
			if (!pass) {
				bytebuf_bytes(&b, name, (size_t)nl);
				bytebuf_fill(&b, 0x90, 32); /* the code */
			}
			if (b.len > (1 << 20)) {
				CHECK(fwrite(b.data, 1, b.len, f) == b.len);
				b.len = 0;
			}
		}
	CHECK(fwrite(b.data, 1, b.len, f) == b.len);
	fclose(f);
	bytebuf_free(&b);
	return path;
}

static void check_many_moves(void)
{
	const size_t n = 1000000;
	char *path = make_moves(n);
	/* CPU time: the machine may be shared (the wall time is said too) */
	struct timespec c0, c1;
	uint64_t t0 = monotonic_ns();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	struct jitdump *j = jitdump_load(path);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	double cpu = (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) / 1e9;
	printf("jitdump: %zu loads + %zu moves parsed in %.2f s of CPU (%.2f s)\n", n, n, cpu,
	       (monotonic_ns() - t0) / 1e9);
	CHECK(j != NULL);
	CHECK(cpu < 20);
	if (j) {
		CHECK_EQ_U64(jitdump_nr_loads(j), 2 * n);
		CHECK_EQ_U64(jitdump_bad_records(j), 0);
		size_t wrong = 0;
		for (size_t i = 0; i < n; i += 997) {
			char want[32];
			snprintf(want, sizeof(want), "m%zu", i);
			const struct jitdump_load *l =
			    jitdump_lookup(j, 0x80000000 + 64 * i + 1, 10 + 2 * n);
			wrong += !l || !l->moved || strcmp(l->name, want);
		}
		CHECK_EQ_U64(wrong, 0);
	}
	jitdump_free(j);
	unlink(path);
	free(path);
}

/* Another process truncates the file and writes it back while it is read, over and over:
 * the reader sees a shorter or zeroed file (truncated records, refused header), never a
 * signal. */
static void check_truncated_while_read(void)
{
	char *path = make_moves(300000);
	size_t len;
	char *bytes = read_file(path, &len);
	CHECK(bytes != NULL);
	pid_t reader = fork();
	if (reader == 0) {
		for (int i = 0; i < 30; i++)
			jitdump_free(jitdump_load(path));
		_exit(0);
	}
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int status = 0;
	while (waitpid(reader, &status, WNOHANG) == 0 && fd >= 0 && bytes) {
		CHECK(ftruncate(fd, 4096) == 0);
		CHECK(pwrite(fd, bytes, len, 0) == (ssize_t)len);
	}
	if (fd >= 0)
		close(fd);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (WIFSIGNALED(status))
		fprintf(stderr, "the reader died of signal %d (%s)\n", WTERMSIG(status),
			strsignal(WTERMSIG(status)));
	free(bytes);
	unlink(path);
	free(path);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pcjit.XXXXXX");
	if (!mkdtemp(dir))
		SKIP("cannot make a temporary directory: make /tmp (or $TMPDIR) writable");
	check_not_jitdump();
	check_truncated_while_read();
	check_many_moves();
	if (system("command -v node >/dev/null") == 0) {
		char *path = make_dump();
		size_t n = 0;
		if (path)
			check_real(path, &n);
		if (path && n > 1)
			check_cut(path, n);
		free(path);
	} else {
		printf("node is not installed: real jitdump part skipped\n");
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return TEST_DONE();
}
