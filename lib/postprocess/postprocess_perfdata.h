/* postprocess_perfdata: the perf.data that goes into the zip.  A recording with user stack
 * copies (collect's hybrid call stacks, perf --call-graph dwarf) is rewritten as the pass
 * unwinds it: each sample with the call chain perf.data.txt prints and without its copy
 * (perfdata_rewrite.h), a tenth of the bytes; any other recording goes into the zip as it
 * was recorded. */
#ifndef PC_POSTPROCESS_PERFDATA_H
#define PC_POSTPROCESS_PERFDATA_H

#include "perfdata/perfdata_read.h"
#include "symbols/symbols.h"

struct zip_perfdata;

/* The rewrite into path when r has stack copies (user_stacks); NULL when the recording goes
 * as it is (a rewrite that cannot be set up says why in the log). */
struct zip_perfdata *zip_perfdata_new(const char *path, const struct perfdata_reader *r,
				      bool user_stacks);
/* Every record of the pass, in the reader's order; a sample with the frames symbolized from
 * it.  A failed write is said in the log once and the recording goes as it is. */
void zip_perfdata_record(struct zip_perfdata *z, const struct perfdata_record *rec);
void zip_perfdata_sample(struct zip_perfdata *z, const struct perfdata_record *rec,
			 const struct frame *frames, size_t n);
/* The rewritten file's path once finished, NULL when it failed (log). */
const char *zip_perfdata_finish(struct zip_perfdata *z);
void zip_perfdata_free(struct zip_perfdata *z); /* removes the file */

#endif
