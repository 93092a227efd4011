/* flamegraph_script: the script inside every SVG flame graph (hover, zoom, search, fit to the
 * window), kept apart from the C that lays the frames out.  Written for this project. */
#ifndef PC_FLAMEGRAPH_SCRIPT_H
#define PC_FLAMEGRAPH_SCRIPT_H

extern const char flamegraph_script[];

#endif
