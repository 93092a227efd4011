# bash completion for perfcollect-c
# Options complete in perfcollect's spelling (-pid) and as GNU long options (--pid).

# The entries of a trace.zip, for `cat ZIP <TAB>`.
_perfcollect_c_entries()
{
	perfcollect-c ls "$1" 2>/dev/null | awk '{ print $2 }'
}

# Files whose extension matches an extended glob (and directories to descend into); any file
# without an argument.
_perfcollect_c_files()
{
	if declare -F _filedir >/dev/null; then
		_filedir ${1:+"$1"}
	else
		local IFS=$'\n'
		COMPREPLY=($(compgen -d -- "$cur") $(compgen -f ${1:+-X "!*.$1"} -- "$cur"))
	fi
}

_perfcollect_c_dirs()
{
	if declare -F _filedir >/dev/null; then
		_filedir -d
	else
		local IFS=$'\n'
		COMPREPLY=($(compgen -d -- "$cur"))
	fi
}

_perfcollect_c()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	local commands="collect start stop merge view log ls cat stacks setenv install livetrace"
	if [ "$cword" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
		return
	fi
	local cmd=${words[1]} opts=""
	local collect_opts="-pid -collectsec -freq -F -buffersize -callgraph -threadtime -offcpu -hwevents -system -o -outdir -format -nodotnetipc -nodotnetevents -events -rawevents -providers -gccollectonly -gconly -gcwithheap -nolttng -noperf -symbolserver -nosymbolserver -symbolcache -symboltimeout -v -verbose -help"
	case $cmd in
	collect | start) opts=$collect_opts ;;
	stop) opts="-list -o -outdir -v -verbose -help" ;;
	merge) opts="-o -format -symbolserver -nosymbolserver -symbolcache -symboltimeout -help" ;;
	view) opts="-graphtype -processfilter -pid -tid -event -offcpu -runtime -report -format -o -output -flamegraph -folded -diff -title -width -top -percent-limit -viewer -perfopt -v -verbose -help" ;;
	log) opts="-tail -help" ;;
	ls | cat | livetrace) opts="-help" ;;
	install) opts="-force -help" ;;
	stacks) opts="-p -pid -kernel -module -state -o -output -zip -nokernel -nodotnetipc -help" ;;
	setenv) opts="-help --" ;;
	esac

	# The value of the option before the cursor (-pid or --pid alike).
	local p=${prev#-}
	p=${p#-}
	case $p in
	pid | tid | p)
		if declare -F _pids >/dev/null; then _pids; else
			COMPREPLY=($(compgen -W "$(ls /proc | grep -E '^[0-9]+$')" -- "$cur"))
		fi
		return ;;
	graphtype)
		COMPREPLY=($(compgen -W "callee caller" -- "$cur"))
		return ;;
	callgraph)
		COMPREPLY=($(compgen -W "hybrid fp dwarf" -- "$cur"))
		return ;;
	viewer)
		COMPREPLY=($(compgen -W "perf lttng" -- "$cur"))
		return ;;
	state)
		COMPREPLY=($(compgen -W "D R S T I" -- "$cur"))
		return ;;
	format)
		case $cmd in
		view) COMPREPLY=($(compgen -W "text svg folded pprof speedscope html csv" -- "$cur")) ;;
		collect | start | merge) COMPREPLY=($(compgen -W "perfcollect nettrace both" -- "$cur")) ;;
		esac
		return ;;
	symbolcache)
		_perfcollect_c_dirs
		return ;;
	o | outdir | output)
		# collect, start and stop take a directory; the others write a file.
		case $cmd in
		collect | start | stop) _perfcollect_c_dirs ;;
		*) _perfcollect_c_files ;;
		esac
		return ;;
	zip | flamegraph | folded)
		_perfcollect_c_files
		return ;;
	diff)
		_perfcollect_c_files '@(trace.zip|nettrace)'
		return ;;
	collectsec | freq | F | buffersize | tail | top | percent-limit | processfilter | module | events | rawevents | providers | event | title | width | perfopt | symbolserver | symboltimeout)
		return ;;
	esac

	if [[ $cur == --* ]]; then
		COMPREPLY=($(compgen -W "$(printf -- '-%s ' $opts)" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	# The positional words: which one is the cursor on?
	local i npos=0
	for ((i = 2; i < cword; i++)); do
		case ${words[i]} in
		-o | -outdir | -output | --o | --outdir | --output | -pid | --pid | -p | -tid | --tid | \
			-collectsec | --collectsec | -buffersize | --buffersize | -callgraph | --callgraph | \
			-events | --events | \
			-rawevents | --rawevents | -graphtype | --graphtype | -processfilter | \
			--processfilter | -event | --event | -format | --format | -flamegraph | \
			--flamegraph | -folded | --folded | -diff | --diff | -title | --title | -width | \
			--width | -top | --top | -percent-limit | --percent-limit | -viewer | --viewer | \
			-perfopt | --perfopt | -tail | --tail | -module | --module | -zip | --zip | -state | --state | \
			-symbolserver | --symbolserver | -symbolcache | --symbolcache | -symboltimeout | --symboltimeout)
			((i++)) ;;
		-*) ;;
		*) ((npos++)) ;;
		esac
	done
	case $cmd in
	view) if [ $npos -eq 0 ]; then _perfcollect_c_files '@(trace.zip|nettrace|netperf|zip)'
		else COMPREPLY=($(compgen -W "gc jit" -- "$cur")); fi ;;
	log | ls) [ $npos -eq 0 ] && _perfcollect_c_files 'zip' ;;
	cat)
		if [ $npos -eq 0 ]; then
			_perfcollect_c_files 'zip'
		elif [ $npos -eq 1 ]; then
			local zip j
			for ((j = 2; j < cword; j++)); do
				[[ ${words[j]} != -* ]] && { zip=${words[j]}; break; }
			done
			local IFS=$'\n'
			COMPREPLY=($(compgen -W "$(_perfcollect_c_entries "${zip/#\~/$HOME}")" -- "$cur"))
		fi ;;
	merge) [ $npos -eq 0 ] && _perfcollect_c_files ;;
	stop)
		# The background collections of this user's registry, wherever they were started.
		[ $npos -eq 0 ] && COMPREPLY=($(compgen -W "$(perfcollect-c stop -list 2>/dev/null | awk '{ print $1 }')" -- "$cur")) ;;
	esac
}
complete -F _perfcollect_c perfcollect-c
