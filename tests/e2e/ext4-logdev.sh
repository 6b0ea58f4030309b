#!/bin/bash
# ext4-logdev.sh - ext4 with an external journal device (mke2fs -O journal_dev): the kernel's
# GETFSMAP names it, so both devices are planned and read even without a blkid cache or udev;
# errors are reported with the device's role (data, log), a bad block in the journal is owned
# by the journal, and `mediascan map` on the journal device answers through the filesystem.
# The two devices are loop devices over two regions of one fault disk. Nothing is written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 512

LOG_AT=$((400 * 1024 * 1024))		# the log device starts here on the fault disk
ms_split_loops "$LOG_AT" $((100 << 20))	# sets DATA and LOGDEV
mke2fs -q -F -O journal_dev -b 4096 "$LOGDEV" || e2e_hard_error "mke2fs journal_dev failed"
mkfs.ext4 -q -F -b 4096 -J device="$LOGDEV" "$DATA" || e2e_hard_error "mkfs.ext4 failed"
mount "$DATA" "$E2E_MNT" || e2e_hard_error "mount failed"
m=$E2E_MNT
xfs_io -f -c "pwrite -S 0x11 0 64k" -c fsync "$m/file" >/dev/null
sync
umount "$m"
e2e_readonly on
h=$(e2e_hash)
# Cleanly unmounted: a read-only mount loads the journal without writing to it.
mount -o ro "$DATA" "$m" || e2e_hard_error "ro mount failed"
rm -f /run/blkid/blkid.tab 2>/dev/null || :	# no blkid cache: GETFSMAP must find it
ms_check_split_log "$m" "$LOG_AT" metadata journal

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
umount "$m"
e2e_assert_unchanged "$h"
e2e_pass "ext4 external journal: found through GETFSMAP, planned, read, reported with its role"
