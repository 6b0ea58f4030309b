#!/bin/bash
# map-health.sh - the health XFS keeps without online scrub, read for real: a directory whose
# data block was corrupted (xfs_db, before the test's image hash) is marked sick by the kernel
# when read (EFSCORRUPTED); bulkstat's bs_sick then shows it and mediascan reports it beside
# the media error on that block ("kernel already marks this inode sick: directory"), in
# `mediascan map` and in a scan report. AG health comes from XFS_IOC_AG_GEOMETRY. This kernel
# has no online scrub: the report says so once.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v xfs_db >/dev/null || e2e_skip "xfs_db is not installed"
e2e_setup 512
mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
m=$E2E_MNT
mkdir "$m/d"
for i in $(seq 1 200); do : >"$m/d/file-with-a-long-name-$i"; done
ino=$(stat -c %i "$m/d")
e2e_umount
xfs_db -x -c "inode $ino" -c "dblock 0" -c "write -d dhdr.hdr.magic 0" "$E2E_LOOP" >/dev/null 2>&1 ||
	e2e_hard_error "xfs_db could not corrupt the directory block"
e2e_readonly on
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
e2e_reset_counters
e2e_check_fails "the kernel finds the directory corrupt" ls "$m/d"
sick=$(xfs_io -r -c "bulkstat_single $ino" "$m" | awk '$1 == "bs_sick" { print $3 }')
[ "$((sick & 0x10))" != 0 ] || e2e_skip "this kernel does not mark directories sick (bs_sick $sick)"
blk=$(xfs_io -c 'fsmap -m' "$m" | awk -F, -v o="inode_${ino}_data" '$6 == o { print $4; exit }')
off=$((blk * 512))

ans=$E2E_DIR/map.json
rc=0
"$MEDIASCAN" map "$E2E_LOOP" "$off" --json "$ans" -q || rc=$?
ms_expect_eq "map: the directory" "$(ms_jq "$ans" '.damaged_files[0] | "\(.inode) \(.directory)"')" \
	"$ino true"
ms_expect_eq "map: inode health from bulkstat, sick directory" \
	"$(ms_jq "$ans" '.media_errors[0].owners[0].health | "\(.scope) \(.sick | join(","))"')" \
	"inode directory"
ms_expect_eq "map: no online scrub here, said once" \
	"$(ms_jq "$ans" '"\(.targets[0].scrub) \([.notes[] | select(test("online scrub"))] | length)"')" \
	"unavailable 1"
human=$("$MEDIASCAN" map "$E2E_LOOP" "$off" 2>&1 || true)
e2e_check "human: already marked sick" grep -q "kernel already marks this inode sick: directory" <<<"$human"

e2e_bad_add $((off + 512)) 512
out=$E2E_DIR/report.json
ms_scan "$out" "$m" --queue-depth 1
ms_expect_eq "scan: exit 1" "$MS_RC" 1
ms_expect_eq "scan: the damaged directory carries its health" \
	"$(ms_jq "$out" '.damaged_files[0].health.sick | join(",")')" "directory"
ms_expect_eq "scan: AG metadata health from AG geometry" \
	"$("$MEDIASCAN" map "$E2E_LOOP" 0 --json - -q | jq -r '.media_errors[0].owners[0].health.scope')" "ag"
ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "kernel health read for real and reported beside the error"
