/* The process, thread and map state that a perf.data's records describe
 * (lib/symbols/machine.c: COMM, FORK, EXIT, MMAP, MMAP2), fed by the reader as merge feeds
 * it, without the rest of the pass: every sample's comm and the map of each of its frames
 * are looked up, and every map of every process visited.  Inputs of odd size drop the maps
 * of exited processes at once (machine_drop_exited, as the symbolizer does a second later),
 * so maps freed mid-stream are fuzzed too.  fuzz_postprocess covers the same with symbols
 * and text around it, at a tenth of the speed. */
#include "fuzz_perfdata.h"
#include "symbols/machine.h"

static uint64_t sink;

static void visit_map(void *arg, uint32_t pid, bool kernel, const struct map *m)
{
	sink += pid + kernel + m->start + m->end + strlen(m->filename);
}

static void visit_pid(void *arg, uint32_t pid)
{
	sink += strlen(machine_comm(arg, pid, pid));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	int fd;
	struct perfdata_reader *r = fuzz_reader(data, size, &fd);
	if (!r)
		return 0;
	struct machine *m = machine_new();
	if (size & 1)
		machine_drop_exited(m, 0, NULL, NULL);
	struct perfdata_record rec;
	unsigned errors = 0;
	while (fuzz_next_record(r, &rec, &errors)) {
		if (rec.header->type != PERF_RECORD_SAMPLE) {
			machine_process(m, &rec);
			continue;
		}
		const struct perf_sample *s = &rec.sample;
		sink += strlen(machine_comm(m, s->pid, s->tid));
		bool kernel = s->cpumode == PERF_RECORD_MISC_KERNEL;
		struct map *map = machine_find_map(m, s->pid, s->ip, kernel);
		if (map)
			map->hit = true;
		for (uint64_t i = 0; i < s->nr_callchain && i < 256; i++) {
			uint64_t ip = s->callchain[i];
			if (ip >= PERF_CONTEXT_MAX) {
				kernel = ip == PERF_CONTEXT_KERNEL;
				continue;
			}
			map = machine_find_map(m, s->pid, ip, kernel);
			if (map)
				map->hit = true;
		}
	}
	machine_foreach_hit_map(m, visit_map, NULL);
	machine_foreach_pid(m, visit_pid, m);
	machine_free(m);
	perfdata_reader_free(r);
	close(fd);
	return 0;
}
