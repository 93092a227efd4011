/* Unit tests for perfdata_write, with real perf 6.1 as the oracle: we write a
 * perf.data describing samples in the real `hot` workload (a synthesized COMM and MMAP2 for
 * a made-up pid, samples whose ip and callchain lie in hot_leaf, hot_middle and main), and
 * `perf script`, `perf report` and `perf buildid-list` must read it back exactly.
 * perf only resolves hot_leaf if our HEADER_BUILD_ID entry matches the file's build-id. */
#include "perfdata/buildid.h"
#include "perfdata/perfdata_async.h"
#include "perfdata/perfdata_read.h"
#include "perfdata/perfdata_write.h"
#include "perf_run.h"
#include "test.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FAKE_PID 31337
#define MAP_BASE 0x555500000000ULL /* where our made-up process loaded hot (PIE) */
#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

static const uint64_t event_ids[] = {4242, 4243}; /* one per CPU, as the recorder opens them */

struct hot_binary {
	char path[4096];
	uint64_t text_vaddr, text_offset, text_size; /* the executable PT_LOAD */
	uint64_t leaf, middle, main_fn;		     /* an address inside each function */
	struct stat st;
	uint8_t id[BUILDID_MAX];
	uint8_t id_size;
};

static uint64_t page_down(uint64_t v)
{
	return v & ~(uint64_t)4095;
}

/* Layout of the real binary, read with libelf (the same view perf takes of it). */
static int load_hot(struct hot_binary *h)
{
	const char *bd = getenv("BUILD_DIR");
	char p[4096];
	snprintf(p, sizeof(p), "%s/tests/workloads/hot", bd ? bd : ".");
	if (!realpath(p, h->path) || stat(h->path, &h->st))
		return -1;
	elf_version(EV_CURRENT);
	int fd = open(h->path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!elf)
		return -1;
	size_t n = 0;
	elf_getphdrnum(elf, &n);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			h->text_vaddr = ph.p_vaddr;
			h->text_offset = ph.p_offset;
			h->text_size = ph.p_memsz;
		}
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			gelf_getsym(d, (int)i, &s);
			const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
			uint64_t mid = MAP_BASE + s.st_value + s.st_size / 2;
			if (!name || GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			if (!strcmp(name, "hot_leaf"))
				h->leaf = mid;
			else if (!strcmp(name, "hot_middle"))
				h->middle = mid;
			else if (!strcmp(name, "main"))
				h->main_fn = mid;
		}
	}
	elf_end(elf);
	close(fd);
	return h->text_size && h->leaf && h->middle && h->main_fn ? 0 : -1;
}

/* ---- records, laid out as the kernel writes them for SAMPLE_TYPE with sample_id_all ---- */

struct rec {
	uint64_t w[64];
	size_t n; /* u64 words used */
};

static void put64(struct rec *r, uint64_t v)
{
	r->w[r->n++] = v;
}

static void put32x2(struct rec *r, uint32_t a, uint32_t b)
{
	put64(r, (uint64_t)a | (uint64_t)b << 32);
}

static void put_str(struct rec *r, const char *s)
{
	size_t len = strlen(s) + 1, words = (len + 7) / 8;
	memset(&r->w[r->n], 0, words * 8);
	memcpy(&r->w[r->n], s, len);
	r->n += words;
}

/* sample_id trailer: TID, TIME, CPU, IDENTIFIER (in that order, the kernel's). */
static void put_sample_id_pid(struct rec *r, uint32_t pid, uint32_t tid, uint64_t time,
			      uint32_t cpu)
{
	put32x2(r, pid, tid);
	put64(r, time);
	put32x2(r, cpu, 0);
	put64(r, event_ids[cpu & 1]);
}

static void put_sample_id(struct rec *r, uint64_t time, uint32_t cpu)
{
	put_sample_id_pid(r, FAKE_PID, FAKE_PID, time, cpu);
}

static void begin(struct rec *r, uint32_t type, uint16_t misc)
{
	r->n = 1;
	r->w[0] = type | (uint64_t)misc << 32;
}

