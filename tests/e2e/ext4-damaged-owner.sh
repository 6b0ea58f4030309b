#!/bin/bash
# ext4-damaged-owner.sh - owners found when the owning object is itself damaged (issue 12):
# ext4, a directory of 400 entries whose first block is unreadable (the kernel cannot even
# reconnect the directory to open it by handle: its ".." lives in that block), a file whose
# extent tree has a bad leaf, and a file whose extended-attribute block is bad. The report must
# name the directory ("directory entries lost", never "owner not found"), the file whose
# extent map is lost (from which file offset on), and the file whose attributes are lost;
# `mediascan map` on the directory block exits 1 and names it. Nothing is written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
for tool in mkfs.ext4 debugfs python3; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed"
done
e2e_setup 256
mkfs.ext4 -q -F -b 4096 -I 256 "$E2E_LOOP" || e2e_hard_error "mkfs.ext4 failed"
e2e_mount || e2e_hard_error "mount failed"
m=$E2E_MNT
mkdir "$m/bigdir"
for i in $(seq 1 400); do : >"$m/bigdir/entry-with-a-long-name-$i"; done
# A file of 600 one-block extents: an extent tree of depth 1 (an index in the inode, leaves
# in blocks of their own).
xfs_io -f -c "pwrite -S 0x61 0 4800k" -c fsync "$m/fragmented" >/dev/null
for i in $(seq 1 2 1199); do fallocate -p -o $((i * 4096)) -l 4096 "$m/fragmented"; done
# A file whose extended attributes need a block of their own.
head -c 8192 /dev/urandom >"$m/withxattr"
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.big", b"x" * 1500)' "$m/withxattr"
# A file whose inode sits in an inode table block that cannot be read.
mkdir "$m/later"
head -c 20000 /dev/urandom >"$m/later/lost-inode"
sync
e2e_umount
bs=4096
dir0=$(debugfs -R "bmap /bigdir 0" "$E2E_LOOP" 2>/dev/null)
# The second leaf of the tree: "(ETB1):BLOCK" lines list the tree's blocks.
read -r leaf_lblk leaf < <(debugfs -R "ex /fragmented" "$E2E_LOOP" 2>/dev/null |
	awk '$1 == "0/" && ++n == 2 { print $5, $8 }')
xattr=$(debugfs -R "stat /withxattr" "$E2E_LOOP" 2>/dev/null |
	sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
e2e_log "bigdir block 0 at $dir0; extent tree leaf $leaf maps from lblk $leaf_lblk; xattr block $xattr"
[ -n "$dir0" ] && [ "$dir0" != 0 ] || e2e_hard_error "no block 0 in /bigdir"
[ -n "$leaf" ] && [ -n "$leaf_lblk" ] || e2e_hard_error "no extent tree leaf in /fragmented"
[ -n "$xattr" ] && [ "$xattr" != 0 ] || e2e_hard_error "no xattr block for /withxattr"
# "Inode 14 is part of block group 0\n\tlocated at block 36, offset 0x0d00"
read -r iblk ioff < <(debugfs -R "imap /later/lost-inode" "$E2E_LOOP" 2>/dev/null |
	sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
[ -n "$iblk" ] || e2e_hard_error "no inode table block for /later/lost-inode"
itab=$((iblk * bs + ioff - ioff % 512))
e2e_log "inode of /later/lost-inode at block $iblk offset $ioff: bad sector $itab"
e2e_readonly on
h=$(e2e_hash)
e2e_bad_add $((dir0 * bs)) 512
e2e_bad_add $((leaf * bs)) 512
e2e_bad_add $((xattr * bs)) 512
e2e_bad_add "$itab" 512
e2e_drop_caches
e2e_mount -o ro,noload || e2e_hard_error "ro mount failed"
e2e_drop_caches
e2e_reset_counters

out=$E2E_DIR/report.json
ms_scan "$out" "$m" --merge-gap 0 --queue-depth 1
e2e_log "owners: $(jq -c '[.media_errors[] | {offset, owners: [.owners[] | {type, metadata, note, what_is_lost, paths}]}]' "$out")"
ms_expect_eq "exit status 1" "$MS_RC" 1
ms_expect_eq "four media errors" "$(ms_jq "$out" '.media_errors | length')" 4
ms_expect_eq "nothing 'owner not found'" \
	"$(ms_jq "$out" '[.media_errors[].owners[] | select(.type == "unknown")] | length')" 0
ms_expect_eq "directory block: the directory, named" \
	"$(ms_jq "$out" ".damaged_files[] | select(.directory) | .paths | join(\",\")")" "$m/bigdir"
ms_expect_eq "directory block: what is lost" \
	"$(ms_jq "$out" ".media_errors[] | select(.offset == $((dir0 * bs))) | .owners[0].what_is_lost")" \
	"directory entries lost"
ms_expect_eq "extent tree leaf: the file's block map, named" \
	"$(ms_jq "$out" ".media_errors[] | select(.offset == $((leaf * bs))) | .owners[0] | \"\(.metadata) \(.paths | join(\",\"))\"")" \
	"extent-tree $m/fragmented"
ms_expect_eq "extent tree leaf: what is lost" \
	"$(ms_jq "$out" ".media_errors[] | select(.offset == $((leaf * bs))) | .owners[0].what_is_lost")" \
	"extent map lost: file contents past offset $((leaf_lblk * bs)) unreachable"
ms_expect_eq "xattr block: the file, attribute fork" \
	"$(ms_jq "$out" ".damaged_files[] | select(.paths == [\"$m/withxattr\"]) | .ranges[0].fork")" attr

ms_expect_eq "inode table block: the inode table" \
	"$(ms_jq "$out" ".media_errors[] | select(.offset == $itab) | .owners[0].metadata")" \
	inode-table
ms_expect_eq "inode table block: the file whose inode it holds, named" \
	"$(ms_jq "$out" ".media_errors[] | select(.offset == $itab) | [.owners[] | select(.metadata == \"inode\") | .paths[]] | index(\"$m/later/lost-inode\") != null")" \
	true
ms_expect_eq "inode table block: what is lost" \
	"$(ms_jq "$out" ".media_errors[] | select(.offset == $itab) | [.owners[] | select(.paths == [\"$m/later/lost-inode\"]) | .what_is_lost][0]")" \
	"inode lost: the file's attributes and block map (so its contents) are unreadable"

human=$("$MEDIASCAN" scan "$m" --progress none --no-state --merge-gap 0 2>&1 || true)
e2e_check "human: directory entries lost" grep -q "directory entries lost" <<<"$human"
e2e_check "human: extent map lost" grep -q "extent map lost: file contents past offset" <<<"$human"
e2e_check "human: the inode's file" grep -q "inode [0-9]* ($m/later/lost-inode)" <<<"$human"

ans=$E2E_DIR/map.json
rc=0
"$MEDIASCAN" map "$E2E_LOOP" $((dir0 * bs)) 512 --json "$ans" -q || rc=$?
ms_expect_eq "map: a lookup of a directory block exits 0" "$rc" 0
ms_expect_eq "map: names the directory" \
	"$(ms_jq "$ans" '.damaged_files[0].paths | join(",")')" "$m/bigdir"

# ext4 records the errors it meets (a block it cannot read) in its superblock even on a
# read-only mount: the fault disk refuses that write, and the image hash proves nothing was
# written. (A read-only block device would stop the kernel trying, but BLKROSET outlives the
# loop device and would hit the next test that gets it.)
e2e_log "write attempts (the kernel's error records): $(e2e_writes)"
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "damaged owners named: directory, extent tree, xattr block"
