# fish completion for perfcollect-c
# Options complete in perfcollect's spelling (-pid: fish's -o) and as GNU long options
# (--pid: fish's -l).
set -l cmds collect start stop merge view log ls cat stacks setenv install livetrace
complete -c perfcollect-c -f
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a collect -d 'record and write <name>.trace.zip'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a start -d 'record in the background'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a stop -d 'end a background collection'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a merge -d 'post-process a perf.data, .trace dir or .trace.zip'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a view -d 'PerfView views: call trees, flame graphs, GC and JIT tables'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a log -d 'print perfcollect.log'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a ls -d 'list archive entries'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a cat -d 'print one archive entry'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a stacks -d 'thread stacks of a live process'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a setenv -d 'shell with DOTNET_PerfMapEnabled=1'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a install -d 'check this kernel'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a livetrace -d 'what live tracing supports'

# The entries of the archive named after `cat`, for its second argument.
function __perfcollect_c_cat_entry
	set -l t (commandline -opc)
	test (count $t) -eq 3; and test "$t[2]" = cat
end
function __perfcollect_c_entries
	set -l t (commandline -opc)
	perfcollect-c ls $t[3] 2>/dev/null | string replace -r '^\s*\d+\s+' ''
end
# Files with one of the given suffixes, and directories to descend into.
function __perfcollect_c_files
	set -l tok (commandline -ct)
	for f in $tok*/
		echo $f
	end
	for suffix in $argv
		for f in $tok*$suffix
			test -f $f; and echo $f
		end
	end
end
# The background collections of this user's registry (wherever they were started), for stop.
function __perfcollect_c_running
	perfcollect-c stop -list 2>/dev/null | string replace -r ' .*' ''
end

