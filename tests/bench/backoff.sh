#!/bin/bash
# tests/bench/backoff.sh - benchmark 4: foreground-load backoff trace.
#
# A throttled whole-device scan of a scratch loop device (over a file on disk, --direct-io=on)
#   mediascan scan DEV --no-state -q --rate 100M --rate-min 10M --progress log --max-duration 22s
# with fio writing to the same scratch device (it is ours: a benchmark file, not a user's
# disk) from second WRITE_AT (8) for WRITE_FOR (4) seconds:
#   fio --name=fg --filename=DEV --ioengine=libaio --direct=1 --rw=randwrite --bs=64k
#       --iodepth=4 --time_based --runtime=4
# Tabulates the scan rate of every one-second window from the progress log next to the
# backoff flag and whether fio was writing, then how long the drop and the return took.
# Needs root. Environment: RATE, RATE_MIN, WRITE_AT, WRITE_FOR, DUR, DEV_SIZE, MEDIASCAN.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init

RATE=${RATE:-100M}
RATE_MIN=${RATE_MIN:-10M}
WRITE_AT=${WRITE_AT:-8}
WRITE_FOR=${WRITE_FOR:-4}
DUR=${DUR:-22}
DEV_SIZE=${DEV_SIZE:-3G}

img=$BENCH_TMP/disk.img
dd if=/dev/zero of="$img" bs=1M count=$(( $(size_bytes "$DEV_SIZE") / 1048576 )) oflag=direct status=none
loop_add "$img" --direct-io=on
dev=$LOOP
log=$BENCH_TMP/backoff.log

bench_header "benchmark 4: backoff trace, --rate $RATE --rate-min $RATE_MIN on $(basename "$dev") ($DEV_SIZE file on disk), fio randwrite 64k from t=$WRITE_AT s for $WRITE_FOR s"
t0=$(date +%s.%N)
"$MS" scan "$dev" --no-state -q --rate "$RATE" --rate-min "$RATE_MIN" --progress log \
	--max-duration "${DUR}s" --json "$BENCH_TMP/backoff.json" 2>"$log" &
scan_pid=$!
BENCH_PIDS+=("$scan_pid")
sleep "$WRITE_AT"
f0=$(date +%s.%N)
fio --name=fg --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite --bs=64k \
	--iodepth=4 --time_based --runtime="$WRITE_FOR" --output-format=json \
	--output="$BENCH_TMP/fg.json"
f1=$(date +%s.%N)
wait "$scan_pid" || true
BENCH_PIDS=()
ws=$(calc "$f0 - $t0" 2)
we=$(calc "$f1 - $t0" 2)
echo "# fio wrote from t=$ws s to t=$we s ($(jq '.jobs[0].write.bw_bytes / 1048576 | floor' "$BENCH_TMP/fg.json") MiB/s); t counted from the scan's launch"
echo
echo "| t (s) | scan MiB/s in the last second | target MiB/s | backoff | fio writing |"
echo "| ---: | ---: | ---: | ---: | --- |"
grep '^progress ' "$log" | sed 's/[a-z_]*=//g' | awk -v ws="$ws" -v we="$we" '
	BEGIN { pt = 0; ps = 0 }
	{ t = $2; s = $3; tg = $6; b = $7
	  w = (t > pt) ? (s - ps) / (t - pt) : 0
	  fw = (t > ws && pt < we) ? "yes" : ""
	  printf "| %.2f | %.1f | %.1f | %d | %s |\n", t, w / 1048576, tg / 1048576, b, fw
	  pt = t; ps = s }'
echo
grep '^progress ' "$log" | sed 's/[a-z_]*=//g' | awk -v ws="$ws" -v we="$we" '
	{ t = $2; b = $7
	  if (b == 1 && !on) { on = t }
	  if (b == 0 && on && t > we && !off) { off = t } }
	END {
		printf "Backoff seen at the first progress line after the writes began: t=%.2f (%.2f s after fio started; lines are 1 s apart)\n", on, on - ws
		printf "Back to pace (backoff=0) at t=%.2f: %.2f s after fio stopped\n", off, off - we
	}'
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
