#!/usr/bin/env bash
# tests/bench/vm-pacing-md.sh - issue 21's missing anchor: md's own `check` under the same
# foreground as mediascan's --pacing latency. md RAID1 of two NVMe namespaces (MEMBER_MIB
# each) in one QEMU boot (tests/vm/, build-image --stack-tools; TCG unless KVM works), each
# namespace read-throttled in QEMU's block layer (THROTTLE_MIB MiB/s and IOPS requests/s of
# reads per member, its own throttle group) so the disks, not TCG's CPU, are the limit; XFS
# (rmapbt) on /dev/md0 filled to FILL_PCT with `blkmark write` files. The foreground: fio 4 KiB
# random reads at queue depth 1, O_DIRECT, read-only, on /dev/md0 for DUR seconds. Runs, in
# this order, all in the one boot:
#   alone       the foreground alone;
#   md-check    the foreground while md checks the array (`echo check >
#               /sys/block/md0/md/sync_action`, the kernel's default speed limits:
#               /proc/sys/dev/raid/speed_limit_min and _max as the guest has them, recorded),
#               md's reads over the foreground's run from the members' stat files (less the
#               foreground's own bytes), sync_speed sampled every second, then `echo idle`
#               (a later check resumes where this one stopped);
#   latency     the foreground while `mediascan scan /mnt/m --pacing latency --window WINDOW`
#               runs (member-level scan of the stacked filesystem; started 1 s before the
#               foreground, stopped by --max-duration DUR+2 s);
#   off         the same with `--pacing off` (no window: unthrottled) for contrast;
#   alone2      the foreground alone again;
#   check-alone md's check with no foreground, DUR seconds (a reference: what md reads alone).
# The scanners' MiB/s count the bytes read from the members (md's check: both members' stat
# files; mediascan: scanned_bytes / elapsed_s, both copies). Page cache dropped
# before each run.
# Usage: tests/bench/vm-pacing-md.sh [BUILD_DIR]   (or MEDIASCAN_BIN=path/to/mediascan)
# Environment: DUR (seconds per run, default 12), MEMBER_MIB (default 512), FILL_PCT
# (default 25), THROTTLE_MIB (read MiB/s per member, default 8), IOPS (read requests/s per
# member, default 150), WINDOW (the latency run's --window, default 30s). Needs
# qemu-system-x86_64, fio and jq on the host (fio and jq are copied into the guest; mdadm
# comes from build-image --stack-tools). Prints a markdown table; not a pass/fail test.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
dur=${DUR:-12}
member_mib=${MEMBER_MIB:-512}
fill_pct=${FILL_PCT:-25}
throttle_mib=${THROTTLE_MIB:-8}
iops=${IOPS:-150}
window=${WINDOW:-30s}

for t in qemu-system-x86_64 fio jq; do
	command -v "$t" >/dev/null || { echo "needs $t on the host (scripts/deps; fio and jq are copied into the guest)" >&2; exit 1; }
