/* eventpipe_events: see eventpipe_events.h. */
#include "eventpipe_events.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *eventpipe_provider_name(enum eventpipe_provider_id id)
{
	switch (id) {
	case EVENTPIPE_PROVIDER_RUNTIME:
		return "Microsoft-Windows-DotNETRuntime";
	case EVENTPIPE_PROVIDER_PRIVATE:
		return "Microsoft-Windows-DotNETRuntimePrivate";
	case EVENTPIPE_PROVIDER_RUNDOWN:
		return "Microsoft-Windows-DotNETRuntimeRundown";
	}
	return "?";
}

/* perfcollect's sets (its SetupLTTngSession). */
static const char *const default_groups[] = {
    "DotNETRuntime_ThreadingKeyword",
    "DotNETRuntime_ThreadingKeyword_ThreadTransferKeyword",
    "DotNETRuntime_NoKeyword",
    "DotNETRuntime_ExceptionKeyword",
    "DotNETRuntime_ContentionKeyword",
    "DotNETRuntime_JitKeyword_NGenKeyword",
    "DotNETRuntime_JitKeyword",
    "DotNETRuntime_LoaderKeyword",
    "DotNETRuntime_GCKeyword_GCCollectOnly",
    "DotNETRuntimePrivate_GCPrivateKeyword_GCCollectOnly",
    "DotNETRuntimePrivate_BindingKeyword",
    "DotNETRuntimePrivate_MulticoreJitPrivateKeyword",
    "DotNETRuntime_CompilationKeyword",
    NULL,
};
static const char *const gccollectonly_groups[] = {
    "DotNETRuntime_GCKeyword_GCCollectOnly",
    "DotNETRuntimePrivate_GCPrivateKeyword_GCCollectOnly",
    "DotNETRuntime_ExceptionKeyword",
    NULL,
};
static const char *const gconly_groups[] = {
    "DotNETRuntime_GCKeyword",	      "DotNETRuntimePrivate_GCPrivateKeyword",
    "DotNETRuntime_JitKeyword",	      "DotNETRuntime_LoaderKeyword",
    "DotNETRuntime_ExceptionKeyword", NULL,
};
static const char *const gcwithheap_groups[] = {
    "DotNETRuntime_GCKeyword",
    "DotNETRuntime_GCHeapSurvivalAndMovementKeyword",
    NULL,
};

/* Adds one perfcollect event to c: its keywords and level to its provider's, its id to the
 * provider's filter (once). */
static void add_def(struct eventpipe_config *c, const struct runtime_event_def *d)
{
	/* The rundown provider is the session's rundown (eventpipe_config.rundown_keywords);
	 * naming it as a provider too would filter the rundown's events. */
	if (d->provider == EVENTPIPE_PROVIDER_RUNDOWN)
		return;
	struct eventpipe_provider *p =
	    eventpipe_config_provider(c, eventpipe_provider_name(d->provider));
	p->keywords |= d->keywords;
	if (d->level > p->level)
		p->level = d->level;
	for (size_t i = 0; i < p->nids; i++)
		if (p->ids[i] == d->id)
			return;
	p->ids = xrealloc(p->ids, (p->nids + 1) * sizeof(*p->ids));
	p->ids[p->nids++] = d->id;
}

static bool group_exists(const char *group, const char **canonical)
{
	for (size_t i = 0; i < runtime_event_ndefs; i++)
		if (!strcasecmp(runtime_event_defs[i].group, group)) {
			*canonical = runtime_event_defs[i].group;
			return true;
		}
	return false;
}

static void add_group(struct eventpipe_config *c, const char *group)
{
	for (size_t i = 0; i < runtime_event_ndefs; i++)
		if (!strcmp(runtime_event_defs[i].group, group))
			add_def(c, &runtime_event_defs[i]);
}

static void add_groups(struct eventpipe_config *c, const char *const *groups)
{
	for (; *groups; groups++)
		add_group(c, *groups);
}

/* "a,b,,c" -> calls fn for "a", "b", "c" (trimmed of blanks). */
static int for_each_item(const char *list, int (*fn)(struct eventpipe_config *, const char *),
			 struct eventpipe_config *c)
{
	char *copy = xstrdup(list), *save = NULL;
	int rc = 0;
	for (char *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save)) {
		while (*w == ' ' || *w == '\t')
			w++;
		size_t n = strlen(w);
		while (n && (w[n - 1] == ' ' || w[n - 1] == '\t'))
			w[--n] = 0;
		if (*w)
			rc = fn(c, w);
	}
	free(copy);
	return rc;
}

static int add_event_group(struct eventpipe_config *c, const char *name)
{
	const char *group;
	if (!strcasecmp(name, "threading")) {
		add_group(c, "DotNETRuntime_ThreadingKeyword");
		return 0;
	}
	if (!strcasecmp(name, "LTTng_Kernel_ProcessLifetimeKeyword"))
		return 0; /* process starts and exits: perf.data records them anyway */
	if (!group_exists(name, &group))
		return pc_err("-events: no event group '%s'; perfcollect's groups are named like "
			      "DotNETRuntime_GCKeyword or DotNETRuntimePrivate_BindingKeyword (see "
			      "'perfcollect-c collect --help')",
			      name);
	add_group(c, group);
	return 0;
}

