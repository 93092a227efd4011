/* perf_abi: the on-disk layout of perf.data (tools/perf/Documentation/perf.data-file-format.txt)
 * and the record types that only exist in files, not in the kernel's ring buffer.
 * Kernel record types and perf_event_attr come from <linux/perf_event.h>.
 */
#ifndef PC_PERF_ABI_H
#define PC_PERF_ABI_H

#include "base/span.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" little-endian */

/* Our hybrid call stacks (collect -callgraph hybrid): each sample has the kernel's
 * frame-pointer chain, the user registers and a small copy of the user stack.  Written as
 * the kernel gives them, perf would unwind the copy itself and print its frames after the
 * chain's, every user frame twice; so in perf.data the attr has PERF_SAMPLE_STACK_USER
 * without PERF_SAMPLE_REGS_USER, and sample_regs_user still names the registers, whose
 * values are the first words of each sample's stack data (its size and dyn_size count them
 * too).  perf, which unwinds only with both, prints the chain as it always did; readers of
 * this layout know it by that attr (perfdata_attr_regs_in_stack()). */

struct perf_file_section {
	uint64_t offset;
	uint64_t size;
};

#define HEADER_FEAT_BITS 256

struct perf_file_header {
	uint64_t magic;
	uint64_t size;	    /* sizeof(struct perf_file_header) */
	uint64_t attr_size; /* sizeof(struct perf_file_attr) as written */
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types; /* unused, zero */
	uint64_t adds_features[HEADER_FEAT_BITS / 64];
};

/* Each entry of the attrs section: the attr (attr.size bytes, we write PERF_ATTR_SIZE_VER8 or
 * the size our headers have) followed by a section pointing at the u64 ids. */
struct perf_file_attr {
	struct perf_event_attr attr;
	struct perf_file_section ids;
};

/* Feature bits (enum in tools/perf/util/header.h). */
enum perf_header_feature {
	HEADER_RESERVED = 0,
	HEADER_TRACING_DATA = 1,
	HEADER_BUILD_ID,
	HEADER_HOSTNAME,
	HEADER_OSRELEASE,
	HEADER_VERSION,
	HEADER_ARCH,
	HEADER_NRCPUS,
	HEADER_CPUDESC,
	HEADER_CPUID,
	HEADER_TOTAL_MEM,
	HEADER_CMDLINE,
	HEADER_EVENT_DESC,
	HEADER_CPU_TOPOLOGY,
	HEADER_NUMA_TOPOLOGY,
	HEADER_BRANCH_STACK,
	HEADER_PMU_MAPPINGS,
	HEADER_GROUP_DESC,
	HEADER_AUXTRACE,
	HEADER_STAT,
	HEADER_CACHE,
	HEADER_SAMPLE_TIME,
	HEADER_MEM_TOPOLOGY,
	HEADER_CLOCKID,
	HEADER_DIR_FORMAT,
	HEADER_BPF_PROG_INFO,
	HEADER_BPF_BTF,
	HEADER_COMPRESSED,
	HEADER_CPU_PMU_CAPS,
	HEADER_CLOCK_DATA,
	HEADER_HYBRID_TOPOLOGY,
	HEADER_PMU_CAPS,
	HEADER_LAST_FEATURE,
};

/* User-space record types (tools/perf/util/event.h). */
enum perf_user_event_type {
	PERF_RECORD_USER_TYPE_START = 64,
	PERF_RECORD_HEADER_ATTR = 64,
	PERF_RECORD_HEADER_EVENT_TYPE = 65,
	PERF_RECORD_HEADER_TRACING_DATA = 66,
	PERF_RECORD_HEADER_BUILD_ID = 67,
	PERF_RECORD_FINISHED_ROUND = 68,
	PERF_RECORD_ID_INDEX = 69,
	PERF_RECORD_AUXTRACE_INFO = 70,
	PERF_RECORD_AUXTRACE = 71,
	PERF_RECORD_AUXTRACE_ERROR = 72,
	PERF_RECORD_THREAD_MAP = 73,
	PERF_RECORD_CPU_MAP = 74,
	PERF_RECORD_STAT_CONFIG = 75,
	PERF_RECORD_STAT = 76,
	PERF_RECORD_STAT_ROUND = 77,
	PERF_RECORD_EVENT_UPDATE = 78,
	PERF_RECORD_TIME_CONV = 79,
	PERF_RECORD_HEADER_FEATURE = 80,
	PERF_RECORD_COMPRESSED = 81,
	PERF_RECORD_FINISHED_INIT = 82,
};

/* Build-id entry of the HEADER_BUILD_ID feature section: header.misc carries the cpumode
 * (PERF_RECORD_MISC_KERNEL / _USER), followed by the NUL-padded filename (aligned to 64). */
struct perf_build_id_entry {
	struct perf_event_header header;
	int32_t pid;
	uint8_t build_id[24]; /* 20 bytes used for SHA1 build-ids, then size in byte 20..23 (see
				 PERF_RECORD_MISC_BUILD_ID_SIZE) */
			      /* char filename[]; */
};
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)

/* Whether the record at rec is followed by bytes outside its header's size, and how many
 * (*size): PERF_RECORD_AUXTRACE's trace data (its u64 size) and
 * PERF_RECORD_HEADER_TRACING_DATA's tracing data (its u32).  rec is read for its header's
 * size, at any alignment. */
static inline bool perf_record_payload(const void *rec, uint64_t *size)
{
	const uint8_t *p = rec;
	uint32_t type = load_le32(p);
	uint16_t len = load_le16(p + 6);
	if (type == PERF_RECORD_AUXTRACE && len >= 16)
		*size = load_le64(p + 8);
	else if (type == PERF_RECORD_HEADER_TRACING_DATA && len >= 12)
		*size = load_le32(p + 8);
	else
		return false;
	return true;
}

#endif
