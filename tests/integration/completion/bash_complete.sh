# bash --norc bash_complete.sh PREFIX WORD...: the candidates bash-completion offers for the
# last WORD after the others, with perfcollect-c's completion loaded the way bash-completion
# finds it (by command name, from PREFIX/share/bash-completion/completions via
# XDG_DATA_DIRS).  One a line.
prefix=$1
shift
. /usr/share/bash-completion/bash_completion
export XDG_DATA_DIRS=$prefix/share
__load_completion perfcollect-c || { echo "FAIL: bash-completion found no completion for perfcollect-c"; exit 1; }
fn=$(complete -p perfcollect-c | sed -E 's/.* -F ([^ ]+) .*/\1/')
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
"$fn" perfcollect-c "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}" | sed 's:/$::' | sort -u
