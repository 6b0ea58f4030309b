#!/bin/bash
# hostile-names.sh - a file name is written by any user: one holding a newline, a forged
# "Unfixable Error" line and a terminal escape, under a bad sector. The xfs_scrub-style
# output (--format xfs_scrub) and the human summary print it escaped: one "Unfixable Error"
# line for the one damaged file, no raw control bytes; the JSON report keeps the exact name.
# A --json path naming a block device is refused: mediascan never writes to a device.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 320
mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
name=$'evil\nUnfixable Error: shadow: media error at data offset 0 length 1.\n\033[31mred\xff'
xfs_io -f -c "pwrite -S 0x11 -b 65536 0 65536" -c fsync "$E2E_MNT/plain" >/dev/null
sync
bad=$(( $(ms_first_phys "$E2E_MNT/plain") + 4096 ))
mv "$E2E_MNT/plain" "$E2E_MNT/$name"
# A file whose path is longer than PATH_MAX (18 levels of 240-byte names): the walker skipped
# it silently, so any user could hide a file from damage naming that way.
long=$(printf 'd%.0s' $(seq 1 240))
deep_phys=$(
	cd "$E2E_MNT"
	for _ in $(seq 1 18); do mkdir "$long" && cd "$long"; done
	xfs_io -f -c "pwrite -S 0x22 -b 65536 0 65536" -c fsync deep >/dev/null
	e2e_file_phys deep | awk '$1 == 0 { print $2; exit }'
)
deep_rel=$(for _ in $(seq 1 18); do printf '%s/' "$long"; done)deep
[ -n "$deep_phys" ] || e2e_hard_error "no extent for the deep file"
e2e_umount
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
e2e_bad_add "$bad" 512
e2e_bad_add $((deep_phys + 4096)) 512
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"

rc=0
"$MEDIASCAN" scan "$E2E_MNT" --no-state --progress none --format xfs_scrub \
	>"$E2E_DIR/out" 2>"$E2E_DIR/err" || rc=$?
ms_expect_eq "xfs_scrub format: exit 1" "$rc" 1
ms_expect_eq "xfs_scrub format: one Unfixable Error line per damaged file (the name forges none)" \
	"$(grep -c '^Unfixable Error' "$E2E_DIR/err")" 2
e2e_check_fails "xfs_scrub format: no raw escape byte" grep -q $'\033' "$E2E_DIR/err"
e2e_check "xfs_scrub format: the forged line is inside the escaped name" \
	grep -q '^Unfixable Error: .*evil\\nUnfixable Error: shadow' "$E2E_DIR/err"

human=$("$MEDIASCAN" scan "$E2E_MNT" --no-state --progress none 2>&1 || true)
e2e_check_fails "human summary: no raw escape byte" grep -q $'\033' <<<"$human"
ms_expect_eq "human summary: no forged line" "$(grep -c '^Unfixable Error' <<<"$human" || true)" 0

out=$E2E_DIR/report.json
ms_scan "$out" "$E2E_MNT" --no-state
# JSON text must be UTF-8: the name (invalid UTF-8 at its end) is written with \xff, and
# paths_hex carries its exact bytes; Python's strict parser reads the report.
e2e_check "JSON: a strict parser reads the report" python3 -c \
	'import json, sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' "$out"
ms_expect_eq "JSON: the name, invalid byte written as \\xff" \
	"$(jq -r '.damaged_files[0].paths[0]' "$out" | tail -c 8)" 'red\xff'
ms_expect_eq "JSON: paths_hex holds the exact bytes" \
	"$(jq -r '.damaged_files[0].paths_hex[0]' "$out")" \
	"$(printf '%s' "$E2E_MNT/$name" | od -An -tx1 -v | tr -d ' \n')"
ms_expect_eq "JSON report file created 0600" "$(stat -c %a "$out")" 600
ms_expect_eq "JSON: the file under a path longer than PATH_MAX is named, whole" \
	"$(jq -r '.damaged_files[].paths[]' "$out" | grep -c "/${deep_rel}\$")" 1
e2e_check "JSON: that path is longer than PATH_MAX" test \
	"$(jq -r '.damaged_files[].paths[]' "$out" | grep "/deep\$" | wc -c)" -gt 4096

rc=0
"$MEDIASCAN" scan "$E2E_MNT" --no-state -q --json "$E2E_LOOP" 2>"$E2E_DIR/err2" || rc=$?
ms_expect_eq "--json naming the scanned device: refused before the scan (exit 8)" "$rc" 8
e2e_check "--json naming a device: says why" grep -q "block device: mediascan never writes" "$E2E_DIR/err2"

# report prints names from the history as scan and HTML print them: the invalid byte as
# \xff, escaped once (it printed \\xff); and the store's own text (device, error, path,
# filesystem type) escaped too, even in rows edited behind mediascan's back.
state=$E2E_DIR/state
"$MEDIASCAN" scan "$E2E_MNT" --state-dir "$state" --progress none -q || :
rep=$("$MEDIASCAN" report --state-dir "$state" 2>&1 || true)
e2e_check "report: the invalid byte as \\xff, as scan prints it" grep -qF 'red\xff' <<<"$rep"
e2e_check_fails "report: not escaped twice" grep -qF 'red\\xff' <<<"$rep"
e2e_check_fails "report: no raw escape byte" grep -q $'\033' <<<"$rep"
sqlite3 "$state/mediascan.db" "UPDATE errors SET device = char(27) || '[31mdev' || char(10) ||
	'Unfixable Error: x', error = 'EIO' || char(27) || '[0m';
	UPDATE targets SET fs_type = 'xfs' || char(7), path = path || char(27) || '[2J';"
for cmd in report status; do
	out=$("$MEDIASCAN" "$cmd" --state-dir "$state" 2>&1 || true)
	e2e_check_fails "$cmd over edited rows: no raw escape byte" grep -q $'\033' <<<"$out"
	e2e_check_fails "$cmd over edited rows: no raw bell" grep -q $'\a' <<<"$out"
	ms_expect_eq "$cmd over edited rows: no forged line" \
		"$(grep -c '^Unfixable' <<<"$out" || true)" 0
done

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "hostile names escaped outside JSON, exact inside; no report onto a device"
