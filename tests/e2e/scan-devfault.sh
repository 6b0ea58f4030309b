#!/bin/bash
# scan-devfault.sh - what the block layer returns when the disk or its path fails
# (ETIMEDOUT command timeout, ENOLINK transport, EREMOTEIO target, ENODEV device offline) is
# a "device fault": narrowed like any failed read, listed in device_faults[] with its owners,
# kept in the history, exit bit 16; never "restore from backup" (no media error) and never
# dropped as operational. Each errno is injected with the fault disk's errno range (the loop
# device passes it through errno_to_blk_status).
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 320
mkfs.xfs -q -f -m rmapbt=1,reflink=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
xfs_io -f -c "pwrite -S 0x11 -b 1048576 0 2097152" -c fsync "$E2E_MNT/victim" >/dev/null
sync
e2e_umount
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
off=$(( $(ms_first_phys "$E2E_MNT/victim") + 131072 ))
out=$E2E_DIR/report.json
# errno numbers on Linux x86-64 and the names mediascan reports
for pair in 110:ETIMEDOUT 67:ENOLINK 121:EREMOTEIO 19:ENODEV; do
	num=${pair%%:*} name=${pair#*:}
	e2e_errno_add "$off" 4096 "$num"
	MS_STATE_DIR=$E2E_DIR/state-$name
	ms_scan "$out" "$E2E_MNT"
	ms_expect_eq "$name: no media-error bit" $((MS_RC & 1)) 0
	ms_expect_eq "$name: the device-fault bit (16)" $((MS_RC & 16)) 16
	ms_expect_eq "$name: no damaged files" "$(ms_jq "$out" '.damaged_files | length')" 0
	ms_expect_eq "$name: one device fault, narrowed to the failing blocks" \
		"$(ms_jq "$out" '[.device_faults[] | "\(.offset)+\(.length) \(.error)"] | join(" ")')" \
		"$off+4096 $name"
	ms_expect_eq "$name: the fault names the file at risk" \
		"$(ms_jq "$out" '[.device_faults[0].owners[].paths[]?] | join(" ")')" "$E2E_MNT/victim"
	ms_expect_eq "$name: not an operational error" \
		"$(ms_jq "$out" '.operational_errors | length')" 0
	rep=$("$MEDIASCAN" report --json --all --state-dir "$MS_STATE_DIR" || true)
	ms_expect_eq "$name: history keeps it as a device fault, not open damage" \
		"$(jq -r '[.targets[].errors[] | "\(.offset) \(.verdict)"] | join(" ")' <<<"$rep")" \
		"$off device-fault"
	unset MS_STATE_DIR
	e2e_bad_del "$off" 4096
done

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "failing-hardware errnos are device faults: narrowed, mapped, recorded, exit 16"
