/* Unit tests for script: the layout of every field against lines real perf 6.1 printed,
 * then a round trip through real `perf script`: its output on files recorded now (with and
 * without callchains, with tracepoints and events of different name lengths) is parsed
 * into fields, formatted again by script_writer and must come out byte for byte the same. */
#include "postprocess/perfview_text.h"
#include "postprocess/script.h"
#include "test.h"

#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static char *format(int name_width, const struct script_sample *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct script_writer *w = script_writer_new(f, name_width);
	CHECK(script_writer_sample(w, s) == 0);
	CHECK(script_writer_flush(w) == 0);
	script_writer_free(w);
	fclose(f);
	return text;
}

static void test_layout(void)
{
	struct frame frames[] = {
	    {.ip = 0x1199, .sym = "hot_leaf", .dso = "/srv/hot", .kind = FRAME_NATIVE},
	    {.ip = 0xffffffff821facd8,
	     .sym = "__schedule",
	     .dso = "[kernel.kallsyms]",
	     .kind = FRAME_KERNEL},
	    {.ip = 0, .sym = "[unknown]", .dso = "[unknown]", .kind = FRAME_UNKNOWN},
	};
	struct script_sample s = {
	    .comm = "hot",
	    .pid = 7717,
	    .tid = 7717,
	    .has_cpu = true,
	    .cpu = 1,
	    .has_time = true,
	    .time = 372987545123ULL,
	    .period = 1000000,
	    .event = "cpu-clock",
	    .callchain = true,
	    .ip = 0x556b37ef9199,
	    .frames = frames,
	    .nframes = 3,
	};
	char *t = format(9, &s);
	CHECK_STR(t, "hot  7717/7717  [001]   372.987545:    1000000 cpu-clock: \n"
		     "\t            1199 hot_leaf (/srv/hot)\n"
		     "\tffffffff821facd8 __schedule ([kernel.kallsyms])\n"
		     "\t               0 [unknown] ([unknown])\n\n");
	free(t);

	/* No CPU in the samples (perf record -p / a workload): the column is left out. */
	s.has_cpu = false;
	s.nframes = 1;
	t = format(9, &s);
	CHECK_STR(t, "hot  7717/7717    372.987545:    1000000 cpu-clock: \n"
		     "\t            1199 hot_leaf (/srv/hot)\n\n");
	free(t);

	/* Without callchains: comm is "%16s", the absolute sample ip on the same line. */
	s.callchain = false;
	s.pid = 8512, s.tid = 8512;
	s.time = 413832009999ULL;
	t = format(9, &s);
	CHECK_STR(t, "             hot  8512/8512    413.832009:    1000000 cpu-clock: "
		     "     556b37ef9199 hot_leaf (/srv/hot)\n");
	free(t);

	/* Tracepoint text, event names aligned to the longest, swapper's pid 0, a 3-digit
	 * CPU, a large time, pid -1 and long pids. */
	struct script_sample tp = {
	    .comm = "migration/0",
	    .pid = 18,
	    .tid = 18,
	    .has_cpu = true,
	    .cpu = 0,
	    .has_time = true,
	    .time = 421168816000ULL,
	    .period = 1,
	    .event = "sched:sched_switch",
	    .trace = "prev_comm=migration/0 prev_pid=18",
	    .callchain = true,
	    .frames = frames + 1,
	    .nframes = 1,
	};
	t = format(18, &tp);
	CHECK_STR(t, "migration/0    18/18    [000]   421.168816:          1 sched:sched_switch: "
		     "prev_comm=migration/0 prev_pid=18\n"
		     "\tffffffff821facd8 __schedule ([kernel.kallsyms])\n\n");
	free(t);
	struct script_sample cc = {
	    .comm = "swapper",
	    .pid = 0,
	    .tid = 0,
	    .has_cpu = true,
	    .cpu = 123,
	    .has_time = true,
	    .time = 12345678901234567ULL,
	    .period = 250000,
	    .event = "cpu-clock",
	    .callchain = true,
	};
	t = format(18, &cc);
	CHECK_STR(t,
		  "swapper     0/0     [123] 12345678.901234:     250000          cpu-clock: \n\n");
	free(t);
	cc.pid = -1, cc.tid = -1, cc.comm = NULL, cc.cpu = 1234, cc.time = 5000;
	cc.pid = 4194304;
	t = format(0, &cc);
	CHECK_STR(t, ":-1 4194304/-1    [1234]     0.000005:     250000 cpu-clock: \n\n");
	free(t);
}

