#!/usr/bin/env bash
# tests/bench/vm-thin.sh - issue 31's speed, in one QEMU boot (tests/vm/, build-image
# --stack-tools; TCG unless KVM works): an LVM thin pool on one NVMe namespace with a thin
# volume (XFS, FILL_MIB of files) and a snapshot of it, and a second volume.
#   map     1000 sectors of the pool's data disk (every provisioned data block's first sector
#           and a spread of the rest), as kernel-log lines, through `mediascan map --kernel-log`
#           (the model walked once, live, no metadata snapshot) against thin_rmap over the same
#           data blocks (what an admin has today: it refuses live metadata, so it reads a copy
#           of the metadata device taken under a metadata snapshot this bench reserves and
#           releases; the copy's time is printed apart, not counted). Goal <= 0.5x. The
#           same answers asked on the volumes themselves (each answer's top device and
#           offset) give the owners' and paths' cost: the rest is the thin layer's.
#   scan    `mediascan scan` of the volume (25% of it provisioned) against its provisioned
#           bytes (thin_dump) and against the whole pool's data device: goal <= 1.1x
#           provisioned.
# MEDIASCAN_ALT=path: an older binary, its map timed in the same boot beside (and its JSON
# answer compared byte for byte with this one's).
# Prints a markdown table; not a test. Usage: tests/bench/vm-thin.sh [BUILD_DIR]
# Environment: FILL_MIB (default 8000), POOL_MIB (the pool's size, default 8400; at least
# FILL_MIB + 200), ROUNDS (default 3), MEDIASCAN_ALT. The pool's size sets what is compared:
# thin_rmap reads every mapping for each run (1.55 s at 8400 MiB, 130140 blocks mapped; 0.74 s
# at 2400; 0.23 s at 1000 with 3408), the map's time hardly moves (0.62, 0.63, 0.29 s), and
# under TCG both tools' start-up (0.14-0.25 s) is the whole of a toy pool's run. The whole
# bench takes ~4 min at the default under TCG.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
fill=${FILL_MIB:-8000}
pool=${POOL_MIB:-8400}
rounds=${ROUNDS:-3}
PATH=/usr/sbin:/sbin:$PATH
for t in qemu-system-x86_64 jq pdata_tools; do
	command -v "$t" >/dev/null || { echo "needs $t on the host (scripts/deps)" >&2; exit 1; }
