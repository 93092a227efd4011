/* view: placeholder until its issue lands. */
#include "commands.h"
#include <stdio.h>

int cmd_view(int argc, char **argv)
{
	fprintf(stderr, "perfcollect-c: 'view' is not implemented yet\n");
	return 2;
}
