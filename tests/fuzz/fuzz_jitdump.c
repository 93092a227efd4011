/* jit-<pid>.dump (lib/symbols/jitdump.c), as .NET writes them: loaded, then each code load
 * looked up at its address, at its time and just before it. */
#include "fuzz.h"
#include "symbols/jitdump.h"

static uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	int fd = fuzz_fd(data, size);
	struct jitdump *j = jitdump_load_fd(fd);
	close(fd);
	if (!j)
		return 0;
	sink += jitdump_pid(j) + jitdump_truncated(j) + jitdump_arch_timestamps(j) +
		jitdump_bad_records(j);
	size_t n = jitdump_nr_loads(j);
	for (size_t i = 0; i < n && i < 4096; i++) {
		const struct jitdump_load *l = jitdump_load_at(j, i);
		sink += strlen(l->name) + l->code_index + l->pid + l->tid + l->moved;
		const uint64_t times[] = {l->time, l->time - 1, UINT64_MAX, 0};
		for (size_t t = 0; t < 4; t++) {
			const struct jitdump_load *hit = jitdump_lookup(j, l->addr, times[t]);
			if (hit)
				sink += strlen(hit->name);
			hit = jitdump_lookup(j, l->addr + l->size - 1, times[t]);
			if (hit)
				sink += strlen(hit->name);
		}
	}
	jitdump_free(j);
	return 0;
}
