/* The tracing data of a perf.data (lib/record/tracing_data.c: its layout, each format's
 * shape, the printk/kallsyms/cmdlines lines kept for libtraceevent).  When the blob is this
 * machine's own (tracing_data_is_local(): the only case where libtraceevent runs in our
 * process), it is also handed to libtraceevent and a record of each event, made of the
 * input's last bytes, is formatted: hostile data under trusted formats.  Foreign formats
 * go to a child process in merge (fuzz_postprocess covers that path). */
#include "fuzz.h"
#include "record/tracepoints.h"
#include "record/tracing_data.h"

static uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	struct tracing_data td;
	if (tracing_data_parse(data, size, &td) < 0)
		return 0;
	for (size_t i = 0; i < td.nr_formats; i++)
		sink +=
		    strlen(td.formats[i].name) + strlen(td.formats[i].system) + td.formats[i].len;
	sink += (td.kallsyms ? strlen(td.kallsyms) : 0) +
		(td.printk_formats ? strlen(td.printk_formats) : 0) +
		(td.cmdlines ? strlen(td.cmdlines) : 0);
	if (tracing_data_is_local(&td)) {
		struct trace_formatter *f = trace_formatter_from(&td);
		size_t raw_size = size < 128 ? size : 128;
		unsigned char raw[128];
		for (size_t i = 0; i < td.nr_formats; i++) {
			memcpy(raw, data + size - raw_size, raw_size);
			/* common_type, the first field of every record, names the event */
			const struct tracing_format *fm = &td.formats[i];
			const char *idl = memmem(fm->text, fm->len, "\nID: ", 5);
			unsigned id = 0;
			for (const char *p = idl + 5; *p >= '0' && *p <= '9'; p++)
				id = id * 10 + (unsigned)(*p - '0');
			if (raw_size >= 2)
				memcpy(raw, &(uint16_t){(uint16_t)id}, 2);
			const char *text = trace_formatter_format(f, raw, raw_size, 0, 0);
			sink += text ? strlen(text) : 0;
			const char *name = trace_formatter_event_name(f, raw, raw_size);
			sink += name ? strlen(name) : 0;
		}
		trace_formatter_free(f);
	}
	tracing_data_release(&td);
	return 0;
}
