#!/bin/bash
# tests/bench/map-xfs.sh - mapping benchmark 2: owners and paths of 10k bad ranges on XFS with
# rmapbt.
#
# XFS (mkfs.xfs -m rmapbt=1) on a loop device over a SIZE (default 4G) file on disk, FILES
# (default 100000) files of 512 B .. 100 KB, NBAD (default 10000) bad 4 KiB blocks, one in
# the data of each of NBAD random files, given as kernel log lines:
#   mediascan map --kernel-log BLOCKS.log >F
# GETFSMAP answers the owners (nearby ranges share one query: "batched"), one directory walk
# names every inode. Reference: one walk of the same tree by find(1), and the same mapping
# with a single range (fixed costs + a walk that stops at the first hit). Checks every range
# got its file. Goal: well under a second on top of one directory walk.
# Needs root. Environment: SIZE, FILES, NBAD, ROUNDS, MEDIASCAN, BENCH_DIR.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/map-lib.sh"
bench_init
for t in filefrag perl shuf; do
	command -v "$t" >/dev/null || { echo "missing $t" >&2; exit 1; }
done

SIZE=${SIZE:-4G}
FILES=${FILES:-100000}
NBAD=${NBAD:-10000}

img=$BENCH_TMP/xfs.img
truncate -s "$SIZE" "$img"
loop_add "$img"
dev=$LOOP
mkfs.xfs -q -f -m rmapbt=1 "$dev"
mnt=$BENCH_TMP/mnt
mkdir -p "$mnt"
mount "$dev" "$mnt"
BENCH_MOUNTS=("$mnt" "${BENCH_MOUNTS[@]}")
t0=$(date +%s.%N)
populate "$mnt" "$FILES"
echo "# populated $FILES files in $(calc "$(date +%s.%N) - $t0" 1) s" >&2
pick_blocks "$mnt" "$NBAD" 4096 "$BENCH_TMP/blocks"
nbad=$(wc -l <"$BENCH_TMP/blocks")
awk -v d="$(basename "$dev")" '{ printf "I/O error, dev %s, sector %d op 0x0:(READ)\n", d, $1 * 8 }' \
	"$BENCH_TMP/blocks" >"$BENCH_TMP/blocks.log"
head -1 "$BENCH_TMP/blocks.log" >"$BENCH_TMP/one.log"

ms_run() { "$MS" map --kernel-log "$BENCH_TMP/blocks.log" >"$BENCH_TMP/ms.txt" || [ $? = 1 ]; }
one_run() { "$MS" map --kernel-log "$BENCH_TMP/one.log" >/dev/null || [ $? = 1 ]; }
walk_run() { find "$mnt" >/dev/null; }
time_of() {
	local s e
	s=$(date +%s.%N)
	"$1"
	e=$(date +%s.%N)
	calc "$e - $s" 4
}

ms_run
"$MS" map --kernel-log "$BENCH_TMP/blocks.log" --json "$BENCH_TMP/ms.json" -q || :
walk_run
for r in $(seq 1 "$ROUNDS"); do
	echo "ms $(time_of ms_run)"
	echo "one $(time_of one_run)"
	echo "walk $(time_of walk_run)"
done >"$BENCH_TMP/times"
files=$(jq '[.media_errors[] | select(.owners[0].type == "file" and (.owners[0].paths | length) > 0)] | length' \
	"$BENCH_TMP/ms.json")
ms_med=$(awk '$1 == "ms" { print $2 }' "$BENCH_TMP/times" | median)
one_med=$(awk '$1 == "one" { print $2 }' "$BENCH_TMP/times" | median)
walk_med=$(awk '$1 == "walk" { print $2 }' "$BENCH_TMP/times" | median)
bench_header "mapping benchmark 2: XFS rmapbt=1, $FILES files, $nbad bad 4 KiB blocks in file data, $SIZE loop over a file on disk, rounds=$ROUNDS, warm cache"
printf '%-52s %10s\n' "" "time (s)"
printf '%-52s %10s\n' "mediascan map --kernel-log ($nbad lines)" "$ms_med"
printf '%-52s %10s\n' "mediascan map --kernel-log (1 line)" "$one_med"
printf '%-52s %10s\n' "find MNT (one walk of the tree, reference)" "$walk_med"
printf '%-52s %10s\n' "$nbad ranges on top of one walk (first - find)" "$(calc "$ms_med - $walk_med")"
echo "# ranges mapped to a file with its path: $files of $nbad"
[ "$files" = "$nbad" ]
