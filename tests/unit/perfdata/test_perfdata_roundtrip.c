/* The round trip of a real recording through perfdata_write, with real perf as the oracle:
 * `perf record -a` writes a file, we copy its records into one of ours (plain, compressed,
 * killed before finishing, mixed, through the async writer), and `perf script` must print
 * the same text for both, our reader count the same records. */
#include "perfdata/buildid.h"
#include "perfdata/perfdata_async.h"
#include "perfdata/perfdata_read.h"
#include "perfdata/perfdata_write.h"
#include "perf_run.h"
#include "test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The pieces of a real perf.data that the round trip copies. */
struct real_file {
	char *bytes;
	size_t len;
	const struct perf_file_header *h;
	const uint8_t *data;
	uint64_t data_size;
	const void *tracing;
	uint64_t tracing_size;
};

static const void *at(const struct real_file *f, uint64_t off, uint64_t size)
{
	return off <= f->len && size <= f->len - off ? f->bytes + off : NULL;
}

static int parse_real(struct real_file *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->bytes = read_file(path, &f->len);
	f->h = f->bytes ? at(f, 0, sizeof(*f->h)) : NULL;
	if (!f->h || f->h->magic != PERF_MAGIC2)
		return -1;
	f->data = at(f, f->h->data.offset, f->h->data.size);
	f->data_size = f->h->data.size;
	const struct perf_file_section *idx = at(f, f->h->data.offset + f->h->data.size, 0);
	for (int bit = 0, i = 0; idx && bit < HEADER_FEAT_BITS; bit++) {
		if (!(f->h->adds_features[bit / 64] >> (bit % 64) & 1))
			continue;
		const struct perf_file_section *s =
		    at(f, (const char *)(idx + i) - f->bytes, sizeof(*s));
		i++;
		if (s && bit == HEADER_TRACING_DATA) {
			f->tracing = at(f, s->offset, s->size);
			f->tracing_size = s->size;
		}
	}
	return f->data ? 0 : -1;
}

/* A real `perf record` of a tracepoint and cpu-clock, copied record by record through our
 * writer with its attrs, event names, build-ids and tracing data: `perf script` must print
 * exactly the same for both files.  Five ways: plain; compressed (PERF_RECORD_COMPRESSED,
 * as perf record -z); compressed with the meta given up front and the writer killed after
 * its last flush (no _finish(): no build-ids, everything else from the flushes); compressed
 * with compression paused and resumed every few records (what a writer that falls behind
 * writes: plain records between COMPRESSED ones); and through perfdata_async's thread, with
 * rounds and the build-ids given while it runs (every other record built in the room
 * perfdata_async_reserve() gives). */
enum copy_mode { COPY_PLAIN, COPY_COMPRESSED, COPY_KILLED, COPY_MIXED, COPY_ASYNC };
static const char *const copy_mode_name[] = {"plain", "compressed", "compressed, killed",
					     "compressed and plain, mixed", "written by a thread"};

/* The data section's records, as the mode writes them. */
static int copy_records(struct perfdata_writer *w, const struct real_file *f,
			struct perfdata_async *a, enum copy_mode mode)
{
	unsigned n = 0;
	for (uint64_t off = 0; off + 8 <= f->data_size; n++) {
		const struct perf_event_header *eh = (const void *)(f->data + off);
		if (eh->size < 8 || eh->size > f->data_size - off)
			break;
		if (mode == COPY_MIXED && n % 37 == 0)
			perfdata_writer_pause_compression(w, n % 74 == 0);
		if (a && eh->type == PERF_RECORD_FINISHED_ROUND) {
			if (perfdata_async_finished_round(a) < 0)
				return -1;
		} else if (a && n % 2) { /* built in the queue's own room, as the drain packs */
			void *room = perfdata_async_reserve(a, eh->size);
			if (!room)
				return -1;
			memcpy(room, eh, eh->size);
			if (perfdata_async_commit(a, eh->size) < 0)
				return -1;
		} else if ((a ? perfdata_async_write(a, eh, eh->size)
			      : perfdata_writer_write(w, eh, eh->size)) < 0) {
			return -1;
		}
		off += eh->size;
	}
	perfdata_writer_pause_compression(w, false);
	return 0;
}