/* ---- round trip through real perf script ---- */

struct parsed {
	regex_t header, frame;
	size_t samples, mismatches;
	size_t spaced; /* samples of a thread whose comm ends in a space */
};

static char *sub(const char *line, const regmatch_t *m)
{
	if (m->rm_so < 0)
		return xstrdup("");
	return xstrndup(line + m->rm_so, m->rm_eo - m->rm_so);
}

/* Parses one sample block (header line + frame lines) of perf script's output into a
 * script_sample, formats it and compares it with the block. */
static void round_trip_block(struct parsed *p, char **lines, size_t n)
{
	regmatch_t m[12];
	const char *h = lines[0];
	if (regexec(&p->header, h, 12, m, 0) != 0) {
		fprintf(stderr, "unparsed header: %s\n", h);
		p->mismatches++;
		return;
	}
	char *pid = sub(h, &m[2]), *tid = sub(h, &m[3]);
	char *cpu = sub(h, &m[5]), *secs = sub(h, &m[6]), *usecs = sub(h, &m[7]);
	char *period = sub(h, &m[8]), *event = sub(h, &m[9]), *rest = sub(h, &m[10]);
	/* perf prints comm ("%s " or "%16s "), then the pid as "%5d": the comm ends one
	 * space and the pid's padding before the pid, whatever it ends with (a thread may be
	 * named "RequestBuilder ", as MSBuild's are).  Only "%16s"'s padding is stripped. */
	size_t pid_len = strlen(pid), pad = pid_len < 5 ? 5 - pid_len : 0;
	size_t comm_end = (size_t)m[2].rm_so >= pad + 1 ? (size_t)m[2].rm_so - pad - 1 : 0;
	char *comm = xstrndup(h, comm_end);
	char *c = comm;
	while (*c == ' ')
		c++;
	if (*c && c[strlen(c) - 1] == ' ')
		p->spaced++;
	struct frame *frames = xcalloc(n + 1, sizeof(*frames));
	char **owned = xcalloc(2 * (n + 1), sizeof(char *));
	size_t nf = 0, no = 0;
	struct script_sample s = {
	    .comm = c,
	    .pid = atoi(pid),
	    .tid = atoi(tid),
	    .has_cpu = *cpu != 0,
	    .cpu = atoi(cpu),
	    .has_time = true,
	    .time = strtoull(secs, NULL, 10) * 1000000000ULL + strtoull(usecs, NULL, 10) * 1000,
	    .period = strtoull(period, NULL, 10),
	    .frames = frames,
	};
	const char *ev = event;
	while (*ev == ' ')
		ev++;
	s.event = ev;
	s.callchain = n > 1 || !*rest || rest[strlen(rest) - 1] != ')';
	if (s.callchain) {
		s.trace = *rest ? rest : NULL;
		for (size_t i = 1; i < n; i++) {
			if (regexec(&p->frame, lines[i], 12, m, 0) != 0) {
				fprintf(stderr, "unparsed frame: %s\n", lines[i]);
				p->mismatches++;
				goto out;
			}
			frames[nf].ip = strtoull(lines[i] + m[1].rm_so, NULL, 16);
			frames[nf].sym = owned[no++] = sub(lines[i], &m[2]);
			frames[nf].dso = owned[no++] = sub(lines[i], &m[3]);
			nf++;
		}
	} else {
		/* " %16lx SYM (DSO)" on the header line (cpu-clock only in that file). */
		char *line = xasprintf("\t%s", rest + 1);
		owned[no++] = line;
		if (regexec(&p->frame, line, 12, m, 0) != 0) {
			fprintf(stderr, "unparsed sample: %s\n", h);
			p->mismatches++;
			goto out;
		}
		s.ip = strtoull(line + m[1].rm_so, NULL, 16);
		frames[0].sym = owned[no++] = sub(line, &m[2]);
		frames[0].dso = owned[no++] = sub(line, &m[3]);
		nf = 1;
	}
	s.nframes = nf;
	/* What the writer does otherwise, on purpose (perfview_text.h): a process name
	 * PerfView's reader would misread is renamed, a dso's " (deleted)" left out. */
	bool renamed;
	char *pv_comm = perfview_comm(c, s.pid, s.tid, &renamed);
	char *want = NULL;
	size_t wl = 0;
	FILE *wf = open_memstream(&want, &wl);
	for (size_t i = 0; i < n; i++) {
		const char *l = lines[i];
		size_t len = strlen(l), dl = strlen(" (deleted))");
		const char *at = i == 0 && renamed ? strstr(l, c) : NULL;
		if (at)
			fprintf(wf, "%.*s%s", (int)(at - l), l, pv_comm), l = at + strlen(c),
									  len = strlen(l);
		if (len >= dl && !strcmp(l + len - dl, " (deleted))"))
			fprintf(wf, "%.*s)\n", (int)(len - dl), l);
		else
			fprintf(wf, "%s\n", l);
	}
	if (renamed)
		free(pv_comm);
	if (s.callchain)
		fputc('\n', wf);
	fclose(wf);
	char *got = format((int)strlen(event), &s);
	p->samples++;
	if (strcmp(got, want)) {
		if (p->mismatches++ < 3)
			fprintf(stderr, "perf script:\n%s--- script_writer:\n%s---\n", want, got);
	}
	free(got);
	free(want);
out:
	for (size_t i = 0; i < no; i++)
		free(owned[i]);
	free(owned);
	free(frames);
	free(comm), free(pid), free(tid), free(cpu), free(secs), free(usecs);
	free(period), free(event), free(rest);
}

