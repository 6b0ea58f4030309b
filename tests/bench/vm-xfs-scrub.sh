#!/usr/bin/env bash
# tests/bench/vm-xfs-scrub.sh - issue 9, part 3: mediascan against xfs_scrub's phase 6, in one
# QEMU boot (tests/vm/; KVM when a probe boot works, TCG otherwise) with the online-scrub
# xfs.ko (build-image --xfs-scrub). The XFS and its damaged copies are those of
# tests/vm/xfs-scrub-compare (--make-images): one read error per scenario (two in two-*),
# NVMe blkdebug (ENODATA in the guest) or null_blk badblocks (EIO). Every device is set
# read-only before its read-only mount.
# Per scenario and round (order alternating): `xfs_scrub -n -x`, `xfs_scrub -n`, `mediascan
# scan MNT` (default method), `mediascan scan MNT --method read`.
# Device reads of the bad sectors are counted where the device is:
#   NVMe: QEMU's own trace events pci_nvme_read and pci_nvme_verify (one per command the
#         controller executes, with its LBA range; retries by the guest's driver included),
#         cut into runs by a one-block O_DIRECT read of a marker namespace between runs;
#   null_blk: the guest's block_rq_issue trace event (null_blk executes each dispatched
#         request; nothing below it retries).
# Phase 6 time: median(xfs_scrub -n -x) - median(xfs_scrub -n), in-guest wall clock; the clean
# copy (no error) gives the time of a phase 6 that is not cut short.
# Usage: tests/bench/vm-xfs-scrub.sh [BUILD_DIR]   Environment: ROUNDS (default 5), KEEP=1
# (keep the temporary directory: guest output, QEMU trace).
# Prints markdown tables; not a pass/fail test.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
rounds=${ROUNDS:-5}

