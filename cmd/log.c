/* log, ls, cat: placeholder until the post-processing issue lands. */
#include "commands.h"
#include <stdio.h>

int cmd_log(int argc, char **argv)
{
	fprintf(stderr, "perfcollect-c: 'log' is not implemented yet\n");
	return 2;
}

int cmd_ls(int argc, char **argv)
{
	fprintf(stderr, "perfcollect-c: 'ls' is not implemented yet\n");
	return 2;
}

int cmd_cat(int argc, char **argv)
{
	fprintf(stderr, "perfcollect-c: 'cat' is not implemented yet\n");
	return 2;
}
