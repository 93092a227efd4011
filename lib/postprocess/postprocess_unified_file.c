/* postprocess_unified_file: see postprocess_unified_file.h. */
#include "postprocess_unified_file.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* From the file's clock reading, else this boot's offset. */
int64_t unified_wall_clock_at(const struct unified_file *f, uint64_t t)
{
	int clockid;
	uint64_t wall, clk;
	if (perfdata_reader_clock_data(f->r, &clockid, &wall, &clk))
		return (int64_t)wall + ((int64_t)t - (int64_t)clk);
	struct timespec rt, mono;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	int64_t off = ((int64_t)rt.tv_sec - mono.tv_sec) * 1000000000 + (rt.tv_nsec - mono.tv_nsec);
	return off + (int64_t)t;
}

/* Every event is given one capture thread, the first row written: the events are in time
 * order, so the capture thread's sequence numbers go up by one from event to event and a
 * header names the capture thread only when the processor changes (3 bytes).  Each event's
 * own thread as its capture thread cost a sequence number delta, a row and the processor in
 * nearly every header of a system-wide trace, whose consecutive events are of different
 * threads (about 5 bytes more an event).  Readers use the capture thread for one thing, to
 * count the events lost between its sequence numbers. */
int unified_put_event(struct unified_file *f, uint32_t md, uint64_t thread, uint32_t cpu,
		      uint32_t stack, uint64_t t)
{
	if (!f->capture)
		f->capture = thread;
	struct nettrace_event_out e = {
	    .metadata_id = md,
	    .thread = thread,
	    .capture_thread = f->capture,
	    .cpu = cpu < f->ncpus ? cpu : 0,
	    .stack_id = stack,
	    .timestamp = t,
	    .sorted = true,
	    .payload = f->payload.data,
	    .payload_size = f->payload.len,
	};
	f->st.events++;
	return nettrace_writer_event(f->w, &e);
}

struct process *unified_process(struct unified_file *f, uint32_t pid)
{
	bool found;
	struct process **p = process_table_insert(&f->procs, pid, hash_mix(pid), &found);
	if (!found) {
		*p = xcalloc(1, sizeof(**p));
		(*p)->pid = pid;
	}
	return *p;
}

struct thread *unified_thread(struct unified_file *f, uint32_t tid)
{
	bool found;
	struct thread **t = thread_table_insert(&f->threads, tid, hash_mix(tid), &found);
	if (!found) {
		*t = xcalloc(1, sizeof(**t));
		(*t)->tid = tid;
		(*t)->pid = UINT32_MAX;
	}
	return *t;
}

int unified_process_event(struct unified_file *f, uint32_t pid, enum system_event ev,
			  uint64_t thread, uint32_t cpu, uint64_t t)
{
	f->payload.len = 0;
	bytebuf_varuint(&f->payload, pid);
	bytebuf_short_string(&f->payload, machine_comm(symbolizer_machine(f->sym), pid, pid));
	bytebuf_short_string(&f->payload, "");
	return unified_put_event(f, f->system_md[ev], thread, cpu, 0, t);
}

/* Thread rows are never removed from the file (no RemoveThread block), so readers keep them
 * all, a few dozen bytes each: TraceEvent (4.0.0, and its main branch today) carries out a
 * pending removal by the thread's OS thread id instead of its row index, so removing an
 * exited thread whose tid equals the index of a live row made that row unknown, and
 * TraceLog refused the whole file ("Reference to unknown thread index"), as it did a
 * 600 s system-wide trace.  A thread that exits gets a new row if it logs again. */
int unified_thread_row(struct unified_file *f, uint32_t pid, uint32_t tid, const char *comm,
		       uint32_t cpu, uint64_t t, uint64_t *index)
{
	struct thread *th = unified_thread(f, tid);
	if (th->index && (th->pid != pid || strcmp(th->comm, comm))) {
		/* a new row; the old one is left, not removed (see above) */
		th->index = 0;
		unified_process(f, th->pid)->live_rows--;
	}
	if (!th->index) {
		unified_process(f, pid)->live_rows++;
		struct nettrace_thread_info ti = {
		    .has_pid = true, .has_tid = true, .pid = pid, .tid = tid, .name = comm};
		th->index = nettrace_writer_add_thread(f->w, &ti);
		th->pid = pid;
		free(th->comm);
		th->comm = xstrdup(comm);
		f->st.threads++;
	}
	*index = th->index;
	struct process *p = unified_process(f, pid);
	if (p->emitted)
		return 0;
	p->emitted = true;
	f->st.processes++;
	return unified_process_event(f, pid, p->created ? PROCESS_CREATE : EXISTING_PROCESS,
				     th->index, cpu, t);
}

void unified_file_release(struct unified_file *f)
{
	struct thread **th;
	for (size_t i = 0; (th = thread_table_each(&f->threads, &i));) {
		free((*th)->comm);
		free((*th)->stack);
		free(*th);
	}
	struct process **p;
	for (size_t i = 0; (p = process_table_each(&f->procs, &i));)
		free(*p);
	thread_table_free(&f->threads);
	process_table_free(&f->procs);
	bytebuf_free(&f->payload);
}
