/* view: see view.h. */
#include "view.h"
#include "clr_code.h"
#include "view_build.h"
#include "view_nettrace.h"
#include "base/archive.h"
#include "base/outfile.h"
#include "base/tracefile.h"
#include "perfdata/perfdata_read.h"
#include "perfdata/perfdata_write.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct event_tree *named(struct view *v, const char *name)
{
	for (size_t i = 0; i < v->nevents; i++)
		if (!strcmp(v->events[i].name, name))
			return &v->events[i];
	return NULL;
}

struct event_tree *view_choose_event(struct view *v, const char *want, bool any_event)
{
	struct event_tree *e;
	if (want) {
		int kind = view_kind_of_event(want);
		if (kind >= 0)
			return view_tree_of(v, (enum view_kind)kind);
		if ((e = named(v, want)))
			return e;
		/* EventPipe's samples are what a .NET-only trace has for CPU. */
		return !strcmp(want, "cpu-clock") ? named(v, "ThreadSample") : NULL;
	}
	if ((e = named(v, "cpu-clock")) || (e = named(v, "ThreadSample")))
		return e;
	for (size_t i = 0; i < v->nevents; i++)
		if (v->events[i].kind == VIEW_SAMPLES && !view_is_tracepoint(v->events[i].name))
			return &v->events[i];
	for (size_t i = 0; any_event && i < v->nevents; i++)
		if (v->events[i].kind == VIEW_SAMPLES)
			return &v->events[i];
	return NULL;
}

struct event_tree *view_tree_of(struct view *v, enum view_kind kind)
{
	for (size_t i = 0; i < v->nevents; i++)
		if (v->events[i].kind == kind && view_unit(kind)->event &&
		    !strcmp(v->events[i].name, view_unit(kind)->event))
			return &v->events[i];
	return NULL;
}

/* A sched_switch wait ended: to the observer, at its start. */
static void observe_wait(void *arg, int tid, uint64_t start, uint64_t end, uint32_t node)
{
	struct view *v = arg;
	struct view_event ev = {
	    .node = node, .pid = -1, .tid = tid, .time_ns = start, .weight = end - start};
	v->observer(v->observer_arg, &ev);
}

void view_observe(struct view *v, view_observer fn, void *arg)
{
	v->observer = fn;
	v->observer_arg = arg;
	offcpu_on_wait(v->oc, fn ? observe_wait : NULL, v);
}

uint32_t view_node(const struct view *v, const struct event_tree *tree, uint32_t node)
{
	const uint32_t *map = tree ? tree->node_map : v->offcpu_node_map;
	return map ? map[node] : node;
}

void view_list_events(FILE *f, const struct view *v, const struct event_tree *except)
{
	for (size_t i = 0, n = 0; i < v->nevents; i++)
		if (&v->events[i] != except)
			fprintf(f, "%s%s (%llu)", n++ ? ", " : "", v->events[i].name,
				(unsigned long long)v->events[i].samples);
}

void view_free(struct view *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nevents; i++) {
		free(v->events[i].name);
		calltree_free(v->events[i].tree);
		free(v->events[i].node_map);
	}
	free(v->events);
	for (size_t i = 0; i < v->ncomms; i++)
		free(v->comms[i]);
	free(v->comms);
	free(v->path);
	free(v->cpu_bits);
	offcpu_free(v->oc);
	unnamed_free(v->unnamed);
	calltree_free(v->offcpu_tree);
	runtime_report_free(v->rt);
	for (size_t i = 0; i < v->nwarnings; i++)
		free(v->warnings[i]);
	free(v->warnings);
	for (size_t i = 0; i < v->ncode; i++)
		clr_code_free(v->code[i]);
	free(v->code);
	free(v->pending);
	free(v->frame_cache);
	free(v->offcpu_node_map);
	functable_free(v->ft);
	free(v);
}

struct input {
	FILE *f;
	struct archive_reader *zip;
};

