/* trace_fields: see trace_fields.h.
 *
 * The child's answers are frames {u64 file offset, u64 time, u32 length, text}, length
 * UINT32_MAX for "no field", one per tracepoint sample in the order the reader delivers
 * them; offset and time let this side check that both readers are in step.
 */
#include "trace_fields.h"
#include "base/log.h"
#include "base/sandbox.h"
#include "record/tracepoints.h"
#include "record/tracing_data.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A child that says nothing for this long is stuck (it formats thousands of samples per
 * millisecond). */
#define CHILD_SILENCE_MS 30000
/* What the confined child may use: CPU time for a few hundred million samples; address space
 * for the mapped perf.data's records and 4 GiB more (the rest of the file, libtraceevent's
 * tables, the reader's). */
#define CHILD_CPU_SECONDS 3600
#define CHILD_HEAP_MAX	  (4ull << 30)

/* Under a sanitizer, a crash in the child would run the death callbacks the parent set up
 * (libFuzzer's saves the input as a crash of the harness); in the child it is expected and
 * handled, so they are cleared there.  Absent (NULL) in builds without sanitizers. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

enum mode {
	UNDECIDED, /* until the first tracepoint sample (pipe-mode files bring their
		      tracing data in the stream) */
	NO_FIELDS, /* tracepoints without tracing data */
	LOCAL,	   /* formats of this machine: libtraceevent here */
	CHILD,	   /* the child formats, answers come on fd */
	RAW,	   /* no usable formats: raw bytes */
};

struct trace_fields {
	const struct perfdata_reader *r;
	char *perf_data;
	enum mode mode;
	struct trace_formatter *local;
	pid_t child;
	int fd;
	unsigned char buf[65536];
	size_t head, len;
	char *text; /* the last answer */
	size_t text_cap;
};

static bool is_tracepoint_sample(const struct perfdata_record *rec)
{
	const struct perf_sample *s = &rec->sample;
	return rec->header->type == PERF_RECORD_SAMPLE && s->evsel &&
	       s->evsel->attr.type == PERF_TYPE_TRACEPOINT && s->raw_data;
}

/* ---- the child ---- */

struct out {
	int fd;
	size_t len;
	unsigned char buf[65536];
};

static bool put(struct out *o, const void *p, size_t n)
{
	if (o->len + n > sizeof(o->buf)) {
		if (write_all(o->fd, o->buf, o->len) < 0)
			return false;
		o->len = 0;
		if (n > sizeof(o->buf))
			return write_all(o->fd, p, n) == 0;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	return true;
}

/* The child's work: every tracepoint sample's text into wfd, in order.  Mostly run in a
 * fresh process (child_entry()); where that fails, in the fork itself, while the archive
 * thread may run: so only the reader, libtraceevent, malloc and plain writes here (no
 * stdio, no log). */
static _Noreturn void child_main(const char *perf_data, int wfd)
{
	log_forget();
	log_set_quiet(true);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
	static const int crashes[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE};
	for (size_t i = 0; i < ARRAY_SIZE(crashes); i++)
		signal(crashes[i], SIG_DFL);

	struct perfdata_reader *r = perfdata_reader_open(perf_data);
	/* Everything it reads is mapped now: what libtraceevent does next runs confined */
	if (!r || (wfd = sandbox_enter(wfd, CHILD_CPU_SECONDS,
				       perfdata_reader_data_size(r) + CHILD_HEAP_MAX)) < 0)
		_exit(4);
	struct out *out = xcalloc(1, sizeof(*out));
	out->fd = wfd;
	struct trace_formatter *f = NULL;
	struct perfdata_record rec;
	while (perfdata_reader_next(r, &rec) > 0) {
		if (!is_tracepoint_sample(&rec))
			continue;
		if (!f) {
			size_t size;
			const void *blob = perfdata_reader_tracing_data(r, &size);
			struct tracing_data td;
			if (!blob || tracing_data_parse(blob, size, &td) < 0)
				_exit(2);
			f = trace_formatter_from(&td);
		}
		const struct perf_sample *s = &rec.sample;
		const char *text =
		    trace_formatter_format(f, s->raw_data, s->raw_size, (int)s->cpu, s->time);
		uint32_t len = text ? (uint32_t)strlen(text) : UINT32_MAX;
		if (!put(out, &rec.file_offset, 8) || !put(out, &s->time, 8) ||
		    !put(out, &len, 4) || (text && !put(out, text, len)))
			_exit(3);
	}
	_exit(write_all(wfd, out->buf, out->len) == 0 ? 0 : 3);
}

/* The child is this same program started again, with CHILD_ENV set to "<fd>:<perf.data>":
 * a fresh process, which a fork of one that has run for a while is not (a sanitizer's
 * allocator can stay locked in a forked child; glibc's cannot).  This constructor does the
 * child's work before main() in whatever program links this file, and never returns then. */
#define CHILD_ENV "PERFCOLLECT_C_TRACE_FIELDS_CHILD"

__attribute__((constructor)) static void child_entry(void)
{
	const char *spec = getenv(CHILD_ENV);
	if (!spec)
		return;
	char *end;
	long fd = strtol(spec, &end, 10);
	struct stat st;
	if (end == spec || *end != ':' || fd < 0 || fd > INT_MAX || fstat((int)fd, &st) < 0 ||
	    !S_ISFIFO(st.st_mode))
		return; /* not set by us */
	char *perf_data = xstrdup(end + 1);
	unsetenv(CHILD_ENV);
	child_main(perf_data, (int)fd);
}

static int start_child(struct trace_fields *t, const char *perf_data)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return pc_err_errno("cannot create a pipe");
	/* Made before the fork: between fork and exec only async-signal-safe calls. */
	char *spec = xasprintf(CHILD_ENV "=%d:%s", p[1], perf_data);
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = xcalloc(n + 2, sizeof(*envp));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!str_startswith(environ[i], CHILD_ENV "="))
			envp[k++] = environ[i];
	envp[k] = spec;
	char *argv[] = {(char *)"perfcollect-c (trace fields)", NULL};
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		fcntl(p[1], F_SETFD, 0);
		execve("/proc/self/exe", argv, envp);
		child_main(perf_data, p[1]); /* no /proc: go on in the fork */
	}
	int saved = errno;
	free(spec);
	free(envp);
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		errno = saved;
		return pc_err_errno("cannot start a process");
	}
	close(p[1]);
	t->child = pid;
	t->fd = p[0];
	return 0;
}

