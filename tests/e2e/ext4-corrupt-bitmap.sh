#!/bin/bash
# ext4-corrupt-bitmap.sh - planning survives corrupt metadata on ext4 (issue 12): the block
# bitmap of block group 1 overwritten with random bytes (its checksum fails) before mounting.
# GETFSMAP over that group fails with EBADMSG; the scan must read group 1 whole, say so in
# plan_notes[] ("block group 1"), plan the other groups as usual, and name a damaged file in
# group 2. Nothing is written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
for tool in mkfs.ext4 debugfs dumpe2fs; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed"
done
e2e_setup 512
mkfs.ext4 -q -F -b 4096 -O ^flex_bg "$E2E_LOOP" || e2e_hard_error "mkfs.ext4 failed"
e2e_mount || e2e_hard_error "mount failed"
m=$E2E_MNT
for d in $(seq 0 15); do
	mkdir "$m/d$d"
	for i in $(seq 1 50); do printf 'file %s %s\n' "$d" "$i" >"$m/d$d/f$i"; done
	head -c 262144 /dev/urandom >"$m/d$d/big"
done
sync
bs=4096
bpg=$(dumpe2fs -h "$E2E_LOOP" 2>/dev/null | awk -F: '/^Blocks per group/ { print $2 + 0 }')
group_bytes=$((bpg * bs))
in2=
for d in $(seq 0 15); do
	p=$(ms_first_phys "$m/d$d/big")
	[ $((p / group_bytes)) = 2 ] && [ -z "$in2" ] && in2=$m/d$d/big && p2=$p
done
[ -n "$in2" ] || e2e_hard_error "no big file in block group 2"
e2e_umount
bitmap=$(dumpe2fs "$E2E_LOOP" 2>/dev/null | awk '/^Group 1:/ { f = 1 } f && /Block bitmap at/ {
	sub(/.*Block bitmap at /, ""); print $1 + 0; exit }')
[ -n "$bitmap" ] || e2e_hard_error "no block bitmap for group 1"
e2e_log "group size $group_bytes; group 1's block bitmap at block $bitmap; $in2 at $p2"
head -c 4096 /dev/urandom | dd of="$E2E_IMG" bs=4096 seek="$bitmap" conv=notrunc status=none ||
	e2e_hard_error "cannot overwrite the bitmap"
e2e_drop_caches
e2e_readonly on
h=$(e2e_hash)
e2e_mount -o ro,noload || e2e_hard_error "ro mount failed"
if xfs_io -c 'fsmap' "$m" >/dev/null 2>&1; then
	e2e_hard_error "GETFSMAP still works: the corruption did not take"
fi
e2e_bad_add $((p2 + 4096)) 512
out=$E2E_DIR/report.json
ms_scan "$out" "$m" --merge-gap 0 --queue-depth 1
e2e_log "plan notes: $(jq -c '.plan_notes' "$out")"
ms_expect_eq "exit status 1" "$MS_RC" 1
ms_expect_eq "one plan note: block group 1 read whole" \
	"$(ms_jq "$out" '[.plan_notes[] | "\(.object) \(.group) \(.offset) \(.length)"] | join(",")')" \
	"block group 1 1 $group_bytes $group_bytes"
e2e_check "the note says why" grep -Eq "Bad message|Structure needs cleaning" <<<"$(ms_jq "$out" '.plan_notes[0].error')"
ms_expect_eq "file in group 2 named" \
	"$(ms_jq "$out" ".damaged_files[] | select(.paths == [\"$in2\"]) | .ranges[0].offset")" 4096
ms_expect_eq "scanned all it planned" "$(ms_jq "$out" '.scanned_bytes == .planned_bytes')" true
e2e_log "write attempts (the kernel's error records): $(e2e_writes)"
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "ext4 block group with a corrupt bitmap read whole"
