#!/bin/bash
# pass-teardown.sh - a pass undoes everything it set up, whichever stage stops it: run in one
# process (tests/tools/pass_fds) over a loop device, a pass whose state store cannot be opened
# under --resume or --recheck (it stops before the scan) leaves no descriptor open (the
# method stage's devices were left open), and neither do a plain pass and a pass without a
# store.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
[ -x "${PASS_FDS:-}" ] || e2e_hard_error "PASS_FDS (tests/tools/pass_fds) not given"
e2e_setup 64
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)

# A state "directory" that is a file: the store cannot be opened.
touch "$E2E_DIR/not-a-dir"
rc=0
out=$("$PASS_FDS" "$E2E_LOOP" "$E2E_DIR/not-a-dir" resume recheck plain nostate) || rc=$?
e2e_log "$out"
for mode in resume recheck; do
	line=$(grep "^$mode " <<<"$out")
	e2e_check "$mode with a failing store: operational error (exit 4)" \
		grep -q "exit=4 " <<<"$line"
	e2e_check "$mode with a failing store: no descriptor left open ($line)" \
		test "$(sed 's/.*fds_before=\([0-9]*\).*/\1/' <<<"$line")" = \
		"$(sed 's/.*fds_after=\([0-9]*\).*/\1/' <<<"$line")"
done
e2e_check "a plain pass and one without a store leave none either" \
	test "$(grep -c '^\(plain\|nostate\) exit=0 ' <<<"$out")" = 2
ms_expect_eq "pass_fds: no pass leaked" "$rc" 0

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "every stop of a pass undoes what it set up"
