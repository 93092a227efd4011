/* The UTF-16 codec (lib/base/utf16.c), both ways, on any bytes: as UTF-16LE units (a .NET
 * runtime's strings: NetTrace metadata, the diagnostics IPC) decoded to UTF-8, and as UTF-8
 * (a name given on the command line) encoded to UTF-16.  What decoding gives is valid UTF-8
 * (the encoder takes it), and goes there and back unchanged; what the encoder takes comes
 * back byte for byte. */
#include "fuzz.h"
#include "base/utf16.h"

static void round_trip(const char *s)
{
	struct bytebuf b = {0};
	size_t units;
	if (utf16_from_utf8(&b, s, &units) == 0) {
		FUZZ_CHECK(b.len == 2 * units);
		char *back = utf16_to_utf8(b.data, units);
		FUZZ_CHECK(!strcmp(back, s));
		free(back);
	} else {
		FUZZ_CHECK(b.len == 0);
	}
	bytebuf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	/* as UTF-16: always valid UTF-8 out, a fixed point of decode(encode(...)) */
	char *text = utf16_to_utf8(data, size / 2);
	struct bytebuf b = {0};
	size_t units;
	FUZZ_CHECK(utf16_from_utf8(&b, text, &units) == 0);
	char *again = utf16_to_utf8(b.data, units);
	FUZZ_CHECK(!strcmp(again, text));
	free(again);
	free(text);
	bytebuf_free(&b);
	/* the same from a span, terminated or not */
	struct span s = span_of(data, size);
	char *z = utf16z_take(&s);
	FUZZ_CHECK(z ? !s.bad : s.bad);
	free(z);
	/* as UTF-8 */
	char *str = xstrndup((const char *)data, size);
	round_trip(str);
	free(str);
	return 0;
}
