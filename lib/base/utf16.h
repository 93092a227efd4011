/* utf16: UTF-16LE, as .NET writes its strings (NetTrace metadata, the diagnostics IPC), to and
 * from UTF-8, with one rule for bad input each way: a UTF-16 surrogate without its pair reads
 * as U+FFFD (the replacement character); UTF-8 that is not valid (a stray or missing
 * continuation byte, an overlong form, a surrogate, a value above U+10FFFF) is refused. */
#ifndef PC_UTF16_H
#define PC_UTF16_H

#include "bytebuf.h"
#include "span.h"

/* Appends s as UTF-16LE units to b, without a terminator; *units gets how many (a character
 * above U+FFFF takes two).  -1 with pc_err() naming the byte when s is not valid UTF-8; b is
 * then as it was. */
int utf16_from_utf8(struct bytebuf *b, const char *s, size_t *units);

/* The UTF-16LE units at p (up to `units` of them, or to a NUL unit) as a malloc'd UTF-8
 * string; never fails (allocation aside). */
char *utf16_to_utf8(const uint8_t *p, size_t units);

/* A NUL-terminated UTF-16LE string read from s, as UTF-8 (malloc'd); NULL, and s bad, when
 * no terminator is left in s. */
char *utf16z_take(struct span *s);

#endif