static int emit(struct perfdata_writer *w, struct rec *r)
{
	r->w[0] |= (uint64_t)(r->n * 8) << 48; /* header.size */
	return perfdata_writer_write(w, r->w, r->n * 8);
}

static uint64_t t0;
static uint64_t ktext, ketext; /* the kernel's _text and _etext, 0 when hidden */

static void load_kernel_text(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long a;
	while (f && fgets(line, sizeof(line), f) && !(ktext && ketext)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			ktext = a;
		else if (!strcmp(name, "_etext"))
			ketext = a;
	}
	if (f)
		fclose(f);
	if (ketext <= ktext)
		ktext = ketext = 0;
}

static int write_task(struct perfdata_writer *w, const struct hot_binary *h)
{
	struct rec r;
	/* The kernel map, as perf record synthesizes it (perf report warns without it). */
	if (ktext) {
		begin(&r, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
		put32x2(&r, (uint32_t)-1, 0);
		put64(&r, ktext);
		put64(&r, ketext - ktext);
		put64(&r, ktext);
		put_str(&r, "[kernel.kallsyms]_text");
		put_sample_id_pid(&r, (uint32_t)-1, 0, t0, 0);
		if (emit(w, &r))
			return -1;
	}
	begin(&r, PERF_RECORD_COMM, 0);
	put32x2(&r, FAKE_PID, FAKE_PID);
	put_str(&r, "hot");
	put_sample_id(&r, t0, 0);
	if (emit(w, &r))
		return -1;
	begin(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put32x2(&r, FAKE_PID, FAKE_PID);
	put64(&r, page_down(MAP_BASE + h->text_vaddr));
	put64(&r, h->text_size + (h->text_vaddr & 4095));
	put64(&r, page_down(h->text_offset));
	put32x2(&r, major(h->st.st_dev), minor(h->st.st_dev));
	put64(&r, h->st.st_ino);
	put64(&r, 0);	   /* ino_generation */
	put32x2(&r, 5, 2); /* PROT_READ|PROT_EXEC, MAP_PRIVATE */
	put_str(&r, h->path);
	put_sample_id(&r, t0 + 1, 0);
	return emit(w, &r);
}

static int write_samples(struct perfdata_writer *w, const struct hot_binary *h, unsigned from,
			 unsigned n)
{
	struct rec r;
	for (unsigned i = from; i < from + n; i++) {
		uint32_t cpu = i & 1;
		begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
		put64(&r, event_ids[cpu]);
		put64(&r, h->leaf);
		put32x2(&r, FAKE_PID, FAKE_PID);
		put64(&r, t0 + 1000 + i * 1000000ULL);
		put32x2(&r, cpu, 0);
		put64(&r, 1000000);
		put64(&r, 4);
		put64(&r, PERF_CONTEXT_USER);
		put64(&r, h->leaf);
		put64(&r, h->middle);
		put64(&r, h->main_fn);
		if (emit(w, &r))
			return -1;
		if (i % 64 == 63 && perfdata_writer_finished_round(w))
			return -1;
	}
	return 0;
}

static void cpu_clock_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->freq = 1;
	a->sample_freq = 1000;
	a->sample_type = SAMPLE_TYPE;
	a->sample_id_all = 1;
	a->mmap = a->mmap2 = a->comm = a->task = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

struct script_stats {
	unsigned samples, leaf_frames, main_frames, ips_in_leaf, cpu1;
};

/* `perf script -F comm,pid,tid,cpu,time,period,event,ip,sym,dso` output: a header line per
 * sample, then one tab-indented line per callchain frame, then a blank line. */
static void scan_script(const char *out, const char *dso, struct script_stats *s)
{
	char leaf[4200], mainf[4200];
	snprintf(leaf, sizeof(leaf), " hot_leaf (%s)", dso);
	snprintf(mainf, sizeof(mainf), " main (%s)", dso);
	memset(s, 0, sizeof(*s));
	bool first_frame = false;
	for (const char *l = out; *l;) {
		const char *eol = strchr(l, '\n');
		size_t len = eol ? (size_t)(eol - l) : strlen(l);
		char line[8192];
		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		if (line[0] && line[0] != '\t' && line[0] != ' ') {
			if (strstr(line, "cpu-clock:") && strstr(line, "31337/31337"))
				s->samples++;
			if (strstr(line, "[001]"))
				s->cpu1++;
			first_frame = true;
		} else if (line[0]) {
			if (strstr(line, leaf)) {
				s->leaf_frames++;
				s->ips_in_leaf += first_frame;
			}
			if (strstr(line, mainf))
				s->main_frames++;
			first_frame = false;
		}
		l += len + (eol ? 1 : 0);
	}
}

/* ---- the tests ---- */

static struct perfdata_writer *start_file(const char *path, const struct hot_binary *h)
{
	struct perf_event_attr attr;
	cpu_clock_attr(&attr);
	struct perfdata_writer *w = perfdata_writer_new(path);
	CHECK(w != NULL);
	if (!w)
		return NULL;
	CHECK(perfdata_writer_add_attr(w, &attr, "cpu-clock", event_ids, 2) == 0);
	CHECK(write_task(w, h) == 0);
	return w;
}

static void test_finished_file(const char *path, const struct hot_binary *h, unsigned n)
{
	struct perfdata_writer *w = start_file(path, h);
	if (!w)
		return;
	CHECK(write_samples(w, h, 0, n) == 0);
	struct perfdata_build_id b = {
	    .pid = -1, .kernel = false, .size = h->id_size, .filename = h->path};
	memcpy(b.id, h->id, sizeof(b.id));
	perfdata_writer_add_build_id(w, &b);
	perfdata_writer_add_build_id(w, &b); /* duplicates are dropped */
	struct perfdata_build_id kb = {.pid = -1, .kernel = true, .filename = "[kernel.kallsyms]"};
	bool have_kid = buildid_read_kernel(kb.id, &kb.size) == 0;
	if (have_kid)
		perfdata_writer_add_build_id(w, &kb);
	char *argv[] = {"perfcollect-c", "collect", "wtest", NULL};
	struct perfdata_meta meta = {.hostname = "writer-test-host",
				     .osrelease = "9.9.9-wtest",
				     .argc = 3,
				     .argv = argv,
				     .clockid = CLOCK_MONOTONIC};
	CHECK(perfdata_writer_finish(w, &meta) == 0);
	perfdata_writer_free(w);

	char args[8192];
	struct run r;
	struct script_stats s;
	snprintf(args, sizeof(args),
		 "script -i %s -F comm,pid,tid,cpu,time,period,event,ip,sym,dso", path);
	run_perf(&r, args);
	scan_script(r.out, h->path, &s);
	CHECK_RUN(r.status == 0, &r);
	CHECK_RUN(!perf_complains(r.err), &r);
	CHECK_EQ_U64(s.samples, n);
	CHECK_EQ_U64(s.ips_in_leaf, n); /* the sample ip */
	CHECK_EQ_U64(s.leaf_frames, n); /* the callchain's first frame is the ip itself */
	CHECK_EQ_U64(s.main_frames, n);
	CHECK_EQ_U64(s.cpu1, n / 2);
	if (s.samples != n || s.leaf_frames != n)
		fprintf(stderr, "perf script output starts:\n%.2000s\n", r.out);
	run_free(&r);

	snprintf(args, sizeof(args), "report --header-only -i %s", path);
	run_perf(&r, args);
	CHECK_RUN(r.status == 0 && !perf_complains(r.err), &r);
	char nrcpus[64];
	snprintf(nrcpus, sizeof(nrcpus), "# nrcpus online : %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	const char *want[] = {"# hostname : writer-test-host\n",
			      "# os release : 9.9.9-wtest\n",
			      "# perf version : perfcollect-c " PC_VERSION "\n",
			      "# cmdline : perfcollect-c collect wtest \n",
			      nrcpus,
			      "# event : name = cpu-clock, , id = { 4242, 4243 }",
			      "# clockid: monotonic (1)",
			      "# clockid frequency: 1000 MHz",
			      "# reference time: "};
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		if (!strstr(r.out, want[i])) {
			fprintf(stderr, "perf report --header-only lacks \"%s\"\n", want[i]);
			test_failures++;
		}
	}
	if (test_failures)
		fprintf(stderr, "header:\n%s\n", r.out);
	run_free(&r);

	char hex[2 * BUILDID_MAX + 1], line[4300];
	snprintf(args, sizeof(args), "buildid-list -i %s", path);
	run_perf(&r, args);
	buildid_to_hex(h->id, h->id_size, hex);
	snprintf(line, sizeof(line), "%s %s\n", hex, h->path);
	CHECK_RUN(r.status == 0 && strstr(r.out, line), &r);
	if (have_kid) {
		buildid_to_hex(kb.id, kb.size, hex);
		snprintf(line, sizeof(line), "%s [kernel.kallsyms]\n", hex);
		CHECK_RUN(strstr(r.out, line), &r);
	}
	run_free(&r);

	snprintf(args, sizeof(args), "report --stdio -i %s --sort sym", path);
	run_perf(&r, args);
	CHECK_RUN(r.status == 0 && !perf_complains(r.err), &r);
	char samples_line[128];
	snprintf(samples_line, sizeof(samples_line), "# Samples: %u  of event 'cpu-clock'\n", n);
	CHECK(strstr(r.out, samples_line) != NULL);
	CHECK(strstr(r.out, "[.] hot_leaf") != NULL);
	if (!strstr(r.out, samples_line))
		fprintf(stderr, "perf report:\n%.3000s\n", r.out);
	run_free(&r);
}

/* A recorder killed after a flush: the child dies without _finish() or _free(). */
static void test_unfinished_file(const char *path, const struct hot_binary *h, unsigned flushed,
				 unsigned lost)
{
	pid_t child = fork();
	if (child == 0) {
		struct perfdata_writer *w = start_file(path, h);
		if (!w || write_samples(w, h, 0, flushed) || perfdata_writer_flush(w) ||
		    write_samples(w, h, flushed, lost))
			_exit(1);
		_exit(0); /* dies with `lost` samples still in the buffer */
	}
	int st;
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);

	char args[8192];
	struct run r;
	struct script_stats s;
	snprintf(args, sizeof(args), "script -i %s -F comm,pid,tid,cpu,time,event,ip,sym,dso",
		 path);
	run_perf(&r, args);
	scan_script(r.out, h->path, &s);
	CHECK_RUN(r.status == 0, &r);
	CHECK_EQ_U64(s.samples, flushed);
	CHECK_EQ_U64(s.leaf_frames, flushed);
	printf("unfinished file: perf script read %u samples, exit %d, stderr: \"%s\"\n", s.samples,
	       r.status, r.err);
	run_free(&r);

	/* Killed before anything was flushed: still a valid, empty perf.data. */
	child = fork();
	if (child == 0) {
		struct perfdata_writer *w = start_file(path, h);
		_exit(w ? 0 : 1);
	}
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(args, sizeof(args), "report --header-only -i %s", path);
	run_perf(&r, args);
	CHECK_RUN(r.status == 0 && strstr(r.out, "# data size      : 0\n"), &r);
	printf("never-flushed file: perf report --header-only exit %d, stderr: \"%s\"\n", r.status,
	       r.err);
	run_free(&r);

	/* _free() without _finish() (an error path) keeps everything written. */
	struct perfdata_writer *w = start_file(path, h);
	if (w) {
		CHECK(write_samples(w, h, 0, flushed) == 0);
		perfdata_writer_free(w);
	}
	snprintf(args, sizeof(args), "script -i %s -F comm,pid,tid,time,event,ip,sym,dso", path);
	run_perf(&r, args);
	scan_script(r.out, h->path, &s);
	CHECK_RUN(r.status == 0, &r);
	CHECK_EQ_U64(s.samples, flushed);
	run_free(&r);
}

