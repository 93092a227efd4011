/* livetrace: placeholder until its issue lands. */
#include "commands.h"
#include <stdio.h>

int cmd_livetrace(int argc, char **argv)
{
	fprintf(stderr, "perfcollect-c: 'livetrace' is not implemented yet\n");
	return 2;
}
