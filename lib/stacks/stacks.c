/* stacks: see stacks.h.  The order matters: /proc is read while the threads still sleep
 * where they hung (stopping a thread wakes it out of its syscall, and its kernel stack then
 * shows the ptrace stop instead); memory and registers are read while all are stopped;
 * symbols are looked up after the threads run again. */
#include "stacks.h"

#include "base/proc.h"
#include "base/proc_maps.h"
#include "base/safe_open.h"
#include "clr_locks.h"
#include "clr_threads.h"
#include "dotnet/dotnet_ipc.h"
#include "dotnet/dotnet_borrow.h"
#include "dotnet/dotnet_guard.h"
#include "stacks_unwind.h"
#include "symbols/dso.h"
#include "symbols/symbols_jit.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

#define MAX_USER_FRAMES	  256
#define MAX_KERNEL_FRAMES 128
#define MAX_ATTACH_PASSES 50
/* A thread in uninterruptible sleep (D) cannot stop until it wakes; do not wait forever. */
#define STOP_TIMEOUT_NS (2ull * 1000 * 1000 * 1000)
/* The longest the threads stay stopped in all: past it the rest are resumed not unwound. */
#define STOPPED_MAX_NS (10ull * 1000 * 1000 * 1000)
/* The largest separate debug file read for names and lines. */
#define DEBUG_FILE_MAX (4ull << 30)

/* Per-thread tracing state, parallel to snapshot->threads. */
struct traced {
	bool seized, stopped, gone;
	int pending_sig;	 /* a signal-delivery stop we must hand back on detach */
	struct thread_copy copy; /* registers and stack, read while stopped */
	bool copied;
	struct unwind_frame *frames; /* unwound from the copy once running again */
	size_t nframes;
};

/* ---- /proc while the threads still sleep ---- */

size_t stacks_parse_kernel_stack(char *text, struct stack_frame **frames)
{
	size_t cap = 0, n = 0;
	*frames = NULL;
	for (char *line = strtok(text, "\n"); line && n < MAX_KERNEL_FRAMES;
	     line = strtok(NULL, "\n")) {
		/* "[<0>] anon_pipe_read+0x366/0x410" or "... func+0x1/0x2 [module]" */
		char *p = line;
		if (*p == '[') {
			char *close = strstr(p, "] ");
			if (!close)
				continue;
			p = close + 2;
		}
		if (!*p)
			continue;
		char *mod = NULL;
		char *sp = strchr(p, ' ');
		if (sp) {
			*sp = 0;
			char *m = sp + 1;
			size_t ml = strlen(m);
			if (ml >= 2 && m[0] == '[' && m[ml - 1] == ']')
				mod = xstrndup(m + 1, ml - 2);
		}
		grow_array((void **)frames, &cap, n + 1, sizeof(**frames));
		struct stack_frame *f = &(*frames)[n++];
		memset(f, 0, sizeof(*f));
		f->text = xstrdup(p);
		f->module = mod;
	}
	return n;
}

/* Everything /proc says about one thread; returns false when it is gone. */
static bool read_thread_proc(pid_t pid, struct thread_stack *ts, bool kernel, char **kernel_note)
{
	struct proc_stat ps;
	if (proc_task_stat(pid, ts->tid, &ps) < 0)
		return false;
	ts->state = ps.state;
	proc_comm(pid, ts->tid, ts->comm, sizeof(ts->comm));
	proc_task_line(pid, ts->tid, TASK_WCHAN, ts->wchan, sizeof(ts->wchan));
	if (!strcmp(ts->wchan, "0"))
		ts->wchan[0] = 0;
	thread_syscall_read(pid, ts->tid, &ts->syscall);
	struct proc_status st;
	ts->nstid = proc_status(ts->tid, &st) == 0 ? st.nspid : ts->tid;
	if (!kernel || *kernel_note)
		return true;
	char *text = proc_task_read(pid, ts->tid, TASK_STACK, NULL);
	if (!text) {
		if (errno == EACCES || errno == EPERM)
			*kernel_note =
			    xstrdup("kernel stacks need root (/proc/<pid>/task/<tid>/stack)");
		else if (errno == ENOENT && proc_exists(pid))
			*kernel_note = xstrdup("this kernel has no /proc/<pid>/task/<tid>/stack "
					       "(CONFIG_STACKTRACE)");
		return true;
	}
	ts->nkframes = stacks_parse_kernel_stack(text, &ts->kframes);
	free(text);
	return true;
}

