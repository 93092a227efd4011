/* The diagnostics-IPC answers of a .NET runtime (lib/dotnet/dotnet_ipc.c): the input is one
 * reply as it comes off the socket (20-byte header, payload).  Whatever sits at a target's
 * socket path can answer anything, so the header, the status and both payload kinds
 * (HRESULT, ProcessInfo2) are parsed from it. */
#include "fuzz.h"
#include "dotnet/dotnet_ipc.h"

static uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_quiet(true);
	if (size < 20)
		return 0; /* the socket read fails first: "closed the connection" */
	size_t len = dotnet_ipc_reply_header(data, "fuzz");
	if (len == SIZE_MAX || len > size - 20)
		return 0;
	/* an exact-size copy of the payload, as ipc_call() reads it */
	unsigned char *payload = malloc(len + 1);
	memcpy(payload, data + 20, len);
	if (dotnet_ipc_reply_status(data, payload, len, "fuzz", 1) == 0) {
		sink += dotnet_ipc_hresult(payload, len, "fuzz", 1) == 0;
		struct dotnet_process_info info;
		if (dotnet_process_info_parse(payload, len, &info) == 0) {
			sink += info.nspid + strlen(info.command_line) + strlen(info.os) +
				strlen(info.arch) + strlen(info.entry_assembly) +
				strlen(info.version);
			dotnet_process_info_free(&info);
		}
	}
	free(payload);
	return 0;
}
