/* Unit tests for util: size and integer parsing as perfcollect's options need them. */
#include "base/util.h"
#include "test.h"

int main(void)
{
	uint64_t v;
	CHECK(parse_size("100", &v) == 0 && v == 100);
	CHECK(parse_size("4K", &v) == 0 && v == 4096);
	CHECK(parse_size("4kb", &v) == 0 && v == 4096);
	CHECK(parse_size("2M", &v) == 0 && v == 2u << 20);
	CHECK(parse_size("1G", &v) == 0 && v == 1u << 30);
	CHECK(parse_size("12B", &v) == 0 && v == 12);
	CHECK(parse_size("", &v) < 0);
	CHECK(parse_size("-1", &v) < 0);
	CHECK(parse_size("3X", &v) < 0);
	CHECK(parse_size("3MM", &v) < 0);
	CHECK(parse_size("99999999999999999999G", &v) < 0);
	long l;
	CHECK(parse_int("42", 0, 100, &l) == 0 && l == 42);
	CHECK(parse_int("101", 0, 100, &l) < 0);
	CHECK(parse_int("4x", 0, 100, &l) < 0);
	CHECK(str_endswith("a.trace.zip", ".trace.zip"));
	CHECK(!str_endswith("zip", ".trace.zip"));
	return TEST_DONE();
}