/* ---- stopping and resuming ---- */

static bool has_tid(const struct stacks_snapshot *s, pid_t tid)
{
	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return true;
	return false;
}

static int seize(pid_t pid, struct thread_stack *ts, struct traced *tr, bool first)
{
	/* A zombie (a leader that called pthread_exit) never reports a stop. */
	if (ts->state == 'Z' || ts->state == 'X') {
		tr->gone = true;
		return 0;
	}
	if (ptrace(PTRACE_SEIZE, ts->tid, NULL, NULL) < 0) {
		if (errno == ESRCH) {
			tr->gone = true;
			return 0;
		}
		if (first)
			return pc_err("cannot stop PID %d with ptrace: %s%s", (int)pid,
				      strerror(errno),
				      errno == EPERM ? " (needs root or CAP_SYS_PTRACE)" : "");
		ts->user_error = xasprintf("cannot stop it: %s", strerror(errno));
		return 0;
	}
	tr->seized = true;
	if (ptrace(PTRACE_INTERRUPT, ts->tid, NULL, NULL) < 0 && errno == ESRCH)
		tr->gone = true;
	return 0;
}

static void wait_for_stops(struct stacks_snapshot *s, struct traced *tr, uint64_t deadline)
{
	for (;;) {
		bool waiting = false;
		for (size_t i = 0; i < s->nthreads; i++) {
			if (!tr[i].seized || tr[i].stopped || tr[i].gone)
				continue;
			int st;
			pid_t r = waitpid(s->threads[i].tid, &st, __WALL | WNOHANG);
			if (r == s->threads[i].tid && WIFSTOPPED(st)) {
				tr[i].stopped = true;
				/* event 0 is a signal-delivery stop: the signal is ours to pass on
				 */
				if ((st >> 16) == 0)
					tr[i].pending_sig = WSTOPSIG(st);
			} else if (r < 0 || (r > 0 && (WIFEXITED(st) || WIFSIGNALED(st)))) {
				tr[i].gone = true;
			} else {
				waiting = true;
			}
		}
		if (!waiting || monotonic_ns() >= deadline)
			return;
		struct timespec tick = {0, 500 * 1000};
		nanosleep(&tick, NULL);
	}
}

/* Finds the threads, reads /proc for each while it sleeps, then stops it.  Threads born
 * meanwhile are picked up in the next pass; stopped threads cannot create more. */
static int stop_all(struct stacks_snapshot *s, struct traced **trp, bool kernel,
		    uint64_t *stop_start)
{
	size_t cap = 0, trcap = 0;
	struct traced *tr = NULL;
	uint64_t deadline = 0;
	bool any_seized = false;
	for (int pass = 0; pass < MAX_ATTACH_PASSES; pass++) {
		pid_t *tids;
		size_t n;
		if (proc_threads(s->pid, &tids, &n) < 0) {
			if (pass == 0)
				goto fail;
			break;
		}
		size_t first_new = s->nthreads;
		for (size_t i = 0; i < n; i++) {
			if (has_tid(s, tids[i]))
				continue;
			grow_array((void **)&s->threads, &cap, s->nthreads + 1,
				   sizeof(*s->threads));
			struct thread_stack *ts = &s->threads[s->nthreads];
			memset(ts, 0, sizeof(*ts));
			ts->tid = tids[i];
			if (read_thread_proc(s->pid, ts, kernel, &s->kernel_note))
				s->nthreads++;
			else
				free(ts->kframes);
		}
		free(tids);
		if (s->nthreads == first_new)
			break;
		grow_array((void **)&tr, &trcap, s->nthreads, sizeof(*tr));
		memset(tr + first_new, 0, (s->nthreads - first_new) * sizeof(*tr));
		if (pass == 0) {
			*stop_start = monotonic_ns();
			deadline = *stop_start + STOP_TIMEOUT_NS;
		}
		for (size_t i = first_new; i < s->nthreads; i++) {
			/* Until one thread is ours, a refusal is about the whole process. */
			if (seize(s->pid, &s->threads[i], &tr[i], !any_seized) < 0)
				goto fail;
			any_seized |= tr[i].seized;
		}
		wait_for_stops(s, tr, deadline);
	}
	if (!tr)
		tr = xcalloc(1, sizeof(*tr));
	*trp = tr;
	return 0;
fail:
	*trp = tr;
	return -1;
}

