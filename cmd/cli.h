/* cli: perfcollect-style options: single dash and case-insensitive (-pid, -CollectSec),
 * GNU long forms (--pid, --pid=1), values as the next word or after '='.  An unknown
 * option is an error that names the closest known one. */
#ifndef PC_CLI_H
#define PC_CLI_H

#include "base/util.h"

enum cli_kind { CLI_FLAG, CLI_INT, CLI_STR, CLI_SIZE, CLI_DOUBLE };

struct cli_opt {
	const char *name; /* long name without dashes, e.g. "collectsec" */
	char short_name;  /* e.g. 'o', or 0 */
	enum cli_kind kind;
	void *dest;	 /* bool*, long*, const char**, uint64_t*, double* */
	const char *arg; /* value placeholder for --help, e.g. "N" */
	const char *help;
};

/* Parses argv[1..] (argv[0] is the command name).  Positional words are collected into
 * pos (at most max_pos).  "-h"/"--help" sets *help.  Returns 0 or -1 (message printed). */
int cli_parse(const char *cmd, const struct cli_opt *opts, int argc, char **argv, const char **pos,
	      int max_pos, int *npos, bool *help);
void cli_print_options(FILE *f, const struct cli_opt *opts);

#endif
