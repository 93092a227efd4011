/* install: perfcollect installs perf and LTTng; perfcollect-c needs neither, so `install`
 * checks what this kernel and this user allow and says what is missing and how to fix it.
 * Every check is a real probe (a perf_event_open, a read of /proc), not a guess. */
#include "cli.h"
#include "commands.h"
#include "base/proc.h"
#include "record/record.h"
#include "record/tracefs.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAP_SYS_PTRACE_BIT 19
#define CAP_SYS_ADMIN_BIT  21
#define CAP_PERFMON_BIT	   38

static int problems, blocking; /* blocking: collect cannot record at all */

static void ok(const char *what)
{
	printf("  ok       %s\n", what);
}

static void missing(const char *what, const char *fix)
{
	printf("  MISSING  %s\n           fix: %s\n", what, fix);
	problems++;
}

static void note(const char *what)
{
	printf("  note     %s\n", what);
}

/* Can this process open cpu-clock with kernel call stacks for (pid, cpu)? */
static int probe_open(pid_t pid, int cpu)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	return recorder_probe_event(&a, pid, cpu);
}

static bool kallsyms_has_addresses(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	if (!f)
		return false;
	char line[256];
	bool nonzero = false;
	for (int i = 0; i < 50 && fgets(line, sizeof(line), f); i++)
		if (strtoull(line, NULL, 16) != 0)
			nonzero = true;
	fclose(f);
	return nonzero;
}

