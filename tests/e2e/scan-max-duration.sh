#!/bin/bash
# scan-max-duration.sh - what a --max-duration stop means for the exit status: a planned stop
# with a checkpoint saved is not an error (exit 0 on a clean disk), though the summary says
# the scan is INCOMPLETE and how to continue; a stop with nothing saved to resume from (no
# state store) is an incomplete scan: exit bit 4; an operational error met before the stop
# keeps bit 4 (it was cleared with every other operational bit).
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 512
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
out=$E2E_DIR/report.json

# 1. A planned stop with a checkpoint: exit 0, incomplete, the summary says so.
MS_STATE_DIR=$E2E_DIR/state1
rc=0
human=$("$MEDIASCAN" scan "$E2E_LOOP" --rate 40M --max-duration 2s --progress none \
	--state-dir "$MS_STATE_DIR" --json "$out" 2>&1) || rc=$?
ms_expect_eq "checkpointed stop: exit 0" "$rc" 0
ms_expect_eq "checkpointed stop: stopped by max-duration" "$(ms_jq "$out" '.stopped')" max-duration
ms_expect_eq "checkpointed stop: incomplete" "$(ms_jq "$out" '.complete')" false
e2e_check "checkpointed stop: the summary says INCOMPLETE" grep -q "INCOMPLETE" <<<"$human"
e2e_check "checkpointed stop: and how to continue" grep -q "continue with --resume" <<<"$human"

# 2. No state store: nothing to resume from, an incomplete scan: bit 4.
rc=0
human=$("$MEDIASCAN" scan "$E2E_LOOP" --rate 40M --max-duration 2s --progress none \
	--no-state --json "$out" 2>&1) || rc=$?
ms_expect_eq "stop without a checkpoint: exit 4 (incomplete scan)" "$rc" 4
ms_expect_eq "stop without a checkpoint: incomplete" "$(ms_jq "$out" '.complete')" false
e2e_check "stop without a checkpoint: the summary says INCOMPLETE" grep -q "INCOMPLETE" <<<"$human"

# 3. An operational error before a checkpointed stop keeps bit 4. ENOSPC (28) passes the loop
# driver as BLK_STS_NOSPC and is none of the verdicts of a disk: operational.
e2e_errno_add $((4 * 1048576)) 4096 28
MS_STATE_DIR=$E2E_DIR/state3
ms_scan "$out" "$E2E_LOOP" --rate 40M --max-duration 2s
ms_expect_eq "operational error, then the stop: stopped by max-duration" \
	"$(ms_jq "$out" '.stopped')" max-duration
ms_expect_eq "operational error, then the stop: one operational error" \
	"$(ms_jq "$out" '.operational_errors | length')" 1
ms_expect_eq "operational error, then the stop: exit 4" "$MS_RC" 4
e2e_bad_clear

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "a --max-duration stop: exit 0 with a checkpoint, bit 4 without one or after a real error"
