/* perfdata_features: see perfdata_features.h. */
#include "perfdata_features.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define NAME_ALIGN 64 /* perf pads header strings and build-id file names to this */

void pd_buf_put(struct pd_buf *b, const void *p, size_t n)
{
	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 256;
		while (n > cap - b->len)
			cap *= 2;
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void pd_buf_put_u32(struct pd_buf *b, uint32_t v)
{
	pd_buf_put(b, &v, sizeof(v));
}

void pd_buf_put_u64(struct pd_buf *b, uint64_t v)
{
	pd_buf_put(b, &v, sizeof(v));
}

static void put_zeros(struct pd_buf *b, size_t n)
{
	static const uint8_t zeros[NAME_ALIGN];
	while (n) {
		size_t k = n < sizeof(zeros) ? n : sizeof(zeros);
		pd_buf_put(b, zeros, k);
		n -= k;
	}
}

static size_t name_padded(size_t len_with_nul)
{
	return (len_with_nul + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
}

void pd_buf_put_string(struct pd_buf *b, const char *s)
{
	size_t n = strlen(s) + 1, padded = name_padded(n);
	pd_buf_put_u32(b, (uint32_t)padded);
	pd_buf_put(b, s, n);
	put_zeros(b, padded - n);
}

void pd_buf_free(struct pd_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
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

static int put_cpuinfo(struct pd_buf *out, bool cpuid)
{
	char *text = read_file("/proc/cpuinfo", NULL);
	if (!text)
		return 0;
	int ret = 0;
	if (!cpuid) {
		char *desc = cpuinfo_value(text, "model name");
		if (desc && *desc) {
			pd_buf_put_string(out, desc);
			ret = 1;
		}
		free(desc);
	} else {
		/* x86's form, "vendor,family,model,stepping"; other arches have none here. */
		char *f[4] = {cpuinfo_value(text, "vendor_id"), cpuinfo_value(text, "cpu family"),
			      cpuinfo_value(text, "model"), cpuinfo_value(text, "stepping")};
		if (f[0] && f[1] && f[2] && f[3]) {
			char *s = xasprintf("%s,%s,%s,%s", f[0], f[1], f[2], f[3]);
			pd_buf_put_string(out, s);
			free(s);
			ret = 1;
		}
		for (int i = 0; i < 4; i++)
			free(f[i]);
	}
	free(text);
	return ret;
}

static int put_total_mem(struct pd_buf *out)
{
	char *text = read_file("/proc/meminfo", NULL);
	if (!text)
		return 0;
	unsigned long long kb = 0;
	const char *p = strstr(text, "MemTotal:");
	int ret = p && sscanf(p, "MemTotal: %llu kB", &kb) == 1 && kb;
	if (ret)
		pd_buf_put_u64(out, kb); /* perf stores kB */
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

static int put_nrcpus(struct pd_buf *out)
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
	pd_buf_put_u32(out, (uint32_t)avail);
	pd_buf_put_u32(out, (uint32_t)online);
	return 1;
}

static void put_cmdline(struct pd_buf *out, const struct perfdata_meta *meta)
{
	if (meta && meta->argv && meta->argc > 0) {
		pd_buf_put_u32(out, (uint32_t)meta->argc);
		for (int i = 0; i < meta->argc; i++)
			pd_buf_put_string(out, meta->argv[i] ? meta->argv[i] : "");
		return;
	}
	/* Our own command line: NUL-separated in /proc/self/cmdline. */
	size_t len = 0;
	char *text = read_file("/proc/self/cmdline", &len);
	uint32_t n = 0;
	for (size_t i = 0; text && i < len; i += strlen(text + i) + 1)
		n++;
	pd_buf_put_u32(out, n);
	for (size_t i = 0; text && i < len; i += strlen(text + i) + 1)
		pd_buf_put_string(out, text + i);
	free(text);
}

static void put_event_desc(struct pd_buf *out, const struct pd_feature_input *in)
{
	pd_buf_put_u32(out, (uint32_t)in->nevents);
	pd_buf_put_u32(out, in->attr_size);
	for (size_t i = 0; i < in->nevents; i++) {
		const struct pd_event *e = &in->events[i];
		struct perf_event_attr a = e->attr;
		a.size = in->attr_size;
		size_t have = sizeof(a) < in->attr_size ? sizeof(a) : in->attr_size;
		pd_buf_put(out, &a, have);
		put_zeros(out, in->attr_size - have);
		pd_buf_put_u32(out, (uint32_t)e->nids);
		pd_buf_put_string(out, e->name ? e->name : "");
		pd_buf_put(out, e->ids, e->nids * sizeof(uint64_t));
	}
}

static void put_build_ids(struct pd_buf *out, const struct pd_feature_input *in)
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
		pd_buf_put(out, &e, sizeof(e));
		pd_buf_put(out, b->filename, n);
		put_zeros(out, padded - n);
	}
}

static int put_clock(int feat, struct pd_buf *out, int clockid)
{
	struct timespec res, wall, clk;
	if (clockid < 0 || clock_getres(clockid, &res))
		return 0;
	if (feat == HEADER_CLOCKID) {
		/* perf shows 1000 / this as "clockid frequency: N MHz" */
		uint64_t res_ns = (uint64_t)res.tv_sec * 1000000000 + (uint64_t)res.tv_nsec;
		pd_buf_put_u64(out, res_ns ? res_ns : 1);
		return 1;
	}
	/* HEADER_CLOCK_DATA: one reading of the wall clock and of the sampling clock taken
	 * together, so timestamps convert to time of day. */
	if (clock_gettime(CLOCK_REALTIME, &wall) || clock_gettime(clockid, &clk))
		return 0;
	pd_buf_put_u32(out, 1); /* version */
	pd_buf_put_u32(out, (uint32_t)clockid);
	pd_buf_put_u64(out, (uint64_t)wall.tv_sec * 1000000000 + (uint64_t)wall.tv_nsec);
	pd_buf_put_u64(out, (uint64_t)clk.tv_sec * 1000000000 + (uint64_t)clk.tv_nsec);
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

int perfdata_feature_encode(int feat, const struct pd_feature_input *in, struct pd_buf *out)
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
		pd_buf_put(out, m->tracing_data, m->tracing_data_size);
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
	pd_buf_put_string(out, s);
	return 1;
}
