#!/bin/bash
# chain.sh - the monitoring chain admins run, with Debian's packages, on loopback: patrol
# writes its textfile into a directory that prometheus-node-exporter's textfile collector
# reads; prometheus scrapes it every second with docs/alerts.yml loaded as shipped;
# prometheus-alertmanager routes to a webhook receiver this test runs (webhook.py). Patrol
# scans an XFS on the fault disk with 4 files damaged: through Prometheus's HTTP API the
# metrics equal what `mediascan report --json` and `status --json` say, MediascanDamagedFiles
# fires and reaches the webhook; then the bad sectors are repaired, a clean pass clears the
# damage and the alert resolves (the webhook gets it resolved). Each daemon runs directly
# (not via systemd) on random non-default loopback ports and is killed at the end.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
here=$(cd "$(dirname "$0")" && pwd)
rules=$here/../../docs/alerts.yml
for t in prometheus prometheus-node-exporter prometheus-alertmanager python3 curl ss; do
	command -v "$t" >/dev/null || e2e_skip "$t is not installed (scripts/deps)"
done

e2e_setup 320
mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
for i in 1 2 3 4; do
	xfs_io -f -c "pwrite -S 0x1$i -b 1048576 0 1048576" -c fsync "$E2E_MNT/f$i" >/dev/null
done
xfs_io -f -c "pwrite -S 0x55 -b 1048576 0 33554432" -c fsync "$E2E_MNT/spacer" >/dev/null
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

d=$E2E_DIR
mkdir -p "$d/textfile" "$d/prom" "$d/am"
# Four consecutive ports below the kernel's ephemeral range (outgoing connections, the other
# services' own, take ports from that range and once took the webhook's), free when chosen.
eph_lo=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range)
for _ in $(seq 50); do
	base=$((10000 + RANDOM % (eph_lo - 10004)))
	busy=$(ss -Htan "( sport >= :$base and sport <= :$((base + 3)) )" | wc -l)
	[ "$busy" = 0 ] && break
done
np=$base pp=$((base + 1)) ap=$((base + 2)) wp=$((base + 3))
pids=()
e2e_on_cleanup 'for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done; for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done'

# The webhook receiver.
python3 "$here/webhook.py" "$wp" "$d/hook.jsonl" 2>"$d/hook.err" &
pids+=($!)
# Alertmanager: one route to the webhook, resolved alerts too, no cluster.
cat >"$d/am.yml" <<EOC
route:
  receiver: hook
  group_by: [alertname, target]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: http://127.0.0.1:$wp/
        send_resolved: true
EOC
prometheus-alertmanager --config.file="$d/am.yml" --storage.path="$d/am" \
	--web.listen-address="127.0.0.1:$ap" --cluster.listen-address= >"$d/am.log" 2>&1 &
pids+=($!)
# node exporter: the textfile collector only.
prometheus-node-exporter --web.listen-address="127.0.0.1:$np" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$d/textfile" >"$d/node.log" 2>&1 &
pids+=($!)
# Prometheus: scrape and evaluate every second, the shipped rules, the Alertmanager above.
cat >"$d/prometheus.yml" <<EOC
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $rules
alerting:
  alertmanagers:
    - static_configs:
        - targets: ['127.0.0.1:$ap']
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$np']
EOC
prometheus --config.file="$d/prometheus.yml" --storage.tsdb.path="$d/prom" \
	--web.listen-address="127.0.0.1:$pp" --rules.alert.resend-delay=2s >"$d/prom.log" 2>&1 &
pids+=($!)

# wait_for DESC SECONDS CMD... : poll CMD every half second; fail after SECONDS.
wait_for()
{
	local desc=$1 n=$(($2 * 2))
	shift 2
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		if [ "$n" -le 0 ]; then
			for f in am.log node.log prom.log patrol.err hook.err hook.jsonl; do
				echo "== $f"; tail -n 15 "$d/$f" 2>/dev/null || :
			done
			echo "== alertmanager's alerts"
			curl -s "http://127.0.0.1:$ap/api/v2/alerts" || :
			echo "== prometheus's alerts"
			curl -s "http://127.0.0.1:$pp/api/v1/alerts" || :
			echo "== prometheus's alertmanagers"
			curl -s "http://127.0.0.1:$pp/api/v1/alertmanagers" || :
			e2e_fail "timed out: $desc"
		fi
		sleep 0.5
	done
	echo "ok: $desc"
}
wait_for "alertmanager ready" 30 curl -sf "http://127.0.0.1:$ap/-/ready"
wait_for "node exporter up" 30 curl -sf "http://127.0.0.1:$np/metrics"
wait_for "prometheus ready" 60 curl -sf "http://127.0.0.1:$pp/-/ready"
wait_for "webhook up" 30 curl -sf -X POST -d '{}' "http://127.0.0.1:$wp/"

# q EXPR : the value of EXPR now (first series), through Prometheus's HTTP API.
q()
{
	curl -sf --get --data-urlencode "query=$1" "http://127.0.0.1:$pp/api/v1/query" |
		jq -r '.data.result[0].value[1] // empty'
}
rule_loaded() { curl -sf "http://127.0.0.1:$pp/api/v1/rules" |
	jq -e '[.data.groups[].rules[].name] | index("MediascanDamagedFiles")'; }
wait_for "prometheus loaded docs/alerts.yml" 30 rule_loaded

