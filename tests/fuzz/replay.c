/* replay: a main() for the harnesses in builds without libFuzzer (gcc, the normal and the
 * sanitizer builds).  Runs LLVMFuzzerTestOneInput once on every file named, directories
 * walked recursively; a directory that does not exist holds nothing (regress/<module>/ may
 * not be there yet).  Each file's name is printed before it runs, so the last name in the
 * log of a crash is the input that crashed.  Exit 0, or 77 when there was nothing to run.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static size_t nr_inputs;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "replay: out of memory reading %s\n", path);
		return -1;
	}
	printf("%s (%zu bytes)\n", path, len);
	fflush(stdout);
	/* an exact-size copy, so that a read past the input's end is caught as it is under
	 * libFuzzer */
	uint8_t *copy = malloc(len ? len : 1);
	memcpy(copy, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
	nr_inputs++;
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return errno == ENOENT
			   ? 0
			   : (fprintf(stderr, "replay: %s: %s\n", path, strerror(errno)), -1);
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n] = malloc(strlen(path) + strlen(de->d_name) + 2);
		sprintf(names[n++], "%s/%s", path, de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), compare_names);
	int r = 0;
	for (size_t i = 0; i < n; i++) {
		if (run_path(names[i]) < 0)
			r = -1;
		free(names[i]);
	}
	free(names);
	return r;
}

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	int r = 0;
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i]) < 0)
			r = 1;
	if (r == 0 && nr_inputs == 0) {
		printf("SKIP: no inputs to replay in");
		for (int i = 1; i < argc; i++)
			printf(" %s", argv[i]);
		printf("\n");
		return 77;
	}
	printf("replayed %zu inputs\n", nr_inputs);
	return r;
}
