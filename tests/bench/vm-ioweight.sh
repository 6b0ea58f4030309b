#!/usr/bin/env bash
# tests/bench/vm-ioweight.sh - issue 21: does the io cgroup weight the systemd units set
# (IOWeight=10) protect a foreground from a scan? Measured in QEMU (tests/vm/, Debian's cloud
# kernel: cgroup v2 with the io controller, BFQ as a module with group scheduling, blk-iocost
# built in; the development host has cgroup v1 and no BFQ, so it cannot be measured there).
# One NVMe namespace throttled by QEMU to a disk model (throttling.bps-total and iops-total on
# its drive: BPS bytes/s, IOPS requests/s), the guest's scheduler bfq. A foreground of 4 KiB
# random reads at queue depth 1 (fio) in cgroup /fg, a scan in cgroup /scan: mediascan scan of
# the namespace, unthrottled (--pacing off, no --rate), as patrol's unit would run it without
# its own pacing. For each of: the foreground alone; with the scan at io.bfq.weight 100 (both
# equal: no IOWeight); with the scan at io.bfq.weight 10 (IOWeight=10 as the units set it);
# and with the scan at weight 10 and mediascan's --pacing latency: the foreground's mean and
# p99 latency and IOPS, and the scan's MiB/s. The scan reads (--method read, METHOD=...).
# Usage: tests/bench/vm-ioweight.sh [BUILD_DIR]   Environment: BPS (default 150000000), IOPS
# (default 250: a rotating disk's seeks), DUR (seconds per run, default 15), DISK_MIB (2048).
# Prints a markdown table; not a pass/fail test.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
bps=${BPS:-150000000}
iops=${IOPS:-250}
dur=${DUR:-15}
disk_mib=${DISK_MIB:-2048}
method=${METHOD:-read}

command -v qemu-system-x86_64 >/dev/null || { echo "needs qemu-system-x86_64 (scripts/deps)" >&2; exit 1; }
command -v fio >/dev/null || { echo "needs fio on the host (copied into the guest)" >&2; exit 1; }
bin=$(cd "$build" && pwd)/mediascan
[[ -x $bin ]] || { echo "$bin is not built" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmiow.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export VMTEST_ACCEL_CACHE=$tmp/accel
"$root/tests/vm/build-image" "$tmp/initrd" --modules "bfq" --autoload "bfq" \
	--bin "$bin:/usr/bin/mediascan" --bin "$(command -v fio)" --bin "$(command -v jq)" \
	>/dev/null 2>"$tmp/build.err" || { cat "$tmp/build.err" >&2; exit 1; }
truncate -s "${disk_mib}M" "$tmp/d.img"

cat >"$tmp/guest.sh" <<EOF
dur=$dur
method=$method
EOF
cat >>"$tmp/guest.sh" <<'EOF'
d=$(for x in /sys/block/nvme*n*; do echo "${x##*/}"; break; done)
echo "INFO dev $d scheduler $(cat /sys/block/$d/queue/scheduler)"
echo bfq >/sys/block/$d/queue/scheduler 2>/dev/null
echo "INFO scheduler now $(cat /sys/block/$d/queue/scheduler)"
mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup || { echo "INFO no cgroup2"; exit 1; }
echo "INFO controllers $(cat /sys/fs/cgroup/cgroup.controllers)"
echo +io >/sys/fs/cgroup/cgroup.subtree_control || { echo "INFO io controller refused"; exit 1; }
mkdir /sys/fs/cgroup/fg /sys/fs/cgroup/scan
echo "INFO io files $(cd /sys/fs/cgroup/scan && ls io.* | tr '\n' ' ')"
fg() {	# NAME: the foreground in /fg for dur seconds; prints "FG NAME mean_us p99_us iops"
	sh -c "echo \$\$ >/sys/fs/cgroup/fg/cgroup.procs; exec fio --name=fg --filename=/dev/$d \
		--ioengine=psync --direct=1 --rw=randread --bs=4k --time_based --runtime=$dur \
		--readonly --output-format=json --output=/tmp/fg.json" >/dev/null 2>&1
	echo "FG $1 $(jq -r '.jobs[0].read | "\(.clat_ns.mean / 1000 | floor) \(.clat_ns.percentile["99.000000"] / 1000 | floor) \(.iops | floor)"' /tmp/fg.json)"
}
scan() {	# NAME WEIGHT ARGS...: mediascan in /scan at io.bfq.weight WEIGHT
	local name=$1 w=$2
	shift 2
	echo "$w" >/sys/fs/cgroup/scan/io.bfq.weight
	sh -c "echo \$\$ >/sys/fs/cgroup/scan/cgroup.procs; exec mediascan scan /dev/$d --no-state \
		--progress none -q --max-duration $((dur + 2))s --json /tmp/s.json $*" >/dev/null 2>&1 &
	sp=$!
	sleep 1
	fg "$name"
	wait $sp
	echo "SCAN $name $(jq -r '(.scanned_bytes / .elapsed_s / 1048576 * 10 | floor) / 10' /tmp/s.json) weight=$(cat /sys/fs/cgroup/scan/io.bfq.weight | tr '\n' ' ')"
}
fg alone
# --method read: NVMe Verify goes through io_uring passthrough, a request without a data bio,
# which Debian 12's 6.1 kernel's bfq dereferences in bfq_bic_update_cgroup once the io
# controller is on (a NULL pointer oops in bfq_bio_bfqg, then RCU stalls): METHOD=auto shows it.
scan equal 100 --pacing off --method $method
scan iow10 10 --pacing off --method $method
scan iow10-pacing 10 --pacing latency --method $method
fg alone2
EOF
"$root/tests/vm/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" --timeout 900 \
	--nvme "$tmp/d.img" --qemu-arg -set --qemu-arg "drive.nvm1.throttling.bps-total=$bps" \
	--qemu-arg -set --qemu-arg "drive.nvm1.throttling.iops-total=$iops" \
	>"$tmp/out" 2>"$tmp/err" || { grep -E "BUG:|Oops|RIP:|Call Trace|bfq" "$tmp/out" "$tmp/err" | head -20 >&2; cat "$tmp/out" >&2; exit 1; }
accel=$(grep -o 'accelerator [a-z]*' "$tmp/err" | head -n 1 | cut -d' ' -f2)
ver=$(git -C "$(cd "$build/.." && pwd)" rev-parse --short HEAD 2>/dev/null || echo "built in $build")
grep '^INFO ' "$tmp/out" | sed 's/^INFO /# /'
echo "# vm-ioweight: one NVMe namespace of ${disk_mib} MiB throttled by QEMU to $bps B/s and $iops IOPS, bfq; QEMU $(qemu-system-x86_64 --version | head -n 1 | awk '{ print $4 }'), ${accel:-?}; ${dur} s runs; mediascan $ver"
echo
echo "| run | scan's io.bfq.weight | foreground mean us | p99 us | IOPS | scan MiB/s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for r in alone equal iow10 iow10-pacing alone2; do
	read -r _ _ mean p99 io <<<"$(grep "^FG $r " "$tmp/out" || echo "FG $r - - -")"
	read -r _ _ mib w <<<"$(grep "^SCAN $r " "$tmp/out" || echo "SCAN $r - -")"
	echo "| $r | ${w#weight=} | $mean | $p99 | $io | $mib |"
done