static size_t round_trip_file(struct parsed *p, const char *script_cmd)
{
	FILE *f = popen(script_cmd, "r");
	CHECK(f != NULL);
	if (!f)
		return 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	char **block = NULL;
	size_t n = 0, bcap = 0, before = p->samples;
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		bool blank = len == 0;
		/* A new header (not a tab-indented frame) also ends a block without callchain. */
		if (n && (blank || line[0] != '\t')) {
			round_trip_block(p, block, n);
			for (size_t i = 0; i < n; i++)
				free(block[i]);
			n = 0;
		}
		if (blank)
			continue;
		grow_array((void **)&block, &bcap, n + 1, sizeof(*block));
		block[n++] = xstrdup(line);
	}
	if (n)
		round_trip_block(p, block, n);
	for (size_t i = 0; i < n; i++)
		free(block[i]);
	free(block);
	free(line);
	CHECK(pclose(f) == 0);
	return p->samples - before;
}

static int sh(const char *cmd)
{
	int r = system(cmd);
	return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

static void test_against_perf(void)
{
	if (geteuid() != 0 || sh("command -v perf >/dev/null") != 0) {
		printf("round trip against perf script skipped: needs root and perf\n");
		return;
	}
	const char *build = getenv("BUILD_DIR");
	if (!build) {
		printf("round trip skipped: BUILD_DIR not set\n");
		return;
	}
	char dir[] = "/tmp/pc-script-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct parsed p = {0};
	CHECK(
	    regcomp(&p.header,
		    "^(.*[^ ]) +(-?[0-9]+)/(-?[0-9]+) +(\\[([0-9]+)\\] +)?([0-9]+)\\.([0-9]{6}): +"
		    "([0-9]+) ( *[^ ]+): ?(.*)$",
		    REG_EXTENDED) == 0);
	/* The dso: the last parenthesized group, which may end in " (deleted)". */
	CHECK(regcomp(&p.frame, "^\t *([0-9a-f]+) (.*) \\(([^()]*( \\(deleted\\))?)\\)$",
		      REG_EXTENDED) == 0);

	/* A busy thread named like MSBuild's "RequestBuilder " while the system-wide file is
	 * recorded: a comm that ends in a space must come out as perf prints it. */
	pid_t spaced = fork();
	if (spaced == 0) {
		/* Renamed again and again: the kernel's COMM records carry the name exactly
		 * (perf trims what it reads from /proc). */
		uint64_t end = monotonic_ns() + 20000000000ULL, next = 0;
		while (monotonic_ns() < end)
			if (monotonic_ns() >= next) {
				prctl(PR_SET_NAME, "RequestBuilder ");
				next = monotonic_ns() + 20000000;
			}
		_exit(0);
	}
	char *cmd = xasprintf(
	    "cd %s && perf record -q -e cpu-clock -F 2000 -g -o cg.data %s/tests/workloads/hot 0.3"
	    " >/dev/null 2>&1 && perf record -q -e cpu-clock -F 2000 -o flat.data "
	    "%s/tests/workloads/hot 0.3 >/dev/null 2>&1 && perf record -q -a -g "
	    "-e sched:sched_switch -e cpu-clock -F 500 -o tp.data sleep 0.3 >/dev/null 2>&1",
	    dir, build, build);
	int rec = sh(cmd);
	free(cmd);
	if (rec != 0) {
		printf("round trip skipped: perf record failed (%d)\n", rec);
	} else {
		static const char *const runs[] = {
		    "perf script -i %s/cg.data --fields comm,pid,tid,time,period,event,ip,sym,dso",
		    "perf script -i %s/flat.data --fields "
		    "comm,pid,tid,time,period,event,ip,sym,dso",
		    "perf script -i %s/tp.data --fields "
		    "comm,pid,tid,cpu,time,period,event,ip,sym,dso,trace",
		};
		for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
			char *c = xasprintf(runs[i], dir);
			char *c2 = xasprintf("%s 2>/dev/null", c);
			size_t n = round_trip_file(&p, c2);
			printf("%s: %zu samples\n", c, n);
			CHECK(n > 10);
			free(c);
			free(c2);
		}
		printf("round trip: %zu samples, %zu differ, %zu of a comm ending in a space\n",
		       p.samples, p.mismatches, p.spaced);
		CHECK_EQ_U64(p.mismatches, 0);
		CHECK(p.spaced > 0);
	}
	kill(spaced, SIGKILL);
	waitpid(spaced, NULL, 0);
	regfree(&p.header);
	regfree(&p.frame);
	rm_rf(dir);
}

