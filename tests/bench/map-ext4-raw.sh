#!/bin/bash
# tests/bench/map-ext4-raw.sh - mapping a VM disk's unmounted ext4 read from the raw device
# (libext2fs, no GETFSMAP): NBAD (default 2000) bad sectors spread over a SIZE (default 2T,
# sparse) ext4 on a loop device nothing mounts, given as kernel-log lines:
#   mediascan map --kernel-log BLOCKS.log --json F
# Each range's owners come from the static layout (every group's descriptors, bitmaps and
# inode tables) and one block bitmap; the layout is read once per target, not per range.
# MEDIASCAN_ALT=path: an older binary, its row beside. Needs root (loop devices).
# Environment: SIZE, NBAD, ROUNDS (default 3), MEDIASCAN, MEDIASCAN_ALT, BENCH_DIR.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init

SIZE=${SIZE:-2T}
NBAD=${NBAD:-2000}
ROUNDS=${ROUNDS:-3}

img=$BENCH_TMP/raw.img
truncate -s "$SIZE" "$img"
mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 "$img"
loop_add "$img"
sectors=$(($(size_bytes "$SIZE") / 512))
awk -v d="$(basename "$LOOP")" -v n="$NBAD" -v s="$sectors" 'BEGIN {
	for (i = 0; i < n; i++)
		printf "I/O error, dev %s, sector %.0f op 0x0:(READ)\n", d, int(i * (s / n) / 8) * 8 }' \
	>"$BENCH_TMP/blocks.log"
groups=$(dumpe2fs -h "$img" 2>/dev/null | awk -F: '/^Block count/ { b = $2 } /^Blocks per group/ { g = $2 } END { printf "%d", (b + g - 1) / g }')

time_map() {
	local bin=$1 s e
	s=$(date +%s.%N)
	"$bin" map --kernel-log "$BENCH_TMP/blocks.log" --json "$BENCH_TMP/out.json" >/dev/null || [ $? = 1 ]
	e=$(date +%s.%N)
	calc "$e - $s" 3
}
row() {
	local name=$1 bin=$2 t=()
	for r in $(seq 1 "$ROUNDS"); do t+=("$(time_map "$bin")"); done
	n=$(jq '.media_errors | length' "$BENCH_TMP/out.json")
	printf '| %s | %s | %s |\n' "$name" "$(printf '%s\n' "${t[@]}" | median)" "$n"
}

bench_header "map of $NBAD sectors of an unmounted ext4 read raw: $SIZE (sparse), $groups block groups, loop device, rounds=$ROUNDS (median)"
echo
echo "| binary | map s | answers |"
echo "| --- | ---: | ---: |"
row "mediascan $(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')" "$MS"
if [ -n "${MEDIASCAN_ALT:-}" ]; then
	cp "$MEDIASCAN_ALT" "$BENCH_TMP/alt"
	row "$MEDIASCAN_ALT" "$BENCH_TMP/alt"
fi
