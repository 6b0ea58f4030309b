#!/bin/bash
# patrol-disk.sh - issue 6: patrol runs one scan per physical disk at a time. Two targets on
# partitions of the same disk (a GPT on a loop device over the fault disk; `partx -a` adds
# the partitions since this kernel parses no tables) are scanned one after the other, never
# together; each pass still completes. Issue 11: by hand too, a scan of one partition while
# another scan reads the other is refused (exit 4) by the disk's lock.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
for tool in sgdisk partx sqlite3; do
	command -v "$tool" >/dev/null || e2e_skip "$tool is not installed"
done
e2e_setup 256
D=$E2E_LOOP
sgdisk -Z -n 1:1M:+100M -t 1:8300 -n 2:0:+100M -t 2:8300 "$D" >/dev/null ||
	e2e_hard_error "sgdisk failed"
partx -a "$D" || e2e_hard_error "partx -a failed"
for _ in $(seq 50); do
	[ -b "${D}p2" ] && break
	sleep 0.1
done
[ -b "${D}p1" ] && [ -b "${D}p2" ] || e2e_hard_error "no partition devices"
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
state=$E2E_DIR/state
conf=$E2E_DIR/mediascan.conf
cat >"$conf" <<EOC
[global]
state_dir = $state
window = 4s
rate_max = 200M

[target one]
path = ${D}p1

[target two]
path = ${D}p2
EOC
patrol=
cleanup_all()
{
	local rc=$?

	[ -z "$patrol" ] || kill -TERM "$patrol" 2>/dev/null || :
	[ -z "$patrol" ] || wait "$patrol" 2>/dev/null || :
	partx -d "$D" 2>/dev/null || :
	_e2e_cleanup
	exit "$rc"
}
trap cleanup_all EXIT

# complete : print the number of targets with a complete pass
complete()
{
	sqlite3 "$state/mediascan.db" "select count(distinct target_id) from passes where
		result = 'complete'" 2>/dev/null || echo 0
}
"$MEDIASCAN" patrol --config "$conf" 2>"$E2E_DIR/patrol.log" &
patrol=$!
t0=$SECONDS
until [ "$(complete)" -ge 2 ]; do
	[ $((SECONDS - t0)) -lt 60 ] || e2e_fail "both targets not complete in 60 s: $(cat "$E2E_DIR/patrol.log")"
	kill -0 "$patrol" 2>/dev/null || e2e_fail "patrol died: $(cat "$E2E_DIR/patrol.log")"
	sleep 0.5
done
kill -TERM "$patrol"
wait "$patrol" || :
patrol=
e2e_log "$(cat "$E2E_DIR/patrol.log")"
# The first complete pass of each target: [started, ended] in unix seconds.
read -r s1 e1 < <(sqlite3 -separator ' ' "$state/mediascan.db" "select started, ended from
	passes p join targets t on t.id = p.target_id where t.path = '${D}p1' and
	result = 'complete' order by p.id limit 1")
read -r s2 e2 < <(sqlite3 -separator ' ' "$state/mediascan.db" "select started, ended from
	passes p join targets t on t.id = p.target_id where t.path = '${D}p2' and
	result = 'complete' order by p.id limit 1")
e2e_log "one: $s1..$e1, two: $s2..$e2"
e2e_check "each pass was paced (took at least 2 s)" \
	test $((e1 - s1)) -ge 2 -a $((e2 - s2)) -ge 2
e2e_check "the two passes on one disk did not overlap" \
	test "$s2" -ge "$e1" -o "$s1" -ge "$e2"

# Issue 11: the disk lock holds whoever scans. While an admin's scan reads p1, a scan of p2
# (another target on the same disk) is refused with exit 4, naming the disk and the holder.
"$MEDIASCAN" scan "${D}p1" --rate 20M --no-state --progress none >/dev/null 2>&1 &
first=$!
for _ in $(seq 50); do
	ls /run/mediascan/disk-"$(basename "$D")".lock >/dev/null 2>&1 &&
		grep -q "pid $first" /run/mediascan/disk-"$(basename "$D")".lock && break
	sleep 0.1
done
rc=0
"$MEDIASCAN" scan "${D}p2" --no-state --progress none >/dev/null 2>"$E2E_DIR/scan2.err" || rc=$?
e2e_log "scan of p2 during a scan of p1: exit $rc: $(cat "$E2E_DIR/scan2.err")"
wait "$first" || :
ms_expect_eq "a scan of another target on a disk being scanned exits 4" "$rc" 4
e2e_check "it names the disk and the scan holding it" \
	grep -q "disk $(basename "$D") .*pid $first: mediascan scan ${D}p1" "$E2E_DIR/scan2.err"
ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "targets on one disk are scanned one at a time, by patrol and by hand"
