/* export: see export.h. */
#include "export.h"
#include "base/outfile.h"
#include "base/util.h"
#include "flamegraph.h"
#include "speedscope.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const struct {
	const char *name, *ext, *what;
} formats[] = {
    [EXPORT_SVG] = {"svg", ".svg", "the flame graph"},
    [EXPORT_FOLDED] = {"folded", ".folded", "folded stacks"},
    [EXPORT_PPROF] = {"pprof", ".pb.gz", "the pprof profile"},
    [EXPORT_SPEEDSCOPE] = {"speedscope", ".speedscope.json", "the speedscope file"},
};

int export_format_parse(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (!strcasecmp(s, formats[i].name))
			return (int)i;
	return -1;
}

const char *export_extension(enum export_format f)
{
	return formats[f].ext;
}

const char *export_what(enum export_format f)
{
	return formats[f].what;
}

static int write_svg(FILE *out, const struct export_job *j)
{
	const struct view_unit *u = view_unit(j->kind);
	bool ms = u->text_div == 1000000;
	struct flamegraph_opts fo = {.title = j->title,
				     .subtitle = j->subtitle,
				     .unit = ms ? "ms" : u->what,
				     .unit_div = ms ? u->text_div : 1,
				     .palette = u->cool ? FLAMEGRAPH_OFFCPU : FLAMEGRAPH_CPU,
				     .width = j->width,
				     .base_totals = j->base_totals,
				     .base_name = j->base_name};
	if (!fo.title)
		fo.title = j->base_totals ? "Differential Flame Graph" : u->svg_title;
	return flamegraph_write_svg(out, j->tree, &fo);
}

static int write_pprof(FILE *out, const struct export_job *j)
{
	const struct view_recording *r = j->rec;
	const struct view_unit *u = view_unit(j->kind);
	char *comment = xasprintf("perfcollect-c %s: %s of %s", PC_VERSION,
				  j->kind == VIEW_BLOCKED ? "blocked time" : j->event, j->input);
	struct pprof_opts po = {
	    .build_ids = j->build_ids, .nbuild_ids = j->nbuild_ids, .comment = comment};
	if (j->kind != VIEW_SAMPLES) {
		po.type = u->pprof_type;
		po.unit = u->pprof_unit;
	} else if (j->event && str_startswith(j->event, "cpu-clock") && j->mean_period > 0) {
		/* cpu-clock's period is CPU time in ns: the value Pyroscope and pprof call cpu. */
		po.type = "samples";
		po.unit = "count";
		po.type2 = "cpu";
		po.unit2 = "nanoseconds";
		po.scale2 = j->mean_period;
		po.period = i64_round(j->mean_period);
	} else {
		po.type = "samples";
		po.unit = "count";
		po.period = j->mean_period > 0 ? i64_round(j->mean_period) : 1;
	}
	if (r) {
		po.time_ns = r->wall_start * 1000000000LL;
		if (r->logged_seconds > 0)
			po.duration_ns = i64_round(r->logged_seconds * 1e9);
		else if (r->last_ns > r->first_ns)
			po.duration_ns = (int64_t)(r->last_ns - r->first_ns);
	}
	int rc = pprof_write(out, j->tree, &po);
	free(comment);
	return rc;
}

static int write_speedscope(FILE *out, const struct export_job *j)
{
	const struct view_unit *u = view_unit(j->kind);
	struct speedscope_opts so = {.name = j->input, .unit = u->speedscope_unit, .what = u->what};
	return speedscope_write(out, j->tree, &so);
}

static int write_to(FILE *out, const struct export_job *j)
{
	switch (j->format) {
	case EXPORT_SVG:
		return write_svg(out, j);
	case EXPORT_FOLDED:
		return flamegraph_write_folded_scaled(out, j->tree, view_unit(j->kind)->folded_div);
	case EXPORT_PPROF:
		return write_pprof(out, j);
	case EXPORT_SPEEDSCOPE:
		return write_speedscope(out, j);
	}
	return pc_err("unknown format");
}

static int write_job(FILE *out, const void *j)
{
	return write_to(out, j);
}

int export_write(const struct export_job *j)
{
	return outfile_write(j->path, write_job, j);
}
