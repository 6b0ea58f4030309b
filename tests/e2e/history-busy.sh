#!/bin/bash
# history-busy.sh - a busy state store does not lose damage: (1) another connection holds
# BEGIN IMMEDIATE for 11 s during a pass (longer than the 5 s busy timeout): the refused
# checkpoint keeps its errors for the next one, the new damage is stored and the old bad
# range that failed again is not settled; (2) held for the rest of the pass: the pass stores
# nothing, settles nothing, says so (exit bit 4, not complete); the next pass stores it all.
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
st=$E2E_DIR/state
export MS_STATE_DIR=$st
out=$E2E_DIR/r.json
b1=$(((2 << 20) + 512))
b2=$((8 << 20))
b3=$((12 << 20))
e2e_bad_add "$b1" 512

ms_scan "$out" "$E2E_LOOP"
ms_expect_eq "pass 1: exit 1 (damage)" "$MS_RC" 1
e2e_bad_add "$b2" 4096

# 1. Held 11 s from 0.5 s into a 8 s pass: the checkpoint at 5 s waits 5 s and is refused.
"$MEDIASCAN" scan "$E2E_LOOP" --state-dir "$st" --progress none -q --json "$out" \
	--rate 4M 2>"$E2E_DIR/busy1.err" &
pid=$!
sleep 0.5
hist_hold_lock "$st/mediascan.db" 11
rc=0
wait "$pid" || rc=$?
wait "$HIST_LOCK_PID" || :
e2e_log "busy 11 s: exit $rc; $(tr '\n' ' ' <"$E2E_DIR/busy1.err")"
ms_expect_eq "busy 11 s: the pass reports both ranges" \
	"$(ms_jq "$out" '[.media_errors[] | .offset] | join(" ")')" "$b1 $b2"
ms_expect_eq "busy 11 s: both open in the history, b1 not settled" "$(hist_open "$st")" \
	"$b1:512:damage $b2:4096:damage"
ms_expect_eq "busy 11 s: nothing cleared" \
	"$(hist_db "$st" "select count(*) from errors where state = 'cleared'")" 0

# 2. Held for the rest of the pass: nothing stored, nothing settled, said (exit bit 4).
e2e_bad_add "$b3" 512
"$MEDIASCAN" scan "$E2E_LOOP" --state-dir "$st" --progress none -q --json "$out" \
	--rate 8M 2>"$E2E_DIR/busy2.err" &
pid=$!
sleep 0.5
hist_hold_lock "$st/mediascan.db" 40
rc=0
wait "$pid" || rc=$?
kill "$HIST_LOCK_PID" 2>/dev/null || :
wait "$HIST_LOCK_PID" 2>/dev/null || :
e2e_log "busy to the end: exit $rc; $(tr '\n' ' ' <"$E2E_DIR/busy2.err")"
e2e_check "busy to the end: exit bit 4 (operational)" test $((rc & 4)) -eq 4
ms_expect_eq "busy to the end: the pass is not complete" "$(ms_jq "$out" '.complete')" false
e2e_check "busy to the end: it says the errors were not stored" \
	grep -q "could not be stored in the history" "$E2E_DIR/busy2.err"
ms_expect_eq "busy to the end: nothing cleared" \
	"$(hist_db "$st" "select count(*) from errors where state = 'cleared'")" 0

# 3. One more clean pass: the history is the ground truth.
ms_scan "$out" "$E2E_LOOP"
ms_expect_eq "clean pass: exit 1" "$MS_RC" 1
hist_truth "$st" "$b1:512 $b2:4096 $b3:512"
e2e_assert_unchanged "$h"
e2e_pass "a busy store loses no damage and settles nothing it did not see"
