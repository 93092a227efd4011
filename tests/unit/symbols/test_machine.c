/* Unit tests for machine_forget: a recorder drops the processes that exited, and every
 * other process, thread and map is still found (the tables delete without tombstones, so
 * entries of one probe run must move up correctly), also after many rounds of churn. */
#include "perfdata/perfdata_read.h"
#include "symbols/machine.h"
#include "test.h"

/* PERF_RECORD_MMAP: { u32 pid, tid; u64 addr, len, pgoff; char filename[] }. */
static void mmap_of(struct machine *m, uint32_t pid, uint64_t addr)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		char name[16];
	} r = {{PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, sizeof(r)},
	       pid,
	       pid,
	       addr,
	       4096,
	       0,
	       "/bin/x"};
	struct perfdata_record rec = {.header = &r.h};
	machine_process(m, &rec);
}

/* PERF_RECORD_COMM: { u32 pid, tid; char comm[] }. */
static void comm_of(struct machine *m, uint32_t pid, uint32_t tid, const char *name)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
	} r = {{PERF_RECORD_COMM, 0, sizeof(r)}, pid, tid, ""};
	snprintf(r.comm, sizeof(r.comm), "%s", name);
	struct perfdata_record rec = {.header = &r.h};
	machine_process(m, &rec);
}

static bool known(struct machine *m, uint32_t pid)
{
	return machine_find_map(m, pid, 0x10000 + pid * 0x1000ull, false) != NULL;
}

int main(void)
{
	struct machine *m = machine_new();
	/* 3000 processes, with a thread each; then every other one exits. */
	for (uint32_t pid = 1; pid <= 3000; pid++) {
		mmap_of(m, pid, 0x10000 + pid * 0x1000ull);
		comm_of(m, pid, pid, "leader");
		comm_of(m, pid, pid + 100000, "worker");
	}
	for (uint32_t pid = 2; pid <= 3000; pid += 2) {
		machine_forget(m, pid, pid + 100000); /* the thread first */
		machine_forget(m, pid, pid);
	}
	size_t wrong = 0;
	for (uint32_t pid = 1; pid <= 3000; pid++) {
		bool alive = pid % 2;
		if (known(m, pid) != alive)
			wrong++;
		const char *c = machine_comm(m, pid, pid + 100000);
		if (alive ? strcmp(c, "worker") : strcmp(c, ":100000") && c[0] != ':')
			wrong++;
	}
	CHECK_EQ_U64(wrong, 0);
	/* A thread that is not the leader goes alone. */
	machine_forget(m, 1, 100001);
	CHECK(known(m, 1));
	CHECK_STR(machine_comm(m, 1, 100001), "leader");
	/* Churn: processes come and go, the live ones stay findable. */
	for (int round = 0; round < 50; round++) {
		for (uint32_t pid = 5001; pid <= 5200; pid++)
			mmap_of(m, pid + round * 200, 0x10000 + (pid + round * 200) * 0x1000ull);
		for (uint32_t pid = 5001; pid <= 5200; pid++)
			machine_forget(m, pid + round * 200, pid + round * 200);
	}
	wrong = 0;
	for (uint32_t pid = 1; pid <= 3000; pid += 2)
		wrong += !known(m, pid);
	for (uint32_t pid = 5001; pid <= 15200; pid++)
		wrong += known(m, pid);
	CHECK_EQ_U64(wrong, 0);
	machine_forget(m, 424242, 424242); /* unknown: nothing happens */
	machine_free(m);
	return TEST_DONE();
}
