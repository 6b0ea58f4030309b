#!/bin/bash
# patrol-window.sh - acceptance 1, 3 and 4 of issue 6: patrol over two fault-disk targets (XFS
# by mount point, a raw loop device) with a one-minute window. Both passes complete within the
# window and are paced to it (not done in a few seconds); the error injected into each is
# recorded once, with its owner; the metrics file passes promtool; after a bad range is made
# good and a new one added, the next pass marks the first cleared and the new one NEW. A
# transient error is counted in the metrics until a later pass completes without it.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v sqlite3 >/dev/null || e2e_skip "sqlite3 is not installed"
e2e_setup 600
mkfs.xfs -q -f -m rmapbt=1 -d size=320m "$E2E_LOOP" || e2e_hard_error "mkfs.xfs"
e2e_mount || e2e_hard_error "mount"
dd if=/dev/urandom of="$E2E_MNT/a" bs=1M count=16 status=none
dd if=/dev/urandom of="$E2E_MNT/b" bs=1M count=8 status=none
sync
# The data error goes in the last block of b, late in the plan: the second pass starts as the
# first ends and must not reach it before the test has made it good.
b_last=$(e2e_file_phys "$E2E_MNT/b" | awk '{ o = $2 + $3 - 4096 } END { print o }')
[ -n "$b_last" ] || e2e_hard_error "no extent of b"
# Read-only from here: any write the fault disk counts would be mediascan's.
mount -o remount,ro "$E2E_MNT" || e2e_hard_error "remount ro"
e2e_reset_counters
raw=$(losetup --direct-io=on --sector-size 512 -o $((400 << 20)) --find --show "$E2E_FUSE/disk") ||
	e2e_hard_error "losetup raw"
patrol=
cleanup_patrol()
{
	local rc=$?

	[ -z "$patrol" ] || kill -TERM "$patrol" 2>/dev/null || :
	[ -z "$patrol" ] || wait "$patrol" 2>/dev/null || :
	losetup -d "$raw" 2>/dev/null || :
	_e2e_cleanup
	exit "$rc"
}
trap cleanup_patrol EXIT
raw_size=$(blockdev --getsize64 "$raw")
state=$E2E_DIR/state
prom=$E2E_DIR/mediascan.prom
conf=$E2E_DIR/mediascan.conf
hook=$E2E_DIR/damage.json
cat >"$conf" <<EOC
[global]
state_dir = $state
window = 60s
rate_max = 100M
rate_min = 1M
metrics_file = $prom
on_damage = cat >> $hook

[target data]
path = $E2E_MNT

[target raw]
path = $raw
EOC
bad_a=$b_last
bad_raw=$((100 << 20))
e2e_bad_add "$bad_a" 4096
e2e_bad_add $(((400 << 20) + bad_raw)) 512
# A transient error on raw: its first read fails, every later one succeeds.
e2e_flaky_add $(((400 << 20) + (120 << 20))) 512 1
e2e_drop_caches

# passes : print "COMPLETE_PASSES_OF_DATA COMPLETE_PASSES_OF_RAW"
passes()
{
	sqlite3 "$state/mediascan.db" "select (select count(*) from passes p join targets t on
		t.id = p.target_id where t.path = '$E2E_MNT' and result = 'complete'),
		(select count(*) from passes p join targets t on t.id = p.target_id
		where t.path = '$raw' and result = 'complete')" 2>/dev/null | tr '|' ' '
}
wait_passes()
{
	local want=$1 limit=$2 t0=$SECONDS
	while [ $((SECONDS - t0)) -lt "$limit" ]; do
		[ "$(passes)" = "$want $want" ] && return 0
		kill -0 "$patrol" 2>/dev/null || e2e_fail "patrol died"
		sleep 1
	done
	e2e_fail "no complete pass $want of both targets within $limit s (got '$(passes)')"
}

start=$(date +%s)
"$MEDIASCAN" patrol --config "$conf" 2>"$E2E_DIR/patrol.log" &
patrol=$!
wait_passes 1 80
e2e_log "$(cat "$E2E_DIR/patrol.log")"