static void resume_all(struct stacks_snapshot *s, struct traced *tr)
{
	for (size_t i = 0; i < s->nthreads; i++) {
		if (!tr[i].seized || tr[i].gone)
			continue;
		/* A thread that never stopped (uninterruptible sleep) cannot be detached now;
		 * the kernel detaches it when we exit, and it runs on. */
		ptrace(PTRACE_DETACH, s->threads[i].tid, NULL,
		       (void *)(uintptr_t)tr[i].pending_sig);
		tr[i].seized = false;
	}
}

/* ---- unwinding (stacks_unwind.h), naming with libdw ---- */

/* What the find_elf callback needs; reached through each module's userdata. */
struct target {
	pid_t pid;
	uid_t uid;
	struct stacks_unwinder *u;
};

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	const struct target *t = *userdata;
	if (!t || name[0] != '/')
		return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	Dwarf_Addr low;
	dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
	int fd = stacks_open_mapped(t->u, name, low);
	if (fd < 0)
		return -1;
	*file_name = xstrdup(name);
	return fd;
}

/* A module's separate debug file, for names and lines once the threads run again: by its
 * debuglink name or build-id inside the target's root, walked without following a symlink
 * and opened only when a regular file (a FIFO there hung stacks, a symlink made root open a
 * host file), else the host's own by build-id; used only with the module's very build-id.
 * Never the network (libdw's standard finder asks debuginfod). */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const struct target *t = *userdata;
	const unsigned char *id;
	GElf_Addr vaddr;
	int idlen = dwfl_module_build_id(mod, &id, &vaddr);
	if (!t || !modname || modname[0] != '/' || idlen <= 0)
		return -1;
	char *p;
	int fd = -1;
	for (size_t i = 0; fd < 0 && (p = dso_debug_path(i, modname, debuglink_file, id, idlen));
	     i++) {
		fd = safe_open_binary_in_root(t->pid, p, t->uid, DEBUG_FILE_MAX);
		if (fd < 0 && str_startswith(p, "/usr/lib/debug/.build-id/"))
			fd = open_file_in_root(NULL, p);
		if (fd >= 0 && dso_check_file(fd, SYMFILE_DEBUG, id, idlen) < 0) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0)
			*debuginfo_file_name = xstrdup(p);
		free(p);
	}
	return fd;
}

static int set_module_target(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
			     void *arg)
{
	*userdata = arg;
	return DWARF_CB_OK;
}

static char *dwfl_error_text(void)
{
	const char *msg = dwfl_errmsg(-1);
	return xstrdup(msg && *msg ? msg : "unknown libdw error");
}

/* Ctrl+C (or SIGTERM, SIGHUP) came while they are blocked: resume the target at once. */
static bool interrupted(void)
{
	sigset_t pending;
	return sigpending(&pending) == 0 &&
	       (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
		sigismember(&pending, SIGHUP));
}

/* While the threads are stopped: each one's registers and stack, no longer than
 * STOPPED_MAX_NS from the stop's start, and none once Ctrl+C is pending. */
static void copy_all(struct stacks_unwinder *u, struct stacks_snapshot *s, struct traced *tr,
		     uint64_t stop_start)
{
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread_stack *ts = &s->threads[i];
		const char *cut = interrupted() ? "not unwound: interrupted"
				  : monotonic_ns() - stop_start > STOPPED_MAX_NS
				      ? "not unwound: the target was resumed after 10 s stopped"
				      : NULL;
		if (cut) {
			if (!ts->user_error)
				ts->user_error = xstrdup(cut);
			continue;
		}
		if (!tr[i].stopped || tr[i].gone) {
			if (!ts->user_error)
				ts->user_error = xstrdup(tr[i].gone ? "exited during the snapshot"
								    : "did not stop within 2 s "
								      "(uninterruptible sleep?)");
			continue;
		}
		char *why = NULL;
		tr[i].copied = stacks_copy_thread(u, ts->tid, &tr[i].copy, &why) == 0;
		if (why && !ts->user_error)
			ts->user_error = why;
		else
			free(why);
	}
}

