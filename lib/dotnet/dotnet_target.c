/* dotnet_target: what `collect -pid` does with a .NET target (see dotnet_ipc.h): the
 * runtime's maps made complete for the collection and put back afterwards, by
 * dotnet_maps_ensure() and dotnet_maps_restore(). */
#include "base/log.h"
#include "dotnet_maps.h"

#include <stdlib.h>
#include <string.h>

/* Targets dotnet_prepare_target() asked something of, for dotnet_finish_target().  The
 * collector calls both from its main thread. */
static struct dotnet_maps *asked;
static size_t n_asked, cap_asked;

int dotnet_prepare_target(pid_t pid, bool enable_ipc, struct dotnet_guard *g)
{
	struct dotnet_maps m;
	dotnet_maps_ensure(pid, enable_ipc, g, &m);
	if (!m.asked)
		return 0;
	grow_array((void **)&asked, &cap_asked, n_asked + 1, sizeof(*asked));
	asked[n_asked++] = m;
	return 1;
}

void dotnet_finish_target(pid_t pid)
{
	size_t i = 0;
	while (i < n_asked && asked[i].pid != pid)
		i++;
	if (i == n_asked)
		return;
	struct dotnet_maps m = asked[i];
	asked[i] = asked[--n_asked];
	if (!n_asked) {
		free(asked);
		asked = NULL;
		cap_asked = 0;
	}
	dotnet_maps_restore(&m);
}
