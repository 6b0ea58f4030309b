#!/bin/bash
# cli-answers.sh - answers that are true (issue 20), on a real XFS over the fault disk and
# small ext4/btrfs images: `map` of a healthy file block is a lookup (heading "Owners", exit 0,
# no "restore"); the scan's owner line names every hard link; --io-size above the queue limit
# is capped and said; a --max-duration stop with --no-state does not promise --resume; status
# numbers passes per target (not database rows); bytes past a smaller ext4's end and its boot
# block are "outside the filesystem" / "boot block"; a device holding btrfs says so (exit 4);
# root refused a device (EACCES on a nodev mount) is not told to be root.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
M=$MEDIASCAN
e2e_setup 512
mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
m=$E2E_MNT
mkdir -p "$m/a" "$m/b"
xfs_io -f -c "pwrite -S 0x11 0 64k" -c fsync "$m/a/linked" >/dev/null
ln "$m/a/linked" "$m/b/second-link"
xfs_io -f -c "pwrite -S 0x22 0 256m" -c fsync "$m/big" >/dev/null
sync
e2e_umount
e2e_readonly on
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
linked=$(ms_first_phys "$m/a/linked")
state=$E2E_DIR/state

# A lookup of a healthy block: the owner, exit 0, no restore advice.
rc=0
out=$("$M" map "$E2E_LOOP" $((linked + 4096)) 512) || rc=$?
ms_expect_eq "map of a healthy file block: exit 0" "$rc" 0
grep -q "^Owners: files (1)" <<<"$out" || e2e_fail "no Owners heading: $out"
grep -qi "restore" <<<"$out" && e2e_fail "a lookup advises a restore: $out"
grep -q "second-link" <<<"$out" || e2e_fail "map lacks the second hard link: $out"

# The scan's owner lines name every hard link of a damaged file.
e2e_bad_add $((linked + 4096)) 512
rc=0
out=$("$M" scan "$m" --no-state --progress none) || rc=$?
ms_expect_eq "scan with a bad block under a hard-linked file: exit 1" "$rc" 1
line=$(grep -F "/a/linked" <<<"$out" | grep "inode" | head -n 1)
grep -q "second-link" <<<"$line" || e2e_fail "the owner line names one link only: $line"
echo "ok: owner line: $line"
e2e_bad_clear

# --io-size above the queue's limit is used as asked (the block layer splits it), and said.
maxkb=$(cat "/sys/block/$(basename "$E2E_LOOP")/queue/max_sectors_kb")
rc=0
err=$("$M" scan "$m" --no-state --progress none --io-size 64M --json "$E2E_DIR/io.json" \
	2>&1 >/dev/null) || rc=$?
ms_expect_eq "--io-size 64M: exit 0" "$rc" 0
ms_expect_eq "--io-size 64M read as asked" "$(ms_jq "$E2E_DIR/io.json" .io_size)" $((64 << 20))
grep -q -- "--io-size 67108864 is above $E2E_LOOP's queue limit (max_sectors_kb $maxkb)" \
	<<<"$err" || e2e_fail "the split was not said: $err"

# A --max-duration stop without a state store cannot be resumed: it does not say so.
rc=0
out=$("$M" scan "$m" --no-state --progress none --rate 20M --max-duration 1s) || rc=$?
grep -q "Stopped after --max-duration" <<<"$out" || e2e_fail "no stop line: $out"
grep -q "continue with --resume" <<<"$out" && e2e_fail "--no-state promises --resume: $out"
grep -q "no checkpoint was kept" <<<"$out" || e2e_fail "the stop does not say why: $out"
ms_expect_eq "--max-duration stop without a checkpoint: operational" "$((rc & 4))" 4

