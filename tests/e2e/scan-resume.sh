#!/bin/bash
# scan-resume.sh - interruption and resume: --max-duration stops cleanly with a checkpoint
# and --resume finishes the pass, reporting the errors found before the stop; after
# SIGKILL only the last few seconds are read again; a corrupt state file is moved aside.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 512
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
size=$(blockdev --getsize64 "$E2E_LOOP")
out=$E2E_DIR/report.json
state=$E2E_DIR/state
export MS_STATE_DIR=$state
early=$((8 * 1048576 + 512))
late=$((480 * 1048576))
e2e_bad_add "$early" 512
e2e_bad_add "$late" 4096

# 1. --max-duration: a planned stop, with a checkpoint; not an operational error.
ms_scan "$out" "$E2E_LOOP" --rate 40M --max-duration 2s
ms_expect_eq "max-duration: exit 1 (the early bad block; no operational bit)" "$MS_RC" 1
ms_expect_eq "max-duration: stopped" "$(ms_jq "$out" '.stopped')" max-duration
ms_expect_eq "max-duration: incomplete" "$(ms_jq "$out" '.complete')" false
first=$(ms_jq "$out" '.scanned_bytes')
e2e_check "max-duration: stopped part way ($first bytes)" test "$first" -lt $((size / 2))
e2e_check "state dir is private (0700)" test "$(stat -c %a "$state")" = 700

# 2. --resume finishes the pass and keeps what the first run found.
e2e_reset_counters
ms_scan "$out" "$E2E_LOOP" --resume
ms_expect_eq "resume: exit 1" "$MS_RC" 1
ms_expect_eq "resume: resumed" "$(ms_jq "$out" '.resumed')" true
ms_expect_eq "resume: complete" "$(ms_jq "$out" '.complete')" true
ms_expect_eq "resume: the whole device accounted" "$(ms_jq "$out" '.scanned_bytes')" "$size"
ms_expect_eq "resume: errors from before the stop and after it" \
	"$(ms_jq "$out" '[.media_errors[] | .offset] | join(" ")')" "$early $late"
read_again=$(e2e_ctl | awk '$1 == "read_bytes" { print $2 }')
e2e_log "resumed run read $read_again bytes; first run had scanned $first"
e2e_check "resume: did not start over (read at most what was left plus 16 MiB)" \
	test "$read_again" -le $((size - first + 16 * 1048576))

# 3. Nothing to resume: a new pass, said once.
msg=$("$MEDIASCAN" scan "$E2E_LOOP" --resume --state-dir "$state" --progress none --json "$out" || true)
e2e_check "resume without an interrupted pass starts a new one" grep -q "starting a new pass" <<<"$msg"

# 4. SIGKILL: at most the last checkpoint interval (5 s) is read again.
e2e_reset_counters
"$MEDIASCAN" scan "$E2E_LOOP" --rate 20M --state-dir "$state" --progress none -q \
	--json "$E2E_DIR/killed.json" &
pid=$!
sleep 8
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
before=$(e2e_ctl | awk '$1 == "read_bytes" { print $2 }')
e2e_reset_counters
ms_scan "$out" "$E2E_LOOP" --resume
ms_expect_eq "after SIGKILL: resumed" "$(ms_jq "$out" '.resumed')" true
ms_expect_eq "after SIGKILL: complete" "$(ms_jq "$out" '.complete')" true
ms_expect_eq "after SIGKILL: both errors, once each" \
	"$(ms_jq "$out" '[.media_errors[] | .offset] | join(" ")')" "$early $late"
after=$(e2e_ctl | awk '$1 == "read_bytes" { print $2 }')
reread=$((before + after - size))
e2e_log "killed run read $before bytes, resumed run $after: $reread bytes read twice"
e2e_check "after SIGKILL: re-read at most 5 s at 20 MiB/s plus the queue (116 MiB)" \
	test "$reread" -le $((116 * 1048576))
rows=$(sqlite3 "$state/mediascan.db" "select count(*) from errors" 2>/dev/null || echo skip)
if [ "$rows" != skip ]; then
	ms_expect_eq "state: no duplicate error rows" "$rows" 2
fi

# 5. A corrupt state file is moved aside with a warning; the scan goes on.
printf 'this is not a database\n' >"$state/mediascan.db"
rm -f "$state/mediascan.db-wal" "$state/mediascan.db-shm"
rc=0
err=$("$MEDIASCAN" scan "$E2E_LOOP" --state-dir "$state" --progress none -q --json "$out" 2>&1) || rc=$?
ms_expect_eq "corrupt state: the scan still runs (exit 1)" "$rc" 1
e2e_check "corrupt state: warned" grep -qi "warning" <<<"$err"
e2e_check "corrupt state: moved aside, not deleted" \
	sh -c "ls '$state' | grep -q 'mediascan.db.bad-'"

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "max-duration, resume, SIGKILL, corrupt state"