/* Once they run again: the frames of each copy. */
static void unwind_all(struct stacks_unwinder *u, struct stacks_snapshot *s, struct traced *tr)
{
	for (size_t i = 0; i < s->nthreads; i++) {
		if (!tr[i].copied)
			continue;
		tr[i].frames = xcalloc(MAX_USER_FRAMES, sizeof(*tr[i].frames));
		tr[i].nframes = stacks_unwind(u, &tr[i].copy, tr[i].frames, MAX_USER_FRAMES);
		stacks_copy_free(&tr[i].copy);
		tr[i].copied = false;
	}
}

/* ---- naming the frames ---- */

static char *srcline_of(Dwfl_Module *mod, Dwarf_Addr addr)
{
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	if (!line)
		return NULL;
	int lineno = 0;
	const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	if (!file || lineno <= 0)
		return NULL;
	const char *base = strrchr(file, '/');
	return xasprintf("%s:%d", base ? base + 1 : file, lineno);
}

/* A .NET method as its runtime names it in maps, "void [pc-hang-app] Program::TakeAB()",
 * becomes "Program.TakeAB()" in module "pc-hang-app", as C# developers write it (and as
 * dotnet-stack shows it); anything else (stubs, other JITs) is kept as it is. */
static void managed_name(const char *raw, char **text, char **module)
{
	const char *open = strstr(raw, " [");
	const char *close = open ? strstr(open + 2, "] ") : NULL;
	const char *colons = close ? strstr(close + 2, "::") : NULL;
	if (!colons || memchr(open + 2, ' ', close - open - 2)) {
		*text = xstrdup(raw);
		return;
	}
	*module = xstrndup(open + 2, close - open - 2);
	const char *name = close + 2;
	*text = xasprintf("%.*s.%s", (int)(colons - name), name, colons + 2);
}

static void name_frame(Dwfl *dwfl, struct jit_proc *jp, const char *jit_dso, uint64_t now,
		       uint64_t pc, bool activation, struct stack_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->pc = pc;
	/* A return address points after the call; look up the call itself. */
	Dwarf_Addr at = activation || pc == 0 ? pc : pc - 1;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, at);
	const char *sym = NULL;
	GElf_Off off = 0;
	if (mod) {
		const char *mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		if (mname)
			f->module = xstrdup(str_startswith(mname, "[vdso") ? "[vdso]" : mname);
		GElf_Sym elfsym;
		sym = dwfl_module_addrinfo(mod, at, &off, &elfsym, NULL, NULL, NULL);
		if (sym)
			f->srcline = srcline_of(mod, at);
	}
	uint64_t start;
	const char *jit = !sym && jp ? jit_proc_lookup_start(jp, at, now, &start) : NULL;
	if (jit) {
		char *text = NULL, *module = NULL;
		managed_name(jit, &text, &module);
		free(f->module);
		f->module = module ? module : xstrdup(jit_dso);
		f->text = xasprintf("%s+0x%" PRIx64, text, pc - start);
		f->jit = true;
		free(text);
		return;
	}
	if (!sym)
		return;
	char *demangled = NULL;
#ifdef HAVE_LIBIBERTY
	if (sym[0] == '_' && sym[1] == 'Z')
		demangled = cplus_demangle(sym, DMGL_NO_OPTS);
#endif
	f->text =
	    xasprintf("%s+0x%" PRIx64, demangled ? demangled : sym, (uint64_t)(off + (pc - at)));
	free(demangled);
}

/* Code no ELF file names: anonymous executable memory, the runtime's double-mapped code
 * (/memfd:doublemapper) and .NET images (ReadyToRun code in *.dll). */
static bool jit_like(const struct stack_frame *f)
{
	return !f->text &&
	       (!f->module || str_startswith(f->module, "/memfd:") ||
		str_endswith(f->module, ".dll") || str_endswith(f->module, ".dll (deleted)"));
}