static int add_raw_event(struct eventpipe_config *c, const char *name)
{
	for (size_t i = 0; i < runtime_event_ndefs; i++)
		if (!strcasecmp(runtime_event_defs[i].name, name)) {
			add_def(c, &runtime_event_defs[i]);
			return 0;
		}
	const char *colon = strchr(name, ':');
	return pc_err("-rawevents: no .NET event '%s'%s", name,
		      colon ? ""
			    : "; name it with its provider, as perfcollect does "
			      "(DotNETRuntime:GCStart_V2)");
}

/* ---- dotnet-trace's provider syntax -------------------------------------------------------- */

static int parse_level(const char *s, uint32_t *level)
{
	static const char *const names[] = {"logalways", "critical",	  "error",
					    "warning",	 "informational", "verbose"};
	for (uint32_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcasecmp(s, names[i])) {
			*level = i;
			return 0;
		}
	long v;
	if (parse_int(s, 0, 255, &v) < 0)
		return -1;
	*level = (uint32_t)v;
	return 0;
}

/* One "Name[:Keywords[:Level[:Args]]]"; Args is the rest, colons and all. */
static int add_provider_spec(struct eventpipe_config *c, const char *spec)
{
	char *copy = xstrdup(spec);
	char *parts[4] = {copy, NULL, NULL, NULL};
	char *p = copy;
	for (int i = 1; i < 4 && (p = strchr(p, ':')); i++) {
		*p++ = 0;
		parts[i] = p;
	}
	int rc = 0;
	uint64_t keywords = UINT64_MAX;
	uint32_t level = 5;
	if (!*parts[0]) {
		rc = pc_err("-providers: '%s' names no provider (Name[:Keywords[:Level[:Args]]])",
			    spec);
		goto out;
	}
	if (parts[1] && *parts[1]) {
		char *end;
		const char *hex = parts[1];
		if (!strncasecmp(hex, "0x", 2))
			hex += 2;
		errno = 0;
		keywords = strtoull(hex, &end, 16);
		if (errno || end == hex || *end) {
			rc = pc_err("-providers: keywords '%s' of %s are not a hexadecimal number",
				    parts[1], parts[0]);
			goto out;
		}
	}
	if (parts[2] && *parts[2] && parse_level(parts[2], &level) < 0) {
		rc = pc_err("-providers: level '%s' of %s is not 0-5 or a name (critical, error, "
			    "warning, informational, verbose)",
			    parts[2], parts[0]);
		goto out;
	}
	struct eventpipe_provider *pr = eventpipe_config_provider(c, parts[0]);
	pr->keywords = keywords;
	pr->level = level;
	free(pr->ids); /* named explicitly: every event of its keywords */
	pr->ids = NULL;
	pr->nids = 0;
	free(pr->args);
	pr->args = NULL;
	if (parts[3] && *parts[3]) {
		size_t n = strlen(parts[3]);
		if (n >= 2 && parts[3][0] == '"' && parts[3][n - 1] == '"')
			pr->args = xstrndup(parts[3] + 1, n - 2);
		else
			pr->args = xstrdup(parts[3]);
	}
out:
	free(copy);
	return rc;
}

int eventpipe_parse_providers(const char *spec, struct eventpipe_config *c)
{
	/* Commas split providers, except inside double quotes (arguments may hold them). */
	bool quoted = false;
	size_t start = 0, n = strlen(spec);
	for (size_t i = 0; i <= n; i++) {
		if (i < n && spec[i] == '"')
			quoted = !quoted;
		if (i < n && (spec[i] != ',' || quoted))
			continue;
		char *one = xstrndup(spec + start, i - start);
		int rc = *one ? add_provider_spec(c, one) : 0;
		free(one);
		if (rc < 0)
			return -1;
		start = i + 1;
	}
	if (quoted)
		return pc_err("-providers: a '\"' is not closed in '%s'", spec);
	return 0;
}

int eventpipe_events_build(const struct dotnet_events_opts *o, struct eventpipe_config *c)
{
	memset(c, 0, sizeof(*c));
	int rc = 0;
	switch (o->set) {
	case DOTNET_EVENTS_GCCOLLECTONLY:
		add_groups(c, gccollectonly_groups);
		break;
	case DOTNET_EVENTS_GCONLY:
		add_groups(c, gconly_groups);
		break;
	case DOTNET_EVENTS_GCWITHHEAP:
		add_groups(c, gcwithheap_groups);
		break;
	case DOTNET_EVENTS_DEFAULT:
		/* perfcollect: -events replaces the default set, -rawevents adds to it */
		if (o->events && *o->events)
			rc = for_each_item(o->events, add_event_group, c);
		else
			add_groups(c, default_groups);
		if (rc == 0 && o->rawevents)
			rc = for_each_item(o->rawevents, add_raw_event, c);
		break;
	}
	if (rc == 0 && o->providers)
		rc = eventpipe_parse_providers(o->providers, c);
	if (rc < 0) {
		eventpipe_config_release(c);
		return -1;
	}
	/* Events without keywords (ExceptionThrown version 0, RuntimeInformationStart) come
	 * with any keyword; a provider chosen only for them still needs one. */
	for (size_t i = 0; i < c->nproviders; i++)
		if (!c->providers[i].keywords)
			c->providers[i].keywords = UINT64_MAX;
	c->rundown_keywords = EVENTPIPE_RUNDOWN_DEFAULT;
	return 0;
}
