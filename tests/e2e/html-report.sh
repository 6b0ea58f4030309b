#!/bin/bash
# html-report.sh - the HTML report, read by a real browser. XFS on the fault disk with bad
# ranges under a file named <script>alert(1)</script> (a directory "<script>alert(1)<" holding
# "script>"), under a file whose name is not UTF-8, and a transient read under a third file.
# `scan --html` and `report --html` pages are loaded by headless Chromium: its DOM has the
# damaged-files table with each path (as text), file offset and length, the map cells holding
# each bad byte coloured by class with titles naming their byte range and the owner; no
# element the names could inject exists and the page's title is ours; the screenshot is not
# blank. A report path that names the scanned device or a missing directory is refused in
# one line before anything is read (exit 8). Nothing is written to the device (hashed around).
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v python3 >/dev/null || e2e_skip "python3 is not installed"
command -v chromium >/dev/null || e2e_skip "chromium is not installed (scripts/deps installs it)"
DOMPY=$(dirname "$0")/../lib/html_dom.py
e2e_setup 320

# chrome ARGS... : headless Chromium with a profile of its own in the work directory.
chrome()
{
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$E2E_DIR/chrome" "$@" 2>>"$E2E_DIR/chrome.log"
}
printf '<!DOCTYPE html><p id="probe">ok</p>\n' >"$E2E_DIR/probe.html"
chrome --dump-dom "file://$E2E_DIR/probe.html" 2>/dev/null | grep -q 'id="probe"' ||
	e2e_skip "headless chromium cannot start here: $(tail -n 1 "$E2E_DIR/chrome.log")"
dom() { python3 "$DOMPY" "$@"; }

mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
evil="$E2E_MNT/<script>alert(1)</script>"
odd=$'bad\xff\xfe name "q" & \'s\'.bin'
mkdir "$E2E_MNT/<script>alert(1)<"
fill() { xfs_io -f -c "pwrite -S $1 -b 1048576 0 $2" -c fsync "$3" >/dev/null; }
fill 0x11 1048576 "$evil"
fill 0x22 8388608 "$E2E_MNT/spacer1"
fill 0x33 1048576 "$E2E_MNT/$odd"
fill 0x44 8388608 "$E2E_MNT/spacer2"
fill 0x55 1048576 "$E2E_MNT/plain"
sync
e1=$(( $(ms_first_phys "$evil") + 8192 ))		# 4 KiB bad at file offset 8192
e2=$(( $(ms_first_phys "$E2E_MNT/$odd") + 4096 ))	# 512 B bad at file offset 4096
t1=$(( $(ms_first_phys "$E2E_MNT/plain") + 16384 ))	# fails once, then reads fine
e2e_umount
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
e2e_bad_add "$e1" 4096
e2e_bad_add "$e2" 512
e2e_flaky_add "$t1" 512 1
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
export MS_STATE_DIR=$E2E_DIR/state

page=$E2E_DIR/scan.html
ms_scan "$E2E_DIR/scan.json" "$E2E_MNT" --html "$page"
ms_expect_eq "scan --html: exit 1 (damage)" "$MS_RC" 1
ms_expect_eq "HTML report created 0600" "$(stat -c %a "$page")" 600
e2e_check "the page fetches nothing: no src= or href= attribute, no url(" \
	bash -c '! grep -Eq "(src|href)=|url\(" "$1"' _ "$page"
chrome --dump-dom "file://$page" >"$E2E_DIR/scan.dom" || e2e_fail "chromium could not load $page"
e2e_log "DOM: $(wc -c <"$E2E_DIR/scan.dom") bytes"

# check_page DOM WHAT : the checks both pages pass.
check_page()
{
	local d=$1 what=$2 want_title=$3 files cell
	files=$(dom files "$d")
	e2e_log "$what files table:"$'\n'"$files"
	ms_expect_eq "$what: the <script> file's row: path as text, file offset 8192, length 4096, lost" \
		"$(grep -cxF "$evil"$'\t8192\t4096\tyes' <<<"$files" || true)" 1
	ms_expect_eq "$what: the non-UTF-8 name's row (invalid bytes as \\xNN, quotes as text)" \
		"$(grep -cxF "$E2E_MNT/bad\\xff\\xfe name \"q\" & 's'.bin"$'\t4096\t512\tyes' \
		<<<"$files" || true)" 1
	ms_expect_eq "$what: no other damaged file" "$(wc -l <<<"$files")" 2
	for r in "$e1 4096 $evil" "$e2 512 $E2E_MNT/bad\\xff"; do
		set -- $r
		cell=$(dom cell "$d" 0 "$1")
		e2e_log "$what cell of $1: $cell"
		IFS=$'\t' read -r cls start end title <<<"$cell"
		ms_expect_eq "$what: the cell holding byte $1 is damage" "$cls" c-damage
		e2e_check "$what: that cell's range holds the bad range" \
			test "$start" -le "$1" -a $(( $1 + $2 )) -le "$end"
		e2e_check "$what: its title names its byte range" \
			grep -qF "bytes $start-$(( end - 1 )) ($(( end - start )) bytes): damage" <<<"$title"
		e2e_check "$what: its title names the bad range and its owner" \
			grep -qF "damage EIO at $1 length $2: file ${r#* * }" <<<"$title"
	done
	ms_expect_eq "$what: no script, image, frame or object element (names stay text)" \
		"$(dom elements "$d" | grep -cE '^(script|img|iframe|object|embed|a)	' || true)" 0
	ms_expect_eq "$what: the document title is ours" "$(dom title "$d")" "$want_title"
	e2e_check "$what: the literal <script> name is text in the page" \
		grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$d"
}
check_page "$E2E_DIR/scan.dom" "scan --html" "mediascan: scan report"
cell=$(dom cell "$E2E_DIR/scan.dom" 0 "$t1")
e2e_log "transient cell: $cell"
ms_expect_eq "scan --html: the cell of the transient read is transient" "${cell%%	*}" c-transient
ms_expect_eq "scan --html: an untouched planned cell is 'planned'" \
	"$(dom cell "$E2E_DIR/scan.dom" 0 $(( $(ms_first_phys "$E2E_MNT/spacer1") + 4194304 )) | cut -f1)" \
	c-planned
