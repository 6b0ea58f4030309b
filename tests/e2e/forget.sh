#!/bin/bash
# forget.sh - `mediascan forget TARGET` drops one target's history after saying what goes
# (passes, open ranges): without a terminal it needs --yes (else exit 8, nothing dropped);
# --dry-run only tells; on a terminal it asks and a "n" keeps everything; an unknown target is
# exit 8. The other target's history is untouched and no row of the dropped one is left
# (passes, cursors, errors, error_passes). Two targets on one fault disk: the XFS mount (two
# bad ranges in files) and, afterwards, the block device itself.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v sqlite3 >/dev/null || e2e_skip "sqlite3 is not installed"
e2e_setup 320
mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
xfs_io -f -c "pwrite -S 0x11 -b 1048576 0 1048576" -c fsync "$E2E_MNT/a" >/dev/null
xfs_io -f -c "pwrite -S 0x22 -b 1048576 0 1048576" -c fsync "$E2E_MNT/b" >/dev/null
sync
pa=$(ms_first_phys "$E2E_MNT/a")
pb=$(ms_first_phys "$E2E_MNT/b")
e2e_umount
export MS_STATE_DIR=$E2E_DIR/state
sd=$MS_STATE_DIR
db=$sd/mediascan.db
e2e_bad_add $((pa + 4096)) 512
e2e_bad_add $((pb + 8192)) 512
e2e_readonly on
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
mnt=$E2E_MNT
ms_scan "$E2E_DIR/fs.json" "$mnt"
ms_expect_eq "scan of the mount: damage (exit 1)" "$MS_RC" 1
e2e_umount
ms_scan "$E2E_DIR/dev.json" "$E2E_LOOP"
ms_expect_eq "scan of the device: damage (exit 1)" "$MS_RC" 1
e2e_assert_unchanged "$h"
ntargets() { sqlite3 "$db" "SELECT count(*) FROM targets"; }
ms_expect_eq "two targets in the history" "$(ntargets)" 2
open_fs=$(sqlite3 "$db" "SELECT count(*) FROM errors e JOIN targets t ON t.id = e.target_id
	WHERE t.path = '$mnt' AND e.state = 'open' AND verdict IN ('damage', 'slow', 'device-fault')")
rows_fs=$(sqlite3 "$db" "SELECT count(*) FROM errors e JOIN targets t ON t.id = e.target_id
	WHERE t.path = '$mnt'")
e2e_check "the mount has open ranges" test "$open_fs" -ge 2

# No terminal, no --yes: refused, exit 8, nothing dropped.
rc=0
"$MEDIASCAN" forget "$mnt" --state-dir "$sd" </dev/null >"$E2E_DIR/out" 2>"$E2E_DIR/err" || rc=$?
ms_expect_eq "forget without a terminal or --yes: exit 8" "$rc" 8
e2e_check "it says why" grep -q -- "--yes" "$E2E_DIR/err"
e2e_check "it said what it would drop" grep -q "1 pass, $open_fs open ranges" "$E2E_DIR/out"
ms_expect_eq "nothing dropped" "$(ntargets)" 2

# --dry-run tells, exit 0, nothing dropped.
out=$("$MEDIASCAN" forget "$mnt" --dry-run --state-dir "$sd" </dev/null)
ms_expect_eq "--dry-run says what goes" "$out" \
	"would drop $mnt: 1 target, 1 pass, $open_fs open ranges ($rows_fs error rows in all)"
ms_expect_eq "--dry-run drops nothing" "$(ntargets)" 2

# A terminal: it asks; "n" keeps everything.
if command -v script >/dev/null; then
	echo n | script -qec "'$MEDIASCAN' forget '$mnt' --state-dir '$sd'" /dev/null \
		>"$E2E_DIR/tty" 2>&1 || e2e_fail "forget on a terminal answered n: exit $?"
	e2e_check "on a terminal it asks" grep -q "Drop it? \[y/N\]" "$E2E_DIR/tty"
	e2e_check "n drops nothing" grep -q "nothing dropped" "$E2E_DIR/tty"
	ms_expect_eq "after n: two targets" "$(ntargets)" 2
fi

# Unknown target: exit 8.
rc=0
"$MEDIASCAN" forget /no/such/target --yes --state-dir "$sd" >/dev/null 2>&1 || rc=$?
ms_expect_eq "forget of an unknown target: exit 8" "$rc" 8
rc=0
"$MEDIASCAN" forget "$mnt" --yes --state-dir "$E2E_DIR/none" >/dev/null 2>"$E2E_DIR/err" || rc=$?
ms_expect_eq "forget without a state store: exit 8" "$rc" 8
e2e_check "it says there is no history" grep -q "no history yet" "$E2E_DIR/err"

# --yes, with the path as typed (a trailing slash): dropped.
before_dev=$(sqlite3 "$db" "SELECT count(*) FROM errors e JOIN targets t ON t.id = e.target_id
	WHERE t.path != '$mnt'")
mkdir -p "$mnt"
out=$("$MEDIASCAN" forget "$mnt/" --yes --state-dir "$sd" </dev/null)
ms_expect_eq "forget --yes says what it dropped" "$out" \
	"would drop $mnt: 1 target, 1 pass, $open_fs open ranges ($rows_fs error rows in all)
dropped $mnt: 1 target, 1 pass, $open_fs open ranges"
ms_expect_eq "one target left" "$(ntargets)" 1
ms_expect_eq "no pass of it left" "$(sqlite3 "$db" "SELECT count(*) FROM passes WHERE target_id NOT IN (SELECT id FROM targets)")" 0
ms_expect_eq "no error row of it left" "$(sqlite3 "$db" "SELECT count(*) FROM errors WHERE target_id NOT IN (SELECT id FROM targets)")" 0
ms_expect_eq "no error_passes row of it left" "$(sqlite3 "$db" "SELECT count(*) FROM error_passes WHERE error_id NOT IN (SELECT id FROM errors) OR pass_id NOT IN (SELECT id FROM passes)")" 0
ms_expect_eq "no cursor of it left" "$(sqlite3 "$db" "SELECT count(*) FROM cursors WHERE pass_id NOT IN (SELECT id FROM passes)")" 0
ms_expect_eq "the device target keeps its errors" "$(sqlite3 "$db" "SELECT count(*) FROM errors")" "$before_dev"
"$MEDIASCAN" status --json --state-dir "$sd" >"$E2E_DIR/status.json"
ms_expect_eq "status lists only the device" "$(jq -r '[.targets[].path] | join(" ")' "$E2E_DIR/status.json")" "$E2E_LOOP"
rc=0
"$MEDIASCAN" report --state-dir "$sd" >/dev/null 2>&1 || rc=$?
ms_expect_eq "report still tells the device's damage (exit 1)" "$rc" 1
e2e_pass "forget drops one target's history, after saying what goes"