/* The jitdump a process writes is mmapped by it (perf's marker): its path as it sees it. */
static char *mapped_jitdump(pid_t pid, pid_t nspid)
{
	char want[48];
	snprintf(want, sizeof(want), "/jit-%d.dump", (int)nspid);
	struct proc_maps *m = proc_maps_open(pid);
	char *found = NULL;
	for (struct proc_map map; !found && m && proc_maps_next(m, &map);)
		if (map.path[0] == '/' && str_endswith(map.path, want))
			found = xstrdup(map.path);
	proc_maps_close(m);
	return found;
}

static void name_all(Dwfl *dwfl, struct stacks_snapshot *s, struct traced *tr,
		     const struct dotnet_borrowed *dm)
{
	struct jit_procs *jit = jit_procs_new(NULL, true);
	struct jit_proc *jp = jit_procs_get(jit, (uint32_t)s->pid);
	if (dm->dir)
		jp->map_dir = xstrdup(dm->dir);
	jp->jitdump_hint = mapped_jitdump(s->pid, s->nspid);
	jit_proc_load(jit, jp);
	/* JIT code that is not .NET's is in the map "(/tmp/perf-<nspid>.map)", as perf says */
	enum jit_file_kind named_by = jp->found[JIT_PERF_MAP] ? JIT_PERF_MAP : JIT_DUMP;
	const char *jit_dso = jp->found[named_by] && jp->src[named_by].root_pid
				  ? jp->src[named_by].path
				  : jp->dso_name;
	uint64_t now = monotonic_ns();
	size_t jit_frames = 0;
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread_stack *ts = &s->threads[i];
		if (!tr[i].nframes)
			continue;
		ts->uframes = xcalloc(tr[i].nframes, sizeof(*ts->uframes));
		for (size_t j = 0; j < tr[i].nframes; j++) {
			struct stack_frame *f = &ts->uframes[j];
			name_frame(dwfl, jp, jit_dso, now, tr[i].frames[j].pc,
				   tr[i].frames[j].exact, f);
			jit_frames += f->jit;
			s->unnamed_jit += jit_like(f);
		}
		ts->nuframes = tr[i].nframes;
	}
	/* Which files named them, and why others stayed unnamed. */
	char *used = NULL;
	for (int k = 0; k < 3; k++) {
		if (!jp->found[k] || k == JIT_PERFINFO_MAP)
			continue;
		/* named as the target sees it: /tmp/perf-1.map in a container is its own */
		char *more = xasprintf("%s%s%s", used ? used : "", used ? " and " : "",
				       jp->src[k].root_pid ? jp->src[k].path : jp->found[k]);
		free(used);
		used = more;
	}
	if (used && jit_frames)
		s->jit_files = used;
	else
		free(used);
	for (int k = 0; k < 3 && !s->jit_note; k++)
		if (jp->why[k] && str_startswith(jp->why[k], "refused: "))
			s->jit_note =
			    xasprintf("%s: not using %s", k == JIT_DUMP ? "Jitdump" : "Perf map",
				      jp->why[k] + strlen("refused: "));
	jit_procs_free(jit);
}

/* ---- the snapshot ---- */

static int cmp_thread(const void *a, const void *b)
{
	const struct thread_stack *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Threads in a futex wait that is no pthread mutex: a .NET Monitor, or Lock? */
static void find_monitor_waits(struct stacks_snapshot *s, const pid_t *nstids)
{
	struct clr_thread_id *ids;
	char *why;
	size_t nids = clr_threads_read(s->pid, &ids, &why);
	s->managed_ids_note = why;
	struct clr_scan *c = clr_scan_new(s->pid, nstids, s->nthreads, ids, nids);
	free(ids);
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread_stack *ts = &s->threads[i];
		if (ts->wait.kind != LOCK_WAIT_FUTEX)
			continue;
		struct clr_monitor_wait w;
		clr_scan_thread(c, ts->nstid, ts->syscall.sp, &w);
		if (!w.found)
			continue;
		pid_t owner = 0;
		for (size_t j = 0; j < s->nthreads && !owner; j++)
			if (nstids[j] == w.owner_ns)
				owner = s->threads[j].tid;
		ts->wait = (struct lock_wait){
		    .kind = LOCK_WAIT_MONITOR,
		    .managed_lock = w.managed_lock,
		    .addr = w.lock,
		    .object = w.object,
		    .owner = owner,
		    .owner_ns = w.owner_ns,
		};
	}
	clr_scan_free(c);
}

