#!/bin/bash
# xfs-556.sh - fstests xfs/556 done with the fault disk: a 4-block file with one bad
# logical block inside its third block. The report must name the file and exactly that
# 512-byte block, at queue depth 1, at a deep queue, after a remount, with every engine;
# once the block is good again the scan is clean. The image is never written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 512
mkfs.xfs -q -f -m rmapbt=1,reflink=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
mkdir -p "$E2E_MNT/dir"
xfs_io -f -c "pwrite -S 0x5a -b 16384 0 16384" -c fsync "$E2E_MNT/dir/victim" >/dev/null
for i in $(seq 1 20); do
	head -c $((i * 7000)) /dev/urandom >"$E2E_MNT/dir/other$i"
done
sync
e2e_umount
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
phys=$(ms_first_phys "$E2E_MNT/dir/victim")
[ -n "$phys" ] || e2e_hard_error "no extent for the victim file"
bad=$((phys + 2 * 4096 + 1024))		# a 512-byte logical block in the third 4 KiB block
e2e_log "victim at device offset $phys; bad block at $bad"
e2e_bad_add "$bad" 512
out=$E2E_DIR/report.json

check_report()
{
	local what=$1
	ms_expect_eq "$what: exit status is 1 (media errors)" "$MS_RC" 1
	ms_expect_eq "$what: one media error" "$(ms_jq "$out" '.media_errors | length')" 1
	ms_expect_eq "$what: error offset" "$(ms_jq "$out" '.media_errors[0].offset')" "$bad"
	ms_expect_eq "$what: error length is one logical block" \
		"$(ms_jq "$out" '.media_errors[0].length')" 512
	ms_expect_eq "$what: error class" "$(ms_jq "$out" '.media_errors[0].error')" EIO
	ms_expect_eq "$what: one damaged file" "$(ms_jq "$out" '.damaged_files | length')" 1
	ms_expect_eq "$what: damaged file path" "$(ms_jq "$out" '.damaged_files[0].paths[0]')" \
		"$E2E_MNT/dir/victim"
	ms_expect_eq "$what: range in the file" \
		"$(ms_jq "$out" '.damaged_files[0].ranges[0] | "\(.offset)+\(.length)"')" \
		"$((2 * 4096 + 1024))+512"
	ms_expect_eq "$what: lost" "$(ms_jq "$out" '.damaged_files[0].lost')" true
	ms_expect_eq "$what: no metadata damage" "$(ms_jq "$out" '.damaged_metadata | length')" 0
	ms_expect_eq "$what: complete" "$(ms_jq "$out" '.complete')" true
	ms_expect_eq "$what: scanned == planned" "$(ms_jq "$out" '.scanned_bytes == .planned_bytes')" true
}

for engine in $(ms_engines); do
	for qd in 1 32; do
		ms_scan "$out" "$E2E_MNT" --engine "$engine" --queue-depth "$qd"
		check_report "$engine qd=$qd"
		ms_expect_eq "$engine qd=$qd: engine reported" "$(ms_jq "$out" '.engine')" "$engine"
	done
done

# Bad block re-reads are counted by mediascan and by the fault disk.
e2e_reset_counters
ms_scan "$out" "$E2E_MNT" --queue-depth 8
reads_fd=$(e2e_bad_reads "$bad" 512)
reads_ms=$(ms_jq "$out" '.media_errors[0].reads')
e2e_log "bad block read $reads_fd times (fault disk), mediascan says $reads_ms"
e2e_check "the bad block reached the device at most 3 times (the failed read, its piece, itself)" \
	test "$reads_fd" -le 3
e2e_check "mediascan's read count matches the fault disk's" test "$reads_ms" -eq "$reads_fd"

# After a remount the answer is the same.
e2e_umount
e2e_mount -o ro,norecovery || e2e_hard_error "remount failed"
ms_scan "$out" "$E2E_MNT"
check_report "after remount"

# Made good again: clean, exit 0.
e2e_bad_del "$bad" 512
ms_scan "$out" "$E2E_MNT"
ms_expect_eq "good again: exit 0" "$MS_RC" 0
ms_expect_eq "good again: no media errors" "$(ms_jq "$out" '.media_errors | length')" 0
ms_expect_eq "good again: no damaged files" "$(ms_jq "$out" '.damaged_files | length')" 0

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "xfs/556 scenario: exact bad block named in the right file"
