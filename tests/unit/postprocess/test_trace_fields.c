/* Unit tests for trace_fields: the `trace` field of tracepoint samples in perf.data files
 * written here with formats no tracefs has (so they are foreign): the child process gives
 * the same text libtraceevent gives in-process, sample for sample; when the child dies
 * mid-way (killed here, as a crash in libtraceevent would end it) the rest is printed raw
 * and the log says so; tracing data whose layout does not add up is printed raw from the
 * start; a format libtraceevent would crash on is left out.  With root and tracefs, this
 * kernel's own sched_switch format is read in-process, without a child. */
#include "base/log.h"
#include "perfdata/perfdata_write.h"
#include "postprocess/trace_fields.h"
#include "record/tracepoints.h"
#include "record/tracefs.h"
#include "test.h"
#include "tracing_blob.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

/* More answers than the pipe and both sides' buffers hold (about 200 KiB), so the child is
 * still writing when it is killed. */
#define NR_SAMPLES 12000
#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |               \
	 PERF_SAMPLE_RAW)

static char dir[] = "/tmp/test_trace_fields.XXXXXX";

/* Room for a sched_switch record (64 bytes); the u32 size and the data fill whole words,
 * as the kernel pads them. */
#define RAW_SIZE 68

/* A sample whose raw data is rec_raw (raw_len bytes, at most RAW_SIZE). */
static size_t sample(uint64_t *w, uint64_t time, const void *rec_raw, size_t raw_len)
{
	size_t size = 8 + 4 * 8 + 4 + RAW_SIZE;
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .size = (uint16_t)size};
	memcpy(w, &h, 8);
	w[1] = 4242 | (uint64_t)4242 << 32; /* pid, tid */
	w[2] = time;
	w[3] = 1; /* cpu */
	w[4] = 1; /* period */
	uint32_t raw_size = RAW_SIZE;
	unsigned char raw[RAW_SIZE] = {0};
	memcpy(raw, rec_raw, raw_len);
	memcpy(&w[5], &raw_size, 4);
	memcpy((char *)&w[5] + 4, raw, RAW_SIZE);
	return size;
}

/* perf.data at path with one tracepoint event (config id) and these tracing data; the
 * samples' raw data are pctest:ev records with value i and name "w<i>". */
static void write_file(const char *path, unsigned id, const void *blob, size_t blob_len, int nr)
{
	struct perfdata_writer *w = perfdata_writer_new(path);
	CHECK(w != NULL);
	if (!w)
		return;
	struct perf_event_attr attr = {.type = PERF_TYPE_TRACEPOINT,
				       .size = sizeof(attr),
				       .config = id,
				       .sample_period = 1,
				       .sample_type = SAMPLE_TYPE,
				       .sample_id_all = 1};
	static const uint64_t ids[] = {1};
	CHECK(perfdata_writer_add_attr(w, &attr, "pctest:ev", ids, 1) == 0);
	for (int i = 0; i < nr; i++) {
		unsigned char raw[TBLOB_RECORD_SIZE] = {0};
		uint16_t type = (uint16_t)id;
		uint32_t value = (uint32_t)i;
		memcpy(raw, &type, 2);
		memcpy(raw + 8, &value, 4);
		snprintf((char *)raw + 12, 16, "w%d", i);
		uint64_t rec[16];
		size_t n = sample(rec, 1000000 + (uint64_t)i, raw, sizeof(raw));
		CHECK(perfdata_writer_write(w, rec, n) == 0);
	}
	struct perfdata_meta meta = {
	    .clockid = -1, .tracing_data = blob, .tracing_data_size = blob_len};
	CHECK(perfdata_writer_finish(w, &meta) == 0);
	perfdata_writer_free(w);
}

/* Our children now (the child trace_fields started, if any). */
static pid_t child_pid(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	char *s = read_file(path, NULL);
	pid_t pid = s ? (pid_t)atoi(s) : 0;
	free(s);
	return pid;
}

struct run {
	int texts, right, raw, none;
	pid_t child;   /* seen after the first answer */
	bool confined; /* the child then: not root, no new privileges, a seccomp filter */
};

/* What /proc/<pid>/status says on the line that starts with field (its first number). */
static long status_field(pid_t pid, const char *field)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	char *s = read_file(path, NULL);
	const char *at = s ? strstr(s, field) : NULL;
	long v = at ? strtol(at + strlen(field), NULL, 10) : -1;
	free(s);
	return v;
}

/* The child as it runs (it has answered, so it works on the foreign formats now): it is
 * root no more (real, effective and saved uid), can gain nothing back, and runs under a
 * seccomp filter (mode 2). */
static bool confined(pid_t pid)
{
	long uid = status_field(pid, "\nUid:\t"), nnp = status_field(pid, "\nNoNewPrivs:\t");
	long seccomp = status_field(pid, "\nSeccomp:\t");
	if (uid == 0 || uid < 0 || nnp != 1 || seccomp != 2)
		fprintf(stderr, "child %d: uid %ld, NoNewPrivs %ld, Seccomp %ld\n", (int)pid, uid,
			nnp, seccomp);
	return uid > 0 && nnp == 1 && seccomp == 2;
}

