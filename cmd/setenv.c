/* setenv: placeholder until its issue lands. */
#include "commands.h"
#include <stdio.h>

int cmd_setenv(int argc, char **argv)
{
	fprintf(stderr, "perfcollect-c: 'setenv' is not implemented yet\n");
	return 2;
}
