/* collect: perfcollect's `collect <name>` options, then lib/collect does the work. */
#include "cli.h"
#include "collect.h"
#include "commands.h"

#include <string.h>

static void usage(FILE *f, const struct cli_opt *opts)
{
	fprintf(f, "usage: perfcollect-c collect <name> [options]\n\n"
		   "Records CPU samples (cpu-clock, 1000 Hz, user and kernel call stacks) until "
		   "Ctrl+C,\nSIGTERM, -collectsec or the -pid target's exit, then writes "
		   "<name>.trace.zip\nand <name>.nettrace (see -format).\n-threadtime and -offcpu "
		   "add the sched_switch, "
		   "sched_stat_sleep and sched_process_exit\ntracepoints (mounting tracefs if "
		   "needed); -offcpu records them instead of CPU samples.\n\noptions:\n");
	cli_print_options(f, opts);
}

int cmd_collect(int argc, char **argv)
{
	struct collect_opts o = {.pid = -1};
	const char *outdir = NULL, *events = NULL, *format = NULL;
	bool nolttng = false, noperf = false, rawevents = false, gccollectonly = false,
	     gconly = false, gcwithheap = false;
	const struct cli_opt opts[] = {
	    {"pid", 0, CLI_INT, &o.pid, "N",
	     "record process N and all its threads, present and future (default: all CPUs)"},
	    {"collectsec", 0, CLI_INT, &o.collectsec, "N", "stop after N seconds"},
	    {"buffersize", 0, CLI_SIZE, &o.buffersize, "SIZE",
	     "ring buffer per CPU, N[B|K|M|G] (default 1M)"},
	    {"threadtime", 0, CLI_FLAG, &o.threadtime, NULL,
	     "also context switches (sched tracepoints) with stacks: on- and off-CPU time"},
	    {"offcpu", 0, CLI_FLAG, &o.offcpu, NULL,
	     "context switches with stacks instead of CPU samples: off-CPU time"},
	    {"hwevents", 0, CLI_FLAG, &o.hwevents, NULL,
	     "also cycles, instructions, branches, cache-misses (those the PMU has)"},
	    {"system", 0, CLI_FLAG, &o.system, NULL,
	     "also major and minor page faults with stacks"},
	    {"outdir", 'o', CLI_STR, &outdir, "DIR", "write <name>.trace.zip in DIR (default .)"},
	    {"format", 0, CLI_STR, &format, "FMT",
	     "perfcollect (<name>.trace.zip), nettrace (<name>.nettrace: one file for PerfView "
	     "with CPU samples, thread time and symbols) or both (default)"},
	    {"nodotnetipc", 0, CLI_FLAG, &o.no_dotnet_ipc, NULL,
	     "do not ask a .NET target to write perf maps over its diagnostics IPC"},
	    {"nolttng", 0, CLI_FLAG, &nolttng, NULL, "accepted (no LTTng is used)"},
	    {"noperf", 0, CLI_FLAG, &noperf, NULL, "accepted (CPU samples are always recorded)"},
	    {"events", 0, CLI_STR, &events, "LIST", "accepted (LTTng events: not collected)"},
	    {"rawevents", 0, CLI_FLAG, &rawevents, NULL, "accepted (LTTng events: not collected)"},
	    {"gccollectonly", 0, CLI_FLAG, &gccollectonly, NULL,
	     "accepted (LTTng GC events: not collected)"},
	    {"gconly", 0, CLI_FLAG, &gconly, NULL, "accepted (LTTng GC events: not collected)"},
	    {"gcwithheap", 0, CLI_FLAG, &gcwithheap, NULL,
	     "accepted (LTTng GC events: not collected)"},
	    {NULL, 0, 0, NULL, NULL, NULL},
	};
	const char *pos[1];
	int npos;
	bool help;
	if (cli_parse("collect", opts, argc, argv, pos, 1, &npos, &help) < 0)
		return 2;
	if (help) {
		usage(stdout, opts);
		return 0;
	}
	if (npos != 1) {
		fprintf(stderr, "perfcollect-c collect: a trace name is needed: perfcollect-c "
				"collect <name> [options] (see --help)\n");
		return 2;
	}
	if (format && output_format_parse(format, &o.format) < 0) {
		fprintf(stderr, "perfcollect-c collect: %s\n", pc_strerror());
		return 2;
	}
	if (o.pid == 0) {
		fprintf(stderr, "perfcollect-c collect: -pid needs a process id > 0\n");
		return 2;
	}

	/* perfcollect's LTTng options: perfcollect-c has no LTTng session; say so rather than
	 * silently ignore them. */
	const char *notes[8];
	size_t nnotes = 0;
	if (nolttng)
		notes[nnotes++] = "-nolttng: perfcollect-c never uses LTTng; nothing to turn off";
	if (noperf)
		notes[nnotes++] = "-noperf: perfcollect-c's trace is the CPU samples; they are "
				  "recorded anyway";
	if (events)
		notes[nnotes++] = "-events: LTTng (.NET runtime) events are not collected by "
				  "perfcollect-c; ignored";
	if (rawevents)
		notes[nnotes++] = "-rawevents: LTTng events are not collected; ignored";
	if (gccollectonly || gconly || gcwithheap)
		notes[nnotes++] = "-gccollectonly/-gconly/-gcwithheap: .NET GC events come from "
				  "LTTng, which perfcollect-c does not use; CPU samples only";

	o.name = pos[0];
	o.outdir = outdir;
	/* main() passed its argv + 1: argv[-1] is the program, which perf.data's cmdline and
	 * the log show first, as perf does. */
	o.argc = argc + 1;
	o.argv = argv - 1;
	o.notes = notes;
	o.nnotes = nnotes;
	if (collect_run(&o) < 0) {
		fprintf(stderr, "perfcollect-c: %s\n", pc_strerror());
		return 1;
	}
	return 0;
}
