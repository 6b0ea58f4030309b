#!/bin/bash
# json-flags.sh - one convention for JSON on every subcommand: --json FILE writes FILE (new
# files 0600), --json - writes stdout, and a bare --json still means stdout (it was the only
# form of probe, report and status, which refused --json - as an unexpected argument).
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 320
mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
xfs_io -f -c "pwrite -S 0x11 -b 65536 0 65536" -c fsync "$E2E_MNT/f" >/dev/null
sync
e2e_umount
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
st=$E2E_DIR/state
M=$MEDIASCAN
"$M" scan "$E2E_MNT" -q --progress none --state-dir "$st" --json "$E2E_DIR/scan.json"
valid() { jq -e . "$1" >/dev/null 2>&1; }

for cmd in "scan $E2E_MNT --progress none -q --state-dir $st" "map $E2E_LOOP 0 4096" \
	"probe $E2E_MNT" "report --state-dir $st --all" "status --state-dir $st"; do
	name=${cmd%% *}
	rm -f "$E2E_DIR/$name.json"
	# shellcheck disable=SC2086
	"$M" $cmd --json "$E2E_DIR/$name.json" >/dev/null 2>"$E2E_DIR/err" || true
	e2e_check "$name --json FILE: a JSON file" valid "$E2E_DIR/$name.json"
	ms_expect_eq "$name --json FILE: mode 600" "$(stat -c %a "$E2E_DIR/$name.json")" 600
	# shellcheck disable=SC2086
	"$M" $cmd --json - >"$E2E_DIR/out" 2>"$E2E_DIR/err" || true
	e2e_check "$name --json -: JSON on stdout" valid "$E2E_DIR/out"
	# shellcheck disable=SC2086
	"$M" $cmd --json >"$E2E_DIR/out" 2>"$E2E_DIR/err" || true
	e2e_check "$name --json (bare, last): JSON on stdout" valid "$E2E_DIR/out"
done
# A bare --json before the target (probe's old form) still probes the target.
"$M" probe --json "$E2E_MNT" >"$E2E_DIR/out" 2>/dev/null || true
e2e_check "probe --json MNT: JSON on stdout" valid "$E2E_DIR/out"
"$M" report --json --all --state-dir "$st" >"$E2E_DIR/out" 2>/dev/null || true
e2e_check "report --json --all: JSON on stdout" valid "$E2E_DIR/out"

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "--json FILE|- on every subcommand"