# 1. Both complete within the window, paced to it.
for t in "$E2E_MNT" "$raw"; do
	read -r s e < <(sqlite3 -separator ' ' "$state/mediascan.db" "select started, ended from
		passes p join targets t on t.id = p.target_id where t.path = '$t' and
		result = 'complete' order by p.id limit 1")
	e2e_log "$t: pass from $s to $e ($((e - s)) s)"
	e2e_check "$t: pass within the window (60 s + 10 s slack)" test $((e - start)) -le 70
	e2e_check "$t: paced to the window, not flat out (>= 30 s)" test $((e - s)) -ge 30
done
rows=$(sqlite3 "$state/mediascan.db" "select count(*) from errors where verdict != 'transient'")
ms_expect_eq "one error row per injected range" "$rows" 2
ms_expect_eq "one transient row" "$(sqlite3 "$state/mediascan.db" \
	"select count(*) from errors where verdict = 'transient'")" 1
own=$(sqlite3 "$state/mediascan.db" "select owners_json from errors where offset = $bad_a")
e2e_check "the data error names file b as its owner" grep -q "\"$E2E_MNT/b\"" <<<"$own"
e2e_check "on_damage got the new damage as JSON" \
	sh -c "jq -s '[.[].media_errors[]] | length' '$hook' | grep -qx 2"

# 4. The metrics file passes promtool and carries the counts (rewritten when a scan ends).
for _ in $(seq 15); do
	grep -q '^mediascan_damaged_files{target="data".*} 1$' "$prom" 2>/dev/null && break
	sleep 1
done
[ -s "$prom" ] || e2e_fail "no metrics file"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$prom" 2>&1) || e2e_fail "promtool check metrics: $out"
	echo "ok: promtool check metrics"
else
	echo "note: promtool not installed (Debian package prometheus): metrics not linted"
fi
e2e_check "metrics: one open error on data" \
	grep -q "^mediascan_errors_open{target=\"data\".*} 1$" "$prom"
e2e_check "metrics: one damaged file on data" \
	grep -q "^mediascan_damaged_files{target=\"data\".*} 1$" "$prom"
e2e_check "metrics: one transient error in raw's pass" \
	grep -q "^mediascan_transient_errors_last_pass{target=\"raw\".*} 1$" "$prom"
e2e_check "metrics: no transient error in data's pass" \
	grep -q "^mediascan_transient_errors_last_pass{target=\"data\".*} 0$" "$prom"
e2e_check "no temp file left" test ! -e "$prom.tmp"

# 3. Make the data range good, add a new raw range; the next pass (a minute after the first)
# clears the first and marks the second NEW.
e2e_bad_del "$bad_a" 4096
bad_raw2=$((150 << 20))
e2e_bad_add $(((400 << 20) + bad_raw2)) 512
wait_passes 2 90
out=$("$MEDIASCAN" report --json --all --state-dir "$state" || true)
ms_expect_eq "data error cleared" "$(jq -r --arg o "$bad_a" \
	'.targets[].errors[] | select(.offset == ($o | tonumber)) | .state' <<<"$out")" cleared
ms_expect_eq "new raw error is NEW" "$(jq -r --arg o "$bad_raw2" \
	'.targets[].errors[] | select(.offset == ($o | tonumber)) | .new' <<<"$out")" true
ms_expect_eq "old raw error still open, not new, seen twice" "$(jq -r --arg o "$bad_raw" \
	'.targets[].errors[] | select(.offset == ($o | tonumber)) | "\(.state) \(.new) \(.times_seen)"' \
	<<<"$out")" "open false 2"
ms_expect_eq "no duplicate rows" "$(sqlite3 "$state/mediascan.db" \
	"select count(*) from errors where verdict != 'transient'")" 3
human=$("$MEDIASCAN" report --state-dir "$state" || true)
e2e_check "human report says what to do" grep -q "restore from backup\|watch the disk" <<<"$human"
"$MEDIASCAN" status --state-dir "$state" >/dev/null || e2e_fail "status failed"
# The transient range read cleanly in pass 2: once pass 2 is complete the count is 0.
for _ in $(seq 15); do
	grep -q '^mediascan_transient_errors_last_pass{target="raw".*} 0$' "$prom" 2>/dev/null &&
		break
	sleep 1
done
e2e_check "metrics: complete pass 2 of raw saw no transient error" \
	grep -q "^mediascan_transient_errors_last_pass{target=\"raw\".*} 0$" "$prom"

kill -TERM "$patrol"
rc=0
wait "$patrol" || rc=$?
patrol=
ms_expect_eq "patrol exits 0 on SIGTERM" "$rc" 0
ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_pass "two targets within a one-minute window; cleared and new errors; metrics"
