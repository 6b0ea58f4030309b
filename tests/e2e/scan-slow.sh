#!/bin/bash
# scan-slow.sh - a sector that answers, but slower than --io-timeout (the fault disk's delay
# range: a marginal sector the drive retries internally) is "slow", not lost data: the file
# is not listed for restore, no media error is reported, the slow range is narrowed to the
# sector itself once the queue has drained and carries its latency, and the exit status says
# "disk failing or slow" (16), not "media errors" (1). Nothing is written to the device.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 320
mkfs.xfs -q -f -m rmapbt=1,reflink=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
xfs_io -f -c "pwrite -S 0x11 -b 1048576 0 2097152" -c fsync "$E2E_MNT/slowfile" >/dev/null
xfs_io -f -c "pwrite -S 0x22 -b 1048576 0 2097152" -c fsync "$E2E_MNT/other" >/dev/null
sync
e2e_umount
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
slow=$(( $(ms_first_phys "$E2E_MNT/slowfile") + 65536 + 1024 ))
e2e_log "slow sector at $slow"
e2e_delay_add "$slow" 512 2500		# answers after 2.5 s; the timeout is 1 s
out=$E2E_DIR/report.json

MS_RC=0
human=$("$MEDIASCAN" scan "$E2E_MNT" --no-state --progress none --io-timeout 1s --json "$out" 2>&1) ||
	MS_RC=$?
ms_expect_eq "no media-error bit (1) in the exit status" $((MS_RC & 1)) 0
ms_expect_eq "the slow bit (16) in the exit status" $((MS_RC & 16)) 16
ms_expect_eq "no damaged files" "$(ms_jq "$out" '.damaged_files | length')" 0
ms_expect_eq "no media errors" "$(ms_jq "$out" '.media_errors | length')" 0
ms_expect_eq "one slow range, narrowed to the sector" \
	"$(ms_jq "$out" '[.slow_errors[] | "\(.offset)+\(.length)"] | join(" ")')" "$slow+512"
ms_expect_eq "its latency is the sector's (>= 2 s)" \
	"$(ms_jq "$out" '.slow_errors[0].latency_s >= 2')" true
ms_expect_eq "the slow range names its owner" \
	"$(ms_jq "$out" '[.slow_errors[0].owners[].paths[]?] | join(" ")')" "$E2E_MNT/slowfile"
ms_expect_eq "complete" "$(ms_jq "$out" '.complete')" true

e2e_check "the summary says slow, not restore" grep -q "slow" <<<"$human"
e2e_check_fails "the summary does not say restore" grep -qi "restore" <<<"$human"

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "a slow sector is reported as slow, with its latency, and nothing is to restore"
