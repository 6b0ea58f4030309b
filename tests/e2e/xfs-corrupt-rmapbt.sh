#!/bin/bash
# xfs-corrupt-rmapbt.sh - planning survives corrupt metadata (issue 12): XFS with rmapbt and
# 4 AGs, the root block of AG 1's reverse-mapping btree zeroed before mounting. GETFSMAP over
# AG 1 fails with EUCLEAN ("Structure needs cleaning"); the scan must still read the other
# AGs through the space map, read AG 1 whole from the geometry, say so (plan_notes[] with the
# AG and the error, and in the human report), find a bad sector in a file of AG 1 and one in
# AG 2 (named), and write nothing.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v xfs_db >/dev/null || e2e_skip "xfs_db is not installed"
e2e_setup 512
mkfs.xfs -q -f -d agcount=4 -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
m=$E2E_MNT
# New directories rotate over the AGs: files in every AG.
for d in $(seq 0 15); do
	mkdir "$m/d$d"
	for i in $(seq 1 200); do printf 'file %s %s\n' "$d" "$i" >"$m/d$d/f$i"; done
	xfs_io -f -c "pwrite -S 0x$((d + 16)) 0 256k" "$m/d$d/big" >/dev/null
done
sync
agblocks=$(xfs_db -r -c 'sb 0' -c 'p agblocks' "$E2E_LOOP" | awk '{ print $3 }')
bs=$(xfs_db -r -c 'sb 0' -c 'p blocksize' "$E2E_LOOP" | awk '{ print $3 }')
ag_bytes=$((agblocks * bs))
# A big file in AG 1 and one in AG 2.
in1= in2=
for d in $(seq 0 15); do
	p=$(ms_first_phys "$m/d$d/big")
	ag=$((p / ag_bytes))
	[ "$ag" = 1 ] && [ -z "$in1" ] && in1=$m/d$d/big && p1=$p
	[ "$ag" = 2 ] && [ -z "$in2" ] && in2=$m/d$d/big && p2=$p
done
[ -n "$in1" ] && [ -n "$in2" ] || e2e_hard_error "no big file in AG 1 or AG 2"
e2e_umount
rmaproot=$(xfs_db -r -c 'agf 1' -c 'p rmaproot' "$E2E_LOOP" | awk '{ print $3 }')
[ -n "$rmaproot" ] || e2e_hard_error "no rmaproot in AGF 1"
root_off=$(((agblocks + rmaproot) * bs))
e2e_log "AG size $ag_bytes, AG 1 rmapbt root at $root_off; $in1 at $p1, $in2 at $p2"
dd if=/dev/zero of="$E2E_IMG" bs="$bs" seek=$((root_off / bs)) count=1 conv=notrunc \
	status=none || e2e_hard_error "cannot zero the rmapbt root"
e2e_drop_caches
e2e_readonly on
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
if xfs_io -c 'fsmap -d' "$m" >/dev/null 2>&1; then
	e2e_hard_error "GETFSMAP still works: the corruption did not take"
fi

e2e_bad_add $((p1 + 8192)) 512
e2e_bad_add $((p2 + 4096)) 512
out=$E2E_DIR/report.json
e2e_reset_counters
ms_scan "$out" "$m" --merge-gap 0 --queue-depth 1
ms_expect_eq "exit status 1 (media errors; the plan did not stop the pass)" "$MS_RC" 1
ms_expect_eq "complete" "$(ms_jq "$out" .complete)" true
ms_expect_eq "one plan note: AG 1 read whole" \
	"$(ms_jq "$out" '[.plan_notes[] | "\(.group) \(.offset) \(.length)"] | join(",")')" \
	"1 $ag_bytes $ag_bytes"
ms_expect_eq "the note says why" "$(ms_jq "$out" '.plan_notes[0].error')" \
	"Structure needs cleaning"
ms_expect_eq "the note names the object" "$(ms_jq "$out" '.plan_notes[0].object')" "AG 1"
e2e_log "AG 1 health after the refusal: $(jq -c '.plan_notes[0].health' "$out")"
ms_expect_eq "the kernel's own verdict on AG 1 is carried" \
	"$(ms_jq "$out" '.plan_notes[0].health.sick | index("rmapbt") != null')" true
ms_expect_eq "two media errors" "$(ms_jq "$out" '.media_errors | length')" 2
ms_expect_eq "error in AG 1 found at its offset" \
	"$(ms_jq "$out" ".media_errors[] | select(.offset == $((p1 + 8192))) | .length")" 512
ms_expect_eq "file in AG 2 named" \
	"$(ms_jq "$out" ".damaged_files[] | select(.paths == [\"$in2\"]) | .ranges[0].offset")" 4096
ms_expect_eq "file in AG 1 named all the same (inode sweep where GETFSMAP fails)" \
	"$(ms_jq "$out" ".damaged_files[] | select(.paths == [\"$in1\"]) | .ranges[0].offset")" 8192
planned=$(ms_jq "$out" .planned_bytes)
[ "$planned" -ge "$ag_bytes" ] || e2e_fail "planned $planned < one AG ($ag_bytes)"
[ "$planned" -lt $((2 * ag_bytes)) ] || e2e_fail "planned $planned: more than AG 1 read whole"
ms_expect_eq "scanned all it planned" "$(ms_jq "$out" .scanned_bytes)" "$planned"

# The human report says which group and why.
rc=0
"$MEDIASCAN" scan "$m" --progress none --no-state --merge-gap 0 >"$E2E_DIR/human.txt" 2>&1 || rc=$?
e2e_log "human scan -> exit $rc"
grep -q "AG 1.*read whole.*Structure needs cleaning" "$E2E_DIR/human.txt" ||
	e2e_fail "human report does not name AG 1: $(cat "$E2E_DIR/human.txt")"
cat "$E2E_DIR/human.txt"

# patrol --check (run by the unit before start) plans the target: it must not fail either.
conf=$E2E_DIR/patrol.conf
printf '[global]\nstate_dir = %s\nwindow = 1d\n[target a]\npath = %s\n' "$E2E_DIR/pstate" "$m" \
	>"$conf"
rc=0
pout=$("$MEDIASCAN" patrol --config "$conf" --check 2>&1) || rc=$?
e2e_log "patrol --check -> exit $rc: $pout"
ms_expect_eq "patrol --check passes" "$rc" 0

e2e_umount
e2e_assert_unchanged "$h"
e2e_pass
