#!/bin/bash
# history-stop.sh - a stop records only what was proven: (1) SIGTERM while a failed read is
# narrowed records no un-narrowed span (a 4 KiB bad range stays a 4 KiB damage row; before,
# an operational EINTR error of the span merged into it and made it 1 MiB); (2) SIGTERM while
# a late read is still waited for (under the hard cap) records no device fault (exit bit 16
# not set) and the resume reads it again; (3) SIGKILL after a checkpoint while a late read
# waits: the checkpoint cursor was held at the late read, the resume reads it again.
# Nothing is written to the device.
set -euo pipefail
. "$(dirname "$0")/../lib/history.sh"
e2e_require_root_loop_fuse
ms_require
command -v sqlite3 >/dev/null || e2e_skip "sqlite3 is not installed"
e2e_setup 32
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
out=$E2E_DIR/r.json

# wait_reads OFF LEN N : wait (up to 20 s) until N reads touched range OFF LEN.
wait_reads()
{
	for _ in $(seq 400); do
		[ "$(e2e_bad_reads "$1" "$2")" -ge "$3" ] && return 0
		sleep 0.05
	done
	e2e_fail "no $3 reads of $1+$2 within 20 s"
}

# 1. SIGTERM during isolation.
st=$E2E_DIR/state1
export MS_STATE_DIR=$st
bad=$((12 << 20))
e2e_bad_add "$bad" 4096
ms_scan "$out" "$E2E_LOOP"
ms_expect_eq "isolation: pass 1 found the bad range" "$(hist_open "$st")" "$bad:4096:damage"
e2e_delay_add "$bad" 1048576 150
e2e_reset_counters
"$MEDIASCAN" scan "$E2E_LOOP" --state-dir "$st" --progress none -q --json "$out" &
pid=$!
wait_reads "$bad" 4096 3		# the loop's read, then isolation's
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
e2e_log "SIGTERM during isolation: exit $rc, history: $(hist_open "$st")"
ms_expect_eq "isolation: the stopped pass is interrupted" "$(ms_jq "$out" '.stopped')" signal
ms_expect_eq "isolation: the damage row is still 4 KiB (no span merged into it)" \
	"$(hist_open "$st")" "$bad:4096:damage"
ms_expect_eq "isolation: no operational error for the span" \
	"$(ms_jq "$out" '.operational_errors | length')" 0
e2e_bad_del "$bad" 1048576
rc=0
"$MEDIASCAN" scan "$E2E_LOOP" --state-dir "$st" --progress none -q --json "$out" --resume ||
	rc=$?
ms_expect_eq "isolation: the resume finds the range again" \
	"$(ms_jq "$out" '[.media_errors[] | "\(.offset)+\(.length)"] | join(" ")')" "$bad+4096"
ms_scan "$out" "$E2E_LOOP"
hist_truth "$st" "$bad:4096"
e2e_bad_clear

# 2. SIGTERM while a late read is waited for: not a device fault; read again on resume.
st=$E2E_DIR/state2
export MS_STATE_DIR=$st
slow=$((20 << 20))
e2e_delay_add "$slow" 4096 8000
e2e_reset_counters
"$MEDIASCAN" scan "$E2E_LOOP" --state-dir "$st" --progress none -q --json "$out" \
	--io-timeout 1s --rate 8M &
pid=$!
sleep 5					# read at ~2.5 s, late at ~3.5 s, answers at ~10.5 s
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
e2e_log "SIGTERM with a late read waiting: exit $rc"
ms_expect_eq "late at stop: no device fault" "$(ms_jq "$out" '.device_faults | length')" 0
ms_expect_eq "late at stop: no 'failing or slow' bit (16)" $((rc & 16)) 0
ms_expect_eq "late at stop: nothing open in the history" "$(hist_open "$st")" ""
e2e_delay_add "$slow" 4096 1
e2e_reset_counters
ms_scan "$out" "$E2E_LOOP" --resume
ms_expect_eq "late at stop: the resume completes" "$(ms_jq "$out" '.complete')" true
e2e_check "late at stop: the resume read the late range again" \
	test "$(e2e_bad_reads "$slow" 4096)" -ge 1
e2e_bad_clear

# 3. SIGKILL after a checkpoint (5 s) while a late read waits: the resume reads it again.
st=$E2E_DIR/state3
export MS_STATE_DIR=$st
slow=$((4 << 20))
e2e_delay_add "$slow" 4096 8000
"$MEDIASCAN" scan "$E2E_LOOP" --state-dir "$st" --progress none -q --json "$out" \
	--io-timeout 1s --rate 4M &
pid=$!
sleep 6.5				# read at ~1 s, late at ~2 s, checkpoint at 5 s
kill -KILL "$pid"
wait "$pid" 2>/dev/null || :
cursor=$(hist_db "$st" "select group_concat(offset) from cursors" 2>/dev/null || echo "?")
e2e_log "SIGKILL with a late read waiting: stored cursor $cursor"
e2e_delay_add "$slow" 4096 1
e2e_reset_counters
ms_scan "$out" "$E2E_LOOP" --resume
ms_expect_eq "late at SIGKILL: resumed" "$(ms_jq "$out" '.resumed')" true
e2e_check "late at SIGKILL: the resume read the late range again" \
	test "$(e2e_bad_reads "$slow" 4096)" -ge 1
e2e_bad_clear
e2e_assert_unchanged "$h"
e2e_pass "a stop records only what was proven; unsettled reads are read again"
