/* setenv: a shell (or one command) whose .NET processes write perf maps, as perfcollect's
 * setenv: DOTNET_PerfMapEnabled=1 and the legacy COMPlus_PerfMapEnabled=1 (runtimes before
 * .NET 6 read only the latter).  DOTNET_PerfMapStubGranularity=2 too: without it .NET 10
 * stops writing its jitdump at startup (a half-readable stub block makes writev() fail),
 * and ReadyToRun methods are named only there.  perfcollect's EnableEventLog is left out:
 * it feeds LTTng, which perfcollect-c does not use. */
#include "base/util.h"
#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *const perfmap_env[][2] = {
    {"DOTNET_PerfMapEnabled", "1"},
    {"COMPlus_PerfMapEnabled", "1"},
    {"DOTNET_PerfMapStubGranularity", "2"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: perfcollect-c setenv [-- COMMAND [ARGS...]]\n\n"
		   "Starts $SHELL (or /bin/sh), or COMMAND, with the .NET runtime's perf maps "
		   "turned on:\n");
	for (size_t i = 0; i < ARRAY_SIZE(perfmap_env); i++)
		fprintf(f, "  %s=%s\n", perfmap_env[i][0], perfmap_env[i][1]);
	fprintf(f, "\n.NET processes started from there write /tmp/perf-<pid>.map and "
		   "/tmp/jit-<pid>.dump,\nso 'perfcollect-c collect' names their managed frames. "
		   "(.NET 8 and later can also\nbe asked while running: 'collect -pid' does that "
		   "by itself.)\n");
}

int cmd_setenv(int argc, char **argv)
{
	int first = 1;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
			 !strcasecmp(argv[1], "-help"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--"))
		first = 2;
	else if (argc > 1 && argv[1][0] == '-') {
		fprintf(
		    stderr,
		    "perfcollect-c setenv: unknown option '%s' (to run a command: 'perfcollect-c "
		    "setenv -- COMMAND')\n",
		    argv[1]);
		return 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(perfmap_env); i++)
		if (setenv(perfmap_env[i][0], perfmap_env[i][1], 1) < 0) {
			fprintf(stderr, "perfcollect-c setenv: %s: %s\n", perfmap_env[i][0],
				strerror(errno));
			return 1;
		}

	if (first < argc) {
		execvp(argv[first], argv + first);
		fprintf(stderr, "perfcollect-c setenv: cannot run %s: %s\n", argv[first],
			strerror(errno));
		return errno == ENOENT ? 127 : 126;
	}
	const char *shell = getenv("SHELL");
	if (!shell || shell[0] != '/' || access(shell, X_OK) < 0)
		shell = "/bin/sh";
	fprintf(stderr,
		"perfcollect-c: starting %s with DOTNET_PerfMapEnabled=1; .NET processes started "
		"from it write perf maps. 'exit' returns.\n",
		shell);
	char *const shell_argv[] = {(char *)shell, NULL};
	execv(shell, shell_argv);
	fprintf(stderr, "perfcollect-c setenv: cannot run %s: %s\n", shell, strerror(errno));
	return 126;
}
