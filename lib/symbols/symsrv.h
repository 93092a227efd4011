/* symsrv: symbol files fetched by build-id from symbol servers into the cache (symcache.h),
 * for ELF files that have no symbols here (the .NET runtime's own libraries ship stripped,
 * so do distributions' libraries), and binaries a machine that merges lacks.
 *
 * Servers, in the order asked:
 *   - every -symbolserver URL, in SSQP's layout (Microsoft's Simple Symbol Query Protocol:
 *     <url>/<key>, the keys symcache.h lists), for every file;
 *   - Microsoft's public server (https://msdl.microsoft.com/download/symbols, SSQP) for the
 *     .NET runtime's own files: libcoreclr.so, libclrjit.so, libSystem.*.so,
 *     libhostfxr.so, libhostpolicy.so, the dotnet host and the runtime's other libraries.
 *     PERFCOLLECT_C_MS_SYMBOL_SERVER replaces its URL; set empty, it is not asked;
 *   - every debuginfod server in DEBUGINFOD_URLS (space-separated; <url>/buildid/<id>/
 *     debuginfo and .../executable), for every file.
 * One file's candidates are asked one after the other (the first good answer ends it),
 * different files at once, and the whole fetch ends by a deadline (-symboltimeout).
 *
 * What arrives is untrusted: it is streamed into the cache under a temporary name (cut at
 * SYMSRV_MAX_BYTES; refused at its first bytes when they are not ELF), checked by the ELF
 * reader (dso_check_file(): the build-id must be the one asked for, a debug file must have
 * a .symtab), and only then renamed to its key.  A server without the file, one that sent a
 * wrong one, and one that could not be reached are remembered for a while (symcache.h), so
 * merging again does not ask again.
 */
#ifndef PC_SYMSRV_H
#define PC_SYMSRV_H

#include "symcache.h"

#define SYMSRV_DEFAULT_TIMEOUT_S 5.0  /* collect: stop -> zip waits at most this more */
#define SYMSRV_MERGE_TIMEOUT_S	 60.0 /* merge: asked for by a user who waits for it */
#define SYMSRV_MAX_BYTES	 (512ULL << 20)
#define SYMSRV_MS_URL		 "https://msdl.microsoft.com/download/symbols"

/* From the command line (collect, merge). */
struct symsrv_opts {
	const char **servers; /* -symbolserver URL (SSQP), repeatable */
	size_t nservers;
	bool off;	       /* -nosymbolserver: no request at all (caches are still read) */
	const char *cache_dir; /* -symbolcache DIR; NULL: symcache.h's default */
	double timeout_s;      /* -symboltimeout; 0: the caller's default */
};

/* One ELF file to name. */
struct symsrv_file {
	const char *path; /* as recorded: its name picks the servers and the keys */
	uint8_t build_id[20];
	size_t build_id_size;
	bool need_debug;  /* has no symbols of its own here, none cached */
	bool need_binary; /* no copy with this build-id here, none cached */
	/* Set by symsrv_fetch(): */
	bool got_debug, got_binary;
	char why[256]; /* why not, for the log */
};

/* -symboltimeout's value: seconds > 0, at most an hour.  -1 with pc_err(). */
int symsrv_parse_timeout(const char *s, double *out);

/* Fetches what files need into cache, by timeout_s from now (o->timeout_s, else
 * default_timeout_s).  Logs (perfcollect.log) each file fetched and one line naming the
 * files that stay without symbols and why.  With o->off, or no server for a file, nothing
 * is asked. */
void symsrv_fetch(const struct symsrv_opts *o, double default_timeout_s, struct symcache *cache,
		  struct symsrv_file *files, size_t n);

#endif
