/* stacks: placeholder until its issue lands. */
#include "commands.h"
#include <stdio.h>

int cmd_stacks(int argc, char **argv)
{
	fprintf(stderr, "perfcollect-c: 'stacks' is not implemented yet\n");
	return 2;
}