command -v qemu-system-x86_64 >/dev/null || { echo "needs qemu-system-x86_64 (scripts/deps)" >&2; exit 1; }
bin=$(cd "$build" && pwd)/mediascan
[[ -x $bin ]] || { echo "$bin is not built" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmxscb.XXXXXX")
trap '[[ -n ${KEEP:-} ]] && echo "kept $tmp" >&2 || rm -rf "$tmp"' EXIT
export VMTEST_ACCEL_CACHE=$tmp/accel
cp "$bin" "$tmp/mediascan"		# a rebuild during the run does not change it
"$root/tests/vm/xfs-scrub-compare" --make-images "$tmp" || { echo "could not make the XFS image" >&2; exit 1; }
. "$tmp/layout"

# scenario:nsid:device:bad sectors (512 B). nvme0n9 is the clean copy, nvme0n10 the marker.
specs="data-medium:1:$s_data reflink:2:$s_reflink hardlink:3:$s_hardlink xattr:4:$s_xattr
dir:5:$s_dir inode:6:$s_inode log:7:$s_log two-medium:8:$s_two1+$s_two2"
nvme_args=()
for spec in $specs clean:9:; do
	IFS=: read -r name ns bad <<<"$spec"
	cp --sparse=always "$tmp/base.img" "$tmp/ns$ns.img"
	nvme_args+=(--nvme "$tmp/ns$ns.img,logical_block_size=512${bad:+,read-error=$bad}")
done
truncate -s 1M "$tmp/marker.img"
nvme_args+=(--nvme "$tmp/marker.img,logical_block_size=512")

cat >"$tmp/guest.sh" <<EOF
rounds=$rounds
specs="$specs clean:9: data-eio:nbdata:$s_data two-eio:nbtwo:$s_two1+$s_two2"
EOF
cat >>"$tmp/guest.sh" <<'EOF'
use-xfs-scrub || { echo "use-xfs-scrub failed"; exit 1; }
T=/sys/kernel/debug/tracing
echo 16384 >$T/buffer_size_kb
echo 1 >$T/events/block/block_rq_issue/enable
mk=0
# run SCENARIO DEV TOOL ROUND: one timed run, fenced by marker reads (NVMe) and with the block
# trace cleared (null_blk). Prints "RUN scenario tool round marker seconds exit [reads]".
run() {
	mk=$((mk + 1))
	/usr/bin/dd if=/dev/nvme0n10 of=/dev/null bs=512 count=1 skip=$mk iflag=direct status=none
	echo 0 >$T/tracing_on; : >$T/trace; echo 1 >$T/tracing_on
	t0=$(cut -d' ' -f1 /proc/uptime)
	case $3 in
	scrub-x) xfs_scrub -n -x /mnt/x >/tmp/o 2>&1 ;;
	scrub-n) xfs_scrub -n /mnt/x >/tmp/o 2>&1 ;;
	ms) mediascan scan /mnt/x --no-state --progress none -q --json /tmp/o >/dev/null 2>&1 ;;
	ms-read) mediascan scan /mnt/x --method read --no-state --progress none -q --json /tmp/o >/dev/null 2>&1 ;;
	esac
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo 0 >$T/tracing_on
	reads=""
	case $2 in
	/dev/nb*)	# "nbdata-123 [000] ..... 12.3: block_rq_issue: 252,0 R 4096 () 4472 + 8 [xfs_scrub]"
		bdev=$(tr ':' ',' </sys/block/${2#/dev/}/dev)
		reads=$(awk -v dev="$bdev" -v bad="$bad" '
			{ for (i = 1; i <= NF; i++) if ($i == "block_rq_issue:") break }
			$(i + 1) == dev && $(i + 2) ~ /R/ {
				s = $(i + 5); n = $(i + 7); m = split(bad, b, "+")
				for (k = 1; k <= m; k++) if (s <= b[k] && b[k] < s + n) c[k]++
			}
			END { m = split(bad, b, "+"); out = ""; for (k = 1; k <= m; k++) out = out (k > 1 ? "+" : "") (c[k] + 0); print out }' $T/trace) ;;
	esac
	echo "RUN $1 $3 $4 $mk $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') $rc $reads"
	case $3 in
	scrub-x) [ "$4" = 1 ] && sed "s/^/SCRUBOUT $1 /" /tmp/o ;;
	ms|ms-read) [ "$4" = 1 ] && echo "MSJSON $1 $3 $(jq -c '{e: [.media_errors[] | [.offset, .length, .error]], f: [.damaged_files[] | [.paths, [.ranges[] | [.offset, .length, .fork]]]], m: [.damaged_metadata[] | [.type, .offset, .length]], method}' /tmp/o)" ;;
	esac
}
nullb() {	# NAME SECTORS: a null_blk copy of the clean namespace with badblocks
	c=/sys/kernel/config/nullb/$1
	mkdir "$c" && echo 512 >"$c/blocksize" && echo 320 >"$c/size" && echo 1 >"$c/memory_backed" &&
		echo 1 >"$c/power" && waitfor /dev/$1 10 || return 1
	/usr/bin/dd if=/dev/nvme0n9 of=/dev/$1 bs=1M conv=sparse,fsync status=none || return 1
	for s in $(echo "$2" | tr '+' ' '); do echo "+$s-$s" >"$c/badblocks"; done
}
modload null_blk nr_devices=0
mkdir -p /mnt/x
for spec in $specs; do
	name=${spec%%:*}; rest=${spec#*:}; d=${rest%%:*}; bad=${rest#*:}
	case $d in
	nb*) nullb $d "$bad" || { echo "NULLB-FAILED $name"; continue; }; dev=/dev/$d ;;
	*) dev=/dev/nvme0n$d ;;
	esac
	blockdev --setro $dev
	mount -t xfs -o ro $dev /mnt/x || { echo "MOUNT-FAILED $name"; continue; }
	for r in $(seq 1 $rounds); do
		if [ $((r % 2)) = 1 ]; then order="scrub-x scrub-n ms ms-read"; else order="ms-read ms scrub-n scrub-x"; fi
		for t in $order; do run $name $dev $t $r; done
	done
	umount /mnt/x
done
mk=$((mk + 1))
/usr/bin/dd if=/dev/nvme0n10 of=/dev/null bs=512 count=1 skip=$mk iflag=direct status=none
EOF

"$root/tests/vm/build-image" "$tmp/initrd" --xfs-scrub --bin "$tmp/mediascan:/usr/bin/mediascan" \
	--bin "$(command -v jq)" >/dev/null 2>"$tmp/build.err" || { cat "$tmp/build.err"; exit 1; }
