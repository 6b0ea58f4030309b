#!/bin/bash
# scan-history.sh - the history means what it says. An open error is cleared only when a
# later complete pass read that range cleanly: not when its read only timed out (slow), and
# a range no longer allocated (the file was deleted) is "unallocated", not cleared. Rows are
# block ranges: the same bad run seen again, whatever the read boundaries, is the same row,
# never NEW twice. Nothing is written by mediascan (the image is hashed around each scan).
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 320
mkfs.xfs -q -f -m rmapbt=1,reflink=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
xfs_io -f -c "pwrite -S 0x11 -b 1048576 0 1048576" -c fsync "$E2E_MNT/keep" >/dev/null
xfs_io -f -c "pwrite -S 0x33 -b 1048576 0 4194304" -c fsync "$E2E_MNT/spacer" >/dev/null
xfs_io -f -c "pwrite -S 0x22 -b 1048576 0 1048576" -c fsync "$E2E_MNT/doomed" >/dev/null
sync
a=$(( $(ms_first_phys "$E2E_MNT/keep") + 8192 - 512 ))	# 1 KiB bad run across a 4 KiB line
b=$(( $(ms_first_phys "$E2E_MNT/doomed") + 16384 ))		# 512 B bad in doomed
e2e_umount
e2e_log "bad run at $a (keep), bad block at $b (doomed)"
export MS_STATE_DIR=$E2E_DIR/state
out=$E2E_DIR/report.json

# scan_ro ARGS... : mount read-only, scan (hashing the image around it), unmount.
scan_ro()
{
	local h
	e2e_readonly on
	e2e_reset_counters
	h=$(e2e_hash)
	e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
	ms_scan "$out" "$E2E_MNT" "$@"
	ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
	e2e_umount
	e2e_assert_unchanged "$h"
	e2e_readonly off
}
hist() { "$MEDIASCAN" report --json --all --state-dir "$MS_STATE_DIR" || true; }
row() { jq -r --argjson o "$1" "[.targets[].errors[] | select(.offset <= \$o and .offset + .length > \$o) | $2] | join(\" \")" <<<"$(hist)"; }

# Pass 1: both bad.
e2e_bad_add "$a" 1024
e2e_bad_add "$b" 512
scan_ro
ms_expect_eq "pass 1: exit 1" "$MS_RC" 1
ms_expect_eq "pass 1: keep's run is one open row" "$(row "$a" '"\(.offset)+\(.length) \(.state)"')" "$a+1024 open"
ms_expect_eq "pass 1: doomed's block is open" "$(row "$b" .state)" open

# Pass 2: keep's run now answers only after 2.5 s (slower than --io-timeout 1s); doomed is
# deleted (its blocks are free: not read).
e2e_bad_del "$a" 1024
e2e_delay_add "$a" 1024 2500
e2e_bad_del "$b" 512
e2e_mount || e2e_hard_error "rw mount failed"
rm "$E2E_MNT/doomed"
sync
e2e_umount
scan_ro --io-timeout 1s
ms_expect_eq "pass 2: complete" "$(ms_jq "$out" .complete)" true
ms_expect_eq "pass 2: keep's run was slow, not read cleanly: still open damage" \
	"$(row "$a" '"\(.state) \(.verdict)"')" "open damage"
ms_expect_eq "pass 2: doomed's block is no longer allocated, not cleared" \
	"$(row "$b" .state)" unallocated
e2e_check "pass 2: the human report says so" grep -q "no longer allocated" \
	<<<"$("$MEDIASCAN" report --all --state-dir "$MS_STATE_DIR" 2>&1 || true)"

# Pass 3: keep's run fails again, read in other pieces: the same row, not new.
e2e_bad_del "$a" 1024
e2e_bad_add "$a" 1024
scan_ro --io-size 4k
ms_expect_eq "pass 3: exit 1" "$MS_RC" 1
ms_expect_eq "pass 3: still one row for the run, first seen in pass 1, not new" \
	"$(row "$a" '"\(.offset)+\(.length) \(.first_pass) \(.new) \(.times_seen)"')" "$a+1024 1 false 3"
ms_expect_eq "pass 3: one row in all for the run" \
	"$(jq "[.targets[].errors[] | select(.offset + .length > $a and .offset < $a + 1024)] | length" <<<"$(hist)")" 1

# Pass 4: the drive reallocated it: read cleanly, cleared.
e2e_bad_del "$a" 1024
scan_ro
ms_expect_eq "pass 4: exit 0" "$MS_RC" 0
ms_expect_eq "pass 4: keep's run is cleared" "$(row "$a" .state)" cleared

e2e_pass "cleared only by a clean read; unallocated said so; the same run is one row"
