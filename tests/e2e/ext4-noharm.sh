#!/bin/bash
# ext4-noharm.sh CASE - a scan never trips ext4's error handler (issue 17 part 1). ext4 mounted
# errors=remount-ro, one bad sector in (dir) the first block of a 400-entry directory (with a
# damaged file below it), (itable) the inode table block of a file's inode, (extent) an extent
# tree leaf of a fragmented file (and a data block of that file mapped by a good leaf).
# After `mediascan scan`: the mount is still rw without emergency_ro, the kernel logged no
# EXT4-fs error or warning for the device, the fault disk counted 0 writes (atime updates
# included); the report names the damaged objects and a file whose inode or block map is lost
# is in damaged_files. Then the same damage on a `-o ro` mount: the image's hash is unchanged.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
case=${1:-}
case "$case" in
dir | itable | extent) ;;
*) e2e_hard_error "usage: ext4-noharm.sh dir|itable|extent" ;;
esac
E2E_TEST_NAME="ext4-noharm-$case"
e2e_require_root_loop_fuse
ms_require
for tool in mkfs.ext4 debugfs; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed"
done
dmesg >/dev/null 2>&1 || e2e_skip "cannot read the kernel log (dmesg)"

# Collect failures and report them all at the end (so a run on old code shows each one).
FAILS=()
soft()
{
	local desc=$1

	shift
	if "$@"; then
		e2e_log "ok: $desc"
	else
		e2e_log "FAILED: $desc"
		FAILS+=("$desc")
	fi
}

e2e_setup 256
# No lazy init: the kernel's ext4lazyinit thread would write while the test counts writes.
mkfs.ext4 -q -F -b 4096 -I 256 -E lazy_itable_init=0,lazy_journal_init=0 "$E2E_LOOP" ||
	e2e_hard_error "mkfs.ext4 failed"
e2e_mount || e2e_hard_error "mount failed"
m=$E2E_MNT
mkdir "$m/bigdir" "$m/bigdir/sub"
for i in $(seq 1 400); do : >"$m/bigdir/entry-with-a-long-name-$i"; done
head -c 65536 /dev/urandom >"$m/bigdir/sub/victim"
# 600 one-block extents: an extent tree of depth 1 (leaves in blocks of their own)
xfs_io -f -c "pwrite -S 0x61 0 4800k" -c fsync "$m/fragmented" >/dev/null
for i in $(seq 1 2 1199); do fallocate -p -o $((i * 4096)) -l 4096 "$m/fragmented"; done
mkdir "$m/later"
head -c 20000 /dev/urandom >"$m/later/lost-inode"
head -c 20000 /dev/urandom >"$m/plain"
sync
victim_ino=$(stat -c %i "$m/bigdir/sub/victim")
frag_ino=$(stat -c %i "$m/fragmented")
lost_ino=$(stat -c %i "$m/later/lost-inode")
victim=$(ms_first_phys "$m/bigdir/sub/victim")
plain=$(ms_first_phys "$m/plain")
e2e_umount
bs=4096
bad=()
case "$case" in
dir)
	dir0=$(debugfs -R "bmap /bigdir 0" "$E2E_LOOP" 2>/dev/null)
	[ -n "$dir0" ] && [ "$dir0" != 0 ] || e2e_hard_error "no block 0 in /bigdir"
	bad=("$((dir0 * bs))" "$victim")
	;;
itable)
	read -r iblk ioff < <(debugfs -R "imap /later/lost-inode" "$E2E_LOOP" 2>/dev/null |
		sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	[ -n "$iblk" ] || e2e_hard_error "no inode table block for /later/lost-inode"
	bad=("$((iblk * bs + ioff - ioff % 512))" "$plain")
	;;
extent)
	# the second leaf of the tree, and a data block the third leaf maps
	read -r leaf_lblk leaf < <(debugfs -R "ex /fragmented" "$E2E_LOOP" 2>/dev/null |
		awk '$1 == "0/" && ++n == 2 { print $5, $8 }')
	data=$(debugfs -R "ex /fragmented" "$E2E_LOOP" 2>/dev/null |
		awk '$1 == "1/" && ++n == 500 { print $7 }')
	[ -n "$leaf" ] && [ -n "$data" ] || e2e_hard_error "no extent tree leaf in /fragmented"
	bad=("$((leaf * bs))" "$((data * bs))")
	;;
esac
e2e_log "case $case: bad sectors at ${bad[*]}"
for b in "${bad[@]}"; do e2e_bad_add "$b" 512; done
dev=$(basename "$E2E_LOOP")

