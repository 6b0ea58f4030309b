#!/bin/bash
# tests/bench/scan-owners.sh - mapping benchmark 3: the report phase of a scan that finds many
# bad blocks (a dying disk), with and without owner lookups batched per device.
#
# XFS (rmapbt) on a loop device over the FUSE fault disk (tests/faultdisk) over a SIZE
# (default 1G) image on disk, FILES (default 3000) files of 512 B .. 100 KB, NBAD (default
# 1500) bad 4 KiB blocks, one in the data of each of NBAD random files. Then
#   mediascan scan MNT --no-state -q --progress none --json F
# for MEDIASCAN and, when set, MEDIASCAN_ALT (another build), alternating, ROUNDS rounds.
# The report phase (owners, paths, report) is wall time minus the scan's elapsed_s; the
# GETFSMAP calls are counted with strace -c in one extra run of each. Not pass/fail.
# Needs root. Environment: SIZE, FILES, NBAD, ROUNDS, MEDIASCAN, MEDIASCAN_ALT, FAULTDISK,
# BENCH_DIR.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/map-lib.sh"
bench_init
for t in filefrag perl shuf strace; do
	command -v "$t" >/dev/null || { echo "missing $t" >&2; exit 1; }
done
FD=${FAULTDISK:-$BENCH_ROOT/build/tests/faultdisk/faultdisk}
[ -x "$FD" ] || { echo "missing $FD (build first)" >&2; exit 1; }
ALT=
if [ -n "${MEDIASCAN_ALT:-}" ]; then
	cp "$MEDIASCAN_ALT" "$BENCH_TMP/mediascan-alt"
	ALT=$BENCH_TMP/mediascan-alt
fi

SIZE=${SIZE:-1G}
FILES=${FILES:-3000}
NBAD=${NBAD:-1500}

img=$BENCH_TMP/xfs.img
truncate -s "$SIZE" "$img"
fuse=$BENCH_TMP/fuse
mkdir -p "$fuse"
"$FD" "$img" "$fuse" -f >"$BENCH_TMP/faultdisk.log" 2>&1 &
fd_pid=$!	# ends when its mount goes (lazily, after the loop device)
for _ in $(seq 100); do [ -e "$fuse/ctl" ] && break; sleep 0.1; done
BENCH_MOUNTS=("$fuse")			# unmounted last (after the loop device is gone)
loop_add "$fuse/disk" --direct-io=on
dev=$LOOP
mkfs.xfs -q -f -m rmapbt=1 "$dev"
mnt=$BENCH_TMP/mnt
mkdir -p "$mnt"
mount "$dev" "$mnt"
populate "$mnt" "$FILES"
pick_blocks "$mnt" "$NBAD" 4096 "$BENCH_TMP/blocks"
nbad=$(wc -l <"$BENCH_TMP/blocks")
umount "$mnt"
mount -o ro,norecovery "$dev" "$mnt"
BENCH_MOUNTS=("$mnt" "${BENCH_MOUNTS[@]}")
# The fault disk sees the loop device's offsets: device block N of 4 KiB fails.
while read -r b; do
	echo "add $((b * 4096)) 4096" >"$fuse/ctl"
done <"$BENCH_TMP/blocks"

# one_scan BIN OUT : prints "wall elapsed report" in seconds
one_scan() {
	local s e rc=0
	s=$(date +%s.%N)
	"$1" scan "$mnt" --no-state -q --progress none --json "$2" || rc=$?
	e=$(date +%s.%N)
	[ "$rc" = 1 ] || { echo "scan exit $rc" >&2; exit 1; }
	local el
	el=$(jq .elapsed_s "$2")
	echo "$(calc "$e - $s" 3) $(calc "$el" 3) $(calc "$e - $s - $el" 3)"
}

tools="ms${ALT:+ alt}"
for r in $(seq 1 "$ROUNDS"); do
	for t in $tools; do
		bin=$MS; [ "$t" = alt ] && bin=$ALT
		echo "$t $(one_scan "$bin" "$BENCH_TMP/$t.json")" >>"$BENCH_TMP/rows"
	done
done
for t in $tools; do
	bin=$MS; [ "$t" = alt ] && bin=$ALT
	strace -f -c -e trace=ioctl -o "$BENCH_TMP/$t.strace" \
		"$bin" scan "$mnt" --no-state -q --progress none --json "$BENCH_TMP/$t.s.json" || :
done

bench_header "mapping benchmark 3 (scan-owners): XFS rmapbt $SIZE over the fault disk, $FILES files, $nbad bad 4 KiB blocks in file data, rounds=$ROUNDS"
echo
echo "| build | media errors | damaged files | wall s | scan s (elapsed_s) | report phase s | ioctl calls |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for t in $tools; do
	bin=$MS; [ "$t" = alt ] && bin=$ALT
	w=$(awk -v t="$t" '$1 == t { print $2 }' "$BENCH_TMP/rows" | median)
	el=$(awk -v t="$t" '$1 == t { print $3 }' "$BENCH_TMP/rows" | median)
	rp=$(awk -v t="$t" '$1 == t { print $4 }' "$BENCH_TMP/rows" | median)
	calls=$(awk '$NF == "ioctl" { print $4 }' "$BENCH_TMP/$t.strace")
	echo "| $t ($bin) | $(jq '.media_errors | length' "$BENCH_TMP/$t.json") |" \
		"$(jq '.damaged_files | length' "$BENCH_TMP/$t.json") | $w | $el | $rp | $calls |"
done
echo
echo "Per round (tool wall elapsed report):"
sed 's/^/    /' "$BENCH_TMP/rows"
other=ms; [ -n "$ALT" ] && other=alt
cmp <(jq -c '[.damaged_files[] | [.paths, .ranges]]' "$BENCH_TMP/ms.json") \
	<(jq -c '[.damaged_files[] | [.paths, .ranges]]' "$BENCH_TMP/$other.json") >/dev/null &&
	echo "Same damaged files and ranges from every build." ||
	echo "DIFFERENT damaged files between builds."
