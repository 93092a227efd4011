/* futex_owner against real glibc mutexes and real blocked threads of this process. */
#include "stacks/futex_owner.h"
#include "test.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void test_parse(void)
{
	struct thread_syscall sc;
	CHECK(thread_syscall_parse("running\n", &sc) == 0 && sc.state == SYSCALL_RUNNING);
	CHECK(thread_syscall_parse("-1 0x7ffe434cff90 0x7f08ed4b2aec\n", &sc) == 0 &&
	      sc.state == SYSCALL_NONE);
	CHECK_EQ_U64(sc.sp, 0x7ffe434cff90ull);
	CHECK(thread_syscall_parse("202 0x5589bfa5c5c0 0x80 0x2 0x0 0x0 0x0 0x7f5643c44e78 "
				   "0x7f56444d012b\n",
				   &sc) == 0);
	CHECK(sc.state == SYSCALL_IN && sc.nr == 202);
	CHECK_EQ_U64(sc.args[0], 0x5589bfa5c5c0ull);
	CHECK_EQ_U64(sc.args[1], 0x80);
	CHECK_EQ_U64(sc.args[2], 2);
	CHECK_EQ_U64(sc.sp, 0x7f5643c44e78ull);
	/* cut short, or not a syscall line at all */
	CHECK(thread_syscall_parse("202 0x5589bfa5c5c0 0x80", &sc) < 0);
	CHECK(thread_syscall_parse("", &sc) < 0);
	CHECK(thread_syscall_parse("futex 0x1 0x2 0x3 0x4 0x5 0x6", &sc) < 0);
	CHECK(thread_syscall_parse("202 zz 0x2 0x3 0x4 0x5 0x6", &sc) < 0);
}

static void test_ops(void)
{
	struct thread_syscall sc = {.state = SYSCALL_IN, .nr = SYS_futex, .args = {0x1000}};
	uint64_t addr;
	bool pi;
	sc.args[1] = FUTEX_WAIT_PRIVATE; /* glibc 2.36 __lll_lock_wait */
	CHECK(futex_wait_address(&sc, &addr, &pi) && addr == 0x1000 && !pi);
	sc.args[1] = FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME; /* join */
	CHECK(futex_wait_address(&sc, &addr, &pi) && !pi);
	sc.args[1] = FUTEX_LOCK_PI_PRIVATE;
	CHECK(futex_wait_address(&sc, &addr, &pi) && pi);
	sc.args[1] = FUTEX_WAKE_PRIVATE;
	CHECK(!futex_wait_address(&sc, &addr, &pi));
	sc.nr = SYS_read;
	sc.args[1] = FUTEX_WAIT;
	CHECK(!futex_wait_address(&sc, &addr, &pi));
	sc.nr = SYS_futex;
	sc.state = SYSCALL_RUNNING;
	CHECK(!futex_wait_address(&sc, &addr, &pi));
}

static void *lock_and_report(void *arg)
{
	pthread_mutex_t *m = arg;
	pthread_mutex_lock(m);
	return (void *)(intptr_t)gettid_();
}

/* The bytes of real mutexes: owner read back as the TID that locked it. */
static void test_mutex_bytes(void)
{
	bool shared;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	CHECK(futex_mutex_owner((void *)&m, sizeof(m), false, &shared) == 0);
	pthread_mutex_lock(&m);
	CHECK(futex_mutex_owner((void *)&m, sizeof(m), false, &shared) == gettid_());
	CHECK(!shared);
	CHECK(futex_mutex_owner((void *)&m, 12, false, &shared) == 0); /* too short */
	pthread_mutex_unlock(&m);

	/* locked by another thread that then exits: the TID stays in the mutex */
	pthread_t t;
	void *tid;
	pthread_create(&t, NULL, lock_and_report, &m);
	pthread_join(t, &tid);
	CHECK(futex_mutex_owner((void *)&m, sizeof(m), false, &shared) == (pid_t)(intptr_t)tid);

	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_t pim;
	pthread_mutex_init(&pim, &a);
	pthread_mutex_lock(&pim);
	CHECK(futex_mutex_owner((void *)&pim, sizeof(pim), true, &shared) == gettid_());
	CHECK(shared);
	pthread_mutex_unlock(&pim);
	pthread_mutex_destroy(&pim);
	pthread_mutexattr_destroy(&a);

	/* a word that is not a mutex: garbage kind bits */
	unsigned char junk[40] = {2, 0, 0, 0};
	junk[8] = 7;
	junk[16] = 0x40;
	junk[17] = 0x10;
	CHECK(futex_mutex_owner(junk, sizeof(junk), false, &shared) == 0);
}

