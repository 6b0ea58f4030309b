#!/bin/bash
# map-klog.sh - `mediascan map --kernel-log FILE`: kernel log lines in several formats (block
# layer "I/O error, dev DISK, sector N" and "critical medium error", buffer cache "Buffer I/O
# error on dev PART, logical block N", XFS "metadata I/O error ... at daddr 0xN len N"), with
# /dev/kmsg, dmesg and journal prefixes, repeated lines, unknown devices and malformed lines.
# Each usable line is mapped to its owners once; unknown devices and unusable lines are
# counted and shown; nothing crashes. Then a real read error is found in /dev/kmsg.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
for tool in sgdisk partx mkfs.ext4; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed"
done
e2e_setup 1024
D=$E2E_LOOP
DN=$(basename "$D")
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

sgdisk -Z -n 1:1M:+320M -n 2:0:+200M "$D" >/dev/null || e2e_hard_error "sgdisk failed"
partx -a "$D" || e2e_hard_error "partx -a failed"
for _ in $(seq 50); do
	[ -b "${D}p2" ] && break
	sleep 0.1
done
S1=$(($(cat "/sys/class/block/$DN/${DN}p1/start") * 512))
S2=$(($(cat "/sys/class/block/$DN/${DN}p2/start") * 512))
mkfs.xfs -q -f -m rmapbt=1 "${D}p1" || e2e_hard_error "mkfs.xfs failed"
mkfs.ext4 -q -F -b 4096 "${D}p2" || e2e_hard_error "mkfs.ext4 failed"
mount "${D}p1" "$P1" && mount "${D}p2" "$P2" || e2e_hard_error "mount failed"
xfs_io -f -c "pwrite -S 0x11 0 64k" -c fsync "$P1/xfs-file" >/dev/null
head -c 65536 /dev/urandom >"$P2/ext4-file"
sync
umount "$P1" "$P2"
e2e_readonly on
h=$(e2e_hash)
mount -o ro,norecovery "${D}p1" "$P1" && mount -o ro,noload "${D}p2" "$P2" ||
	e2e_hard_error "ro mount failed"
e2e_reset_counters

x=$(ms_first_phys "$P1/xfs-file")
e=$(ms_first_phys "$P2/ext4-file")
ino_daddr=$(xfs_io -c 'fsmap -m' "$P1" | awk -F, '$6 == "special_88:5" { print $4; exit }')
SEC_X=$(((S1 + x + 8192) / 512))
BLK_E=$((e / 4096 + 1))
log=$E2E_DIR/kern.log
cat >"$log" <<EOF
[  101.000001] sd 2:0:0:0: [$DN] tag#3 FAILED Result: hostbyte=DID_OK driverbyte=DRIVER_OK
[  101.000002] critical medium error, dev $DN, sector $SEC_X op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2
6,2001,101000003,-;I/O error, dev $DN, sector $SEC_X op 0x0:(READ) flags 0x80700 phys_seg 1 prio class 2
Dec 03 10:00:00 host kernel: blk_update_request: I/O error, dev $DN, sector $SEC_X
[  102.000000] Buffer I/O error on dev ${DN}p2, logical block $BLK_E, async page read
[  102.000001] Buffer I/O error on device ${DN}p2, logical block $BLK_E
[  103.000000] XFS (${DN}p1): metadata I/O error in "xfs_imap_to_bp+0x5c/0xa0 [xfs]" at daddr 0x$(printf '%x' "$ino_daddr") len 8 error 5
[  104.000000] I/O error, dev sdzz, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2
[  104.000001] Buffer I/O error on dev nvme9n9p9, logical block 7, async page read
[  105.000000] I/O error, dev $DN, sector op 0x0:(READ)
[  105.000001] I/O error, dev $DN, sector 99999999999999999999999 op 0x0:(READ)
[  105.000002] Buffer I/O error on dev , logical block 12
[  105.000003] XFS (${DN}p1): metadata I/O error in "x" at daddr 0xZZ len 8 error 5
[  106.000000] EXT4-fs (${DN}p2): mounted filesystem with ordered data mode
$(printf '\001\377binary junk %s' "$(head -c 30 /dev/urandom | base64)")

