/* perfview_text: see perfview_text.h.  The reader's rules are those of TraceEvent's
 * LinuxPerfScriptEventParser (FindEndOfProcessCommand, ReadFrame), read from its source;
 * characters are its bytes cast to char, so 0x85 and 0xA0 count as whitespace too. */
#include "perfview_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool pv_space(unsigned char c)
{
	return (c >= '\t' && c <= '\r') || c == ' ' || c == 0x85 || c == 0xa0;
}

static bool pv_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Where the reader ends the process name in line s (which starts after the whitespace it
 * skips and ends with '\n'): the index of the whitespace before "PID/TID", or -1 when it
 * finds none on the line (it then stops reading the file).  A name that starts with a
 * digit, ':' or '-' takes special paths in the reader; they are followed here as written. */
static long find_end_of_command(const unsigned char *s)
{
	size_t idx = 0;
	unsigned char zero = s[0];
	long first_space;
	bool seen_digit;
start_over:
	first_space = -1;
	seen_digit = false;
	if (pv_digit(zero)) {
		first_space = 0;
		seen_digit = true;
	} else if (zero == ':' || zero == '-') {
		for (;; idx++) {
			if (s[idx] == '\n')
				return -1;
			if (pv_space(s[idx]))
				return (long)idx;
		}
	}
	for (;;) {
		idx++;
		unsigned char v = s[idx];
		if (v == '\n')
			return -1;
		if (first_space < 0) {
			if (!pv_space(v))
				goto start_over;
			first_space = (long)idx;
		} else if (!seen_digit) {
			if (pv_digit(v))
				seen_digit = true;
			else if (!pv_space(v))
				goto start_over;
		} else if (v == '/' && pv_digit(s[idx + 1])) {
			return first_space;
		} else if (!pv_digit(v)) {
			if (s[idx + 1] == '[')
				return first_space;
			if (!pv_space(v))
				goto start_over;
			first_space = (long)idx;
		}
	}
}

/* [*b, *e) of s without the reader's whitespace at either end. */
static void trim(const char *s, const char **b, const char **e)
{
	*b = s;
	*e = s + strlen(s);
	while (*b < *e && pv_space((unsigned char)**b))
		(*b)++;
	while (*e > *b && pv_space((unsigned char)(*e)[-1]))
		(*e)--;
}

bool perfview_comm_ok(const char *comm, int pid, int tid)
{
	/* The common case at once: no whitespace inside, not starting with a special. */
	const unsigned char *c = (const unsigned char *)comm;
	if (*c && !pv_digit(*c) && *c != ':' && *c != '-') {
		bool plain = true;
		for (const unsigned char *p = c; *p && plain; p++)
			plain = !pv_space(*p);
		if (plain)
			return true;
	}
	const char *b, *e;
	trim(comm, &b, &e);
	/* A negative pid ("-1/-1") misleads the reader whatever the name: judge the name. */
	char *line = xasprintf("%.*s %d/%d [000] 1.000000: \n", (int)(e - b), b, pid < 0 ? 0 : pid,
			       tid < 0 ? 0 : tid);
	long end = find_end_of_command((const unsigned char *)line);
	bool ok = end >= 0;
	if (ok) {
		const char *rb, *re;
		line[end] = 0;
		trim(line, &rb, &re);
		ok = re - rb == e - b && !memcmp(rb, b, (size_t)(e - b));
	}
	free(line);
	return ok;
}

char *perfview_comm(const char *comm, int pid, int tid, bool *renamed)
{
	*renamed = false;
	if (perfview_comm_ok(comm, pid, tid))
		return (char *)comm;
	*renamed = true;
	char *s = xstrdup(comm);
	for (char *p = s; *p; p++)
		if (pv_space((unsigned char)*p))
			*p = '_';
	if (perfview_comm_ok(s, pid, tid))
		return s;
	/* Still "12/3..." or "5x[": a name starting with digits. */
	for (char *p = s; *p; p++)
		if (*p == '/' || *p == '[')
			*p = '_';
	return s;
}

size_t perfview_dso_len(const char *dso)
{
	static const char deleted[] = " (deleted)";
	size_t n = strlen(dso), d = sizeof(deleted) - 1;
	return n > d && !memcmp(dso + n - d, deleted, d) ? n - d : n;
}