/* The header's data size on disk now (what a reader of a killed writer's file sees). */
static uint64_t data_size_on_disk(const char *path)
{
	struct perf_file_header fh;
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? pread(fd, &fh, sizeof(fh), 0) : -1;
	if (fd >= 0)
		close(fd);
	return n == (ssize_t)sizeof(fh) ? fh.data.size : 0;
}

/* A round that ends after the flush interval puts everything before it on disk, without
 * a full buffer: a writer killed then loses at most the interval. */
static void test_flush_interval(const char *path, const struct hot_binary *h)
{
	struct perfdata_writer *w = start_file(path, h);
	if (!w)
		return;
	perfdata_writer_set_flush_interval(w, 50000000);
	CHECK(write_samples(w, h, 0, 10) == 0 && perfdata_writer_finished_round(w) == 0);
	CHECK_EQ_U64(data_size_on_disk(path), 0); /* too soon: still buffered */
	struct timespec ts = {0, 60000000};
	nanosleep(&ts, NULL);
	CHECK(write_samples(w, h, 10, 10) == 0 && perfdata_writer_finished_round(w) == 0);
	CHECK_EQ_U64(data_size_on_disk(path), perfdata_writer_data_size(w));
	CHECK(data_size_on_disk(path) > 20 * 88);
	perfdata_writer_free(w);
}

