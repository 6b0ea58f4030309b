#!/bin/bash
# partitions.sh - a partitioned disk: `mediascan scan /dev/DISK` reads the GPT with libblkid
# (this kernel has no partition parsers; `partx -a` adds the partition devices), plans the XFS
# and ext4 partitions through their mounted filesystems (written extents only, shifted by the
# partition start) and reads the unformatted partition and the gaps whole. One bad sector in
# each partition and one in the gap after the partition table: each is reported with its disk
# offset, its partition and its owner (files with full paths under their mount point). Free
# space inside the XFS is never read. `mediascan map` answers the same on the disk (bytes and
# --sector) and on a partition. Nothing is written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
for tool in sgdisk partx mkfs.ext4; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed"
done
e2e_setup 1024
D=$E2E_LOOP
P1=$E2E_DIR/p1 P2=$E2E_DIR/p2
mkdir -p "$P1" "$P2"
cleanup_parts()
{
	cd / || :
	for mp in "$P1" "$P2"; do
		mountpoint -q -- "$mp" 2>/dev/null && { umount -- "$mp" || umount -l -- "$mp"; }
	done
	partx -d "$D" 2>/dev/null || :
}
trap 'rc=$?; set +e; cleanup_parts; _e2e_cleanup; exit $rc' EXIT

sgdisk -Z -n 1:1M:+320M -t 1:8300 -c 1:xfs-part -n 2:0:+200M -t 2:8300 -c 2:ext4-part \
	-n 3:0:0 -t 3:8300 -c 3:raw "$D" >/dev/null || e2e_hard_error "sgdisk failed"
partx -a "$D" || e2e_hard_error "partx -a failed"
for _ in $(seq 50); do
	[ -b "${D}p3" ] && break
	sleep 0.1
done
[ -b "${D}p1" ] && [ -b "${D}p2" ] && [ -b "${D}p3" ] || e2e_hard_error "no partition devices"
start() { echo $(($(cat "/sys/class/block/$(basename "$D")/$(basename "$D")p$1/start") * 512)); }
S1=$(start 1) S2=$(start 2) S3=$(start 3)
mkfs.xfs -q -f -m rmapbt=1 "${D}p1" || e2e_hard_error "mkfs.xfs failed"
mkfs.ext4 -q -F -b 4096 "${D}p2" || e2e_hard_error "mkfs.ext4 failed"
mount "${D}p1" "$P1" && mount "${D}p2" "$P2" || e2e_hard_error "mount failed"
mkdir -p "$P1/dir" "$P2/dir"
xfs_io -f -c "pwrite -S 0x11 0 64k" -c fsync "$P1/dir/on-xfs" >/dev/null
head -c 65536 /dev/urandom >"$P2/dir/on-ext4"
ln "$P2/dir/on-ext4" "$P2/other-link"
sync
umount "$P1" "$P2"
e2e_readonly on
h=$(e2e_hash)
mount -o ro,norecovery "${D}p1" "$P1" && mount -o ro,noload "${D}p2" "$P2" ||
	e2e_hard_error "ro mount failed"

x=$(ms_first_phys "$P1/dir/on-xfs")
e=$(ms_first_phys "$P2/dir/on-ext4")
read -r free_off free_len < <(xfs_io -c 'fsmap -m' "$P1" | awk -F, \
	'$6 == "special_0:1" { printf "%.0f %.0f\n", $4 * 512, ($5 - $4 + 1) * 512 }' |
	sort -k2 -n | tail -1)
free_bad=$((free_off + free_len / 2))
free_bad=$((free_bad - free_bad % 4096))
BAD_X=$((S1 + x + 4096)) BAD_E=$((S2 + e + 8192)) BAD_R=$((S3 + (1 << 20))) BAD_G=$((512 << 10))
BAD_F=$((S1 + free_bad))
e2e_log "partitions at $S1 $S2 $S3; bad: xfs $BAD_X ext4 $BAD_E raw $BAD_R gap $BAD_G xfs-free $BAD_F"
for b in $BAD_X $BAD_E $BAD_R $BAD_G; do
	e2e_bad_add "$b" 512
done
e2e_bad_add "$BAD_F" 4096
out=$E2E_DIR/report.json

e2e_reset_counters
ms_scan "$out" "$D" --queue-depth 1
ms_expect_eq "exit status 1" "$MS_RC" 1
ms_expect_eq "the disk is planned through its partitions" \
	"$(ms_jq "$out" '"\(.devices[0].role) \(.partition_table) \([.partitions[].planned] | join(","))"')" \
	"disk gpt through its filesystem,through its filesystem,whole"
