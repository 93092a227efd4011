#!/bin/bash
# Issue 24, finding 8: a process names itself (and its threads) with terminal escapes, to clear
# root's screen, set its title or forge a line of output.  Nothing it chose may reach the
# terminal or the log as a control character: stacks' report, collect's messages and log, and
# view's report of the trace show it escaped (\e, \x07), and the rest of the name stays.
source "$(dirname "$0")/lib.sh"
need_root
need_cmd python3

# comm: ESC [2J (clear), ESC ]0;pwn BEL (title), a C1 CSI (U+009B), a newline; 15 bytes max.
cat >evil.py <<'EOF'
import ctypes, sys, threading
libc = ctypes.CDLL(None)
def name(b):
    libc.prctl(15, ctypes.c_char_p(b), 0, 0, 0)  # PR_SET_NAME
def spin():
    name(b"\x1b]0;pwn\x07t\nX")
    while True:
        pass
name(b"\x1b[2J\x1b]0;pwn\x07")
threading.Thread(target=spin, daemon=True).start()
open(sys.argv[1], "w").write("ready")
while True:
    pass
EOF
python3 evil.py "$T/ready" &
evil=$!
cleanup_hooks+=("kill -9 $evil 2>/dev/null")
wait_until 20 test -s "$T/ready" || { fail "the evil process did not start"; finish; }
check "its comm really holds escapes" grep -q $'\x1b' /proc/$evil/comm

no_controls() { # FILE...: no byte below 0x20 but newline, no DEL, no C1 (as UTF-8 or alone)
	! LC_ALL=C grep -naP '[\x00-\x09\x0b-\x1f\x7f\x80-\x9f]' "$@" | head -3 | grep .
}

"$PC" stacks -pid $evil >stacks.out 2>stacks.err
check "stacks exits 0" test $? = 0
check "stacks: no control character in its report or messages" no_controls stacks.out stacks.err
check "stacks: the process is named with its escapes shown" \
	grep -qF 'Process '$evil' (\e[2J\e]0;pwn\x07)' stacks.out
check "stacks: the thread's name too, its newline as \\n" grep -qF '\e]0;pwn\x07t\nX' stacks.out

"$PC" collect evil -pid $evil -collectsec 1 >collect.out 2>collect.err
check "collect exits 0" test $? = 0
check "collect: no control character on its stdout or stderr" no_controls collect.out collect.err
unzip -p evil.trace.zip evil.trace/perfcollect.log >evil.log
check "collect: no control character in perfcollect.log" no_controls evil.log
"$PC" view evil.trace.zip >view.out 2>view.err
check "view exits 0" test $? = 0
check "view: no control character in its report" no_controls view.out view.err
check "view: the command is shown escaped" grep -qF '\e[2J\e]0;pwn\x07' view.out
finish
