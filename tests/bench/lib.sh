# tests/bench/lib.sh - helpers shared by the benchmark scripts (sourced, not run).
#
# Gives: need_root, bench_deps, a stable copy of the mediascan binary in $MS, scratch
# space under $BENCH_TMP, loop/mount/tmpfs bookkeeping undone by one EXIT trap
# (bench_cleanup), median/ratio helpers and the machine header every table starts with.
# Environment: MEDIASCAN (binary, default build/mediascan), BENCH_DIR (scratch on disk,
# default /var/tmp), ROUNDS (default 5).

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ROUNDS=${ROUNDS:-5}

need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "$(basename "$0"): needs root (loop devices, mounts, drop_caches)" >&2
		exit 1
	fi
}

# second_half_mibs DUR FILE: a scan's MiB/s over the second half of a DUR s run, from its
# `--progress log` lines in FILE (the first line at DUR/2 on, to the last); "-" without them.
# Self-contained: vm-pacing.sh copies it into its guest script (declare -f).
second_half_mibs() {
	awk -v h="$1" '$1 == "progress" {
			for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			if (t0 == "" && v["t"] >= h / 2) { t0 = v["t"]; b0 = v["scanned"] }
			t1 = v["t"]; b1 = v["scanned"] }
		END { if (t0 != "" && t1 > t0) printf "%.2f\n", (b1 - b0) / (t1 - t0) / 1048576
		      else print "-" }' "$2"
}

bench_deps() {
	"$BENCH_ROOT/scripts/deps" >/dev/null
	local t
	for t in fio badblocks xfs_io mkfs.xfs losetup jq; do
		command -v "$t" >/dev/null || { echo "missing $t (scripts/deps)" >&2; exit 1; }
	done
	[ -x /usr/bin/time ] || { echo "missing /usr/bin/time (scripts/deps: time)" >&2; exit 1; }
}

# Scratch state: every loop device, mount and file we make is undone on exit.
BENCH_LOOPS=()
BENCH_MOUNTS=()
BENCH_FILES=()
BENCH_PIDS=()
BENCH_TMP=
bench_cleanup() {
	set +e
	local p m l f
	for p in "${BENCH_PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for m in "${BENCH_MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m"; done
	for l in "${BENCH_LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	for f in "${BENCH_FILES[@]}"; do rm -rf "$f"; done
	[ -n "$BENCH_TMP" ] && rm -rf "$BENCH_TMP"
}

bench_init() {
	need_root
	bench_deps
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
	BENCH_TMP=$(mktemp -d "${BENCH_DIR:-/var/tmp}/mediascan-bench.XXXXXX")
	# A private copy, so a rebuild by someone else cannot swap the binary mid-run.
	cp "${MEDIASCAN:-$BENCH_ROOT/build/mediascan}" "$BENCH_TMP/mediascan"
	MS=$BENCH_TMP/mediascan
}

# loop_add FILE [losetup options...] -> sets LOOP=/dev/loopN, remembered for cleanup.
# (Not via $(...): the bookkeeping must happen in this shell, not in a subshell.)
loop_add() {
	local f=$1
	shift
	LOOP=$(losetup -f --show "$@" "$f")
	BENCH_LOOPS+=("$LOOP")
}

# A tmpfs of its own (not /dev/shm), so the data is in RAM and goes away with the mount.
tmpfs_add() {
	local dir=$1 size=$2
	mkdir -p "$dir"
	mount -t tmpfs -o "size=$size" bench-tmpfs "$dir"
	BENCH_MOUNTS+=("$dir")
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# median of the numbers on stdin
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# calc EXPR: floating point arithmetic via awk
calc() { awk "BEGIN { printf \"%.${2:-3}f\", $1 }"; }

bench_header() {
	echo "# $1"
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC')  nproc=$(nproc)  kernel=$(uname -r)  cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)  fio $(fio --version)  mediascan $(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
}

# size_bytes 4G -> 4294967296 (binary suffixes)
size_bytes() {
	numfmt --from=iec "$1"
}
