# fish completion for perfcollect-c
set -l cmds collect merge view log ls cat stacks setenv install livetrace
complete -c perfcollect-c -f
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a collect -d 'record and write <name>.trace.zip'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a merge -d 'post-process a perf.data, .trace dir or .trace.zip'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a view -d 'call tree, top functions, flame graphs'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a log -d 'print perfcollect.log'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a ls -d 'list archive entries'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a cat -d 'print one archive entry'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a stacks -d 'thread stacks of a live process'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a setenv -d 'shell with DOTNET_PerfMapEnabled=1'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a install -d 'check this kernel'
complete -c perfcollect-c -n "not __fish_seen_subcommand_from $cmds" -a livetrace -d 'what live tracing supports'

# collect
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o pid -x -a '(__fish_complete_pids)' -d 'record this process'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o collectsec -x -d 'stop after N seconds'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o buffersize -x -d 'ring buffer size'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o threadtime -d 'also scheduler tracepoints'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o offcpu -d 'scheduler tracepoints only'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o hwevents -d 'hardware events'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o system -d 'page faults'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o o -r -a '(__fish_complete_directories)' -d 'output directory'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o outdir -r -a '(__fish_complete_directories)' -d 'output directory'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o format -x -a 'perfcollect nettrace both' -d 'what to write'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o nodotnetipc -d 'no .NET perf map IPC'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o nolttng -d 'compatibility'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o noperf -d 'compatibility'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o events -x -d 'compatibility'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o rawevents -d 'compatibility'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o gccollectonly -d 'compatibility'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o gconly -d 'compatibility'
complete -c perfcollect-c -n "__fish_seen_subcommand_from collect" -o gcwithheap -d 'compatibility'
# merge
complete -c perfcollect-c -n "__fish_seen_subcommand_from merge" -F
complete -c perfcollect-c -n "__fish_seen_subcommand_from merge" -o o -r -d 'archive to write'
complete -c perfcollect-c -n "__fish_seen_subcommand_from merge" -o format -x -a 'perfcollect nettrace both' -d 'what to write'
# view
complete -c perfcollect-c -n "__fish_seen_subcommand_from view" -F
complete -c perfcollect-c -n "__fish_seen_subcommand_from view" -o graphtype -x -a 'callee caller' -d 'tree direction'
complete -c perfcollect-c -n "__fish_seen_subcommand_from view" -o processfilter -x -d 'only this command name'
complete -c perfcollect-c -n "__fish_seen_subcommand_from view" -o pid -x -d 'only this process'
complete -c perfcollect-c -n "__fish_seen_subcommand_from view" -o tid -x -d 'only this thread'
complete -c perfcollect-c -n "__fish_seen_subcommand_from view" -o percent-limit -x -d 'prune under P percent'
complete -c perfcollect-c -n "__fish_seen_subcommand_from view" -o top -x -d 'number of top functions'
complete -c perfcollect-c -n "__fish_seen_subcommand_from view" -o event -x -d 'the event to show'
complete -c perfcollect-c -n "__fish_seen_subcommand_from view" -o offcpu -d 'only the blocked (off-CPU) time'
complete -c perfcollect-c -n "__fish_seen_subcommand_from view" -o flamegraph -r -d 'write an SVG flame graph'
complete -c perfcollect-c -n "__fish_seen_subcommand_from view" -o folded -r -d 'write folded stacks'
# log, ls, cat
complete -c perfcollect-c -n "__fish_seen_subcommand_from log ls cat" -F
complete -c perfcollect-c -n "__fish_seen_subcommand_from log" -o tail -x -d 'last N lines'
# stacks
complete -c perfcollect-c -n "__fish_seen_subcommand_from stacks" -o pid -x -a '(__fish_complete_pids)' -d 'process to snapshot'
complete -c perfcollect-c -n "__fish_seen_subcommand_from stacks" -o module -x -d 'only threads with this module'
complete -c perfcollect-c -n "__fish_seen_subcommand_from stacks" -o o -r -d 'write the report to a file'
complete -c perfcollect-c -n "__fish_seen_subcommand_from stacks" -o output -r -d 'write the report to a file'
complete -c perfcollect-c -n "__fish_seen_subcommand_from stacks" -o zip -r -d 'write the report into a new trace.zip'
complete -c perfcollect-c -n "__fish_seen_subcommand_from stacks" -o nokernel -d 'skip kernel stacks'
complete -c perfcollect-c -n "__fish_seen_subcommand_from stacks" -o kernel -d 'every task on the machine'
complete -c perfcollect-c -n "__fish_seen_subcommand_from stacks" -o state -x -a 'D R S T I' -d 'only threads in these states'
complete -c perfcollect-c -n "__fish_seen_subcommand_from stacks" -o nodotnetipc -d 'never ask a .NET runtime for perf maps'