done
bin=${MEDIASCAN_BIN:-$(cd "$build" && pwd)/mediascan}
[[ -x $bin ]] || { echo "$bin is not built (pass BUILD_DIR or MEDIASCAN_BIN)" >&2; exit 1; }
# blkmark fills the filesystem: BLKMARK, else BUILD_DIR's, else the tree's build/.
blkmark=${BLKMARK:-$build/tests/tools/blkmark}
[[ -x $blkmark ]] || blkmark=$root/build/tests/tools/blkmark
[[ -x $blkmark ]] || { echo "needs tests/tools/blkmark (built in BUILD_DIR or build/, or BLKMARK=path)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmpmd.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export VMTEST_ACCEL_CACHE=$tmp/accel
"$root/tests/vm/build-image" "$tmp/initrd" --stack-tools --modules xfs \
	--autoload "xfs md-mod raid1" --bin "$bin:/usr/bin/mediascan" --bin "$blkmark:/usr/bin/blkmark" \
	--bin "$(command -v fio)" --bin "$(command -v jq)" \
	>/dev/null 2>"$tmp/build.err" || { cat "$tmp/build.err" >&2; exit 1; }
nvme_args=()
for m in 1 2; do
	truncate -s "${member_mib}M" "$tmp/m$m.img"
	nvme_args+=(--nvme "$tmp/m$m.img,bps-read=$((throttle_mib << 20)),iops-read=$iops")
done

cat >"$tmp/guest.sh" <<EOF
dur=$dur
fill_pct=$fill_pct
window=$window
EOF
cat "$root/tests/bench/vm-md-fill.sh" >>"$tmp/guest.sh"
cat >>"$tmp/guest.sh" <<'EOF'
ns() { for d in /sys/block/nvme*n*; do [ "$(cat "$d/nsid")" = "$1" ] && echo "/dev/${d##*/}"; done; }
m1=$(ns 1); m2=$(ns 2); mem="$m1 $m2"
md_xfs_fill 1 "$fill_pct" $mem || exit 1
md=/sys/block/md0/md
echo "INFO fs_bytes $fs_bytes used $used files $files"
echo "INFO limits speed_limit_min=$(cat /proc/sys/dev/raid/speed_limit_min) speed_limit_max=$(cat /proc/sys/dev/raid/speed_limit_max) sync_speed_min=$(cat $md/sync_speed_min | tr -d '\n') sync_speed_max=$(cat $md/sync_speed_max | tr -d '\n') members=$(echo $mem) scheduler=$(cat /sys/block/${m1##*/}/queue/scheduler | tr -d '\n') rotational=$(cat /sys/block/md0/queue/rotational)"
now() { cut -d' ' -f1 /proc/uptime; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
done_sec() { s=$(cut -d' ' -f1 $md/sync_completed); case $s in none|'') echo 0 ;; *) echo "$s" ;; esac; }
fgrun() {	# NAME: the foreground for dur seconds; prints "FG NAME mean_us p99_us iops"
	fio --name=fg --filename=/dev/md0 --ioengine=psync --direct=1 --rw=randread --bs=4k \
		--time_based --runtime=$dur --readonly --output-format=json --output=/tmp/fg.json \
		>/dev/null 2>&1
	echo "FG $1 $(jq -r '.jobs[0].read | "\(.clat_ns.mean / 1000 | floor) \(.clat_ns.percentile["99.000000"] / 1000 | floor) \(.iops | floor)"' /tmp/fg.json)"
	jq -r '.jobs[0].read.io_bytes' /tmp/fg.json >/tmp/fg.bytes
}
rd_sec() {	# sectors read from both members so far (the stat files' third field)
	echo $(( $(awk '{ print $3 }' /sys/block/${m1##*/}/stat) + $(awk '{ print $3 }' /sys/block/${m2##*/}/stat) ))
}
speeds() {	# sync_speed (KiB/s) once a second while the check runs, into /tmp/speeds
	: >/tmp/speeds
	while [ -e /tmp/sampling ]; do cat $md/sync_speed >>/tmp/speeds 2>/dev/null; sleep 1; done
}
check() {	# NAME WITH_FG: md check for dur seconds (with the foreground or not)
	drop
	echo check >$md/sync_action
	touch /tmp/sampling; speeds & sp=$!
	sleep 1
	echo 0 >/tmp/fg.bytes
	t0=$(now); c0=$(done_sec); r0=$(rd_sec)
	if [ "$2" = 1 ]; then fgrun "$1"; else sleep "$dur"; fi
	r1=$(rd_sec); c1=$(done_sec); t1=$(now)
	rm -f /tmp/sampling; wait $sp
	action=$(cat $md/sync_action)
	echo idle >$md/sync_action
	while [ "$(cat $md/sync_action)" != idle ]; do sleep 0.2; done
	# md's MiB/s: what both members read over the window less the foreground's bytes (the
	# stat files; sync_completed moves in steps of 1/16 of the array, too coarse for 12 s).
	# sync_speed (KiB/s of progress per member, md's own mean) is shown beside it.
	echo "SCAN $1 $(awk -v a="$r0" -v b="$r1" -v f="$(cat /tmp/fg.bytes)" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.1f", ((b - a) * 512 - f) / 1048576 / (t1 - t0) }') action=$action sync_completed=$c0..$c1 sync_speed_kib=$(tr '\n' ',' </tmp/speeds | sed 's/,$//') mismatch_cnt=$(cat $md/mismatch_cnt)"
}
scan() {	# NAME ARGS...: mediascan from 1 s before the foreground to dur + 2 s
	local name=$1
	shift
	drop
	mediascan scan /mnt/m --no-state --progress none -q --max-duration $((dur + 2))s \
		--json /tmp/s.json "$@" >/dev/null 2>/tmp/s.err &
	sp=$!
	sleep 1
	fgrun "$name"
	rc=0; wait $sp || rc=$?
	echo "SCAN $name $(jq -r '(.scanned_bytes / .elapsed_s / 1048576 * 10 | floor) / 10' /tmp/s.json) rc=$rc $(jq -c '{scanned_mib: (.scanned_bytes / 1048576 | floor), planned_mib: (.planned_bytes / 1048576 | floor), elapsed_s, complete, backoffs, backoff_s, pacing}' /tmp/s.json 2>/dev/null | tr -d ' ')"
	[ -s /tmp/s.err ] && sed 's/^/INFO scan stderr: /' /tmp/s.err | head -n 5
	return 0
}
drop; fgrun alone
check md-check 1
scan latency --pacing latency --window "$window"
scan off --pacing off
drop; fgrun alone2
check check-alone 0
EOF
start=$(date -u +%H:%M)
"$root/tests/vm/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" --timeout 1500 \
	"${nvme_args[@]}" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/out" "$tmp/err" >&2; exit 1; }
accel=$(grep -o 'accelerator [a-z]*' "$tmp/err" | head -n 1 | cut -d' ' -f2)
read -r _ _ fs_bytes _ used _ files <<<"$(grep '^INFO fs_bytes ' "$tmp/out")"
# The binary's source is not known for a copy: name the path and the tree's HEAD.
ver="$bin (tree at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "# vm-pacing-md: md RAID1 of 2 ${member_mib} MiB NVMe namespaces (reads throttled to $throttle_mib MiB/s and $iops IOPS each), XFS $((fs_bytes >> 20)) MiB, $((used >> 20)) MiB used (${fill_pct}% target, $files files); foreground fio 4 KiB randread QD 1 O_DIRECT on /dev/md0; QEMU $(qemu-system-x86_64 --version | head -n 1 | awk '{ print $4 }'), ${accel:-?}, 2 vCPUs; ${dur} s runs; $start-$(date -u +%H:%M) UTC; load average $(cut -d' ' -f1-3 /proc/loadavg); mediascan $ver"
grep '^INFO ' "$tmp/out" | grep -v '^INFO fs_bytes' | sed 's/^INFO /# /'
echo
echo "| run | foreground mean us | p99 us | IOPS | mean x alone | scanner MiB/s (bytes read from the members) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
read -r _ _ base _ <<<"$(grep '^FG alone ' "$tmp/out" || echo "FG alone -")"
label() {
	case $1 in
	alone) echo "foreground alone" ;;
	md-check) echo "+ md check (\`echo check > /sys/block/md0/md/sync_action\`, default limits)" ;;
	latency) echo "+ \`mediascan scan /mnt/m --pacing latency --window $window\`" ;;
	off) echo "+ \`mediascan scan /mnt/m --pacing off\`" ;;
	alone2) echo "foreground alone again" ;;
	check-alone) echo "md check, no foreground" ;;
	esac
}
for r in alone md-check latency off alone2 check-alone; do
	read -r _ _ mean p99 io <<<"$(grep "^FG $r " "$tmp/out" || echo "FG $r - - -")"
	read -r _ _ mib _ <<<"$(grep "^SCAN $r " "$tmp/out" || echo "SCAN $r -")"
	rel=$(awk -v m="$mean" -v b="${base:--}" 'BEGIN { if (m + 0 > 0 && b + 0 > 0) printf "%.2fx", m / b; else print "-" }')
	echo "| $(label "$r") | $mean | $p99 | $io | $rel | $mib |"
done
echo
grep '^SCAN ' "$tmp/out" | sed 's/^SCAN /# /'