/* give_to(): a callback that takes the text as script_writer_give_to() says, appends it to
 * the same FILE the writer falls back to (so the order shows), refuses every third offer,
 * and hands back a fresh buffer of the piece's size. */
struct giver {
	FILE *f;
	size_t piece, offers, taken, max_len;
};

static int give(void *arg, uint8_t **buf, size_t *cap, size_t len)
{
	struct giver *g = arg;
	CHECK(len > 0 && len <= g->piece && *cap >= g->piece);
	if (len > g->max_len)
		g->max_len = len;
	if (++g->offers % 3 == 0)
		return 1;
	CHECK(fwrite(*buf, 1, len, g->f) == len);
	free(*buf);
	*buf = xmalloc(g->piece);
	*cap = g->piece;
	g->taken++;
	return 0;
}

/* The end of a comparison: both writers flushed (each without error), as many bytes from
 * each, both freed and their memstreams closed (their text then in the caller's buffers). */
static void close_pair(struct script_writer *plain, struct script_writer *w, FILE *wf, FILE *gf)
{
	CHECK(script_writer_flush(plain) == 0 && script_writer_flush(w) == 0);
	CHECK_EQ_U64(script_writer_bytes(w), script_writer_bytes(plain));
	script_writer_free(plain);
	script_writer_free(w);
	fclose(wf);
	fclose(gf);
}

/* Text handed over whole comes out as the FILE alone would have it: in order, with a
 * sample longer than a piece written the usual way, offers refused, and the buffer the
 * callback gives back used for what follows. */
static void test_give(void)
{
	char *long_sym = xmalloc(9000);
	memset(long_sym, 'x', 8999);
	long_sym[8999] = 0;
	struct frame frames[] = {
	    {.ip = 0x1199, .sym = "hot_leaf", .dso = "/srv/hot", .kind = FRAME_NATIVE},
	    {.ip = 0x2a0, .sym = "main", .dso = "/srv/hot", .kind = FRAME_NATIVE},
	    {.ip = 0x77, .sym = long_sym, .dso = "/srv/long", .kind = FRAME_NATIVE},
	};
	char *want = NULL, *got = NULL;
	size_t wl = 0, gl = 0;
	FILE *wf = open_memstream(&want, &wl), *gf = open_memstream(&got, &gl);
	struct script_writer *plain = script_writer_new(wf, 9);
	struct script_writer *w = script_writer_new(gf, 9);
	struct giver g = {.f = gf, .piece = 4096};
	script_writer_give_to(w, give, &g, g.piece);
	for (int i = 0; i < 3000; i++) {
		struct script_sample s = {.comm = "hot",
					  .pid = 7717,
					  .tid = 7717 + i % 7,
					  .has_time = true,
					  .time = 372987545123ULL + (uint64_t)i * 1000,
					  .period = 1000000,
					  .event = "cpu-clock",
					  .callchain = true,
					  .frames = frames,
					  .nframes = i == 1500 ? 3 : 2};
		CHECK(script_writer_sample(plain, &s) == 0);
		CHECK(script_writer_sample(w, &s) == 0);
	}
	close_pair(plain, w, wf, gf);
	CHECK(g.taken > 10 && g.offers > g.taken);
	CHECK(g.max_len > g.piece / 2);
	CHECK(gl == wl && !memcmp(got, want, wl));
	free(want), free(got), free(long_sym);
}

