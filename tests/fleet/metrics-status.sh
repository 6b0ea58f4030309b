#!/bin/bash
# metrics-status.sh - patrol's metrics say what `mediascan status` says, at every scrape of a
# running pass: the read rate (status: 3-4 MiB/s; the metric read 0 in nearly every sample,
# being a 1 s difference of a counter the scan checkpoints every 5 s) and, early in the pass,
# the damaged files of the open ranges (the metric read 0 while 4 ranges were open: owners
# were stored only at the pass's end). Four files on an XFS over the fault disk each get a bad
# sector near the start of the disk; patrol paces the pass to about 3 MiB/s (window 45 s)
# and writes its textfile every second (MEDIASCAN_PATROL_METRICS_S=1). Each sample: `status
# --json` (S1), then the next textfile patrol writes (a new inode: written after S1 began),
# then `status --json` again (S2); the textfile must say what status said at S1 or S2 or
# between (open ranges, damaged files; the rate within a third of S1's or S2's).
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 320
mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
for i in 1 2 3 4; do
	xfs_io -f -c "pwrite -S 0x1$i -b 1048576 0 1048576" -c fsync "$E2E_MNT/f$i" >/dev/null
done
xfs_io -f -c "pwrite -S 0x55 -b 1048576 0 125829120" -c fsync "$E2E_MNT/spacer" >/dev/null
sync
bad=()
for i in 1 2 3 4; do
	bad+=($(( $(ms_first_phys "$E2E_MNT/f$i") + 65536 )))
done
e2e_umount
for b in "${bad[@]}"; do
	e2e_bad_add "$b" 512
done
e2e_readonly on
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
state=$E2E_DIR/state
prom=$E2E_DIR/mediascan.prom
cat >"$E2E_DIR/mediascan.conf" <<EOC
[global]
state_dir = $state
metrics_file = $prom
window = 45s
rate_max = 200M

[target data]
path = $E2E_MNT
EOC
MEDIASCAN_PATROL_METRICS_S=1 "$MEDIASCAN" patrol --config "$E2E_DIR/mediascan.conf" \
	2>"$E2E_DIR/patrol.err" &
patrol=$!
e2e_on_cleanup "kill -TERM $patrol 2>/dev/null; wait $patrol 2>/dev/null"

metric() { awk -v m="$1" '$1 ~ "^"m"[{]" { print $2 }' "$E2E_DIR/sample.prom"; }
samples=0 rate_bad=0 files_bad=0 open_bad=0 with_open=0
for _ in $(seq 120); do
	sleep 0.3
	[ -f "$prom" ] || continue
	ino=$(stat -c %i "$prom")
	"$MEDIASCAN" status --json --state-dir "$state" >"$E2E_DIR/status1.json" 2>/dev/null || continue
	for _ in $(seq 40); do
		[ "$(stat -c %i "$prom")" = "$ino" ] || break
		sleep 0.05
	done
	cp "$prom" "$E2E_DIR/sample.prom"
	"$MEDIASCAN" status --json --state-dir "$state" >"$E2E_DIR/status.json" 2>/dev/null || continue
	result=$(jq -r '.targets[0].latest_pass.result // "none"' "$E2E_DIR/status.json")
	[ "$(jq -r '.targets[0].latest_pass.result // "none"' "$E2E_DIR/status1.json")" = running ] ||
		continue
	# The first pass is what is sampled (later ones find the owners stored by it).
	[ "$(jq -r '.targets[0].last_complete_pass != null' "$E2E_DIR/status.json")" = false ] ||
		break
	[ "$(metric mediascan_pass_running)" = 1 ] && [ "$result" = running ] || continue
	s_rate=$(jq -r '.targets[0].latest_pass.bytes_per_s' "$E2E_DIR/status.json")
	s_open=$(jq -r '.targets[0].open_errors' "$E2E_DIR/status.json")
	s1_rate=$(jq -r '.targets[0].latest_pass.bytes_per_s' "$E2E_DIR/status1.json")
	s1_open=$(jq -r '.targets[0].open_errors' "$E2E_DIR/status1.json")
	m_rate=$(metric mediascan_scan_rate_bytes_per_second)
	m_scanned=$(metric mediascan_pass_scanned_bytes)
	s_scanned=$(jq -r '.targets[0].latest_pass.scanned_bytes' "$E2E_DIR/status.json")
	m_open=$(metric mediascan_errors_open)
	m_files=$(metric mediascan_damaged_files)
	samples=$((samples + 1))
	echo "sample $samples: status rate $s1_rate..$s_rate open $s1_open..$s_open;" \
		"metrics rate $m_rate open $m_open files $m_files"
	# The rate: 0 before the first checkpoint, else within a third of S1's or S2's. Or, the
	# first checkpoint between S1 and S2 (S1 0): both divide the bytes checkpointed by whole
	# seconds since the start, so the metric's seconds (its bytes over its rate) lie between 1
	# and S2's (at 1 and 2 s the two rates differ by 2x).
	if ! awk -v a="$s1_rate" -v b="$s_rate" -v m="$m_rate" -v mb="$m_scanned" -v sb="$s_scanned" 'function ok(s) {
	     return (s == 0 && m == 0) || (s > 0 && m > s * 0.67 && m < s * 1.5) }
	     function first() { return a == 0 && b > 0 && m > 0 && mb / m >= 0.99 &&
	     mb / m <= sb / b * 1.01 }
	     BEGIN { exit !(ok(a) || ok(b) || first()) }'; then
		rate_bad=$((rate_bad + 1))
	fi
	[ "$m_open" -ge "$s1_open" ] && [ "$m_open" -le "$s_open" ] || open_bad=$((open_bad + 1))
	# Each open range lies in a file of its own: as many damaged files as open ranges.
	if [ "$m_open" -gt 0 ]; then
		with_open=$((with_open + 1))
		[ "$m_files" = "$m_open" ] || files_bad=$((files_bad + 1))
	fi
done
sleep 1.5	# the textfile after the pass
cp "$prom" "$E2E_DIR/final.prom"
kill -TERM "$patrol"
wait "$patrol" || :
e2e_umount
e2e_assert_unchanged "$h"
e2e_check "at least 8 samples of the running pass ($samples)" test "$samples" -ge 8
e2e_check "samples with open ranges ($with_open)" test "$with_open" -ge 4
ms_expect_eq "samples whose rate is not status's rate" "$rate_bad" 0
ms_expect_eq "samples whose open ranges are not status's" "$open_bad" 0
ms_expect_eq "samples whose damaged files are not the open ranges' files" "$files_bad" 0
"$MEDIASCAN" report --json --state-dir "$state" >"$E2E_DIR/report.json" || :
ms_expect_eq "the pass ended with 4 open ranges" \
	"$(jq '[.targets[].errors[]] | length' "$E2E_DIR/report.json")" 4
ms_expect_eq "damaged files metric after the pass" \
	"$(awk '$1 ~ /^mediascan_damaged_files[{]/ { print $2 }' "$E2E_DIR/final.prom")" 4
e2e_pass "metrics say what status says at every sample"