done
bin=${MEDIASCAN_BIN:-$(cd "$build" && pwd)/mediascan}
blkmark=$build/tests/tools/blkmark
[[ -x $bin && -x $blkmark ]] || { echo "build mediascan and tests/tools/blkmark first" >&2; exit 1; }
alt=${MEDIASCAN_ALT:-}
[[ -z $alt || -x $alt ]] || { echo "MEDIASCAN_ALT: $alt is no binary" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmthinb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export VMTEST_ACCEL_CACHE=$tmp/accel
altbin=()
[[ -n $alt ]] && altbin=(--bin "$alt:/usr/bin/mediascan-alt")
"$root/tests/vm/build-image" "$tmp/initrd" --stack-tools --modules "xfs dm-snapshot" \
	--autoload "xfs dm-mod dm-thin-pool dm-snapshot" --bin "$bin:/usr/bin/mediascan" \
	--bin "$blkmark:/usr/bin/blkmark" --bin "$(command -v jq)" "${altbin[@]}" \
	--bin "$(command -v pdata_tools):/usr/sbin/thin_rmap" \
	--bin "$(command -v pdata_tools):/usr/sbin/thin_dump" \
	>/dev/null 2>"$tmp/build.err" || { cat "$tmp/build.err" >&2; exit 1; }
truncate -s $((pool + 200))M "$tmp/ns1.img"
cat >"$tmp/guest.sh" <<EOF
fill=$fill rounds=$rounds alt=${alt:+1} pool=$pool
EOF
cat >>"$tmp/guest.sh" <<'EOF'
d=$(for x in /sys/block/nvme*n*; do echo /dev/${x##*/}; done | head -n 1)
q() { "$@" >/dev/null 2>&1 || echo "FAIL $*"; }
q pvcreate -q $d; q vgcreate -q vgt $d
q lvcreate -q -y -L ${pool}M -T vgt/pool
q lvcreate -q -y -V $((fill * 4))M -T vgt/pool -n va
q lvcreate -q -y -V 320M -T vgt/pool -n vb
q mkfs.xfs -q -f -K /dev/vgt/va; mkdir -p /mnt/va; q mount /dev/vgt/va /mnt/va
q mkfs.xfs -q -f -K /dev/vgt/vb; mkdir -p /mnt/vb; q mount /dev/vgt/vb /mnt/vb
blkmark write /mnt/va/a.dat a $((fill * 256)) >/dev/null || echo "FAIL fill"
sync
q lvcreate -q -y -s -kn -n vsnap vgt/va
blkmark write /mnt/va/c.dat c 1024 >/dev/null
sync
tp=$(dmsetup ls | awk '/^vgt-pool-tpool/ { print $1 }')
bs=$(dmsetup table "$tp" | awk '{ print $6 }')
toff=$(dmsetup table vgt-pool_tdata | awk '{ print $5 }')
tlen=$(dmsetup table vgt-pool_tdata | awk '{ print $2 }')
# the provisioned data blocks, from a metadata snapshot taken (and released) here
q dmsetup message "$tp" 0 reserve_metadata_snap
thin_dump --metadata-snap /dev/mapper/vgt-pool_tmeta >/tmp/dump.xml
q dmsetup message "$tp" 0 release_metadata_snap
awk -F'"' '/single_mapping/ { for (i = 1; i < NF; i++) if ($i ~ /data_block=$/) print $(i + 1) }
	/range_mapping/ { for (i = 1; i < NF; i++) { if ($i ~ /data_begin=$/) b = $(i + 1); if ($i ~ /length=$/) l = $(i + 1) }
		for (k = 0; k < l; k++) print b + k }' /tmp/dump.xml | sort -n -u >/tmp/prov
nprov=$(wc -l </tmp/prov)
vaid=$(dmsetup table vgt-va | awk '{ print $5 }')
vaprov=$(awk -v id="$vaid" -F'"' '/<device / { dev = 0; for (i = 1; i < NF; i++) if ($i ~ /dev_id=$/) dev = $(i + 1) }
	dev == id && /single_mapping/ { n++ } dev == id && /range_mapping/ { for (i = 1; i < NF; i++) if ($i ~ /length=$/) n += $(i + 1) }
	END { print n + 0 }' /tmp/dump.xml)
echo "FACTS $bs $nprov $tlen $vaprov"
# 1000 data blocks: every provisioned one up to 1000, the rest spread over the pool
head -n 1000 /tmp/prov >/tmp/blocks
n=$(wc -l </tmp/blocks); i=0
while [ $n -lt 1000 ]; do echo $(( (i * 7919) % (tlen / bs) )) >>/tmp/blocks; n=$((n + 1)); i=$((i + 1)); done
sort -n -u /tmp/blocks >/tmp/b2; mv /tmp/b2 /tmp/blocks
dev=${d#/dev/}
awk -v o="$toff" -v b="$bs" -v dev="$dev" '{ printf "[ 1.0] I/O error, dev %s, sector %d op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0\n", dev, o + $1 * b }' \
	/tmp/blocks >/tmp/klog
regions=$(awk '{ printf " --region %d..%d", $1, $1 + 1 }' /tmp/blocks)
echo "QUERIES $(wc -l </tmp/blocks)"
now() { cut -d' ' -f1 /proc/uptime; }
r=0
while [ $r -lt $rounds ]; do
	echo 3 >/proc/sys/vm/drop_caches
	t0=$(now)
	mediascan map --kernel-log /tmp/klog --json /tmp/m.json >/dev/null 2>&1
	t1=$(now)
	# the older binary on the same pool, before the copy below writes to it (a block
	# unprovisioned for one and provisioned for the other is a different answer)
	if [ -n "$alt" ]; then
		echo 3 >/proc/sys/vm/drop_caches
		a0=$(now)
		mediascan-alt map --kernel-log /tmp/klog --json /tmp/a.json >/dev/null 2>&1
		a1=$(now)
	fi
	# thin_rmap refuses a live pool's metadata: a copy of it (taken under a metadata
	# snapshot, so nothing is freed meanwhile), its time apart
	q dmsetup message "$tp" 0 reserve_metadata_snap
	t2=$(now)
	dd if=/dev/mapper/vgt-pool_tmeta of=/mnt/vb/meta.bin bs=1M iflag=direct status=none
	sync
	t3=$(now)
	q dmsetup message "$tp" 0 release_metadata_snap
	echo 3 >/proc/sys/vm/drop_caches
	t4=$(now)
	thin_rmap $regions /mnt/vb/meta.bin >/tmp/rmap.out 2>&1 || echo "FAIL thin_rmap $(head -c 200 /tmp/rmap.out)"
	t5=$(now)
	echo 3 >/proc/sys/vm/drop_caches
	# the same answers asked on the volumes and snapshot themselves (each answer's top
	# device and offset): the owners and paths alone, so the difference is the thin layer
	jq -r '.media_errors[] | .stack[-1] | select(.kind == "dm-thin" or .kind == "dm") |
		"\(.device) \(.offset)"' /tmp/m.json |
		awk '{ sub("/dev/", "", $1); printf "[ 1.0] I/O error, dev %s, sector %d op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0\n", $1, int($2 / 512) }' >/tmp/vklog
	echo 3 >/proc/sys/vm/drop_caches
	t6=$(now)
	mediascan map --kernel-log /tmp/vklog --json /tmp/v.json >/dev/null 2>&1
	t7=$(now)
	echo "MAP $t0 $t1 $t2 $t3 $t4 $t5 $(jq '.media_errors | length' /tmp/m.json) $(wc -l </tmp/rmap.out) $t6 $t7 $(jq '.media_errors | length' /tmp/v.json)"
	# each tool's fixed cost (start-up, the pool's model or metadata read once): one sector
	head -n 1 /tmp/klog >/tmp/klog1
	echo 3 >/proc/sys/vm/drop_caches
	t0=$(now)
	mediascan map --kernel-log /tmp/klog1 --json /tmp/m1.json >/dev/null 2>&1
	t1=$(now)
	if [ -n "$alt" ]; then
		echo 3 >/proc/sys/vm/drop_caches
		a2=$(now)
		mediascan-alt map --kernel-log /tmp/klog1 --json /tmp/a1.json >/dev/null 2>&1
		a3=$(now)
	fi
	echo 3 >/proc/sys/vm/drop_caches
	t2=$(now)
	thin_rmap $(echo $regions | cut -d' ' -f1-2) /mnt/vb/meta.bin >/dev/null 2>&1
	t3=$(now)
	echo "ONE $t0 $t1 $t2 $t3"
	if [ -n "$alt" ]; then
		same=no
		cmp -s /tmp/m.json /tmp/a.json && cmp -s /tmp/m1.json /tmp/a1.json && same=yes
		echo "ALT $a0 $a1 $a2 $a3 $same"
		if [ $same = no ]; then		# what differs, on stderr's side of the table
			jq -S . /tmp/m.json >/tmp/ms.s; jq -S . /tmp/a.json >/tmp/as.s
			diff /tmp/ms.s /tmp/as.s | head -n 20 | sed 's/^/ALTDIFF /'
		fi
	fi
	rm -f /tmp/s.json /mnt/vb/meta.bin
	mediascan scan /mnt/va --no-state -q --progress none --json /tmp/s.json >/dev/null 2>&1
	echo "SCAN $(jq -c '[.read_bytes, .elapsed_s]' /tmp/s.json)"
	r=$((r + 1))
done
echo DONE
EOF
start=$(date -u +%H:%M)
"$root/tests/vm/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" --timeout 1800 \
	--nvme "$tmp/ns1.img" >"$tmp/out" 2>"$tmp/err" || { tail -n 30 "$tmp/out" "$tmp/err" >&2; exit 1; }
grep -q '^DONE' "$tmp/out" || { tail -n 30 "$tmp/out" >&2; exit 1; }
grep '^FAIL' "$tmp/out" >&2 || true
grep '^ALTDIFF' "$tmp/out" >&2 || true
accel=$(grep -o 'accelerator [a-z]*' "$tmp/err" | head -n 1 | cut -d' ' -f2)
echo "# vm-thin: LVM thin pool ($pool MiB) on one NVMe namespace, a volume with $fill MiB of files and its snapshot, a second volume; QEMU $(qemu-system-x86_64 --version | head -n 1 | awk '{ print $4 }'), ${accel:-?}; $rounds rounds; $start-$(date -u +%H:%M) UTC; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 - "$tmp/out" <<'PY'
import json, statistics, sys
maps, scans, facts, nq, ones, alts = [], [], None, None, [], []
for line in open(sys.argv[1]):
    p = line.split()
    if not p:
        continue
    if p[0] == "MAP":
        t = [float(x) for x in p[1:7]]
        maps.append((t[1] - t[0], t[5] - t[4], p[7], p[8], t[3] - t[2], float(p[10]) - float(p[9]), p[11]))
    elif p[0] == "ONE":
        t = [float(x) for x in p[1:5]]
        ones.append((t[1] - t[0], t[3] - t[2]))
    elif p[0] == "ALT":
        t = [float(x) for x in p[1:5]]
        alts.append((t[1] - t[0], t[3] - t[2], p[5]))
    elif p[0] == "SCAN":
        scans.append(json.loads(p[1]))
    elif p[0] == "FACTS":
        facts = [int(x) for x in p[1:]]
    elif p[0] == "QUERIES":
        nq = int(p[1])
bs, nprov, tlen, vaprov = facts
m, r = statistics.median(x[0] for x in maps), statistics.median(x[1] for x in maps)
print("| what | mediascan | reference | ratio |")
print("| --- | --- | --- | --- |")
print(f"| map {nq} data-disk sectors (`map --kernel-log`, live) vs `thin_rmap` {nq} regions (on a copy of the metadata) | "
      f"{m:.2f} s ({maps[0][2]} answers) | {r:.2f} s ({maps[0][3]} lines; the copy {statistics.median(x[4] for x in maps):.2f} s more) | {m / r:.2f}x |")
v = statistics.median(x[5] for x in maps)
print(f"| the same answers asked on each volume and snapshot itself (owners and paths, no thin layer) | "
      f"{v:.2f} s ({maps[0][6]} answers) | - | thin layer {m - v:.2f} s, {(m - v) / r:.2f}x thin_rmap |")
m1, r1 = statistics.median(x[0] for x in ones), statistics.median(x[1] for x in ones)
print(f"| fixed cost: one sector (start-up, the pool's model; thin_rmap: start-up, one region of the copy) | "
      f"{m1:.2f} s | {r1:.2f} s | {m1 / r1:.2f}x |")
print(f"| per sector past the first ((all - one) / {nq - 1}) | {(m - m1) / (nq - 1) * 1000:.3f} ms | "
      f"{(r - r1) / (nq - 1) * 1000:.3f} ms | {(m - m1) / max(r - r1, 1e-9):.1f}x |")
if alts:
    a, a1 = statistics.median(x[0] for x in alts), statistics.median(x[1] for x in alts)
    same = "identical" if all(x[2] == "yes" for x in alts) else "DIFFERENT"
    print(f"| the same map by MEDIASCAN_ALT (JSON answers {same} byte for byte): all; one sector; per sector past the first | "
          f"{a:.2f} s; {a1:.2f} s; {(a - a1) / (nq - 1) * 1000:.3f} ms | - | this binary: {m / a:.2f}x; {(m - m1) / max(a - a1, 1e-9):.2f}x per sector |")
rb = statistics.median(s[0] for s in scans)
prov_b = vaprov * bs * 512
print(f"| scan of the volume: bytes read vs its provisioned bytes | {rb} | {prov_b} | {rb / prov_b:.2f}x |")
print(f"| the same vs the whole pool's data device | {rb} | {tlen * 512} | {rb / (tlen * 512):.2f}x |")
print()
print(f"Pool: {nprov} of {tlen // bs} data blocks of {bs * 512 // 1024} KiB provisioned; the volume maps {vaprov}.")
PY