# collect, start
set -l c "__fish_seen_subcommand_from collect start"
complete -c perfcollect-c -n $c -o pid -l pid -x -a '(__fish_complete_pids)' -d 'record this process'
complete -c perfcollect-c -n $c -o collectsec -l collectsec -x -d 'stop after N seconds'
complete -c perfcollect-c -n $c -o freq -o F -l freq -x -d 'samples per second'
complete -c perfcollect-c -n $c -o buffersize -l buffersize -x -d 'ring buffer: N pages or N[BKMG]'
complete -c perfcollect-c -n $c -o callgraph -l callgraph -x -a 'hybrid fp dwarf' -d 'call stacks'
complete -c perfcollect-c -n $c -o threadtime -l threadtime -d 'also scheduler tracepoints'
complete -c perfcollect-c -n $c -o offcpu -l offcpu -d 'scheduler tracepoints only'
complete -c perfcollect-c -n $c -o hwevents -l hwevents -d 'hardware events'
complete -c perfcollect-c -n $c -o system -l system -d 'page faults'
complete -c perfcollect-c -n $c -o o -l o -x -a '(__fish_complete_directories)' -d 'output directory'
complete -c perfcollect-c -n $c -o outdir -l outdir -x -a '(__fish_complete_directories)' -d 'output directory'
complete -c perfcollect-c -n $c -o format -l format -x -a 'perfcollect nettrace both' -d 'what to write'
complete -c perfcollect-c -n $c -o nodotnetipc -l nodotnetipc -d 'no .NET perf map IPC'
complete -c perfcollect-c -n $c -o nodotnetevents -l nodotnetevents -d 'no .NET runtime events'
complete -c perfcollect-c -n $c -o events -l events -x -d '.NET events: keyword groups'
complete -c perfcollect-c -n $c -o rawevents -l rawevents -x -d '.NET events by name'
complete -c perfcollect-c -n $c -o providers -l providers -x -d 'EventSources (dotnet-trace syntax)'
complete -c perfcollect-c -n $c -o gccollectonly -l gccollectonly -d '.NET GC collections, no CPU samples'
complete -c perfcollect-c -n $c -o gconly -l gconly -d '.NET GC, JIT, loader; no CPU samples'
complete -c perfcollect-c -n $c -o gcwithheap -l gcwithheap -d '.NET GC with heap; no CPU samples'
complete -c perfcollect-c -n $c -o nolttng -l nolttng -d 'no .NET runtime events'
complete -c perfcollect-c -n $c -o noperf -l noperf -d 'no CPU samples'
complete -c perfcollect-c -n $c -o v -o verbose -l verbose -d 'say which perfcollect options are ignored'
# collect, start, merge: symbol servers
set -l sy "__fish_seen_subcommand_from collect start merge"
complete -c perfcollect-c -n $sy -o symbolserver -l symbolserver -x -d 'also ask this SSQP symbol server'
complete -c perfcollect-c -n $sy -o nosymbolserver -l nosymbolserver -d 'ask no symbol server'
complete -c perfcollect-c -n $sy -o symbolcache -l symbolcache -x -a '(__fish_complete_directories)' -d 'symbol cache directory'
complete -c perfcollect-c -n $sy -o symboltimeout -l symboltimeout -x -d 'seconds for fetching symbols'
# stop: the background collections of the registry, then its options
set -l st "__fish_seen_subcommand_from stop"
complete -c perfcollect-c -n $st -a '(__perfcollect_c_running)'
complete -c perfcollect-c -n $st -o list -l list -d 'list the background collections'
complete -c perfcollect-c -n $st -o o -l o -x -a '(__fish_complete_directories)' -d 'not needed: start chose it'
complete -c perfcollect-c -n $st -o outdir -l outdir -x -a '(__fish_complete_directories)' -d 'not needed: start chose it'
complete -c perfcollect-c -n $st -o v -o verbose -l verbose -d 'say which perfcollect options are ignored'
# merge
complete -c perfcollect-c -n "__fish_seen_subcommand_from merge" -F
complete -c perfcollect-c -n "__fish_seen_subcommand_from merge" -o o -l o -r -d 'archive to write'
complete -c perfcollect-c -n "__fish_seen_subcommand_from merge" -o format -l format -x -a 'perfcollect nettrace both' -d 'what to write'
# view: traces only, then its options
set -l v "__fish_seen_subcommand_from view"
complete -c perfcollect-c -n $v -a '(__perfcollect_c_files .trace.zip .nettrace .netperf .zip)'
complete -c perfcollect-c -n $v -o graphtype -l graphtype -x -a 'callee caller' -d 'tree direction'
complete -c perfcollect-c -n $v -o processfilter -l processfilter -x -d 'only this command name'
complete -c perfcollect-c -n $v -o pid -l pid -x -d 'only this process'
complete -c perfcollect-c -n $v -o tid -l tid -x -d 'only this thread'
complete -c perfcollect-c -n $v -o event -l event -x -a 'cpu-clock alloc exception contention' -d 'the view to show'
complete -c perfcollect-c -n $v -o offcpu -l offcpu -d 'only the blocked (off-CPU) time'
complete -c perfcollect-c -n $v -o runtime -l runtime -d 'the .NET runtime findings and tables (then gc or jit)'
complete -c perfcollect-c -n $v -o report -l report -d 'write NAME.report.html beside the trace, print its path'
complete -c perfcollect-c -n $v -o format -l format -x -a 'text svg folded pprof speedscope html csv' -d 'output format'
complete -c perfcollect-c -n $v -o o -l o -r -F -d 'where -format writes'
complete -c perfcollect-c -n $v -o output -l output -r -F -d 'where -format writes'
complete -c perfcollect-c -n $v -o flamegraph -l flamegraph -r -F -d 'write an SVG flame graph'
complete -c perfcollect-c -n $v -o folded -l folded -r -F -d 'write folded stacks'
complete -c perfcollect-c -n $v -o diff -l diff -x -a '(__perfcollect_c_files .trace.zip .nettrace)' -d 'compare with an older trace'
complete -c perfcollect-c -n $v -o title -l title -x -d 'flame graph title'
complete -c perfcollect-c -n $v -o width -l width -x -d 'flame graph width (px)'
complete -c perfcollect-c -n $v -o percent-limit -l percent-limit -x -d 'prune under P percent'
complete -c perfcollect-c -n $v -o top -l top -x -d 'number of top functions'
complete -c perfcollect-c -n $v -o viewer -l viewer -x -a 'perf lttng' -d 'perfcollect viewer'
complete -c perfcollect-c -n $v -o perfopt -l perfopt -x -d 'perf report options'
complete -c perfcollect-c -n $v -o v -o verbose -l verbose -d 'say which perfcollect options are ignored'
# log, ls, cat
complete -c perfcollect-c -n "__fish_seen_subcommand_from log ls cat; and not __perfcollect_c_cat_entry" -a '(__perfcollect_c_files .zip)'
complete -c perfcollect-c -n __perfcollect_c_cat_entry -x -a '(__perfcollect_c_entries)' -d 'archive entry'
complete -c perfcollect-c -n "__fish_seen_subcommand_from log" -o tail -l tail -x -d 'last N lines'
# stacks
set -l s "__fish_seen_subcommand_from stacks"
complete -c perfcollect-c -n $s -o p -l p -x -a '(__fish_complete_pids)' -d 'process to snapshot'
complete -c perfcollect-c -n $s -o pid -l pid -x -a '(__fish_complete_pids)' -d 'process to snapshot'
complete -c perfcollect-c -n $s -o kernel -l kernel -d 'every task on the machine'
complete -c perfcollect-c -n $s -o module -l module -x -d 'only threads with this module'
complete -c perfcollect-c -n $s -o state -l state -x -a 'D R S T I' -d 'only threads in these states'
complete -c perfcollect-c -n $s -o o -l o -r -F -d 'write the report to a file'
complete -c perfcollect-c -n $s -o output -l output -r -F -d 'write the report to a file'
complete -c perfcollect-c -n $s -o zip -l zip -r -F -d 'write the report into a new trace.zip'
complete -c perfcollect-c -n $s -o nokernel -l nokernel -d 'skip kernel stacks'
complete -c perfcollect-c -n $s -o nodotnetipc -l nodotnetipc -d 'never ask a .NET runtime for perf maps'
# install
complete -c perfcollect-c -n "__fish_seen_subcommand_from install" -o force -l force -d 'also mount tracefs'
