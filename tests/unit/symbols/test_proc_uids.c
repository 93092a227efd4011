/* proc_uids: the users the collector recorded, as the trace directory keeps them: lines of
 * two numbers, anything else skipped; several users of one pid (reused) all kept. */
#include "symbols/proc_uids.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	struct proc_uids *u = proc_uids_new();
	static const char text[] = "12 1000\n"
				   "12 0\n"
				   "12 1000\n"	     /* the same again */
				   "13 65534"	     /* no newline at the end of a line: taken */
				   "\n14 -1\n"	     /* not a number */
				   "15 4294967295\n" /* (uid_t)-1: no user */
				   "4294967296 1\n"  /* more than a pid */
				   "16  1\n16 1 x\n\n 17 1\n" /* taken, not, -, not */
				   "18 2";
	CHECK(proc_uids_parse(u, text, strlen(text)) == 6);
	const uid_t *uids;
	CHECK(proc_uids_of(u, 12, &uids) == 2 && uids[0] == 0 && uids[1] == 1000);
	CHECK(proc_uids_of(u, 13, &uids) == 1 && uids[0] == 65534);
	for (uint32_t pid = 14; pid <= 17; pid++)
		CHECK(proc_uids_of(u, pid, &uids) == (pid == 16) && (pid != 16 || uids[0] == 1));
	CHECK(proc_uids_of(u, 18, &uids) == 1 && uids[0] == 2);
	proc_uids_add(u, 11, 5); /* added after a lookup: found all the same */
	CHECK(proc_uids_of(u, 11, &uids) == 1 && uids[0] == 5);

	char dir[] = "/tmp/pc-procuids-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK(proc_uids_load(u, dir) == 0); /* none: nothing recorded */
	char *path = xasprintf("%s/%s", dir, PROC_UIDS_FILE);
	FILE *f = fopen(path, "w");
	CHECK(f && fputs("20 30\n", f) >= 0 && fclose(f) == 0);
	CHECK(proc_uids_load(u, dir) == 0);
	CHECK(proc_uids_of(u, 20, &uids) == 1 && uids[0] == 30);
	free(path);
	proc_uids_free(u);
	CHECK(rm_rf(dir) == 0);
	return TEST_DONE();
}
