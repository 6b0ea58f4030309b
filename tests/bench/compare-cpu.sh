#!/bin/bash
# tests/bench/compare-cpu.sh - the CPU a comparing scan (--compare) spends per GiB it reads, on
# this machine: tests/tools/cmpbench copies each leg into a row buffer and compares the row as
# the scan does (RAID1 memcmp, RAID5 XOR parity, RAID6 P and Q with ISA-L), over rows of
# agreeing legs from a 512 MiB pool (beyond the caches). Prints a markdown table of CPU
# seconds per GiB of legs read and the read rate one core keeps up with.
# Usage: tests/bench/compare-cpu.sh [BUILD_DIR]   Environment: TOTAL_MIB (default 4096),
# LEG_KIB (default 1024: the scan's reads are 1 MiB).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
bin=$build/tests/tools/cmpbench
[[ -x $bin ]] || { echo "$bin is not built" >&2; exit 1; }
echo "# compare-cpu: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%F)"
echo
echo "| row | legs | CPU s per GiB read | GiB/s one core keeps up with |"
echo "| --- | --- | --- | --- |"
"$bin" "${TOTAL_MIB:-4096}" "${LEG_KIB:-1024}" | awk '{ printf "| %s | %s | %.3f | %.1f |\n", $1, $3, $9, 1 / $9 }'