static int copy_real(const struct real_file *f, const char *ours, const char *names_out,
		     const char *bids_out, enum copy_mode mode)
{
	struct perfdata_writer *w = perfdata_writer_new(ours);
	if (!w)
		return -1;
	struct perfdata_meta meta = {
	    .clockid = -1, .tracing_data = f->tracing, .tracing_data_size = f->tracing_size};
	int ret = -1;
	uint64_t nattrs = f->h->attr_size ? f->h->attrs.size / f->h->attr_size : 0;
	char *names = xstrdup(names_out), *name = names;
	char *bids = xstrdup(bids_out);
	for (uint64_t i = 0; i < nattrs; i++) {
		const uint8_t *e = at(f, f->h->attrs.offset + i * f->h->attr_size, f->h->attr_size);
		struct perf_event_attr attr;
		struct perf_file_section ids;
		if (!e || f->h->attr_size != sizeof(attr) + sizeof(ids))
			goto out;
		memcpy(&attr, e, sizeof(attr));
		memcpy(&ids, e + sizeof(attr), sizeof(ids));
		const void *idv = at(f, ids.offset, ids.size);
		char *nl = strchr(name, '\n');
		if (nl)
			*nl = '\0';
		if (!idv || perfdata_writer_add_attr(w, &attr, name, idv, ids.size / 8) < 0)
			goto out;
		name = nl ? nl + 1 : name + strlen(name);
	}
	if (mode == COPY_KILLED)
		perfdata_writer_set_meta(w, &meta);
	if (mode != COPY_PLAIN && perfdata_writer_compress(w, 1) < 0)
		goto out;
	struct perfdata_async *a = NULL;
	if (mode == COPY_ASYNC && !(a = perfdata_async_start(w, 0, true)))
		goto out;
	if (copy_records(w, f, a, mode) < 0) {
		if (a)
			perfdata_async_stop(a, NULL);
		goto out;
	}
	if (mode == COPY_KILLED) {
		ret = perfdata_writer_flush(w);
		goto out;
	}
	for (char *l = bids; *l;) {
		char *nl = strchr(l, '\n'), *sp = strchr(l, ' ');
		if (nl)
			*nl = '\0';
		struct perfdata_build_id b = {.pid = -1};
		size_t hexlen = sp ? (size_t)(sp - l) : 0;
		for (size_t i = 0; i + 1 < hexlen && i / 2 < BUILDID_MAX; i += 2)
			sscanf(l + i, "%2hhx", &b.id[b.size++]);
		if (sp) {
			b.filename = sp + 1;
			b.kernel =
			    !strcmp(sp + 1, "[kernel.kallsyms]") || str_endswith(sp + 1, ".ko");
			if (a)
				perfdata_async_add_build_id(a, &b);
			else
				perfdata_writer_add_build_id(w, &b);
		}
		l = nl ? nl + 1 : l + strlen(l);
	}
	if (a) {
		struct perfdata_async_stats st;
		if (perfdata_async_stop(a, &st) < 0)
			goto out;
		CHECK(st.handed_off > 0 && st.nbufs == 4 && st.peak_queued <= 4 &&
		      st.uncompressed <= st.handed_off);
	}
	ret = perfdata_writer_finish(w, &meta);
out:
	free(names);
	free(bids);
	if (mode == COPY_KILLED)
		_exit(ret == 0 ? 0 : 1); /* dies here: no _finish(), no _free() */
	perfdata_writer_free(w);
	return ret;
}

/* Records our reader delivers from path (-1 on an error). */
static long count_records(const char *path)
{
	struct perfdata_reader *r = perfdata_reader_open(path);
	if (!r)
		return -1;
	struct perfdata_record rec;
	long n = 0;
	int rc;
	while ((rc = perfdata_reader_next(r, &rec)) > 0)
		n++;
	perfdata_reader_free(r);
	return rc < 0 ? -1 : n;
}

