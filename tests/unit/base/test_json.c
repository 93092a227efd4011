/* Unit tests for json: strings valid as JSON whatever the bytes, safe inside an HTML
 * <script> with JSON_IN_SCRIPT (no "</script>", no raw U+2028/2029), and base64 as RFC
 * 4648's own test vectors give it. */
#include "base/json.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static char *put(const char *s, unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_put_string(f, s, flags);
	fclose(f);
	return buf;
}

static char *b64(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_put_base64(f, s, strlen(s));
	fclose(f);
	return buf;
}

#define CHECK_PUT(s, flags, want)                                                                  \
	do {                                                                                       \
		char *got_ = put(s, flags);                                                        \
		CHECK_STR(got_, want);                                                             \
		free(got_);                                                                        \
	} while (0)

int main(void)
{
	CHECK_PUT("plain", 0, "\"plain\"");
	CHECK_PUT("q\"b\\\n\t\x01", 0, "\"q\\\"b\\\\\\u000a\\u0009\\u0001\"");
	/* bytes that are not UTF-8 become U+FFFD; UTF-8 stays as it is */
	CHECK_PUT("a\xff"
		  "b\xc3",
		  0, "\"a\\ufffdb\\ufffd\"");
	CHECK_PUT("caf\xc3\xa9", 0, "\"caf\xc3\xa9\"");
	/* in a script: no '<' at all, U+2028 and U+2029 escaped */
	CHECK_PUT("</script><img src=x>", JSON_IN_SCRIPT, "\"\\u003c/script>\\u003cimg src=x>\"");
	CHECK_PUT("a\xe2\x80\xa8"
		  "b\xe2\x80\xa9",
		  JSON_IN_SCRIPT, "\"a\\u2028b\\u2029\"");
	CHECK_PUT("a\xe2\x80\xa8", 0, "\"a\xe2\x80\xa8\"");
	const char *vec[][2] = {{"", "\"\""},
				{"f", "\"Zg==\""},
				{"fo", "\"Zm8=\""},
				{"foo", "\"Zm9v\""},
				{"foob", "\"Zm9vYg==\""},
				{"fooba", "\"Zm9vYmE=\""},
				{"foobar", "\"Zm9vYmFy\""}};
	for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		char *got = b64(vec[i][0]);
		CHECK_STR(got, vec[i][1]);
		free(got);
	}
	return TEST_DONE();
}
