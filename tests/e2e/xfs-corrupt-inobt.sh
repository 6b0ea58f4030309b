#!/bin/bash
# xfs-corrupt-inobt.sh - the inode sweep survives a corrupt inode btree (issue 12): XFS without
# rmapbt (owners come from INUMBERS + BULKSTAT + FIEMAP), 4 AGs, the root block of AG 1's
# inode btree zeroed before mounting. INUMBERS and BULKSTAT fail in AG 1 with EUCLEAN; the
# sweep must skip that AG, say so in a note, and still name a damaged file in AG 2.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v xfs_db >/dev/null || e2e_skip "xfs_db is not installed"
e2e_setup 512
mkfs.xfs -q -f -d agcount=4 -m rmapbt=0,reflink=0 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
m=$E2E_MNT
for d in 0 1 2 3 4 5 6 7; do
	mkdir "$m/d$d"
	for i in $(seq 1 100); do printf 'file %s %s\n' "$d" "$i" >"$m/d$d/f$i"; done
	xfs_io -f -c "pwrite -S 0x5$d 0 256k" "$m/d$d/big" >/dev/null
done
sync
agblocks=$(xfs_db -r -c 'sb 0' -c 'p agblocks' "$E2E_LOOP" | awk '{ print $3 }')
bs=$(xfs_db -r -c 'sb 0' -c 'p blocksize' "$E2E_LOOP" | awk '{ print $3 }')
ag_bytes=$((agblocks * bs))
in1= in2=
for d in 0 1 2 3 4 5 6 7; do
	p=$(ms_first_phys "$m/d$d/big")
	ino=$(stat -c %i "$m/d$d/big")
	[ $((p / ag_bytes)) = 1 ] && [ -z "$in1" ] && in1=$m/d$d/big
	[ $((p / ag_bytes)) = 2 ] && [ -z "$in2" ] && in2=$m/d$d/big && p2=$p
done
[ -n "$in1" ] && [ -n "$in2" ] || e2e_hard_error "no big file in AG 1 or AG 2"
e2e_umount
root=$(xfs_db -r -c 'agi 1' -c 'p root' "$E2E_LOOP" | awk '{ print $3 }')
root_off=$(((agblocks + root) * bs))
e2e_log "AG 1 inobt root at $root_off; $in2 at $p2"
dd if=/dev/zero of="$E2E_IMG" bs="$bs" seek=$((root_off / bs)) count=1 conv=notrunc \
	status=none || e2e_hard_error "cannot zero the inobt root"
e2e_drop_caches
e2e_readonly on
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
e2e_reset_counters
e2e_bad_add $((p2 + 4096)) 512
out=$E2E_DIR/report.json
ms_scan "$out" "$m" --merge-gap 0 --queue-depth 1
e2e_log "notes: $(jq -c '.notes' "$out")"
ms_expect_eq "exit status 1" "$MS_RC" 1
ms_expect_eq "file in AG 2 named though AG 1's inodes cannot be listed" \
	"$(ms_jq "$out" ".damaged_files[] | select(.paths == [\"$in2\"]) | .ranges[0].offset")" 4096
ms_expect_eq "a note says AG 1 was skipped" \
	"$(ms_jq "$out" '[.notes[] | select(test("could not list the inodes of 1 AG"))] | length')" 1
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "inode sweep goes on past a corrupt inode btree"
