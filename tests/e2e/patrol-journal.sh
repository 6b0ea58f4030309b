#!/bin/bash
# patrol-journal.sh - acceptance 4 of issue 6, journal half: against a real journald, patrol's
# events carry their MESSAGE_ID, PRIORITY and the fields DEVICE, OFFSET, LENGTH and PATH.
# When no journald runs, the test starts one (systemd-journald runs without systemd as PID 1)
# and stops it afterwards; it skips only when that is impossible (the built field list is
# then still checked by the unit test "patrol").
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v journalctl >/dev/null || e2e_skip "journalctl is not installed (unit test 'patrol' checks the fields)"
command -v sqlite3 >/dev/null || e2e_skip "sqlite3 is not installed"
JD=/lib/systemd/systemd-journald
started_jd=
if [ ! -S /run/systemd/journal/socket ]; then
	[ -x "$JD" ] || e2e_skip "no journald running and none to start (unit test 'patrol' checks the fields)"
	"$JD" >/dev/null 2>&1 &
	started_jd=$!
	for _ in $(seq 50); do
		[ -S /run/systemd/journal/socket ] && break
		sleep 0.1
	done
	[ -S /run/systemd/journal/socket ] || e2e_skip "systemd-journald would not start here"
fi
e2e_setup 400
mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs"
e2e_mount || e2e_hard_error "mount"
dd if=/dev/urandom of="$E2E_MNT/victim" bs=64k count=4 status=none
sync
bad=$(( $(ms_first_phys "$E2E_MNT/victim") + 65536 ))
mount -o remount,ro "$E2E_MNT" || e2e_hard_error "remount ro"
e2e_reset_counters
e2e_bad_add "$bad" 512
state=$E2E_DIR/state
conf=$E2E_DIR/mediascan.conf
cat >"$conf" <<EOC
[global]
state_dir = $state
window = 5s

[target jtest]
path = $E2E_MNT
EOC
patrol=
cleanup_all()
{
	local rc=$?

	[ -z "$patrol" ] || kill -TERM "$patrol" 2>/dev/null || :
	[ -z "$patrol" ] || wait "$patrol" 2>/dev/null || :
	if [ -n "$started_jd" ]; then
		kill -TERM "$started_jd" 2>/dev/null || :
		wait "$started_jd" 2>/dev/null || :
		# No stale socket: without a journald, mediascan writes plain lines to stderr.
		rm -f /run/systemd/journal/socket /run/systemd/journal/stdout \
			/run/systemd/journal/dev-log /run/systemd/journal/io.systemd.journal
	fi
	_e2e_cleanup
	exit "$rc"
}
trap cleanup_all EXIT
since=$(date '+%Y-%m-%d %H:%M:%S')
sleep 1
"$MEDIASCAN" patrol --config "$conf" 2>"$E2E_DIR/patrol.log" &
patrol=$!
t0=$SECONDS
until [ "$(sqlite3 "$state/mediascan.db" "select count(*) from passes where result = 'complete'" 2>/dev/null || echo 0)" -ge 1 ]; do
	[ $((SECONDS - t0)) -lt 60 ] || e2e_fail "no complete pass in 60 s"
	sleep 1
done
sleep 1
kill -TERM "$patrol"
wait "$patrol" || :
patrol=
journalctl --sync 2>/dev/null || :

# entry MESSAGE_ID : the newest matching entry since the test began, as JSON.
entry()
{
	journalctl --no-pager -o json --since "$since" "MESSAGE_ID=$1" 2>/dev/null | tail -1
}
media=$(entry 5b1c0e6a4f2d4e8c9a7f3d2b1e0c9a81)
[ -n "$media" ] || e2e_fail "no media-error entry in the journal (patrol log: $(cat "$E2E_DIR/patrol.log"))"
ms_expect_eq "media error: OFFSET" "$(jq -r .OFFSET <<<"$media")" "$bad"
ms_expect_eq "media error: LENGTH" "$(jq -r .LENGTH <<<"$media")" 512
ms_expect_eq "media error: DEVICE" "$(jq -r .DEVICE <<<"$media")" "$E2E_LOOP"
ms_expect_eq "media error: PRIORITY (err)" "$(jq -r .PRIORITY <<<"$media")" 3
file=$(entry 5b1c0e6a4f2d4e8c9a7f3d2b1e0c9a82)
[ -n "$file" ] || e2e_fail "no damaged-file entry in the journal"
ms_expect_eq "damaged file: PATH" "$(jq -r .PATH <<<"$file")" "$E2E_MNT/victim"
done_=$(entry 5b1c0e6a4f2d4e8c9a7f3d2b1e0c9a83)
[ -n "$done_" ] || e2e_fail "no pass-complete entry in the journal"
e2e_check "pass complete: has a PRIORITY" test -n "$(jq -r '.PRIORITY // empty' <<<"$done_")"
ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_pass "journal entries with MESSAGE_ID, PRIORITY, DEVICE, OFFSET, LENGTH, PATH"
