/* postprocess_nettrace: the .NET runtime's event files of a trace directory
 * (dotnet-<pid>.nettrace, written by collect over EventPipe): found, checked with the
 * NetTrace reader (events, lost events, a stream cut short) into the log, and handed to the
 * archive as they are. */
#ifndef PC_POSTPROCESS_NETTRACE_H
#define PC_POSTPROCESS_NETTRACE_H

#include "base/util.h"

/* The names of dir's dotnet-*.nettrace files, sorted; *n of them (malloc'd, each and all). */
char **nettrace_files_find(const char *dir, size_t *n);
/* One log line per file: events, metadata, lost events, duration; a warning for a file
 * the reader cannot read to its end. */
void nettrace_files_log(const char *dir, char **names, size_t n);
void nettrace_files_free(char **names, size_t n);

#endif
