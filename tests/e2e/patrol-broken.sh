#!/bin/bash
# patrol-broken.sh - issue 12: a target that cannot be opened or planned (here: its mount point
# has nothing mounted yet) is reported (stderr, journal, metrics) and retried; the other
# targets are patrolled meanwhile. `patrol --check` says so and passes (one broken filesystem
# used to fail --check, which the unit runs before start, and so stop patrol of every disk).
# Once the target can be opened it is scanned. Nothing is written to the fault disk.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v sqlite3 >/dev/null || e2e_skip "sqlite3 is not installed"
e2e_setup 64
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
state=$E2E_DIR/state
conf=$E2E_DIR/mediascan.conf
later=$E2E_DIR/later
metrics=$E2E_DIR/metrics.prom
mkdir -p "$later"
cat >"$conf" <<EOC
[global]
state_dir = $state
window = 4s
rate_max = 200M
metrics_file = $metrics

[target good]
path = $E2E_LOOP

[target later]
path = $later
EOC
patrol=
cleanup_all()
{
	local rc=$?

	[ -z "$patrol" ] || kill -TERM "$patrol" 2>/dev/null || :
	[ -z "$patrol" ] || wait "$patrol" 2>/dev/null || :
	mountpoint -q "$later" && umount "$later"
	_e2e_cleanup
	exit "$rc"
}
trap cleanup_all EXIT

rc=0
"$MEDIASCAN" patrol --config "$conf" --check >"$E2E_DIR/check.out" 2>"$E2E_DIR/check.err" || rc=$?
ms_expect_eq "--check passes with a target that cannot be opened now" "$rc" 0
e2e_check "--check lists the good target" grep -q "^good: $E2E_LOOP" "$E2E_DIR/check.out"
e2e_check "--check names the other, with file and line, and that it is retried" \
	grep -q "^mediascan: $conf:[0-9]*: target 'later': .*retries it" "$E2E_DIR/check.err"

# complete NAME-PATH : passes recorded complete for the target at PATH
complete()
{
	sqlite3 "$state/mediascan.db" "select count(*) from passes p join targets t on
		t.id = p.target_id where p.result = 'complete' and t.path = '$1'" 2>/dev/null || echo 0
}
MEDIASCAN_PATROL_RETRY_S=2 "$MEDIASCAN" patrol --config "$conf" 2>"$E2E_DIR/patrol.log" &
patrol=$!
for _ in $(seq 150); do
	[ "$(complete "$E2E_LOOP")" -ge 1 ] && break
	sleep 0.2
done
ms_expect_eq "the good target is patrolled meanwhile" "$(complete "$E2E_LOOP")" 1
e2e_check "patrol says the other cannot be scanned now, and is retried" \
	grep -q "later: cannot be scanned now: .*retried every 2 s" "$E2E_DIR/patrol.log"
for _ in $(seq 100); do
	grep -q 'mediascan_target_available{target="later"} 0' "$metrics" 2>/dev/null && break
	sleep 0.2
done
e2e_check "metrics: the other target is not available" \
	grep -q 'mediascan_target_available{target="later"} 0' "$metrics"
e2e_check "metrics: the good one is" grep -q 'mediascan_target_available{target="good"} 1' "$metrics"
e2e_check "status names it too" grep -q "^later ($later): cannot be scanned now" \
	<<<"$("$MEDIASCAN" status --config "$conf" 2>&1)"
ms_expect_eq "status --json lists it as unavailable" \
	"$("$MEDIASCAN" status --config "$conf" --json - | jq -r '[.unavailable[].target] | join(" ")')" later

# Now it can be opened: a filesystem is mounted there.
truncate -s 320M "$E2E_DIR/later.img"
mkfs.xfs -q -f "$E2E_DIR/later.img"
mount -o loop "$E2E_DIR/later.img" "$later"
for _ in $(seq 200); do
	[ "$(complete "$later")" -ge 1 ] && break
	sleep 0.2
done
ms_expect_eq "once it can be opened, it is scanned" "$(complete "$later")" 1
e2e_check "patrol says it can be scanned again" grep -q "later: can be scanned again" \
	"$E2E_DIR/patrol.log"
ms_expect_eq "it was said unavailable once, not at every retry" \
	"$(grep -c 'later: cannot be scanned now' "$E2E_DIR/patrol.log")" 1
kill -TERM "$patrol"
wait "$patrol" || e2e_fail "patrol did not stop cleanly"
patrol=
ms_expect_eq "no write reached the fault disk" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "a target that cannot be opened is reported and retried; the others run"
