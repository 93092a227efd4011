/* The whole `merge` pass (lib/postprocess/) on a perf.data: reader, process/map state,
 * symbols, tracepoint fields (libtraceevent, in a child process for formats that are not
 * this machine's) and perf.data.txt, as `perfcollect-c merge NAME.trace` runs it on a trace
 * someone sent (not live: no /proc lookups of the recorded pids).  The .trace directory
 * holds the input and a small kallsyms; ELF files are looked up in an empty directory
 * (symfs): this machine's binaries and debug files are not the input, and loading them for
 * every input (libc's debug symbols...) would leave little time for the records.  The
 * archive is to go to a directory that does not exist: the pass then writes perf.data.txt
 * into the output directory (postprocess's fallback) and packing fails at once;
 * compressing a zip for every input would take eight of every nine executions, and what
 * the archive writer gets is our own text. */
#include "fuzz.h"
#include "postprocess/postprocess.h"

static const char kallsyms[] = "ffffffff81000000 T _stext\n"
			       "ffffffff81001000 T do_one_initcall\n"
			       "ffffffff81100000 t schedule\n"
			       "ffffffff81100400 T __schedule\n"
			       "ffffffff81200000 T entry_SYSCALL_64\n"
			       "ffffffffc0000000 t ext4_readdir\t[ext4]\n"
			       "ffffffffc0001000 t ext4_file_read_iter\t[ext4]\n";

static char *side, *out, *zip, *symfs;

/* The directories, once: merge writes into out over and over (perf.data.txt, JIT files
 * named by pid). */
static void setup(void)
{
	const char *dir = fuzz_dir();
	side = xasprintf("%s/in.trace", dir);
	out = xasprintf("%s/out", dir);
	zip = xasprintf("%s/absent/x.trace.zip", out);
	symfs = xasprintf("%s/symfs", dir);
	char *ks = xasprintf("%s/kallsyms", side);
	int kfd = -1;
	if (mkdir(side, 0700) < 0 || mkdir(out, 0700) < 0 || mkdir(symfs, 0700) < 0 ||
	    (kfd = open(ks, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0 ||
	    write_all(kfd, kallsyms, sizeof(kallsyms) - 1) < 0 || close(kfd) < 0) {
		perror("fuzz_postprocess: setting up");
		abort();
	}
	free(ks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	if (!side)
		setup();
	int fd = fuzz_fd(data, size);
	struct postprocess_opts o = {
	    .trace_dir = side,
	    .name = "x",
	    .zip_path = zip,
	    .perf_data = fuzz_fd_path(fd),
	    .out_dir = out,
	    .symfs = symfs,
	};
	struct postprocess_stats st;
	postprocess_run(&o, &st);
	close(fd);
	return 0;
}
