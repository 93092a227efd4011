/* Unit tests for the perf.data reader.
 *
 * Without perf: sample decoding on hand-made records and perf's round rule on the queue.
 * With perf (and root): files recorded by real `perf record` (-a, -p PID, -z, and one killed
 * with SIGKILL) read back sample for sample in the order `perf script` prints them, header
 * strings as `perf report --header-only` shows them, and a few hundred corrupted copies read
 * through without a crash (CI runs this under ASan/UBSan).
 *
 * `test_perfdata_read --dump FILE` prints what the reader sees (a debugging aid). */
#include "base/log.h"
#include "base/util.h"
#include "perfdata/ordered_events.h"
#include "perfdata/perfdata_read.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- hand-made records ---- */

struct rec_builder {
	uint64_t w[64];
	size_t n; /* u64 words after the header */
};

static void put(struct rec_builder *b, uint64_t v)
{
	b->w[1 + b->n++] = v;
}

static const struct perf_event_header *finish_rec(struct rec_builder *b, uint32_t type,
						  uint16_t misc)
{
	struct perf_event_header h = {type, misc, (uint16_t)(8 * (b->n + 1))};
	memcpy(&b->w[0], &h, sizeof(h));
	return (const struct perf_event_header *)b->w;
}

static void test_parse_sample(void)
{
	struct perf_event_attr attr = {0};
	attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN |
			   PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	attr.sample_id_all = 1;
	struct rec_builder b = {0};
	put(&b, 77);			/* identifier */
	put(&b, 0xffffffff81000000ULL); /* ip */
	put(&b, 100 | (101ULL << 32));	/* pid, tid */
	put(&b, 123456789);		/* time */
	put(&b, 77);			/* id */
	put(&b, 3);			/* cpu, res */
	put(&b, 1000000);		/* period */
	put(&b, 2), put(&b, 5);		/* read: nr, time_enabled */
	put(&b, 10), put(&b, 77);	/* value, id */
	put(&b, 20), put(&b, 78);	/* value, id */
	put(&b, 3);			/* callchain nr */
	put(&b, PERF_CONTEXT_USER), put(&b, 0x401000), put(&b, 0x401100);
	put(&b, 12 | (0xaabbccddULL << 32)); /* raw: size 12, data... */
	put(&b, 0x1122334455667788ULL);
	put(&b, 1); /* branch nr */
	put(&b, 1), put(&b, 2), put(&b, 3);
	put(&b, 42); /* weight */
	const struct perf_event_header *h =
	    finish_rec(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	struct perf_sample s;
	CHECK(perfdata_parse_sample(&attr, h, &s) == 0);
	CHECK_EQ_U64(s.id, 77);
	CHECK_EQ_U64(s.ip, 0xffffffff81000000ULL);
	CHECK_EQ_U64(s.pid, 100);
	CHECK_EQ_U64(s.tid, 101);
	CHECK_EQ_U64(s.time, 123456789);
	CHECK(s.has_time && s.has_cpu);
	CHECK_EQ_U64(s.cpu, 3);
	CHECK_EQ_U64(s.period, 1000000);
	CHECK_EQ_U64(s.nr_callchain, 3);
	CHECK(s.callchain && s.callchain[0] == PERF_CONTEXT_USER && s.callchain[2] == 0x401100);
	CHECK_EQ_U64(s.raw_size, 12);
	CHECK(s.raw_data && !memcmp(s.raw_data, "\xdd\xcc\xbb\xaa", 4));
	CHECK_EQ_U64(s.cpumode, PERF_RECORD_MISC_USER);
	uint64_t id;
	CHECK(perfdata_record_id(&attr, h, &id) == 0 && id == 77);

	/* Every shorter cut of the record is refused, never read past. */
	for (size_t words = 0; words < b.n; words++) {
		struct rec_builder c = b;
		c.n = words;
		CHECK(perfdata_parse_sample(&attr, finish_rec(&c, PERF_RECORD_SAMPLE, 0), &s) < 0);
	}
	/* A callchain claiming more entries than the record holds. */
	struct perf_event_attr cc = {.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN};
	struct rec_builder d = {0};
	put(&d, 1), put(&d, 1ULL << 61), put(&d, 0);
	CHECK(perfdata_parse_sample(&cc, finish_rec(&d, PERF_RECORD_SAMPLE, 0), &s) < 0);

	/* Per-process recording: no CPU field. */
	struct perf_event_attr nocpu = {.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						       PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD};
	struct rec_builder e = {0};
	put(&e, 0x1000), put(&e, 7 | (8ULL << 32)), put(&e, 99), put(&e, 1);
	CHECK(perfdata_parse_sample(&nocpu, finish_rec(&e, PERF_RECORD_SAMPLE, 0), &s) == 0);
	CHECK(!s.has_cpu && s.pid == 7 && s.tid == 8 && s.time == 99 && s.period == 1);

	/* sample_id_all trailer of a COMM record: pid tid, time, id, cpu, identifier. */
	struct rec_builder t = {0};
	put(&t, 5 | (6ULL << 32)), put(&t, 0x6d6f63); /* comm body: pid, tid, "com" */
	put(&t, 5 | (6ULL << 32)), put(&t, 555), put(&t, 77), put(&t, 1), put(&t, 77);
	struct perf_sample_id sid;
	h = finish_rec(&t, PERF_RECORD_COMM, 0);
	CHECK(perfdata_parse_sample_id(&attr, h, &sid) == 0);
	CHECK(sid.pid == 5 && sid.tid == 6 && sid.time == 555 && sid.cpu == 1);
	CHECK(sid.has_time && sid.has_cpu);
	CHECK(perfdata_record_id(&attr, h, &id) == 0 && id == 77);
	t.n = 3;
	CHECK(perfdata_parse_sample_id(&attr, finish_rec(&t, PERF_RECORD_COMM, 0), &sid) < 0);
}

/* ---- perf's round rule ---- */

static uint64_t tag(const struct oe_entry *e)
{
	return e->time * 100 + e->file_offset; /* time and arrival tag together */
}

/* Pops every released entry; peek() must show each one before it is popped, and the one
 * after it (the reader's prefetch). */
static size_t pop_all(struct ordered_events *oe, uint64_t *out)
{
	struct oe_entry e;
	size_t n = 0;
	bool have_second = false;
	uint64_t second = 0;
	for (;;) {
		const struct oe_entry *p0 = ordered_events_peek(oe, 0);
		const struct oe_entry *p1 = ordered_events_peek(oe, 1);
		uint64_t first = p0 ? tag(p0) : 0;
		if (have_second)
			CHECK(p0 && first == second);
		have_second = p1 != NULL;
		second = p1 ? tag(p1) : 0;
		if (!ordered_events_pop(oe, &e)) {
			CHECK(!p0);
			break;
		}
		CHECK(p0 && first == tag(&e));
		out[n++] = tag(&e);
	}
	return n;
}

static void test_ordered_events(void)
{
	struct ordered_events *oe = ordered_events_new();
	uint64_t got[32];
	/* round 1: nothing is released (no limit yet); the limit becomes 30 */
	ordered_events_queue(oe, 30, 1, NULL, NULL);
	ordered_events_queue(oe, 10, 2, NULL, NULL);
	ordered_events_queue(oe, 20, 3, NULL, NULL);
	ordered_events_round(oe);
	CHECK_EQ_U64(pop_all(oe, got), 0);
	/* round 2: up to 30 is released, sorted; equal times keep arrival order */
	ordered_events_queue(oe, 25, 4, NULL, NULL);
	ordered_events_queue(oe, 40, 5, NULL, NULL);
	ordered_events_queue(oe, 10, 6, NULL, NULL);
	ordered_events_queue(oe, 30, 7, NULL, NULL);
	ordered_events_round(oe);
	CHECK_EQ_U64(pop_all(oe, got), 6);
	uint64_t want2[] = {1002, 1006, 2003, 2504, 3001, 3007};
	for (size_t i = 0; i < 6; i++)
		CHECK_EQ_U64(got[i], want2[i]);
	/* an empty round moves nothing, not even the limit (perf returns early) */
	CHECK_EQ_U64(pop_all(oe, got), 0);
	ordered_events_queue(oe, 35, 8, NULL, NULL);
	ordered_events_round(oe); /* releases <= 40, limit becomes 40 (max_timestamp) */
	CHECK_EQ_U64(pop_all(oe, got), 2);
	CHECK_EQ_U64(got[0], 3508);
	CHECK_EQ_U64(got[1], 4005);
	ordered_events_round(oe); /* empty: no change */
	/* the first record into an empty queue sets max_timestamp, even if earlier */
	ordered_events_queue(oe, 36, 9, NULL, NULL);
	ordered_events_queue(oe, 50, 10, NULL, NULL);
	ordered_events_round(oe); /* releases <= 40 */
	CHECK_EQ_U64(pop_all(oe, got), 1);
	CHECK_EQ_U64(got[0], 3609);
	ordered_events_final(oe);
	CHECK_EQ_U64(pop_all(oe, got), 1);
	CHECK_EQ_U64(ordered_events_count(oe), 0);
	/* a record left behind in a block: the queue puts its reference */
	struct oe_block *b = oe_block_new();
	b->data = xmalloc(8);
	ordered_events_queue(oe, 60, 11, b->data, b);
	CHECK_EQ_U64(b->refs, 2);
	oe_block_put(b);
	ordered_events_free(oe); /* (ASan: nothing leaks) */
}

/* The queue against a model of the rule (every released entry, sorted on time then
 * arrival), over random rounds: times in per-CPU runs as a recorder writes them, some
 * behind the limit, equal times, copies. */
static void test_ordered_events_model(void)
{
	struct ordered_events *oe = ordered_events_new();
	enum { MAX = 4096 };
	static struct oe_entry model[MAX];
	struct oe_block *block = oe_block_new();
	block->data = xmalloc(64);
	size_t nmodel = 0;
	uint64_t seq = 0, tail = 0, max_time = 0, next_flush = 0, popped = 0;
	unsigned rnd = 12345;
	uint64_t cpu_time[4] = {1000, 1000, 1000, 1000};
	for (int round = 0; round < 400; round++) {
		int runs = (int)((rnd = rnd * 1103515245 + 12345) >> 16) % 5;
		for (int r = 0; r < runs && nmodel < MAX - 64; r++) {
			int cpu = (int)((rnd = rnd * 1103515245 + 12345) >> 16) % 4;
			int len = (int)((rnd = rnd * 1103515245 + 12345) >> 16) % 12;
			for (int i = 0; i < len; i++) {
				cpu_time[cpu] += ((rnd = rnd * 1103515245 + 12345) >> 16) % 7;
				uint64_t t = cpu_time[cpu];
				if (nmodel == 0 || t >= tail)
					tail = t, max_time = t;
				const void *copy = i % 5 == 0 ? block->data + i : NULL;
				ordered_events_queue(oe, t, seq, copy, block);
				model[nmodel++] = (struct oe_entry){t, seq++, 0, copy, NULL};
			}
		}
		bool final = round == 399;
		uint64_t limit = final ? UINT64_MAX : next_flush;
		if (final)
			ordered_events_final(oe);
		else if (nmodel) {
			ordered_events_round(oe);
			next_flush = max_time;
		} else {
			limit = 0;
		}
		struct oe_entry e;
		while (ordered_events_pop(oe, &e)) {
			/* the model's smallest (time, seq) at or below the limit */
			size_t best = nmodel;
			for (size_t i = 0; i < nmodel; i++)
				if (model[i].time <= limit &&
				    (best == nmodel || model[i].time < model[best].time ||
				     (model[i].time == model[best].time &&
				      model[i].seq < model[best].seq)))
					best = i;
			CHECK(best < nmodel);
			if (best == nmodel)
				break;
			CHECK_EQ_U64(e.time, model[best].time);
			CHECK_EQ_U64(e.file_offset, model[best].seq);
			CHECK(e.copy == model[best].copy);
			CHECK(e.block == (e.copy ? block : NULL));
			oe_block_put(e.block);
			model[best] = model[--nmodel];
			popped++;
		}
		for (size_t i = 0; i < nmodel; i++) /* nothing at or below the limit is left */
			CHECK(limit == 0 || model[i].time > limit);
		CHECK_EQ_U64(ordered_events_count(oe), nmodel);
	}
	CHECK(popped > 1000);
	CHECK_EQ_U64(nmodel, 0);
	CHECK_EQ_U64(block->refs, 1); /* every reference a record took was given back */
	oe_block_put(block);
	ordered_events_free(oe);
}

/* ---- reading whole files ---- */

struct sample_key {
	uint32_t pid, tid;
	uint64_t time;
};

struct read_result {
	struct sample_key *s;
	size_t n, cap;
	size_t records, errors;
	bool opened, truncated;
	uint64_t data_pos;
};

static bool read_ahead; /* read_all() decompresses on a thread ahead (decomp_ahead.h) */

static void read_all(const char *path, struct read_result *res)
{
	memset(res, 0, sizeof(*res));
	struct perfdata_reader *r = perfdata_reader_open(path);
	if (!r)
		return;
	if (read_ahead)
		perfdata_reader_decompress_ahead(r);
	res->opened = true;
	struct perfdata_record rec;
	int ret;
	size_t guard = 0;
	while ((ret = perfdata_reader_next(r, &rec)) != 0 && guard++ < 10000000) {
		if (ret < 0) {
			res->errors++;
			continue;
		}
		res->records++;
		if (rec.header->type != PERF_RECORD_SAMPLE)
			continue;
		grow_array((void **)&res->s, &res->cap, res->n + 1, sizeof(*res->s));
		res->s[res->n++] =
		    (struct sample_key){rec.sample.pid, rec.sample.tid, rec.sample.time};
	}
	CHECK(guard < 10000000); /* the reader always comes to an end */
	res->truncated = perfdata_reader_truncated(r);
	res->data_pos = perfdata_reader_data_pos(r);
	perfdata_reader_free(r);
}

/* read_all() both ways: the same records, samples, errors and end whether the compressed
 * records are decompressed ahead on a thread or by the reader itself. */
static void read_both(const char *path, struct read_result *res)
{
	read_all(path, res);
	read_ahead = true;
	struct read_result a;
	read_all(path, &a);
	read_ahead = false;
	CHECK(a.opened == res->opened && a.truncated == res->truncated);
	CHECK_EQ_U64(a.errors, res->errors);
	CHECK_EQ_U64(a.records, res->records);
	CHECK(a.n == res->n && (!a.n || !memcmp(a.s, res->s, a.n * sizeof(*a.s))));
	free(a.s);
}

static char *tmpdir;
static char *hot;

static char *path_in_tmp(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

/* Run a command line through the shell and return its stdout. */
static char *capture(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	if (!f)
		return xstrdup("");
	size_t len = 0, cap = 0;
	char *out = NULL;
	for (;;) {
		grow_array((void **)&out, &cap, len + 4096, 1);
		size_t n = fread(out + len, 1, cap - len - 1, f);
		if (!n)
			break;
		len += n;
	}
	out[len] = 0;
	pclose(f);
	return out;
}

static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static int run_quiet(const char *cmd)
{
	char *full = xasprintf("%s >/dev/null 2>&1", cmd);
	int st = system(full);
	free(full);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `perf script -F pid,tid,time` lines ("  123/456   789.012345:") against our samples.
 * Lines of other shapes (pipe-mode files also print callchains) are not samples. */
static void compare_with_perf_script(const char *path, const struct read_result *res)
{
	char *cmd = xasprintf("perf script -i '%s' -F pid,tid,time 2>/dev/null", path);
	char *out = capture(cmd);
	size_t i = 0, mismatches = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned pid, tid;
		unsigned long long sec, usec;
		char colon;
		if (sscanf(line, " %u/%u %llu.%6llu%c", &pid, &tid, &sec, &usec, &colon) != 5 ||
		    colon != ':')
			continue;
		if (i < res->n) {
			const struct sample_key *k = &res->s[i];
			if (k->pid != pid || k->tid != tid || k->time / 1000000000 != sec ||
			    k->time % 1000000000 / 1000 != usec) {
				if (!mismatches++)
					fprintf(stderr,
						"%s: sample %zu: perf %u/%u %llu.%06llu, ours "
						"%u/%u %llu.%06llu\n",
						path, i, pid, tid, sec, usec, k->pid, k->tid,
						(unsigned long long)(k->time / 1000000000),
						(unsigned long long)(k->time % 1000000000 / 1000));
			}
		}
		i++;
	}
	if (i != res->n)
		fprintf(stderr, "%s: perf script has %zu samples, we read %zu\n", path, i, res->n);
	CHECK(i > 0);
	CHECK_EQ_U64(res->n, i);
	CHECK_EQ_U64(mismatches, 0);
	free(out);
	free(cmd);
}

/* The value of "# key : value" in `perf report --header-only`, trailing blanks cut. */
static char *header_value(const char *report, const char *key)
{
	char *want = xasprintf("# %s : ", key);
	const char *p = strstr(report, want);
	char *v = NULL;
	if (p) {
		p += strlen(want);
		size_t n = strcspn(p, "\n");
		while (n && p[n - 1] == ' ')
			n--;
		v = xstrndup(p, n);
	}
	free(want);
	return v;
}

static void compare_header(const char *path)
{
	char *cmd = xasprintf("perf report --header-only -i '%s' 2>/dev/null", path);
	char *report = capture(cmd);
	struct perfdata_reader *r = perfdata_reader_open(path);
	CHECK(r != NULL);
	if (!r)
		goto out;
	static const struct {
		const char *key;
		const char *(*get)(const struct perfdata_reader *);
	} fields[] = {
	    {"hostname", perfdata_reader_hostname},    {"os release", perfdata_reader_osrelease},
	    {"perf version", perfdata_reader_version}, {"arch", perfdata_reader_arch},
	    {"cmdline", perfdata_reader_cmdline},
	};
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		char *want = header_value(report, fields[i].key);
		CHECK(want != NULL);
		CHECK_STR(fields[i].get(r), want);
		free(want);
	}
	char *nrcpus = header_value(report, "nrcpus avail");
	CHECK(nrcpus && perfdata_reader_nrcpus(r) == atoi(nrcpus));
	free(nrcpus);
	/* "# event : name = cpu-clock, , id = {...", one line per attr, in order */
	size_t i = 0;
	for (const char *p = report; (p = strstr(p, "# event : name = ")); i++) {
		p += strlen("# event : name = ");
		char *name = xstrndup(p, strcspn(p, ","));
		const struct perfdata_evsel *e = perfdata_reader_evsel(r, i);
		CHECK(e != NULL);
		if (e)
			CHECK_STR(e->name, name);
		free(name);
	}
	CHECK(i > 0);
	CHECK_EQ_U64(perfdata_reader_nr_evsels(r), i);
	CHECK(perfdata_reader_has_feature(r, HEADER_EVENT_DESC));
	CHECK(!perfdata_reader_truncated(r));
	perfdata_reader_free(r);
out:
	free(report);
	free(cmd);
}

static char *perf_record(const char *name, const char *opts, const char *workload)
{
	char *path = path_in_tmp(name);
	char *cmd = xasprintf("perf record -q %s -o '%s' -- %s", opts, path, workload);
	CHECK(run_quiet(cmd) == 0);
	free(cmd);
	return path;
}

static void check_file(const char *path, bool header)
{
	struct read_result res;
	read_both(path, &res);
	CHECK(res.opened);
	CHECK_EQ_U64(res.errors, 0);
	CHECK(!res.truncated);
	compare_with_perf_script(path, &res);
	if (header)
		compare_header(path);
	free(res.s);
}

static char *hot_cmd(const char *seconds, const char *threads)
{
	return xasprintf("'%s' %s %s", hot, seconds, threads);
}

/* -p PID of a running process: no PERF_SAMPLE_CPU, one attr, no ids in samples.  The target
 * outlives the recording (perf records it for the second `sleep 1` runs), so a busy machine
 * that starts perf late cannot leave it nothing to attach to. */
static char *record_pid(void)
{
	char *path = path_in_tmp("p.data");
	char *argv[] = {hot, "600", "2", NULL};
	pid_t target = spawn(argv);
	char *cmd = xasprintf("perf record -q -e cpu-clock -F 1000 -g -p %d -o '%s' -- sleep 1",
			      (int)target, path);
	int rc = run_quiet(cmd);
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	free(cmd);
	CHECK(rc == 0);
	return path;
}

/* `perf record -a` killed with SIGKILL once it has written records. */
static char *record_killed(void)
{
	char *argv_hot[] = {hot, "5", "2", NULL};
	pid_t load = spawn(argv_hot);
	char *path = path_in_tmp("k.data");
	char *argv_perf[] = {"perf", "record", "-q", "-e", "cpu-clock", "-F",
			     "1000", "-g",     "-a", "-o", path,	NULL};
	pid_t perf = spawn(argv_perf);
	/* Wait (bounded) until the growing file holds samples: a reader of the live file sees
	 * them once perf has written a few buffers. */
	struct timespec step = {0, 50 * 1000 * 1000};
	uint64_t deadline = monotonic_ns() + 15ULL * 1000000000;
	size_t seen = 0;
	while (seen < 100 && monotonic_ns() < deadline) {
		nanosleep(&step, NULL);
		struct read_result res;
		read_all(path, &res);
		seen = res.n;
		free(res.s);
	}
	CHECK(seen >= 100);
	kill(perf, SIGKILL);
	waitpid(perf, NULL, 0);
	kill(load, SIGKILL);
	waitpid(load, NULL, 0);
	return path;
}

static void check_killed(const char *path)
{
	struct read_result res;
	read_both(path, &res);
	CHECK(res.opened);
	CHECK(res.truncated);
	CHECK(res.n > 0);
	CHECK_EQ_U64(res.errors, 0);
	/* The oracle: the same file with the data size perf record would have written (up to
	 * the last whole record we took) and no feature bits, which perf reads normally. */
	size_t len;
	char *data = read_file(path, &len);
	struct perf_file_header fh;
	CHECK(data && len >= sizeof(fh));
	if (data && len >= sizeof(fh)) {
		memcpy(&fh, data, sizeof(fh));
		fh.data.size = res.data_pos;
		memset(fh.adds_features, 0, sizeof(fh.adds_features));
		memcpy(data, &fh, sizeof(fh));
		char *fixed = path_in_tmp("k-fixed.data");
		int fd = open(fixed, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		CHECK(fd >= 0 && write_all(fd, data, fh.data.offset + res.data_pos) == 0);
		close(fd);
		compare_with_perf_script(fixed, &res);
		free(fixed);
	}
	free(data);
	free(res.s);
}

/* ---- a hand-made file that makes perf's round rule visible ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct filebuf {
	uint8_t *p;
	size_t len, cap;
};

static void fb_put(struct filebuf *b, const void *d, size_t n)
{
	grow_array((void **)&b->p, &b->cap, b->len + n, 1);
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void synth_sample(struct filebuf *b, uint32_t pid, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time, period;
	} s = {{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s)},
	       0x401000,
	       pid,
	       pid + 1,
	       time,
	       1};
	fb_put(b, &s, sizeof(s));
}

static void synth_comm(struct filebuf *b, uint32_t pid, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		uint32_t id_pid, id_tid;
		uint64_t time;
	} c = {{PERF_RECORD_COMM, 0, sizeof(c)}, pid, pid + 1, "synth", pid, pid + 1, time};
	fb_put(b, &c, sizeof(c));
}

static void synth_round(struct filebuf *b)
{
	struct perf_event_header h = {PERF_RECORD_FINISHED_ROUND, 0, sizeof(h)};
	fb_put(b, &h, sizeof(h));
}

/* Rounds of samples with late arrivals (older than what earlier rounds released), equal
 * times from different threads, empty rounds and records without a time. */
static void synth_records(struct filebuf *data)
{
	const uint64_t R = 1000000; /* a round spans 1 ms */
	uint64_t base = 5 * R, last = base;
	for (int round = 0; round < 60; round++) {
		int n = (int)(rnd() % 25);
		for (int j = 0; j < n; j++) {
			uint64_t kind = rnd() % 10, t;
			if (kind == 0)
				t = base - (rnd() % 3) * R - rnd() % R;
			else if (kind == 1)
				t = last;
			else
				t = base + rnd() % R;
			synth_sample(data, 100 + (uint32_t)(rnd() % 50), t);
			last = t;
			if (rnd() % 16 == 0)
				synth_comm(data, 200, rnd() % 2 ? 0 : t);
		}
		synth_round(data);
		if (rnd() % 5 == 0)
			synth_round(data);
		base += R;
	}
	synth_sample(data, 99, base); /* after the last round: only the end flush takes it */
}

/* The records as `perf record -z` writes them: one zstd stream, flushed after each piece of
 * a few hundred bytes cut anywhere (so records straddle two COMPRESSED records, whose
 * decompressed bytes end mid-record), each piece's output a PERF_RECORD_COMPRESSED. */
static void compress_records(const struct filebuf *data, struct filebuf *out)
{
	ZSTD_CCtx *z = ZSTD_createCCtx();
	CHECK(z != NULL);
	uint8_t buf[8192];
	for (size_t at = 0; at < data->len;) {
		size_t n = 1 + rnd() % 400;
		if (n > data->len - at)
			n = data->len - at;
		ZSTD_inBuffer in = {data->p + at, n, 0};
		ZSTD_outBuffer o = {buf + sizeof(struct perf_event_header),
				    sizeof(buf) - sizeof(struct perf_event_header), 0};
		size_t left;
		do
			left = ZSTD_compressStream2(z, &o, &in, ZSTD_e_flush);
		while (!ZSTD_isError(left) && left);
		CHECK(!ZSTD_isError(left) && in.pos == n);
		/* (not padded, as perf writes them: the records after it sit misaligned) */
		size_t size = sizeof(struct perf_event_header) + o.pos;
		struct perf_event_header h = {PERF_RECORD_COMPRESSED, 0, (uint16_t)size};
		memcpy(buf, &h, sizeof(h));
		fb_put(out, buf, size);
		at += n;
	}
	ZSTD_freeCCtx(z);
}

/* finished: as perf record leaves a file (a hostname feature after the data).  Unfinished:
 * as our writer leaves it when killed: no feature bits, data.size at an earlier flush, then
 * more whole records and a cut one. */
static char *write_synthetic(const struct filebuf *data, bool finished, bool compressed)
{
	struct perf_event_attr attr = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(attr),
	    .config = PERF_COUNT_SW_CPU_CLOCK,
	    .sample_period = 1,
	    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
	    .sample_id_all = 1,
	};
	struct perf_file_header fh = {0};
	uint64_t id = 1;
	size_t attrs_at = sizeof(fh), ids_at = attrs_at + sizeof(attr) + 16;
	fh.magic = PERF_MAGIC2;
	fh.size = sizeof(fh);
	fh.attr_size = sizeof(attr) + 16;
	fh.attrs = (struct perf_file_section){attrs_at, fh.attr_size};
	fh.data = (struct perf_file_section){ids_at + 8, data->len};
	struct {
		uint32_t len;
		char name[12];
	} hostname = {12, "synthhost"};
	/* HEADER_COMPRESSED: version, type (1: zstd), level, ratio, mmap_len (perf's buffer for
	 * one record's decompressed bytes) */
	uint32_t comp[5] = {1, 1, 1, 1, 1u << 20};
	size_t nfeat = 1 + compressed, after = fh.data.offset + data->len;
	struct perf_file_section feat[2] = {
	    {after + nfeat * sizeof(*feat), sizeof(hostname)},
	    {after + nfeat * sizeof(*feat) + sizeof(hostname), sizeof(comp)}};
	if (finished)
		fh.adds_features[0] = 1ULL << HEADER_HOSTNAME;
	else
		fh.data.size = 40 * 100; /* a record boundary: 100 samples of 40 bytes */
	if (compressed)
		fh.adds_features[0] |= 1ULL << HEADER_COMPRESSED;
	struct perf_file_section ids = {ids_at, 8};
	struct filebuf file = {0};
	fb_put(&file, &fh, sizeof(fh));
	fb_put(&file, &attr, sizeof(attr));
	fb_put(&file, &ids, sizeof(ids));
	fb_put(&file, &id, sizeof(id));
	fb_put(&file, data->p, data->len);
	if (finished) {
		fb_put(&file, feat, sizeof(*feat) * nfeat);
		fb_put(&file, &hostname, sizeof(hostname));
		if (compressed)
			fb_put(&file, comp, sizeof(comp));
	} else {
		fb_put(&file, data->p, 12); /* the start of one more record */
	}
	char *path = path_in_tmp(compressed ? "synthetic-z.data"
				 : finished ? "synthetic.data"
					    : "synthetic-killed.data");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write_all(fd, file.p, file.len) == 0);
	close(fd);
	free(file.p);
	return path;
}

