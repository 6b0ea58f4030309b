#!/usr/bin/env bash
# tests/bench/vm-verify.sh - benchmark 5 of issue 5: guest CPU seconds per GiB for
# `mediascan scan DEV --method nvme-verify` against `--method read` on the same NVMe
# namespace, in one QEMU boot (tests/vm/; KVM when a probe boot under it works, TCG otherwise).
# Two figures per run, both from inside the guest: the mediascan process's own CPU (user +
# system, from the parent shell's cutime/cstime) and the whole guest's busy CPU (the delta
# of /proc/stat's cpu line minus idle and iowait), which also counts interrupt and
# completion work done outside the process. Runs alternate their order every round.
# Usage: tests/bench/vm-verify.sh [BUILD_DIR]   Environment: ROUNDS (default 5),
# NS_MIB (namespace size, default 1024). Prints a markdown table; not a pass/fail test.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
rounds=${ROUNDS:-5}
ns_mib=${NS_MIB:-1024}

command -v qemu-system-x86_64 >/dev/null || { echo "needs qemu-system-x86_64 (scripts/deps)" >&2; exit 1; }
bin=$(cd "$build" && pwd)/mediascan
[[ -x $bin ]] || { echo "$bin is not built" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Written data, not holes: QEMU answers holes without touching its image file.
head -c $((ns_mib << 20)) /dev/urandom >"$tmp/ns.img"
cp "$bin" "$tmp/mediascan"		# a rebuild during the run does not change it

cat >"$tmp/guest.sh" <<EOF
rounds=$rounds
EOF
cat >>"$tmp/guest.sh" <<'EOF'
busy() {	# jiffies the guest spent not idle (all CPUs)
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat
}
one() {		# METHOD: "method proc_ticks guest_ticks wall_s scanned_bytes exit"
	b0=$(busy)
	t0=$(cut -d' ' -f1 /proc/uptime)
	sh -c 'mediascan scan /dev/nvme0n1 --method "$1" --no-state --progress none -q \
		--json /tmp/r.json; echo "rc=$?" >/tmp/rc; cat /proc/$$/stat' sh "$1" >/tmp/st
	t1=$(cut -d' ' -f1 /proc/uptime)
	b1=$(busy)
	proc=$(sed 's/.*) //' /tmp/st | awk '{ print $14 + $15 }')	# cutime + cstime
	echo "$1 $proc $((b1 - b0)) $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') \
$(jq .scanned_bytes /tmp/r.json) $(jq -r .engine /tmp/r.json) $(cut -d= -f2 /tmp/rc)"
}
echo "CLK_TCK $(getconf CLK_TCK 2>/dev/null || echo 100)"
one read >/dev/null	# warm up: page tables, the binary, QEMU's image cache
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then one nvme-verify; one read; else one read; one nvme-verify; fi
done | sed 's/^/RUN /'
EOF

"$root/tests/vm/build-image" "$tmp/initrd" --bin "$tmp/mediascan:/usr/bin/mediascan" \
	--bin "$(command -v jq)" >/dev/null 2>"$tmp/build.err" || { cat "$tmp/build.err"; exit 1; }
"$root/tests/vm/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" --timeout 1800 \
	--mem 1G --smp 2 --nvme "$tmp/ns.img,logical_block_size=4096" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/out" "$tmp/err"; exit 1; }
# tests/vm/run says which accelerator the guest ran under (KVM only after a probe boot worked).
accel=$(sed -n 's/^vm\/run: guest exit .*(\(kvm\|tcg\))$/\1/p' "$tmp/err" | tail -n 1 | tr a-z A-Z)

hz=$(awk '/^CLK_TCK/ { print $2 }' "$tmp/out")
echo "# vm-verify: ${ns_mib} MiB NVMe namespace (4 KiB blocks, QEMU $(qemu-system-x86_64 --version |
	head -1 | awk '{ print $4 }'), $accel, 2 vCPUs), rounds=$rounds, mediascan $(git -C "$root" rev-parse --short HEAD)"
echo
echo "| method | engine | exit | GiB scanned | process CPU s/GiB (median) | guest busy CPU s/GiB (median) | wall s (median) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for m in nvme-verify read; do
	awk -v m="$m" -v hz="$hz" '
		$1 == "RUN" && $2 == m {
			gib = $6 / 1073741824; n++
			p[n] = $3 / hz / gib; g[n] = $4 / hz / gib; w[n] = $5
			eng = $7; rc = $8; scanned = gib
		}
		function med(a, n,    i, j, t) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		END {
			printf "| %s | %s | %s | %.2f | %.3f | %.3f | %.2f |\n", m, eng, rc, scanned,
			       med(p, n), med(g, n), med(w, n)
		}' "$tmp/out"
done
echo
echo "raw runs (method, process ticks, guest busy ticks, wall s, bytes, engine, exit):"
grep '^RUN' "$tmp/out" | sed 's/^RUN /    /'