/* The facts perfcollect.log states (collect's and merge's lines; the last one wins). */
static void read_log(struct view_recording *r, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	r->has_log = true;
	while (getline(&line, &cap, f) > 0) {
		struct tm tm;
		memset(&tm, 0, sizeof(tm));
		if (!r->wall_start && line[0] == '[' &&
		    strptime(line + 1, "%Y-%m-%dT%H:%M:%SZ", &tm))
			r->wall_start = (int64_t)timegm(&tm);
		const char *p;
		double d;
		long n;
		long long ll;
		if ((p = strstr(line, "; recorded for ")) &&
		    sscanf(p, "; recorded for %lf s", &d) == 1)
			r->logged_seconds = d;
		else if ((p = strstr(line, "] recorded on: ")) && (p = strrchr(p, ',')) &&
			 sscanf(p, ", %ld cpus", &n) == 1)
			r->logged_cpus = n;
		else if ((p = strstr(line, "] records: ")) && (p = strstr(p, ", lost: ")) &&
			 sscanf(p, ", lost: %lld", &ll) == 1)
			r->lost = ll;
		else if ((p = strstr(line, ", sampled ")) && sscanf(p, ", sampled %ld Hz", &n) == 1)
			r->logged_hz = n;
	}
	free(line);
}

/* perfcollect.log beside perf.data.txt, when the input has one. */
static void open_log(const char *path, struct input *in, struct view_recording *r)
{
	FILE *f = NULL;
	if (in->zip) {
		long idx = archive_reader_find(in->zip, "perfcollect.log");
		f = idx >= 0 ? archive_reader_open_entry(in->zip, (size_t)idx) : NULL;
	} else {
		char *log = xasprintf("%s/perfcollect.log", path);
		f = fopen(log, "re");
		free(log);
	}
	if (!f)
		return;
	read_log(r, f);
	fclose(f);
}

/* One NetTrace stream: its samples, its runtime events.  A damaged one keeps what it had. */
static void add_nettrace(struct view *v, FILE *f, const char *name)
{
	if (view_nettrace_read(v, f, name, runtime_report_pid_of_name(name)) < 0)
		view_warn(v, "%s", pc_strerror());
}

/* The NetTrace files of a zip: any, when it holds nothing else (TRACEFILE_NETTRACE_ZIP:
 * PerfView's test inputs, a .nettrace zipped to be sent); else collect's dotnet-<pid>.nettrace
 * files beside its perf.data. */
static void read_runtime_zip(struct view *v, struct archive_reader *zip)
{
	bool alone = archive_reader_kind(zip) == TRACEFILE_NETTRACE_ZIP;
	for (size_t i = 0; i < archive_reader_count(zip); i++) {
		const char *name = archive_reader_name(zip, i);
		if (!tracefile_is_runtime_stream(name) &&
		    !(alone && tracefile_is_nettrace_name(name)))
			continue;
		FILE *f = archive_reader_open_entry(zip, i);
		if (!f) {
			view_warn(v, "%s: %s", name, pc_strerror());
			continue;
		}
		add_nettrace(v, f, name);
		fclose(f);
	}
}

static void read_runtime_dir(struct view *v, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char **names = NULL;
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (tracefile_is_runtime_stream(e->d_name)) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xasprintf("%s/%s", dir, e->d_name);
		}
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		FILE *f = fopen(names[i], "re");
		if (f) {
			add_nettrace(v, f, names[i]);
			fclose(f);
		} else {
			view_warn(v, "%s: %s", names[i], strerror(errno));
		}
		free(names[i]);
	}
	free(names);
}

/* A trace.zip (by its magic), a .trace directory, a perf.data.txt, a NetTrace file, or "-"
 * for stdin.  The .NET runtime events of a zip or directory are read here, before the
 * samples; a NetTrace file leaves in->f NULL (no samples). */