static void find_lock_waits(struct stacks_snapshot *s, bool dotnet)
{
	pid_t *tids = xcalloc(s->nthreads, sizeof(*tids));
	pid_t *nstids = xcalloc(s->nthreads, sizeof(*nstids));
	for (size_t i = 0; i < s->nthreads; i++) {
		tids[i] = s->threads[i].tid;
		nstids[i] = s->threads[i].nstid;
	}
	for (size_t i = 0; i < s->nthreads; i++)
		futex_lock_wait(s->pid, &s->threads[i].syscall, tids, nstids, s->nthreads,
				&s->threads[i].wait);
	if (dotnet)
		find_monitor_waits(s, nstids);
	free(tids);
	free(nstids);
}

/* A System.Threading.Lock found on a stack counts only where the thread is in Lock's code
 * (when frames are named at all): a managed object that merely looks like one does not. */
static void confirm_managed_locks(struct stacks_snapshot *s)
{
	for (size_t i = 0; i < s->nthreads; i++) {
		struct thread_stack *ts = &s->threads[i];
		if (ts->wait.kind != LOCK_WAIT_MONITOR || !ts->wait.managed_lock)
			continue;
		bool named = false, in_lock = false;
		for (size_t j = 0; j < ts->nuframes; j++) {
			named |= ts->uframes[j].jit;
			in_lock |= ts->uframes[j].jit && ts->uframes[j].text &&
				   str_startswith(ts->uframes[j].text, "System.Threading.Lock.");
		}
		if (named && !in_lock)
			ts->wait = (struct lock_wait){.kind = LOCK_WAIT_FUTEX,
						      .addr = ts->syscall.args[0]};
	}
}

static Dwfl *open_dwfl(struct stacks_snapshot *s, struct target *t, char **why)
{
	static char *debuginfo_path;
	static const Dwfl_Callbacks callbacks = {
	    .find_elf = find_elf,
	    .find_debuginfo = find_debuginfo,
	    .debuginfo_path = &debuginfo_path,
	};
	Dwfl *dwfl = dwfl_begin(&callbacks);
	if (!dwfl) {
		*why = dwfl_error_text();
		return NULL;
	}
	dwfl_report_begin(dwfl);
	int r = dwfl_linux_proc_report(dwfl, s->pid);
	dwfl_report_end(dwfl, NULL, NULL);
	if (r != 0) {
		*why = r > 0 ? xasprintf("cannot read /proc/%d/maps: %s", (int)s->pid, strerror(r))
			     : dwfl_error_text();
		dwfl_end(dwfl);
		return NULL;
	}
	dwfl_getmodules(dwfl, set_module_target, t, 0);
	return dwfl;
}

static void free_traced(struct traced *tr, size_t n)
{
	for (size_t i = 0; tr && i < n; i++) {
		stacks_copy_free(&tr[i].copy);
		free(tr[i].frames);
	}
	free(tr);
}

struct stacks_snapshot *stacks_snapshot_take(pid_t pid, const struct stacks_opts *o)
{
	uint64_t t0 = monotonic_ns();
	struct proc_status st;
	if (pid <= 0 || !proc_exists(pid) || proc_status(pid, &st) < 0) {
		pc_err("no process with PID %d", (int)pid);
		return NULL;
	}
	if (st.tgid != pid) {
		pc_err("%d is a thread of process %d; use -pid %d", (int)pid, (int)st.tgid,
		       (int)st.tgid);
		return NULL;
	}
	if (pid == getpid()) {
		pc_err("cannot take a snapshot of perfcollect-c itself");
		return NULL;
	}
	/* Pinned before anything takes time (the runtime's IPC may take seconds): the pid must
	 * still name this process when its threads are stopped. */
	struct proc_pin pin;
	if (proc_pin(pid, &pin) < 0)
		return NULL;
	struct stacks_snapshot *s = xcalloc(1, sizeof(*s));
	s->pid = pid;
	s->nspid = st.nspid;
	proc_comm(pid, pid, s->comm, sizeof(s->comm));
	struct target t = {.pid = pid, .uid = st.uid};

