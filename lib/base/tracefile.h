/* tracefile: a trace's files, for every command that takes or makes them (collect, merge,
 * view, stacks): what an input is by its first bytes, what a trace's files are called
 * beside each other, and the claim on a <name>.trace directory a collector writes into.
 *
 * A trace named NAME in DIR is DIR/NAME.trace (the directory a collection records into,
 * locked while it does and marked with TRACEDIR_MARKER), DIR/NAME.trace.zip (perfcollect's
 * archive, its entries under NAME.trace/) and DIR/NAME.nettrace (one file for PerfView).
 */
#ifndef PC_TRACEFILE_H
#define PC_TRACEFILE_H

#include "util.h"

#define TRACE_DIR_SUFFIX      ".trace"
#define TRACE_ZIP_SUFFIX      ".trace.zip"
#define TRACE_NETTRACE_SUFFIX ".nettrace"
/* In a <name>.trace directory while a collector writes it (tracedir_claim()). */
#define TRACEDIR_MARKER ".perfcollect-collecting"

enum tracefile_kind {
	TRACEFILE_OTHER,     /* none of these: text (perf.data.txt, perf script's) or garbage */
	TRACEFILE_EMPTY,     /* a file of 0 bytes */
	TRACEFILE_DIR,	     /* a directory (a <name>.trace) */
	TRACEFILE_PERF_DATA, /* "PERFILE2" in either byte order (perf's pipe mode too) */
	TRACEFILE_ZIP,	     /* "PK\3\4": a trace.zip, or any zip */
	TRACEFILE_NETTRACE,  /* EventPipe's NetTrace format: "Nettrace" (versions 4 to 6), or a
			      * .netperf's FastSerialization header (version 3) */
	/* A zip of NetTrace files without perf.data.txt or perf.data (PerfView's test inputs,
	 * a .nettrace zipped to be sent): told from a trace.zip by its entries, once open
	 * (archive_reader_kind(), archive.h). */
	TRACEFILE_NETTRACE_ZIP,
};

/* What the first len bytes of a file say it is (never TRACEFILE_DIR; a zip is
 * TRACEFILE_ZIP, whatever it holds). */
enum tracefile_kind tracefile_kind_of(const void *head, size_t len);
/* What path is: a directory, or a file by its first bytes (read without blocking on a
 * FIFO).  -1 with pc_err() when it cannot be opened. */
int tracefile_classify(const char *path, enum tracefile_kind *kind);

/* Is name (a path or an archive's entry) a NetTrace file's: "*.nettrace" or "*.netperf"? */
bool tracefile_is_nettrace_name(const char *name);
/* Is name one of the runtime's streams a collection records beside perf.data,
 * "dotnet-<pid>[-<n>].nettrace" (its last component)? */
bool tracefile_is_runtime_stream(const char *name);

/* The trace's name in a path: its last component less ".trace.zip", ".zip", ".trace",
 * ".data", ".txt", ".nettrace" or ".netperf" ("dir/x.trace.zip", "x.trace/", "x.zip",
 * "x.nettrace" -> "x"; "perf.data" -> "perf"; "perf.data.txt" -> "perf.data"). */
char *tracefile_name(const char *path);
/* "<dir>/<name><suffix>" (dir NULL or "": "."). */
char *tracefile_path(const char *dir, const char *name, const char *suffix);
/* The NetTrace written beside an archive: x.trace.zip and x.zip -> x.nettrace; any other
 * name gets .nettrace added. */
char *tracefile_nettrace_beside(const char *zip);
/* An entry of archive zip in perfcollect's layout: "dir/x.trace.zip" and FILE ->
 * "x.trace/FILE" ("stacks.trace/FILE" for a name that leaves nothing). */
char *tracefile_entry(const char *zip, const char *file);

/* Claims a <name>.trace directory: locks it (lock_dir(): held while the returned fd is
 * open) and says whether a collector that did not finish left it (*left_over: its marker is
 * there).  -1 when a running collection holds it (*holder: its pid, 0 if unknown) or it
 * cannot be locked (*holder -1, pc_err() says why). */
int tracedir_claim(const char *dir, int *holder, bool *left_over);

#endif