/* Enough records to go through the write buffer several times, timed for the log. */
static void test_many_records(const char *path, const struct hot_binary *h, unsigned n)
{
	struct perfdata_writer *w = start_file(path, h);
	if (!w)
		return;
	uint64_t t = monotonic_ns();
	CHECK(write_samples(w, h, 0, n) == 0);
	uint64_t dt = monotonic_ns() - t;
	uint64_t size = perfdata_writer_data_size(w);
	CHECK(perfdata_writer_finish(w, NULL) == 0);
	perfdata_writer_free(w);
	printf("wrote %u samples (%.1f MB) in %.1f ms: %.0f ns per record\n", n, size / 1e6,
	       dt / 1e6, (double)dt / n);
	struct stat st;
	CHECK(stat(path, &st) == 0 && (uint64_t)st.st_size > size);

	char args[8192];
	struct run r;
	snprintf(args, sizeof(args), "report --stdio -i %s --sort sym", path);
	run_perf(&r, args);
	CHECK_RUN(r.status == 0 && !perf_complains(r.err), &r);
	CHECK(strstr(r.out, "of event 'cpu-clock'") != NULL);
	/* perf prints large counts as "NK"; the total period is exact. */
	char period[128];
	snprintf(period, sizeof(period), "# Event count (approx.): %llu\n",
		 (unsigned long long)n * 1000000);
	CHECK(strstr(r.out, period) != NULL);
	if (!strstr(r.out, period))
		fprintf(stderr, "perf report:\n%.3000s\n", r.out);
	run_free(&r);
}