cat >"$d/mediascan.conf" <<EOC
[global]
state_dir = $d/state
metrics_file = $d/textfile/mediascan.prom
window = 10s
rate_max = 200M

[target data]
path = $E2E_MNT
EOC
MEDIASCAN_PATROL_METRICS_S=1 "$MEDIASCAN" patrol --config "$d/mediascan.conf" 2>"$d/patrol.err" &
patrol=$!
pids+=($patrol)

first_pass_done() {
	"$MEDIASCAN" status --json --state-dir "$d/state" >"$d/status.json" 2>/dev/null &&
	jq -e '.targets[0].last_complete_pass != null' "$d/status.json"
}
wait_for "patrol's first pass is complete" 120 first_pass_done
"$MEDIASCAN" report --json --state-dir "$d/state" >"$d/report.json" || :
want_open=$(jq '[.targets[] | select(.path == "'"$E2E_MNT"'") | .errors[] |
	select(.verdict == "damage" and .state == "open")] | length' "$d/report.json")
want_files=$(jq '[.targets[] | select(.path == "'"$E2E_MNT"'") | .errors[] |
	select(.verdict == "damage" and .state == "open") | .owners[]? |
	select(.type == "file") | .inode] | unique | length' "$d/report.json")
want_ended=$(jq '.targets[0].last_complete_pass.ended' "$d/status.json")
ms_expect_eq "the report: 4 open ranges" "$want_open" 4
ms_expect_eq "the report: 4 damaged files" "$want_files" 4
scraped_pass() { [ "$(q 'mediascan_last_complete_pass_timestamp_seconds{target="data"}')" = "$want_ended" ]; }
wait_for "prometheus scraped the complete pass (timestamp $want_ended)" 30 scraped_pass
ms_expect_eq "prometheus: mediascan_errors_open = the report's open ranges" \
	"$(q 'mediascan_errors_open{target="data"}')" "$want_open"
ms_expect_eq "prometheus: mediascan_damaged_files = the report's files" \
	"$(q 'mediascan_damaged_files{target="data"}')" "$want_files"
ms_expect_eq "prometheus: the scrape's labels name the path" \
	"$(q 'count(mediascan_errors_open{target="data",path="'"$E2E_MNT"'",job="node"})')" 1
ms_expect_eq "prometheus: mediascan_target_available" "$(q 'mediascan_target_available{target="data"}')" 1

fired() { curl -sf "http://127.0.0.1:$pp/api/v1/alerts" |
	jq -e '.data.alerts[] | select(.labels.alertname == "MediascanDamagedFiles" and .state == "firing")'; }
wait_for "prometheus: MediascanDamagedFiles fires" 30 fired
# (slurped: jq -e alone looks only at the output for the last line)
hook_has() { [ -f "$d/hook.jsonl" ] && jq -se --arg s "$1" '[.[] | select(.alerts? != null) |
	.alerts[] | select(.labels.alertname == "MediascanDamagedFiles" and .status == $s)] |
	length > 0' "$d/hook.jsonl"; }
wait_for "the webhook got MediascanDamagedFiles firing" 60 hook_has firing
# The metrics are written each second during the pass, so the alert may first fire while the
# pass has named 3 of the 4 files: the webhook's first notice says some of them and the path,
# and Prometheus's alert (its annotation evaluated again at each evaluation) then says all 4.
summary=$(jq -r 'select(.alerts? != null) | .alerts[] | select(.labels.alertname == "MediascanDamagedFiles" and .status == "firing") | .annotations.summary' "$d/hook.jsonl" | head -n 1)
e2e_check "the webhook's alert says files and the path ($summary)" grep -qE "^[1-4] files damaged on .*$E2E_MNT" <<<"$summary"
says_4() { curl -sf "http://127.0.0.1:$pp/api/v1/alerts" | jq -r '.data.alerts[] |
	select(.labels.alertname == "MediascanDamagedFiles" and .state == "firing") |
	.annotations.summary' | grep -q "^4 files damaged on .*$E2E_MNT"; }
wait_for "prometheus: the alert says 4 files and the path" 30 says_4
ms_expect_eq "MediascanMediaErrors does not fire too (files are named)" \
	"$(curl -sf "http://127.0.0.1:$pp/api/v1/alerts" | jq '[.data.alerts[] | select(.labels.alertname == "MediascanMediaErrors")] | length')" 0

# The disk is repaired (the sectors read again): a clean complete pass clears the damage.
for b in "${bad[@]}"; do
	e2e_bad_del "$b" 512
done
cleared() { [ "$(q 'mediascan_errors_open{target="data"}')" = 0 ] &&
	[ "$(q 'mediascan_errors_cleared{target="data"}')" = 4 ] &&
	[ "$(q 'mediascan_damaged_files{target="data"}')" = 0 ]; }
wait_for "prometheus: a clean pass cleared the 4 ranges (open 0, cleared 4, files 0)" 120 cleared
"$MEDIASCAN" report --json --state-dir "$d/state" >"$d/report2.json" || :
ms_expect_eq "the report agrees: no open range" \
	"$(jq '[.targets[].errors[] | select(.verdict == "damage" and .state == "open")] | length' \
	"$d/report2.json")" 0
wait_for "the webhook got MediascanDamagedFiles resolved" 60 hook_has resolved
kill -TERM "$patrol"
wait "$patrol" || :
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "textfile -> node exporter -> prometheus (shipped rules) -> alertmanager -> webhook, fired and resolved"
