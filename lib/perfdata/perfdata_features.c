/* perfdata_features: see perfdata_features.h. */
#include "perfdata_features.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define NAME_ALIGN 64 /* perf pads header strings and build-id file names to this */

static size_t name_padded(size_t len_with_nul)
{
	return (len_with_nul + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
}

void pd_put_string(struct bytebuf *b, const char *s)
{
	size_t n = strlen(s) + 1, padded = name_padded(n);
	bytebuf_u32(b, (uint32_t)padded);
	bytebuf_bytes(b, s, n);
	bytebuf_fill(b, 0, padded - n);
}

/* Value of "key<spaces>: value" in /proc/cpuinfo's first block, whitespace squeezed. */
static char *cpuinfo_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *line = text; line && *line;
	     line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (*line == '\n')
			break; /* end of the first CPU's block */
		if (strncmp(line, key, klen) ||
		    (line[klen] != ' ' && line[klen] != '\t' && line[klen] != ':'))
			continue;
		const char *colon = strchr(line, ':'), *eol = strchr(line, '\n');
		if (!colon || (eol && colon > eol))
			continue;
		const char *v = colon + 1;
		size_t n = eol ? (size_t)(eol - v) : strlen(v);
		char *out = xmalloc(n + 1), *o = out;
		for (size_t i = 0; i < n; i++) {
			bool space = v[i] == ' ' || v[i] == '\t';
			if (space && (o == out || o[-1] == ' '))
				continue;
			*o++ = space ? ' ' : v[i];
		}
		while (o > out && o[-1] == ' ')
			o--;
		*o = '\0';
		return out;
	}
	return NULL;
}

static int put_cpuinfo(struct bytebuf *out, bool cpuid)
{
	char *text = read_file("/proc/cpuinfo", NULL);
	if (!text)
		return 0;
	int ret = 0;
	if (!cpuid) {
		char *desc = cpuinfo_value(text, "model name");
		if (desc && *desc) {
			pd_put_string(out, desc);
			ret = 1;
		}
		free(desc);
	} else {
		/* x86's form, "vendor,family,model,stepping"; other arches have none here. */
		char *f[4] = {cpuinfo_value(text, "vendor_id"), cpuinfo_value(text, "cpu family"),
			      cpuinfo_value(text, "model"), cpuinfo_value(text, "stepping")};
		if (f[0] && f[1] && f[2] && f[3]) {
			char *s = xasprintf("%s,%s,%s,%s", f[0], f[1], f[2], f[3]);
			pd_put_string(out, s);
			free(s);
			ret = 1;
		}
		for (int i = 0; i < 4; i++)
			free(f[i]);
	}
	free(text);
	return ret;
}

static int put_total_mem(struct bytebuf *out)
{
	char *text = read_file("/proc/meminfo", NULL);
	if (!text)
		return 0;
	unsigned long long kb = 0;
	const char *p = strstr(text, "MemTotal:");
	int ret = p && sscanf(p, "MemTotal: %llu kB", &kb) == 1 && kb;
	if (ret)
		bytebuf_u64(out, kb); /* perf stores kB */
	free(text);
	return ret;
}

/* Highest CPU number in a sysfs cpu list ("0-3,8-11") plus one, or -1. */
static long cpulist_count(const char *path)
{
	char *text = read_file(path, NULL);
	if (!text)
		return -1;
	long max = -1;
	for (char *p = text; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (v > max)
			max = v;
		p = end;
		if (*p == '-' || *p == ',')
			p++;
	}
	free(text);
	return max < 0 ? -1 : max + 1;
}

static int put_nrcpus(struct bytebuf *out)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	long avail = cpulist_count("/sys/devices/system/cpu/present");
	if (avail < 0)
		avail = sysconf(_SC_NPROCESSORS_CONF);
	if (online < 1)
		online = 1;
	if (avail < online)
		avail = online;
	/* perf reads "available" (highest present CPU + 1) first, then "online". */
	bytebuf_u32(out, (uint32_t)avail);
	bytebuf_u32(out, (uint32_t)online);
	return 1;
}

static void put_cmdline(struct bytebuf *out, const struct perfdata_meta *meta)
{
	if (meta && meta->argv && meta->argc > 0) {
		bytebuf_u32(out, (uint32_t)meta->argc);
		for (int i = 0; i < meta->argc; i++)
			pd_put_string(out, meta->argv[i] ? meta->argv[i] : "");
		return;
	}
	/* Our own command line: NUL-separated in /proc/self/cmdline. */
	size_t len = 0;
	char *text = read_file("/proc/self/cmdline", &len);
	uint32_t n = 0;
	for (size_t i = 0; text && i < len; i += strlen(text + i) + 1)
		n++;
	bytebuf_u32(out, n);
	for (size_t i = 0; text && i < len; i += strlen(text + i) + 1)
		pd_put_string(out, text + i);
	free(text);
}

