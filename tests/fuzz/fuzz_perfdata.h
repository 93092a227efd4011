/* fuzz_perfdata: the input as a perf.data reader, for the harnesses of what reads records. */
#ifndef PC_FUZZ_PERFDATA_H
#define PC_FUZZ_PERFDATA_H

#include "fuzz.h"
#include "perfdata/perfdata_read.h"

/* A reader on the input, NULL when it is not a perf.data; close *fd after freeing it. */
static inline struct perfdata_reader *fuzz_reader(const uint8_t *data, size_t size, int *fd)
{
	*fd = fuzz_fd(data, size);
	struct perfdata_reader *r = perfdata_reader_open(fuzz_fd_path(*fd));
	if (!r)
		close(*fd);
	return r;
}

/* The next record, going on after bad ones as the reader allows (merge stops at the first;
 * up to 1000 here): 1, or 0 at the end. */
static inline int fuzz_next_record(struct perfdata_reader *r, struct perfdata_record *rec,
				   unsigned *errors)
{
	int ret;
	while ((ret = perfdata_reader_next(r, rec)) < 0)
		if (++*errors >= 1000)
			return 0;
	return ret;
}

#endif
