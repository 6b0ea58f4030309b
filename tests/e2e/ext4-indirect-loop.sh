#!/bin/bash
# ext4-indirect-loop.sh - a cross-linked indirect tree (issue 12): ext4 without extents, the
# triple-indirect pointer of /victim set (debugfs set_inode_field) to block Y1 of another file,
# whose 1024 pointers all name Y2, whose 1024 pointers all name Y3, whose 1024 pointers all
# name X, the data block of /filler, with a bad sector in X. Walking the tree naively visits
# 2^30 "data blocks" X, each one a match for the bad range (a hang, then out of memory). The
# owner index must stop at the repeated block, name the owners (/filler, whose data block it
# is, and /victim's damaged block map) and finish in seconds within bounded memory, writing
# nothing.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
for tool in mkfs.ext4 debugfs python3; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed"
done
e2e_setup 128
mkfs.ext4 -q -F -b 4096 -O ^extent,^flex_bg,^64bit "$E2E_LOOP" || e2e_hard_error "mkfs.ext4 failed"
e2e_mount || e2e_hard_error "mount failed"
m=$E2E_MNT
head -c 65536 /dev/urandom >"$m/victim"
head -c 4096 /dev/urandom >"$m/filler"
for y in y1 y2 y3; do head -c 4096 /dev/urandom >"$m/$y"; done
for i in $(seq 1 50); do head -c 8192 /dev/urandom >"$m/other$i"; done
sync
e2e_umount
bs=4096
x=$(debugfs -R "bmap /filler 0" "$E2E_LOOP" 2>/dev/null)
[ -n "$x" ] && [ "$x" != 0 ] || e2e_hard_error "no block for /filler"
y1=$(debugfs -R "bmap /y1 0" "$E2E_LOOP" 2>/dev/null)
y2=$(debugfs -R "bmap /y2 0" "$E2E_LOOP" 2>/dev/null)
y3=$(debugfs -R "bmap /y3 0" "$E2E_LOOP" 2>/dev/null)
python3 - "$E2E_IMG" "$bs" "$y1:$y2" "$y2:$y3" "$y3:$x" <<'PY' || e2e_hard_error "cannot write the tree"
import struct, sys
img, bs = sys.argv[1], int(sys.argv[2])
with open(img, "r+b") as f:
    for pair in sys.argv[3:]:
        at, to = (int(v) for v in pair.split(":"))
        f.seek(at * bs)
        f.write(struct.pack("<I", to) * (bs // 4))
PY
debugfs -w -R "set_inode_field /victim block[TIND] $y1" "$E2E_LOOP" >/dev/null 2>&1 ||
	e2e_hard_error "debugfs set_inode_field failed"
e2e_log "/victim's triple-indirect block -> $y1 -> $y2 -> $y3 -> 1024 x $x (/filler's block)"
e2e_drop_caches
e2e_readonly on
h=$(e2e_hash)
e2e_mount -o ro,noload || e2e_hard_error "ro mount failed"
e2e_reset_counters
e2e_bad_add $((x * bs)) 512

out=$E2E_DIR/report.json
rc=0
start=$(date +%s)
# 2 GiB of address space and 120 s are plenty for 50 files; a walk of 2^30 matches is not.
(ulimit -v 2097152; exec timeout -s KILL 120 "$MEDIASCAN" scan "$m" --json "$out" \
	--progress none -q --no-state --merge-gap 0 --queue-depth 1) || rc=$?
took=$(($(date +%s) - start))
e2e_log "scan -> exit $rc in ${took}s"
[ "$rc" -lt 128 ] || e2e_fail "mediascan was killed (signal $((rc - 128))) after ${took}s"
ms_expect_eq "exit status 1" "$rc" 1
[ "$took" -lt 60 ] || e2e_fail "took ${took}s"
ms_expect_eq "the bad block: /filler's data" \
	"$(ms_jq "$out" ".damaged_files[] | select(.paths == [\"$m/filler\"]) | .ranges[0].offset")" 0
e2e_log "owners: $(jq -c '[.media_errors[].owners[] | {type, metadata, what_is_lost, note, paths}]' "$out")"
ms_expect_eq "the note says a block map loops" \
	"$(ms_jq "$out" '[.notes[] | select(test("loops or is cross-linked"))] | length')" 1
ms_expect_eq "owners bounded" \
	"$(ms_jq "$out" '[.media_errors[].owners[]] | length < 10')" true

# ext4 records the errors it meets (a block it cannot read) in its superblock even on a
# read-only mount: the fault disk refuses that write, and the image hash proves nothing was
# written. (A read-only block device would stop the kernel trying, but BLKROSET outlives the
# loop device and would hit the next test that gets it.)
e2e_log "write attempts (the kernel's error records): $(e2e_writes)"
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "a looping indirect tree is walked once"