/* A build-id that does not match the file must make perf refuse its symbols: proves perf
 * applies our HEADER_BUILD_ID entries to the host's DSOs (and the caller's pid is ignored). */
static void test_wrong_build_id(const char *path, const struct hot_binary *h, unsigned n)
{
	struct perfdata_writer *w = start_file(path, h);
	if (!w)
		return;
	CHECK(write_samples(w, h, 0, n) == 0);
	struct perfdata_build_id b = {.pid = FAKE_PID, .size = h->id_size, .filename = h->path};
	memcpy(b.id, h->id, sizeof(b.id));
	b.id[0] ^= 0xff;
	perfdata_writer_add_build_id(w, &b);
	CHECK(perfdata_writer_finish(w, NULL) == 0);
	perfdata_writer_free(w);

	char args[8192], unknown[4200];
	struct run r;
	snprintf(args, sizeof(args), "script -i %s -F comm,pid,tid,event,ip,sym,dso", path);
	run_perf(&r, args);
	CHECK_RUN(r.status == 0, &r);
	snprintf(unknown, sizeof(unknown), " [unknown] (%s)\n", h->path);
	unsigned count = 0;
	for (const char *p = r.out; (p = strstr(p, unknown)); p++)
		count++;
	CHECK_EQ_U64(count, 3 * n);
	CHECK(!strstr(r.out, "hot_leaf"));
	run_free(&r);
}

