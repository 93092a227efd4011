/* fuzz_sched_switch: perfdata/sched_switch.c, the parser of a sched:sched_switch sample's
 * trace text (outside input: perf.data.txt given to view, and tracepoint data of any
 * perf.data given to merge).  The input is the text. */
#include "perfdata/sched_switch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	struct sched_switch sw;
	if (sched_switch_parse(text, &sw) == 0 && strlen(sw.prev_state) >= sizeof(sw.prev_state))
		abort(); /* the state must fit its buffer */
	sched_state_blocked(text);
	free(text);
	return 0;
}
