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
file=$(ms_first_phys "$m/file")
e2e_bad_add $((file + 4096)) 512
e2e_bad_add $((LOG_AT + (1 << 20))) 512
out=$E2E_DIR/report.json

e2e_reset_counters
ms_scan "$out" "$m" --queue-depth 1
ms_expect_eq "exit status 1" "$MS_RC" 1
ms_expect_eq "both devices, with their roles" \
	"$(ms_jq "$out" '[.devices[] | "\(.path)=\(.role)"] | join(",")')" "$DATA=data,$LOGDEV=log"
ms_expect_eq "the log error: on the log device, role log, owned by the log" \
	"$(ms_jq "$out" '.media_errors[] | select(.role == "log") | "\(.device) \(.offset) \(.owners[0].type)"')" \
	"$LOGDEV $((1 << 20)) log"
ms_expect_eq "the data error: the file" \
	"$(ms_jq "$out" '.media_errors[] | select(.role == "data") | .owners[0].paths | join(",")')" "$m/file"
ms_expect_eq "damaged metadata: the log, on the log device" \
	"$(ms_jq "$out" '.damaged_metadata[] | "\(.type) \(.device)"')" "log $LOGDEV"
e2e_check "the log was read" test "$(e2e_bad_reads $((LOG_AT + (1 << 20))) 512)" -ge 1
ms_expect_eq "scanned == planned" "$(ms_jq "$out" '.scanned_bytes == .planned_bytes')" true

# map on the log device goes through the filesystem mounted with it.
ans=$E2E_DIR/map.json
rc=0
"$MEDIASCAN" map "$LOGDEV" $((1 << 20)) --json "$ans" -q || rc=$?
ms_expect_eq "map log device: exit 1 (metadata hit)" "$rc" 1
ms_expect_eq "map log device: role and owner" \
	"$(ms_jq "$ans" '.media_errors[0] | "\(.role) \(.owners[0].type) \(.owners[0].metadata)"')" \
	"log log log"
ms_expect_eq "map log device: the filesystem" "$(ms_jq "$ans" '.targets[0].target')" "$m"

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
umount "$m"
e2e_assert_unchanged "$h"
e2e_pass "external log: planned, read, reported with its role"