ms_expect_eq "four media errors (not the XFS free space)" \
	"$(ms_jq "$out" '[.media_errors[].offset] | join(",")')" "$BAD_G,$BAD_X,$BAD_E,$BAD_R"
ms_expect_eq "XFS partition: the file, partition 1, offset in the partition" \
	"$(ms_jq "$out" ".media_errors[] | select(.offset == $BAD_X) | .owners[0] | \"\(.type) \(.partition) \(.partition_offset) \(.paths | join(\",\")) \(.file_offset)\"")" \
	"file 1 $((x + 4096)) $P1/dir/on-xfs 4096"
ms_expect_eq "ext4 partition: the file with both its paths, partition 2" \
	"$(ms_jq "$out" ".media_errors[] | select(.offset == $BAD_E) | .owners[0] | \"\(.type) \(.partition) \(.paths | sort | join(\",\")) \(.file_offset)\"")" \
	"file 2 $P2/dir/on-ext4,$P2/other-link 8192"
ms_expect_eq "unformatted partition: read whole, partition 3" \
	"$(ms_jq "$out" ".media_errors[] | select(.offset == $BAD_R) | .owners[0] | \"\(.type) \(.metadata) \(.partition)\"")" \
	"device partition 3"
ms_expect_eq "the gap after the partition table" \
	"$(ms_jq "$out" ".media_errors[] | select(.offset == $BAD_G) | .owners[0] | \"\(.type) \(.metadata)\"")" \
	"device partition-gap"
ms_expect_eq "damaged files: both, with their partition and mount point" \
	"$(ms_jq "$out" '[.damaged_files[] | "\(.partition):\(.mount_point)"] | sort | join(",")')" \
	"1:$P1,2:$P2"
ms_expect_eq "XFS free space never read" "$(e2e_bad_reads "$BAD_F" 4096)" 0
ms_expect_eq "scanned == planned" "$(ms_jq "$out" '.scanned_bytes == .planned_bytes')" true

# map: the disk by bytes and by sector, and a partition by its own offsets.
ans=$E2E_DIR/map.json
rc=0
"$MEDIASCAN" map "$D" "$BAD_X" 512 --json "$ans" -q || rc=$?
ms_expect_eq "map disk bytes: a lookup that answered exits 0" "$rc" 0
ms_expect_eq "map disk bytes: the XFS file" \
	"$(ms_jq "$ans" '.media_errors[0].owners[0] | "\(.partition) \(.paths[0])"')" "1 $P1/dir/on-xfs"
rc=0
"$MEDIASCAN" map "$D" --sector $((BAD_E / 512)) --json "$ans" -q || rc=$?
ms_expect_eq "map disk --sector: the ext4 file" \
	"$(ms_jq "$ans" '.media_errors[0].owners[0] | "\(.partition) \(.file_offset)"')" "2 8192"
rc=0
"$MEDIASCAN" map "$D" "$BAD_G" --json "$ans" -q || rc=$?
ms_expect_eq "map disk gap: exit 0, partition gap" \
	"$rc $(ms_jq "$ans" '.media_errors[0].owners[0].metadata')" "0 partition-gap"
rc=0
"$MEDIASCAN" map "$D" 1024 --json "$ans" -q || rc=$?
ms_expect_eq "map disk: the GPT entries are the partition table" \
	"$(ms_jq "$ans" '.media_errors[0].owners[0].metadata')" "partition-table"
rc=0
"$MEDIASCAN" map "${D}p2" $((e + 8192)) --json "$ans" -q || rc=$?
ms_expect_eq "map partition device: the ext4 file" \
	"$(ms_jq "$ans" '.damaged_files[0].paths | sort | join(",")')" "$P2/dir/on-ext4,$P2/other-link"
rc=0
"$MEDIASCAN" map "${D}p3" 4096 --json "$ans" -q || rc=$?
ms_expect_eq "map unformatted partition: partition 3, contents unknown" \
	"$(ms_jq "$ans" '.media_errors[0].owners[0] | "\(.type) \(.partition)"')" "device 3"

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
umount "$P1" "$P2"
e2e_assert_unchanged "$h"
e2e_pass "partitioned disk: XFS, ext4, unformatted partition and gap each mapped"
