#!/bin/bash
# ext4-unlinked.sh - a file unlinked while still open owns blocks no directory reaches: a bad
# block in it is reported by inode number and generation ("reached": false), never dropped.
# The filesystem stays mounted read-write (the file must stay open), so no image hash here;
# mediascan itself only reads.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v mkfs.ext4 >/dev/null || e2e_skip "mkfs.ext4 is not installed"
e2e_setup 256
mkfs.ext4 -q -F -b 4096 "$E2E_LOOP" || e2e_hard_error "mkfs.ext4 failed"
e2e_mount || e2e_hard_error "mount failed"
m=$E2E_MNT
head -c 65536 /dev/urandom >"$m/going"
head -c 65536 /dev/urandom >"$m/staying"
sync
gone=$(ms_first_phys "$m/going")
ino=$(stat -c %i "$m/going")
exec 7<"$m/going"			# keep it open
rm "$m/going"
sync
gen=$(debugfs -R "stat <$ino>" "$E2E_LOOP" 2>/dev/null | awk '/Generation:/ { print $2 }')
e2e_bad_add $((gone + 4096)) 512
out=$E2E_DIR/report.json
ms_scan "$out" "$m" --queue-depth 1
ms_expect_eq "exit status 1" "$MS_RC" 1
ms_expect_eq "the unlinked file: by inode and generation, not reached" \
	"$(ms_jq "$out" '.damaged_files[0] | "\(.inode) \(.generation) \(.reached) \(.paths | length)"')" \
	"$ino $gen false 0"
e2e_check "its note says unlinked but open" \
	grep -q "unlinked but still open" <<<"$(ms_jq "$out" '.damaged_files[0].note')"
ms_expect_eq "the range in the file" "$(ms_jq "$out" '.damaged_files[0].ranges[0] | "\(.offset)+\(.length)"')" \
	"4096+512"
human=$("$MEDIASCAN" scan "$m" --progress none --no-state --queue-depth 1 2>&1 || true)
e2e_check "human: inode and generation" grep -q "inode $ino generation $gen" <<<"$human"
exec 7<&-
e2e_pass "unlinked but open: reported by inode and generation"
