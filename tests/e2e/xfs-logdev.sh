#!/bin/bash
# xfs-logdev.sh - XFS with an external log device: both devices are planned and read, errors
# are reported with the device's role (data, log), a bad block in the log is owned by the log,
# and `mediascan map` on the log device answers through the filesystem. The two devices are
# loop devices over two regions of one fault disk. Nothing is written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 512

LOG_AT=$((400 * 1024 * 1024))		# the log device starts here on the fault disk
ms_split_loops "$LOG_AT" $((100 << 20))	# sets DATA and LOGDEV
mkfs.xfs -q -f -l logdev="$LOGDEV",size=64m "$DATA" || e2e_hard_error "mkfs.xfs failed"
mount -o logdev="$LOGDEV" "$DATA" "$E2E_MNT" || e2e_hard_error "mount failed"
m=$E2E_MNT
xfs_io -f -c "pwrite -S 0x11 0 64k" -c fsync "$m/file" >/dev/null
sync
umount "$m"
e2e_readonly on
h=$(e2e_hash)
mount -o ro,norecovery,logdev="$LOGDEV" "$DATA" "$m" || e2e_hard_error "ro mount failed"
ms_check_split_log "$m" "$LOG_AT" log log

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
umount "$m"
e2e_assert_unchanged "$h"
e2e_pass "external log: planned, read, reported with its role"
