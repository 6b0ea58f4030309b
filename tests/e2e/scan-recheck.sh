#!/bin/bash
# scan-recheck.sh - `mediascan scan TARGET --recheck` re-reads only the open errors of the
# history (as `zpool scrub -e` does): after a drive reallocated a sector or an admin restored
# a file, the ranges that read cleanly are cleared, the others stay open; nothing else is read
# (a handful of device reads, not a pass), and the recheck is not the target's last complete
# pass (patrol still owes a full one). Nothing is written to the device.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v sqlite3 >/dev/null || e2e_skip "sqlite3 is not installed"
e2e_setup 320
export MS_STATE_DIR=$E2E_DIR/state
out=$E2E_DIR/report.json
hist() { "$MEDIASCAN" report --json --all --state-dir "$MS_STATE_DIR" || true; }
mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
xfs_io -f -c "pwrite -S 0x11 -b 1048576 0 8388608" -c fsync "$E2E_MNT/big" >/dev/null
sync
b1=$(( $(ms_first_phys "$E2E_MNT/big") + 4096 ))
b2=$(( $(ms_first_phys "$E2E_MNT/big") + 6 * 1048576 ))
e2e_umount
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
e2e_bad_add "$b1" 512
e2e_bad_add "$b2" 1024
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
ms_scan "$out" "$E2E_MNT"
ms_expect_eq "full pass: exit 1" "$MS_RC" 1
ms_expect_eq "full pass: two open errors" "$(hist | jq '[.targets[].errors[] | select(.state == "open")] | length')" 2
last=$(hist | jq '.targets[0].last_complete_pass')

# The drive reallocated the first sector.
e2e_bad_del "$b1" 512
e2e_reset_counters
ms_scan "$out" "$E2E_MNT" --recheck
ms_expect_eq "recheck: exit 1 (the second still fails)" "$MS_RC" 1
ms_expect_eq "recheck: planned only the open errors" "$(ms_jq "$out" .planned_bytes)" 1536
ms_expect_eq "recheck: the first is cleared, the second open" \
	"$(hist | jq -r --argjson a "$b1" --argjson b "$b2" '[.targets[].errors[] | select(.offset == $a or .offset == $b) | "\(.offset) \(.state)"] | sort | join(",")')" \
	"$(printf '%s\n' "$b1 cleared" "$b2 open" | sort | paste -sd,)"
reads=$(e2e_reads)
e2e_log "the recheck made $reads device reads"
[ "$reads" -le 12 ] || e2e_fail "recheck: $reads device reads, want a handful"
ms_expect_eq "recheck: not the last complete pass" "$(hist | jq '.targets[0].last_complete_pass')" "$last"

# Nothing open any more: says so, exit 0, no pass begun.
e2e_bad_del "$b2" 1024
ms_scan "$out" "$E2E_MNT" --recheck
ms_expect_eq "second recheck: exit 0" "$MS_RC" 0
passes=$(sqlite3 "$MS_STATE_DIR/mediascan.db" 'select count(*) from passes')
rc=0
out=$("$MEDIASCAN" scan "$E2E_MNT" --recheck --state-dir "$MS_STATE_DIR" --progress none 2>&1) || rc=$?
ms_expect_eq "nothing open: exit 0" "$rc" 0
e2e_check "nothing open: says there is nothing to recheck" grep -q "nothing to recheck" <<<"$out"
ms_expect_eq "nothing open: no pass begun" \
	"$(sqlite3 "$MS_STATE_DIR/mediascan.db" 'select count(*) from passes')" "$passes"
ms_expect_eq "--recheck with --no-state: usage error" \
	"$("$MEDIASCAN" scan "$E2E_MNT" --recheck --no-state >/dev/null 2>&1; echo $?)" 8

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "recheck re-reads only the open errors, clears what reads cleanly"
