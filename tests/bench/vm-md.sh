#!/usr/bin/env bash
# tests/bench/vm-md.sh - issue 19's speed check: on one md RAID1 of two NVMe namespaces (or a
# RAID5 of three, LEVEL=5) with XFS 25% full, in one QEMU boot (tests/vm/, build-image
# --stack-tools; KVM when a probe boot works, TCG otherwise), each namespace read-throttled in
# QEMU's block layer (THROTTLE_MIB MiB/s per member, its own throttle group) so the disks, not
# TCG's emulation, are the limit, as on real hardware; side by side:
#   - `mediascan scan MOUNT` (on a stacked filesystem: every copy, at member level);
#   - `mediascan scan MOUNT --top-only` (the filesystem's device only, as before issue 19;
#     "n/a" when this mediascan has no such option);
#   - md's own check: sync_speed_max and speed_limit_max raised so md is not throttled,
#     `echo check > /sys/block/md0/md/sync_action`, timed until sync_action is idle again;
#   - one member's share: `dd` of the written bytes from one member (O_DIRECT, 1 MiB; RAID5:
#     used / (members - 1), data and parity), the time a scan reading all members in parallel
#     should about take.
# Goal (issue 19): mediascan's scan <= 1.2 x the fill fraction x md check's time, and about one
# member's time, not two. Page cache dropped before each command.
# Usage: tests/bench/vm-md.sh [BUILD_DIR]   Environment: MEMBER_MIB (default 512), FILL_PCT
# (default 25), ROUNDS (default 1), THROTTLE_MIB (read MiB/s per member, default 16; 0: none,
# CPU-bound under TCG), LEVEL (1: RAID1 of 2, default; 5: RAID5 of 3). Prints a markdown table with the commands; not a pass/fail
# test (a command that fails is shown as such).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
member_mib=${MEMBER_MIB:-512}
fill_pct=${FILL_PCT:-25}
rounds=${ROUNDS:-1}
throttle_mib=${THROTTLE_MIB:-16}
level=${LEVEL:-1}
case $level in 1) nmem=2 ;; 5) nmem=3 ;; *) echo "LEVEL must be 1 or 5" >&2; exit 1 ;; esac

