/* perf script text (perf.data.txt) as `view` reads it (lib/report/stackfile.c and the model
 * behind view: calltrees, off-CPU time from sched_switch fields), then every report view
 * and the flame graph written, as `view` prints them. */
#include "fuzz.h"
#include "report/flamegraph.h"
#include "report/report.h"
#include "report/view.h"

static void reports(FILE *out, const struct calltree *t, const char *unit, uint64_t div)
{
	struct report_opts ro = {.percent_limit = 0.5, .top = 10, .unit = unit, .unit_div = div};
	report_processes(out, t, &ro);
	report_top_functions(out, t, &ro);
	struct calltree *callee = calltree_derive(t, CALLTREE_DROP_FIRST | CALLTREE_INVERT);
	report_tree(out, callee, &ro);
	calltree_free(callee);
	struct calltree *caller = calltree_derive(t, CALLTREE_DROP_FIRST);
	report_tree(out, caller, &ro);
	calltree_free(caller);
	struct flamegraph_opts fo = {.unit = unit, .unit_div = div};
	flamegraph_write_svg(out, t, &fo);
	struct calltree *merged = calltree_derive(t, CALLTREE_MERGE_NAMES);
	flamegraph_write_folded(out, merged);
	flamegraph_write_folded_scaled(out, merged, 1000);
	calltree_free(merged);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	static FILE *devnull;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	int fd = fuzz_fd(data, size);
	struct view *v = view_new(-1, -1, NULL);
	struct stackfile_stats st;
	if (view_read(v, fuzz_fd_path(fd), &st) == 0) {
		struct event_tree *e = view_choose_event(v, NULL, true);
		if (e)
			reports(devnull, e->tree, "samples", 0);
		if (calltree_total(v->offcpu_tree))
			reports(devnull, v->offcpu_tree, "ms", 1000000);
		view_list_events(devnull, v, e);
	}
	view_free(v);
	close(fd);
	return 0;
}
