/* view's walk of a NetTrace stream (lib/report/view_nettrace.c, through view_read_stream as
 * `view` reads a .nettrace): the Universal providers' samples (our <name>.nettrace),
 * SampleProfiler samples (dotnet-trace), the runtime's events into the runtime report and
 * the alloc/exception/contention trees, frames named from the stream's method events.  The
 * reader below it is fuzz_nettrace_read's.  The input's length picks the name the stream is
 * read under: dotnet-42.nettrace (a collect's per-process file: CPU samples of pid 42) or
 * trace.nettrace (the pid the stream records).  Then what view prints from it: the trees,
 * the findings, the runtime report, its GC analysis and CSV tables, to /dev/null. */
#include "fuzz.h"
#include "report/flamegraph.h"
#include "report/runtime_report.h"
#include "report/view.h"
#include "report/view_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	if (!size)
		return 0;
	FILE *f = fmemopen((void *)data, size, "rb");
	FILE *out = fopen("/dev/null", "we");
	const char *name = size % 2 ? "dotnet-42.nettrace" : "trace.nettrace";
	if (f && out) {
		struct view *v = view_new(-1, -1, NULL);
		if (view_read_stream(v, f, name) == 0) {
			for (uint64_t t = 0; v->rt && t < 64; t++)
				runtime_report_sample(v->rt, 42, t * 1000003ULL);
			struct runtime_report_opts o = {.pid = -1, .top = 5};
			for (size_t i = 0; i < v->nevents; i++) {
				flamegraph_write_folded(out, v->events[i].tree);
				if (v->events[i].kind == VIEW_EXCEPTIONS)
					o.exceptions = v->events[i].tree;
				if (v->events[i].kind == VIEW_CONTENTION)
					o.contention = v->events[i].tree;
			}
			view_text_findings(out, v, -1);
			if (v->rt) {
				runtime_report_print(v->rt, out, &o);
				runtime_report_csv_gcs(v->rt, out, &o);
				runtime_report_csv_jit(v->rt, out, &o);
			}
		}
		view_free(v);
	}
	if (f)
		fclose(f);
	if (out)
		fclose(out);
	return 0;
}
