#!/bin/bash
# tests/bench/fs25.sh - benchmark 2: a filesystem 25% full against whole-device reads.
#
# XFS (mkfs.xfs -m rmapbt=1,reflink=1) on a loop device (--direct-io=on) over a SIZE
# (default 4G) file on disk, filled to about a quarter with FILES (default 60) files of
# 16 MiB and 2000 small files. Each round, caches dropped before every run, order
# alternating:
#   mediascan scan MOUNT --no-state -q --progress none --json F
#   badblocks -b 4096 -c 256 DEV                      (read-only, its default mode)
#   fio --name=whole --filename=DEV --ioengine=io_uring --direct=1 --rw=read --bs=1M --iodepth=16
# Prints median wall times and mediascan's time as a fraction of each whole-device read.
# Goal: close to 0.25 (the share of the device that is allocated). Needs root.
# Environment: SIZE, FILES, ROUNDS, MEDIASCAN, BENCH_DIR; MEDIASCAN_ALT and
# MEDIASCAN_ALT_ENV add a row for a second mediascan binary (see throughput.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init

SIZE=${SIZE:-4G}
FILES=${FILES:-60}

img=$BENCH_TMP/fs.img
# Written out, not sparse: a hole in the backing file would read as zeros without disk I/O
# and flatter the whole-device readers.
dd if=/dev/zero of="$img" bs=1M count=$(( $(size_bytes "$SIZE") / 1048576 )) oflag=direct status=none
loop_add "$img" --direct-io=on
dev=$LOOP
mkfs.xfs -q -m rmapbt=1,reflink=1 "$dev"
mnt=$BENCH_TMP/mnt
mkdir -p "$mnt"
mount "$dev" "$mnt"
BENCH_MOUNTS=("$mnt" "${BENCH_MOUNTS[@]}")
mkdir -p "$mnt/big" "$mnt/small"
for i in $(seq 1 "$FILES"); do
	echo "open -f $mnt/big/f$i"
	echo "pwrite -q -b 1m 0 16m"
	echo "close"
done | xfs_io
for i in $(seq 1 2000); do
	echo "open -f $mnt/small/s$i"
	echo "pwrite -q 0 $(( (i % 16 + 1) * 4096 ))"
	echo "close"
done | xfs_io
sync
used=$(df -B1 --output=used "$mnt" | tail -1)
devsize=$(blockdev --getsize64 "$dev")

bench_header "benchmark 2: XFS $SIZE on $(basename "$dev") (loop --direct-io=on over a file on disk), $(calc "$used / 1048576" 0) MiB used ($(calc "$used / $devsize" 3) of the device)"

ALT=
[ -n "${MEDIASCAN_ALT:-}" ] && ALT=alt
for r in $(seq 1 "$ROUNDS"); do
	order="ms bb fio $ALT"
	[ $((r % 2)) = 0 ] && order="$ALT fio bb ms"
	for t in $order; do
		drop_caches
		case $t in
		ms) /usr/bin/time -f "%e %U %S" -o "$BENCH_TMP/t" "$MS" scan "$mnt" --no-state -q \
			--progress none --json "$BENCH_TMP/ms.json" ;;
		bb) /usr/bin/time -f "%e %U %S" -o "$BENCH_TMP/t" badblocks -b 4096 -c 256 "$dev" ;;
		fio) /usr/bin/time -f "%e %U %S" -o "$BENCH_TMP/t" fio --name=whole --filename="$dev" \
			--ioengine=io_uring --direct=1 --rw=read --bs=1M --iodepth=16 \
			--output-format=json --output="$BENCH_TMP/fio.json" ;;
		alt) /usr/bin/time -f "%e %U %S" -o "$BENCH_TMP/t" env $MEDIASCAN_ALT_ENV \
			"$MEDIASCAN_ALT" scan "$mnt" --no-state -q --progress none --json "$BENCH_TMP/alt.json" ;;
		esac
		tail -1 "$BENCH_TMP/t" >>"$BENCH_TMP/$t.rows"
	done
done
planned=$(jq .planned_bytes "$BENCH_TMP/ms.json")
m() { awk -v c="$2" '{ print $c }' "$BENCH_TMP/$1.rows" | median; }
ms=$(m ms 1); bb=$(m bb 1); fi=$(m fio 1)
echo "# mediascan planned $(calc "$planned / 1048576" 0) MiB = $(calc "$planned / $devsize" 3) of the device; rounds=$ROUNDS"
echo
echo "| tool | reads | wall s (median) | CPU s (median user+sys) | time / fio whole device | time / badblocks | per round (wall s) |"
echo "| --- | --- | ---: | ---: | ---: | ---: | --- |"
for t in ms bb fio $ALT; do
	case $t in
	alt) name="mediascan variant: ${MEDIASCAN_ALT_ENV:-$MEDIASCAN_ALT}"; what="allocated blocks" ;;
	ms) name="mediascan scan MOUNT"; what="allocated blocks (GETFSMAP)" ;;
	bb) name="badblocks -b 4096 -c 256 (read-only)"; what="whole device" ;;
	fio) name="fio io_uring bs=1M iodepth=16 direct"; what="whole device" ;;
	esac
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$what" "$(m $t 1)" \
		"$(awk '{ print $2 + $3 }' "$BENCH_TMP/$t.rows" | median)" \
		"$(calc "$(m $t 1) / $fi" 3)" "$(calc "$(m $t 1) / $bb" 3)" "$(awk '{ print $1 }' "$BENCH_TMP/$t.rows" | tr '\n' ' ')"
done
echo
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
