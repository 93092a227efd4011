/* machine: the processes, threads, comms and memory maps that a stream of perf records
 * describes (COMM, FORK, EXIT, MMAP, MMAP2), as perf's `struct machine` keeps them:
 * a fork copies the parent's maps, a new mapping replaces the part of any older one it
 * overlaps.  An exec (COMM with PERF_RECORD_MISC_COMM_EXEC) keeps them as perf 6.1 does:
 * a sample taken inside execve() after the COMM still unwinds through the old image, and
 * perf script names those frames from the old maps.  Kernel maps
 * (pid -1 / misc KERNEL) are shared by all.
 */
#ifndef PC_MACHINE_H
#define PC_MACHINE_H

#include "perfdata/perfdata_read.h"

struct machine;

struct map {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;
	uint32_t prot, flags;
	uint32_t maj, min;
	uint64_t ino;
	uint8_t build_id[20]; /* from MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint8_t build_id_size;
	char *filename;
	void *dso; /* owned by the symbols layer; machine only stores it */
	bool hit;  /* a sample landed here (for the build-id feature) */
};

struct machine *machine_new(void);
void machine_free(struct machine *m);

/* Feed a non-sample record; unknown types are ignored. */
void machine_process(struct machine *m, const struct perfdata_record *rec);
/* The map covering addr in process pid (kernel maps when kernel is true); NULL if none. */
struct map *machine_find_map(struct machine *m, uint32_t pid, uint64_t addr, bool kernel);
/* The comm of a thread as perf shows it: the latest COMM before now, else the process's,
 * else ":<tid>". */
const char *machine_comm(struct machine *m, uint32_t pid, uint32_t tid);
/* The process of thread tid as the records said; false when the thread is unknown. */
bool machine_thread_pid(struct machine *m, uint32_t tid, uint32_t *pid);
/* Threads seen so far: calls fn for every map that was marked hit (build-id feature). */
void machine_foreach_hit_map(struct machine *m,
			     void (*fn)(void *arg, uint32_t pid, bool kernel,
					const struct map *map),
			     void *arg);
/* The same for one process's maps. */
void machine_foreach_hit_map_of(struct machine *m, uint32_t pid,
				void (*fn)(void *arg, uint32_t pid, bool kernel,
					   const struct map *map),
				void *arg);
/* Drops thread tid of process pid, and the process with its maps when tid is its leader:
 * for a recorder that must not grow with every process that ever ran (the symbolizer keeps
 * them, as perf does, for samples that arrive late). */
void machine_forget(struct machine *m, uint32_t pid, uint32_t tid);
/* From now on a process whose threads have all exited (EXIT records) has its maps freed
 * once the records' time is delay_ns past its last exit, so a long trace does not keep the
 * maps of every process that ever ran; a pid that comes back (FORK, COMM, MMAP) before then
 * keeps them.  Threads and names stay.  fn (may be NULL) is called with the pid when its
 * maps go: map pointers into them are then invalid. */
void machine_drop_exited(struct machine *m, uint64_t delay_ns, void (*fn)(void *arg, uint32_t pid),
			 void *arg);
/* Whether machine_drop_exited() dropped process pid's maps and no record has brought the pid
 * back since: no sample of it can follow (see the delay there). */
bool machine_process_ended(const struct machine *m, uint32_t pid);
/* Every pid that has been seen in any record. */
void machine_foreach_pid(struct machine *m, void (*fn)(void *arg, uint32_t pid), void *arg);

#endif