static int open_input(struct view *v, const char *path, struct input *in)
{
	memset(in, 0, sizeof(*in));
	if (!strcmp(path, "-")) {
		in->f = stdin;
		return 0;
	}
	struct stat st;
	if (stat(path, &st) < 0)
		return pc_err_errno("cannot open %s", path);
	if (S_ISDIR(st.st_mode)) {
		read_runtime_dir(v, path);
		char *txt = xasprintf("%s/perf.data.txt", path);
		char *data = xasprintf("%s/perf.data", path);
		in->f = fopen(txt, "re");
		int e = errno;
		bool raw = !in->f && access(data, F_OK) == 0;
		free(txt);
		free(data);
		if (raw)
			return pc_err("%s has no perf.data.txt yet, only the raw perf.data: "
				      "'perfcollect-c merge %s' writes the trace to view",
				      path, path);
		errno = e;
		if (!in->f && v->ncode)
			return 0;
		if (!in->f)
			return pc_err_errno("cannot open perf.data.txt in %s", path);
		return 0;
	}
	if (S_ISREG(st.st_mode) && st.st_size == 0)
		return pc_err("%s is empty (0 bytes): not a trace", path);
	in->f = fopen(path, "re");
	if (!in->f)
		return pc_err_errno("cannot open %s", path);
	char magic[8];
	enum tracefile_kind kind = tracefile_kind_of(magic, fread(magic, 1, sizeof(magic), in->f));
	if (kind == TRACEFILE_PERF_DATA)
		return pc_err("%s is a raw perf.data, not its text: 'perfcollect-c merge %s' "
			      "symbolizes it into a .trace.zip to view",
			      path, path);
	if (kind == TRACEFILE_NETTRACE) {
		rewind(in->f);
		int rc = view_nettrace_read(v, in->f, path, runtime_report_pid_of_name(path));
		fclose(in->f);
		in->f = NULL;
		return rc;
	}
	if (kind != TRACEFILE_ZIP) {
		rewind(in->f);
		return 0;
	}
	fclose(in->f);
	in->f = NULL;
	in->zip = archive_reader_open(path);
	if (!in->zip)
		return -1;
	size_t streams = v->ncode;
	read_runtime_zip(v, in->zip);
	long idx = archive_reader_find(in->zip, "perf.data.txt");
	if (idx < 0 && v->ncode > streams)
		return 0;
	if (idx < 0 && archive_reader_find(in->zip, "perf.data") >= 0)
		return pc_err("%s has no perf.data.txt, only the raw perf.data: 'perfcollect-c "
			      "merge %s' writes a trace with it (under a new name)",
			      path, path);
	if (idx < 0)
		return pc_err("%s is a zip but not a trace: it has neither perf.data.txt nor "
			      "perf.data",
			      path);
	in->f = archive_reader_open_entry(in->zip, (size_t)idx);
	return in->f ? 0 : -1;
}

static int close_input(struct input *in)
{
	int rc = 0;
	if (in->f && in->f != stdin && fclose(in->f))
		rc = pc_err_errno("cannot read the input");
	archive_reader_free(in->zip);
	in->f = NULL;
	in->zip = NULL;
	return rc;
}

struct view *view_new(long pid, long tid, const char *processfilter)
{
	struct view *v = xcalloc(1, sizeof(*v));
	v->ft = functable_new();
	v->pid = pid;
	v->tid = tid;
	v->offcpu_tree = calltree_new(v->ft);
	v->oc = offcpu_new(v->offcpu_tree);
	v->unnamed = unnamed_new();
	v->rec.logged_cpus = v->rec.logged_hz = -1;
	v->rec.lost = -1;
	if (processfilter) {
		char *list = xstrdup(processfilter), *save = NULL;
		for (char *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
			grow_array((void **)&v->comms, &v->comms_cap, v->ncomms + 1,
				   sizeof(*v->comms));
			v->comms[v->ncomms++] = xstrdup(c);
		}
		free(list);
	}
	return v;
}