static void check_synthetic(void)
{
	struct filebuf data = {0};
	synth_records(&data);
	CHECK(data.len > 40 * 100 && data.p[0] == PERF_RECORD_SAMPLE);
	char *path = write_synthetic(&data, true, false);
	struct read_result res;
	read_all(path, &res);
	CHECK(res.opened && !res.truncated && res.errors == 0);
	/* Late samples come out after later ones, as perf prints them: the test would not
	 * tell perf's rule from a plain sort otherwise. */
	size_t inversions = 0;
	for (size_t i = 1; i < res.n; i++)
		inversions += res.s[i].time < res.s[i - 1].time;
	CHECK(inversions > 0);
	compare_with_perf_script(path, &res);
	struct perfdata_reader *r = perfdata_reader_open(path);
	CHECK(r && perfdata_reader_hostname(r));
	if (r)
		CHECK_STR(perfdata_reader_hostname(r), "synthhost");
	perfdata_reader_free(r);

	/* Killed writer: every whole record is recovered, in the same order. */
	char *killed = write_synthetic(&data, false, false);
	struct read_result kres;
	read_all(killed, &kres);
	CHECK(kres.opened && kres.truncated && kres.errors == 0);
	CHECK_EQ_U64(kres.n, res.n);
	CHECK(kres.n == res.n && !memcmp(kres.s, res.s, res.n * sizeof(*res.s)));
	free(kres.s);
	free(killed);

	/* The same records compressed as perf record -z cuts them, records straddling two
	 * COMPRESSED records: the same samples in the same order, as perf reads them. */
	struct filebuf zdata = {0};
	compress_records(&data, &zdata);
	char *zpath = write_synthetic(&zdata, true, true);
	struct read_result zres;
	read_both(zpath, &zres);
	CHECK(zres.opened && !zres.truncated && zres.errors == 0);
	CHECK_EQ_U64(zres.n, res.n);
	CHECK(zres.n == res.n && !memcmp(zres.s, res.s, res.n * sizeof(*res.s)));
	compare_with_perf_script(zpath, &zres);
	printf(
	    "synthetic -z file: %zu bytes of records in %zu of COMPRESSED records, %zu samples\n",
	    data.len, zdata.len, zres.n);
	free(zres.s);
	free(zpath);
	free(zdata.p);
	free(res.s);
	free(path);
	free(data.p);
}

