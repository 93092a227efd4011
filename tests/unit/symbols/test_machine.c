/* Unit tests for machine_forget: a recorder drops the processes that exited, and every
 * other process, thread and map is still found (the tables delete without tombstones, so
 * entries of one probe run must move up correctly), also after many rounds of churn.  And
 * machine_drop_exited: a process's maps go a delay after its last thread's EXIT record,
 * not before, not while a thread lives, and not when its pid came back meanwhile; such a
 * process is ended (machine_process_ended) until a record brings its pid back. */
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

/* PERF_RECORD_EXIT: { u32 pid, ppid, tid, ptid; u64 time }, at time t (also its sample_id). */
static void exit_of(struct machine *m, uint32_t pid, uint32_t tid, uint64_t t)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} r = {{PERF_RECORD_EXIT, 0, sizeof(r)}, pid, 1, tid, 1, t};
	struct perfdata_record rec = {.header = &r.h, .id = {.time = t, .has_time = true}};
	machine_process(m, &rec);
}

/* Any record at time t: the clock that drops. */
static void tick(struct machine *m, uint64_t t)
{
	struct perf_event_header h = {PERF_RECORD_SWITCH, 0, sizeof(h)};
	struct perfdata_record rec = {.header = &h, .id = {.time = t, .has_time = true}};
	machine_process(m, &rec);
}

static uint32_t dropped[8];
static size_t ndropped;
static void on_drop(void *arg, uint32_t pid)
{
	(void)arg;
	if (ndropped < 8)
		dropped[ndropped++] = pid;
}

static bool known(struct machine *m, uint32_t pid);

static void test_drop_exited(void)
{
	const uint64_t S = 1000000000ULL;
	struct machine *m = machine_new();
	machine_drop_exited(m, S, on_drop, NULL);
	for (uint32_t pid = 10; pid <= 12; pid++) {
		mmap_of(m, pid, 0x10000 + pid * 0x1000ull);
		comm_of(m, pid, pid, "leader");
		comm_of(m, pid, pid + 1000, "worker");
	}
	exit_of(m, 10, 10, 5 * S);   /* 10: the leader exits, its worker lives on */
	exit_of(m, 11, 1011, 5 * S); /* 11: both threads exit */
	exit_of(m, 11, 11, 5 * S + 1);
	exit_of(m, 12, 1012, 5 * S); /* 12: both exit, then the pid comes back */
	exit_of(m, 12, 12, 5 * S);
	comm_of(m, 12, 12, "again");
	tick(m, 5 * S + S / 2); /* not yet */
	CHECK(known(m, 11));
	CHECK(!machine_process_ended(m, 11));
	tick(m, 6 * S + 2);
	CHECK(known(m, 10));
	CHECK(!known(m, 11));
	CHECK(known(m, 12));
	CHECK_EQ_U64(ndropped, 1);
	CHECK_EQ_U64(dropped[0], 11);
	CHECK(machine_process_ended(m, 11));
	CHECK(!machine_process_ended(m, 10));		/* a thread lives */
	CHECK(!machine_process_ended(m, 12));		/* came back */
	CHECK(!machine_process_ended(m, 99));		/* never seen */
	CHECK_STR(machine_comm(m, 11, 1011), "worker"); /* names stay */
	/* 11 comes back (an exec of the pid): no longer ended, until it goes again */
	comm_of(m, 11, 11, "back");
	CHECK(!machine_process_ended(m, 11));
	exit_of(m, 11, 11, 7 * S);
	/* 10's last thread goes: its maps follow a second later */
	exit_of(m, 10, 1010, 7 * S);
	tick(m, 8 * S + 1);
	CHECK(!known(m, 10));
	CHECK(machine_process_ended(m, 10));
	CHECK(machine_process_ended(m, 11));
	CHECK_EQ_U64(ndropped, 3);
	/* a record out of order (earlier than the exit) drops nothing */
	mmap_of(m, 13, 0x10000 + 13 * 0x1000ull);
	exit_of(m, 13, 13, 20 * S);
	tick(m, 19 * S);
	CHECK(known(m, 13));
	machine_forget(m, 13, 13); /* a forgotten process leaves the dead list too */
	tick(m, 30 * S);
	CHECK_EQ_U64(ndropped, 3);
	machine_free(m);
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
	test_drop_exited();
	return TEST_DONE();
}