/* The length of a perf script frame line's "<indent><ip>" when the frame is in a JIT map
 * ("\t    7f12... name+0x1 (/tmp/perf-PID.map)", an anonymous executable mapping); 0 else. */
static size_t jit_frame_ip_end(const char *l, size_t n)
{
	static const char map[] = " (/tmp/perf-";
	const char *dso = NULL;
	for (const char *p = l; (p = memmem(p, n - (size_t)(p - l), map, sizeof(map) - 1)); p++)
		dso = p;
	if (!dso || n < 5 || memcmp(l + n - 5, ".map)", 5))
		return 0;
	for (const char *p = dso + sizeof(map) - 1; p < l + n - 5; p++)
		if (*p < '0' || *p > '9')
			return 0;
	size_t i = strspn(l, " \t");
	size_t hex = i;
	while (hex < n && strchr("0123456789abcdef", l[hex]) && l[hex])
		hex++;
	return hex > i && l + hex < dso + 1 && l[hex] == ' ' ? hex : 0;
}

/* perf script's text with each frame in a JIT map cut to its ip.  perf names those frames
 * from /tmp/perf-PID.map as it reads, and a process on the machine may write its map (or
 * exit, its pid then seen from another namespace) between two readings of one file: the
 * same file then reads back with other names.  What perf took from the file itself, the
 * ip and that it lies in an anonymous executable mapping, stays.  *cut: the frames cut. */
static char *without_jit_names(const char *out, size_t *cut)
{
	char *s = xmalloc(strlen(out) + 1), *d = s;
	*cut = 0;
	for (const char *l = out; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l), ip_end = jit_frame_ip_end(l, n);
		if (ip_end) { /* " (JIT map)" is shorter than the " name (/tmp/perf-N.map)" cut */
			memcpy(d, l, ip_end);
			d += ip_end;
			d = stpcpy(d, " (JIT map)");
			++*cut;
		} else {
			memcpy(d, l, n);
			d += n;
		}
		if (nl)
			*d++ = '\n';
		l += n + (nl != NULL);
	}
	*d = '\0';
	return s;
}

/* Two readings of a file whose frames lie in a JIT map that changes between them. */
static void test_without_jit_names(void)
{
	const char *a = "sleep 12 [000] 1.000: 1 cpu-clock:\n"
			"\t    7fdf25ca4000 [unknown] (/tmp/perf-17582.map)\n"
			"\t    55550000112a main+0x1 (/tmp/hot)\n\n";
	const char *b = "sleep 12 [000] 1.000: 1 cpu-clock:\n"
			"\t    7fdf25ca4000 jitted_loop+0x0 (/tmp/perf-17582.map)\n"
			"\t    55550000112a main+0x1 (/tmp/hot)\n\n";
	const char *c = "sleep 12 [000] 1.000: 1 cpu-clock:\n"
			"\t    7fdf25ca4001 jitted_loop+0x1 (/tmp/perf-17582.map)\n"
			"\t    55550000112a main+0x1 (/tmp/hot)\n\n";
	size_t na, nb, nc;
	char *x = without_jit_names(a, &na), *y = without_jit_names(b, &nb),
	     *z = without_jit_names(c, &nc);
	CHECK(na == 1 && nb == 1 && nc == 1 && !strcmp(x, y) && strcmp(y, z) != 0);
	CHECK(strstr(x, "\t    7fdf25ca4000 (JIT map)\n\t    55550000112a main+0x1 (/tmp/hot)\n"));
	free(x);
	free(y);
	free(z);
	/* not a JIT map's: kept as it is */
	const char *d = "\t    7fdf25ca4000 f (/tmp/perf-x.map)\n\t    1 g (/tmp/perf-1.mapx)";
	CHECK(!strcmp(x = without_jit_names(d, &na), d) && na == 0);
	free(x);
}

