/* universal: the samples of a NetTrace written with the "Universal" providers (our
 * <name>.nettrace, see postprocess/postprocess_unified.h; also dotnet-trace collect-linux's
 * files), turned back into what perf.data.txt says of each sample (stackfile.h's struct
 * stack_sample), so that view reports such a file exactly as it reports the trace.zip.
 *
 * The caller reads the file (a NetTrace reader) and hands over each metadata row and each
 * event in file order.  Universal.System events build, per process, the name, the mappings
 * and the symbols (a later symbol or mapping over the same addresses replaces the earlier
 * one, as code re-JIT'd at a reused address); every Universal.Events event but cswitch is a
 * sample, named after its perf event (the metadata's "perf.event", else its own name, "cpu"
 * being cpu-clock), its frames named as perf script names them:
 *  - a named frame: the symbol, and the name of the symbol's mapping, except that JIT code
 *    in a /memfd: double mapping is named by the perf map, /tmp/perf-<pid>.map (perf's rule);
 *  - an unnamed one: "[unknown]", in the mapping that covers it ("[kernel.kallsyms]" for
 *    kernel addresses), or "[unknown]".
 * cswitch events are left out: view computes blocked time from the sched_switch samples.
 * Memory grows with processes, mappings and symbols, not with samples.
 */
#ifndef PC_UNIVERSAL_H
#define PC_UNIVERSAL_H

#include "stackfile.h"

struct universal_event {
	uint32_t metadata_id;
	uint32_t pid, tid;
	const char *thread_name; /* NULL: the process's name */
	int cpu;
	uint64_t time_ns;
	const uint64_t *stack; /* leaf first */
	size_t depth;
	const uint8_t *payload;
	size_t payload_size;
};

struct universal_stats {
	uint64_t samples, system_events, skipped_events, bad_payloads;
};

struct universal;
/* cb gets each sample (as stackfile_read's callbacks do); a non-zero return stops and is
 * returned by universal_event(). */
struct universal *universal_new(stackfile_cb cb, void *arg);
void universal_free(struct universal *u);
/* A metadata row: perf_event is the row's "perf.event" value (NULL when absent); has_trace
 * says the row has a second field, Trace, the tracepoint's text. */
void universal_metadata(struct universal *u, uint32_t id, const char *provider, const char *name,
			const char *perf_event, bool has_trace);
/* Whether the metadata rows seen make this a Universal file at all. */
bool universal_is_universal(const struct universal *u);
/* An event; 0, or the callback's non-zero value. */
int universal_event(struct universal *u, const struct universal_event *e);
const struct universal_stats *universal_stats(const struct universal *u);

#endif
