/* Unit tests for buildid: ids of a real binary and of the running kernel, as perf reads
 * them (`perf buildid-list`), and bad input giving one clear error. */
#include "base/util.h"
#include "perfdata/buildid.h"
#include "test.h"

#include <elf.h>
#include <stdint.h>
#include <unistd.h>

/* First line of `perf <args>`, or "" (perf absent or failing). */
static void perf_line(const char *args, char *out, size_t size)
{
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "perf %s 2>/dev/null", args);
	out[0] = '\0';
	FILE *p = popen(cmd, "r");
	if (!p)
		return;
	if (!fgets(out, (int)size, p))
		out[0] = '\0';
	pclose(p);
}

int main(void)
{
	const char *bd = getenv("BUILD_DIR");
	char hot[4096], hex[2 * BUILDID_MAX + 1], line[256], args[4200];
	snprintf(hot, sizeof(hot), "%s/tests/workloads/hot", bd ? bd : ".");
	uint8_t id[BUILDID_MAX], size = 0;

	/* Bad input first (no perf needed): not ELF, a file that is not there, notes cut short. */
	CHECK(buildid_read_path("/proc/self/status", id, &size) < 0);
	CHECK(strstr(pc_strerror(), "/proc/self/status: not an ELF file") != NULL);
	CHECK(buildid_read_path("/nonexistent/lib.so", id, &size) < 0);
	CHECK(strstr(pc_strerror(), "/nonexistent/lib.so") != NULL);
	char tmp[] = "/tmp/test_buildid_notes.XXXXXX";
	int fd = mkstemp(tmp);
	uint32_t bad[4] = {4, 200, NT_GNU_BUILD_ID, 0x00554e47}; /* "GNU", desc of 200 bytes */
	CHECK(write(fd, bad, sizeof(bad)) == sizeof(bad));
	close(fd);
	CHECK(buildid_read_notes_file(tmp, id, &size) < 0);
	CHECK(strstr(pc_strerror(), "past the end") != NULL);
	unlink(tmp);

	if (system("perf --version >/dev/null 2>&1") != 0)
		SKIP("perf (the oracle for build-ids) is not installed: run scripts/setup as root");
	if (access(hot, R_OK))
		SKIP("tests/workloads/hot not built (BUILD_DIR unset?): run it through meson test");

	CHECK(buildid_read_path(hot, id, &size) == 0);
	CHECK_EQ_U64(size, 20);
	buildid_to_hex(id, size, hex);
	snprintf(args, sizeof(args), "buildid-list -i %s", hot);
	perf_line(args, line, sizeof(line));
	CHECK(line[0] && !strncmp(line, hex, 2 * size) && line[2 * size] == '\n');
	if (strncmp(line, hex, 2 * size))
		fprintf(stderr, "ours %s, perf's %s\n", hex, line);

	if (buildid_read_kernel(id, &size) == 0) {
		buildid_to_hex(id, size, hex);
		perf_line("buildid-list -k", line, sizeof(line));
		CHECK(line[0] && !strncmp(line, hex, 2 * size));
		if (strncmp(line, hex, 2 * size))
			fprintf(stderr, "kernel: ours %s, perf's %s\n", hex, line);
	} else {
		printf("note: no kernel build-id here: %s\n", pc_strerror());
	}
	return TEST_DONE();
}
