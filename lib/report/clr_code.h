/* clr_code: the managed code of the processes of one NetTrace stream, as the runtime's own
 * events describe it, to name the addresses of the stacks EventPipe records the way TraceLog
 * names them (PerfView's frames):
 *
 *   a method: MethodLoadVerbose (code JIT-compiled while the trace ran) or the rundown's
 *   MethodDCStart/DCEndVerbose (everything with code when the rundown ran: JIT'd and
 *   ReadyToRun code alike), named "Namespace.Type.Method(args)", in its module, named after
 *   the module's IL file ("System.Private.CoreLib", from ModuleLoad or the rundown's
 *   ModuleDCStart/DCEnd, by module id).
 *
 * A method loaded later at an address replaces an earlier one there (code freed and reused).
 * The rundown comes at the end of a trace, so an address a stack holds may be named only
 * then: callers look addresses up again at the end (view_build.h's placeholders).
 * Memory follows the number of methods and modules, not of events.
 */
#ifndef PC_CLR_CODE_H
#define PC_CLR_CODE_H

#include "calltree.h"
#include "nettrace/runtime_events.h"

struct clr_code;
struct clr_code *clr_code_new(void);
void clr_code_free(struct clr_code *c);

/* An event of process pid: the method and module events above are kept, others ignored. */
void clr_code_event(struct clr_code *c, uint64_t pid, enum runtime_event_kind kind,
		    const struct nettrace_event *e);

struct clr_frame {
	const char *method;   /* "PcDotnetApp.HotLoop.Churn(int32)" */
	const char *module;   /* "pc-dotnet-app"; "" when the module event was not seen */
	enum frame_kind kind; /* FRAME_JIT, or FRAME_R2R for precompiled code */
};
/* The method whose code holds ip in process pid, as of now; false when none does.  The
 * strings live as long as c. */
bool clr_code_lookup(struct clr_code *c, uint64_t pid, uint64_t ip, struct clr_frame *out);
/* How many methods are known (all processes). */
size_t clr_code_methods(const struct clr_code *c);

#endif