# status numbers the passes of a target: A, B, A is pass 2 of A (database rows 1, 2, 3).
img2=$E2E_DIR/other.img
truncate -s 64M "$img2"
mkfs.ext4 -q -F "$img2"
mkdir -p "$E2E_DIR/other"
mount -o loop,ro "$img2" "$E2E_DIR/other"
e2e_on_cleanup "umount '$E2E_DIR/other' 2>/dev/null || true"
"$M" scan "$m" --state-dir "$state" --progress none -q || e2e_fail "scan A"
"$M" scan "$E2E_DIR/other" --state-dir "$state" --progress none -q || e2e_fail "scan B"
"$M" scan "$m" --state-dir "$state" --progress none -q || e2e_fail "scan A again"
st=$("$M" status --state-dir "$state")
grep -A1 "^$m " <<<"$st" | grep -q "pass 2 complete" || e2e_fail "A's second pass: $st"
grep -A1 "^$E2E_DIR/other " <<<"$st" | grep -q "pass 1 complete" || e2e_fail "B's pass: $st"
ms_expect_eq "status --json: the pass number" "$("$M" status --state-dir "$state" --json - |
	jq -r --arg p "$m" '.targets[] | select(.path == $p) | .latest_pass.number')" 2
umount "$E2E_DIR/other"

# ext4 with 1 KiB blocks, smaller than its device: the boot block and the bytes past its end.
img3=$E2E_DIR/small.img
truncate -s 64M "$img3"
mkfs.ext4 -q -F -b 1024 "$img3" 32M
l3=$(losetup -f --show "$img3")
e2e_on_cleanup "losetup -d '$l3' 2>/dev/null || true"
mkdir -p "$E2E_DIR/small"
mount -o ro "$l3" "$E2E_DIR/small"
e2e_on_cleanup "umount '$E2E_DIR/small' 2>/dev/null || true"
rc=0
out=$("$M" map "$l3" 0 512) || rc=$?
ms_expect_eq "map of ext4's boot block: exit 0" "$rc" 0
grep -q "the boot block" <<<"$out" || e2e_fail "boot block: $out"
grep -q "leaked by corruption" <<<"$out" && e2e_fail "boot block called corruption: $out"
rc=0
out=$("$M" map "$l3" 40M 4096) || rc=$?
ms_expect_eq "map past the filesystem's end: exit 0" "$rc" 0
grep -q "outside the filesystem" <<<"$out" || e2e_fail "past the end: $out"
grep -q "leaked by corruption" <<<"$out" && e2e_fail "past the end called corruption: $out"
umount "$E2E_DIR/small"

# A device holding btrfs: named, not "no filesystem mounted".
if command -v mkfs.btrfs >/dev/null && grep -qw btrfs /proc/filesystems; then
	img4=$E2E_DIR/btrfs.img
	truncate -s 256M "$img4"
	mkfs.btrfs -q -f "$img4" >/dev/null 2>&1
	l4=$(losetup -f --show "$img4")
	e2e_on_cleanup "losetup -d '$l4' 2>/dev/null || true"
	mkdir -p "$E2E_DIR/btrfs"
	mount -o ro "$l4" "$E2E_DIR/btrfs"
	e2e_on_cleanup "umount '$E2E_DIR/btrfs' 2>/dev/null || true"
	rc=0
	out=$("$M" map "$l4" 1M) || rc=$?
	ms_expect_eq "map on a device holding btrfs: exit 4" "$rc" 4
	grep -q "btrfs mounted at $E2E_DIR/btrfs" <<<"$out" || e2e_fail "btrfs: $out"
	umount "$E2E_DIR/btrfs"
else
	echo "note: no btrfs here: its case not run"
fi

# Root refused a device (a device node on a nodev mount: EACCES even for root): the error
# does not tell root to be root.
nd=$E2E_DIR/nodev
mkdir -p "$nd"
mount -t tmpfs -o nodev,size=1M none "$nd"
e2e_on_cleanup "umount '$nd' 2>/dev/null || true"
truncate -s 16M "$E2E_DIR/bare.img"
l5=$(losetup -f --show "$E2E_DIR/bare.img")
e2e_on_cleanup "losetup -d '$l5' 2>/dev/null || true"
mknod "$nd/disk" b "$((16#$(stat -c '%t' "$l5")))" "$((16#$(stat -c '%T' "$l5")))"
rc=0
err=$("$M" scan "$nd/disk" --no-state --progress none 2>&1) || rc=$?
ms_expect_eq "a refused device: operational" "$rc" 4
grep -q "Permission denied" <<<"$err" || e2e_fail "refused device said: $err"
grep -q "needs root" <<<"$err" && e2e_fail "told root to be root: $err"
umount "$nd"

e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "lookups, owner lines, io-size, stops, pass numbers, outside the fs, btrfs, root"