t0=$(date +%s)
"$root/tests/vm/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" --timeout 3000 --mem 2G \
	--smp 2 "${nvme_args[@]}" \
	--qemu-arg -trace --qemu-arg pci_nvme_read --qemu-arg -trace --qemu-arg pci_nvme_verify \
	--qemu-arg -D --qemu-arg "$tmp/qtrace" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/out" "$tmp/err"; exit 1; }
t1=$(date +%s)
set +e			# the report below greps for things that may be absent
accel=$(sed -n 's/^vm\/run: guest exit .*(\(kvm\|tcg\))$/\1/p' "$tmp/err" | tail -n 1 | tr a-z A-Z)

# QEMU's trace backend "log" (Debian's build) writes the events to the -D file.
[[ -s $tmp/qtrace ]] || { echo "QEMU wrote no trace (is its trace backend 'log'?)" >&2; exit 1; }
# NVMe reads per run from QEMU's trace: "pid@time:pci_nvme_read cid 1 nsid 1 nlb 8 count 4096
# lba 0x1178" / "pci_nvme_verify cid 1 nsid 1 slba 0x1178 nlb 8"; a read of nsid 10 at LBA k
# opens marker k. Prints "marker nsid sector count" for the bad sectors.
badlist=""
for spec in $specs; do
	IFS=: read -r name ns bad <<<"$spec"
	for s in ${bad//+/ }; do badlist="$badlist $ns:$s"; done
done
awk -v bad="$badlist" '
	function hex(x,    v, i) {	# mawk has no strtonum
		v = 0; x = tolower(x); sub(/^0x/, "", x)
		for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v
	}
	BEGIN { n = split(bad, b, " "); for (i = 1; i <= n; i++) { split(b[i], p, ":"); ns[i] = p[1]; sec[i] = p[2] } }
	/pci_nvme_read / || /pci_nvme_verify / {
		delete f; for (i = 1; i <= NF; i++) f[$i] = $(i + 1)
		nsid = f["nsid"]; nlb = f["nlb"]
		lba = hex(/pci_nvme_read / ? f["lba"] : f["slba"])
		if (nsid == 10) { mk = lba; next }
		for (i = 1; i <= n; i++)
			if (ns[i] == nsid && lba <= sec[i] && sec[i] < lba + nlb) c[mk " " i]++
	}
	END { for (k in c) { split(k, q, " "); print q[1], ns[q[2]], sec[q[2]], c[k] } }' \
	"$tmp/qtrace" >"$tmp/nvme-reads"

echo "# vm-xfs-scrub: XFS 320 MiB (rmapbt, reflink, 4 KiB blocks, 512 B sectors), QEMU $(qemu-system-x86_64 --version |
	head -1 | awk '{ print $4 }'), $accel, 2 vCPUs, 2 GiB; kernel $(basename "$(cat "$tmp/initrd.kernel")" | sed 's/vmlinuz-//') with the online-scrub xfs.ko;"