int view_read(struct view *v, const char *input, struct stackfile_stats *st)
{
	struct stackfile_stats local;
	if (!st)
		st = &local;
	struct input in;
	if (open_input(v, input, &in) < 0) {
		if (in.f || in.zip)
			close_input(&in);
		return -1;
	}
	memset(st, 0, sizeof(*st));
	struct stat sb;
	if (in.zip || (strcmp(input, "-") && stat(input, &sb) == 0 && S_ISDIR(sb.st_mode)))
		open_log(input, &in, &v->rec);
	if (!in.f) { /* NetTrace streams only */
		close_input(&in);
		view_name_frames(v);
		return 0;
	}
	/* A trace without CPU samples (collect -gconly ...) has an empty perf.data.txt. */
	int rc = stackfile_read(in.f, input, view_on_sample, v, st);
	if (rc == -1 && v->rt && !st->samples && !st->bad_lines)
		rc = 0;
	v->has_perf_text = st->samples > 0;
	if (rc) {
		char *why = xstrdup(pc_strerror());
		close_input(&in);
		pc_err("%s", why);
		free(why);
		return -1;
	}
	if (close_input(&in) < 0)
		return -1;
	offcpu_finish(v->oc);
	view_name_frames(v);
	return 0;
}

int view_read_stream(struct view *v, FILE *f, const char *name)
{
	uint8_t magic[8];
	enum tracefile_kind kind = tracefile_kind_of(magic, fread(magic, 1, sizeof(magic), f));
	rewind(f);
	int rc;
	if (kind == TRACEFILE_NETTRACE) {
		rc = view_nettrace_read(v, f, name, runtime_report_pid_of_name(name));
	} else {
		struct stackfile_stats st;
		rc = stackfile_read(f, name, view_on_sample, v, &st) ? -1 : 0;
		v->has_perf_text = st.samples > 0;
	}
	offcpu_finish(v->oc);
	view_name_frames(v);
	return rc;
}

/* perf.data of a zip, copied to a temporary file the reader can map; its path, or NULL. */
static char *extract_perf_data(const char *zip_path)
{
	struct archive_reader *zip = archive_reader_open(zip_path);
	long idx = zip ? archive_reader_find(zip, "perf.data") : -1;
	FILE *in = idx >= 0 ? archive_reader_open_entry(zip, (size_t)idx) : NULL;
	const char *tmpdir = getenv("TMPDIR");
	char *path = xasprintf("%s/perfcollect-c-view.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	int fd = in ? mkostemp(path, O_CLOEXEC) : -1;
	bool ok = fd >= 0 && file_copy_stream(fd, in, UINT64_MAX, NULL) == 0;
	if (fd >= 0)
		close(fd);
	if (in)
		fclose(in);
	archive_reader_free(zip);
	if (!ok) {
		if (fd >= 0)
			unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

struct pprof_build_id *view_read_build_ids(const char *input, size_t *n)
{
	*n = 0;
	enum tracefile_kind kind;
	if (!strcmp(input, "-") || tracefile_classify(input, &kind) < 0)
		return NULL;
	char *path = NULL, *tmp = NULL;
	if (kind == TRACEFILE_DIR) {
		path = xasprintf("%s/perf.data", input);
	} else {
		if (kind != TRACEFILE_ZIP)
			return NULL;
		path = tmp = extract_perf_data(input);
		if (!path)
			return NULL;
	}
	struct perfdata_reader *r = perfdata_reader_open(path);
	struct pprof_build_id *out = NULL;
	size_t nb = 0;
	const struct perfdata_build_id *ids = r ? perfdata_reader_build_ids(r, &nb) : NULL;
	if (nb)
		out = xcalloc(nb, sizeof(*out));
	for (size_t i = 0; i < nb; i++) {
		char hex[41];
		hex_encode(ids[i].id, ids[i].size < 20 ? ids[i].size : 20, hex);
		out[i].dso = xstrdup(ids[i].filename);
		out[i].hex = xstrdup(hex);
	}
	*n = nb;
	perfdata_reader_free(r);
	if (tmp)
		unlink(tmp);
	free(path);
	return out;
}

void view_free_build_ids(struct pprof_build_id *ids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)ids[i].dso);
		free((char *)ids[i].hex);
	}
	free(ids);
}

void view_print_unnamed(const struct view *v, const char *input, FILE *f)
{
	size_t n = 0;
	struct pprof_build_id *ids = view_read_build_ids(input, &n);
	unnamed_print(v->unnamed, ids, n, input, f);
	view_free_build_ids(ids, n);
}
