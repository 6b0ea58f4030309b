#!/bin/bash
# xfs-damaged-owner.sh - owners that are themselves damaged objects, on XFS with rmapbt (issue
# 12): the first block of a 400-entry directory, a block of a 600-extent file's block map
# btree, the remote block of a file's extended attribute, and the inode chunk sector holding a
# file's inode. Each must be named with what is lost: "directory entries lost", "extent map
# lost", "extended attributes lost", "inode lost" with the file's path. Nothing is written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
for tool in xfs_db python3; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed"
done
e2e_setup 512
mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
m=$E2E_MNT
mkdir "$m/bigdir"
for i in $(seq 1 400); do : >"$m/bigdir/entry-with-a-long-name-$i"; done
xfs_io -f -c "pwrite -S 0x61 0 2400k" -c fsync "$m/fragmented" >/dev/null
for i in $(seq 1 2 599); do fallocate -p -o $((i * 4096)) -l 4096 "$m/fragmented"; done
head -c 8192 /dev/urandom >"$m/withxattr"
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.big", b"x" * 3000)' "$m/withxattr"
mkdir "$m/later"
head -c 20000 /dev/urandom >"$m/later/lost-inode"
sync
dir_ino=$(stat -c %i "$m/bigdir")
frag_ino=$(stat -c %i "$m/fragmented")
xattr_ino=$(stat -c %i "$m/withxattr")
lost_ino=$(stat -c %i "$m/later/lost-inode")
later_ino=$(stat -c %i "$m/later")
e2e_umount
daddr() { xfs_db -r "$@" -c daddr "$E2E_LOOP" | awk '/current daddr/ { print $4 * 512 }'; }
dir0=$(daddr -c "inode $dir_ino" -c "dblock 0")
bmbt=$(daddr -c "inode $frag_ino" -c 'addr u3.bmbt.ptrs[1]')
# "attr offset 0 startblock 4109 (0/4109) count 1 flag 0": the remote value block
ablk=$(xfs_db -r -c "inode $xattr_ino" -c "bmap -a" "$E2E_LOOP" | sed -n 's/.*(\([0-9]*\)\/\([0-9]*\)).*/\1 \2/p' | head -1)
agblocks=$(xfs_db -r -c 'sb 0' -c 'p agblocks' "$E2E_LOOP" | awk '{ print $3 }')
bs=$(xfs_db -r -c 'sb 0' -c 'p blocksize' "$E2E_LOOP" | awk '{ print $3 }')
attr=$(( (${ablk% *} * agblocks + ${ablk#* }) * bs ))
# the inode's own place on the device: "0x10600 (67072)"
ioff=$(xfs_db -r -c "convert inode $lost_ino byte" "$E2E_LOOP" | sed -n 's/.*(\([0-9]*\)).*/\1/p')
e2e_log "dir block $dir0, bmbt block $bmbt, attr block $attr, inode $lost_ino at byte $ioff"
for v in "$dir0" "$bmbt" "$attr" "$ioff"; do
	[ -n "$v" ] && [ "$v" -gt 0 ] || e2e_hard_error "a location was not found"
done
itab=$((ioff - ioff % 512))
# XFS reads inodes a cluster at a time (32 of them): when /later's inode shares the cluster, the
# kernel cannot read /later either, so that is the path a walk can name.
loff=$(xfs_db -r -c "convert inode $later_ino byte" "$E2E_LOOP" | sed -n 's/.*(\([0-9]*\)).*/\1/p')
isz=$(xfs_db -r -c 'sb 0' -c 'p inodesize' "$E2E_LOOP" | awk '{ print $3 }')
cl=$((32 * isz < 8192 ? 8192 : 32 * isz))
want_lost=$m/later/lost-inode
want_what="inode lost: the file's attributes and block map (so its contents) are unreadable"
if [ $((loff / cl)) = $((ioff / cl)) ]; then
	want_lost=$m/later
	want_what="inode unreadable: the kernel reads it with the bad sector (same inode block or cluster)"
fi
e2e_readonly on
h=$(e2e_hash)
e2e_bad_add "$dir0" 512
e2e_bad_add "$bmbt" 512
e2e_bad_add "$attr" 512
e2e_bad_add "$itab" 512
e2e_drop_caches
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
e2e_reset_counters

out=$E2E_DIR/report.json
ms_scan "$out" "$m" --merge-gap 0 --queue-depth 1
e2e_log "owners: $(jq -c '[.media_errors[] | {offset, owners: [.owners[] | {type, metadata, what_is_lost, paths}]}]' "$out")"
ms_expect_eq "exit status 1" "$MS_RC" 1
ms_expect_eq "four media errors" "$(ms_jq "$out" '.media_errors | length')" 4
lost() { ms_jq "$out" ".media_errors[] | select(.offset == $1) | [.owners[] | select(.paths == [\"$2\"]) | .what_is_lost][0]"; }
ms_expect_eq "directory block: entries lost" "$(lost "$dir0" "$m/bigdir")" "directory entries lost"
ms_expect_eq "bmbt block: extent map lost" "$(lost "$bmbt" "$m/fragmented")" \
	"extent map lost: part of the file's contents unreachable"
ms_expect_eq "attr block: attributes lost" "$(lost "$attr" "$m/withxattr")" \
	"extended attributes lost"
ms_expect_eq "inode chunk: the file whose inode it holds ($want_lost)" "$(lost "$itab" "$want_lost")" \
	"$want_what"
e2e_log "write attempts: $(e2e_writes)"
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "XFS damaged owners named"
