#!/usr/bin/env bash
# tests/bench/isolation-reads.sh - issue 10, "Speed": device reads per isolated bad block.
# A 64 MiB raw loop device over the FUSE fault disk (tests/faultdisk), scanned whole with
# 1 MiB reads. Every bad 512-byte sector is its own fault-disk range, so the disk's own
# counter (ctl: "bad OFFSET LENGTH reads=N", read requests that touched the range) says how
# often each bad sector reached the device. Cases: one bad sector, 8 sectors scattered
# under one 1 MiB read, a 64 KiB bad run. Per case and build: reads per bad sector (max and
# mean), the scan's isolation_reads, the scan's elapsed_s (median of ROUNDS) as it is, and
# again with every read of a bad sector delayed by DELAY_MS (a disk that retries a bad
# sector inside before failing it: what a slow failing read costs).
# VM=1 adds a second table from one QEMU boot (tests/vm/; KVM when a probe boot works, TCG
# otherwise): the same sectors on a 64 MiB NVMe namespace (blkdebug: the guest sees each
# failed command as an I/O error, and its NVMe driver retries a failed block-layer read 5
# times) and on null_blk (badblocks; nothing below the block layer retries), scanned with
# --method read (and nvme-verify on NVMe). Counted where the device is, the way
# tests/bench/vm-xfs-scrub.sh counts: NVMe commands from QEMU's trace events pci_nvme_read
# and pci_nvme_verify (each command the controller executed, the driver's retries included;
# runs fenced by a one-block read of a marker namespace), null_blk requests from the
# guest's block_rq_issue trace event.
# Usage: tests/bench/isolation-reads.sh          Environment: MEDIASCAN (after, default
# build/mediascan), MEDIASCAN_ALT (before: a build of an older commit; skipped if unset),
# FAULTDISK (default build/tests/faultdisk/faultdisk), ROUNDS (default 3), DELAY_MS (20),
# VM=1 (the VM table too; KEEP=1 keeps its directory).
# Run under the shared lock: flock /tmp/ms-heavy.lock tests/bench/isolation-reads.sh
# Prints a markdown table; not a pass/fail test (tests/e2e/scan-isolation-reads.sh is).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/lib/e2e.sh"
e2e_require_root_loop_fuse
command -v jq >/dev/null || { echo "needs jq" >&2; exit 1; }
rounds=${ROUNDS:-3}
delay=${DELAY_MS:-20}
after=${MEDIASCAN:-$root/build/mediascan}
M=1048576

e2e_setup 64 >/dev/null
e2e_readonly on
bins=()
[[ -n ${MEDIASCAN_ALT:-} ]] && { cp "$MEDIASCAN_ALT" "$E2E_DIR/before"; bins+=(before); }
cp "$after" "$E2E_DIR/after"
bins+=(after)

# sectors CASE : the bad sectors of a case, as byte offsets, one per line.
sectors()
{
	case $1 in
	one) echo $((9 * M + 777 * 512)) ;;
	scattered8) for k in 0 1 2 3 4 5 6 7; do echo $((40 * M + k * 131072 + k * 1536)); done ;;
	run64k) for ((o = 30 * M + 100 * 1024; o < 30 * M + 164 * 1024; o += 512)); do echo $o; done ;;
	esac
}

# scan_once BIN WITH_DELAY : one scan; prints "max mean isolation_reads elapsed_s".
scan_once()
{
	local out=$E2E_DIR/r.json rc=0
	e2e_reset_counters
	"$E2E_DIR/$1" scan "$E2E_LOOP" --no-state --io-size 1M --progress none -q \
		--json "$out" || rc=$?
	[[ $rc == 1 ]] || { echo "$1: exit $rc, want 1" >&2; exit 1; }
	e2e_ctl | awk -v iso="$(jq .isolation_reads "$out")" -v s="$(jq .elapsed_s "$out")" '
		$1 == "bad" { sub(/^reads=/, "", $4); n++; t += $4; if ($4 > m) m = $4 }
		END { printf "%d %.2f %d %.3f\n", m, t / n, iso, s }'
}

echo "# isolation-reads: 64 MiB raw loop device over the FUSE fault disk, 1 MiB reads," \
	"queue depth 16 (default), rounds=$rounds, delay $delay ms per read of a bad sector"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC')  nproc=$(nproc)  kernel=$(uname -r)" \
	" mediascan $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo
