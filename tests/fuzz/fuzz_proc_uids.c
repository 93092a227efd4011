/* A trace directory's process-uids (lib/symbols/proc_uids.c): parsed, then every pid it
 * may name looked up. */
#include "fuzz.h"
#include "symbols/proc_uids.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_uids *u = proc_uids_new();
	size_t n = proc_uids_parse(u, (const char *)data, size);
	const uid_t *uids;
	for (size_t i = 0; i + 4 <= size + 256 && i < 4096; i += 4) {
		uint32_t pid = i / 4; /* the small pids, then the data's words */
		if (i + 4 <= size)
			memcpy(&pid, data + i, 4);
		size_t k = proc_uids_of(u, pid, &uids);
		if (k > n)
			__builtin_trap(); /* more users than lines */
		for (size_t j = 1; j < k; j++)
			if (uids[j - 1] >= uids[j])
				__builtin_trap(); /* each user once, in order */
	}
	proc_uids_free(u);
	return 0;
}
