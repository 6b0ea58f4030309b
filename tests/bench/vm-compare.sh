#!/usr/bin/env bash
# tests/bench/vm-compare.sh - issue 30's speed: a comparing scan (--compare) against a plain
# member-level scan (--no-compare) of the same array, the members bandwidth-bound. One QEMU
# boot (tests/vm/, build-image --stack-tools; TCG unless KVM works) with md RAID1 of 2, RAID5
# of 3 and RAID6 of 4 NVMe namespaces, each namespace read-throttled in QEMU's block layer
# (THROTTLE_MIB MiB/s per member, its own throttle group) so the disks, not TCG's CPU, are the
# limit; XFS on each with FILL_MIB of blkmark files. Per array, ROUNDS times alternating:
#   plain    mediascan scan MOUNT --no-compare --no-state (every copy and parity read)
#   compare  mediascan scan MOUNT --compare --no-state (the same reads, compared)
# the rate (scanned bytes / elapsed) and the peak RSS (GNU time %M). Then memory against the
# number of extents: a RAID1 whose file is FRAG_EXTENTS extents (every other 4 KiB block
# written) against one of few extents, both compared. Prints a markdown table; not a test.
# Usage: tests/bench/vm-compare.sh [BUILD_DIR]   (or MEDIASCAN_BIN=path/to/mediascan)
# Environment: THROTTLE_MIB (default 16), FILL_MIB (default 96), ROUNDS (default 2),
# FRAG_EXTENTS (default 20000). Needs qemu-system-x86_64, jq and GNU time on the host.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
throttle_mib=${THROTTLE_MIB:-16}
fill_mib=${FILL_MIB:-96}
rounds=${ROUNDS:-2}
frag=${FRAG_EXTENTS:-20000}
for t in qemu-system-x86_64 jq; do
	command -v "$t" >/dev/null || { echo "needs $t on the host (scripts/deps)" >&2; exit 1; }