ms_expect_eq "scan --html: the last cell (free space at the end) is 'free'" \
	"$(dom cell "$E2E_DIR/scan.dom" 0 $(( 320 * 1048576 - 1 )) | cut -f1)" c-free
e2e_check "scan --html: AG boundaries are drawn" grep -q 'class="m-group"' "$E2E_DIR/scan.dom"

chrome --screenshot="$E2E_DIR/scan.png" --window-size=1280,1400 "file://$page" >/dev/null ||
	e2e_fail "chromium could not take a screenshot"
read -r w hgt colours common <<<"$(dom png "$E2E_DIR/scan.png")"
e2e_log "screenshot ${w}x${hgt}, $colours colours, commonest covers $common"
e2e_check "screenshot: many colours (the map and its legend drew)" test "$colours" -ge 6
e2e_check "screenshot: not one colour all over" python3 -c "import sys; sys.exit(not $common < 0.97)"

# The report from the history: the same damage, NEW, and the pass timeline.
hpage=$E2E_DIR/history.html
rc=0
"$MEDIASCAN" report --html "$hpage" --state-dir "$MS_STATE_DIR" >"$E2E_DIR/report.out" || rc=$?
ms_expect_eq "report --html: exit 1 (open damage)" "$rc" 1
e2e_check "report --html: the text report is printed too" grep -q "NEW" "$E2E_DIR/report.out"
chrome --dump-dom "file://$hpage" >"$E2E_DIR/history.dom" || e2e_fail "chromium could not load $hpage"
check_page "$E2E_DIR/history.dom" "report --html" "mediascan: damage report from the history"
e2e_check "report --html: damage marked NEW" grep -q 'class="new">NEW' "$E2E_DIR/history.dom"
passes=$(dom passes "$E2E_DIR/history.dom")
e2e_log "passes: $passes"
ms_expect_eq "report --html: one pass, complete, 2 damaged ranges found, none cleared" \
	"$passes" $'1\tcomplete\t2\t0'

# A bad report path: one line, refused before anything is read (exit 8; it was 4 after the
# work, 5 for a scan that found damage), nothing written to the device.
rc=0
"$MEDIASCAN" report --html "$E2E_DIR/missing/x.html" --state-dir "$MS_STATE_DIR" \
	>/dev/null 2>"$E2E_DIR/err" || rc=$?
ms_expect_eq "report --html into a missing directory: exit 8" "$rc" 8
ms_expect_eq "... one line on stderr" "$(wc -l <"$E2E_DIR/err")" 1
e2e_check "... saying why" grep -q "cannot write --html .*missing/x.html: its directory does not exist" \
	"$E2E_DIR/err"
rc=0
e2e_reset_counters
"$MEDIASCAN" scan "$E2E_MNT" --no-state -q --progress none --html "$E2E_LOOP" \
	2>"$E2E_DIR/err2" || rc=$?
ms_expect_eq "scan --html naming the scanned device: refused before the scan (exit 8)" "$rc" 8
e2e_check "... says why" grep -q "cannot write --html $E2E_LOOP: it is a block device" \
	"$E2E_DIR/err2"
ms_expect_eq "... nothing read" "$(e2e_reads)" 0

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_umount
e2e_assert_unchanged "$h"

# The target is not here now: the page still lists the damage (paths as at the scan), and
# the map ends at the last error, saying so, without a plan.
rc=0
"$MEDIASCAN" report --html "$hpage" --state-dir "$MS_STATE_DIR" >/dev/null || rc=$?
ms_expect_eq "report --html, target unmounted: exit 1" "$rc" 1
chrome --dump-dom "file://$hpage" >"$E2E_DIR/away.dom" || e2e_fail "chromium could not load $hpage"
files=$(dom files "$E2E_DIR/away.dom")
e2e_log "unmounted files table:"$'\n'"$files"
ms_expect_eq "unmounted: the <script> file is listed by its path at the scan, said so" \
	"$(grep -cF "$evil (path at the scan; now: the filesystem scanned is not mounted" \
	<<<"$files" || true)" 1
ms_expect_eq "unmounted: with its file offset and length" \
	"$(grep -F "$evil (path at the scan" <<<"$files" | cut -f2,3)" $'8192\t4096'
ms_expect_eq "unmounted: the cell of the bad range is damage" \
	"$(dom cell "$E2E_DIR/away.dom" 0 "$e1" | cut -f1)" c-damage
ms_expect_eq "unmounted: a cell without errors is 'unknown' (no plan)" \
	"$(dom cell "$E2E_DIR/away.dom" 0 $(( e1 + 2 * 1048576 )) | cut -f1)" c-unknown
e2e_check "unmounted: the page says the size is not known" \
	grep -q "size is not known now: the map ends at its last error" "$E2E_DIR/away.dom"
e2e_pass "HTML report: files, offsets and map cells right in Chromium's DOM; names stay text"
