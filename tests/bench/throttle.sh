#!/bin/bash
# tests/bench/throttle.sh - benchmark 3: accuracy of the rate governor (--rate).
#
# For each rate in RATES (default "20M 80M 200M") runs, on a loop device over a tmpfs file,
#   mediascan scan DEV --no-state -q --rate R --progress log --max-duration DUR --json F
# (DUR default 12s; the device is big enough that the scan never ends first) and reads the
# one-line-a-second progress log: achieved rate = scanned / t at the last line, and every
# one-second window = difference of consecutive lines. Goal: achieved within 3% of the
# target, no one-second window above 110%. Prints a markdown table. Needs root.
# Environment: RATES, DUR, DEV_SIZE (default 3G), MEDIASCAN, BENCH_DIR.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init

RATES=${RATES:-20M 80M 200M}
DUR=${DUR:-12s}
DEV_SIZE=${DEV_SIZE:-3G}

tmpfs_add "$BENCH_TMP/tmpfs" "$(( $(size_bytes "$DEV_SIZE") + 64 * 1048576 ))"
img=$BENCH_TMP/tmpfs/dev.img
dd if=/dev/zero of="$img" bs=1M count=$(( $(size_bytes "$DEV_SIZE") / 1048576 )) status=none
loop_add "$img"
dev=$LOOP

bench_header "benchmark 3: throttle accuracy, --rate over $DUR on a $DEV_SIZE loop device over tmpfs ($(basename "$dev"))"
echo
echo "| --rate | target MiB/s | achieved MiB/s | achieved / target | max 1 s window MiB/s | max window / target | min window / target (after the first s) | windows | goal met |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
for r in $RATES; do
	log=$BENCH_TMP/throttle-$r.log
	"$MS" scan "$dev" --no-state -q --rate "$r" --progress log --max-duration "$DUR" \
		--json "$BENCH_TMP/throttle-$r.json" 2>"$log" || true
	target=$(size_bytes "$r")
	grep '^progress ' "$log" | sed 's/[a-z_]*=//g' | awk -v T="$target" -v R="$r" '
		BEGIN { pt = 0; ps = 0 }	# the first window starts at the scan start
		{ t = $2; s = $3
		  if (t - pt > 0.5) {
			w = (s - ps) / (t - pt); nw++
			if (w > maxw) maxw = w
			if (nw > 1 && (minw == 0 || w < minw)) minw = w
			pt = t; ps = s
		  } }
		END {
			a = s / t
			ok = (a >= 0.97 * T && a <= 1.03 * T && maxw <= 1.10 * T) ? "yes" : "NO"
			printf "| %s | %.1f | %.2f | %.4f | %.2f | %.4f | %.4f | %d | %s |\n",
				R, T / 1048576, a / 1048576, a / T, maxw / 1048576, maxw / T, minw / T, nw, ok
		}'
done
echo
echo "Raw progress lines of the last rate ($r):"
echo
echo '```'
grep '^progress ' "$BENCH_TMP/throttle-$r.log"
echo '```'
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