[  107.000000] I/O error, dev $DN, sector $(((S1 + (1 << 40)) / 512)) op 0x0:(READ)
[  108.000000] I/O error, dev $DN, sector 36028797018963968 op 0x0:(READ)
[  108.000001] Buffer I/O error on dev ${DN}p2, logical block 4503599627370496, async page read
[  108.000002] XFS (${DN}p1): metadata I/O error in "x" at daddr 0x8 len 0x3fffffff error 5
[  108.000003] XFS (${DN}p1): metadata I/O error in "x" at daddr 0x10 len 99999999999999999999 error 5
Dec 03 10:00:01 host root[4242]: I/O error, dev $DN, sector 2048
Dec 03 10:00:02 host logger: [  1.000000] I/O error, dev $DN, sector 4096
2026-12-03T10:00:03.000000+00:00 host alice[77]: Buffer I/O error on dev ${DN}p2, logical block 1
[  108.000004] host alice[77]: XFS (${DN}p1): metadata I/O error in "x" at daddr 0x18 len 8 error 5
14,2002,108000005,-;I/O error, dev $DN, sector 6144 op 0x0:(READ)
EOF
ans=$E2E_DIR/map.json
rc=0
"$MEDIASCAN" map --kernel-log "$log" --json "$ans" -q || rc=$?
e2e_log "kernel log summary: $(jq -c .kernel_log "$ans")"
# README's exit table: 1 files and metadata are hit, 4 lines for unknown devices or past a
# device's end were not checked
ms_expect_eq "exit 1|4: files and metadata hit, some lines not checked" "$rc" 5
ms_expect_eq "three distinct ranges" "$(ms_jq "$ans" '.media_errors | length')" 3
ms_expect_eq "the three block-layer lines are one range" \
	"$(ms_jq "$ans" ".media_errors[] | select(.offset == $((SEC_X * 512))) | \"\(.device) \(.lines) \(.format)\"")" \
	"$D 3 block-layer"
ms_expect_eq "block layer sector on the disk: the XFS file through partition 1" \
	"$(ms_jq "$ans" ".media_errors[] | select(.offset == $((SEC_X * 512))) | .owners[0] | \"\(.partition) \(.paths[0]) \(.file_offset)\"")" \
	"1 $P1/xfs-file 8192"
ms_expect_eq "buffer I/O logical block on the ext4 partition (4 KiB blocks), twice" \
	"$(ms_jq "$ans" ".media_errors[] | select(.format == \"buffer-io\") | \"\(.device) \(.offset) \(.length) \(.lines) \(.owners[0].paths[0]) \(.owners[0].file_offset)\"")" \
	"${D}p2 $((BLK_E * 4096)) 4096 2 $P2/ext4-file 4096"
ms_expect_eq "XFS daddr: the inode chunk" \
	"$(ms_jq "$ans" ".media_errors[] | select(.format == \"xfs-metadata\") | \"\(.device) \(.offset) \(.length) \(.owners[0].metadata)\"")" \
	"${D}p1 $((ino_daddr * 512)) 4096 inodes"
ms_expect_eq "unknown devices named" "$(ms_jq "$ans" '.kernel_log.unknown_devices | join(",")')" \
	"sdzz,nvme9n9p9"
ms_expect_eq "malformed, overflowing and past-the-end lines are unusable, shown" \
	"$(ms_jq "$ans" '"\(.kernel_log.unusable) \(.kernel_log.unusable_lines | length)"')" "9 9"
ms_expect_eq "a sector whose byte offset overflows is not wrapped to 0" \
	"$(ms_jq "$ans" '[.media_errors[] | select(.offset == 0)] | length')" 0
ms_expect_eq "XFS len 0x3fffffff: refused, said why" \
	"$(ms_jq "$ans" '[.kernel_log.unusable_lines[] | select(test("0x3fffffff") and test("past the end|longer than"))] | length')" 1
ms_expect_eq "XFS len out of 64 bits: malformed, not UINT64_MAX" \
	"$(ms_jq "$ans" '[.kernel_log.unusable_lines[] | select(test("99999999999999999999 error"))] | length')" 1
ms_expect_eq "lines a user logged (journal, syslog, kmsg facility user) are not kernel errors" \
	"$(ms_jq "$ans" '.kernel_log.not_kernel')" 5
ms_expect_eq "every line counted" "$(ms_jq "$ans" '.kernel_log.lines')" "$(wc -l <"$log")"
# Both files whose data is hit; since lost inodes are listed too (issue 17 part 1), the
# inodes of the XFS inode chunk the daddr line names (the root directory, xfs-file) are there
# as well, with what is lost: no other file.
ms_expect_eq "damaged files: both data owners" \
	"$(ms_jq "$ans" '[.damaged_files[] | select(.what_is_lost == null) | .paths[0]] | unique | join(",")')" \
	"$P1/xfs-file,$P2/ext4-file"
