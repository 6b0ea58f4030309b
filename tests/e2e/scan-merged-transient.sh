#!/bin/bash
# scan-merged-transient.sh - a clean read next to a bad block, merged by the block layer with
# the read that holds it into one request (which fails as a whole), is explained by the bad
# block that read's narrowing proved: no "transient: watch this disk" (before, every scan of a
# damaged ext4 at the default queue depth said so). 512 KiB reads of a raw device: two
# neighbours in flight fit one request (max_sectors_kb 1280), the merge happens every time.
# A real transient (a sector that fails once, far away) is still reported. Nothing written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 32
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
out=$E2E_DIR/r.json
for bad in $(((8 << 20) - 512)) $(((8 << 20) + 512)) $(((12 << 20) - 512)); do
	e2e_bad_clear
	e2e_bad_add "$bad" 512
	ms_scan "$out" "$E2E_LOOP" --no-state --io-size 512k
	ms_expect_eq "bad at $bad: damage" \
		"$(ms_jq "$out" '[.media_errors[] | "\(.offset)+\(.length)"] | join(" ")')" "$bad+512"
	ms_expect_eq "bad at $bad: no transient (the merged neighbour is explained)" \
		"$(ms_jq "$out" '[.transient_errors[] | "\(.offset)+\(.length)"] | join(" ")')" ""
done
flaky=$((24 << 20))
e2e_flaky_add "$flaky" 512 1
ms_scan "$out" "$E2E_LOOP" --no-state --io-size 512k
e2e_check "a real transient far from the damage is still reported" \
	test "$(ms_jq "$out" '.transient_errors | length')" -ge 1
e2e_assert_unchanged "$h"
e2e_pass "a merged neighbour of a bad block is not a transient"
