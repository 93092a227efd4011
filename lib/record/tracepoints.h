/* tracepoints: kernel tracepoints for -offcpu/-threadtime, end to end.
 *
 * Recording side: read an event's id from tracefs (tracefs.h) for perf_event_attr.config,
 * and build the "tracing data" blob perf stores in perf.data's
 * HEADER_TRACING_DATA feature (header_page, header_event, ftrace and event formats,
 * printk formats, saved cmdlines) so `perf script` can decode our tracepoint samples.
 *
 * Reading side: parse such a blob (ours or real perf's) with libtraceevent and format a
 * tracepoint sample's raw data exactly as `perf script` prints its `trace` field.
 */
#ifndef PC_TRACEPOINTS_H
#define PC_TRACEPOINTS_H

#include "base/util.h"

/* "sched:sched_switch" -> its tracepoint id. */
int tracepoint_id(const char *event, uint64_t *id);

/* Builds the tracing-data blob for these events ("sys:name"); *blob is malloc'd. */
int tracing_data_build(const char *const *events, size_t n, void **blob, size_t *size);

struct trace_formatter;
struct tracing_data;
/* Parses a tracing-data blob in this process (tracing_data.h checks it first).  NULL with
 * pc_err() if it is not one.  libtraceevent still has bugs that malformed formats reach:
 * formats from elsewhere are for postprocess/trace_fields.h, which keeps them out of this
 * process. */
struct trace_formatter *trace_formatter_new(const void *blob, size_t size);
/* The same from a blob tracing_data_parse() took apart (td may be released after). */
struct trace_formatter *trace_formatter_from(const struct tracing_data *td);
void trace_formatter_free(struct trace_formatter *f);
/* Formats raw tracepoint data as perf script's `trace` field; returns the string (valid
 * until the next call) or NULL when the event is unknown. */
const char *trace_formatter_format(struct trace_formatter *f, const void *raw, size_t raw_size,
				   int cpu, uint64_t time);
/* "sys:name" of the event the raw data belongs to, NULL if unknown. */
const char *trace_formatter_event_name(struct trace_formatter *f, const void *raw, size_t raw_size);

#endif
