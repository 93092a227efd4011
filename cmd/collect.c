/* collect: perfcollect's `collect <name>` options, then lib/collect does the work; `start`
 * takes the same options and records in the background (lib/collect/collect_bg), `stop` ends it. */
#include "cli.h"
#include "collect/collect.h"
#include "collect/collect_bg.h"
#include "collect/collect_events.h"
#include "commands.h"
#include "dotnet/eventpipe_events.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f, const char *cmd, const struct cli_opt *opts)
{
	if (!strcmp(cmd, "start"))
		fprintf(f,
			"usage: perfcollect-c start <name> [collect options]\n\n"
			"Records as 'collect' does, in the background: returns once recording "
			"runs.\n'perfcollect-c stop <name>' (or 'stop' alone while it is the only "
			"one), from any shell\nand any directory, ends it and writes "
			"<name>.trace.zip where start said (-o DIR, else\nthe directory start ran "
			"in).  The collection is registered in /run/perfcollect-c (root),\nelse in "
			"$XDG_RUNTIME_DIR/perfcollect-c, until then.\n\noptions:\n");
	else
		fprintf(
		    f,
		    "usage: perfcollect-c collect <name> [options]\n\n"
		    "Records CPU samples (cpu-clock, 1000 Hz, user and kernel call stacks) "
		    "until Ctrl+C,\nSIGTERM, -collectsec or the -pid target's exit, then writes "
		    "<name>.trace.zip\nand <name>.nettrace (see -format).  Call stacks are the "
		    "kernel's frame-pointer chain,\nmended where it crosses code without frame "
		    "pointers (libc, most distribution libraries)\nfrom the user registers and a "
		    "small copy of the user stack taken with each sample\n(-callgraph).\n"
		    "-threadtime and "
		    "-offcpu add the sched_switch, "
		    "sched_stat_sleep and sched_process_exit\ntracepoints (mounting tracefs if "
		    "needed); -offcpu records them instead of CPU samples.  With -pid the\n"
		    "switches to its threads from other tasks are recorded too, so each wait "
		    "ends where it ends.\n\n"
		    "The .NET runtime's own events (GC, JIT, loader, exceptions, contention, "
		    "threading)\nare recorded over EventPipe from every .NET process traced, as "
		    "perfcollect's LTTng\nevents were: -events, -rawevents, -gccollectonly, "
		    "-gconly, -gcwithheap choose\nthem as perfcollect does (the -gc* options "
		    "record no CPU samples); -providers adds\nany EventSource; -nodotnetevents "
		    "turns them off.\n\noptions:\n");
	cli_print_options(f, opts);
	fprintf(f,
		"\nperfcollect's view options (-processfilter, -graphtype, -viewer perf|lttng, "
		"-perfopt)\nare accepted and ignored, as perfcollect's %s did; -v says so.\n",
		cmd);
}

/* -buffersize as perfcollect passes it to perf's --mmap-pages: a bare number counts pages,
 * a number with a B/K/M/G suffix counts bytes. */
