#!/bin/bash
# tests/bench/rss.sh - benchmark 5: peak RSS does not grow with the number of extents.
#
# Two XFS filesystems (mkfs.xfs -m rmapbt=1,reflink=1, loop over a tmpfs file, SIZE each,
# default 2G): "few" holds FEW_FILES (default 2000) 64 KiB files (~2k extents); "many" holds
# one file written with every other 4 KiB block, MANY_EXTENTS (default 200000) pwrites fed
# on stdin to a single xfs_io process, so each block is its own extent. Then
#   /usr/bin/time -f %M mediascan scan MOUNT --no-state -q --progress none --json F
# ROUNDS (5) times each, alternating; prints planned bytes, extents (GETFSMAP records, from
# xfs_io fsmap) and the median peak RSS. Goal: the two close. Needs root.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init

SIZE=${SIZE:-2G}
FEW_FILES=${FEW_FILES:-2000}
MANY_EXTENTS=${MANY_EXTENTS:-200000}

tmpfs_add "$BENCH_TMP/tmpfs" "$(( 2 * $(size_bytes "$SIZE") + 64 * 1048576 ))"
declare -A DEV MNT
for k in few many; do
	truncate -s "$SIZE" "$BENCH_TMP/tmpfs/$k.img"
	loop_add "$BENCH_TMP/tmpfs/$k.img"
	DEV[$k]=$LOOP
	mkfs.xfs -q -m rmapbt=1,reflink=1 "${DEV[$k]}"
	MNT[$k]=$BENCH_TMP/mnt-$k
	mkdir -p "${MNT[$k]}"
	mount "${DEV[$k]}" "${MNT[$k]}"
	BENCH_MOUNTS=("${MNT[$k]}" "${BENCH_MOUNTS[@]}")
done
t=$(date +%s.%N)
for i in $(seq 1 "$FEW_FILES"); do
	echo "open -f ${MNT[few]}/f$i"
	echo "pwrite -q -b 64k 0 64k"
	echo "close"
done | xfs_io
mkdir -p "${MNT[many]}/d"
awk -v n="$MANY_EXTENTS" 'BEGIN { for (i = 0; i < n; i++) printf "pwrite -q %d 4096\n", i * 8192 }' |
	xfs_io -f "${MNT[many]}/d/frag"
sync
setup_s=$(calc "$(date +%s.%N) - $t" 1)

bench_header "benchmark 5: peak RSS vs number of extents (XFS $SIZE on loop over tmpfs; setup took ${setup_s}s)"
echo
for r in $(seq 1 "$ROUNDS"); do
	order="few many"
	[ $((r % 2)) = 0 ] && order="many few"
	for k in $order; do
		/usr/bin/time -f "%M %e" -o "$BENCH_TMP/$k.time" "$MS" scan "${MNT[$k]}" --no-state -q \
			--progress none --json "$BENCH_TMP/$k.json" || true
		cat "$BENCH_TMP/$k.time" >>"$BENCH_TMP/$k.rows"
	done
done
echo "| filesystem | allocated extents (GETFSMAP records, free space excluded) | planned MiB | peak RSS KiB (median) | wall s (median) | RSS per round |"
echo "| --- | ---: | ---: | ---: | ---: | --- |"
for k in few many; do
	recs=$(xfs_io -c 'fsmap' "${MNT[$k]}" | grep -v 'free space' | grep -c '^[[:space:]]*[0-9]*:' || true)
	printf '| %s | %s | %s | %s | %s | %s |\n' "$k" "$recs" \
		"$(jq '.planned_bytes / 1048576 | floor' "$BENCH_TMP/$k.json")" \
		"$(awk '{ print $1 }' "$BENCH_TMP/$k.rows" | median)" \
		"$(awk '{ print $2 }' "$BENCH_TMP/$k.rows" | median)" \
		"$(awk '{ print $1 }' "$BENCH_TMP/$k.rows" | tr '\n' ' ')"
done
echo
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