command -v qemu-system-x86_64 >/dev/null || { echo "needs qemu-system-x86_64 (scripts/deps)" >&2; exit 1; }
bin=$(cd "$build" && pwd)/mediascan
blkmark=$(cd "$build" && pwd)/tests/tools/blkmark
[[ -x $bin && -x $blkmark ]] || { echo "$bin or $blkmark is not built" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmmd.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export VMTEST_ACCEL_CACHE=$tmp/accel
"$root/tests/vm/build-image" "$tmp/initrd" --stack-tools --modules xfs \
	--autoload "xfs md-mod raid1 raid456" --bin "$bin:/usr/bin/mediascan" --bin "$blkmark" \
	--bin "$(command -v jq)" >/dev/null 2>"$tmp/build.err" || { cat "$tmp/build.err" >&2; exit 1; }
nvme_args=()
for m in $(seq 1 "$nmem"); do
	truncate -s "${member_mib}M" "$tmp/m$m.img"
	opt=""
	[[ $throttle_mib = 0 ]] || opt=",bps-read=$((throttle_mib << 20))"
	nvme_args+=(--nvme "$tmp/m$m.img$opt")
done

cat >"$tmp/guest.sh" <<EOF
fill_pct=$fill_pct
rounds=$rounds
level=$level
nmem=$nmem
EOF
cat "$root/tests/bench/vm-md-fill.sh" >>"$tmp/guest.sh"
cat >>"$tmp/guest.sh" <<'EOF'
ns() { for d in /sys/block/nvme*n*; do [ "$(cat "$d/nsid")" = "$1" ] && echo "/dev/${d##*/}"; done; }
mem=""; for m in $(seq 1 "$nmem"); do mem="$mem $(ns "$m")"; done
a=$(ns 1)
md_xfs_fill "$level" "$fill_pct" $mem || exit 1
echo "INFO fs_bytes $fs_bytes used $used files $files members $(cat /sys/block/md0/md/raid_disks) member_bytes $(blockdev --getsize64 "$a")"
now() { cut -d' ' -f1 /proc/uptime; }
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
r=1
while [ $r -le "$rounds" ]; do
	drop; t=$(now)
	mediascan scan /mnt/m --no-state --progress none -q --json /tmp/s.json >/dev/null 2>/tmp/s.err
	rc=$?; e=$(dt "$t" "$(now)")
	echo "ROW scan $e $rc $(jq -r '.read_bytes // .scanned_bytes // 0' /tmp/s.json 2>/dev/null) $(jq -c '[.devices[]?, .member_devices[]? | .path] | unique' /tmp/s.json 2>/dev/null)"
	drop; t=$(now)
	mediascan scan /mnt/m --top-only --no-state --progress none -q --json /tmp/t.json >/dev/null 2>/tmp/t.err
	rc=$?; e=$(dt "$t" "$(now)")
	if [ $rc = 8 ]; then echo "ROW top n/a 8 0 []"; else
		echo "ROW top $e $rc $(jq -r '.read_bytes // .scanned_bytes // 0' /tmp/t.json 2>/dev/null) $(jq -c '[.devices[]?, .member_devices[]? | .path] | unique' /tmp/t.json 2>/dev/null)"; fi
	drop
	echo 10000000 >/proc/sys/dev/raid/speed_limit_max
	echo 10000000 >/sys/block/md0/md/sync_speed_max
	t=$(now)
	echo check >/sys/block/md0/md/sync_action
	sleep 0.2
	while [ "$(cat /sys/block/md0/md/sync_action)" != idle ]; do sleep 0.2; done
	e=$(dt "$t" "$(now)")
	echo "ROW check $e 0 $(( $(cat /sys/block/md0/md/component_size) * 1024 * nmem )) [$(echo $mem | sed 's/[^ ]*/"&"/g; s/ /,/g')] mismatch_cnt=$(cat /sys/block/md0/md/mismatch_cnt)"
	share=$(( used >> 20 ))
	[ "$level" = 5 ] && share=$(( share / (nmem - 1) ))
	drop; t=$(now)
	dd if="$a" of=/dev/null bs=1M iflag=direct count=$share 2>/dev/null
	rc=$?; e=$(dt "$t" "$(now)")
	echo "ROW dd $e $rc $(( share << 20 )) [\"$a\"]"
	r=$((r + 1))
done
EOF
"$root/tests/vm/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" --timeout 1800 \
	"${nvme_args[@]}" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/out" "$tmp/err" >&2; exit 1; }
accel=$(grep -o 'accelerator [a-z]*' "$tmp/err" | head -n 1 | cut -d' ' -f2)
read -r _ _ fs_bytes _ used _ files _ _ _ member_bytes <<<"$(grep '^INFO ' "$tmp/out")"
# The source the binary was built from: BUILD_DIR's parent when it is a git worktree.
ver=$(git -C "$(cd "$build/.." && pwd)" rev-parse --short HEAD 2>/dev/null || echo "built in $build")
echo "# vm-md: md RAID$level of $nmem ${member_mib} MiB NVMe namespaces (reads throttled to $( [[ $throttle_mib = 0 ]] && echo none || echo "$throttle_mib MiB/s") each), XFS $((fs_bytes >> 20)) MiB, $((used >> 20)) MiB used (${fill_pct}% target, $files files); QEMU $(qemu-system-x86_64 --version | head -n 1 | awk '{ print $4 }'), ${accel:-?}, 2 vCPUs; rounds=$rounds; mediascan $ver"
echo
echo "| command | seconds (median) | bytes read | exit | devices read |"
echo "| --- | --- | --- | --- | --- |"
# median KIND: the median seconds of that row kind over the rounds
median() { grep "^ROW $1 " "$tmp/out" | awk '{ print $3 }' | sort -n | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "n/a") }'; }
row() {	# KIND LABEL
	local l
	l=$(grep "^ROW $1 " "$tmp/out" | tail -n 1)
	read -r _ _ _ rc bytes devs rest <<<"$l"
	echo "| \`$2\` | $(median "$1") | $((bytes >> 20)) MiB | $rc | $devs${rest:+ $rest} |"
}
row scan "mediascan scan /mnt/m"
row top "mediascan scan /mnt/m --top-only"
row check "echo check > /sys/block/md0/md/sync_action (until idle)"
row dd "dd if=MEMBER bs=1M iflag=direct count=SHARE_MIB (one member's share)"
s=$(median scan) c=$(median check) d=$(median dd)
sb=$(grep '^ROW scan ' "$tmp/out" | tail -n 1 | awk '{ print $5 }')
echo
awk -v s="$s" -v c="$c" -v d="$d" -v f="$fill_pct" -v sb="${sb:-0}" -v n="$nmem" -v t="$throttle_mib" 'BEGIN {
	if (s + 0 > 0 && c + 0 > 0)
		printf "scan / (fill x check) = %.2f (goal <= 1.2); scan / one member share = %.2f (goal about 1, not 2)\n",
			s / (f / 100 * c), (d + 0 > 0 ? s / d : 0)
	if (t > 0 && sb > 0 && s + 0 > 0)
		printf "scan read %.0f MiB per member: %.2f s at %d MiB/s each in parallel, %.2f s one after the other; scan / parallel = %.2f\n",
			sb / n / 1048576, sb / n / 1048576 / t, t, sb / 1048576 / t, s / (sb / n / 1048576 / t) }'
