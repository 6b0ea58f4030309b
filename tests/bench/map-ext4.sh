#!/bin/bash
# tests/bench/map-ext4.sh - mapping benchmark 1: 1000 bad blocks on ext4, mediascan against
# debugfs.
#
# ext4 (mkfs.ext4 -b 4096) on a loop device over a SIZE (default 4G) file on disk, FILES
# (default 100000) files of 512 B .. 100 KB. NBAD (default 1000) distinct 4 KiB blocks, one
# inside the data of each of NBAD random files. Both tools answer "which files own these
# blocks, and where are they":
#   mediascan map --kernel-log BLOCKS.log >F           (one "I/O error, dev loopN, sector S"
#                                                        line per block; text like debugfs's,
#                                                        and a row with --json F too)
#   debugfs -R "icheck B1 .. B1000" DEV; debugfs -R "ncheck I1 .. In" DEV
# ROUNDS runs each, order alternating, page cache warm (both read metadata through it); then
# one cold run each (drop_caches before). Checks the answers are the same (every block: the
# same inode; every inode: the same set of paths). Goal: mediascan <= 0.2 of debugfs's time.
# Needs root. Environment: SIZE, FILES, NBAD, ROUNDS, MEDIASCAN, BENCH_DIR.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/map-lib.sh"
bench_init
for t in debugfs filefrag mkfs.ext4 perl shuf; do
	command -v "$t" >/dev/null || { echo "missing $t" >&2; exit 1; }
done

SIZE=${SIZE:-4G}
FILES=${FILES:-100000}
NBAD=${NBAD:-1000}

img=$BENCH_TMP/ext4.img
truncate -s "$SIZE" "$img"
loop_add "$img"
dev=$LOOP
mkfs.ext4 -q -F -b 4096 "$dev"
mnt=$BENCH_TMP/mnt
mkdir -p "$mnt"
mount "$dev" "$mnt"
BENCH_MOUNTS=("$mnt" "${BENCH_MOUNTS[@]}")
t0=$(date +%s.%N)
populate "$mnt" "$FILES"
echo "# populated $FILES files in $(calc "$(date +%s.%N) - $t0" 1) s" >&2
pick_blocks "$mnt" "$NBAD" 4096 "$BENCH_TMP/blocks"
nbad=$(wc -l <"$BENCH_TMP/blocks")
awk -v d="$(basename "$dev")" '{ printf "I/O error, dev %s, sector %d op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2\n", d, $1 * 8 }' \
	"$BENCH_TMP/blocks" >"$BENCH_TMP/blocks.log"

ms_run() {
	"$MS" map --kernel-log "$BENCH_TMP/blocks.log" >"$BENCH_TMP/ms.txt" || [ $? = 1 ]
}
ms_json_run() {
	"$MS" map --kernel-log "$BENCH_TMP/blocks.log" --json "$BENCH_TMP/ms.json" -q || [ $? = 1 ]
}
dbg_run() {
	debugfs -R "icheck $(tr '\n' ' ' <"$BENCH_TMP/blocks")" "$dev" >"$BENCH_TMP/icheck" 2>/dev/null
	debugfs -R "ncheck $(awk 'NR > 1 && $2 ~ /^[0-9]+$/ { print $2 }' "$BENCH_TMP/icheck" |
		sort -un | tr '\n' ' ')" "$dev" >"$BENCH_TMP/ncheck" 2>/dev/null
}
# time_of FN: wall seconds of one run
time_of() {
	local s e
	s=$(date +%s.%N)
	"$1"
	e=$(date +%s.%N)
	calc "$e - $s" 4
}

ms_run
ms_json_run
dbg_run				# warm both, and answers to compare
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then
		echo "ms $(time_of ms_run)"
		echo "dbg $(time_of dbg_run)"
		echo "msj $(time_of ms_json_run)"
	else
		echo "dbg $(time_of dbg_run)"
		echo "msj $(time_of ms_json_run)"
		echo "ms $(time_of ms_run)"
	fi
done >"$BENCH_TMP/times"
drop_caches
cold_ms=$(time_of ms_run)
drop_caches
cold_dbg=$(time_of dbg_run)

# Same answers: block -> inode, and inode -> paths (relative to the mount point).
awk 'NR > 1 && $2 ~ /^[0-9]+$/ { print $1, $2 }' "$BENCH_TMP/icheck" | sort >"$BENCH_TMP/d.blocks"
jq -r '.media_errors[] | "\(.offset / 4096 | floor) \(.owners[0].inode)"' "$BENCH_TMP/ms.json" |
	sort >"$BENCH_TMP/m.blocks"
awk 'NR > 1 { print $1, $2 }' "$BENCH_TMP/ncheck" | sort -u >"$BENCH_TMP/d.paths"
jq -r --arg m "$mnt" '.damaged_files[] | .inode as $i | .paths[] | "\($i) \(ltrimstr($m))"' \
	"$BENCH_TMP/ms.json" | sort -u >"$BENCH_TMP/m.paths"
same_blocks=no same_paths=no
cmp -s "$BENCH_TMP/d.blocks" "$BENCH_TMP/m.blocks" && same_blocks=yes
cmp -s "$BENCH_TMP/d.paths" "$BENCH_TMP/m.paths" && same_paths=yes

ms_med=$(awk '$1 == "ms" { print $2 }' "$BENCH_TMP/times" | median)
dbg_med=$(awk '$1 == "dbg" { print $2 }' "$BENCH_TMP/times" | median)
msj_med=$(awk '$1 == "msj" { print $2 }' "$BENCH_TMP/times" | median)
bench_header "mapping benchmark 1: ext4, $FILES files, $nbad bad 4 KiB blocks in file data, $SIZE loop over a file on disk, rounds=$ROUNDS"
printf '%-44s %10s %10s\n' "" "warm (s)" "cold (s)"
printf '%-44s %10s %10s\n' "mediascan map --kernel-log ($nbad lines)" "$ms_med" "$cold_ms"
printf '%-44s %10s %10s\n' "mediascan map --kernel-log --json" "$msj_med" "-"
printf '%-44s %10s %10s\n' "debugfs icheck + ncheck" "$dbg_med" "$cold_dbg"
printf '%-44s %10s %10s\n' "mediascan / debugfs (goal <= 0.2)" "$(calc "$ms_med / $dbg_med")" \
	"$(calc "$cold_ms / $cold_dbg")"
echo "# same block -> inode answers: $same_blocks ($(wc -l <"$BENCH_TMP/m.blocks") blocks); same inode -> paths: $same_paths ($(wc -l <"$BENCH_TMP/m.paths") paths)"
[ "$same_blocks" = yes ] && [ "$same_paths" = yes ] || {
	diff "$BENCH_TMP/d.blocks" "$BENCH_TMP/m.blocks" | head -5
	diff "$BENCH_TMP/d.paths" "$BENCH_TMP/m.paths" | head -5
	exit 1
}
