/* symbols against the oracle: record real workloads with real `perf record -g`, read the
 * file with perfdata_reader, symbolize every sample and compare each frame's ip, sym and
 * dso with what `perf script -F ip,sym,dso` prints for the same file, frame by frame.
 * A per-process recording of tests/workloads/hot, and a short system-wide one (other
 * processes, kernel threads, libraries, the vdso).
 */
#include "test.h"

#include "base/log.h"
#include "perfdata/perfdata_read.h"
#include "symbols/symbols.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct oracle_frame {
	uint64_t ip;
	char *sym, *dso;
};

struct oracle_sample {
	struct oracle_frame *f;
	size_t n;
};

struct oracle {
	struct oracle_sample *s;
	size_t n, cap;
};

static char tmpdir[64];

static int run(const char *cmd)
{
	int r = system(cmd);
	return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

/* "\t<hex> <sym> (<dso>)": the dso is the last parenthesized part. */
static bool parse_frame(char *line, struct oracle_frame *f)
{
	char *p = line;
	while (*p == '\t' || *p == ' ')
		p++;
	char *end;
	f->ip = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return false;
	p = end + 1;
	size_t l = strlen(p);
	if (l < 3 || p[l - 1] != ')')
		return false;
	/* the '(' matching the last ')': dso names can hold parentheses ("(deleted)") */
	int depth = 0;
	char *open = NULL;
	for (size_t i = l; i-- > 0 && !open;) {
		if (p[i] == ')')
			depth++;
		else if (p[i] == '(' && --depth == 0 && i > 0 && p[i - 1] == ' ')
			open = p + i - 1;
	}
	if (!open)
		return false;
	p[l - 1] = 0;
	*open = 0;
	f->sym = strdup(p);
	f->dso = strdup(open + 2);
	return true;
}

static bool load_oracle(const char *path, struct oracle *o)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return false;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, fp)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = 0;
		if (!len)
			continue;
		if (line[0] != '\t') { /* header line of a sample */
			if (o->n == o->cap) {
				o->cap = o->cap ? 2 * o->cap : 1024;
				o->s = realloc(o->s, o->cap * sizeof(*o->s));
			}
			o->s[o->n++] = (struct oracle_sample){0};
			continue;
		}
		if (!o->n)
			continue;
		struct oracle_sample *s = &o->s[o->n - 1];
		struct oracle_frame f;
		if (!parse_frame(line, &f)) {
			fprintf(stderr, "cannot parse perf script line: %s\n", line);
			continue;
		}
		s->f = realloc(s->f, (s->n + 1) * sizeof(*s->f));
		s->f[s->n++] = f;
	}
	free(line);
	fclose(fp);
	return true;
}

static void free_oracle(struct oracle *o)
{
	for (size_t i = 0; i < o->n; i++) {
		for (size_t j = 0; j < o->s[i].n; j++) {
			free(o->s[i].f[j].sym);
			free(o->s[i].f[j].dso);
		}
		free(o->s[i].f);
	}
	free(o->s);
}

struct counts {
	size_t samples, frames, mismatches, more, vanished, anon, kinds[4];
};

/* Whether the process whose number starts pid_text is gone or lives in another mount
 * namespace than ours (its /tmp is not ours). */
static bool other_mount_ns_or_gone(const char *pid_text)
{
	char path[64], theirs[64] = "", ours[64] = "";
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", atoi(pid_text));
	if (readlink(path, theirs, sizeof(theirs) - 1) < 0)
		return true;
	if (readlink("/proc/self/ns/mnt", ours, sizeof(ours) - 1) < 0)
		return false;
	return strcmp(theirs, ours) != 0;
}

/* Symbolizes data and compares with the oracle; prints the first mismatches.  prefetch:
 * the kernel's symbols loaded on a thread from the start (as merge does), else at the
 * first kernel frame. */
