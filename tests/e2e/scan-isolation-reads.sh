#!/bin/bash
# scan-isolation-reads.sh - a failed 1 MiB read is narrowed to its exact bad sectors with at
# most 3 device reads of each bad sector, counted at the device: every bad 512-byte sector is
# its own fault-disk range, whose reads=N counts the read requests that touched it (the
# failed scan read, its piece, itself). Bisection read a lone bad sector 6 times (512K, 256K,
# 128K, 64K halves, then 64 KiB step block by block). Cases on a raw device: lone sectors
# (one at the start, one mid-read, one the last sector of a read), 8 sectors scattered under
# one read, a 64 KiB bad run straddling two pieces. The exact sectors are still reported.
# Nothing is written to the device.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 64
e2e_readonly on
h=$(e2e_hash)
out=$E2E_DIR/report.json
M=1048576

# add_sectors OFF LEN : every 512-byte sector of [OFF, OFF+LEN) a bad range of its own.
add_sectors()
{
	local o
	for ((o = $1; o < $1 + $2; o += 512)); do
		e2e_bad_add "$o" 512
	done
}

add_sectors $((5 * M)) 512				# first sector of a read
add_sectors $((9 * M + 777 * 512)) 512			# mid-read
add_sectors $((17 * M - 512)) 512			# last sector of a read
for k in 0 1 2 3 4 5 6 7; do				# 8 scattered under one read
	add_sectors $((40 * M + k * 131072 + k * 1536)) 512
done
add_sectors $((30 * M + 100 * 1024)) $((64 * 1024))	# a 64 KiB run

want="$((5 * M))+512 $((9 * M + 777 * 512))+512 $((17 * M - 512))+512"
want+=" $((30 * M + 100 * 1024))+65536"
for k in 0 1 2 3 4 5 6 7; do
	want+=" $((40 * M + k * 131072 + k * 1536))+512"
done

e2e_reset_counters
start=$(date +%s.%N)
ms_scan "$out" "$E2E_LOOP" --no-state --io-size 1M
took=$(echo "$(date +%s.%N) - $start" | bc)
ms_expect_eq "exit 1 (media errors)" "$MS_RC" 1
ms_expect_eq "1 MiB reads" "$(ms_jq "$out" .io_size)" 1048576
ms_expect_eq "the exact bad sectors are reported" \
	"$(ms_jq "$out" '[.media_errors[] | "\(.offset)+\(.length)"] | join(" ")')" "$want"
ms_expect_eq "scanned == planned" "$(ms_jq "$out" '.scanned_bytes == .planned_bytes')" true

# Reads of each bad sector at the device.
counts=$(e2e_ctl | awk '$1 == "bad" { sub(/^reads=/, "", $4); print $4 }')
nr=$(wc -l <<<"$counts")
max=$(sort -n <<<"$counts" | tail -1)
ms_expect_eq "every bad sector has its range" "$nr" $((3 + 8 + 128))
e2e_log "device reads per bad sector: max $max, histogram: $(sort -n <<<"$counts" |
	uniq -c | awk '{ printf "%s x %s reads; ", $1, $2 }')"
e2e_log "isolation reads $(ms_jq "$out" .isolation_reads), scan took $took s"
e2e_check "each bad sector read at most 3 times at the device (max $max)" test "$max" -le 3
e2e_check "each error says at most 3 reads" \
	test "$(ms_jq "$out" '[.media_errors[].reads] | max')" -le 3

ms_expect_eq "no write reached the fault disk" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "bad sectors isolated with at most 3 device reads each"
