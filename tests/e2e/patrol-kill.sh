#!/bin/bash
# patrol-kill.sh - acceptance 2 of issue 6: SIGKILL the patrol service (its whole process
# group, scans included) mid-pass and start it again: the pass resumes near where it was
# (bytes read twice are a small fraction), no error row is duplicated, and the final report
# holds the errors found before and after the kill.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v sqlite3 >/dev/null || e2e_skip "sqlite3 is not installed"
command -v setsid >/dev/null || e2e_skip "setsid is not installed"
e2e_setup 256
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
size=$(blockdev --getsize64 "$E2E_LOOP")
state=$E2E_DIR/state
conf=$E2E_DIR/mediascan.conf
cat >"$conf" <<EOC
[global]
state_dir = $state
window = 20s
rate_max = 100M
rate_min = 1M

[target raw]
path = $E2E_LOOP
EOC
early=$((20 << 20))
late=$((240 << 20))
e2e_bad_add "$early" 512
e2e_bad_add "$late" 4096

pgid=
cleanup_patrol()
{
	local rc=$?

	[ -z "$pgid" ] || kill -KILL -- "-$pgid" 2>/dev/null || :
	_e2e_cleanup
	exit "$rc"
}
trap cleanup_patrol EXIT

complete_passes()
{
	sqlite3 "$state/mediascan.db" "select count(*) from passes where result = 'complete'" \
		2>/dev/null || echo 0
}

# First run: about 10 MiB/s (256 MiB in a 20 s window); kill it after 9 s.
setsid "$MEDIASCAN" patrol --config "$conf" 2>"$E2E_DIR/patrol1.log" &
pgid=$!
sleep 9
kill -KILL -- "-$pgid"
sleep 0.5
pgid=
ms_expect_eq "no pass was complete when killed" "$(complete_passes)" 0
before=$(e2e_ctl | awk '$1 == "read_bytes" { print $2 }')
e2e_log "killed after reading $before bytes"
e2e_check "the first run got part way" test "$before" -gt $((20 << 20))
e2e_reset_counters

# Second run: resumes the pass.
setsid "$MEDIASCAN" patrol --config "$conf" 2>"$E2E_DIR/patrol2.log" &
pgid=$!
t0=$SECONDS
while [ "$(complete_passes)" -lt 1 ]; do
	[ $((SECONDS - t0)) -lt 60 ] || e2e_fail "the resumed pass did not complete in 60 s"
	sleep 1
done
kill -TERM -- "-$pgid" 2>/dev/null || :
sleep 1
pgid=
# The window comes round at once (20 s): a next pass may have started; its reads are not
# part of the resumed one.
next_pass=$(sqlite3 "$state/mediascan.db" "select coalesce(sum(scanned_bytes), 0) from passes where id > 1")
after=$(( $(e2e_ctl | awk '$1 == "read_bytes" { print $2 }') - next_pass ))
reread=$((before + after - size))
e2e_log "second run read $after bytes: $reread bytes read twice"
# Checkpoints every 5 s: at most ~5 s of the first run's pace plus the queue is read twice.
limit=$((before * 55 / 90 + (16 << 20)))
e2e_check "the pass resumed: at most $limit bytes (5.5 s of reading + queue) read twice" \
	test "$reread" -le "$limit"
ms_expect_eq "the killed pass itself was resumed and completed (not a new one)" \
	"$(sqlite3 "$state/mediascan.db" "select id || ' ' || result from passes order by id limit 1")" \
	"1 complete"
ms_expect_eq "one row per injected range, none duplicated" \
	"$(sqlite3 "$state/mediascan.db" "select group_concat(offset, ' ') from (select offset from errors order by offset)")" \
	"$early $late"
out=$("$MEDIASCAN" report --json --all --state-dir "$state" || true)
ms_expect_eq "the report holds both errors" \
	"$(jq -r '[.targets[].errors[].offset] | sort | join(" ")' <<<"$out")" "$early $late"

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "patrol survives SIGKILL: resumed, no duplicate rows, complete report"
