/* livetrace: perfcollect's LTTng live session.  perfcollect-c records with perf_event_open
 * only, so say plainly what exists instead. */
#include "cli.h"
#include "commands.h"

static const char help[] =
    "usage: perfcollect-c livetrace\n\n"
    "perfcollect's 'livetrace' streams .NET runtime events through LTTng. perfcollect-c does\n"
    "not use LTTng, so live tracing is not supported. Use instead:\n"
    "  perfcollect-c collect NAME [-pid N]   CPU samples (and -threadtime/-offcpu) to a zip\n"
    "  perfcollect-c stacks -pid N           every thread's stack of a live process, now\n"
    "  dotnet-trace / EventPipe              .NET runtime events\n";

int cmd_livetrace(int argc, char **argv)
{
	static const struct cli_opt opts[] = {{0}};
	const char *pos[1];
	int npos;
	bool want_help;
	if (cli_parse("livetrace", opts, argc, argv, pos, 0, &npos, &want_help) < 0)
		return 2;
	if (want_help) {
		fputs(help, stdout);
		return 0;
	}
	fputs("perfcollect-c: livetrace is not supported: perfcollect-c does not use LTTng; "
	      "use 'collect' for CPU traces or 'stacks' for a live snapshot\n",
	      stderr);
	return 1;
}