static void test_roundtrip(const char *dir)
{
	long records = -1;
	char real[512], ours[512], args[8192];
	snprintf(real, sizeof(real), "%s/real.data", dir);
	snprintf(ours, sizeof(ours), "%s/ours.data", dir);
	struct run r;
	snprintf(args, sizeof(args),
		 "record -q -e sched:sched_switch -e cpu-clock -F 1000 -g -a -o %s -- sleep 0.1",
		 real);
	run_perf(&r, args);
	if (r.status != 0) {
		printf("note: round trip skipped, perf record failed: %s\n", r.err);
		run_free(&r);
		return;
	}
	run_free(&r);
	struct real_file f;
	CHECK(parse_real(&f, real) == 0);
	CHECK(f.tracing != NULL);
	struct run names, bids;
	snprintf(args, sizeof(args), "evlist -i %s", real);
	run_perf(&names, args);
	snprintf(args, sizeof(args), "buildid-list -i %s", real);
	run_perf(&bids, args);
	for (int mode = COPY_PLAIN; f.data && mode <= COPY_ASYNC; mode++) {
		if (mode == COPY_KILLED) {
			pid_t child = fork();
			if (child == 0)
				copy_real(&f, ours, names.out, bids.out, mode);
			int st;
			CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) &&
			      WEXITSTATUS(st) == 0);
		} else {
			CHECK(copy_real(&f, ours, names.out, bids.out, mode) == 0);
		}
		/* The frames in JIT maps compared by their ips alone (without_jit_names()) */
		struct run a, b, stats;
		snprintf(args, sizeof(args), "script -i %s", real);
		run_perf(&a, args);
		snprintf(args, sizeof(args), "script -i %s", ours);
		run_perf(&b, args);
		CHECK_RUN(b.status == 0 && !perf_complains(b.err), &b);
		CHECK(strstr(b.out, "sched:sched_switch:") && strstr(b.out, "prev_comm="));
		size_t jit_a, jit_b;
		char *ta = without_jit_names(a.out, &jit_a), *tb = without_jit_names(b.out, &jit_b);
		CHECK(strlen(ta) > 0 && !strcmp(ta, tb) && jit_a == jit_b);
		if (strcmp(ta, tb)) {
			size_t i = 0;
			while (ta[i] && ta[i] == tb[i])
				i++;
			fprintf(
			    stderr,
			    "%s: perf script differs at byte %zu:\nreal: %.200s\nours: %.200s\n",
			    copy_mode_name[mode], i, ta + i, tb + i);
		}
		snprintf(args, sizeof(args), "report --stats -i %s", ours);
		run_perf(&stats, args);
		/* our reader too, whichever way the records were written (compressed: one
		 * more, the HEADER_FEATURE record that says how to decompress) */
		long n = count_records(ours);
		if (mode == COPY_PLAIN)
			records = n;
		CHECK(n > 0 && n == records + (mode != COPY_PLAIN));
		bool compressed = strstr(stats.out, "COMPRESSED events") != NULL;
		CHECK(compressed == (mode != COPY_PLAIN));
		struct stat sb;
		stat(ours, &sb);
		printf("round trip (%s): %zu bytes of perf script output identical (%zu frames "
		       "in JIT maps by their ips); perf.data %lld bytes, perf's own %zu\n",
		       copy_mode_name[mode], strlen(ta), jit_a, (long long)sb.st_size, f.len);
		free(ta);
		free(tb);
		run_free(&a);
		run_free(&b);
		run_free(&stats);
	}
	run_free(&names);
	run_free(&bids);
	free(f.bytes);
}

int main(void)
{
	if (system("perf --version >/dev/null 2>&1") != 0)
		SKIP("perf is not installed: run scripts/setup as root");
	char dir[] = "/tmp/test_perfdata_roundtrip.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	test_without_jit_names();
	test_roundtrip(dir);
	rm_rf(dir);
	return TEST_DONE();
}