/* Reads every sample of path through trace_fields; kill_after > 0: SIGKILLs the child after
 * that many answers. */
static struct run run(const char *path, int kill_after)
{
	struct run res = {0};
	struct perfdata_reader *r = perfdata_reader_open(path);
	CHECK(r != NULL);
	if (!r)
		return res;
	struct trace_fields *t = trace_fields_new(r, path);
	struct perfdata_record rec;
	while (perfdata_reader_next(r, &rec) > 0) {
		if (rec.header->type != PERF_RECORD_SAMPLE)
			continue;
		const char *text = trace_fields_text(t, &rec);
		uint32_t value;
		memcpy(&value, (const char *)rec.sample.raw_data + 8, 4);
		char want[64];
		snprintf(want, sizeof(want), "value=%u name=w%u", value, value);
		res.none += !text;
		res.raw += text && !strncmp(text, "raw=", 4);
		res.right += text && !strcmp(text, want);
		if (++res.texts == 1 && (res.child = child_pid()) > 0)
			res.confined = confined(res.child);
		if (res.texts == kill_after && res.child)
			kill(res.child, SIGKILL);
	}
	trace_fields_free(t);
	perfdata_reader_free(r);
	return res;
}

static char *log_text(const char *log)
{
	char *s = read_file(log, NULL);
	return s ? s : xstrdup("");
}

int main(void)
{
	log_set_quiet(true);
	CHECK(mkdtemp(dir) != NULL);
	char *path = xasprintf("%s/perf.data", dir), *log = xasprintf("%s/log", dir);
	CHECK(log_open(log) == 0);

	/* Foreign formats: the child prints exactly what libtraceevent prints. */
	struct tblob b = tblob_one("\"value=%u name=%s\", REC->value, REC->name", NULL, false);
	write_file(path, 900, b.p, b.len, NR_SAMPLES);
	struct run res = run(path, 0);
	CHECK_EQ_U64(res.texts, NR_SAMPLES);
	CHECK_EQ_U64(res.right, NR_SAMPLES);
	CHECK(res.child > 0);
	CHECK(res.confined);
	char *text = log_text(log);
	CHECK(strstr(text, "libtraceevent reads them in a separate process") != NULL);
	free(text);

	/* The child dies after 100 answers: what it wrote before is used, the rest is raw. */
	res = run(path, 100);
	CHECK(res.child > 0);
	CHECK(res.right >= 100 && res.right < NR_SAMPLES);
	CHECK_EQ_U64(res.right + res.raw, NR_SAMPLES);
	CHECK(res.raw > 0);
	text = log_text(log);
	CHECK(strstr(text, "libtraceevent crashed (Killed) on the tracepoint formats") != NULL);
	CHECK(strstr(text, "the trace field is printed raw") != NULL);
	free(text);

	/* Tracing data cut short: raw from the start, nothing forked. */
	write_file(path, 900, b.p, 60, 10);
	res = run(path, 0);
	CHECK_EQ_U64(res.raw, 10);
	CHECK(res.child == 0);

	/* A print fmt naming an undeclared field (libtraceevent dereferences NULL there): the
	 * format is left out, its samples have no field, and the child runs safely. */
	free(b.p);
	b = tblob_one("\"value=%u\", REC->nosuch", NULL, false);
	write_file(path, 900, b.p, b.len, 10);
	res = run(path, 0);
	CHECK_EQ_U64(res.none, 10);
	text = log_text(log);
	CHECK(strstr(text, "1 tracepoint formats in perf.data are malformed and left out "
			   "(first: pctest:ev: ") != NULL);
	free(text);

	/* No tracing data at all: no fields, as before. */
	write_file(path, 900, NULL, 0, 10);
	res = run(path, 0);
	CHECK_EQ_U64(res.none, 10);
	CHECK(res.child == 0);

	/* This kernel's sched_switch: libtraceevent in this process. */
	uint64_t id = 0;
	void *blob;
	size_t size;
	const char *events[] = {"sched:sched_switch"};
	if (getuid() == 0 && tracefs_path() && tracepoint_id(events[0], &id) == 0 &&
	    tracing_data_build(events, 1, &blob, &size) == 0) {
		write_file(path, (unsigned)id, blob, size, 10);
		res = run(path, 0);
		CHECK_EQ_U64(res.texts, 10);
		CHECK(res.child == 0);
		CHECK(res.none == 0 && res.raw == 0);
		free(blob);
	} else {
		printf("this kernel's formats: skipped (needs root and tracefs)\n");
	}

	log_close();
	free(b.p);
	rm_rf(dir);
	free(path);
	free(log);
	return TEST_DONE();
}
