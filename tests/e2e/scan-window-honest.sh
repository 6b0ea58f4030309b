#!/bin/bash
# scan-window-honest.sh - issue 21, "the window is honest": when the spare capacity cannot
# finish the pass within --window, that is said early and kept while the pass runs, where an
# admin looks: `mediascan status` (human and JSON) and patrol's metrics (projected end, window
# end, window late), not only in the scan's own progress line; a window the disk can meet is
# not called late; and when the foreground goes away the pass speeds up and ends in time.
# On the fault disk's one-queue model (1 ms a request plus 40 MB/s: about 37 MiB/s of 1 MiB
# reads), a raw 512 MiB loop device.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 512
e2e_readonly on
h=$(e2e_hash)
echo "model 1000 40000000" >"$E2E_CTL"

SCAN_PID=
FG_PID=
PATROL_PID=
stop_all()
{
	local p
	for p in $SCAN_PID $FG_PID $PATROL_PID; do
		kill -TERM "$p" 2>/dev/null || :
		wait "$p" 2>/dev/null || :
	done
	SCAN_PID= FG_PID= PATROL_PID=
}
trap 'rc=$?; set +e; stop_all; _e2e_cleanup; exit $rc' EXIT

# status_json STATE : the latest pass of the one target, as status --json says it.
status_json()
{
	"$MEDIASCAN" status --state-dir "$1" --json - 2>/dev/null |
		jq -c '(.targets // .)[0].latest_pass // empty' 2>/dev/null || :
}

# watch_status STATE LOG : while SCAN_PID runs, append "ELAPSED_S JSON" lines to LOG.
watch_status()
{
	local t0=$1 state=$2 log=$3 j
	while kill -0 "$SCAN_PID" 2>/dev/null; do
		j=$(status_json "$state")
		[ -z "$j" ] || echo "$(awk -v a="$t0" -v b="$(date +%s.%N)" \
			'BEGIN { printf "%.1f", b - a }') $j" >>"$log"
		sleep 0.5
	done
}

# 1. A window the disk itself cannot meet: 512 MiB in 8 s asks 64 MiB/s of a ~37 MiB/s disk.
# No foreground at all. status must say "late" early (long before the window's end) and keep
# saying it while the pass runs, with the projected end past the window's end.
state=$E2E_DIR/state-late
log=$E2E_DIR/late.log
: >"$log"
t0=$(date +%s.%N)
"$MEDIASCAN" scan "$E2E_LOOP" --window 8s --max-duration 12s --progress log -q \
	--state-dir "$state" --json "$E2E_DIR/late.json" 2>"$E2E_DIR/late.progress" &
SCAN_PID=$!
human=
for _ in $(seq 40); do
	sleep 0.25
	kill -0 "$SCAN_PID" 2>/dev/null || break
	out=$("$MEDIASCAN" status --state-dir "$state" 2>/dev/null || :)
	if grep -q "WILL MISS THE WINDOW" <<<"$out"; then
		human=$out
		break
	fi
done
watch_status "$t0" "$state" "$log"
wait "$SCAN_PID" || :
SCAN_PID=
e2e_log "status while late (human): $(grep -i window <<<"$human" || echo none)"
e2e_log "status --json, first and last while running: $(grep '"result":"running"' "$log" |
	sed -n '1p;$p' | jq -Rrc 'split(" ") | .[0] + " s " + (.[1:] | join(" ") | fromjson |
	{window_end, projected_end, window_late, window_late_since} | tostring)' 2>/dev/null)"
first_late=$(grep '"window_late":true' "$log" | head -1 | cut -d' ' -f1 || :)
first_late_human=$([ -n "$human" ] && echo yes || echo no)
e2e_check "status (human) says the pass will miss its window" test "$first_late_human" = yes
e2e_check "status --json: window_late seen while the pass runs" test -n "$first_late"
e2e_check "status --json: said early (at ${first_late:-never} s, window 8 s: before 6 s)" \
	awk -v t="${first_late:-99}" 'BEGIN { exit !(t < 6) }'
running=$(grep '"result":"running"' "$log" | awk -v f="${first_late:-99}" '$1 >= f' || :)
e2e_check "status --json: and kept saying it while the pass ran" \
	sh -c "! grep -q '\"window_late\":false' <<'EOF'
$running
EOF"
last=$(grep '"window_late":true' "$log" | tail -1 | cut -d' ' -f2- || :)
e2e_check "status --json: projected_end past window_end" \
	test "$(jq -r '.projected_end > .window_end + 2' <<<"${last:-{\}}")" = true
e2e_check "status --json: window_late_since set" \
	test "$(jq -r '.window_late_since > 0' <<<"${last:-{\}}")" = true
e2e_check "the report agrees (pacing.window_late)" \
	test "$(ms_jq "$E2E_DIR/late.json" '.pacing.window_late')" = true

# 2. A window the disk can meet (512 MiB in 40 s: 12.8 MiB/s): not called late.
state=$E2E_DIR/state-ok
log=$E2E_DIR/ok.log
: >"$log"
t0=$(date +%s.%N)
"$MEDIASCAN" scan "$E2E_LOOP" --window 40s --max-duration 9s --progress none -q \
	--state-dir "$state" --json "$E2E_DIR/ok.json" &
