/* stacks: a hang snapshot of a live process, every thread's kernel and user stack,
 * grouped, with the owners of the locks threads wait for; or, with -kernel, what the kernel
 * is doing in every task on the machine. */
#include "base/archive.h"
#include "base/outfile.h"
#include "base/proc.h"
#include "base/tracefile.h"
#include "cli.h"
#include "commands.h"
#include "stacks/kstacks.h"
#include "stacks/stacks.h"
#include "stacks/stacks_report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f, const struct cli_opt *opts)
{
	fprintf(f,
		"usage: perfcollect-c stacks -pid N [-module NAME] [-state S] [-o FILE]\n"
		"                            [-zip FILE.trace.zip] [-nokernel] [-nodotnetipc]\n"
		"       perfcollect-c stacks -kernel [-module NAME] [-state S] [-o FILE]\n\n"
		"-pid: stops the process briefly, prints every thread's kernel and user stack, "
		"threads\nwith the same functions grouped (biggest group first), and which thread "
		"holds the\nmutex or .NET lock that others wait for.  The process runs on "
		"afterwards.  A .NET\nprocess's managed frames are named from its perf map and "
		"jitdump (asked of its runtime\nfor the moment when it writes none).  Needs root "
		"(or CAP_SYS_PTRACE; kernel stacks need\nroot).\n"
		"-kernel: every task on the machine, kernel threads included: state, wait channel "
		"and\nkernel stack, grouped; nothing is stopped.\n\noptions:\n");
	cli_print_options(f, opts);
}

/* "dir/name.trace.zip" -> "name.trace/stacks-<pid>.txt": the layout of perfcollect's zips. */
static char *entry_name(const char *zip_path, pid_t pid)
{
	char file[32];
	snprintf(file, sizeof(file), "stacks-%d.txt", (int)pid);
	return tracefile_entry(zip_path, file);
}

/* Complete or not there (outfile.h); never onto a trace. */
static int write_file(const char *path, const char *text, size_t len)
{
	struct outfile *o = NULL;
	if (outfile_check_target(path, "the stacks report", NULL) < 0 || !(o = outfile_open(path)))
		return -1;
	if (fwrite(text, 1, len, outfile_stream(o)) != len) {
		outfile_abort(o);
		return pc_err_errno("cannot write %s", path);
	}
	return outfile_commit(o);
}

static int write_zip(const char *path, pid_t pid, const char *text, size_t len)
{
	struct archive_writer *w = archive_writer_new(path);
	if (!w)
		return -1;
	char *name = entry_name(path, pid);
	int r = archive_writer_add_buffer(w, name, text, len);
	if (r == 0)
		r = archive_writer_finish(w);
	free(name);
	archive_writer_free(w);
	return r;
}

