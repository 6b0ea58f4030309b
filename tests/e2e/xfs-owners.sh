#!/bin/bash
# xfs-owners.sh - who owns a bad range on XFS (rmapbt, reflink): metadata is reported as
# metadata with its type and AG; free space and unwritten extents are never read nor
# reported; a hard-linked file lists both paths; a reflinked extent lists both files;
# a bad block in a gap bridged by --merge-gap is read but not reported as damage;
# planned_bytes is close to the space in use and scanned_bytes equals it.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 512
mkfs.xfs -q -f -m rmapbt=1,reflink=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
m=$E2E_MNT
mkdir -p "$m/a" "$m/b" "$m/weird"
xfs_io -f -c "pwrite -S 0x11 0 64k" -c fsync "$m/a/linked" >/dev/null
ln "$m/a/linked" "$m/b/second-link"
xfs_io -f -c "pwrite -S 0x22 0 128k" -c fsync "$m/a/original" >/dev/null
cp --reflink=always "$m/a/original" "$m/b/clone"
# Three files in a row; the middle one deleted leaves a free gap between two planned ranges.
xfs_io -f -c "pwrite -S 0x33 0 64k" -c fsync "$m/a/before" >/dev/null
xfs_io -f -c "pwrite -S 0x44 0 64k" -c fsync "$m/a/middle" >/dev/null
xfs_io -f -c "pwrite -S 0x55 0 64k" -c fsync "$m/a/after" >/dev/null
xfs_io -f -c "falloc 0 1m" -c fsync "$m/a/prealloc" >/dev/null
# A name with control characters and invalid UTF-8 must not reach the terminal raw.
xfs_io -f -c "pwrite -S 0x66 0 4k" -c fsync "$m/weird/$(printf 'esc\033[31mred\001\xff')" >/dev/null
for i in $(seq 1 200); do
	head -c $((RANDOM % 20000 + 1)) /dev/urandom >"$m/a/f$i"
done
sync
gap_off=$(ms_first_phys "$m/a/middle")
rm "$m/a/middle"
sync
e2e_umount
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
used=$(df -B1 --output=used "$m" | tail -1)

linked=$(ms_first_phys "$m/a/linked")
orig=$(ms_first_phys "$m/a/original")
clone=$(ms_first_phys "$m/b/clone")
ms_expect_eq "the clone shares the original's blocks" "$clone" "$orig"
prealloc=$(ms_first_phys "$m/a/prealloc")
read -r inodes_off _ < <(ms_fsmap_first special_88:5)
# A free-space record well inside the free area (past every allocation).
read -r free_off free_len < <(ms_fsmap_all special_0:1 | sort -k2 -n | tail -1)
free_bad=$((free_off + free_len / 2))
free_bad=$((free_bad - free_bad % 4096))
gap_state=$(xfs_io -c 'fsmap -m' "$m" | awk -F, -v p=$((gap_off / 512)) \
	'$4 <= p && $5 >= p { print $6 }')
ms_expect_eq "the deleted file's blocks are free" "$gap_state" "special_0:1"

e2e_bad_add $((linked + 4096)) 512
e2e_bad_add $((orig + 8192)) 1024
# The third inode cluster (inodes 160-175: files of a/, no directory): the walk that names
# files must not need a cluster the kernel can read only from its cache.
e2e_bad_add $((inodes_off + 16384)) 512
e2e_bad_add "$free_bad" 4096
e2e_bad_add $((prealloc + 65536)) 4096
e2e_bad_add $((gap_off + 4096)) 512
out=$E2E_DIR/report.json

