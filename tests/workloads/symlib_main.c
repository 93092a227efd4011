/* Runs libsymlib.so's symlib_run() for argv[1] seconds (default 5): the program the symbol
 * server tests record, with the library (stripped by the test) found through
 * LD_LIBRARY_PATH. */
#include <stdlib.h>

void symlib_run(double seconds);

int main(int argc, char **argv)
{
	symlib_run(argc > 1 ? atof(argv[1]) : 5);
	return 0;
}
