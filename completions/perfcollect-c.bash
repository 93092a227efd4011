# bash completion for perfcollect-c
_perfcollect_c()
{
	local cur prev words cword
	_init_completion 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	}
	local commands="collect merge view log ls cat stacks setenv install livetrace"
	if [ "$cword" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
		return
	fi
	local opts=""
	case ${words[1]} in
	collect) opts="-pid -collectsec -buffersize -threadtime -offcpu -hwevents -system -o -outdir -format -nodotnetipc -nolttng -noperf -events -rawevents -gccollectonly -gconly -gcwithheap -help" ;;
	merge) opts="-o -format -help" ;;
	view) opts="-graphtype -processfilter -pid -tid -event -offcpu -flamegraph -folded -top -percent-limit -help" ;;
	log) opts="-tail -help" ;;
	ls | cat | install | livetrace) opts="-help" ;;
	stacks) opts="-pid -kernel -module -state -o -output -zip -nokernel -nodotnetipc -help" ;;
	setenv) opts="-help --" ;;
	esac
	case $prev in
	-pid | -tid)
		COMPREPLY=($(compgen -W "$(ls /proc | grep -E '^[0-9]+$')" -- "$cur"))
		return ;;
	-graphtype)
		COMPREPLY=($(compgen -W "callee caller" -- "$cur"))
		return ;;
	-format)
		COMPREPLY=($(compgen -W "perfcollect nettrace both" -- "$cur"))
		return ;;
	-o | -output | -zip | -outdir | -flamegraph | --flamegraph | -folded | --folded)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	-collectsec | -buffersize | -tail | -top | -percent-limit | -processfilter | -module | -events | -event)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		case ${words[1]} in
		merge | view | log | ls | cat) COMPREPLY=($(compgen -f -- "$cur")) ;;
		esac
	fi
}
complete -F _perfcollect_c perfcollect-c