static void put_event_desc(struct bytebuf *out, const struct pd_feature_input *in)
{
	bytebuf_u32(out, (uint32_t)in->nevents);
	bytebuf_u32(out, in->attr_size);
	for (size_t i = 0; i < in->nevents; i++) {
		const struct pd_event *e = &in->events[i];
		struct perf_event_attr a = e->attr;
		a.size = in->attr_size;
		size_t have = sizeof(a) < in->attr_size ? sizeof(a) : in->attr_size;
		bytebuf_bytes(out, &a, have);
		bytebuf_fill(out, 0, in->attr_size - have);
		bytebuf_u32(out, (uint32_t)e->nids);
		pd_put_string(out, e->name ? e->name : "");
		bytebuf_bytes(out, e->ids, e->nids * sizeof(uint64_t));
	}
}

static void put_build_ids(struct bytebuf *out, const struct pd_feature_input *in)
{
	for (size_t i = 0; i < in->nbuild_ids; i++) {
		const struct perfdata_build_id *b = &in->build_ids[i];
		size_t n = strlen(b->filename) + 1, padded = name_padded(n);
		struct perf_build_id_entry e;
		memset(&e, 0, sizeof(e));
		/* perf leaves header.type 0 inside the feature section; misc says whose DSO it
		 * is and that build_id[20] holds the id's length. */
		e.header.misc = (b->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
				PERF_RECORD_MISC_BUILD_ID_SIZE;
		e.header.size = (uint16_t)(sizeof(e) + padded);
		e.pid = b->pid;
		memcpy(e.build_id, b->id, b->size);
		e.build_id[20] = b->size;
		bytebuf_bytes(out, &e, sizeof(e));
		bytebuf_bytes(out, b->filename, n);
		bytebuf_fill(out, 0, padded - n);
	}
}

static int put_clock(int feat, struct bytebuf *out, int clockid)
{
	struct timespec res, wall, clk;
	if (clockid < 0 || clock_getres(clockid, &res))
		return 0;
	if (feat == HEADER_CLOCKID) {
		/* perf shows 1000 / this as "clockid frequency: N MHz" */
		uint64_t res_ns = (uint64_t)res.tv_sec * 1000000000 + (uint64_t)res.tv_nsec;
		bytebuf_u64(out, res_ns ? res_ns : 1);
		return 1;
	}
	/* HEADER_CLOCK_DATA: one reading of the wall clock and of the sampling clock taken
	 * together, so timestamps convert to time of day. */
	if (clock_gettime(CLOCK_REALTIME, &wall) || clock_gettime(clockid, &clk))
		return 0;
	bytebuf_u32(out, 1); /* version */
	bytebuf_u32(out, (uint32_t)clockid);
	bytebuf_u64(out, (uint64_t)wall.tv_sec * 1000000000 + (uint64_t)wall.tv_nsec);
	bytebuf_u64(out, (uint64_t)clk.tv_sec * 1000000000 + (uint64_t)clk.tv_nsec);
	return 1;
}

/* The clock the timestamps come from: the events' own (use_clockid), else meta->clockid. */
static int sampling_clock(const struct pd_feature_input *in)
{
	for (size_t i = 0; i < in->nevents; i++)
		if (in->events[i].attr.use_clockid)
			return in->events[i].attr.clockid;
	return in->meta ? in->meta->clockid : -1;
}

int perfdata_feature_encode(int feat, const struct pd_feature_input *in, struct bytebuf *out)
{
	const struct perfdata_meta *m = in->meta;
	struct utsname u;
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	const char *s = NULL;
	switch (feat) {
	case HEADER_TRACING_DATA:
		if (!m || !m->tracing_data || !m->tracing_data_size)
			return 0;
		bytebuf_bytes(out, m->tracing_data, m->tracing_data_size);
		return 1;
	case HEADER_BUILD_ID:
		if (!in->nbuild_ids)
			return 0;
		put_build_ids(out, in);
		return 1;
	case HEADER_HOSTNAME:
		s = m && m->hostname ? m->hostname : u.nodename;
		break;
	case HEADER_OSRELEASE:
		s = m && m->osrelease ? m->osrelease : u.release;
		break;
	case HEADER_VERSION:
		s = m && m->version ? m->version : "perfcollect-c " PC_VERSION;
		break;
	case HEADER_ARCH:
		s = m && m->arch ? m->arch : u.machine;
		break;
	case HEADER_NRCPUS:
		return put_nrcpus(out);
	case HEADER_CPUDESC:
		return put_cpuinfo(out, false);
	case HEADER_CPUID:
		return put_cpuinfo(out, true);
	case HEADER_TOTAL_MEM:
		return put_total_mem(out);
	case HEADER_CMDLINE:
		put_cmdline(out, m);
		return 1;
	case HEADER_EVENT_DESC:
		if (!in->nevents)
			return 0;
		put_event_desc(out, in);
		return 1;
	case HEADER_CLOCKID:
	case HEADER_CLOCK_DATA:
		return put_clock(feat, out, sampling_clock(in));
	default:
		return 0;
	}
	if (!s || !*s)
		return 0;
	pd_put_string(out, s);
	return 1;
}
