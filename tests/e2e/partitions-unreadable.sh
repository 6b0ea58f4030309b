#!/bin/bash
# partitions-unreadable.sh - issue 12: a disk whose partition table is unreadable (bad
# sectors under the MBR, both GPT headers and their entries) while the kernel still knows its
# partitions (it parsed them when the disk appeared; here partx added them): the scan plans the
# partitions the kernel lists, so an error inside the XFS on partition 1 still names the file
# (it used to read the disk whole and map nothing to files). Nothing is written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
for tool in sgdisk partx; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed"
done
e2e_setup 512
D=$E2E_LOOP
P1=$E2E_DIR/p1
mkdir -p "$P1"
cleanup_parts()
{
	cd / || :
	mountpoint -q -- "$P1" 2>/dev/null && { umount -- "$P1" || umount -l -- "$P1"; }
	partx -d "$D" 2>/dev/null || :
}
trap 'rc=$?; set +e; cleanup_parts; _e2e_cleanup; exit $rc' EXIT
sgdisk -Z -n 1:1M:+320M -t 1:8300 "$D" >/dev/null || e2e_hard_error "sgdisk failed"
partx -a "$D" || e2e_hard_error "partx -a failed"
for _ in $(seq 50); do [ -b "${D}p1" ] && break; sleep 0.1; done
[ -b "${D}p1" ] || e2e_hard_error "no partition device"
S1=$(( $(cat "/sys/class/block/$(basename "$D")/$(basename "$D")p1/start") * 512 ))
mkfs.xfs -q -f -m rmapbt=1 "${D}p1" || e2e_hard_error "mkfs.xfs failed"
mount "${D}p1" "$P1" || e2e_hard_error "mount failed"
xfs_io -f -c "pwrite -S 0x11 0 64k" -c fsync "$P1/victim" >/dev/null
sync
umount "$P1"
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
mount -o ro,norecovery "${D}p1" "$P1" || e2e_hard_error "ro mount failed"
bad=$(( S1 + $(ms_first_phys "$P1/victim") + 4096 ))
size=$(blockdev --getsize64 "$D")
e2e_bad_add 0 $((1024 * 1024))				# MBR, primary GPT header and entries
e2e_bad_add $((size - 65536)) 65536			# backup GPT entries and header
e2e_bad_add "$bad" 512
e2e_drop_caches					# the table is read from the disk again
out=$E2E_DIR/report.json
ms_scan "$out" "$D" --no-state
ms_expect_eq "exit 1" "$MS_RC" 1
ms_expect_eq "the kernel's partition list was used" "$(ms_jq "$out" .partition_table)" kernel
ms_expect_eq "the file in partition 1 is named" \
	"$(ms_jq "$out" '[.damaged_files[].paths[]] | join(" ")')" "$P1/victim"
ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
umount "$P1"
e2e_assert_unchanged "$h"
e2e_pass "an unreadable partition table: the kernel's partitions are planned, files named"