/* ---- corrupted copies ---- */

static void fuzz(char *const *paths, size_t npaths, int iterations)
{
	struct {
		char *data;
		size_t len, samples;
	} base[8];
	for (size_t i = 0; i < npaths; i++) {
		struct read_result res;
		base[i].data = read_file(paths[i], &base[i].len);
		read_all(paths[i], &res);
		base[i].samples = res.n;
		free(res.s);
		CHECK(base[i].data && base[i].len > 0);
		if (!base[i].data || !base[i].len)
			return;
	}
	char *path = path_in_tmp("fuzz.data");
	uint8_t *buf = xmalloc(1);
	for (int it = 0; it < iterations; it++) {
		size_t b = (size_t)it % npaths, len = base[b].len;
		buf = xrealloc(buf, len);
		memcpy(buf, base[b].data, len);
		uint64_t mode = rnd() % 4;
		size_t lo = 0, span = len;
		if (mode == 0)
			span = len < 2048 ? len : 2048; /* header, attrs, first records */
		else if (mode == 3 && len > 4096)
			lo = len - 4096, span = 4096; /* features */
		if (mode != 2) {
			for (int k = 1 + (int)(rnd() % 8); k > 0; k--) {
				uint64_t v = rnd();
				buf[lo + v % span] = (uint8_t)(v % 3 == 0   ? 0xff
							       : v % 3 == 1 ? 0
									    : v >> 40);
			}
		}
		if (mode == 2 || (mode == 3 && rnd() % 2))
			len = (size_t)(rnd() % len);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		CHECK(fd >= 0 && write_all(fd, buf, len) == 0);
		close(fd);
		struct read_result res;
		read_ahead = (it / (int)npaths) % 2; /* damaged data decompressed ahead too */
		read_all(path, &res);
		read_ahead = false;
		if (mode == 2 && res.opened)
			CHECK(res.n <= base[b].samples);
		free(res.s);
	}
	free(buf);
	free(path);
	for (size_t i = 0; i < npaths; i++)
		free(base[i].data);
}

