/* install: placeholder until its issue lands. */
#include "commands.h"
#include <stdio.h>

int cmd_install(int argc, char **argv)
{
	fprintf(stderr, "perfcollect-c: 'install' is not implemented yet\n");
	return 2;
}