static void compare(const char *data, const struct oracle *o, struct counts *c, bool prefetch)
{
	struct perfdata_reader *r = perfdata_reader_open(data);
	CHECK(r != NULL);
	if (!r)
		return;
	struct symbolizer_opts so = {.live = false};
	struct symbolizer *s = symbolizer_new(&so);
	if (prefetch)
		symbolizer_prefetch_kernel(s);
	struct frame frames[128];
	struct perfdata_record rec;
	int ret;
	while ((ret = perfdata_reader_next(r, &rec)) > 0) {
		if (rec.header->type != PERF_RECORD_SAMPLE) {
			symbolizer_process(s, &rec);
			continue;
		}
		size_t n = symbolizer_frames(s, &rec.sample, frames, 127);
		if (c->samples >= o->n) {
			c->samples++;
			continue;
		}
		const struct oracle_sample *os = &o->s[c->samples++];
		if (n != os->n) {
			if (c->mismatches++ < 10)
				fprintf(stderr, "sample %zu (pid %u): %zu frames, perf has %zu\n",
					c->samples - 1, rec.sample.pid, n, os->n);
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			const struct oracle_frame *of = &os->f[i];
			c->frames++;
			c->kinds[frames[i].kind]++;
			/* deliberate: JIT code perf leaves unnamed (memfd double mappings, .NET
			 * images, jitdump-only code) is named from the JIT's own files */
			if (frames[i].kind == FRAME_JIT && !strcmp(of->sym, "[unknown]") &&
			    frames[i].ip == of->ip) {
				c->more++;
				continue;
			}
			/* deliberate: other JIT names in anonymous memory (node's) keep the
			 * mapping's name as dso, where perf writes the perf map (symbols.h) */
			if (frames[i].ip == of->ip && !strcmp(frames[i].sym, of->sym) &&
			    !strncmp(of->dso, "/tmp/perf-", 10) && str_endswith(of->dso, ".map") &&
			    (!strcmp(frames[i].dso, "//anon") ||
			     !strncmp(frames[i].dso, "[anon:", 6))) {
				c->anon++;
				continue;
			}
			/* other processes' perf maps may be deleted between perf script and us */
			if (frames[i].kind == FRAME_UNKNOWN && !strcmp(of->dso, frames[i].dso) &&
			    !strncmp(of->dso, "/tmp/perf-", 10) && access(of->dso, F_OK) != 0) {
				c->vanished++;
				continue;
			}
			/* another test's container process: perf script read its perf map in
			 * the container's /tmp (perf enters the process's mount namespace) while it
			 * ran; it is gone now, or offline we never read another namespace's /tmp
			 * (issue 24, finding 11): unnamed here, deliberately */
			if (frames[i].ip == of->ip && !strcmp(frames[i].sym, "[unknown]") &&
			    !strncmp(of->dso, "/tmp/perf-", 10) && str_endswith(of->dso, ".map") &&
			    other_mount_ns_or_gone(of->dso + 10)) {
				c->vanished++;
				continue;
			}
			/* a binary of another test's container (its private /tmp), gone by now:
			 * perf record copied it into perf's build-id cache, which we do not read */
			if (frames[i].kind == FRAME_UNKNOWN && !strcmp(of->dso, frames[i].dso) &&
			    frames[i].ip == of->ip && of->dso[0] == '/' &&
			    access(of->dso, F_OK) != 0) {
				c->vanished++;
				continue;
			}
			if (frames[i].ip != of->ip || strcmp(frames[i].sym, of->sym) ||
			    strcmp(frames[i].dso, of->dso)) {
				if (c->mismatches++ < 20)
					fprintf(stderr,
						"sample %zu frame %zu: %" PRIx64
						" %s (%s), perf: %" PRIx64 " %s (%s)\n",
						c->samples - 1, i, frames[i].ip, frames[i].sym,
						frames[i].dso, of->ip, of->sym, of->dso);
			}
		}
	}
	CHECK(ret == 0);
	symbolizer_free(s);
	perfdata_reader_free(r);
}