done
[[ -x /usr/bin/time ]] || { echo "needs GNU time (/usr/bin/time) on the host" >&2; exit 1; }
bin=${MEDIASCAN_BIN:-$(cd "$build" && pwd)/mediascan}
blkmark=${BLKMARK:-$build/tests/tools/blkmark}
[[ -x $bin && -x $blkmark ]] || { echo "build mediascan and tests/tools/blkmark first" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmcmpb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export VMTEST_ACCEL_CACHE=$tmp/accel
"$root/tests/vm/build-image" "$tmp/initrd" --stack-tools --modules xfs \
	--autoload "xfs md-mod raid1 raid456" --bin "$bin:/usr/bin/mediascan" \
	--bin "$blkmark:/usr/bin/blkmark" --bin "$(command -v jq)" --bin /usr/bin/time:/usr/bin/gtime \
	>/dev/null 2>"$tmp/build.err" || { cat "$tmp/build.err" >&2; exit 1; }
# namespaces: 1-2 RAID1, 3-5 RAID5, 6-9 RAID6, 10-11 RAID1 with a fragmented file
sizes=(0 340 340 200 200 200 200 200 200 200 340 340)
nvme_args=()
for id in $(seq 1 11); do
	truncate -s "${sizes[$id]}M" "$tmp/ns$id.img"
	nvme_args+=(--nvme "$tmp/ns$id.img,bps-read=$((throttle_mib << 20))")
done
cat >"$tmp/guest.sh" <<EOF
fill=$fill_mib rounds=$rounds frag=$frag
EOF
cat >>"$tmp/guest.sh" <<'EOF'
ns() { for d in /sys/block/nvme*n*; do [ "$(cat $d/nsid)" = "$1" ] && echo /dev/${d##*/}; done; }
mdc() { dev=$1; shift; mdadm --create "$dev" --run --metadata=1.2 --data-offset=1M \
	--assume-clean --bitmap=none "$@" >/dev/null 2>&1 || echo "FAIL mdadm $dev"; }
mdc /dev/md1 --level=1 --raid-devices=2 $(ns 1) $(ns 2)
mdc /dev/md2 --level=5 --raid-devices=3 --chunk=64 $(ns 3) $(ns 4) $(ns 5)
mdc /dev/md3 --level=6 --raid-devices=4 --chunk=64 $(ns 6) $(ns 7) $(ns 8) $(ns 9)
mdc /dev/md4 --level=1 --raid-devices=2 $(ns 10) $(ns 11)
for m in 1 2 3 4; do
	mkfs.xfs -q -f -K -m rmapbt=1 /dev/md$m && mkdir -p /mnt/$m && mount /dev/md$m /mnt/$m ||
		echo "FAIL mkfs md$m"
done
for m in 1 2 3; do blkmark write /mnt/$m/f.dat f $((fill * 256)) >/dev/null || echo "FAIL fill $m"; done
# md4: one file of frag extents (every other 4 KiB block), and nothing else
i=0; while [ $i -lt $frag ]; do echo "pwrite -q $((i * 8192)) 4096"; i=$((i + 1)); done |
	xfs_io -f /mnt/4/frag >/dev/null
sync
echo "EXTENTS $(xfs_io -r -c 'fsmap -d' /mnt/1 | wc -l) $(xfs_io -r -c 'fsmap -d' /mnt/4 | wc -l)"
echo 3 >/proc/sys/vm/drop_caches
run() {
	name=$1; shift
	rm -f /tmp/o.json
	gtime -f "%M" -o /tmp/rss mediascan scan "$@" --no-state -q --progress none --json /tmp/o.json
	echo "RUN $name $(jq -c '[.scanned_bytes, .elapsed_s, (.compare.rows // 0), (.compare.bytes // 0)]' /tmp/o.json) $(cat /tmp/rss)"
}
r=0
while [ $r -lt $rounds ]; do
	for m in 1 2 3; do
		run plain-md$m /mnt/$m --no-compare
		run compare-md$m /mnt/$m --compare
	done
	r=$((r + 1))
done
run compare-few /mnt/1 --compare
run compare-frag /mnt/4 --compare
echo DONE
EOF
start=$(date -u +%H:%M)
"$root/tests/vm/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" --timeout 1800 \
	"${nvme_args[@]}" >"$tmp/out" 2>"$tmp/err" || { tail -n 30 "$tmp/out" "$tmp/err" >&2; exit 1; }
grep -q '^DONE' "$tmp/out" || { tail -n 30 "$tmp/out" >&2; exit 1; }
accel=$(grep -o 'accelerator [a-z]*' "$tmp/err" | head -n 1 | cut -d' ' -f2)
echo "# vm-compare: md RAID1 of 2, RAID5 of 3, RAID6 of 4 NVMe namespaces, reads throttled to $throttle_mib MiB/s each; XFS with $fill_mib MiB of files; QEMU $(qemu-system-x86_64 --version | head -n 1 | awk '{ print $4 }'), ${accel:-?}; $rounds rounds; $start-$(date -u +%H:%M) UTC; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 - "$tmp/out" <<'PY'
import json, sys, statistics, collections
runs = collections.defaultdict(list)
ext = None
for line in open(sys.argv[1]):
    p = line.split()
    if p and p[0] == "RUN":
        sb, el, rows, cb = json.loads(p[2])
        runs[p[1]].append((sb / el / 2**20 if el else 0, int(p[3]), rows))
    elif p and p[0] == "EXTENTS":
        ext = (int(p[1]), int(p[2]))
print("| array | plain MiB/s | compare MiB/s | ratio | rows compared | plain RSS KiB | compare RSS KiB |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for m, lvl in (("md1", "RAID1 of 2"), ("md2", "RAID5 of 3"), ("md3", "RAID6 of 4")):
    p, c = runs[f"plain-{m}"], runs[f"compare-{m}"]
    pr, cr = statistics.median(x[0] for x in p), statistics.median(x[0] for x in c)
    print(f"| {lvl} | {pr:.1f} | {cr:.1f} | {cr / pr:.2f}x | {c[0][2]} | "
          f"{statistics.median(x[1] for x in p)} | {statistics.median(x[1] for x in c)} |")
few, frag = runs["compare-few"][0], runs["compare-frag"][0]
print()
print(f"Peak RSS of a comparing scan: {few[1]} KiB over {ext[0] if ext else '?'} fsmap records "
      f"(RAID1, few extents), {frag[1]} KiB over {ext[1] if ext else '?'} (RAID1, fragmented file).")
PY
