/* stacks_unwind: see stacks_unwind.h. */
#include "stacks_unwind.h"

#include "base/proc.h"
#include "base/proc_maps.h"
#include "base/search.h"
#include "unwind/unwind_tables.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>

struct vma {
	uint64_t start, end, pgoff;
	bool exec;
	char *name;		  /* "" for anonymous memory */
	struct unwind_tables *ut; /* file-backed code: read on first use */
	bool ut_tried;
};

struct stacks_unwinder {
	pid_t pid;
	uid_t uid;
	struct vma *vmas; /* in address order, as /proc/<pid>/maps lists them */
	size_t nvmas;
	struct unwind_tables *vdso;
	bool vdso_tried;
	struct unwind_memo *memo;
};

/* The largest library read for unwinding and symbols. */
#define MAPPED_FILE_MAX (4ull << 30)

static int read_maps(struct stacks_unwinder *u)
{
	struct proc_maps *m = proc_maps_open(u->pid);
	if (!m)
		return -1;
	size_t cap = 0;
	for (struct proc_map map; proc_maps_next(m, &map);) {
		grow_array((void **)&u->vmas, &cap, u->nvmas + 1, sizeof(*u->vmas));
		u->vmas[u->nvmas++] = (struct vma){
		    .start = map.start,
		    .end = map.end,
		    .pgoff = map.offset,
		    .exec = map.perms[2] == 'x',
		    .name = xstrdup(map.path),
		};
	}
	proc_maps_close(m);
	return 0;
}

struct stacks_unwinder *stacks_unwinder_new(pid_t pid, uid_t uid)
{
	struct stacks_unwinder *u = xcalloc(1, sizeof(*u));
	u->pid = pid;
	u->uid = uid;
	if (read_maps(u) < 0) {
		stacks_unwinder_free(u);
		return NULL;
	}
	u->memo = unwind_memo_new();
	return u;
}

void stacks_unwinder_free(struct stacks_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nvmas; i++) {
		free(u->vmas[i].name);
		/* tables are shared by the mappings of one file: freed with the first */
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = u->vmas[j].ut != u->vmas[i].ut;
		if (first)
			unwind_tables_free(u->vmas[i].ut);
	}
	free(u->vmas);
	unwind_tables_free(u->vdso);
	unwind_memo_free(u->memo);
	free(u);
}

static const struct vma *find_vma(const struct stacks_unwinder *u, uint64_t addr)
{
	size_t lo = LOWER_BOUND(u->nvmas, i, u->vmas[i].end <= addr);
	return lo < u->nvmas && u->vmas[lo].start <= addr ? &u->vmas[lo] : NULL;
}

int stacks_open_mapped(const struct stacks_unwinder *u, const char *name, uint64_t low)
{
	const struct vma *v = find_vma(u, low);
	struct proc_map map = {.start = low, .end = low, .path = name};
	if (v && v->start == low)
		map.end = v->end;
	return proc_map_open(u->pid, &map, u->uid, MAPPED_FILE_MAX);
}

/* The tables of the file a mapping maps; mappings of the same file (by name) share them. */
static const struct unwind_tables *vma_tables(struct stacks_unwinder *u, struct vma *v)
{
	if (v->ut_tried)
		return v->ut;
	v->ut_tried = true;
	if (v->name[0] != '/')
		return NULL;
	for (size_t i = 0; i < u->nvmas; i++) {
		struct vma *o = &u->vmas[i];
		if (o != v && o->ut_tried && o->ut && !strcmp(o->name, v->name)) {
			v->ut = o->ut;
			return v->ut;
		}
	}
	/* the file's first mapping (offset 0) is what map_files has for it */
	uint64_t low = v->start;
	for (size_t i = 0; i < u->nvmas; i++)
		if (!strcmp(u->vmas[i].name, v->name) && u->vmas[i].pgoff == 0) {
			low = u->vmas[i].start;
			break;
		}
	int fd = stacks_open_mapped(u, v->name, low);
	if (fd < 0)
		fd = stacks_open_mapped(u, v->name, v->start);
	if (fd < 0)
		return NULL;
	v->ut = unwind_tables_new_fd(fd);
	close(fd);
	return v->ut;
}

/* The vdso's, from our own: the same kernel's. */
static const struct unwind_tables *vdso_tables(struct stacks_unwinder *u)
{
	const void *image;
	size_t size;
	if (!u->vdso_tried && proc_self_vdso(&image, &size))
		u->vdso = unwind_tables_new_mem(image, size);
	u->vdso_tried = true;
	return u->vdso;
}

static enum unwind_rule_kind rule_at(void *arg, uint64_t pc, bool exact, struct unwind_rule *rule)
{
	struct stacks_unwinder *u = arg;
	const struct vma *cv = find_vma(u, exact ? pc : pc - 1);
	if (!cv || !cv->exec)
		return UNWIND_RULE_NONE;
	struct vma *v = &u->vmas[cv - u->vmas];
	const struct unwind_tables *ut =
	    !strcmp(v->name, "[vdso]") ? vdso_tables(u) : vma_tables(u, v);
	if (ut && unwind_memo_rule(u->memo, ut, pc - v->start + v->pgoff, exact, rule))
		return UNWIND_RULE_EXACT;
	unwind_rule_fp(rule);
	return UNWIND_RULE_FP;
}

int stacks_copy_thread(struct stacks_unwinder *u, pid_t tid, struct thread_copy *out, char **why)
{
	memset(out, 0, sizeof(*out));
	*why = NULL;
#ifdef __x86_64__
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &r) < 0) {
		*why = xasprintf("cannot read its registers: %s", strerror(errno));
		return -1;
	}
	const uint64_t v[UNWIND_NREGS] = {r.rax, r.rdx, r.rcx, r.rbx, r.rsi, r.rdi,
					  r.rbp, r.rsp, r.r8,  r.r9,  r.r10, r.r11,
					  r.r12, r.r13, r.r14, r.r15, r.rip};
	memcpy(out->regs.r, v, sizeof(v));
	out->regs.valid = (1u << UNWIND_NREGS) - 1;
	uint64_t sp = r.rsp;
	const struct vma *st = find_vma(u, sp);
	if (!st) {
		*why = xasprintf("its stack pointer %#" PRIx64 " is in no mapping", sp);
		return -1;
	}
	size_t want = st->end - sp < STACKS_COPY_MAX ? (size_t)(st->end - sp) : STACKS_COPY_MAX;
	uint8_t *data = xmalloc(want ? want : 1);
	struct iovec local = {data, want};
	struct iovec remote = {(void *)(uintptr_t)sp, want};
	ssize_t got = process_vm_readv(u->pid, &local, 1, &remote, 1, 0);
	if (got < 0) {
		*why = xasprintf("cannot read its stack: %s", strerror(errno));
		free(data);
		return -1;
	}
	out->stack = (struct unwind_stack){sp, data, (size_t)got};
	return 0;
#else
	*why = xstrdup("unwinding is only done on x86-64");
	return -1;
#endif
}

void stacks_copy_free(struct thread_copy *c)
{
	free((void *)c->stack.data);
	memset(c, 0, sizeof(*c));
}

size_t stacks_unwind(struct stacks_unwinder *u, const struct thread_copy *c,
		     struct unwind_frame *out, size_t max)
{
	struct unwind_result res;
	return unwind_stack(&c->regs, &c->stack, NULL, 0, rule_at, u, out, max, &res);
}