SCAN_PID=$!
watch_status "$t0" "$state" "$log"
wait "$SCAN_PID" || :
SCAN_PID=
e2e_log "status --json, last while running: $(grep '"result":"running"' "$log" | tail -1 |
	cut -d' ' -f2- | jq -c '{window_end, projected_end, window_late}' 2>/dev/null)"
e2e_check "a window the disk meets: a projected end is shown" \
	grep -q '"projected_end":[0-9]' "$log"
e2e_check "a window the disk meets: never called late" sh -c "! grep -q '\"window_late\":true' '$log'"

# 3. patrol's metrics say it too: a patrol with an 8 s window over the raw device.
state=$E2E_DIR/state-patrol
prom=$E2E_DIR/mediascan.prom
cat >"$E2E_DIR/patrol.conf" <<EOC
[global]
state_dir = $state
window = 8s
metrics_file = $prom

[target raw]
path = $E2E_LOOP
EOC
MEDIASCAN_PATROL_METRICS_S=1 "$MEDIASCAN" patrol --config "$E2E_DIR/patrol.conf" \
	2>"$E2E_DIR/patrol.log" &
PATROL_PID=$!
seen=
for _ in $(seq 40); do
	sleep 0.5
	if grep -q '^mediascan_scan_window_late{target="raw".*} 1$' "$prom" 2>/dev/null; then
		seen=$(grep '^mediascan_scan_\(window\|projected\)' "$prom" || :)
		break
	fi
done
kill -TERM "$PATROL_PID" 2>/dev/null || :
wait "$PATROL_PID" 2>/dev/null || :
PATROL_PID=
e2e_log "metrics while late: $(tr '\n' ' ' <<<"$seen")"
e2e_check "metrics: mediascan_scan_window_late 1 while the pass runs" test -n "$seen"
pend=$(awk '/^mediascan_scan_projected_end_seconds/ { print $2 }' <<<"$seen" || :)
wend=$(awk '/^mediascan_scan_window_end_seconds/ { print $2 }' <<<"$seen" || :)
e2e_check "metrics: projected end ($pend) past the window's end ($wend)" \
	awk -v p="${pend:-0}" -v w="${wend:-0}" 'BEGIN { exit !(w > 0 && p > w + 2) }'
if command -v promtool >/dev/null && [ -s "$prom" ]; then
	e2e_check "promtool check metrics" sh -c "promtool check metrics <'$prom'"
fi
e2e_check "metrics: all 0 once no scan runs" \
	grep -q '^mediascan_scan_window_late{target="raw".*} 0$' "$prom"

# 4. A foreground that leaves too little makes the pass late; when it goes away the pass
# speeds up and ends in time. 512 MiB in 36 s (14.2 MiB/s): a never-idle foreground (256 KiB
# random reads at queue depth 1) holds the scan far below that for 12 s; then 24 s at the
# disk's ~37 MiB/s are enough.
state=$E2E_DIR/state-fg
log=$E2E_DIR/fg.log
: >"$log"
if command -v fio >/dev/null; then
	fio --name=fg --filename="$E2E_LOOP" --ioengine=psync --direct=1 --rw=randread --bs=256k \
		--time_based --runtime=12 --readonly >/dev/null 2>&1 &
	FG_PID=$!
	sleep 0.5
	t0=$(date +%s.%N)
	"$MEDIASCAN" scan "$E2E_LOOP" --window 36s --max-duration 50s --progress none -q \
		--state-dir "$state" --json "$E2E_DIR/fg.json" &
	SCAN_PID=$!
	watch_status "$t0" "$state" "$log"
	wait "$SCAN_PID" || :
	SCAN_PID=
	wait "$FG_PID" 2>/dev/null || :
	FG_PID=
	late_fg=$(grep '"window_late":true' "$log" | awk '$1 < 12.5' | head -1 | cut -d' ' -f1 || :)
	intime=$(grep '"result":"running"' "$log" | awk '$1 > 13' | grep '"window_late":false' |
		head -1 | cut -d' ' -f1 || :)
	e2e_log "foreground for 12 s: late said at ${late_fg:-never} s, in time again at" \
		"${intime:-never} s; the pass took $(ms_jq "$E2E_DIR/fg.json" '.elapsed_s') s," \
		"complete $(ms_jq "$E2E_DIR/fg.json" '.complete')"
	e2e_check "foreground: late said while it runs" test -n "$late_fg"
	e2e_check "foreground gone: in time again while the pass runs" test -n "$intime"
	e2e_check "foreground gone: the pass completes" \
		test "$(ms_jq "$E2E_DIR/fg.json" '.complete')" = true
	e2e_check "foreground gone: within the window (36 s + the 2.7 s margin)" \
		awk -v t="$(ms_jq "$E2E_DIR/fg.json" '.elapsed_s')" 'BEGIN { exit !(t <= 38.7) }'
else
	e2e_log "fio is not installed: the foreground case is not run"
fi
echo "model 0 0" >"$E2E_CTL"

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "the window is honest: status, metrics, said early and kept"
