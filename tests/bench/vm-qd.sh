#!/usr/bin/env bash
# tests/bench/vm-qd.sh - issue 10's queue-depth benchmark: elapsed time of
# `mediascan scan DEV --method M --queue-depth Q` for Q = 1, 4, 16, in one QEMU boot (tests/vm/;
# KVM when a probe boot under it works, TCG otherwise):
#   - one NVMe namespace with protection information (512 + 8 bytes, PI type 1, every block
#     written: zero data with a valid guard and reference tag), the same whole-device plan
#     for read, nvme-verify and pi-read;
#   - scsi_debug (RAM-backed, its default 1-jiffy command delay), read and scsi-verify.
# Each cell: the report's elapsed_s (the scan alone) and the wall time of the whole command,
# median of ROUNDS, with the engine and the most commands in flight (max_inflight).
# Usage: tests/bench/vm-qd.sh [BUILD_DIR]   Environment: ROUNDS (default 3), NS_MIB
# (NVMe namespace, default 256), SD_MIB (scsi_debug, default 128). Prints markdown tables;
# not a pass/fail test, except that a scan that fails or finds errors is reported as such.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
rounds=${ROUNDS:-3}
ns_mib=${NS_MIB:-256}
sd_mib=${SD_MIB:-128}

command -v qemu-system-x86_64 >/dev/null || { echo "needs qemu-system-x86_64 (scripts/deps)" >&2; exit 1; }
bin=$(cd "$build" && pwd)/mediascan
[[ -x $bin ]] || { echo "$bin is not built" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmqd.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Written blocks, not holes (QEMU answers holes without touching its image file): zero data,
# then the separate metadata: guard = CRC16 of a zero block, application tag 0, ref = LBA.
python3 - "$tmp/ns.img" "$ns_mib" <<'PY'
import sys, struct
path, mib = sys.argv[1], int(sys.argv[2])
nblocks = mib * 2048
def crc16(data):
    crc = 0
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x8BB7) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc
g = crc16(bytes(512))
with open(path, "wb") as f:
    chunk = bytes(1 << 20)
    for _ in range(mib):
        f.write(chunk)
    for start in range(0, nblocks, 65536):
        f.write(b"".join(struct.pack(">HHI", g, 0, i & 0xFFFFFFFF)
                         for i in range(start, min(start + 65536, nblocks))))
PY
cp "$bin" "$tmp/mediascan"		# a rebuild during the run does not change it

cat >"$tmp/guest.sh" <<EOF
rounds=$rounds
sd_mib=$sd_mib
EOF
cat >>"$tmp/guest.sh" <<'EOF'
one() {		# DEV METHOD QD: "dev method qd elapsed_s wall_s engine max_inflight errors exit"
	t0=$(cut -d' ' -f1 /proc/uptime)
	mediascan scan "$1" --method "$2" --queue-depth "$3" --no-state --progress none -q \
		--json /tmp/r.json; rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "$1 $2 $3 $(jq .elapsed_s /tmp/r.json) $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') \
$(jq -r .engine /tmp/r.json) $(jq .max_inflight /tmp/r.json) $(jq '.media_errors | length' /tmp/r.json) $rc"
}
modload scsi_debug dev_size_mb=$sd_mib sector_size=512 >/dev/null 2>&1
sd=""
for i in $(seq 1 100); do
	for d in /sys/block/sd*; do
		[ -e "$d/device/model" ] && grep -q scsi_debug "$d/device/model" && sd=${d##*/}
	done
	[ -n "$sd" ] && [ -b /dev/$sd ] && break
	sleep 0.1
done
echo "NVME $(cat /sys/block/nvme0n1/integrity/format) $(cat /sys/block/nvme0n1/queue/max_hw_sectors_kb)"
one /dev/nvme0n1 read 16 >/dev/null	# warm up: the binary, QEMU's image cache
for r in $(seq 1 "$rounds"); do
	for qd in 1 4 16; do
		for m in read nvme-verify pi-read; do one /dev/nvme0n1 $m $qd; done
		[ -n "$sd" ] && for m in read scsi-verify; do one /dev/$sd $m $qd; done
	done
done | sed 's/^/RUN /'
EOF

"$root/tests/vm/build-image" "$tmp/initrd" --bin "$tmp/mediascan:/usr/bin/mediascan" \
	--bin "$(command -v jq)" >/dev/null 2>"$tmp/build.err" || { cat "$tmp/build.err"; exit 1; }
"$root/tests/vm/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" --timeout 3600 \
	--mem 1G --smp 2 --nvme "$tmp/ns.img,logical_block_size=512,ms=8,mset=0,pi=1,pil=0" \
	>"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err"; exit 1; }
accel=$(sed -n 's/^vm\/run: guest exit .*(\(kvm\|tcg\))$/\1/p' "$tmp/err" | tail -n 1 | tr a-z A-Z)
grep -q '^RUN ' "$tmp/out" || { cat "$tmp/out"; exit 1; }

echo "# vm-qd: ${ns_mib} MiB NVMe namespace ($(awk '/^NVME/ { print $2 }' "$tmp/out"), 512+8 B), scsi_debug ${sd_mib} MiB; QEMU $(qemu-system-x86_64 --version |
	head -1 | awk '{ print $4 }'), $accel, 2 vCPUs; rounds=$rounds; mediascan $(git -C "$root" rev-parse --short HEAD)"
echo
echo "| device | method | engine | QD 1: scan s / wall s | QD 4 | QD 16 | max in flight at 16 | errors, exit |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
awk '
	$1 == "RUN" {
		k = $2 " " $3; q = $4
		n[k, q]++; e[k, q, n[k, q]] = $5; w[k, q, n[k, q]] = $6
		eng[k] = $7; if (q == 16) mi[k] = $8; err[k] = err[k] " " $9 "/" $10
		if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	}
	function med(a, k, q, c,    i, j, t, v) {
		for (i = 1; i <= c; i++) v[i] = a[k, q, i]
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++)
			if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
	}
	END {
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, p, " ")
			line = "| " p[1] " | " p[2] " | " eng[k]
			for (qi = 1; qi <= 3; qi++) {
				q = qi == 1 ? 1 : qi == 2 ? 4 : 16
				line = line sprintf(" | %.2f / %.2f", med(e, k, q, n[k, q]), med(w, k, q, n[k, q]))
			}
			# errors/exit of every run, deduplicated
			split(err[k], ee, " "); u = ""
			for (j in ee) if (index(" " u " ", " " ee[j] " ") == 0) u = u (u ? " " : "") ee[j]
			print line " | " mi[k] " | " u " |"
		}
	}' "$tmp/out"
echo
echo "raw runs (device, method, QD, scan s, wall s, engine, max in flight, errors, exit):"
grep '^RUN' "$tmp/out" | sed 's/^RUN /    /'