	/* Managed frames are named from the runtime's maps: they must be written before the
	 * threads stop (the runtime answers from them). */
	struct dotnet_borrowed dm = {.tmp_fd = -1};
	/* What we ask of the runtime is undone by the guard if we are killed before we do. */
	struct dotnet_guard *guard =
	    o->dotnet && dotnet_runtime_present(pid) ? dotnet_guard_start() : NULL;
	if (guard) {
		dotnet_borrow_maps(pid, o->ipc_timeout_ms ? o->ipc_timeout_ms : 2000, guard, &dm);
	} else {
		dm.runtime = dotnet_runtime_present(pid);
		if (dm.runtime && o->dotnet)
			dm.why = xasprintf("its runtime was not asked for perf maps: no guard to "
					   "undo that if we were killed (%s)",
					   pc_strerror());
	}

	/* Ctrl+C while the target is stopped would leave it missing any signal we hold. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);

	struct traced *tr = NULL;
	uint64_t stop_start = 0;
	int r = proc_pin_alive(&pin)
		    ? stop_all(s, &tr, o->kernel, &stop_start)
		    : pc_err("PID %d exited before its threads were stopped (its pid "
			     "may name another process now): nothing was stopped",
			     (int)pid);
	if (r == 0 && !proc_pin_alive(&pin)) /* it exited meanwhile: let them go unread */
		r = pc_err("PID %d exited while its threads were being stopped: the threads "
			   "stopped were let go, no snapshot taken",
			   (int)pid);
	s->have_kernel = o->kernel && !s->kernel_note;
	Dwfl *dwfl = NULL;
	if (r == 0) {
		find_lock_waits(s, dm.runtime);
		/* The mappings as they are while stopped; registers and stacks copied. */
		char *why = NULL;
		t.u = stacks_unwinder_new(pid, st.uid);
		if (t.u) {
			copy_all(t.u, s, tr, stop_start);
			dwfl = open_dwfl(s, &t, &why);
		} else {
			why = xstrdup(pc_strerror());
		}
		for (size_t i = 0; why && i < s->nthreads; i++)
			if (!s->threads[i].user_error)
				s->threads[i].user_error = xstrdup(why);
		free(why);
	}
	resume_all(s, tr);
	s->stopped_ns = stop_start ? monotonic_ns() - stop_start : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	/* Unwinding and naming work on the copies: the process runs meanwhile. */
	if (r == 0 && t.u)
		unwind_all(t.u, s, tr);
	if (r == 0 && dwfl) {
		name_all(dwfl, s, tr, &dm);
		confirm_managed_locks(s);
	}
	/* gone: nothing to ask, and the pid may be another's; our directory still goes */
	dotnet_return_maps(pid, &dm, proc_pin_alive(&pin));
	dotnet_guard_finish(guard);
	s->dotnet = dm.runtime;
	if (dm.why)
		s->dotnet_note = xstrdup(dm.why);
	else if (dm.runtime && !o->dotnet && !dm.dir)
		s->dotnet_note =
		    xstrdup("asking its runtime for perf maps was turned off (-nodotnetipc)");
	if (dm.done)
		s->dotnet_done = xstrdup(dm.done);
	dotnet_borrowed_free(&dm);
	if (dwfl)
		dwfl_end(dwfl);
	free_traced(tr, s->nthreads);
	stacks_unwinder_free(t.u);
	proc_pin_release(&pin);
	if (r < 0) {
		stacks_snapshot_free(s);
		return NULL;
	}
	qsort(s->threads, s->nthreads, sizeof(*s->threads), cmp_thread);
	s->total_ns = monotonic_ns() - t0;
	return s;
}

void stacks_free_frames(struct stack_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].text);
		free(f[i].module);
		free(f[i].srcline);
	}
	free(f);
}

void stacks_snapshot_free(struct stacks_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nthreads; i++) {
		stacks_free_frames(s->threads[i].kframes, s->threads[i].nkframes);
		stacks_free_frames(s->threads[i].uframes, s->threads[i].nuframes);
		free(s->threads[i].user_error);
	}
	free(s->threads);
	free(s->kernel_note);
	free(s->jit_files);
	free(s->jit_note);
	free(s->dotnet_note);
	free(s->dotnet_done);
	free(s->managed_ids_note);
	free(s);
}

const struct thread_stack *stacks_find_thread(const struct stacks_snapshot *s, pid_t tid)
{
	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	return NULL;
}