echo "# xfs_scrub $(xfs_scrub -V 2>/dev/null | awk '/version/ { print $3 }') (Debian 12); rounds=$rounds; mediascan $(git -C "$root" rev-parse --short HEAD); boot and runs $((t1 - t0)) s"
echo
echo "| scenario | error | xfs_scrub -n -x: exit (every round); files named; other objects named; range | mediascan: exit; files named; metadata named; range | device reads of the bad sector(s): xfs_scrub -n -x / xfs_scrub -n | device reads: mediascan (default method) / --method read | phase 6 s: median -x minus median -n | mediascan s (median): default / read |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for spec in $specs clean:9: data-eio:nb:$s_data two-eio:nb:$s_two1+$s_two2; do
	IFS=: read -r name ns bad <<<"$spec"
	err=ENODATA; [[ $ns == nb ]] && err=EIO; [[ -n $bad ]] || err=none
	# reads of each bad sector in the first round's run of TOOL: "a+b"
	reads() {
		local mk v out="" s
		mk=$(awk -v n="$name" -v t="$1" '$1 == "RUN" && $2 == n && $3 == t && $4 == 1 { print $5 }' "$tmp/out")
		if [[ $ns == nb ]]; then
			awk -v n="$name" -v t="$1" '$1 == "RUN" && $2 == n && $3 == t && $4 == 1 { print $8 }' "$tmp/out"
			return
		fi
		for s in ${bad//+/ }; do
			v=$(awk -v m="$mk" -v ns="$ns" -v s="$s" '$1 == m && $2 == ns && $3 == s { print $4 }' "$tmp/nvme-reads")
			out="$out${out:+ + }${v:-0}"
		done
		echo "${out:--}"
	}
	med() {	# median seconds of TOOL
		awk -v n="$name" -v t="$1" '$1 == "RUN" && $2 == n && $3 == t { print $6 }' "$tmp/out" | sort -n |
			awk '{ a[NR] = $1 } END { if (!NR) print "-"; else print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'
	}
	sx=$(awk -v n="$name" '$1 == "RUN" && $2 == n && $3 == "scrub-x" { print $7 }' "$tmp/out" | tr '\n' ' ' | sed 's/ $//')
	so=$(awk -v n="$name" '$1 == "SCRUBOUT" && $2 == n { sub(/^SCRUBOUT [^ ]+ /, ""); print }' "$tmp/out")
	claims=$(grep -E '^(Unfixable )?(Error|Corruption|Warning):' <<<"$so")
	sfiles=$(grep -o '/mnt/x/[^ :]*' <<<"$claims" | sort -u | sed 's|/mnt/x/||' | tr '\n' ' ' | sed 's/ $//')
	sobj=$(grep -oE 'inode [0-9]+' <<<"$claims" | sort -u |
		awk '{ a[NR] = $2 } END { if (NR == 1) print "inode " a[1]; else if (NR) print NR " inodes " a[1] "-" a[NR] }')
	[[ -n $sobj || -n $sfiles || -z $claims ]] || sobj="operational error: $(head -n 1 <<<"$claims" | sed 's/^Error: //; s/\.$//')"
	srange=$(grep -oE 'length [0-9]+' <<<"$claims" | awk '{ print $2 }' | sort -u | tr '\n' ' ' | sed 's/ $//')
	note=$(grep -oE '[0-9.]+MiB data verified' <<<"$so")
	note=${note:+, round 1: $note}
	mj=$(awk -v n="$name" '$1 == "MSJSON" && $2 == n && $3 == "ms-read" { sub(/^MSJSON [^ ]+ [^ ]+ /, ""); print }' "$tmp/out")
	mx=$(awk -v n="$name" '$1 == "RUN" && $2 == n && $3 == "ms" && $4 == 1 { print $7 }' "$tmp/out")
	mfiles=$(jq -r '[.f[][0][]] | map(sub("/mnt/x/"; "")) | join(" ")' <<<"$mj")
	mmeta=$(jq -r '[.m[] | .[0]] | join(" ")' <<<"$mj")
	mrange=$(jq -r '[.e[] | .[1]] | unique | map(tostring) | join(" ")' <<<"$mj")
	p6=$(awk -v a="$(med scrub-x)" -v b="$(med scrub-n)" 'BEGIN { printf "%.2f (%.2f - %.2f)", a - b, a, b }')
	printf '| %s | %s | %s; %s; %s; %s%s | %s; %s; %s; %s | %s / %s | %s / %s | %s | %s / %s |\n' "$name" "$err" \
		"$sx" "${sfiles:-none}" "${sobj:-none}" "${srange:+$srange B}${srange:+}$([[ -n $srange ]] || echo none)" "$note" \
		"$mx" "${mfiles:-none}" "${mmeta:-none}" "${mrange:+$mrange B}" \
		"$(reads scrub-x)" "$(reads scrub-n)" "$(reads ms)" "$(reads ms-read)" \
		"$p6" "$(med ms)" "$(med ms-read)"
done
echo
echo "raw runs (scenario, tool, round, marker, seconds, exit, null_blk reads):"
grep '^RUN' "$tmp/out" | sed 's/^RUN /    /'
grep -E '^(MOUNT|NULLB)-FAILED' "$tmp/out" || true