int cmd_install(int argc, char **argv)
{
	bool force = false;
	const struct cli_opt opts[] = {
	    {"force", 0, CLI_FLAG, &force, NULL,
	     "also make the fixes install can make itself (as root: mount tracefs)"},
	    {NULL, 0, 0, NULL, NULL, NULL},
	};
	const char *pos[1];
	int npos;
	bool help;
	if (cli_parse("install", opts, argc, argv, pos, 0, &npos, &help) < 0)
		return 2;
	if (help) {
		printf("usage: perfcollect-c install [-force]\n\nperfcollect-c needs no perf, "
		       "LTTng or zip. 'install' checks what this kernel and\nuser allow (paranoid "
		       "level, capabilities, kernel symbols, tracefs) and says what\nis missing. "
		       "Exit status 0 when 'collect' can record at all.\nperfcollect's -force "
		       "installs packages without asking; perfcollect-c installs\nnothing, so "
		       "-force makes the fixes it can make itself instead: as root it\nmounts "
		       "tracefs.  Sysctls and capabilities are only ever printed, never "
		       "changed.\n\noptions:\n");
		cli_print_options(stdout, opts);
		return 0;
	}
	char buf[512];
	bool root = geteuid() == 0;
	uint64_t caps = proc_self_caps();
	bool perfmon = caps & (1ULL << CAP_PERFMON_BIT);
	bool sysadmin = caps & (1ULL << CAP_SYS_ADMIN_BIT);
	long paranoid = sysctl_long("kernel.perf_event_paranoid", 2);
	long kptr = sysctl_long("kernel.kptr_restrict", 0);

	printf("perfcollect-c %s: checking this system\n", PC_VERSION);
	snprintf(buf, sizeof(buf), "user: %s (uid %u)%s%s", root ? "root" : "not root",
		 (unsigned)geteuid(), perfmon ? ", CAP_PERFMON" : "",
		 sysadmin ? ", CAP_SYS_ADMIN" : "");
	note(buf);
	snprintf(buf, sizeof(buf), "kernel.perf_event_paranoid = %ld", paranoid);
	note(buf);

	char *paranoid_text = sysctl_read("kernel.perf_event_paranoid");
	if (!paranoid_text)
		missing("perf events: this kernel has no perf_event_open (CONFIG_PERF_EVENTS)",
			"use a kernel built with CONFIG_PERF_EVENTS=y");
	free(paranoid_text);

	int e = probe_open(-1, 0);
	int e2 = probe_open(0, -1);
	if (e && e2)
		blocking++;
	if (e == 0)
		ok("system-wide recording (collect without -pid)");
	else if (e == EACCES || e == EPERM)
		missing("system-wide recording: no permission",
			"run as root, grant CAP_PERFMON (setcap cap_perfmon+ep perfcollect-c), or "
			"'sysctl kernel.perf_event_paranoid=0'");
	else {
		snprintf(buf, sizeof(buf), "system-wide recording: perf_event_open fails: %s",
			 strerror(e));
		missing(buf, "check that this kernel supports the cpu-clock software event");
	}

	e = e2;
	if (e == 0)
		ok("per-process recording with kernel stacks (collect -pid)");
	else if (e == EACCES || e == EPERM)
		missing("per-process recording: no permission",
			"run as root, grant CAP_PERFMON, or 'sysctl kernel.perf_event_paranoid=1'");
	else {
		snprintf(buf, sizeof(buf), "per-process recording: perf_event_open fails: %s",
			 strerror(e));
		missing(buf, "check that this kernel supports the cpu-clock software event");
	}
	if (!root && !(caps & (1ULL << CAP_SYS_PTRACE_BIT)))
		note("without root or CAP_SYS_PTRACE only your own processes can be recorded "
		     "with -pid");

	if (kallsyms_has_addresses())
		ok("kernel symbols (/proc/kallsyms shows addresses)");
	else {
		snprintf(buf, sizeof(buf),
			 "kernel symbols: /proc/kallsyms hides addresses from this user "
			 "(kernel.kptr_restrict = %ld)",
			 kptr);
		/* kptr_restrict 0 shows them to CAP_SYSLOG, or to all when perf_event_paranoid
		 * is 1 or lower; 1 only to CAP_SYSLOG; 2 never. */
		missing(buf, kptr >= 2	 ? "'sysctl kernel.kptr_restrict=1' and run as root"
			     : kptr == 1 ? "run as root (CAP_SYSLOG); kernel frames show as "
					   "[unknown] otherwise"
					 : "run as root, or 'sysctl kernel.perf_event_paranoid=1'; "
					   "kernel frames show as [unknown] otherwise");
	}

	bool readable;
	const char *tfs = tracefs_find(&readable);
	if (tfs && !readable) {
		snprintf(buf, sizeof(buf),
			 "tracefs at %s is not readable by this user (needed by -threadtime and "
			 "-offcpu only)",
			 tfs);
		missing(buf, "run as root for -threadtime and -offcpu");
	} else if (tfs) {
		snprintf(buf, sizeof(buf), "tracefs at %s (for -threadtime and -offcpu)", tfs);
		ok(buf);
	} else if (force && root && (tfs = tracefs_path())) {
		snprintf(buf, sizeof(buf),
			 "tracefs mounted at %s by -force (for -threadtime and -offcpu)", tfs);
		ok(buf);
	} else if (force && root) {
		snprintf(buf, sizeof(buf),
			 "tracefs is not mounted, and -force could not mount it: %s (needed by "
			 "-threadtime and -offcpu only)",
			 strerror(errno));
		missing(buf, "'mount -t tracefs nodev /sys/kernel/tracing' (is the kernel built "
			     "with CONFIG_TRACING?)");
	} else {
		missing(
		    "tracefs is not mounted (needed by -threadtime and -offcpu only)",
		    "'mount -t tracefs nodev /sys/kernel/tracing' (collect does this itself when "
		    "run as root)");
	}

	snprintf(buf, sizeof(buf),
		 "kernel.perf_event_max_stack = %ld frames, "
		 "kernel.perf_event_mlock_kb = %ld KiB per CPU for non-root -buffersize",
		 sysctl_long("kernel.perf_event_max_stack", 127),
		 sysctl_long("kernel.perf_event_mlock_kb", 516));
	note(buf);

	if (force)
		note("-force: nothing is installed (perfcollect-c needs no packages); sysctls and "
		     "capabilities are left as they are");
	if (blocking)
		printf("'collect' cannot record here; see the fixes above.\n");
	else if (problems)
		printf("'collect' can record; %d thing(s) missing, see the fixes above.\n",
		       problems);
	else
		printf("Everything 'collect' needs is here.\n");
	return blocking ? 1 : 0;
}