static int dump(const char *path)
{
	struct perfdata_reader *r = perfdata_reader_open(path);
	if (!r) {
		fprintf(stderr, "%s\n", pc_strerror());
		return 1;
	}
	printf("# hostname %s osrelease %s version %s arch %s nrcpus %d truncated %d\n",
	       perfdata_reader_hostname(r), perfdata_reader_osrelease(r),
	       perfdata_reader_version(r), perfdata_reader_arch(r), perfdata_reader_nrcpus(r),
	       perfdata_reader_truncated(r));
	printf("# cmdline %s\n", perfdata_reader_cmdline(r));
	size_t tracing_size;
	const char *tracing = perfdata_reader_tracing_data(r, &tracing_size);
	printf("# tracing data %zu bytes%s\n", tracing_size,
	       tracing && tracing_size > 10 && !memcmp(tracing + 3, "tracing", 7) ? " (tracing)"
										  : "");
	for (size_t i = 0; i < perfdata_reader_nr_evsels(r); i++) {
		const struct perfdata_evsel *e = perfdata_reader_evsel(r, i);
		printf("# event %s sample_type %#llx nids %zu\n", e->name,
		       (unsigned long long)e->attr.sample_type, e->nids);
	}
	struct perfdata_record rec;
	int ret;
	while ((ret = perfdata_reader_next(r, &rec)) != 0) {
		if (ret < 0) {
			printf("error: %s\n", pc_strerror());
			continue;
		}
		const struct perf_sample_id *id = &rec.id;
		printf("%llu type %u size %u pid %d tid %d time %llu.%06llu cpu %d%s\n",
		       (unsigned long long)rec.file_offset, rec.header->type, rec.header->size,
		       (int)id->pid, (int)id->tid, (unsigned long long)(id->time / 1000000000),
		       (unsigned long long)(id->time % 1000000000 / 1000), (int)id->cpu,
		       rec.header->type == PERF_RECORD_SAMPLE ? " SAMPLE" : "");
	}
	printf("# truncated %d data_pos %llu\n", perfdata_reader_truncated(r),
	       (unsigned long long)perfdata_reader_data_pos(r));
	perfdata_reader_free(r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--dump"))
		return dump(argv[2]);
	log_set_quiet(true);
	test_parse_sample();
	test_ordered_events();
	test_ordered_events_model();

	const char *build = getenv("BUILD_DIR");
	const char *why = geteuid() != 0		      ? "not root"
			  : run_quiet("command -v perf") != 0 ? "perf is not installed"
			  : !build			      ? "BUILD_DIR is not set"
							      : NULL;
	if (why) {
		printf("note: real-perf checks skipped: %s\n", why);
		return TEST_DONE();
	}
	hot = xasprintf("%s/tests/workloads/hot", build);
	char tmpl[] = "/tmp/pdread.XXXXXX";
	tmpdir = mkdtemp(tmpl);
	CHECK(tmpdir != NULL);
	if (!tmpdir)
		return TEST_DONE();

	check_synthetic();

	/* system-wide, two attrs (ids in every record), small buffers: many rounds */
	char *load = hot_cmd("0.5", "2");
	char *a =
	    perf_record("a.data", "-m 8 -e cpu-clock -e context-switches -F 1000 -g -a", load);
	check_file(a, true);
	char *z = perf_record("z.data", "-z -e cpu-clock -F 1000 -g -a", load);
	check_file(z, true);
	char *pipe = path_in_tmp("pipe.data");
	char *cmd = xasprintf("perf record -q -e cpu-clock -F 1000 -g -a -o - -- %s 2>/dev/null "
			      "> '%s'",
			      load, pipe);
	CHECK(system(cmd) == 0);
	check_file(pipe, false);
	char *p = record_pid();
	check_file(p, true);
	char *k = record_killed();
	check_killed(k);

	char *bases[] = {a, z, pipe, k};
	/* PC_FUZZ_ITERATIONS=N and PC_FUZZ_SEED=S run a longer or other fuzz by hand */
	const char *iters = getenv("PC_FUZZ_ITERATIONS"), *seed = getenv("PC_FUZZ_SEED");
	if (seed)
		rng = strtoull(seed, NULL, 0) | 1;
	fuzz(bases, ARRAY_SIZE(bases), iters ? atoi(iters) : 400);

	free(cmd);
	free(load);
	free(a);
	free(z);
	free(pipe);
	free(p);
	free(k);
	rm_rf(tmpdir);
	free(hot);
	return TEST_DONE();
}
