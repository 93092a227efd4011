/* collect_signals: see collect_signals.h. */
#include "collect_signals.h"
#include "base/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

/* The signals that end a recording in an orderly way (and are only answered with a line
 * while the archive is written): Ctrl+C, kill, a closed terminal or dropped SSH session,
 * Ctrl+\. */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static void stop_signal_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaddset(set, stop_signals[i]);
}

int collect_block_stop_signals(sigset_t *old)
{
	sigset_t set;
	stop_signal_set(&set);
	/* An ignored signal never becomes pending, and shells start background jobs with
	 * SIGINT ignored (nohup: SIGHUP): take the default back (blocked, so it only reaches
	 * the signalfd). */
	sigprocmask(SIG_BLOCK, &set, old);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		signal(stop_signals[i], SIG_DFL);
	/* A terminal or pipe that went away must not kill or stop us: writes to it fail
	 * (EIO, EPIPE) and are ignored; the trace is written to disk all the same. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	int fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		return pc_err_errno("signalfd failed");
	return fd;
}

static char busy_msg[512];
static size_t busy_len;

static void busy_handler(int sig)
{
	int e = errno;
	ssize_t r = write(STDERR_FILENO, busy_msg, busy_len);
	(void)r;
	errno = e;
}

void collect_protect_postprocessing(const char *zip_path, const sigset_t *old)
{
	snprintf(busy_msg, sizeof(busy_msg),
		 "\nperfcollect-c: still writing %s; please wait, the trace is not lost\n",
		 zip_path);
	busy_len = strlen(busy_msg);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = busy_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &sa, NULL);
	/* Drop the pending signals the signalfd did not consume, then unblock. */
	struct timespec zero = {0, 0};
	sigset_t set;
	stop_signal_set(&set);
	while (sigtimedwait(&set, NULL, &zero) > 0)
		;
	sigprocmask(SIG_SETMASK, old, NULL);
}

const char *collect_stop_reason(enum record_stop why, int signo)
{
	switch (why) {
	case RECORD_STOP_SIGNAL:
		switch (signo) {
		case SIGTERM:
			return "SIGTERM";
		case SIGHUP:
			return "SIGHUP (the terminal or session went away)";
		case SIGQUIT:
			return "SIGQUIT (Ctrl+\\)";
		default:
			return "Ctrl+C (SIGINT)";
		}
	case RECORD_STOP_TIME:
		return "-collectsec elapsed";
	case RECORD_STOP_TARGET_EXIT:
		return "the target process exited";
	case RECORD_STOP_ERROR:
		return "an error";
	}
	return "?";
}
