/* clr_threads: a .NET process's managed threads, managed thread id to OS thread id, read from
 * its memory through the runtime's own description of itself.
 *
 * Since .NET 9 libcoreclr.so exports DotNetRuntimeContractDescriptor (dotnet/runtime
 * docs/design/datacontracts/contract-descriptor.md): a magic "DNCCDAC\0", a JSON text giving
 * the offsets of the runtime's types' fields, and an array of global addresses.  The
 * ThreadStore global's thread list gives, for each Thread, its managed id (what
 * Environment.CurrentManagedThreadId and a System.Threading.Lock's owner field hold) and its
 * OS thread id.  Older runtimes have no descriptor: the map is then empty, and said so.
 */
#ifndef PC_CLR_THREADS_H
#define PC_CLR_THREADS_H

#include "base/util.h"
#include <sys/types.h>

struct clr_thread_id {
	uint32_t managed; /* the managed thread id */
	pid_t os;	  /* the OS thread id as the target sees it */
};

/* The threads of pid's runtime (read while the process is stopped).  Returns how many, 0
 * with *why set (malloc'd) when they cannot be known. */
size_t clr_threads_read(pid_t pid, struct clr_thread_id **out, char **why);

/* The JSON descriptor's field offset: types.TYPE.FIELD, given as N or [N,"type"]; -1 if
 * absent.  globals.NAME as [[index],"pointer"]: clr_descriptor_global() gives the index. */
long clr_descriptor_field(const char *json, const char *type, const char *field);
long clr_descriptor_global(const char *json, const char *name);

#endif
