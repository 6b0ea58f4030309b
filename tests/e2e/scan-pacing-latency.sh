#!/bin/bash
# scan-pacing-latency.sh - pacing by the foreground's latency on a disk with real contention
# (the fault disk's one-queue model): a never-idle foreground (random reads at queue
# depth 1, all the time) must not starve a --window pass down to --rate-min, and a backoff
# that lasts reports the time it lasted (backoff_s). Timing is judged only coarsely here
# (ratios far from the thresholds), and the scan is seen to slow when a foreground comes
# and speed up when it goes; the controller's accuracy is proven against a simulated
# queue in tests/unit/test_governor.c and measured in tests/bench/pacing.sh.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v fio >/dev/null || e2e_skip "fio is not installed"
e2e_setup 4096
e2e_readonly on
h=$(e2e_hash)
out=$E2E_DIR/report.json
# An SSD-like disk of queue depth one: 50 us a request plus 2 GB/s.
echo "model 50 2000000000" >"$E2E_CTL"

FG_PID=
fg_start()
{
	fio --name=fg --filename="$E2E_LOOP" --ioengine=psync --direct=1 --rw=randread \
		--bs="${FG_BS:-256k}" --time_based --runtime=600 --readonly --output-format=json \
		--output="$E2E_DIR/fg-$1.json" >/dev/null 2>&1 &
	FG_PID=$!
	sleep 1
}
fg_stop()
{
	[ -n "$FG_PID" ] || return 0
	kill -INT "$FG_PID" 2>/dev/null || true
	wait "$FG_PID" 2>/dev/null || true
	FG_PID=
	e2e_log "foreground: $(jq -r '.jobs[0].read | "\(.iops | floor) IOPS, \(.bw_bytes / 1048576 | floor) MiB/s, mean \(.clat_ns.mean / 1000 | floor) us"' < <(sed -n '/^{/,$p' "$E2E_DIR/fg-$1.json") 2>/dev/null)"
}
# (set +e: under errexit a failing command in the trap would skip the cleanup)
trap 'rc=$?; set +e; fg_stop; _e2e_cleanup; exit $rc' EXIT

mib_s()
{
	ms_jq "$out" '.scanned_bytes / .elapsed_s / 1048576 * 10 | floor / 10'
}

# 1. A never-idle server: a steady foreground (256 KiB random reads at queue depth 1, heavy
# enough in bytes that presence-based backoff sees it) runs all along. --window 40s over
# 512 MiB asks 12.8 MiB/s, which this disk gives while the foreground's latency stays within
# target (the scan takes about 1% of the disk's time). Presence-based backoff read at
# --rate-min (1 MiB/s) the whole time: the pass could never end.
fg_start window
ms_scan "$out" "$E2E_LOOP" --window 320s --rate-min 1M --max-duration 12s
fg_stop window
e2e_log "never idle, --window 320s: $(mib_s) MiB/s over $(ms_jq "$out" '.elapsed_s') s, $(ms_jq "$out" '"\(.backoffs) backoffs, \(.backoff_s) s"')"
e2e_check "never idle: --window is not starved to --rate-min (> 4 MiB/s)" \
	awk -v r="$(mib_s)" 'BEGIN { exit !(r > 4) }'

# 1b. Pacing by latency keeps at most twice the disk's bandwidth-delay product in flight
# (a one-queue disk: two or three reads), not the whole depth (16), so a foreground's first
# request does not wait behind sixteen reads; with nothing to yield to it still reads at the
# disk's speed (half of --pacing off's at the least, a coarse bound for a busy host).
ms_scan "$out" "$E2E_LOOP" --pacing off --max-duration 4s
off=$(mib_s)
ms_scan "$out" "$E2E_LOOP" --pacing latency --max-duration 4s
e2e_log "no foreground: --pacing off $off MiB/s; --pacing latency $(mib_s) MiB/s, at most $(ms_jq "$out" '.max_inflight') reads in flight"
e2e_check "latency pacing: at most 8 of the 16 reads in flight" \
	test "$(ms_jq "$out" '.max_inflight')" -le 8
e2e_check "latency pacing without a foreground: at least half of --pacing off's speed" \
	awk -v r="$(mib_s)" -v o="$off" 'BEGIN { exit !(r >= o / 2) }'

# 2. The old presence backoff (still the default of a plain --rate): a backoff that lasts
# the whole run reports that time, not 0.0 (the counter only added finished backoffs).
fg_start rate
ms_scan "$out" "$E2E_LOOP" --rate 48M --rate-min 8M --max-duration 8s
fg_stop rate
e2e_log "never idle, --rate 48M: $(mib_s) MiB/s, $(ms_jq "$out" '"\(.backoffs) backoffs, \(.backoff_s) s of \(.elapsed_s) s"')"
e2e_check "backoff: backed off" test "$(ms_jq "$out" '.backoffs')" -ge 1
e2e_check "backoff: backoff_s counts the backoff still running at the end (>= 4 s)" \
	awk -v b="$(ms_jq "$out" '.backoff_s')" 'BEGIN { exit !(b >= 4) }'

# 3. Qualitatively, on a slow seeking disk model (20 ms a request plus 150 MB/s: the
# model's latency well above the scheduling noise of a busy test host): the scan slows
# when a light foreground (20 random 4 KiB reads a second) comes and its latency rises,
# and speeds up again when it goes. Rates compared over seconds of each phase.
echo "model 20000 150000000" >"$E2E_CTL"
log=$E2E_DIR/phases.log
"$MEDIASCAN" scan "$E2E_LOOP" --pacing latency --max-duration 34s --progress log -q \
	--state-dir "$E2E_DIR/state-phases" --json "$out" 2>"$log" &
scan_pid=$!
sleep 8
fio --name=fg --filename="$E2E_LOOP" --ioengine=psync --direct=1 --rw=randread --bs=4k \
	--rate_iops=20 --time_based --runtime=14 --readonly --output-format=json \
	--output="$E2E_DIR/fg-phases.json" >/dev/null 2>&1
wait "$scan_pid" || e2e_fail "scan failed: $(tail -3 "$log")"
e2e_log "foreground at 20/s during the scan: mean $(jq -r '.jobs[0].read.clat_ns.mean / 1000 | floor' "$E2E_DIR/fg-phases.json") us"
# mean scan rate in MiB/s over progress lines with FROM <= t < TO
phase_rate()
{
	grep '^progress ' "$log" | sed 's/[a-z_]*=//g' | awk -v a="$1" -v b="$2" '
		{ t = $2; s = $3
		  if (t >= a && t < b) { if (!n++) { t0 = t; s0 = s } t1 = t; s1 = s } }
		END { if (t1 > t0) printf "%.1f", (s1 - s0) / (t1 - t0) / 1048576; else print 0 }'
}
before=$(phase_rate 3 8)
during=$(phase_rate 13 22)
after=$(phase_rate 27 40)
e2e_log "scan rate: no foreground $before MiB/s, foreground $during MiB/s, gone $after MiB/s; $(ms_jq "$out" '.pacing | "\(.probes) probes, alone \(.fg_alone_ms) ms"')"
e2e_check "the scan slows when the foreground comes ($during < $before / 2)" \
	awk -v a="$before" -v b="$during" 'BEGIN { exit !(b < a / 2) }'
e2e_check "and speeds up when it goes ($after > 2 x $during)" \
	awk -v a="$after" -v b="$during" 'BEGIN { exit !(a > 2 * b) }'
echo "model 0 0" >"$E2E_CTL"

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "pacing by latency on a disk model"
