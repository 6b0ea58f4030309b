#!/bin/bash
# scan-identity.sh - the history follows the disk, not its kernel name (sdX names reorder at
# boot). A filesystem is known by its UUID: moved to another loop device it keeps its history
# (the same error is not new). A bare disk is known by its WWN, serial or (a loop device) its
# backing file: two disks of one size swapped between two loop devices keep their own
# histories; neither inherits the other's damage, and nothing is cleared by reading the wrong
# disk. Nothing is written to the scanned devices.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 320
export MS_STATE_DIR=$E2E_DIR/state
out=$E2E_DIR/report.json
hist() { "$MEDIASCAN" report --json --all --state-dir "$MS_STATE_DIR" || true; }

# ---- a filesystem moved to another loop device
mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
xfs_io -f -c "pwrite -S 0x11 -b 1048576 0 1048576" -c fsync "$E2E_MNT/victim" >/dev/null
sync
bad=$(( $(ms_first_phys "$E2E_MNT/victim") + 4096 ))
e2e_umount
e2e_readonly on
e2e_reset_counters
e2e_bad_add "$bad" 512
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
h=$(e2e_hash)
ms_scan "$out" "$E2E_MNT"
ms_expect_eq "fs on $E2E_LOOP: exit 1" "$MS_RC" 1
e2e_umount
old_loop=$E2E_LOOP
losetup -d "$E2E_LOOP"
for _ in $(seq 50); do losetup "$old_loop" >/dev/null 2>&1 || break; sleep 0.1; done
# Take the old number with a placeholder, so that the fault disk comes back under another.
truncate -s 1M "$E2E_DIR/placeholder.img"
placeholder=$(losetup --find --show "$E2E_DIR/placeholder.img")
e2e_on_cleanup "losetup -d $placeholder"
E2E_LOOP=$(losetup --direct-io=on --sector-size 512 --find --show "$E2E_FUSE/disk") ||
	e2e_hard_error "losetup failed"
export E2E_LOOP
e2e_log "the filesystem moved from $old_loop to $E2E_LOOP"
[ "$E2E_LOOP" != "$old_loop" ] || e2e_hard_error "the fault disk came back as $old_loop"
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount on $E2E_LOOP failed"
ms_scan "$out" "$E2E_MNT"
ms_expect_eq "fs on $E2E_LOOP: exit 1" "$MS_RC" 1
e2e_umount
e2e_assert_unchanged "$h"
ms_expect_eq "one history for the filesystem" "$(hist | jq '[.targets[] | select(.fs_type == "xfs")] | length')" 1
ms_expect_eq "the same error, seen twice, not new" \
	"$(hist | jq -r --argjson o "$bad" '[.targets[].errors[] | select(.offset == $o) | "\(.times_seen) \(.new) \(.state)"] | join(" ")')" \
	"2 false open"
ms_expect_eq "shown under the device's current name" \
	"$(hist | jq -r --argjson o "$bad" '[.targets[].errors[] | select(.offset == $o) | .device] | join(" ")')" "$E2E_LOOP"

# ---- two disks of one size swapped between two loop devices
e2e_bad_clear
size=$(blockdev --getsize64 "$E2E_LOOP")
truncate -s "$size" "$E2E_DIR/other.img"
other=$(losetup --direct-io=on --sector-size 512 --find --show "$E2E_DIR/other.img")
e2e_on_cleanup "losetup -d $other 2>/dev/null"
e2e_bad_add 8192 512
ms_scan "$out" "$E2E_LOOP"
ms_expect_eq "disk A ($E2E_LOOP): its bad block" "$(ms_jq "$out" '[.media_errors[].offset] | join(" ")')" 8192
ms_scan "$out" "$other"
ms_expect_eq "disk B ($other): clean" "$MS_RC" 0
# Swap: B takes A's name, A takes B's.
a_name=$E2E_LOOP b_name=$other
losetup -d "$E2E_LOOP"
losetup -d "$other"
for _ in $(seq 50); do losetup "$a_name" >/dev/null 2>&1 || losetup "$b_name" >/dev/null 2>&1 || break; sleep 0.1; done
losetup --direct-io=on --sector-size 512 "$a_name" "$E2E_DIR/other.img" || e2e_hard_error "losetup $a_name failed"
losetup --direct-io=on --sector-size 512 "$b_name" "$E2E_FUSE/disk" || e2e_hard_error "losetup $b_name failed"
E2E_LOOP=$b_name other=$a_name
export E2E_LOOP
e2e_on_cleanup "losetup -d $other 2>/dev/null"
e2e_log "swapped: disk A is now $E2E_LOOP, disk B is $other"
ms_scan "$out" "$other"
ms_expect_eq "disk B, now named $other: clean" "$MS_RC" 0
ms_expect_eq "disk A's damage is still open (disk B's clean read does not clear it)" \
	"$(hist | jq -r '[.targets[].errors[] | select(.offset == 8192) | .state] | join(" ")')" open
ms_scan "$out" "$E2E_LOOP"
ms_expect_eq "disk A, now named $E2E_LOOP: its bad block again" "$MS_RC" 1
ms_expect_eq "disk A's error seen twice, not new" \
	"$(hist | jq -r '[.targets[].errors[] | select(.offset == 8192) | "\(.times_seen) \(.new)"] | join(" ")')" "2 false"
ms_expect_eq "three histories: the filesystem and the two disks" "$(hist | jq '.targets | length')" 3

ms_expect_eq "no write reached the fault disk" "$(e2e_writes)" 0
e2e_pass "histories follow UUIDs and disk identities, not kernel names"
