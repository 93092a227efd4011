/* Unit tests for the binary search: against a linear scan for every length up to 64, keys
 * below, between, on and above the elements, duplicates, and the range lookups its callers
 * make of it. */
#include "base/search.h"
#include "test.h"

#include <stdint.h>

struct range {
	uint64_t start, end;
};

static void test_against_scan(void)
{
	uint64_t v[64];
	for (size_t n = 0; n <= 64; n++) {
		for (size_t i = 0; i < n; i++)
			v[i] = 10 * (i / 2); /* each value twice: 0 0 10 10 20 20 ... */
		for (uint64_t key = 0; key <= 10 * 33; key++) {
			size_t scan = 0;
			while (scan < n && v[scan] < key)
				scan++;
			size_t lb = LOWER_BOUND(n, i, v[i] < key);
			if (lb != scan)
				fprintf(stderr, "n %zu key %llu: %zu, scan %zu\n", n,
					(unsigned long long)key, lb, scan);
			CHECK(lb == scan);
			size_t after = 0;
			while (after < n && v[after] <= key)
				after++;
			CHECK(LOWER_BOUND(n, i, v[i] <= key) == after);
		}
	}
}

/* The range holding addr, as machine.c, perfmap.c and universal.c find it. */
static const struct range *holding(const struct range *r, size_t n, uint64_t addr)
{
	size_t i = LOWER_BOUND(n, k, r[k].end <= addr);
	return i < n && r[i].start <= addr ? &r[i] : NULL;
}

static void test_ranges(void)
{
	static const struct range r[] = {{0x1000, 0x2000}, {0x2000, 0x2800}, {0x3000, 0x4000}};
	CHECK(holding(r, 3, 0xfff) == NULL);
	CHECK(holding(r, 3, 0x1000) == &r[0]);
	CHECK(holding(r, 3, 0x1fff) == &r[0]);
	CHECK(holding(r, 3, 0x2000) == &r[1]); /* ends are exclusive */
	CHECK(holding(r, 3, 0x2800) == NULL);  /* in the gap */
	CHECK(holding(r, 3, 0x3fff) == &r[2]);
	CHECK(holding(r, 3, 0x4000) == NULL);
	CHECK(holding(r, 0, 0x1000) == NULL);
	/* the argument is evaluated once, and the index variable is the caller's name */
	size_t calls = 0, n = 3;
	CHECK(LOWER_BOUND((calls++, n), idx, r[idx].start < 0x3000) == 2);
	CHECK_EQ_U64(calls, 1);
}

int main(void)
{
	test_against_scan();
	test_ranges();
	return TEST_DONE();
}