/* Disk full after the first flush (RLIMIT_FSIZE stands in for it): the writer reports the
 * error, and the file keeps every record of the flushes that succeeded, readable by perf. */
static void test_disk_full(const char *path, const struct hot_binary *h)
{
	pid_t child = fork();
	if (child == 0) {
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit lim = {10u << 20, 10u << 20};
		setrlimit(RLIMIT_FSIZE, &lim);
		struct perfdata_writer *w = start_file(path, h);
		if (!w || write_samples(w, h, 0, 200000) == 0)
			_exit(2); /* 19 MB cannot fit in 10 MB */
		if (!strstr(pc_strerror(), "write failed: File too large"))
			_exit(3);
		if (perfdata_writer_finish(w, NULL) == 0)
			_exit(4);
		perfdata_writer_free(w);
		_exit(0);
	}
	int st;
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st));
	CHECK_EQ_U64(WEXITSTATUS(st), 0);

	/* Walk the records the header claims: whole records, ending exactly at data.size. */
	size_t len;
	char *bytes = read_file(path, &len);
	const struct perf_file_header *fh = (const void *)bytes;
	CHECK(bytes && len >= sizeof(*fh));
	if (!bytes || len < sizeof(*fh)) {
		free(bytes);
		return;
	}
	CHECK(fh->data.size > 0 && fh->data.offset + fh->data.size <= len);
	uint64_t off = 0, samples = 0;
	while (fh->data.offset + fh->data.size <= len && off + 8 <= fh->data.size) {
		const struct perf_event_header *eh = (const void *)(bytes + fh->data.offset + off);
		if (eh->size < 8 || eh->size > fh->data.size - off)
			break;
		samples += eh->type == PERF_RECORD_SAMPLE;
		off += eh->size;
	}
	CHECK_EQ_U64(off, fh->data.size);
	CHECK(samples > 50000 && samples < 200000);
	free(bytes);

	char args[8192], count[128];
	struct run r;
	snprintf(args, sizeof(args), "report --stdio -i %s --sort sym", path);
	run_perf(&r, args);
	CHECK_RUN(r.status == 0, &r);
	snprintf(count, sizeof(count), "# Event count (approx.): %llu\n",
		 (unsigned long long)samples * 1000000);
	CHECK_RUN(strstr(r.out, count), &r);
	printf("disk full: perf reads the %llu samples flushed before the error\n",
	       (unsigned long long)samples);
	run_free(&r);
}

int main(void)
{
	if (system("perf --version >/dev/null 2>&1") != 0)
		SKIP("perf is not installed: run scripts/setup as root");
	struct hot_binary h;
	memset(&h, 0, sizeof(h));
	if (load_hot(&h))
		SKIP("tests/workloads/hot not built (BUILD_DIR unset?): run it through meson test");
	CHECK(buildid_read_path(h.path, h.id, &h.id_size) == 0);
	t0 = monotonic_ns();
	load_kernel_text();

	char dir[] = "/tmp/test_perfdata_write.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[256];
	snprintf(path, sizeof(path), "%s/perf.data", dir);

	test_finished_file(path, &h, 250);
	test_unfinished_file(path, &h, 130, 70);
	test_flush_interval(path, &h);
	test_wrong_build_id(path, &h, 20);
	test_many_records(path, &h, 120000);
	test_disk_full(path, &h);

	CHECK(perfdata_writer_new("/nonexistent-dir/perf.data") == NULL);
	CHECK(strstr(pc_strerror(), "/nonexistent-dir/perf.data") != NULL);
	rm_rf(dir);
	return TEST_DONE();
}