struct blocker {
	pthread_mutex_t *m;
	pthread_cond_t *c;
	volatile pid_t tid;
	volatile bool done;
};

static void *block_on_mutex(void *arg)
{
	struct blocker *b = arg;
	b->tid = gettid_();
	pthread_mutex_lock(b->m);
	pthread_mutex_unlock(b->m);
	return NULL;
}

static void *block_on_cond(void *arg)
{
	struct blocker *b = arg;
	pthread_mutex_lock(b->m);
	b->tid = gettid_();
	while (!b->done)
		pthread_cond_wait(b->c, b->m);
	pthread_mutex_unlock(b->m);
	return NULL;
}

/* Waits (bounded) until the thread sleeps in futex(2); fills sc. */
static bool wait_in_futex(struct blocker *b, struct thread_syscall *sc)
{
	struct timespec tick = {0, 1000 * 1000};
	for (int i = 0; i < 10000; i++) {
		if (b->tid && thread_syscall_read(getpid(), b->tid, sc) == 0 &&
		    sc->state == SYSCALL_IN && sc->nr == SYS_futex)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

/* A real thread blocked on a real mutex held by this thread, seen through /proc and our
 * own memory as `stacks` sees another process. */
static void test_live_wait(int protocol, bool want_pi)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, protocol);
	pthread_mutex_t m;
	pthread_mutex_init(&m, &a);
	pthread_mutexattr_destroy(&a);
	pthread_mutex_lock(&m);
	struct blocker b = {.m = &m};
	pthread_t t;
	pthread_create(&t, NULL, block_on_mutex, &b);
	struct thread_syscall sc;
	CHECK(wait_in_futex(&b, &sc));
	pid_t tids[2] = {gettid_(), b.tid};
	struct lock_wait w;
	futex_lock_wait(getpid(), &sc, tids, tids, 2, &w);
	CHECK(w.kind == LOCK_WAIT_MUTEX);
	CHECK_EQ_U64(w.addr, (uintptr_t)&m);
	CHECK(w.owner == gettid_() && w.owner_ns == gettid_());
	CHECK(w.pi == want_pi);
	/* the owner must be one of the target's threads */
	futex_lock_wait(getpid(), &sc, tids + 1, tids + 1, 1, &w);
	CHECK(w.kind == LOCK_WAIT_FUTEX);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	pthread_mutex_destroy(&m);
}

static void test_live_cond(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct blocker b = {.m = &m, .c = &c};
	pthread_t t;
	pthread_create(&t, NULL, block_on_cond, &b);
	struct thread_syscall sc;
	CHECK(wait_in_futex(&b, &sc));
	pid_t tids[2] = {gettid_(), b.tid};
	struct lock_wait w;
	futex_lock_wait(getpid(), &sc, tids, tids, 2, &w);
	CHECK(w.kind == LOCK_WAIT_FUTEX);
	CHECK(w.owner == 0);
	pthread_mutex_lock(&m);
	b.done = true;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
}

int main(void)
{
	test_parse();
	test_ops();
	test_mutex_bytes();
	test_live_wait(PTHREAD_PRIO_NONE, false);
	test_live_wait(PTHREAD_PRIO_INHERIT, true);
	test_live_cond();
	return TEST_DONE();
}
