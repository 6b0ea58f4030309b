#!/bin/bash
# scan-failing.sh - a failing disk is spared. (1) After --max-failed-reads failed reads in a
# row the scan stops, says the disk is failing and to copy what it can first, records what
# it found, and exits with bit 16 (not a whole region read block by block for hours).
# (2) A stop signal is honoured while failing reads are being narrowed: each isolation read
# is bounded and abandoned on stop (they were synchronous and ignored it). (3) A device that
# shrinks mid-scan stops the scan with a clear message; nothing past the new end is damage.
# Nothing is written to the devices.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 256
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
out=$E2E_DIR/report.json

# (1) 32 MiB that fail every read, from 64 MiB on.
e2e_bad_add $((64 * 1048576)) $((32 * 1048576))
start=$(date +%s)
ms_scan "$out" "$E2E_LOOP" --no-state --max-failed-reads 32
took=$(( $(date +%s) - start ))
ms_expect_eq "failing disk: exit 1 (what was found) + 16 (disk failing)" "$MS_RC" 17
e2e_check "failing disk: the report says why it stopped" \
	grep -q "32 reads in a row failed" <<<"$(ms_jq "$out" .disk_failing)"
ms_expect_eq "failing disk: not complete" "$(ms_jq "$out" .complete)" false
e2e_check "failing disk: damage before the stop is kept" test "$(ms_jq "$out" '.media_errors | length')" -ge 1
human=$("$MEDIASCAN" scan "$E2E_LOOP" --no-state --progress none --max-failed-reads 32 2>&1 || true)
e2e_check "failing disk: the summary says copy what you can" grep -q "ddrescue" <<<"$human"
e2e_log "stopped after $took s"
e2e_bad_del $((64 * 1048576)) $((32 * 1048576))

# (2) 8 MiB that fail every read after 1 s: narrowing them takes thousands of seconds;
# SIGTERM after 4 s must end the scan within a few seconds.
e2e_bad_add $((64 * 1048576)) $((8 * 1048576))
e2e_delay_add $((64 * 1048576)) $((8 * 1048576)) 1000
"$MEDIASCAN" scan "$E2E_LOOP" --no-state --progress none -q --max-failed-reads 0 \
	--json "$out" &
pid=$!
sleep 4
kill -TERM "$pid"
t0=$(date +%s)
rc=0
wait "$pid" || rc=$?
waited=$(( $(date +%s) - t0 ))
e2e_log "exited $rc, $waited s after SIGTERM"
[ "$waited" -le 6 ] || e2e_fail "stop while narrowing: still running $waited s after SIGTERM"
ms_expect_eq "stop while narrowing: the report says it was interrupted" \
	"$(ms_jq "$out" '.stopped')" signal
e2e_bad_clear

ms_expect_eq "no write reached the fault disk" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"

# (3) A plain loop device whose backing file is cut to 64 MiB while it is being scanned.
img=$E2E_DIR/shrink.img
truncate -s 256M "$img"
dd if=/dev/urandom of="$img" bs=1M count=64 conv=notrunc status=none
loop=$(losetup --find --show "$img")
e2e_on_cleanup "losetup -d $loop 2>/dev/null"
h64=$(head -c $((64 * 1048576)) "$img" | sha256sum)
"$MEDIASCAN" scan "$loop" --no-state --progress none -q --rate 40M --json "$out" &
pid=$!
sleep 2
truncate -s 64M "$img"
losetup -c "$loop"
rc=0
wait "$pid" || rc=$?
ms_expect_eq "shrunk device: exit 16 (the disk changed under the scan), not 1" "$rc" 16
e2e_check "shrunk device: says it shrank" grep -q "shrank from 268435456 to 67108864" \
	<<<"$(ms_jq "$out" .disk_failing)"
ms_expect_eq "shrunk device: no media damage past the new end" "$(ms_jq "$out" '.media_errors | length')" 0
ms_expect_eq "shrunk device: one device fault" "$(ms_jq "$out" '.device_faults | length')" 1
ms_expect_eq "shrunk device: not complete" "$(ms_jq "$out" .complete)" false
ms_expect_eq "shrunk device: its bytes unchanged" "$(head -c $((64 * 1048576)) "$img" | sha256sum)" "$h64"
e2e_pass "a failing, stopped or shrinking disk is spared and said so"
