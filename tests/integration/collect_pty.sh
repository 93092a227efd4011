# A collection whose terminal goes away still writes its trace: the controlling pty closed
# under it (as when an SSH session drops), the same under an interactive shell (which passes
# the SIGHUP on to its job), a background job writing to a terminal with `stty tostop` (no
# SIGTTOU stop), and stderr into a pipe whose reader has gone (no SIGPIPE death).
source "$(dirname "$0")/lib.sh"
need_root
need_perf
need_cmd unzip
need_cmd python3

start_hot 600

# pty_run MODE NAME: runs the collection on a new pty (MODE direct: the collector is the
# session leader; shell: an interactive bash runs it as its foreground job; tostop: bash
# runs it in the background after `stty tostop`), waits until it records, closes the pty
# (tostop: leaves it open) and waits until the collector is gone.  Prints its exit status.
pty_run() {
	python3 - "$1" "$PC" "$2" "$hot" <<'PY'
import os, pty, select, sys, time
mode, pc, name, hot = sys.argv[1:5]
cmd = [pc, "collect", name, "-pid", hot]
if mode == "tostop":
    cmd += ["-collectsec", "2"]
pid, fd = pty.fork()
if pid == 0:
    if mode == "direct":
        os.execv(pc, cmd)
    os.execv("/bin/bash", ["bash", "--norc", "--noprofile", "-i"])
seen, deadline = b"", time.time() + 60
def read_until(word):
    global seen
    while word not in seen and time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.5)
        if r:
            try:
                seen += os.read(fd, 4096)
            except OSError:
                return False
    return word in seen
if mode == "shell":
    os.write(fd, (" ".join(cmd) + "\n").encode())
elif mode == "tostop":
    # "J""OB=" so that the terminal's echo of this line does not look like the answer
    os.write(fd, ("stty tostop; " + " ".join(cmd) + ' & wait $!; echo "J""OB=$?"\n').encode())
if not read_until(b"Collecting"):
    print("never started:", seen.decode(errors="replace")[-500:], file=sys.stderr)
if mode == "tostop":
    read_until(b"JOB=")
    os.write(fd, b"exit\n")
    time.sleep(0.2)
os.close(fd)  # the terminal goes away: SIGHUP to its session
# The collector is the child (direct) or a child of bash: wait until none runs.
while time.time() < deadline:
    # "[p]": the shell running pgrep must not match its own command line
    out = os.popen("pgrep -f '[p]erfcollect-c collect %s '" % name).read().split()
    if not out:
        break
    time.sleep(0.1)
try:
    _, st = os.waitpid(pid, 0)
except ChildProcessError:
    st = 0
print("rc=%d" % (os.waitstatus_to_exitcode(st) if mode == "direct" else 0))
m = seen.decode(errors="replace")
if mode == "tostop":
    print("job " + (m[m.find("JOB="):].split()[0] if "JOB=" in m else "JOB=?"))
PY
}

check_zip() { # check_zip NAME REASON
	check "$1: zip written, trace directory removed" test -s "$1.trace.zip" -a ! -e "$1.trace"
	check "$1: a valid zip" unzip -tq "$1.trace.zip"
	check "$1: the log says: stopped by $2" \
		bash -c "'$PC' log '$1.trace.zip' | grep -q 'stop reason: $2'"
	local n
	n=$("$PC" cat "$1.trace.zip" perf.data.txt | grep -c '^[^[:space:]].*cpu-clock:')
	check "$1: it holds samples ($n)" test "$n" -gt 0
}

out=$(pty_run direct direct)
echo "$out"
check "direct: the collector exits 0 after its pty closed" grep -q "rc=0" <<<"$out"
check_zip direct "SIGHUP"

out=$(pty_run shell shell)
echo "$out"
check_zip shell "SIGHUP"

out=$(pty_run tostop tostop)
echo "$out"
check "tostop: the background job was not stopped by its writes (exit 0)" grep -q "job JOB=0" <<<"$out"
check_zip tostop "-collectsec elapsed"

# stderr into a pipe whose reader exits at once: no SIGPIPE death, the trace is written.
"$PC" collect pipe -pid "$hot" -collectsec 2 2>&1 | head -c 1 >/dev/null
check "pipe: the collector's exit status is 0" test "${PIPESTATUS[0]}" -eq 0
check_zip pipe "-collectsec elapsed"
finish
