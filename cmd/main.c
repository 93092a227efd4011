/* perfcollect-c: the command table (as perf's builtin-*.c table). */
#include "base/heap.h"
#include "base/outfile.h"
#include "base/util.h"
#include "commands.h"

#include <string.h>
#include <strings.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
    {"collect", cmd_collect,
     "record until Ctrl+C, -collectsec or the target's exit; write <name>.trace.zip"},
    {"start", cmd_start, "collect's recording in the background; returns once it runs"},
    {"stop", cmd_stop,
     "end a background collection (from any shell or directory) and write its zip"},
    {"merge", cmd_merge,
     "post-process a perf.data, .trace directory or .trace.zip into a trace.zip"},
    {"view", cmd_view, "call tree, top functions and flame graphs from a trace.zip"},
    {"log", cmd_log, "print perfcollect.log from a trace.zip"},
    {"ls", cmd_ls, "list the entries of a trace.zip"},
    {"cat", cmd_cat, "print one entry of a trace.zip"},
    {"stacks", cmd_stacks,
     "snapshot every thread's user and kernel stack of a process, or of every task (-kernel)"},
    {"setenv", cmd_setenv, "open a shell with DOTNET_PerfMapEnabled=1"},
    {"install", cmd_install, "check this kernel and say what collection needs"},
    {"livetrace", cmd_livetrace, "say what live tracing supports"},
    {NULL, NULL, NULL},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: perfcollect-c <command> [options]\n\ncommands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\n'perfcollect-c <command> --help' shows a command's options; "
		   "'man perfcollect-c' has them all.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcasecmp(name, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version") || !strcasecmp(name, "-version")) {
		printf("perfcollect-c %s\n", PC_VERSION);
		return 0;
	}
	for (const struct command *c = commands; c->name; c++)
		if (!strcasecmp(c->name, name)) {
			heap_setup();
			outfile_owner_from_sudo();
			return c->fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "perfcollect-c: unknown command '%s' (see 'perfcollect-c --help')\n", name);
	return 2;
}
