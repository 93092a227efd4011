/* nettrace_blocks: the NetTrace format's block kinds (NetTraceFormat_v6.md's block headers),
 * one list for the reader and the writer. */
#ifndef PC_NETTRACE_BLOCKS_H
#define PC_NETTRACE_BLOCKS_H

enum block_kind {
	BLOCK_END = 0,
	BLOCK_TRACE = 1,
	BLOCK_EVENT = 2,
	BLOCK_METADATA = 3,
	BLOCK_SEQUENCE_POINT = 4,
	BLOCK_STACK = 5,
	BLOCK_THREAD = 6,
	BLOCK_REMOVE_THREAD = 7,
	BLOCK_LABEL_LIST = 8,
};

#endif