static void check_recording(const char *name, const char *record_args, size_t min_samples,
			    size_t min_jit, bool prefetch)
{
	char cmd[1024], data[128], txt[128];
	snprintf(data, sizeof(data), "%s/%s.data", tmpdir, name);
	snprintf(txt, sizeof(txt), "%s/%s.txt", tmpdir, name);
	snprintf(cmd, sizeof(cmd), "perf record -q -g -o %s %s >/dev/null 2>&1", data, record_args);
	CHECK(run(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "perf script -i %s -F comm,tid,time,ip,sym,dso > %s 2>/dev/null",
		 data, txt);
	CHECK(run(cmd) == 0);
	struct oracle o = {0};
	CHECK(load_oracle(txt, &o));
	struct counts c = {0};
	compare(data, &o, &c, prefetch);
	printf("%s: %zu samples (perf: %zu), %zu frames (kernel %zu, native %zu, jit %zu, "
	       "unknown %zu), %zu named where perf has [unknown], %zu in anonymous memory with its "
	       "own name for dso, %zu mismatches\n",
	       name, c.samples, o.n, c.frames, c.kinds[FRAME_KERNEL], c.kinds[FRAME_NATIVE],
	       c.kinds[FRAME_JIT], c.kinds[FRAME_UNKNOWN], c.more, c.anon, c.mismatches);
	CHECK(c.samples == o.n);
	CHECK(c.samples >= min_samples);
	CHECK(c.kinds[FRAME_JIT] >= min_jit);
	CHECK(c.mismatches == 0);
	CHECK(c.kinds[FRAME_KERNEL] > 0);
	free_oracle(&o);
}

int main(void)
{
	const char *build = getenv("BUILD_DIR");
	if (geteuid() != 0)
		SKIP("needs root for perf record: run the tests as root");
	if (run("command -v perf >/dev/null") != 0)
		SKIP("perf (Debian linux-perf) is not installed: run scripts/setup as root");
	if (!build)
		SKIP("BUILD_DIR not set (run through meson test)");
	log_set_quiet(true);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pcsym.XXXXXX");
	if (!mkdtemp(tmpdir))
		SKIP("cannot make a temporary directory: make /tmp (or $TMPDIR) writable");
	/* a prefetch of the kernel's symbols never used: waited for and freed, nothing left */
	struct symbolizer_opts so = {.live = false};
	struct symbolizer *unused = symbolizer_new(&so);
	symbolizer_prefetch_kernel(unused);
	symbolizer_prefetch_kernel(unused); /* a second call starts nothing more */
	symbolizer_free(unused);
	char args[512];
	/* the workload: hot_leaf <- main <- __libc_start_call_main, ld.so at startup */
	snprintf(args, sizeof(args), "-- %s/tests/workloads/hot 1 2", build);
	check_recording("hot", args, 500, 0, false);
	/* system-wide: whatever else runs, kernel threads, the vdso */
	snprintf(args, sizeof(args), "-a -- %s/tests/workloads/hot 0.5", build);
	check_recording("system", args, 200, 0, true);
	/* node writes /tmp/perf-<pid>.map: JS frames named from it, as perf does */
	if (run("command -v node >/dev/null") == 0) {
		char js[128], pidfile[128];
		snprintf(js, sizeof(js), "%s/spin.js", tmpdir);
		snprintf(pidfile, sizeof(pidfile), "%s/node.pid", tmpdir);
		FILE *f = fopen(js, "w");
		CHECK(f != NULL);
		if (f) {
			fputs("function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
			      "const end = Date.now() + 700; let x = 0;\n"
			      "while (Date.now() < end) x += fib(20);\n",
			      f);
			fclose(f);
		}
		snprintf(args, sizeof(args),
			 "-- sh -c 'echo $$ > %s; exec node --perf-basic-prof %s'", pidfile, js);
		check_recording("node", args, 200, 100, false);
		size_t len;
		char *pid = read_file(pidfile, &len);
		if (pid) {
			char map[64];
			snprintf(map, sizeof(map), "/tmp/perf-%d.map", atoi(pid));
			unlink(map);
			free(pid);
		}
	} else {
		printf("node is not installed: JS frames not checked\n");
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (!test_failures)
		run(cmd);
	else
		fprintf(stderr, "recordings kept in %s\n", tmpdir);
	return TEST_DONE();
}
