#!/bin/bash
# scan-pacing.sh - the governor on a real device: --rate never reads faster than asked,
# --window ends the pass within the window, and foreground I/O on the same device makes
# the scan back off (and --no-backoff does not). Exact accuracy (3%, 110% per second) is
# proven with a simulated clock in tests/unit/test_governor.c and measured in tests/bench.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 256
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
size=$(blockdev --getsize64 "$E2E_LOOP")
out=$E2E_DIR/report.json

# --rate 64M over 256 MiB: at least 4 s (less would mean the throttle leaks).
ms_scan "$out" "$E2E_LOOP" --rate 64M --no-backoff
el=$(ms_jq "$out" '.elapsed_s')
e2e_log "--rate 64M: $size bytes in $el s ($(awk -v s="$size" -v e="$el" 'BEGIN { printf "%.1f", s / e / 1048576 }') MiB/s)"
e2e_check "--rate 64M: not faster than asked" awk -v e="$el" 'BEGIN { exit !(e >= 3.9) }'
e2e_check "--rate 64M: not grossly slower (under 8 s)" awk -v e="$el" 'BEGIN { exit !(e < 8) }'

# --window 5s: rate = remaining / time left: the pass ends inside the window.
ms_scan "$out" "$E2E_LOOP" --window 5s --no-backoff --ioprio be
el=$(ms_jq "$out" '.elapsed_s')
e2e_log "--window 5s: done in $el s"
e2e_check "--window 5s: paced (not done in under 3 s)" awk -v e="$el" 'BEGIN { exit !(e >= 3) }'
e2e_check "--window 5s: ends within the window (+1 s)" awk -v e="$el" 'BEGIN { exit !(e <= 6) }'
ms_expect_eq "--window 5s: complete" "$(ms_jq "$out" '.complete')" true

# Foreground reads from another process during a throttled scan: back off.
load()
{
	sleep 1.5
	dd if="$E2E_LOOP" of=/dev/null bs=1M count=64 skip=128 iflag=direct 2>/dev/null
	sleep 0.5
	dd if="$E2E_LOOP" of=/dev/null bs=1M count=64 skip=64 iflag=direct 2>/dev/null
}
load &
loadpid=$!
ms_scan "$out" "$E2E_LOOP" --rate 48M --rate-min 8M
wait "$loadpid"
e2e_log "backoff: $(ms_jq "$out" '"\(.backoffs) backoffs, \(.backoff_s) s at the floor, \(.elapsed_s) s"')"
e2e_check "backoff: the scan backed off for the foreground reads" \
	test "$(ms_jq "$out" '.backoffs')" -ge 1
ms_expect_eq "backoff: complete" "$(ms_jq "$out" '.complete')" true
load &
loadpid=$!
ms_scan "$out" "$E2E_LOOP" --rate 48M --rate-min 8M --no-backoff
wait "$loadpid"
ms_expect_eq "--no-backoff: never backed off" "$(ms_jq "$out" '.backoffs')" 0

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "rate, window and backoff on a real device"
