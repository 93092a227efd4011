/* eventpipe_events: which .NET runtime events a collection records, from perfcollect's
 * options, as an EventPipe configuration (eventpipe_session.h).
 *
 * perfcollect names its .NET events as LTTng tracepoints in keyword groups
 * (DotNETRuntime_GCKeyword = DotNETRuntime:GCStart, ...); runtime_event_table.c maps every
 * one of them to its EventPipe provider, event id, keywords and level.  A set of groups
 * becomes, per provider, the union of the events' keywords at the highest of their levels,
 * and the list of their event ids, which .NET 10 runtimes apply as a filter (older ones
 * record every event those keywords and levels enable: a superset).
 *
 *   default          perfcollect's default set (threading, thread transfer, exceptions,
 *                    contention, JIT, NGen, loader, GC at collect-only verbosity, binding,
 *                    multicore JIT, tiered compilation)
 *   -gccollectonly   GC collect-only + exceptions;  -gconly: GC, JIT, loader, exceptions;
 *   -gcwithheap      GC + heap survival and movement  (all three: no CPU samples)
 *   -events LIST     perfcollect's group names (or "threading"), comma-separated
 *   -rawevents LIST  event names (DotNETRuntime:GCStart_V2, ...), added to the set
 *   -providers LIST  dotnet-trace's Name[:Keywords[:Level[:Args]]] for any EventSource,
 *                    added (a provider named again replaces what the set chose for it)
 */
#ifndef PC_EVENTPIPE_EVENTS_H
#define PC_EVENTPIPE_EVENTS_H

#include "eventpipe_session.h"

enum eventpipe_provider_id {
	EVENTPIPE_PROVIDER_RUNTIME,
	EVENTPIPE_PROVIDER_PRIVATE,
	EVENTPIPE_PROVIDER_RUNDOWN,
};

/* One perfcollect event in one of its groups. */
struct runtime_event_def {
	const char *group; /* "DotNETRuntime_GCKeyword" */
	const char *name;  /* "DotNETRuntime:GCStart_V2" */
	enum eventpipe_provider_id provider;
	uint16_t id;
	uint8_t version;
	uint64_t keywords;
	uint8_t level;
};
extern const struct runtime_event_def runtime_event_defs[];
extern const size_t runtime_event_ndefs;

enum dotnet_event_set {
	DOTNET_EVENTS_DEFAULT,
	DOTNET_EVENTS_GCCOLLECTONLY,
	DOTNET_EVENTS_GCONLY,
	DOTNET_EVENTS_GCWITHHEAP,
};

struct dotnet_events_opts {
	enum dotnet_event_set set;
	const char *events;    /* -events, or NULL */
	const char *rawevents; /* -rawevents, or NULL */
	const char *providers; /* -providers, or NULL */
};

/* Builds c (released by the caller with eventpipe_config_release()).  -1 with pc_err()
 * naming the unknown group, event or the bad provider spec, with the fix. */
int eventpipe_events_build(const struct dotnet_events_opts *o, struct eventpipe_config *c);

/* Parses dotnet-trace's provider syntax into c (exposed for the unit tests). */
int eventpipe_parse_providers(const char *spec, struct eventpipe_config *c);

/* The EventPipe provider name of a perfcollect provider id. */
const char *eventpipe_provider_name(enum eventpipe_provider_id id);

#endif
