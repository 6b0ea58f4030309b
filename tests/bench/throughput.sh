#!/bin/bash
# tests/bench/throughput.sh - benchmark 1: unthrottled whole-device read, mediascan vs fio.
#
# Reads a loop device (a) over a file in a tmpfs (CPU bound: shows mediascan's own
# overhead) and (b) over a file on disk (loop --direct-io=on, caches dropped before every
# run), with the same I/O size, queue depth and O_DIRECT:
#   mediascan scan DEV --no-state -q --progress none --json F --io-size 1M --queue-depth 16
#   fio --ioengine=io_uring --direct=1 --rw=read --bs=1M --iodepth=16
#   fio ... --fixedbufs --registerfiles      (informational: what mediascan does)
# alternating the order every round, ROUNDS rounds (default 5); prints medians and ratios
# as a markdown table. Not a pass/fail test. Needs root.
# Environment: ROUNDS, TMPFS_SIZE (default 4G), DISK_SIZE (default 4G), CASES ("tmpfs disk"),
# BENCH_DIR (scratch on disk, default /var/tmp), MEDIASCAN (binary); MEDIASCAN_ALT (a second
# binary, e.g. an experimental build) with MEDIASCAN_ALT_ENV ("VAR=value ...") adds a row.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init

TMPFS_SIZE=${TMPFS_SIZE:-4G}
DISK_SIZE=${DISK_SIZE:-4G}
CASES=${CASES:-tmpfs disk}
BS=1M
QD=16
HAVE_PERF=0
perf stat -x, -o /dev/null -e task-clock true 2>/dev/null && HAVE_PERF=1

# run_timed OUTPREFIX CMD... : wall, user, sys in OUT.time; task-clock (ms) in OUT.perf
run_timed() {
	local out=$1
	shift
	if [ $HAVE_PERF = 1 ]; then
		perf stat -x, -o "$out.perf" -e task-clock -- \
			/usr/bin/time -f "%e %U %S" -o "$out.time" "$@"
	else
		/usr/bin/time -f "%e %U %S" -o "$out.time" "$@"
	fi
}

# cpu seconds of the run OUT (perf task-clock when available, else user+sys)
cpu_s() {
	if [ -s "$1.perf" ]; then
		awk -F, '$3 == "task-clock" { printf "%.4f", $1 / 1000 }' "$1.perf"
	else
		awk '{ printf "%.4f", $2 + $3 }' "$1.time"
	fi
}

