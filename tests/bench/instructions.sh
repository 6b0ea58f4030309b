#!/bin/bash
# tests/bench/instructions.sh - mediascan's own CPU work, independent of the machine's load:
# the instructions one scan executes (valgrind's callgrind, "Collected" Ir), for two binaries
# side by side. Wall-clock throughput (throughput.sh) swings by 2x on a shared 2-core host and
# this VM has no hardware counters; an instruction count is the same on a busy machine.
# Reads a loop device over a file in tmpfs (SIZE, default 512M) with --io-size 1M and 64k
# (the per-read path: 512 and 8192 reads), ROUNDS rounds (default 2), the binaries alternating.
# Usage: MEDIASCAN=NEW MEDIASCAN_ALT=OLD tests/bench/instructions.sh
# Prints a markdown table: median instructions per binary and case, and NEW / OLD.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_root
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
new=${MEDIASCAN:-$BENCH_ROOT/build/mediascan}
old=${MEDIASCAN_ALT:?set MEDIASCAN_ALT to the binary to compare with}
size=${SIZE:-512M}
rounds=${ROUNDS:-2}
d=$(mktemp -d /dev/shm/msinstr.XXXXXX)
l=
trap '[ -z "$l" ] || losetup -d "$l"; rm -rf "$d"' EXIT
head -c "$size" /dev/urandom >"$d/img"
l=$(losetup -f --show "$d/img")

ir() {	# BIN IO -> instructions of one scan
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" scan "$l" --no-state \
		--progress none -q --io-size "$2" --json "$d/r.json" 2>&1 |
		awk '/Collected/ { print $4 }'
}
med() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

echo "# instructions.sh: $size over tmpfs, $rounds rounds; new $new ($("$new" --version | head -n 1)), old $old ($("$old" --version | head -n 1))"
echo
echo "| --io-size | reads | new Ir (median) | old Ir (median) | new / old |"
echo "| --- | ---: | ---: | ---: | ---: |"
for io in 1M 64k; do
	: >"$d/new" && : >"$d/old"
	for _ in $(seq "$rounds"); do
		ir "$new" "$io" >>"$d/new"
		ir "$old" "$io" >>"$d/old"
	done
	a=$(med <"$d/new") b=$(med <"$d/old")
	reads=$(jq '.scanned_bytes' "$d/r.json")
	case $io in 1M) reads=$((reads / 1048576)) ;; 64k) reads=$((reads / 65536)) ;; esac
	echo "| $io | $reads | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }') |"
done
