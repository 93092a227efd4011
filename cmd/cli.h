/* cli: perfcollect-style options: single dash and case-insensitive (-pid, -CollectSec),
 * GNU long forms (--pid, --pid=1), values as the next word or after '='.  An unknown
 * option is an error that names the closest known one. */
#ifndef PC_CLI_H
#define PC_CLI_H

#include "base/util.h"
#include "symbols/symsrv.h"

enum cli_kind { CLI_FLAG, CLI_INT, CLI_STR, CLI_SIZE, CLI_DOUBLE, CLI_LIST };

/* A CLI_LIST option's values, every one given, in order (the strings are argv's; free
 * items). */
struct cli_list {
	const char **items;
	size_t n, cap;
};

struct cli_opt {
	const char *name; /* long name without dashes, e.g. "collectsec" */
	char short_name;  /* e.g. 'o', or 0 */
	enum cli_kind kind;
	void *dest;	 /* bool*, long*, const char**, uint64_t*, double*, struct cli_list* */
	const char *arg; /* value placeholder for --help, e.g. "N" */
	const char *help;
};

/* Parses argv[1..] (argv[0] is the command name).  Positional words are collected into
 * pos (at most max_pos).  "-h"/"--help" sets *help.  Returns 0 or -1 (message printed). */
int cli_parse(const char *cmd, const struct cli_opt *opts, int argc, char **argv, const char **pos,
	      int max_pos, int *npos, bool *help);
void cli_print_options(FILE *f, const struct cli_opt *opts);

/* The symbol server options of collect and merge (symbols/symsrv.h), as written on the
 * command line; cli_symbols_opts() checks them into a symsrv_opts (which points into sc). */
struct cli_symbols {
	struct cli_list servers;
	bool off;
	const char *cache, *timeout;
};
/* clang-format off */
#define CLI_SYMBOL_OPTS(sc, default_timeout)                                                  \
	{"symbolserver", 0, CLI_LIST, &(sc)->servers, "URL",                                  \
	 "also ask this symbol server (SSQP, Microsoft's layout) for stripped files' "       \
	 "symbols; repeatable"},                                                              \
	{"nosymbolserver", 0, CLI_FLAG, &(sc)->off, NULL,                                     \
	 "ask no symbol server (Microsoft's for the .NET runtime, DEBUGINFOD_URLS'); cached " \
	 "symbol files are still used"},                                                      \
	{"symbolcache", 0, CLI_STR, &(sc)->cache, "DIR",                                      \
	 "keep fetched symbol files in DIR (default $XDG_CACHE_HOME/perfcollect-c/symbols)"}, \
	{"symboltimeout", 0, CLI_STR, &(sc)->timeout, "SEC",                                  \
	 "time for fetching symbols, all files together (default " default_timeout " s)"}
/* clang-format on */
int cli_symbols_opts(const char *cmd, struct cli_symbols *sc, struct symsrv_opts *out);

/* cli_parse() for perfcollect's own verbs (collect, start, stop, view), on each of which
 * its parser (ProcessArguments in perfcollect) took every one of its options with its
 * value, whether the verb used it or not: an option of perfcollect's that opts lacks is
 * taken with its value and ignored (-viewer's value checked as perfcollect did: perf or
 * lttng); our own options stay refused where they mean nothing.  When opts' "verbose" flag
 * was given (-v), each option ignored is said on stderr (the verb says where its own
 * options differ from perfcollect's). */
int cli_parse_perfcollect(const char *cmd, const struct cli_opt *opts, int argc, char **argv,
			  const char **pos, int max_pos, int *npos, bool *help);
/* -v, -verbose: an entry of a perfcollect verb's table. */
#define CLI_VERBOSE(dest)                                                                          \
	{                                                                                          \
		"verbose", 'v', CLI_FLAG, (dest), NULL,                                            \
		    "say which of perfcollect's options this command ignores, and where it "       \
		    "differs"                                                                      \
	}

#endif
