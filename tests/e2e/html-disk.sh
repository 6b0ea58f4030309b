#!/bin/bash
# html-disk.sh - the HTML report of a partitioned disk, read by headless Chromium: a GPT disk
# with ext4 on partition 1 (planned through the mounted filesystem) and an unformatted
# partition 2 (read whole), one bad sector under an ext4 file named <em onclick="alert(1)">x's and one in
# partition 2. The map draws each partition start with a title naming it and its byte; the
# bad cells are damage, their titles name the partition, the range and the owner; the raw
# partition's cells are planned, the ext4 free space at its end is not. Nothing is written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
for tool in sgdisk partx mkfs.ext4 python3 chromium; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed (scripts/deps installs it)"
done
DOMPY=$(dirname "$0")/../lib/html_dom.py
dom() { python3 "$DOMPY" "$@"; }
e2e_setup 512
chrome()
{
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$E2E_DIR/chrome" "$@" 2>>"$E2E_DIR/chrome.log"
}
printf '<!DOCTYPE html><p id="probe">ok</p>\n' >"$E2E_DIR/probe.html"
chrome --dump-dom "file://$E2E_DIR/probe.html" 2>/dev/null | grep -q 'id="probe"' ||
	e2e_skip "headless chromium cannot start here: $(tail -n 1 "$E2E_DIR/chrome.log")"
D=$E2E_LOOP
P1=$E2E_DIR/p1
mkdir -p "$P1"
cleanup_parts()
{
	cd / || :
	mountpoint -q -- "$P1" 2>/dev/null && { umount -- "$P1" || umount -l -- "$P1"; }
	partx -d "$D" 2>/dev/null || :
}
trap 'rc=$?; set +e; cleanup_parts; _e2e_cleanup; exit $rc' EXIT

sgdisk -Z -n 1:1M:+200M -t 1:8300 -c 1:ext4-part -n 2:0:0 -t 2:8300 -c 2:raw "$D" >/dev/null ||
	e2e_hard_error "sgdisk failed"
partx -a "$D" || e2e_hard_error "partx -a failed"
for _ in $(seq 50); do
	[ -b "${D}p2" ] && break
	sleep 0.1
done
[ -b "${D}p1" ] && [ -b "${D}p2" ] || e2e_hard_error "no partition devices"
start() { echo $(($(cat "/sys/class/block/$(basename "$D")/$(basename "$D")p$1/start") * 512)); }
S1=$(start 1) S2=$(start 2)
mkfs.ext4 -q -F -b 4096 "${D}p1" || e2e_hard_error "mkfs.ext4 failed"
mount "${D}p1" "$P1" || e2e_hard_error "mount failed"
name="<em onclick=\"alert(1)\">x's"
mkdir "$P1/dir"
head -c 65536 /dev/urandom >"$P1/dir/$name"
sync
umount "$P1"
e2e_readonly on
h=$(e2e_hash)
mount -o ro,noload "${D}p1" "$P1" || e2e_hard_error "ro mount failed"
BAD_E=$((S1 + $(ms_first_phys "$P1/dir/$name") + 8192))
BAD_R=$((S2 + (64 << 20)))
e2e_log "partitions at $S1 $S2; bad: ext4 $BAD_E raw $BAD_R"
e2e_bad_add "$BAD_E" 512
e2e_bad_add "$BAD_R" 512

page=$E2E_DIR/disk.html
e2e_reset_counters
ms_scan "$E2E_DIR/report.json" "$D" --queue-depth 1 --html "$page"
ms_expect_eq "scan DISK --html: exit 1" "$MS_RC" 1
chrome --dump-dom "file://$page" >"$E2E_DIR/disk.dom" || e2e_fail "chromium could not load $page"
files=$(dom files "$E2E_DIR/disk.dom")
e2e_log "files table:"$'\n'"$files"
ms_expect_eq "the ext4 file's row: its name as text, file offset 8192, length 512" \
	"$files" "$P1/dir/$name"$'\t8192\t512\tyes'
for p in "1 $S1" "2 $S2"; do
	set -- $p
	e2e_check "partition $1's start is drawn, titled with its byte" \
		grep -q "<line class=\"m-part\"[^>]*><title>partition $1 starts at byte $2</title>" \
		"$E2E_DIR/disk.dom"
done
IFS=$'\t' read -r cls start end title <<<"$(dom cell "$E2E_DIR/disk.dom" 0 "$BAD_E")"
e2e_log "ext4 cell: $cls $start $end $title"
ms_expect_eq "the ext4 bad cell is damage" "$cls" c-damage
e2e_check "its title: byte range, partition 1, the range and the file" grep -qF \
	"bytes $start-$((end - 1)) ($((end - start)) bytes): damage; partition 1 | damage EIO at $BAD_E length 512: file $P1/dir/$name offset 8192 length 512" \
	<<<"$title"
IFS=$'\t' read -r cls start end title <<<"$(dom cell "$E2E_DIR/disk.dom" 0 "$BAD_R")"
e2e_log "raw cell: $cls $start $end $title"
ms_expect_eq "the raw partition's bad cell is damage" "$cls" c-damage
e2e_check "its title: partition 2, the range, the device owner" grep -qF \
	"partition 2 | damage EIO at $BAD_R length 512: device" <<<"$title"
ms_expect_eq "the unformatted partition is read whole: planned" \
	"$(dom cell "$E2E_DIR/disk.dom" 0 $((BAD_R + (32 << 20))) | cut -f1)" c-planned
ms_expect_eq "free space at the end of the ext4 partition is not planned" \
	"$(dom cell "$E2E_DIR/disk.dom" 0 $((S1 + (200 << 20) - (1 << 20))) | cut -f1)" c-free
ms_expect_eq "no element injected by the name" \
	"$(dom elements "$E2E_DIR/disk.dom" | grep -cE '^(em|script|img)	' || true)" 0

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
umount "$P1"
e2e_assert_unchanged "$h"
e2e_pass "HTML report of a partitioned disk: partitions drawn, ext4 and raw damage in their cells"
