#!/bin/bash
# ext4-raw.sh - a bare device holding an ext4 that nothing mounts (populated with mkfs.ext4 -d,
# never mounted): `mediascan map` names the owners from the raw device with libext2fs, read
# only: a file (inode, both its paths, file offset), the inode table with the inode it holds,
# and bytes past the filesystem's end; a journal that needs recovery is said not replayed. A
# `scan` of the device over one bad sector reports the file as damaged (exit 1). Truth from
# debugfs and dumpe2fs. Nothing is written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
for tool in mkfs.ext4 debugfs dumpe2fs python3; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed"
done
e2e_setup 64
D=$E2E_LOOP
src=$E2E_DIR/src
mkdir -p "$src/a" "$src/b"
head -c 200000 /dev/urandom >"$src/a/plain"
ln "$src/a/plain" "$src/b/link"
for i in $(seq 1 20); do head -c $((i * 3000)) /dev/urandom >"$src/a/f$i"; done
# 48 MiB of ext4 on a 64 MiB device: the rest is outside the filesystem.
mkfs.ext4 -q -F -b 4096 -d "$src" "$D" 12288 || e2e_hard_error "mkfs.ext4 failed"

bs=4096
ino=$(debugfs -R "stat /a/plain" "$D" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
blk=$(debugfs -R "bmap /a/plain 3" "$D" 2>/dev/null)
itab=$(dumpe2fs "$D" 2>/dev/null | awk '/Inode table at/ { split($4, a, "-"); print a[1]; exit }')
isz=$(dumpe2fs -h "$D" 2>/dev/null | awk -F: '/^Inode size/ { gsub(/[ \t]/, "", $2); print $2 }')
ipg=$(dumpe2fs -h "$D" 2>/dev/null | awk -F: '/^Inodes per group/ { gsub(/[ \t]/, "", $2); print $2 }')
[ -n "$ino" ] && [ -n "$blk" ] && [ -n "$itab" ] && [ -n "$isz" ] ||
	e2e_hard_error "debugfs/dumpe2fs gave no truth (inode '$ino' block '$blk' itable '$itab')"
[ "$ino" -le "$ipg" ] || e2e_hard_error "inode $ino is not in group 0"
BAD_F=$((blk * bs + 512))			# file block 3, its second sector
BAD_I=$((itab * bs + (ino - 1) * isz))	# the file's own inode
BAD_I=$((BAD_I - BAD_I % 512))
BAD_O=$((50 << 20))				# past the filesystem's 48 MiB
e2e_log "inode $ino block $blk itable $itab (inode size $isz); bad: file $BAD_F inode $BAD_I outside $BAD_O"
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
ans=$E2E_DIR/map.json

rc=0
"$MEDIASCAN" map "$D" --sector $((BAD_F / 512)) --json "$ans" -q || rc=$?
ms_expect_eq "map file: exit 0" "$rc" 0
ms_expect_eq "map file: the file, both paths, its offset, read unmounted" \
	"$(ms_jq "$ans" '.media_errors[0].owners[0] | "\(.type) \(.inode) \(.file_offset) \(.length) \(.paths | sort | join(",")) \(.read_from)"')" \
	"file $ino $((3 * bs + 512)) 512 /a/plain,/b/link raw device (not mounted)"
ms_expect_eq "map file: damaged_files" \
	"$(ms_jq "$ans" '.damaged_files[0] | "\(.inode) \(.ranges[0].offset)+\(.ranges[0].length) \(.read_from)"')" \
	"$ino $((3 * bs + 512))+512 raw device (not mounted)"
ms_expect_eq "map file: the target is the ext4, read from the raw device" \
	"$(ms_jq "$ans" '.targets[0] | "\(.fs_type) \(.read_from)"')" "ext4 raw device (not mounted)"

"$MEDIASCAN" map "$D" --sector $((BAD_I / 512)) --json "$ans" -q || :
ms_expect_eq "map inode table: metadata inode-table" \
	"$(ms_jq "$ans" '.media_errors[0].owners[0] | "\(.type) \(.metadata)"')" "metadata inode-table"
# (its neighbour in that sector may be /b's inode: then /b/link cannot be reached, rightly)
ms_expect_eq "map inode table: the inode it holds, named" \
	"$(ms_jq "$ans" ".media_errors[0].owners[] | select(.metadata == \"inode\" and .inode == $ino) | .paths | index(\"/a/plain\") != null")" \
	"true"
ms_expect_eq "map inode table: damaged_metadata" \
	"$(ms_jq "$ans" '.damaged_metadata[0] | "\(.type) \(.offset)"')" "inode-table $BAD_I"

"$MEDIASCAN" map "$D" --sector $((BAD_O / 512)) --json "$ans" -q || :
ms_expect_eq "map past the end: outside the filesystem" \
	"$(ms_jq "$ans" '.media_errors[0].owners[0] | "\(.type) \(.metadata)"')" \
	"device outside-filesystem"

# The scan: the whole device read, the bad sector mapped to the file.
e2e_bad_add "$BAD_F" 512
out=$E2E_DIR/report.json
ms_scan "$out" "$D" --queue-depth 1
ms_expect_eq "scan: exit 1 (media errors)" "$MS_RC" 1
ms_expect_eq "scan: the bad sector" \
	"$(ms_jq "$out" '[.media_errors[] | "\(.offset)+\(.length)"] | join(",")')" "$BAD_F+512"
ms_expect_eq "scan: the verdict an admin acts on (damage: restore the file)" \
	"$(ms_jq "$out" '[.media_errors[].verdict] | join(",")')" "damage"
ms_expect_eq "scan: the damaged file, both paths, its range" \
	"$(ms_jq "$out" '.damaged_files[] | "\(.inode) \(.paths | sort | join(",")) \(.ranges[0].offset)+\(.ranges[0].length) \(.lost) \(.read_from)"')" \
	"$ino /a/plain,/b/link $((3 * bs + 512))+512 true raw device (not mounted)"
ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"

# A journal that needs recovery is not replayed: the answer says its names are as of the
# last write. (The flag is set on the image itself, after the checks above.)
e2e_readonly off
python3 - "$D" <<'EOF' || e2e_hard_error "cannot set needs_recovery"
import os, struct, sys
fd = os.open(sys.argv[1], os.O_RDWR)
sb = bytearray(os.pread(fd, 1024, 1024))
struct.pack_into("<I", sb, 0x60, struct.unpack_from("<I", sb, 0x60)[0] | 0x4)
os.pwrite(fd, bytes(sb), 1024)
os.fsync(fd)
os.close(fd)
EOF
e2e_readonly on
"$MEDIASCAN" map "$D" --sector $((BAD_F / 512)) --json "$ans" -q || :
ms_expect_eq "needs recovery: still the file" \
	"$(ms_jq "$ans" '.media_errors[0].owners[0] | "\(.type) \(.inode)"')" "file $ino"
ms_expect_eq "needs recovery: the journal was not replayed, said once" \
	"$(ms_jq "$ans" '[.notes[] | select(test("journal needs recovery and was not replayed"))] | length')" 1
e2e_pass "unmounted ext4 on a bare device: file, inode table, outside, scan mapped from the raw device"