/* Sample i of a stream that varies everything the text depends on: process names (one that
 * PerfView's reader would misread, renamed), tracepoint text or none, callchains or a single
 * frame, 0 to 127 frames with unknown and very long names. */
static void varied_sample(int i, struct script_sample *s, struct frame *frames,
			  const char *long_sym)
{
	static const char *const comms[] = {"hot", "dotnet", "Worker 1/2", ".NET TP Worker",
					    "RequestBuilder "};
	static const char *const syms[] = {
	    "hot_leaf", "main", NULL, "[unknown]",
	    "void [System.Private.CoreLib] System.Threading.Thread::Sleep(int32)"};
	static const char *const dsos[] = {"/srv/hot", "[kernel.kallsyms]", NULL, "/tmp/perf-7.map",
					   "/usr/lib/libc.so.6 (deleted)"};
	size_t n = (size_t)(i * 37 % 128);
	for (size_t k = 0; k < n; k++) {
		frames[k].ip = 0x1000 + (uint64_t)((i + k) % 50) * 0x10;
		frames[k].sym = (i + k) % 211 == 0 ? long_sym : syms[(i + k) % 5];
		frames[k].dso = dsos[(i / 3 + k) % 5];
	}
	*s = (struct script_sample){.comm = comms[i % 5],
				    .pid = 7717 + i % 3,
				    .tid = 7717 + i % 7,
				    .has_cpu = i % 4 != 0,
				    .cpu = (uint32_t)(i % 130),
				    .has_time = true,
				    .time = 372987545123ULL + (uint64_t)i * 1000,
				    .period = 1000000 + (uint64_t)i,
				    .event = i % 9 ? "cpu-clock" : "sched:sched_switch",
				    .trace =
					i % 9 ? NULL : "prev_comm=hot prev_pid=7717 ==> next_pid=0",
				    .callchain = i % 11 != 0,
				    .ip = 0x556b37ef9199 + (uint64_t)i,
				    .frames = frames,
				    .nframes = n};
}

/* Formatted on worker threads (script_writer_parallel()), the text is the one-thread text
 * byte for byte, in order: with batches small enough that 3 workers finish them out of order
 * and the ring of batches wraps many times, handed over whole or written to the FILE. */
static void test_parallel(void)
{
	char *long_sym = xmalloc(9000);
	memset(long_sym, 'x', 8999);
	long_sym[8999] = 0;
	struct frame *frames = xcalloc(128, sizeof(*frames));
	static const struct {
		int workers;
		size_t batch;
		bool give;
	} runs[] = {{3, 4096, true}, {3, 4096, false}, {1, 0, true}, {2, 100000, false}};
	for (size_t r = 0; r < ARRAY_SIZE(runs); r++) {
		char *want = NULL, *got = NULL;
		size_t wl = 0, gl = 0;
		FILE *wf = open_memstream(&want, &wl), *gf = open_memstream(&got, &gl);
		struct script_writer *plain = script_writer_new(wf, 18);
		struct script_writer *w = script_writer_new(gf, 18);
		struct giver g = {.f = gf, .piece = 65536};
		if (runs[r].give)
			script_writer_give_to(w, give, &g, g.piece);
		script_writer_parallel(w, runs[r].workers, runs[r].batch);
		for (int i = 0; i < 6000; i++) {
			struct script_sample s;
			varied_sample(i, &s, frames, long_sym);
			CHECK(script_writer_sample(plain, &s) == 0);
			CHECK(script_writer_sample(w, &s) == 0);
		}
		close_pair(plain, w, wf, gf);
		printf("parallel text: %d workers, batches of %zu bytes%s: %zu bytes\n",
		       runs[r].workers, runs[r].batch, runs[r].give ? ", handed over" : "", gl);
		CHECK(wl > 10000000 / 4);
		if (runs[r].give)
			CHECK(g.taken > 10 && g.offers > g.taken);
		CHECK(gl == wl && !memcmp(got, want, wl));
		free(want), free(got);
	}
	free(frames), free(long_sym);
}

int main(void)
{
	test_layout();
	test_give();
	test_parallel();
	test_against_perf();
	return TEST_DONE();
}
