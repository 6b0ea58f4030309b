#!/usr/bin/env bash
# tests/bench/vm-proof.sh - what proving a drive-side method costs (issue 28), in one QEMU
# boot (tests/vm/; KVM when a probe boot under it works, TCG otherwise):
#   1 `mediascan scan /dev/nvme0n1` (auto: nvme-verify, proven at the start of the scan: the
#     first 64 MiB verified, then read) against the same scan whose proof comes from the
#     history (the state store of the scan before: nothing timed), side by side, order
#     alternating; the namespace bandwidth-bound by QEMU's throttle (BPS, default 200 MB/s)
#     as a disk is, so TCG's CPU is not what is measured. Wall seconds of the whole command.
#   2 `mediascan scan /dev/sdX --method read` of a virtio-scsi disk (QEMU scsi-hd: its VERIFY
#     fails the proof, so auto reads there too) against fio reading the same disk
#     sequentially (1 MiB, io_uring, O_DIRECT, depth 16), same throttle.
# Usage: tests/bench/vm-proof.sh [BUILD_DIR]   Environment: ROUNDS (default 2), NS_GIB (NVMe
# namespace, default 16), SCSI_GIB (virtio-scsi disk, default 2), BPS (bytes/s, default
# 200000000). Prints a markdown table; not a pass/fail test.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
rounds=${ROUNDS:-2}
ns_gib=${NS_GIB:-16}
scsi_gib=${SCSI_GIB:-2}
bps=${BPS:-200000000}

command -v qemu-system-x86_64 >/dev/null || { echo "needs qemu-system-x86_64 (scripts/deps)" >&2; exit 1; }
command -v fio >/dev/null || { echo "needs fio (scripts/deps)" >&2; exit 1; }
bin=$(cd "$build" && pwd)/mediascan
[[ -x $bin ]] || { echo "$bin is not built" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmproof.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Holes: QEMU serves them without its image file, but the throttle bounds them like data.
truncate -s "${ns_gib}G" "$tmp/ns.img"
truncate -s "${scsi_gib}G" "$tmp/sd.img"
cp "$bin" "$tmp/mediascan"		# a rebuild during the run does not change it

cat >"$tmp/guest.sh" <<EOF
rounds=$rounds
EOF
cat >>"$tmp/guest.sh" <<'EOF'
modload virtio_pci; modload virtio_scsi; sleep 2
sd=$(for d in /sys/block/sd*; do readlink -f $d/device | grep -q virtio && echo ${d##*/}; done | head -n 1)
now() { cut -d' ' -f1 /proc/uptime; }
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# proved: a fresh state store (the proof timed); kept: the store of the run before
one() {
	if [ "$1" = proved ]; then rm -rf /tmp/st; fi
	t0=$(now)
	mediascan scan /dev/nvme0n1 --state-dir /tmp/st --progress none -q --json /tmp/p.json
	rc=$?
	t1=$(now)
	echo "NVME $1 $(dt $t0 $t1) $(jq -r '[.method, .devices[0].trust.state, (.devices[0].trust.verify_s + .devices[0].trust.read_s), .scanned_bytes] | @tsv' /tmp/p.json) $rc"
}
one proved >/dev/null	# warm up, and a store for the first "kept"
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then one kept; one proved; else one proved; one kept; fi
done
for r in $(seq 1 "$rounds"); do
	t0=$(now)
	mediascan scan /dev/$sd --method read --no-state --progress none -q --json /tmp/s.json
	t1=$(now)
	echo "SCSI mediascan $(dt $t0 $t1) $(jq .scanned_bytes /tmp/s.json)"
	t0=$(now)
	fio --name=r --filename=/dev/$sd --rw=read --bs=1M --iodepth=16 --ioengine=io_uring \
		--direct=1 --output-format=terse >/dev/null 2>&1
	t1=$(now)
	echo "SCSI fio $(dt $t0 $t1) $(cat /sys/block/$sd/size | awk '{ print $1 * 512 }')"
done
EOF

"$root/tests/vm/build-image" "$tmp/initrd" --bin "$tmp/mediascan:/usr/bin/mediascan" \
	--bin "$(command -v jq)" --bin "$(command -v fio)" \
	--modules "sd_mod sg virtio_pci virtio_scsi" >/dev/null 2>"$tmp/build.err" ||
	{ cat "$tmp/build.err"; exit 1; }
"$root/tests/vm/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" --timeout 3600 \
	--mem 1G --smp 2 --nvme "$tmp/ns.img,logical_block_size=4096,bps-read=$bps" \
	--disk "virtio-scsi:$tmp/sd.img,bps-read=$bps" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/out" "$tmp/err"; exit 1; }
accel=$(sed -n 's/^vm\/run: guest exit .*(\(kvm\|tcg\))$/\1/p' "$tmp/err" | tail -n 1 | tr a-z A-Z)

echo "## The method's proof and reads of a virtio-scsi disk ($accel, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
echo
echo "NVMe namespace ${ns_gib} GiB, virtio-scsi disk ${scsi_gib} GiB, both throttled to $bps B/s by QEMU; $rounds rounds."
echo
echo "| run | wall s (each round) | mean | method, trust, proof s |"
echo "| --- | --- | --- | --- |"
for kind in proved kept; do
	awk -v k=$kind '$1 == "NVME" && $2 == k { s = s (s ? ", " : "") $3; t += $3; n++; m = $4 " " $5 " " $6 }
		END { printf "| nvme-verify, proof %s | %s | %.2f | %s |\n", k == "proved" ? "timed" : "from the history", s, t / n, m }' "$tmp/out"
done
awk '$1 == "NVME" && $2 == "proved" { p += $3; np++ } $1 == "NVME" && $2 == "kept" { k += $3; nk++ }
	END { printf "\nproof cost: %.2f%% of the pass (mean timed / mean kept - 1)\n", (p / np) / (k / nk) * 100 - 100 }' "$tmp/out"
echo
echo "| reader | wall s (each round) | mean | MB/s |"
echo "| --- | --- | --- | --- |"
for who in mediascan fio; do
	awk -v w=$who '$1 == "SCSI" && $2 == w { s = s (s ? ", " : "") $3; t += $3; b += $4; n++ }
		END { printf "| %s | %s | %.2f | %.1f |\n", w, s, t / n, b / t / 1e6 }' "$tmp/out"
done
awk '$1 == "SCSI" && $2 == "mediascan" { m += $3 } $1 == "SCSI" && $2 == "fio" { f += $3 }
	END { printf "\nmediascan read / fio: %.3fx (fio time / mediascan time)\n", f / m }' "$tmp/out"
