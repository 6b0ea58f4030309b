#!/bin/bash
# patrol-orphan.sh - finding 7 of issue 11: SIGKILL of the patrol's main process alone (not its
# process group: an admin's kill -9, the OOM killer, a supervisor other than systemd) leaves no
# scanner running; while a scan of a target runs, a second scan of it (an admin's `mediascan
# scan`) is refused with exit status 4 and says who holds it; a restarted patrol resumes the
# pass and records it (no "Stale file handle", no "could not be recorded"); a patrol that
# finds its target held by an admin's scan waits for it, saying so once.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v sqlite3 >/dev/null || e2e_skip "sqlite3 is not installed"
e2e_setup 256
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
state=$E2E_DIR/state
conf=$E2E_DIR/mediascan.conf
cat >"$conf" <<EOC
[global]
state_dir = $state
window = 25s
rate_max = 100M
rate_min = 1M

[target raw]
path = $E2E_LOOP
EOC
e2e_bad_add $((200 << 20)) 512

patrol=
scanner=
cleanup_patrol()
{
	local rc=$?

	[ -z "$patrol" ] || kill -KILL "$patrol" 2>/dev/null || :
	[ -z "$scanner" ] || kill -KILL "$scanner" 2>/dev/null || :
	sleep 0.5
	_e2e_cleanup
	exit "$rc"
}
trap cleanup_patrol EXIT

complete_passes()
{
	sqlite3 "$state/mediascan.db" "select count(*) from passes where result = 'complete'" \
		2>/dev/null || echo 0
}

# scanner_of PID : the pid of PID's scan child, waiting up to 10 s for it.
scanner_of()
{
	local p
	for _ in $(seq 100); do
		p=$(ps -o pid= --ppid "$1" | tr -d ' ' | head -1)
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.1
	done
	return 1
}

"$MEDIASCAN" patrol --config "$conf" 2>"$E2E_DIR/patrol1.log" &
patrol=$!
scanner=$(scanner_of "$patrol") || e2e_fail "patrol started no scan in 10 s"
sleep 3

# A second scan of the same target while patrol's scanner reads it: refused, exit 4, and it
# says who holds the target.
rc=0
"$MEDIASCAN" scan "$E2E_LOOP" --state-dir "$state" --progress none \
	>"$E2E_DIR/scan2.out" 2>"$E2E_DIR/scan2.err" || rc=$?
e2e_log "second scan: exit $rc: $(cat "$E2E_DIR/scan2.err")"
ms_expect_eq "a second scan of a target being scanned exits 4" "$rc" 4
e2e_check "it names the scanner holding the target" grep -q "pid $scanner" "$E2E_DIR/scan2.err"
e2e_check "the patrol scanner still runs" kill -0 "$scanner"

# SIGKILL the patrol main process only.
kill -KILL "$patrol"
wait "$patrol" 2>/dev/null || :
patrol=
gone=
for _ in $(seq 50); do
	kill -0 "$scanner" 2>/dev/null || { gone=1; break; }
	sleep 0.1
done
e2e_check "the scanner died with the patrol (within 5 s)" test -n "$gone"
scanner=

# A restarted patrol resumes the pass and records it.
"$MEDIASCAN" patrol --config "$conf" 2>"$E2E_DIR/patrol2.log" &
patrol=$!
t0=$SECONDS
while [ "$(complete_passes)" -lt 1 ]; do
	[ $((SECONDS - t0)) -lt 60 ] || e2e_fail "no complete pass 60 s after the restart"
	sleep 1
done
kill -TERM "$patrol"
rc=0
wait "$patrol" || rc=$?
patrol=
ms_expect_eq "patrol exits 0 on SIGTERM" "$rc" 0
e2e_log "restarted patrol: $(tr '\n' ' ' <"$E2E_DIR/patrol2.log")"
e2e_check_fails "no 'Stale file handle' or unrecorded pass" \
	grep -q "Stale file handle\|could not be recorded\|is not running" "$E2E_DIR/patrol2.log"
ms_expect_eq "the killed pass was resumed and completed" \
	"$(sqlite3 "$state/mediascan.db" "select id || ' ' || result from passes order by id limit 1")" \
	"1 complete"
ms_expect_eq "one error row" "$(sqlite3 "$state/mediascan.db" "select count(*) from errors")" 1

# A patrol that finds its target being scanned by another mediascan (an admin's scan) waits
# for it: one message, no scan started, no retry every second.
"$MEDIASCAN" scan "$E2E_LOOP" --rate 5M --no-state --progress none >/dev/null 2>&1 &
scanner=$!
for _ in $(seq 50); do
	grep -qs "pid $scanner" /run/mediascan/disk-"$(basename "$E2E_LOOP")".lock && break
	sleep 0.1
done
"$MEDIASCAN" patrol --config "$conf" 2>"$E2E_DIR/patrol3.log" &
patrol=$!
sleep 4
kill -TERM "$patrol"
wait "$patrol" || :
patrol=
kill -TERM "$scanner"
wait "$scanner" || :
scanner=
e2e_log "patrol beside an admin's scan: $(tr '\n' ' ' <"$E2E_DIR/patrol3.log")"
ms_expect_eq "patrol says once that the target is being scanned" \
	"$(grep -c "not scanning raw for 60 s: target $E2E_LOOP is being scanned by another mediascan (pid [0-9]*: mediascan scan $E2E_LOOP)" "$E2E_DIR/patrol3.log")" 1
e2e_check_fails "patrol started no scan of it" grep -q "scanning raw (" "$E2E_DIR/patrol3.log"

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "scanners die with the patrol; a target is scanned by one process at a time"