/* stacks -kernel: every task's kernel stack, to stdout or FILE. */
static int kernel_stacks(const char *module, const char *state, const char *out)
{
	struct kernel_opts ko = {.states = state, .module = module};
	struct kernel_snapshot *k = kernel_snapshot_take(&ko);
	if (!k) {
		fprintf(stderr, "perfcollect-c stacks: %s\n", pc_strerror());
		return 1;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int r = m ? kernel_report_write(m, k, &ko) : pc_err_errno("open_memstream");
	if (m)
		fclose(m);
	if (r == 0 && out)
		r = write_file(out, text, len);
	else if (r == 0 && fwrite(text, 1, len, stdout) != len)
		r = pc_err_errno("writing to stdout");
	if (r == 0 && out)
		fprintf(stderr, "perfcollect-c stacks: %zu tasks written to %s\n", k->ntasks, out);
	free(text);
	kernel_snapshot_free(k);
	if (r < 0) {
		fprintf(stderr, "perfcollect-c stacks: %s\n", pc_strerror());
		return 1;
	}
	return 0;
}

int cmd_stacks(int argc, char **argv)
{
	long pid = 0;
	const char *module = NULL, *out = NULL, *zip = NULL, *state = NULL;
	bool nokernel = false, kernel = false, nodotnetipc = false;
	const struct cli_opt opts[] = {
	    {"pid", 'p', CLI_INT, &pid, "N", "the process to snapshot"},
	    {"kernel", 0, CLI_FLAG, &kernel, NULL,
	     "every task on the machine (kernel threads too) instead of one process"},
	    {"module", 0, CLI_STR, &module, "NAME",
	     "only threads with NAME on the stack: a path, a file name or its start up to a "
	     "'.' (libc), a kernel module or function, 'kernel'"},
	    {"state", 0, CLI_STR, &state, "S",
	     "only threads in these states (letters of /proc stat: D = uninterruptible, the "
	     "hung tasks; R, S, T, I ...)"},
	    {"output", 'o', CLI_STR, &out, "FILE", "write the report to FILE instead of stdout"},
	    {"zip", 0, CLI_STR, &zip, "FILE.trace.zip",
	     "write the report as <name>.trace/stacks-<pid>.txt into a new zip"},
	    {"nokernel", 0, CLI_FLAG, &nokernel, NULL, "leave out kernel stacks"},
	    {"nodotnetipc", 0, CLI_FLAG, &nodotnetipc, NULL,
	     "never ask a .NET runtime for perf maps (managed frames it has no map for stay "
	     "unnamed)"},
	    {NULL, 0, 0, NULL, NULL, NULL},
	};
	const char *pos[1];
	int npos;
	bool help;
	if (cli_parse("stacks", opts, argc, argv, pos, 0, &npos, &help) < 0)
		return 2;
	if (help) {
		usage(stdout, opts);
		return 0;
	}
	if (kernel && (pid || nokernel || zip || nodotnetipc)) {
		fprintf(stderr,
			"perfcollect-c stacks: -kernel looks at every task; -pid, -nokernel, "
			"-zip and -nodotnetipc go with -pid only\n");
		return 2;
	}
	if (!kernel && (pid <= 0 || pid > INT32_MAX)) {
		fprintf(stderr,
			"perfcollect-c stacks: -pid N or -kernel is required (see 'perfcollect-c "
			"stacks --help')\n");
		return 2;
	}
	if (state && (!*state || strspn(state, "RSDTtZXIPWKwx") != strlen(state))) {
		fprintf(stderr,
			"perfcollect-c stacks: -state '%s': give state letters as /proc shows them "
			"(D uninterruptible, R running, S sleeping, T stopped, I idle ...)\n",
			state);
		return 2;
	}
	if (kernel)
		return kernel_stacks(module, state, out);

	if (proc_is_kernel_thread((pid_t)pid)) {
		char comm[64] = "?";
		proc_comm((pid_t)pid, (pid_t)pid, comm, sizeof(comm));
		fprintf(stderr,
			"perfcollect-c stacks: PID %ld is a kernel thread (%s): it has no user "
			"space to stop and unwind; 'perfcollect-c stacks -kernel' shows its kernel "
			"stack, with every other task's\n",
			pid, comm);
		return 1;
	}
	/* Checked before the process is stopped: -zip makes a new archive, never over one. */
	if (zip && access(zip, F_OK) == 0) {
		fprintf(stderr,
			"perfcollect-c stacks: %s exists; -zip writes a new archive, never over "
			"one: name another\n",
			zip);
		return 1;
	}
	if (out && outfile_check_target(out, "the stacks report", NULL) < 0) {
		fprintf(stderr, "perfcollect-c stacks: %s\n", pc_strerror());
		return 1;
	}
	struct stacks_opts so = {.kernel = !nokernel, .dotnet = !nodotnetipc};
	struct stacks_snapshot *s = stacks_snapshot_take((pid_t)pid, &so);
	if (!s) {
		fprintf(stderr, "perfcollect-c stacks: %s\n", pc_strerror());
		return 1;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct stacks_report_opts ro = {.module = module, .states = state};
	int r = m ? stacks_report_write(m, s, &ro) : pc_err_errno("open_memstream");
	if (m)
		fclose(m);
	if (r == 0 && out)
		r = write_file(out, text, len);
	if (r == 0 && zip)
		r = write_zip(zip, s->pid, text, len);
	if (r == 0 && !out && !zip && fwrite(text, 1, len, stdout) != len)
		r = pc_err_errno("writing to stdout");
	if (r == 0 && (out || zip))
		fprintf(stderr, "perfcollect-c stacks: %zu threads of PID %d written to %s%s%s\n",
			s->nthreads, (int)s->pid, out ? out : "", out && zip ? " and " : "",
			zip ? zip : "");
	free(text);
	stacks_snapshot_free(s);
	if (r < 0) {
		fprintf(stderr, "perfcollect-c stacks: %s\n", pc_strerror());
		return 1;
	}
	return 0;
}
