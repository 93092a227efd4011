/* sched_switch: see sched_switch.h. */
#include "sched_switch.h"

#include <ctype.h>
#include <string.h>

/* The int after "key" at p (digits, optionally negative), up to a blank or the end. */
static bool field_int(const char *p, const char *key, int *out)
{
	p += strlen(key);
	bool neg = *p == '-';
	if (neg)
		p++;
	long long v = 0;
	int nd = 0;
	for (; isdigit((unsigned char)*p) && nd < 11; p++, nd++)
		v = v * 10 + (*p - '0');
	if (!nd || (*p && *p != ' ') || v > 0x7fffffffLL)
		return false;
	*out = (int)(neg ? -v : v);
	return true;
}

/* The last occurrence of needle in s, or NULL. */
static const char *last_strstr(const char *s, const char *needle)
{
	const char *last = NULL;
	for (const char *p = s; (p = strstr(p, needle)); p++)
		last = p;
	return last;
}

bool sched_state_blocked(const char *state)
{
	/* "R" and "R+" wait for a CPU, not for an event; "X" and "Z" never come back. */
	if (!*state || state[0] == 'R')
		return false;
	for (const char *p = state; *p; p++)
		if (*p == 'X' || *p == 'Z')
			return false;
	return true;
}

int sched_switch_parse(const char *trace, struct sched_switch *sw)
{
	memset(sw, 0, sizeof(*sw));
	/* The prev fields come first and the next ones last: a comm is at most 15 characters,
	 * so it cannot hide a whole field, and searching from either end finds the real one. */
	const char *pp = strstr(trace, " prev_pid="), *ps = strstr(trace, " prev_state=");
	const char *np = last_strstr(trace, " next_pid=");
	if (!pp || !ps || !np || ps < pp || np < ps)
		return -1;
	if (!field_int(pp, " prev_pid=", &sw->prev_pid) ||
	    !field_int(np, " next_pid=", &sw->next_pid))
		return -1;
	ps += strlen(" prev_state=");
	size_t n = strcspn(ps, " ");
	if (!n || n >= sizeof(sw->prev_state))
		return -1;
	memcpy(sw->prev_state, ps, n);
	sw->prev_state[n] = '\0';
	sw->blocked = sched_state_blocked(sw->prev_state);
	return 0;
}
