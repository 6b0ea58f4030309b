#!/bin/bash
# tests/bench/map-many.sh - the per-answer cost of `mediascan map` (issue 31's map speed, on
# the host: no dm needed for the owners, paths and JSON): XFS (rmapbt, reflink) on a loop
# device, FILES (default 4000) small files of which every other one is reflinked into a copy
# (its blocks have two owners, as a thin block shared with a snapshot), NBAD (default 2000)
# bad 4 KiB blocks in file data given as kernel-log lines:
#   mediascan map --kernel-log BLOCKS.log --json F
# and the same with one line (the fixed cost): per answer past the first = (all - one) / (NBAD - 1).
# MEDIASCAN_ALT=path: an older binary, its row beside (and its JSON compared with jq -S).
# Needs root (loop devices). Environment: SIZE (default 1G), FILES, NBAD, ROUNDS (default 5),
# MEDIASCAN, MEDIASCAN_ALT, BENCH_DIR.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/map-lib.sh"
bench_init
for t in filefrag perl shuf; do
	command -v "$t" >/dev/null || { echo "missing $t" >&2; exit 1; }
done

SIZE=${SIZE:-1G}
FILES=${FILES:-4000}
NBAD=${NBAD:-2000}

img=$BENCH_TMP/xfs.img
truncate -s "$SIZE" "$img"
loop_add "$img"
dev=$LOOP
mkfs.xfs -q -f -m rmapbt=1,reflink=1 "$dev"
mnt=$BENCH_TMP/mnt
mkdir -p "$mnt"
mount "$dev" "$mnt"
BENCH_MOUNTS=("$mnt" "${BENCH_MOUNTS[@]}")
populate "$mnt" "$FILES"
# every other file shared with a copy (two owners per block, as a thin snapshot's)
(cd "$mnt" && find pop -type f | sort | awk 'NR % 2' | while read -r f; do
	mkdir -p "snap/$(dirname "$f")"
	cp --reflink=always "$f" "snap/$f"
done)
sync
pick_blocks "$mnt" "$NBAD" 4096 "$BENCH_TMP/blocks"
nbad=$(wc -l <"$BENCH_TMP/blocks")
awk -v d="$(basename "$dev")" '{ printf "I/O error, dev %s, sector %d op 0x0:(READ)\n", d, $1 * 8 }' \
	"$BENCH_TMP/blocks" >"$BENCH_TMP/blocks.log"
head -n 1 "$BENCH_TMP/blocks.log" >"$BENCH_TMP/one.log"

# time_map BIN LOG OUT: seconds of one map with --json (exit 1 = damage found: expected)
time_map() {
	local s e
	s=$(date +%s.%N)
	"$1" map --kernel-log "$2" --json "$3" >/dev/null || [ $? = 1 ]
	e=$(date +%s.%N)
	calc "$e - $s" 4
}
# row NAME BIN: the table's row of one binary (warm cache: one untimed run first)
row() {
	local name=$1 bin=$2 all=() one=() a o
	time_map "$bin" "$BENCH_TMP/blocks.log" "$BENCH_TMP/$name.json" >/dev/null
	for r in $(seq 1 "$ROUNDS"); do
		all+=("$(time_map "$bin" "$BENCH_TMP/blocks.log" "$BENCH_TMP/$name.json")")
		one+=("$(time_map "$bin" "$BENCH_TMP/one.log" "$BENCH_TMP/$name-one.json")")
	done
	a=$(printf '%s\n' "${all[@]}" | median)
	o=$(printf '%s\n' "${one[@]}" | median)
	printf '| %s | %s | %s | %s | %s | %s |\n' "$3" "$a" "$o" \
		"$(calc "($a - $o) * 1000 / ($nbad - 1)" 3)" \
		"$(jq '.media_errors | length' "$BENCH_TMP/$name.json")" \
		"$(jq '[.media_errors[].owners[]] | length' "$BENCH_TMP/$name.json")"
}

bench_header "map of $nbad bad blocks in file data: XFS rmapbt+reflink, $FILES files (half reflinked), $SIZE loop, rounds=$ROUNDS (median), warm cache"
echo
echo "| binary | map s | one line s | ms per answer past the first | answers | owners |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
row new "$MS" "mediascan $(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
if [ -n "${MEDIASCAN_ALT:-}" ]; then
	cp "$MEDIASCAN_ALT" "$BENCH_TMP/alt"
	row alt "$BENCH_TMP/alt" "$MEDIASCAN_ALT"
	# the same answer, field for field (the version string aside)
	if cmp -s <(jq -S 'del(.version)' "$BENCH_TMP/new.json") <(jq -S 'del(.version)' "$BENCH_TMP/alt.json"); then
		echo "# JSON answers identical (jq -S, version aside)"
	else
		echo "# JSON answers DIFFER" >&2
		exit 1
	fi
fi
