# zsh -f zsh_complete.zsh FPATH_DIR "LINE" DUMP: the candidates an interactive zsh (compinit, the
# completion functions found in FPATH_DIR) lists when TAB is pressed at the end of LINE, one
# a line.  Runs zsh on a pseudo-terminal (zsh/zpty) and reads its listing, each candidate
# marked through list-colors.  LINE must have two or more candidates: with one, zsh inserts it
# and lists nothing.  DUMP is compinit's dump file (made by the first call, then reused:
# scanning every completion function takes seconds).
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1='%% '; LISTMAX=100000; LINES=1000; COLUMNS=4000; unsetopt alwayslastprompt listpacked; fpath=($1 \$fpath); autoload -U compinit; compinit -u -d $3"
zpty -w z "zstyle ':completion:*:default' list-colors 'lc=<LC>' 'rc=<RC>' 'ec=<EC>'; zstyle ':completion:*' menu no"
zpty -w z 'print READY__'
zpty -r z out '*READY__*READY__*' || exit 1
# Two TABs: the first may only insert the candidates' common prefix; the second lists.
zpty -w -n z "$2"$'\t\t'
zpty -r z out "*<EC>*% ${2% }*" || exit 1
print -r -- "$out" | tr -d '\r' | grep -ao '<RC>[^<]*<EC>' |
	sed -e 's/<RC>//' -e 's/<EC>//' -e 's/  *-- .*//' -e 's/ *$//' | grep -v '^/\?$' | grep -v '^-- ' | sort -u
zpty -d z
