/* Unit tests for log: a line of perfcollect.log (and of stderr) is one line whatever a target
 * named in it: escapes, BEL and newlines it chose are shown escaped, so they neither drive a
 * terminal that shows the log nor forge a line of it; pc_err() messages likewise. */
#include "base/log.h"
#include "test.h"

#include <fcntl.h>
#include <unistd.h>

int main(void)
{
	char dir[] = "/tmp/test_log.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[64];
	snprintf(path, sizeof(path), "%s/perfcollect.log", dir);
	CHECK(log_open(path) == 0);
	log_set_quiet(true);
	log_info("pid 42 (%s): JIT file refused", "\x1b[2J\x1b]0;pwn\x07");
	log_warn("forged: %s", "x\n[2026-01-01T00:00:00Z] all is well");
	log_close();
	size_t len;
	char *text = read_file(path, &len);
	CHECK(text != NULL);
	if (text) {
		CHECK(!strchr(text, 0x1b) && !strchr(text, 0x07));
		CHECK(strstr(text, "pid 42 (\\e[2J\\e]0;pwn\\x07): JIT file refused\n") != NULL);
		CHECK(strstr(text, "forged: x\\n[2026-01-01T00:00:00Z] all is well\n") != NULL);
		int lines = 0;
		for (char *p = text; *p; p++)
			lines += *p == '\n';
		CHECK(lines == 2);
	}
	free(text);
	pc_err("cannot open %s", "/tmp/\x1b[2J\xc2\x9b" "1;1H");
	CHECK_STR(pc_strerror(), "cannot open /tmp/\\e[2J\\xc2\\x9b1;1H");
	rm_rf(dir);
	return TEST_DONE();
}