# kernel log lines of this device after the marker
marker="mediascan-e2e-$case-$$-$RANDOM"
klog_since()
{
	dmesg | awk -v mk="$1" 'index($0, mk) { on = 1; next } on' | grep -E "\(($dev|device $dev)\)" || :
}

check_report()
{
	local out=$1

	soft "exit status 1 (media errors)" test "$MS_RC" = 1
	soft "two media errors" test "$(ms_jq "$out" '.media_errors | length')" = 2
	case "$case" in
	dir)
		soft "the damaged directory named" test \
			"$(ms_jq "$out" '[.damaged_files[] | select(.directory) | .paths[]] | join(",")')" = "$m/bigdir"
		soft "the damaged file below it named" test \
			"$(ms_jq "$out" ".damaged_files[] | select(.inode == $victim_ino) | .paths | join(\",\")")" \
			= "$m/bigdir/sub/victim"
		;;
	itable)
		soft "the file whose inode is lost is in damaged_files, named" test \
			"$(ms_jq "$out" ".damaged_files[] | select(.inode == $lost_ino) | .paths | join(\",\")")" \
			= "$m/later/lost-inode"
		soft "... with what is lost" test \
			"$(ms_jq "$out" ".damaged_files[] | select(.inode == $lost_ino) | .what_is_lost")" \
			= "inode lost: the file's attributes and block map (so its contents) are unreadable"
		soft "the plain damaged file named" test \
			"$(ms_jq "$out" "[.damaged_files[] | select(.paths == [\"$m/plain\"])] | length")" = 1
		;;
	extent)
		soft "the file whose block map is lost is in damaged_files, named" test \
			"$(ms_jq "$out" ".damaged_files[] | select(.inode == $frag_ino) | .paths | join(\",\")")" \
			= "$m/fragmented"
		soft "... with what is lost" test \
			"$(ms_jq "$out" ".damaged_files[] | select(.inode == $frag_ino) | .what_is_lost")" \
			= "extent map lost: file contents past offset $((leaf_lblk * bs)) unreachable"
		;;
	esac
}

# ---- read-write mount, errors=remount-ro ----
e2e_drop_caches
e2e_mount -o rw,errors=remount-ro || e2e_hard_error "mount failed"
sync -f "$m" 2>/dev/null || :
e2e_drop_caches
echo "$marker" >/dev/kmsg
e2e_reset_counters
out=$E2E_DIR/report.json
ms_scan "$out" "$m" --merge-gap 0
sync -f "$m" 2>/dev/null || :
e2e_log "report: $(jq -c '{media_errors: [.media_errors[] | {offset, owners: [.owners[] | {type, metadata, what_is_lost, paths}]}], damaged_files: [.damaged_files[] | {inode, paths, what_is_lost}]}' "$out")"
opts=$(awk -v mp="$m" '$2 == mp { print $4 }' /proc/mounts)
e2e_log "mount options after the scan: $opts"
soft "mount still rw" test "${opts%%,*}" = rw
soft "no emergency_ro" eval '! grep -q emergency_ro <<<"$opts"'
writes=$(e2e_writes)
soft "fault disk counted 0 writes (got $writes)" test "$writes" = 0
klog=$(klog_since "$marker")
[ -z "$klog" ] || e2e_log "kernel log: $klog"
soft "no EXT4-fs error or warning for the device" eval '! grep -q "EXT4-fs \(error\|warning\)" <<<"$klog"'
soft "nothing logged with comm mediascan" eval '! grep -q "comm mediascan" <<<"$klog"'
check_report "$out"
e2e_umount || e2e_hard_error "umount failed"

# ---- the same damage, read-only mount: nothing written at all ----
h=$(e2e_hash)
e2e_drop_caches
e2e_mount -o ro,errors=remount-ro || e2e_hard_error "ro mount failed"
e2e_drop_caches
echo "$marker-ro" >/dev/kmsg
e2e_reset_counters
ms_scan "$out" "$m" --merge-gap 0
writes=$(e2e_writes)
soft "ro: fault disk counted 0 writes (got $writes)" test "$writes" = 0
klog=$(klog_since "$marker-ro")
[ -z "$klog" ] || e2e_log "kernel log (ro): $klog"
soft "ro: no EXT4-fs error for the device" eval '! grep -q "EXT4-fs error" <<<"$klog"'
e2e_umount || e2e_hard_error "umount failed"
now=$(e2e_hash)
soft "ro: image unchanged" test "$now" = "$h"

if [ ${#FAILS[@]} -gt 0 ]; then
	e2e_fail "${#FAILS[@]} check(s) failed: $(printf '%s; ' "${FAILS[@]}")"
fi
e2e_pass "ext4 ($case damage): not tripped, nothing written, damage named"