static int parse_buffersize(const char *s, uint64_t *bytes)
{
	size_t digits = strspn(s, "0123456789");
	if (digits && !s[digits]) {
		long pages;
		if (parse_int(s, 1, 1L << 40, &pages) < 0)
			return -1;
		*bytes = (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
		return 0;
	}
	if (parse_size(s, bytes) < 0 || !*bytes)
		return pc_err("'%s' is not a size: N pages, or N with B, K, M or G for bytes", s);
	return 0;
}

/* -collectsec as perfcollect hands it to sleep(1): seconds, fractions allowed, or with
 * sleep's suffix s, m, h or d. */
static int parse_collectsec(const char *s, double *secs)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	static const struct {
		char unit;
		double secs;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
	double mul = *end ? 0 : 1;
	for (size_t i = 0; i < ARRAY_SIZE(units) && *end; i++)
		if (tolower((unsigned char)*end) == units[i].unit && !end[1])
			mul = units[i].secs;
	if (errno || end == s || !mul || !isfinite(v) || v < 0)
		return pc_err("'%s' is not a duration: seconds (10, 0.5) or with s, m, h or d "
			      "(2m), as perfcollect's sleep takes it",
			      s);
	*secs = v * mul;
	return 0;
}

static int collect_command(const char *cmd, int argc, char **argv, struct cli_symbols *sym)
{
	struct collect_opts o = {.pid = -1};
	const char *outdir = NULL, *buffersize = NULL, *format = NULL, *collectsec = NULL,
		   *pid = NULL, *callgraph = NULL;
	bool verbose = false;
	struct dotnet_events_opts eo = {.set = DOTNET_EVENTS_DEFAULT};
	bool nolttng = false, noperf = false, gccollectonly = false, gconly = false,
	     gcwithheap = false, nodotnetevents = false;
	const struct cli_opt opts[] = {
	    {"pid", 0, CLI_STR, &pid, "N",
	     "record process N and all its threads, present and future (default: all CPUs)"},
	    {"collectsec", 0, CLI_STR, &collectsec, "N",
	     "stop after N seconds (fractions allowed: 0.5; or 2m, 1h, as sleep takes them)"},
	    {"freq", 'F', CLI_INT, &o.freq, "N",
	     "samples per second (perf's -F; default 1000, as perfcollect)"},
	    {"buffersize", 0, CLI_STR, &buffersize, "N|SIZE",
	     "ring buffer per CPU: N pages, or N[B|K|M|G] bytes (default: 250 ms of samples at "
	     "the rate asked, 1M to 32M, at most 128M over all CPUs; without CAP_IPC_LOCK what "
	     "kernel.perf_event_mlock_kb allows, 512K, as perf)"},
	    {"callgraph", 0, CLI_STR, &callgraph, "MODE",
	     "call stacks: hybrid (default: frame pointers, mended from a 2K copy of the user "
	     "stack where code has none), fp (frame pointers alone), dwarf[,SIZE] (perf's: an 8K "
	     "copy, unwound after); hybrid,SIZE sets the copy"},
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
	    {"nodotnetevents", 0, CLI_FLAG, &nodotnetevents, NULL,
	     "do not record the .NET runtime's events (EventPipe)"},
	    {"events", 0, CLI_STR, &eo.events, "LIST",
	     ".NET events: perfcollect's keyword groups (DotNETRuntime_GCKeyword,...), "
	     "instead of its default set"},
	    {"rawevents", 0, CLI_STR, &eo.rawevents, "LIST",
	     ".NET events by name (DotNETRuntime:GCStart_V2,...), added"},
	    {"providers", 0, CLI_STR, &eo.providers, "LIST",
	     "EventSources in dotnet-trace's syntax, Name[:Keywords[:Level[:Args]]],..."},
	    {"gccollectonly", 0, CLI_FLAG, &gccollectonly, NULL,
	     ".NET GC collections and exceptions only, no CPU samples"},
	    {"gconly", 0, CLI_FLAG, &gconly, NULL,
	     ".NET GC (with allocation ticks), JIT, loader, exceptions; no CPU samples"},
	    {"gcwithheap", 0, CLI_FLAG, &gcwithheap, NULL,
	     ".NET GC with heap survival and movement; no CPU samples"},
	    {"nolttng", 0, CLI_FLAG, &nolttng, NULL,
	     "no .NET runtime events (perfcollect took them from LTTng)"},
	    {"noperf", 0, CLI_FLAG, &noperf, NULL, "no CPU samples: .NET runtime events only"},
	    CLI_SYMBOL_OPTS(sym, "5"),
	    CLI_VERBOSE(&verbose),
	    {NULL, 0, 0, NULL, NULL, NULL},
	};
	const char *pos[1];
	int npos;
	bool help;
	int prc = cli_parse_perfcollect(cmd, opts, argc, argv, pos, 1, &npos, &help);
	if (prc == 0 && !help && cli_symbols_opts(cmd, sym, &o.symsrv) < 0)
		prc = -1;
	if (prc < 0)
		return 2;
	if (help) {
		usage(stdout, cmd, opts);
		return 0;
	}
	if (npos != 1) {
		fprintf(stderr,
			"perfcollect-c %s: a trace name is needed: perfcollect-c %s <name> "
			"[options] (see --help)\n",
			cmd, cmd);
		return 2;
	}
	if (format && output_format_parse(format, &o.format) < 0) {
		fprintf(stderr, "perfcollect-c %s: %s\n", cmd, pc_strerror());
		return 2;
	}
	if (pid && strchr(pid, ',')) {
		fprintf(stderr,
			"perfcollect-c %s: -pid takes one process (perfcollect handed a list on "
			"to perf): record all CPUs and keep each with 'view -pid N'\n",
			cmd);
		return 2;
	}
	if (pid && parse_int(pid, 1, INT32_MAX, &o.pid) < 0) {
		fprintf(stderr, "perfcollect-c %s: -pid needs a process id > 0, not '%s'\n", cmd,
			pid);
		return 2;
	}
	if (collectsec && parse_collectsec(collectsec, &o.collectsec) < 0) {
		fprintf(stderr, "perfcollect-c %s: -collectsec: %s\n", cmd, pc_strerror());
		return 2;
	}
	if (verbose && !strcmp(cmd, "start"))
		fprintf(stderr, "perfcollect-c start: records what collect records (perfcollect's "
				"start recorded its LTTng events only, no CPU samples)\n");
	if (callgraph && callgraph_parse(callgraph, &o.callgraph) < 0) {
		fprintf(stderr, "perfcollect-c %s: %s\n", cmd, pc_strerror());
		return 2;
	}
	if (buffersize && parse_buffersize(buffersize, &o.buffersize) < 0) {
		fprintf(stderr, "perfcollect-c %s: -buffersize: %s\n", cmd, pc_strerror());
		return 2;
	}
	if (o.freq < 0 || o.freq > 1000000) {
		fprintf(stderr, "perfcollect-c %s: -freq needs a rate from 1 to 1000000 Hz\n", cmd);
		return 2;
	}

	/* perfcollect's .NET event options: the runtime's events come over EventPipe. */
	const char *notes[8];
	size_t nnotes = 0;
	/* perfcollect takes the first of -gccollectonly, -gconly, -gcwithheap that is given. */
	int gcsets = gccollectonly + gconly + gcwithheap;
	if (gcsets > 1)
		notes[nnotes++] = gccollectonly ? "-gccollectonly applies: perfcollect takes it "
						  "before -gconly and -gcwithheap"
						: "-gconly applies: perfcollect takes it before "
						  "-gcwithheap";
	eo.set = gccollectonly ? DOTNET_EVENTS_GCCOLLECTONLY
		 : gconly      ? DOTNET_EVENTS_GCONLY
		 : gcwithheap  ? DOTNET_EVENTS_GCWITHHEAP
			       : DOTNET_EVENTS_DEFAULT;
	if (nodotnetevents && (gcsets || eo.events || eo.rawevents || eo.providers)) {
		fprintf(stderr,
			"perfcollect-c %s: -nodotnetevents turns the .NET events off; it does not "
			"go with -events, -rawevents, -providers or -gc*\n",
			cmd);
		return 2;
	}
	if (nolttng && eo.providers) {
		fprintf(stderr,
			"perfcollect-c %s: -nolttng turns the .NET events off; it does not go with "
			"-providers\n",
			cmd);
		return 2;
	}
	/* perfcollect set the event sets and their no-perf mode up in LTTng's session only:
	 * without LTTng they did nothing. */
	if (nolttng && (gcsets || eo.events || eo.rawevents)) {
		notes[nnotes++] = "-events/-rawevents/-gc*: ignored with -nolttng (no .NET runtime "
				  "events), as perfcollect does";
		gcsets = 0;
		eo.events = eo.rawevents = NULL;
		eo.set = DOTNET_EVENTS_DEFAULT;
	}
	bool no_events = nodotnetevents || nolttng;
	if (noperf && no_events) {
		fprintf(stderr,
			"perfcollect-c %s: -noperf with -%s leaves nothing to "
			"record\n",
			cmd, nodotnetevents ? "nodotnetevents" : "nolttng");
		return 2;
	}
	if (gcsets && (eo.events || eo.rawevents))
		notes[nnotes++] = "-events/-rawevents: ignored with -gccollectonly, -gconly or "
				  "-gcwithheap, as perfcollect does";
	o.no_cpu_samples = gcsets || noperf;
	if (o.no_cpu_samples && (o.threadtime || o.offcpu || o.hwevents || o.system))
		notes[nnotes++] = "-threadtime/-offcpu/-hwevents/-system: ignored; "
				  "-gccollectonly, -gconly, -gcwithheap and -noperf record no perf "
				  "events, as perfcollect";
	if (nolttng)
		notes[nnotes++] = "-nolttng: no .NET runtime events (perfcollect recorded them "
				  "with LTTng; perfcollect-c with EventPipe)";
	if (o.no_cpu_samples)
		notes[nnotes++] = "no CPU samples: this collection records the .NET runtime's "
				  "events only";
	struct eventpipe_config events;
	memset(&events, 0, sizeof(events));
	if (!no_events) {
		if (gcsets) {
			eo.events = NULL;
			eo.rawevents = NULL;
		}
		if (eventpipe_events_build(&eo, &events) < 0) {
			fprintf(stderr, "perfcollect-c %s: %s\n", cmd, pc_strerror());
			return 2;
		}
		o.dotnet_events = &events;
	}
	if (o.no_cpu_samples) {
		o.threadtime = o.offcpu = o.hwevents = o.system = false;
	}

	o.name = pos[0];
	o.outdir = outdir;
	/* main() passed its argv + 1: argv[-1] is the program, which perf.data's cmdline and
	 * the log show first, as perf does. */
	o.argc = argc + 1;
	o.argv = argv - 1;
	o.notes = notes;
	o.nnotes = nnotes;
	int rc = 0;
	if (!strcmp(cmd, "start")) {
		if (collect_bg_start(&o) < 0) {
			fprintf(stderr, "perfcollect-c: %s\n", pc_strerror());
			rc = 1;
		}
	} else if (collect_run(&o) < 0) {
		fprintf(stderr, "perfcollect-c: %s\n", pc_strerror());
		rc = 1;
	}
	eventpipe_config_release(&events);
	return rc;
}

int cmd_collect(int argc, char **argv)
{
	struct cli_symbols sym = {0};
	int rc = collect_command("collect", argc, argv, &sym);
	free(sym.servers.items);
	return rc;
}

int cmd_start(int argc, char **argv)
{
	struct cli_symbols sym = {0};
	int rc = collect_command("start", argc, argv, &sym);
	free(sym.servers.items);
	return rc;
}

int cmd_stop(int argc, char **argv)
{
	const char *outdir = NULL;
	bool list = false, verbose = false;
	const struct cli_opt opts[] = {
	    {"list", 0, CLI_FLAG, &list, NULL,
	     "list the background collections (name, state, pid, since, zip); stop none"},
	    {"outdir", 'o', CLI_STR, &outdir, "DIR",
	     "not needed: the zip goes where start put it (said when DIR is elsewhere)"},
	    CLI_VERBOSE(&verbose),
	    {NULL, 0, 0, NULL, NULL, NULL},
	};
	const char *pos[1];
	int npos;
	bool help;
	if (cli_parse_perfcollect("stop", opts, argc, argv, pos, 1, &npos, &help) < 0)
		return 2;
	if (help) {
		printf(
		    "usage: perfcollect-c stop [<name>] [-list]\n\n"
		    "Ends the background collection 'perfcollect-c start <name>' began, from any "
		    "shell and any\ndirectory: it sends the collector SIGINT (as Ctrl+C does to "
		    "collect), waits until it\nhas written <name>.trace.zip where start said, and "
		    "shows what it said.  Without a name\nit stops the only one there is, or "
		    "lists them when there are several.\n\n"
		    "Background collections are registered in /run/perfcollect-c (root), else in\n"
		    "$XDG_RUNTIME_DIR/perfcollect-c.  One whose collector died without finishing "
		    "(killed,\ncrashed, the machine restarted) is explained and removed: "
		    "'perfcollect-c merge' then makes\nthe zip from the trace directory it "
		    "names.  perfcollect's collect and view options are\naccepted and ignored, "
		    "as perfcollect's stop did (-v says so).\n\noptions:\n");
		cli_print_options(stdout, opts);
		return 0;
	}
	if (list) {
		if (npos) {
			fprintf(stderr, "perfcollect-c stop: -list lists them all; no name\n");
			return 2;
		}
		if (collect_bg_list(stdout) < 0) {
			fprintf(stderr, "perfcollect-c stop: %s\n", pc_strerror());
			return 1;
		}
		return 0;
	}
	int rc = collect_bg_stop(npos ? pos[0] : NULL, outdir);
	if (rc < 0)
		fprintf(stderr, "perfcollect-c: %s\n", pc_strerror());
	return rc ? 1 : 0;
}
