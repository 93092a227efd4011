/* collect_signals: how a collection answers the signals that stop it.  While it records,
 * Ctrl+C, SIGTERM, SIGHUP (a closed terminal or dropped SSH session) and SIGQUIT (Ctrl+\)
 * only end the recording in an orderly way, through a signalfd the record loop polls, and a
 * terminal or pipe that went away (SIGPIPE, SIGTTOU) cannot kill or stop it.  While the
 * archive is written, the same signals only get a line saying the trace is not lost. */
#ifndef PC_COLLECT_SIGNALS_H
#define PC_COLLECT_SIGNALS_H

#include "record/record.h"

#include <signal.h>

/* Blocks the stop signals (saving the mask in *old) and returns a signalfd for them, or -1
 * with a pc_err() line. */
int collect_block_stop_signals(sigset_t *old);

/* From now on a stop signal only says that zip_path is still being written; pending ones
 * are dropped and the mask *old restored. */
void collect_protect_postprocessing(const char *zip_path, const sigset_t *old);

/* Why recording stopped, for the log and the terminal: "Ctrl+C (SIGINT)", "-collectsec
 * elapsed" ... */
const char *collect_stop_reason(enum record_stop why, int signo);

#endif