echo "| case | bad sectors | build | device reads per bad sector: max / mean | isolation reads | scan s | scan s, $delay ms per bad read |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for c in one scattered8 run64k; do
	mapfile -t secs < <(sectors "$c")
	for b in "${bins[@]}"; do
		e2e_bad_clear
		for s in "${secs[@]}"; do e2e_bad_add "$s" 512; done
		t=() td=()
		for ((r = 0; r < rounds; r++)); do
			read -r max mean iso s < <(scan_once "$b")
			t+=("$s")
		done
		for s in "${secs[@]}"; do e2e_delay_add "$s" 512 "$delay"; done
		for ((r = 0; r < rounds; r++)); do
			read -r _ _ _ s < <(scan_once "$b")
			td+=("$s")
		done
		med=$(printf '%s\n' "${t[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		medd=$(printf '%s\n' "${td[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		echo "| $c | ${#secs[@]} | $b | $max / $mean | $iso | $med | $medd |"
	done
done
e2e_bad_clear

[[ -n ${VM:-} ]] || exit 0

# ---------------------------------------------------------------- VM: NVMe and null_blk
command -v qemu-system-x86_64 >/dev/null || { echo "VM=1 needs qemu-system-x86_64" >&2; exit 1; }
vt=$E2E_DIR/vm
mkdir "$vt"
export VMTEST_ACCEL_CACHE=$vt/accel
all=""
for c in one scattered8 run64k; do
	for o in $(sectors "$c"); do all="$all${all:+ }$((o / 512))"; done
done
truncate -s 64M "$vt/ns1.img"
truncate -s 1M "$vt/marker.img"
ibins=()
for b in "${bins[@]}"; do ibins+=(--bin "$E2E_DIR/$b:/usr/bin/ms-$b"); done
cat >"$vt/guest.sh" <<EOF
bins="${bins[*]}"
bad="$all"
EOF
cat >>"$vt/guest.sh" <<'EOF'
T=/sys/kernel/debug/tracing
echo 16384 >$T/buffer_size_kb
echo 1 >$T/events/block/block_rq_issue/enable
mk=0
# run DEV BUILD METHOD: one scan fenced by a marker read; prints "RUN dev build method marker
# seconds exit [isolation_reads, errors]" and, on null_blk, "NB build method sector reads".
run() {
	mk=$((mk + 1))
	/usr/bin/dd if=/dev/nvme0n2 of=/dev/null bs=512 count=1 skip=$mk iflag=direct status=none
	echo 0 >$T/tracing_on; : >$T/trace; echo 1 >$T/tracing_on
	t0=$(cut -d' ' -f1 /proc/uptime)
	ms-$2 scan $1 --method $3 --io-size 1M --no-state --progress none -q --json /tmp/o \
		>/dev/null 2>&1
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo 0 >$T/tracing_on
	echo "RUN ${1#/dev/} $2 $3 $mk $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') $rc $(jq -c '[.isolation_reads, [.media_errors[] | [.offset / 512, .length / 512, .reads]]]' /tmp/o)"
	case $1 in
	/dev/nullb*)
		bdev=$(tr ':' ',' </sys/block/${1#/dev/}/dev)
		awk -v dev="$bdev" -v bad="$bad" '
			{ for (i = 1; i <= NF; i++) if ($i == "block_rq_issue:") break }
			$(i + 1) == dev && $(i + 2) ~ /R/ {
				s = $(i + 5); n = $(i + 7); m = split(bad, b, " ")
				for (k = 1; k <= m; k++) if (s <= b[k] && b[k] < s + n) c[k]++
			}
			END { m = split(bad, b, " "); for (k = 1; k <= m; k++) print "NB", b[k], c[k] + 0 }' $T/trace |
			sed "s/^NB /NB $2 $3 /" ;;
	esac
}
modload null_blk nr_devices=0
c=/sys/kernel/config/nullb/nullb0
mkdir $c && echo 512 >$c/blocksize && echo 64 >$c/size && echo 1 >$c/memory_backed &&
	echo 1 >$c/power && waitfor /dev/nullb0 10 || { echo "NULLB-FAILED"; exit 1; }
for s in $bad; do echo "+$s-$s" >$c/badblocks; done
for b in $bins; do
	run /dev/nvme0n1 $b read
	run /dev/nvme0n1 $b nvme-verify
	run /dev/nullb0 $b read
done
mk=$((mk + 1))
/usr/bin/dd if=/dev/nvme0n2 of=/dev/null bs=512 count=1 skip=$mk iflag=direct status=none
EOF
"$root/tests/vm/build-image" "$vt/initrd" "${ibins[@]}" --bin "$(command -v jq)" \
	>/dev/null 2>"$vt/build.err" || { cat "$vt/build.err"; exit 1; }
"$root/tests/vm/run" --initrd "$vt/initrd" --script "$vt/guest.sh" --timeout 1200 --mem 1G \
	--nvme "$vt/ns1.img,logical_block_size=512,read-error=${all// /+}" \
	--nvme "$vt/marker.img,logical_block_size=512" \
	--qemu-arg -trace --qemu-arg pci_nvme_read --qemu-arg -trace --qemu-arg pci_nvme_verify \
	--qemu-arg -D --qemu-arg "$vt/qtrace" >"$vt/out" 2>"$vt/err" ||
	{ cat "$vt/out" "$vt/err"; exit 1; }
accel=$(sed -n 's/^vm\/run: guest exit .*(\(kvm\|tcg\))$/\1/p' "$vt/err" | tail -n 1 | tr a-z A-Z)
# NVMe commands per bad sector and marker, from QEMU's trace: "marker sector count".
awk -v bad="$all" '
	function hex(x,    v, i) {	# mawk has no strtonum
		v = 0; x = tolower(x); sub(/^0x/, "", x)
		for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v
	}
	BEGIN { n = split(bad, b, " ") }
	/pci_nvme_read / || /pci_nvme_verify / {
		delete f; for (i = 1; i <= NF; i++) f[$i] = $(i + 1)
		lba = hex(/pci_nvme_read / ? f["lba"] : f["slba"])
		if (f["nsid"] == 2) { mk = lba; next }
		for (i = 1; i <= n; i++) if (lba <= b[i] && b[i] < lba + f["nlb"]) c[mk " " b[i]]++
	}
	END { for (k in c) print k, c[k] }' "$vt/qtrace" >"$vt/nvme"
if [[ -n ${KEEP:-} ]]; then
	cp -r "$vt" "${TMPDIR:-/tmp}/isolation-reads-vm.$$"
	echo "kept ${TMPDIR:-/tmp}/isolation-reads-vm.$$" >&2
fi
echo
echo "# VM: QEMU $(qemu-system-x86_64 --version | head -1 | awk '{ print $4 }'), $accel;" \
	"64 MiB NVMe namespace (blkdebug) and null_blk with the same bad sectors, 1 MiB reads"
echo
echo "| device, method | build | device commands per bad sector, max (mean): one / 8 scattered / 64 KiB run | the errors' reads (block layer) | isolation reads | scan s |"
echo "| --- | --- | --- | --- | --- | --- |"
for dm in "nvme0n1 read" "nvme0n1 nvme-verify" "nullb0 read"; do
	read -r d m <<<"$dm"
	for b in "${bins[@]}"; do
		line=$(awk -v d="$d" -v b="$b" -v m="$m" \
			'$1 == "RUN" && $2 == d && $3 == b && $4 == m' "$vt/out")
		[[ -n $line ]] || { echo "| $d $m | $b | no run | | | |"; continue; }
		read -r _ _ _ _ mk st _ js <<<"$line"
		per=""
		for c in one scattered8 run64k; do
			secs=$(sectors "$c" | awk '{ printf "%d ", $1 / 512 }')
			if [[ $d == nullb0 ]]; then
				cnt=$(awk -v b="$b" -v m="$m" -v s="$secs" '
					BEGIN { n = split(s, a, " "); for (i = 1; i <= n; i++) w[a[i]] = 1 }
					$1 == "NB" && $2 == b && $3 == m && ($4 in w) { print $5 }' "$vt/out")
			else
				cnt=$(awk -v mk="$mk" -v s="$secs" '
					BEGIN { n = split(s, a, " "); for (i = 1; i <= n; i++) w[a[i]] = 1 }
					$1 == mk && ($2 in w) { print $3 }' "$vt/nvme")
			fi
			per+="${per:+ / }$(awk -v want="$(wc -w <<<"$secs")" '{ t += $1; if ($1 > m) m = $1 }
				END { printf "%d (%.1f)", m, t / want }' <<<"$cnt")"
		done
		er=$(jq -r '[.[1][] | .[2]] | unique | map(tostring) | join(",")' <<<"$js")
		echo "| $d $m | $b | $per | ${er:-none} | $(jq '.[0]' <<<"$js") | $st |"
	done
done