one_ms() {	# DEV OUT [BIN [ENV...]] -> appends "rate wall cpu - reqs avgKiB" to OUT.rows
	local dev=$1 out=$2 bin=${3:-$MS} a z
	shift 2; [ $# -gt 0 ] && shift
	a=$(dstat "$dev")
	run_timed "$out" env "$@" "$bin" scan "$dev" --no-state -q --progress none --json "$out.json" \
		--io-size $BS --queue-depth $QD
	local b e
	b=$(jq .scanned_bytes "$out.json")
	e=$(jq .elapsed_s "$out.json")
	z=$(dstat "$dev")
	echo "$(calc "$b / $e / 1048576" 1) $(cut -d' ' -f1 "$out.time") $(cpu_s "$out") - $(reqs "$a" "$z")" >>"$out.rows"
}

# reqs "ios0 sec0" "ios1 sec1" -> "requests avg_KiB" as the device saw them
reqs() { echo "$1 $2" | awk '{ n = $3 - $1; printf "%d %.0f", n, n ? ($4 - $2) / 2 / n : 0 }'; }

one_fio() {	# DEV OUT [extra fio args] -> appends "rate wall cpu jobcpu" to OUT.rows
	local dev=$1 out=$2 a z
	shift 2
	a=$(dstat "$dev")
	run_timed "$out" fio --name=read --filename="$dev" --ioengine=io_uring --direct=1 \
		--rw=read --bs=$BS --iodepth=$QD "$@" --output-format=json --output="$out.json"
	local bw rt u s
	bw=$(jq '.jobs[0].read.bw_bytes' "$out.json")
	rt=$(jq '.jobs[0].read.runtime' "$out.json")		# ms
	u=$(jq '.jobs[0].usr_cpu' "$out.json")			# % of the job's runtime
	s=$(jq '.jobs[0].sys_cpu' "$out.json")
	z=$(dstat "$dev")
	echo "$(calc "$bw / 1048576" 1) $(cut -d' ' -f1 "$out.time") $(cpu_s "$out") $(calc "($u + $s) / 100 * $rt / 1000" 4) $(reqs "$a" "$z")" >>"$out.rows"
}

# reads completed and sectors read by the loop device so far: "ios sectors"
dstat() { awk '{ print $1, $3 }' "/sys/block/$(basename "$1")/stat"; }

col() { awk -v c="$2" '{ print $c }' "$1" | median; }

bench_header "benchmark 1: unthrottled read of a whole loop device, mediascan vs fio (bs=$BS, iodepth=$QD, O_DIRECT, io_uring)"
echo "# rounds=$ROUNDS  cpu from $([ $HAVE_PERF = 1 ] && echo 'perf stat task-clock' || echo '/usr/bin/time %U+%S') (whole process); fio job cpu = fio's own usr_cpu+sys_cpu over its runtime (no start-up)"
echo
echo "| case | tool | MiB/s (in-run) | wall s | CPU s/GiB (process) | CPU s/GiB (fio job) | requests at the loop device | avg request KiB |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"

summary=()
raw=()
ALT=
[ -n "${MEDIASCAN_ALT:-}" ] && ALT=alt
for c in $CASES; do
	case $c in
	tmpfs)
		tmpfs_add "$BENCH_TMP/tmpfs" "$(( $(size_bytes "$TMPFS_SIZE") + 64 * 1048576 ))"
		img=$BENCH_TMP/tmpfs/dev.img
		dd if=/dev/zero of="$img" bs=1M count=$(( $(size_bytes "$TMPFS_SIZE") / 1048576 )) status=none
		loop_add "$img"
		dev=$LOOP
		size=$(size_bytes "$TMPFS_SIZE")
		drop=:
		;;
	disk)
		img=$BENCH_TMP/disk.img
		dd if=/dev/zero of="$img" bs=1M count=$(( $(size_bytes "$DISK_SIZE") / 1048576 )) oflag=direct status=none
		loop_add "$img" --direct-io=on
		dev=$LOOP
		size=$(size_bytes "$DISK_SIZE")
		drop=drop_caches
		;;
	esac
	gib=$(calc "$size / 1073741824" 6)
	o=$BENCH_TMP/$c
	rm -f "$o".*.rows
	for r in $(seq 1 "$ROUNDS"); do
		order="ms fio fiofix $ALT"
		[ $((r % 2)) = 0 ] && order="$ALT fiofix fio ms"
		for t in $order; do
			$drop
			case $t in
			ms) one_ms "$dev" "$o.ms" ;;
			alt) one_ms "$dev" "$o.alt" "$MEDIASCAN_ALT" ${MEDIASCAN_ALT_ENV:-} ;;
			fio) one_fio "$dev" "$o.fio" ;;
			fiofix) one_fio "$dev" "$o.fiofix" --fixedbufs --registerfiles ;;
			esac
		done
	done
	for t in ms fio fiofix $ALT; do
		name=$t
		[ $t = ms ] && name=mediascan
		[ $t = fiofix ] && name="fio --fixedbufs --registerfiles"
		[ $t = alt ] && name="mediascan variant: ${MEDIASCAN_ALT_ENV:-$MEDIASCAN_ALT}"
		jc=-
		[ $t != ms ] && [ $t != alt ] && jc=$(calc "$(col "$o.$t.rows" 4) / $gib" 4)
		printf '| %s (%s) | %s | %s | %s | %s | %s | %s | %s |\n' "$c" "$(basename "$dev")" "$name" \
			"$(col "$o.$t.rows" 1)" "$(col "$o.$t.rows" 2)" \
			"$(calc "$(col "$o.$t.rows" 3) / $gib" 4)" "$jc" \
			"$(col "$o.$t.rows" 5)" "$(col "$o.$t.rows" 6)"
	done
	ms_rate=$(col "$o.ms.rows" 1); fio_rate=$(col "$o.fio.rows" 1)
	ms_cpu=$(col "$o.ms.rows" 3); fio_cpu=$(col "$o.fio.rows" 3); fio_job=$(col "$o.fio.rows" 4)
	summary+=("| $c | $(calc "$ms_rate / $fio_rate" 3) | $(calc "$(col "$o.fio.rows" 2) / $(col "$o.ms.rows" 2)" 3) | $(calc "$ms_cpu / $fio_cpu" 3) | $(calc "$ms_cpu / $fio_job" 3) | $(calc "$ms_rate / $(col "$o.fiofix.rows" 1)" 3) |")
	# per-round raw figures, printed after the tables
	for t in ms fio fiofix $ALT; do
		raw+=("$c $t: $(tr '\n' ';' <"$o.$t.rows")")
	done
	losetup -d "$dev"
	rm -f "$img"
done
echo
echo "Ratios (mediascan / fio; goal: throughput >= 0.95, CPU <= 1.1):"
echo
echo "| case | throughput (in-run) | throughput (wall) | CPU/GiB vs fio process | CPU/GiB vs fio job | throughput vs fio --fixedbufs |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${summary[@]}"
echo
echo "Per round (MiB/s, wall s, CPU s, fio job CPU s, requests, avg KiB):"
echo
printf '    %s\n' "${raw[@]}"
echo
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
