/* search: the binary search of sorted arrays (ranges by address, entries by id).
 *
 * LOWER_BOUND(n, i, below) is the first index i in [0, n) for which `below`, an expression of
 * i, is false, and n when it holds for every one; the indexes where it holds must come first.
 * The usual keys: "v[i].end <= addr" gives the first range ending above addr (the one that
 * may hold addr), "v[i].start <= addr" one past the last range starting at or before it,
 * "v[i].id < id" where id is or would be inserted.  A macro so that the condition is inlined
 * (symbol lookups run it for every frame). */
#ifndef PC_SEARCH_H
#define PC_SEARCH_H

#include <stddef.h>

#define LOWER_BOUND(n, i, below)                                                                   \
	({                                                                                         \
		size_t lower_bound_lo_ = 0, lower_bound_hi_ = (n);                                 \
		while (lower_bound_lo_ < lower_bound_hi_) {                                        \
			size_t i = lower_bound_lo_ + (lower_bound_hi_ - lower_bound_lo_) / 2;      \
			if (below)                                                                 \
				lower_bound_lo_ = i + 1;                                           \
			else                                                                       \
				lower_bound_hi_ = i;                                               \
		}                                                                                  \
		lower_bound_lo_;                                                                   \
	})

#endif
