/* sched_switch: the trace field's prev_pid, prev_state and next_pid, comms that look like
 * fields, malformed fields, and which states block. */
#include "perfdata/sched_switch.h"
#include "test.h"

static void test_parse(void)
{
	struct sched_switch sw;
	CHECK(!sched_switch_parse("prev_comm=blocker prev_pid=123 prev_prio=120 prev_state=S ==> "
				  "next_comm=swapper/1 next_pid=0 next_prio=120",
				  &sw));
	CHECK(sw.prev_pid == 123 && sw.next_pid == 0 && sw.blocked);
	CHECK_STR(sw.prev_state, "S");
	CHECK(!sched_switch_parse("prev_comm=hot prev_pid=7 prev_prio=120 prev_state=R+ ==> "
				  "next_comm=kworker/0:1 next_pid=99 next_prio=120",
				  &sw));
	CHECK(sw.prev_pid == 7 && sw.next_pid == 99 && !sw.blocked);
	CHECK_STR(sw.prev_state, "R+");
	/* Comms with spaces, and comms that look like fields, do not fool it. */
	CHECK(!sched_switch_parse("prev_comm=Web Content prev_pid=41 prev_prio=120 prev_state=D "
				  "==> next_comm= next_pid=5 next_pid=42 next_prio=120",
				  &sw));
	CHECK(sw.prev_pid == 41 && sw.next_pid == 42 && sw.blocked);
	CHECK(!sched_switch_parse("prev_comm=a prev_pid=1 prev_prio=120 prev_state=D|K ==> "
				  "next_comm=b next_pid=2 next_prio=120",
				  &sw));
	CHECK(sw.blocked);
	/* Missing or malformed fields. */
	CHECK(sched_switch_parse("", &sw) < 0);
	CHECK(sched_switch_parse("comm=blocker pid=5 prio=120 group_dead=true", &sw) < 0);
	CHECK(sched_switch_parse("prev_comm=a prev_pid=x prev_prio=1 prev_state=S ==> "
				 "next_comm=b next_pid=2 next_prio=1",
				 &sw) < 0);
	CHECK(sched_switch_parse("prev_comm=a prev_pid=1 prev_prio=1 prev_state= ==> "
				 "next_comm=b next_pid=2 next_prio=1",
				 &sw) < 0);
	CHECK(sched_switch_parse("prev_comm=a prev_pid=99999999999 prev_prio=1 prev_state=S ==> "
				 "next_comm=b next_pid=2 next_prio=1",
				 &sw) < 0);
	CHECK(sched_switch_parse("prev_comm=a prev_pid=1 prev_prio=1 prev_state=SSSSSSSSSSSS "
				 "==> next_comm=b next_pid=2 next_prio=1",
				 &sw) < 0);
	CHECK(sched_switch_parse("next_comm=b next_pid=2 prev_pid=1 prev_state=S", &sw) < 0);
	CHECK(sched_switch_parse("prev_pid=1 prev_state=S", &sw) < 0);

	const char *blocked[] = {"S", "D", "I", "T", "t", "P", "D|K", "S|W"};
	const char *running[] = {"R", "R+", "X", "Z", "", "D|X"};
	for (size_t i = 0; i < ARRAY_SIZE(blocked); i++)
		CHECK(sched_state_blocked(blocked[i]));
	for (size_t i = 0; i < ARRAY_SIZE(running); i++)
		CHECK(!sched_state_blocked(running[i]));
}

int main(void)
{
	test_parse();
	return TEST_DONE();
}
