/* view_kind: see view_kind.h. */
#include "view_kind.h"

#include <string.h>
#include <strings.h>

#define NS_PER_MS 1000000ULL
#define NS_PER_US 1000ULL

static const struct view_unit units[] = {
    [VIEW_SAMPLES] = {NULL, "CPU Stacks", "samples", "samples", 1, 1, "samples", "count", "none",
		      NULL, false},
    [VIEW_BLOCKED] = {NULL, "Thread Time", "ns blocked", "blocked ms", NS_PER_MS, NS_PER_US,
		      "offcpu", "nanoseconds", "nanoseconds", "Off-CPU Time Flame Graph", true},
    [VIEW_ALLOC] = {"alloc", "GC Heap Alloc Ignore Free", "bytes", "bytes", 1, 1, "alloc_space",
		    "bytes", "bytes", "Allocation Flame Graph", false},
    [VIEW_EXCEPTIONS] = {"exception", "Exceptions", "exceptions", "exceptions", 1, 1, "exceptions",
			 "count", "none", "Exceptions Flame Graph", false},
    [VIEW_CONTENTION] = {"contention", "Contention", "ns waited", "waited ms", NS_PER_MS, NS_PER_US,
			 "contentions", "nanoseconds", "nanoseconds", "Lock Contention Flame Graph",
			 true},
};

const struct view_unit *view_unit(enum view_kind k)
{
	return &units[k];
}

int view_kind_of_event(const char *name)
{
	for (size_t k = 0; k < ARRAY_SIZE(units); k++)
		if (units[k].event && !strcasecmp(units[k].event, name))
			return (int)k;
	if (!strcasecmp(name, "exceptions") || !strcasecmp(name, "allocations"))
		return !strcasecmp(name, "exceptions") ? VIEW_EXCEPTIONS : VIEW_ALLOC;
	return -1;
}