ms_expect_eq "damaged files: nothing named outside the two filesystems" \
	"$(ms_jq "$ans" "[.damaged_files[].paths[]? | select(startswith(\"$P1\") or startswith(\"$P2\") | not)] | length")" 0
human=$("$MEDIASCAN" map --kernel-log "$log" 2>&1 || true)
e2e_check "human: unknown devices said" grep -q "unknown devices: sdzz nvme9n9p9" <<<"$human"
e2e_check_fails "human: no raw control character" grep -q $'\001' <<<"$human"

# Garbage in: never a crash.
head -c 200000 /dev/urandom >"$E2E_DIR/garbage.log"
rc=0
"$MEDIASCAN" map --kernel-log "$E2E_DIR/garbage.log" --json "$ans" -q 2>"$E2E_DIR/err" || rc=$?
if [ "$(ms_jq "$ans" .kernel_log.kernel_lines)" = 0 ]; then
	# no line at all was usable: not "nothing damaged"
	ms_expect_eq "random bytes: exit 4, nothing mapped" \
		"$rc $(ms_jq "$ans" '.media_errors | length')" "4 0"
	e2e_check "random bytes: said nothing was checked" grep -q "nothing was checked" \
		"$E2E_DIR/err"
fi
rc=0
"$MEDIASCAN" map --kernel-log /dev/null -q 2>"$E2E_DIR/err" || rc=$?
ms_expect_eq "empty log: exit 4 (nothing checked)" "$rc" 4
e2e_check "empty log: said so" grep -q "kernel log is empty" "$E2E_DIR/err"

# Every form dmesg, journalctl and syslog give, docs/usage.md's bare form first: each is the
# kernel's line and is mapped (they used to be "not from the kernel (ignored)", exit 0).
forms=$E2E_DIR/forms.log
json_msg="I/O error, dev $DN, sector $SEC_X op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2"
cat >"$forms" <<EOF2
I/O error, dev $DN, sector $SEC_X op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2
kern  :err   : [  101.000002] I/O error, dev $DN, sector $SEC_X op 0x0:(READ) flags 0x0
<3>[  101.000002] I/O error, dev $DN, sector $SEC_X op 0x0:(READ)
2026-12-04T03:04:50,000000+00:00 I/O error, dev $DN, sector $SEC_X op 0x0:(READ)
Fri 2026-12-04 05:22:07 UTC host kernel: I/O error, dev $DN, sector $SEC_X op 0x0:(READ)
Dec 04 05:22:07.123456 host kernel: I/O error, dev $DN, sector $SEC_X op 0x0:(READ)
1796361728.646702 host kernel: I/O error, dev $DN, sector $SEC_X op 0x0:(READ)
$(jq -cn --arg m "$json_msg" '{_TRANSPORT: "kernel", PRIORITY: "3", MESSAGE: $m}')
EOF2
rc=0
"$MEDIASCAN" map --kernel-log "$forms" --json "$ans" -q || rc=$?
e2e_log "forms: $(jq -c '.kernel_log | del(.unusable_lines)' "$ans")"
ms_expect_eq "every form: the kernel's, one range, the XFS file, exit 1" \
	"$rc $(ms_jq "$ans" '"\(.kernel_log.kernel_lines) \(.kernel_log.not_kernel) \(.media_errors | length) \(.media_errors[0].lines) \(.damaged_files[0].paths[0])"')" \
	"1 8 0 1 8 $P1/xfs-file"
human=$("$MEDIASCAN" map --kernel-log "$forms" 2>&1 || true)
e2e_check_fails "human: no line ignored as not the kernel's" grep -q "not from the kernel" <<<"$human"

# Bounds: a line longer than any kernel record is dropped and counted, not kept whole.
{
	printf '[  1.000000] I/O error, dev %s, sector %s ' "$DN" "$SEC_X"
	head -c 20000 /dev/zero | tr '\0' x
	echo
	echo "[  1.000001] I/O error, dev $DN, sector $SEC_X op 0x0:(READ)"
} >"$E2E_DIR/long.log"
rc=0
"$MEDIASCAN" map --kernel-log "$E2E_DIR/long.log" --json "$ans" -q || rc=$?
ms_expect_eq "long line dropped and counted, the next one read; exit 1|4" \
	"$rc $(ms_jq "$ans" '"\(.kernel_log.lines) \(.kernel_log.too_long) \(.kernel_log.matched)"')" \
	"5 2 1 1"
e2e_check "human: says the long line was dropped" grep -q "longer than 8192 bytes (dropped)" \
	<<<"$("$MEDIASCAN" map --kernel-log "$E2E_DIR/long.log" 2>&1 || true)"

# A real read error reaches the kernel log; map finds it in /dev/kmsg.
e2e_bad_add $((SEC_X * 512)) 512
dd if="$D" of=/dev/null bs=512 skip="$SEC_X" count=1 iflag=direct 2>/dev/null || :
if grep -q "dev $DN, sector $SEC_X" <(dmesg 2>/dev/null | tail -50); then
	rc=0
	"$MEDIASCAN" map --kernel-log --json "$ans" -q || rc=$?
	ms_expect_eq "/dev/kmsg: the real error is mapped to the XFS file" \
		"$(ms_jq "$ans" "[.media_errors[] | select(.device == \"$D\" and .offset == $((SEC_X * 512))) | .owners[0].paths[0]] | first")" \
		"$P1/xfs-file"
else
	e2e_log "the kernel did not log the read error (rate limited?): /dev/kmsg check skipped"
fi

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
umount "$P1" "$P2"
e2e_assert_unchanged "$h"
e2e_pass "kernel log lines mapped, repeats merged, unknown and malformed lines counted"