for engine in $(ms_engines); do
	e2e_reset_counters
	ms_scan "$out" "$m" --engine "$engine" --merge-gap 0
	ms_expect_eq "$engine: exit status 1" "$MS_RC" 1
	ms_expect_eq "$engine: three media errors (file, clone pair, inodes)" \
		"$(ms_jq "$out" '.media_errors | length')" 3
	ms_expect_eq "$engine: hard-linked file lists both paths" \
		"$(ms_jq "$out" ".damaged_files[] | select(.paths | index(\"$m/a/linked\")) | .paths | sort | join(\",\")")" \
		"$m/a/linked,$m/b/second-link"
	ms_expect_eq "$engine: hard-linked range" \
		"$(ms_jq "$out" ".damaged_files[] | select(.paths | index(\"$m/a/linked\")) | .ranges[0] | \"\(.offset)+\(.length)\"")" \
		"4096+512"
	ms_expect_eq "$engine: reflinked extent names both files" \
		"$(ms_jq "$out" "[.damaged_files[] | select(.ranges[0].offset == 8192 and .ranges[0].length == 1024) | .paths[0]] | sort | join(\",\")")" \
		"$m/a/original,$m/b/clone"
	ms_expect_eq "$engine: reflinked files are marked shared" \
		"$(ms_jq "$out" "[.damaged_files[] | select(.ranges[0].length == 1024) | .shared] | all")" true
	ms_expect_eq "$engine: inode chunk reported as metadata 'inodes' in AG 0" \
		"$(ms_jq "$out" '.damaged_metadata[] | "\(.type) \(.ag) \(.length)"')" "inodes 0 512"
	ms_expect_eq "$engine: free space never read" "$(e2e_bad_reads "$free_bad" 4096)" 0
	ms_expect_eq "$engine: unwritten extent never read" \
		"$(e2e_bad_reads $((prealloc + 65536)) 4096)" 0
	ms_expect_eq "$engine: freed gap never read with --merge-gap 0" \
		"$(e2e_bad_reads $((gap_off + 4096)) 512)" 0
	ms_expect_eq "$engine: nothing reported in free space" \
		"$(ms_jq "$out" "[.media_errors[] | select(.offset == $free_bad)] | length")" 0
	ms_expect_eq "$engine: scanned == planned" \
		"$(ms_jq "$out" '.scanned_bytes == .planned_bytes')" true
done

planned=$(ms_jq "$out" '.planned_bytes')
logb=$(xfs_io -c 'fsmap -m' "$m" | awk -F, '$6 == "special_88:2" { s += ($5 - $4 + 1) * 512 } END { printf "%.0f", s }')
e2e_log "planned $planned bytes; df used $used; internal log $logb"
e2e_check "planned_bytes is close to the space in use plus the log (within 5%)" \
	awk -v p="$planned" -v u="$used" -v l="$logb" \
	'BEGIN { d = p - (u + l); if (d < 0) d = -d; exit !(d <= 0.05 * (u + l)) }'
total=$(blockdev --getsize64 "$E2E_LOOP")
e2e_check "planned_bytes excludes free space (less than half the device)" \
	test "$planned" -lt $((total / 2))

# Bridging the freed gap reads it; the bad block there is not damage.
ms_scan "$out" "$m" --merge-gap 1M
ms_expect_eq "merge-gap: still three media errors" "$(ms_jq "$out" '.media_errors | length')" 3
# Both the freed gap and the unwritten extent after "after" lie within 1M of planned data.
ms_expect_eq "merge-gap: bad blocks in the bridged free gap and unwritten extent are not damage" \
	"$(ms_jq "$out" '.bridged_gap_errors | map(.offset) | sort | join(",")')" \
	"$((gap_off + 4096)),$((prealloc + 65536))"
e2e_check "merge-gap: the gap was read this time" test "$(e2e_bad_reads $((gap_off + 4096)) 512)" -ge 1
ms_expect_eq "merge-gap: scanned == planned" "$(ms_jq "$out" '.scanned_bytes == .planned_bytes')" true

# Human output escapes hostile names.
e2e_bad_add $(( $(ms_first_phys "$m/weird/$(printf 'esc\033[31mred\001\xff')") )) 512
human=$("$MEDIASCAN" scan "$m" --progress none 2>&1 || true)
e2e_check "control characters are escaped in human output" \
	grep -qF 'esc\x1b[31mred\x01\xff' <<<"$human"
e2e_check_fails "no raw escape character in human output" grep -q $'\033' <<<"$human"

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "owners: metadata, free, unwritten, hard links, reflink, gaps"
