/* merge: placeholder until its issue lands. */
#include "commands.h"
#include <stdio.h>

int cmd_merge(int argc, char **argv)
{
	fprintf(stderr, "perfcollect-c: 'merge' is not implemented yet\n");
	return 2;
}