/* ---- this side ---- */

/* n bytes of the child's answers: NULL, or why there are none. */
static const char *take(struct trace_fields *t, void *dst, size_t n)
{
	unsigned char *d = dst;
	while (n) {
		if (t->head == t->len) {
			struct pollfd pfd = {.fd = t->fd, .events = POLLIN};
			int pr = poll(&pfd, 1, CHILD_SILENCE_MS);
			if (pr < 0 && errno == EINTR)
				continue;
			if (pr == 0)
				return "stopped answering";
			ssize_t got = pr < 0 ? -1 : read(t->fd, t->buf, sizeof(t->buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return "ended early";
			t->head = 0;
			t->len = (size_t)got;
		}
		size_t k = t->len - t->head < n ? t->len - t->head : n;
		memcpy(d, t->buf + t->head, k);
		t->head += k;
		d += k;
		n -= k;
	}
	return NULL;
}

/* Ends the child; its wait status, or -1 when it had to be killed. */
static int stop_child(struct trace_fields *t, bool kill_it)
{
	if (!t->child)
		return 0;
	close(t->fd);
	t->fd = -1;
	if (kill_it)
		kill(t->child, SIGKILL);
	int status = 0;
	while (waitpid(t->child, &status, 0) < 0 && errno == EINTR)
		;
	t->child = 0;
	return status;
}

/* The child failed: say why once, and print the rest raw.  what: how it looked from here. */
static void child_failed(struct trace_fields *t, const struct perfdata_record *rec,
			 const char *what)
{
	int status = stop_child(t, true);
	char why[96];
	if (!strcmp(what, "stopped answering"))
		snprintf(why, sizeof(why), "%s", what);
	else if (WIFSIGNALED(status))
		snprintf(why, sizeof(why), "crashed (%s)", strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		snprintf(why, sizeof(why), "failed (exit %d)", WEXITSTATUS(status));
	else
		snprintf(why, sizeof(why), "%s", what);
	log_warn("libtraceevent %s on the tracepoint formats in perf.data (they are not this "
		 "machine's); from the sample at offset %llu on, the trace field is printed raw "
		 "(raw=<hex bytes>)",
		 why, (unsigned long long)rec->file_offset);
	t->mode = RAW;
}

static const char *raw_text(struct trace_fields *t, const struct perf_sample *s)
{
	static const char hex[] = "0123456789abcdef";
	grow_array((void **)&t->text, &t->text_cap, 4 + 2 * (size_t)s->raw_size + 1, 1);
	char *o = t->text;
	memcpy(o, "raw=", 4);
	o += 4;
	const unsigned char *b = s->raw_data;
	for (uint32_t i = 0; i < s->raw_size; i++) {
		*o++ = hex[b[i] >> 4];
		*o++ = hex[b[i] & 15];
	}
	*o = 0;
	return t->text;
}

static const char *child_text(struct trace_fields *t, const struct perfdata_record *rec)
{
	uint64_t offset, time;
	uint32_t len;
	const char *why;
	if ((why = take(t, &offset, 8)) || (why = take(t, &time, 8)) || (why = take(t, &len, 4))) {
		child_failed(t, rec, why);
		return NULL;
	}
	if (offset != rec->file_offset || time != rec->sample.time) {
		child_failed(t, rec, "fell out of step");
		return NULL;
	}
	if (len == UINT32_MAX)
		return NULL;
	grow_array((void **)&t->text, &t->text_cap, (size_t)len + 1, 1);
	if ((why = take(t, t->text, len))) {
		child_failed(t, rec, why);
		return NULL;
	}
	t->text[len] = 0;
	return t->text;
}

/* The first tracepoint sample: how its fields (and all others') are printed. */
static void decide(struct trace_fields *t)
{
	size_t size = 0;
	const void *blob = perfdata_reader_tracing_data(t->r, &size);
	t->mode = RAW;
	if (!blob) {
		log_warn("perf.data has tracepoint events but no tracing data: their fields are "
			 "left out of perf.data.txt");
		t->mode = NO_FIELDS;
		return;
	}
	struct tracing_data td;
	if (tracing_data_parse(blob, size, &td) < 0) {
		log_warn("cannot use the tracepoint formats in perf.data (%s): the trace field is "
			 "printed raw (raw=<hex bytes>)",
			 pc_strerror());
		return;
	}
	if (td.nr_bad_formats)
		log_warn("%zu tracepoint formats in perf.data are malformed and left out (first: "
			 "%s): their samples carry no fields",
			 td.nr_bad_formats, td.first_bad);
	if (td.nr_bad_lines)
		log_info("tracing data: %zu malformed lines of kallsyms, printk formats or saved "
			 "cmdlines left out",
			 td.nr_bad_lines);
	if (tracing_data_is_local(&td)) {
		t->local = trace_formatter_from(&td);
		t->mode = LOCAL;
	} else if (start_child(t, t->perf_data) == 0) {
		log_info("the tracepoint formats in perf.data are not this machine's: "
			 "libtraceevent reads them in a separate process");
		t->mode = CHILD;
	} else {
		log_warn("cannot read the tracepoint formats in perf.data safely (%s): the trace "
			 "field is printed raw (raw=<hex bytes>)",
			 pc_strerror());
	}
	tracing_data_release(&td);
}

const char *trace_fields_text(struct trace_fields *t, const struct perfdata_record *rec)
{
	if (!is_tracepoint_sample(rec))
		return NULL;
	if (t->mode == UNDECIDED)
		decide(t);
	const struct perf_sample *s = &rec->sample;
	switch (t->mode) {
	case LOCAL:
		return trace_formatter_format(t->local, s->raw_data, s->raw_size, (int)s->cpu,
					      s->time);
	case CHILD: {
		const char *text = child_text(t, rec);
		if (t->mode == CHILD)
			return text;
		return raw_text(t, s); /* it failed on this one */
	}
	case RAW:
		return raw_text(t, s);
	default:
		return NULL;
	}
}

struct trace_fields *trace_fields_new(const struct perfdata_reader *r, const char *perf_data)
{
	struct trace_fields *t = xcalloc(1, sizeof(*t));
	t->r = r;
	t->perf_data = xstrdup(perf_data);
	t->fd = -1;
	/* A file that has its attrs and tracing data in the header is decided now, before the
	 * caller starts threads: a fork while another thread holds an allocator lock can leave
	 * the child stuck (glibc's malloc guards against that, sanitizers' allocators do not). */
	size_t size;
	bool tracepoints = false;
	for (size_t i = 0; i < perfdata_reader_nr_evsels(r); i++)
		tracepoints |= perfdata_reader_evsel(r, i)->attr.type == PERF_TYPE_TRACEPOINT;
	if (tracepoints && perfdata_reader_tracing_data(r, &size))
		decide(t);
	return t;
}

void trace_fields_free(struct trace_fields *t)
{
	if (!t)
		return;
	trace_formatter_free(t->local);
	stop_child(t, true);
	free(t->text);
	free(t->perf_data);
	free(t);
}
