/* collect: placeholder until its issue lands. */
#include "commands.h"
#include <stdio.h>

int cmd_collect(int argc, char **argv)
{
	fprintf(stderr, "perfcollect-c: 'collect' is not implemented yet\n");
	return 2;
}
