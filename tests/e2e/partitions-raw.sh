#!/bin/bash
# partitions-raw.sh - a partitioned disk with no partition devices (losetup without -P, as for a
# VM's disk in a dm thin volume: the kernel makes no partition devices for dm devices) whose
# second partition holds an ext4 made at its offset (mkfs.ext4 -E offset=, populated with -d,
# never mounted): `mediascan map` of a sector in a file there names the file (paths, offset)
# and partition 2, read from the raw device; the first partition holds an ext4 libext2fs
# cannot open (an unknown incompatible feature): contents unknown, with the reason. The same
# after the GPT is turned into an MBR table. A `scan` of the disk over one bad sector in the
# file reports the file as damaged (exit 1). Nothing is written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
for tool in sgdisk mkfs.ext4 debugfs python3; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed"
done
e2e_setup 128
D=$E2E_LOOP
sgdisk -Z -n 1:1M:+16M -t 1:8300 -n 2:0:+96M -t 2:8300 "$D" >/dev/null ||
	e2e_hard_error "sgdisk failed"
[ ! -e "${D}p1" ] && [ ! -e "${D}p2" ] || e2e_hard_error "partition devices exist"
sector() { sgdisk -i "$1" "$D" | awk '/^First sector/ { print $3 }'; }
S1=$(($(sector 1) * 512)) S2=$(($(sector 2) * 512))
src=$E2E_DIR/src
mkdir -p "$src/vm/etc"
head -c 300000 /dev/urandom >"$src/vm/etc/data"
ln "$src/vm/etc/data" "$src/second"
bs=4096
mkfs.ext4 -q -F -b 4096 -E offset="$S2" -d "$src" "$D" $((96 << 8)) ||
	e2e_hard_error "mkfs.ext4 -E offset failed"
# Partition 1: an ext4 whose superblock asks for a feature no libext2fs knows.
mkfs.ext4 -q -F -b 4096 -E offset="$S1" "$D" $((16 << 8)) || e2e_hard_error "mkfs.ext4 failed"
python3 - "$D" "$S1" <<'EOF' || e2e_hard_error "cannot set the feature"
import os, struct, sys
fd = os.open(sys.argv[1], os.O_RDWR)
off = int(sys.argv[2]) + 1024
sb = bytearray(os.pread(fd, 1024, off))
struct.pack_into("<I", sb, 0x60, struct.unpack_from("<I", sb, 0x60)[0] | 0x40000000)
os.pwrite(fd, bytes(sb), off)
os.fsync(fd)
os.close(fd)
EOF
ino=$(debugfs -R "stat /vm/etc/data" "$D?offset=$S2" 2>/dev/null |
	sed -n 's/^Inode: \([0-9]*\).*/\1/p')
blk=$(debugfs -R "bmap /vm/etc/data 5" "$D?offset=$S2" 2>/dev/null)
[ -n "$ino" ] && [ -n "$blk" ] || e2e_hard_error "debugfs gave no truth (inode '$ino' block '$blk')"
BAD=$((S2 + blk * bs + 1024))		# file block 5, its third sector
BAD_P1=$((S1 + (8 << 20)))
e2e_log "partitions at $S1 $S2; inode $ino block $blk; bad $BAD, in partition 1 $BAD_P1"
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
ans=$E2E_DIR/map.json

check_map()	# TABLE: the answers for the file and for partition 1
{
	local rc=0

	"$MEDIASCAN" map "$D" --sector $((BAD / 512)) --json "$ans" -q || rc=$?
	ms_expect_eq "$1: map exit 0" "$rc" 0
	ms_expect_eq "$1: the partition table" "$(ms_jq "$ans" '.targets[0].partition_table')" "$1"
	ms_expect_eq "$1: the file in partition 2, both paths, its offset, read unmounted" \
		"$(ms_jq "$ans" '.media_errors[0].owners[0] | "\(.type) \(.partition) \(.partition_offset) \(.inode) \(.file_offset) \(.paths | sort | join(",")) \(.read_from)"')" \
		"file 2 $((BAD - S2)) $ino $((5 * bs + 1024)) /second,/vm/etc/data raw device (not mounted)"
	ms_expect_eq "$1: partition 2 is read from the raw device, planned whole" \
		"$(ms_jq "$ans" '.targets[0].partitions[] | select(.number == 2) | "\(.fs_type) \(.planned) \(.read_from)"')" \
		"ext4 whole raw device (not mounted)"
	"$MEDIASCAN" map "$D" --sector $((BAD_P1 / 512)) --json "$ans" -q || :
	ms_expect_eq "$1: partition 1 (an ext4 libext2fs cannot open): contents unknown" \
		"$(ms_jq "$ans" '.media_errors[0].owners[0] | "\(.type) \(.metadata) \(.partition)"')" \
		"device partition 1"
	ms_expect_eq "$1: ... and why" \
		"$(ms_jq "$ans" '.targets[0].partitions[] | select(.number == 1) | .unreadable_ext4 | test("unsupported feature")')" \
		true
	"$MEDIASCAN" map "$D" --sector $((BAD_P1 / 512)) 2>&1 | grep -q "cannot open it read-only" ||
		e2e_fail "$1: the text answer does not say why partition 1 is unknown"
}
check_map gpt

# The scan: the whole disk read, the bad sector mapped to the file in partition 2.
e2e_bad_add "$BAD" 512
out=$E2E_DIR/report.json
ms_scan "$out" "$D" --queue-depth 1
ms_expect_eq "scan: exit 1 (media errors)" "$MS_RC" 1
ms_expect_eq "scan: the bad sector" \
	"$(ms_jq "$out" '[.media_errors[] | "\(.offset)+\(.length)"] | join(",")')" "$BAD+512"
ms_expect_eq "scan: the damaged file in partition 2" \
	"$(ms_jq "$out" '.damaged_files[] | "\(.partition) \(.inode) \(.paths | sort | join(",")) \(.ranges[0].offset)+\(.ranges[0].length) \(.lost) \(.read_from)"')" \
	"2 $ino /second,/vm/etc/data $((5 * bs + 1024))+512 true raw device (not mounted)"
e2e_bad_clear
ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"

# The same disk with an MBR table (the GPT converted: the partitions stay where they are).
e2e_readonly off
sgdisk -m 1:2 "$D" >/dev/null || e2e_hard_error "sgdisk -m failed"
e2e_readonly on
e2e_reset_counters
check_map dos
ms_expect_eq "dos: no write reached the device" "$(e2e_writes)" 0
e2e_pass "partition without a device: the unmounted ext4 named from the raw device (gpt, dos), scan too"
