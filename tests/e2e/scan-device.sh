#!/bin/bash
# scan-device.sh - the patrol read of a bare disk: `mediascan scan /dev/X` on a device with
# no mounted filesystem reads all of it, with every engine finding the same bad blocks;
# io_uring refused by seccomp falls back to libaio and the report says why; a read that
# hangs is reported as "timeout" and the scan goes on; the progress bar is drawn on request.
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
bad1=$((10 * 1048576 + 3 * 512))
bad2=$((200 * 1048576 + 4096))
e2e_bad_add "$bad1" 512
e2e_bad_add "$bad2" 1536

answers=
for engine in $(ms_engines); do
	ms_scan "$out" "$E2E_LOOP" --engine "$engine"
	ms_expect_eq "$engine: exit 1" "$MS_RC" 1
	ms_expect_eq "$engine: fs_type" "$(ms_jq "$out" '.fs_type')" none
	ms_expect_eq "$engine: the whole device is planned" "$(ms_jq "$out" '.planned_bytes')" "$size"
	ms_expect_eq "$engine: and read" "$(ms_jq "$out" '.scanned_bytes')" "$size"
	a=$(ms_jq "$out" '[.media_errors[] | "\(.offset)+\(.length):\(.owners[0].type)"] | join(" ")')
	ms_expect_eq "$engine: exact bad ranges, owned by the raw device" "$a" \
		"$bad1+512:device $bad2+1536:device"
	answers="$answers $a"
done
ms_expect_eq "every engine found the same" \
	"$(tr ' ' '\n' <<<"$answers" | grep . | sort -u | wc -l)" 2

# io_uring refused by seccomp: the probe falls through to the next engine and says why.
if [ -x "${NOURING:-}" ]; then
	rc=0
	"$NOURING" "$MEDIASCAN" scan "$E2E_LOOP" --json "$out" -q --progress none --no-state || rc=$?
	ms_expect_eq "seccomp: exit 1" "$rc" 1
	e2e_check "seccomp: another engine ran" test "$(ms_jq "$out" '.engine')" != uring
	e2e_check "seccomp: the report says why io_uring was refused" \
		grep -q "uring: io_uring_setup refused" <<<"$(ms_jq "$out" '.engine_refused')"
	ms_expect_eq "seccomp: same bad ranges" \
		"$(ms_jq "$out" '[.media_errors[] | "\(.offset)+\(.length)"] | join(" ")')" \
		"$bad1+512 $bad2+1536"
	rc=0
	err=$("$NOURING" "$MEDIASCAN" scan "$E2E_LOOP" --engine uring -q --no-state 2>&1) || rc=$?
	ms_expect_eq "seccomp + --engine uring: operational error" "$rc" 4
	e2e_check "seccomp + --engine uring: says why" grep -q "cannot run here" <<<"$err"
fi

# A read that answers after 2.5 s with --io-timeout 1s is set aside; once the queue has drained
# it is read again alone, still slow, and narrowed: a slow range with its latency, exit bit
# 16 (disk slow), never media damage (it read back intact). The scan goes on meanwhile.
slow=$((100 * 1048576))
e2e_delay_add "$slow" 4096 2500
ms_scan "$out" "$E2E_LOOP" --io-timeout 1s --queue-depth 4
ms_expect_eq "slow: exit 1 (the bad blocks) + 16 (a slow sector)" "$MS_RC" 17
ms_expect_eq "slow: one slow range, the delayed 4 KiB" \
	"$(ms_jq "$out" '[.slow_errors[] | "\(.offset)+\(.length)"] | join(" ")')" "$slow+4096"
ms_expect_eq "slow: with its latency (>= 2 s)" "$(ms_jq "$out" '.slow_errors[0].latency_s >= 2')" true
ms_expect_eq "slow: not a media error" \
	"$(ms_jq "$out" "[.media_errors[] | select(.offset + .length > $slow and .offset < $slow + 4096)] | length")" 0
ms_expect_eq "slow: counted as a read past the timeout" "$(ms_jq "$out" '.timeouts >= 1')" true
ms_expect_eq "slow: the bad blocks are still found" \
	"$(ms_jq "$out" '[.media_errors[] | select(.error == "EIO") | .offset] | join(" ")')" "$bad1 $bad2"
ms_expect_eq "slow: scanned == planned" "$(ms_jq "$out" '.scanned_bytes == .planned_bytes')" true
e2e_bad_del "$slow" 4096

# The progress bar: drawn with --progress bar, absent with none.
bar=$("$MEDIASCAN" scan "$E2E_LOOP" --progress bar --rate 100M -q --no-state 2>&1 >/dev/null || true)
e2e_check "progress bar shows percent, rate and ETA" grep -q "%.*ETA" <<<"$bar"
# (it said "errors found" with no count)
e2e_check "progress bar counts the bad ranges found so far" grep -q "ETA .*  2 bad ranges" <<<"$bar"
bar=$("$MEDIASCAN" scan "$E2E_LOOP" --progress none -q --no-state 2>&1 >/dev/null || true)
ms_expect_eq "no bar with --progress none" "$bar" ""

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "whole-device scan, engines, seccomp fallback, timeouts, progress"
