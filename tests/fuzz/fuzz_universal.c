/* fuzz_universal: report/universal.c, which turns the Universal providers' payloads of a
 * NetTrace (outside input: any .nettrace view is given) into samples.  The input is a list
 * of records: u8 metadata id (1-7 as below), u8 stack depth, depth x u64 addresses, u16
 * payload size, payload bytes.  The metadata rows are fixed (the file's own rows are the
 * reader's business); what is fuzzed is the payloads, the stacks and their order. */
#include "report/universal.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static int on_sample(const struct stack_sample *s, void *arg)
{
	size_t *n = arg;
	/* touch everything the sample points to */
	*n += strlen(s->comm) + strlen(s->event) + strlen(s->trace);
	for (size_t i = 0; i < s->nframes; i++)
		*n += strlen(s->frames[i].sym) + strlen(s->frames[i].dso);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t touched = 0;
	struct universal *u = universal_new(on_sample, &touched);
	universal_metadata(u, 1, "Universal.System", "ProcessCreate", NULL, false);
	universal_metadata(u, 2, "Universal.System", "ProcessExit", NULL, false);
	universal_metadata(u, 3, "Universal.System", "ProcessMapping", NULL, false);
	universal_metadata(u, 4, "Universal.System", "ProcessSymbol", NULL, false);
	universal_metadata(u, 5, "Universal.Events", "cpu", NULL, false);
	universal_metadata(u, 6, "Universal.Events", "sched:sched_switch", "sched:sched_switch",
			   true);
	universal_metadata(u, 7, "Universal.Events", "cswitch", NULL, false);
	uint64_t stack[64];
	const uint8_t *p = data, *end = data + size;
	while (end - p >= 2) {
		uint8_t md = p[0], depth = p[1] % 64;
		p += 2;
		if ((size_t)(end - p) < depth * 8u + 2)
			break;
		memcpy(stack, p, depth * 8u);
		p += depth * 8u;
		size_t n = p[0] | (size_t)p[1] << 8;
		p += 2;
		if ((size_t)(end - p) < n)
			n = (size_t)(end - p);
		struct universal_event e = {.metadata_id = md,
					    .pid = md & 1 ? 42 : 43,
					    .tid = 44,
					    .stack = stack,
					    .depth = depth,
					    .payload = p,
					    .payload_size = n};
		universal_event(u, &e);
		p += n;
	}
	universal_free(u);
	return 0;
}
