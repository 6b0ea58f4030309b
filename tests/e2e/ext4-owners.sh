#!/bin/bash
# ext4-owners.sh - who owns a bad block on ext4: a file (path, offset), a hard-linked file
# (both paths), a directory block, the inode table (metadata), the journal (named through
# libext2fs, not "unknown"), an unwritten extent (lost: false) and free space (never read).
# GETFSMAP plans every non-free range; the owner index finds the files. Nothing is written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
for tool in mkfs.ext4 debugfs filefrag; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed"
done
e2e_setup 512
mkfs.ext4 -q -F -b 4096 "$E2E_LOOP" || e2e_hard_error "mkfs.ext4 failed"
e2e_mount || e2e_hard_error "mount failed"
m=$E2E_MNT
mkdir -p "$m/a" "$m/b" "$m/bigdir"
head -c 65536 /dev/urandom >"$m/a/plain"
head -c 65536 /dev/urandom >"$m/a/linked"
ln "$m/a/linked" "$m/b/second-link"
fallocate -l 1M "$m/a/prealloc"
# A directory big enough for blocks of its own (an htree: several blocks).
for i in $(seq 1 400); do : >"$m/bigdir/entry-with-a-long-name-$i"; done
for i in $(seq 1 100); do head -c $((RANDOM % 20000 + 1)) /dev/urandom >"$m/a/f$i"; done
sync
e2e_umount
e2e_readonly on
h=$(e2e_hash)
e2e_mount -o ro,noload || e2e_hard_error "ro mount failed"

bs=4096
plain=$(ms_first_phys "$m/a/plain")
linked=$(ms_first_phys "$m/a/linked")
prealloc=$(ms_first_phys "$m/a/prealloc")
# The directory's second block (the first is read while walking its parent... either works).
dirblk=$(debugfs -R "blocks /bigdir" "$E2E_LOOP" 2>/dev/null | awk '{ print $2 }')
[ -n "$dirblk" ] || e2e_hard_error "no second block in /bigdir"
# The journal (inode 8): a block in its middle.
jblocks=$(debugfs -R "blocks <8>" "$E2E_LOOP" 2>/dev/null | wc -w)
jblk=$(debugfs -R "blocks <8>" "$E2E_LOOP" 2>/dev/null | awk -v n=$((jblocks / 2)) '{ print $n }')
[ -n "$jblk" ] || e2e_hard_error "no journal blocks"
# The inode table: its last block (unused inodes: the files found stay readable).
read -r it_off it_len < <(ms_fsmap_all special_88:5 | sort -k1 -n | head -1)
itab=$((it_off + it_len - bs))
# Free space well past every allocation.
read -r free_off free_len < <(ms_fsmap_all special_0:1 | sort -k2 -n | tail -1)
free_bad=$((free_off + free_len / 2))
free_bad=$((free_bad - free_bad % bs))
e2e_log "plain $plain linked $linked prealloc $prealloc dir block $dirblk journal block $jblk itable $itab free $free_bad"

e2e_bad_add $((plain + 8192)) 512
e2e_bad_add $((linked + 4096)) 512
e2e_bad_add $((dirblk * bs)) 512
e2e_bad_add $((jblk * bs + 1024)) 512
e2e_bad_add "$itab" 512
e2e_bad_add $((prealloc + 65536)) 4096
e2e_bad_add "$free_bad" 4096
out=$E2E_DIR/report.json

e2e_reset_counters
# One read at a time: the loop driver would merge neighbouring reads into one request that
# the fault disk fails whole (a neighbour of a bad block would fail once, not reproducibly).
ms_scan "$out" "$m" --merge-gap 0 --queue-depth 1
ms_expect_eq "exit status 1" "$MS_RC" 1
ms_expect_eq "fs_type" "$(ms_jq "$out" .fs_type)" ext4
ms_expect_eq "six media errors (not the free one)" "$(ms_jq "$out" '.media_errors | length')" 6
ms_expect_eq "file: path and range" \
	"$(ms_jq "$out" ".damaged_files[] | select(.paths == [\"$m/a/plain\"]) | .ranges[0] | \"\(.offset)+\(.length) lost=\(.lost)\"")" \
	"8192+512 lost=true"
ms_expect_eq "hard-linked file: both paths" \
	"$(ms_jq "$out" ".damaged_files[] | select(.paths | index(\"$m/a/linked\")) | .paths | sort | join(\",\")")" \
	"$m/a/linked,$m/b/second-link"
ms_expect_eq "directory block: the directory" \
	"$(ms_jq "$out" ".damaged_files[] | select(.directory) | .paths | join(\",\")")" "$m/bigdir"
ms_expect_eq "unwritten extent: lost false" \
	"$(ms_jq "$out" ".damaged_files[] | select(.paths == [\"$m/a/prealloc\"]) | \"\(.ranges[0].offset) \(.ranges[0].lost) \(.lost)\"")" \
	"65536 false false"
ms_expect_eq "inode table: metadata" \
	"$(ms_jq "$out" ".damaged_metadata[] | select(.offset == $itab) | .type")" "inode-table"
ms_expect_eq "journal: named (inode 8), not unknown" \
	"$(ms_jq "$out" ".damaged_metadata[] | select(.type == \"journal\") | \"\(.offset) \(.inode)\"")" \
	"$((jblk * bs + 1024)) 8"
ms_expect_eq "journal owner is the log" \
	"$(ms_jq "$out" ".media_errors[] | select(.offset == $((jblk * bs + 1024))) | .owners[0].type")" log
ms_expect_eq "nothing unknown" \
	"$(ms_jq "$out" '[.media_errors[].owners[] | select(.type == "unknown")] | length')" 0
ms_expect_eq "free space never read" "$(e2e_bad_reads "$free_bad" 4096)" 0
ms_expect_eq "scanned == planned" "$(ms_jq "$out" '.scanned_bytes == .planned_bytes')" true
used=$(df -B1 --output=used "$m" | tail -1)
planned=$(ms_jq "$out" .planned_bytes)
e2e_log "planned $planned, df used $used"
e2e_check "planned covers the space in use (df used <= planned)" test "$used" -le "$planned"
total=$(blockdev --getsize64 "$E2E_LOOP")
e2e_check "planned excludes free space (less than half the device)" \
	test "$planned" -lt $((total / 2))

# The human report names the files and says what the metadata is.
human=$("$MEDIASCAN" scan "$m" --progress none --no-state 2>&1 || true)
e2e_check "human: the file" grep -qF "$m/a/plain" <<<"$human"
e2e_check "human: the journal" grep -q "journal" <<<"$human"
e2e_check "human: unwritten says nothing lost" grep -q "unwritten: nothing lost" <<<"$human"

# mediascan map answers the same without a scan.
ans=$E2E_DIR/map.json
rc=0
"$MEDIASCAN" map "$E2E_LOOP" $((plain + 8192)) 512 --json "$ans" -q || rc=$?
ms_expect_eq "map: a lookup that names a file exits 0" "$rc" 0
ms_expect_eq "map: the file" "$(ms_jq "$ans" '.damaged_files[0].paths | join(",")')" "$m/a/plain"
rc=0
"$MEDIASCAN" map "$E2E_LOOP" "$free_bad" 4096 --json "$ans" -q || rc=$?
ms_expect_eq "map: free space: exit 0" "$rc" 0
ms_expect_eq "map: free space" "$(ms_jq "$ans" '.media_errors[0].owners[0].type')" free

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "ext4 owners: file, hard links, directory, inode table, journal, unwritten, free"
