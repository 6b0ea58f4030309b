#!/bin/bash
# patrol-config.sh - bad patrol configs: a syntax error, an unknown key, a missing target, an
# impossible window, two targets naming one device and a tmpfs target each give one line naming
# file and line, a non-zero exit, and no scan (no state store is even created).
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 64
conf=$E2E_DIR/mediascan.conf
state=$E2E_DIR/state

# check_bad DESC LINE PATTERN : patrol on $conf fails with "FILE:LINE: ...PATTERN...", one line.
check_bad()
{
	local rc=0 out
	e2e_reset_counters
	out=$(timeout 20 "$MEDIASCAN" patrol --config "$conf" 2>&1) || rc=$?
	e2e_log "$1: exit $rc: $out"
	e2e_check "$1: non-zero exit" test "$rc" -ne 0
	ms_expect_eq "$1: one line" "$(printf '%s\n' "$out" | wc -l)" 1
	e2e_check "$1: names file and line $2" grep -q "^mediascan: $conf:$2: " <<<"$out"
	e2e_check "$1: says why ($3)" grep -qi -- "$3" <<<"$out"
	e2e_check "$1: nothing scanned (no state store)" test ! -e "$state"
	# Opening a bare disk reads its partition table (libblkid, a few sectors): not a scan.
	e2e_check "$1: no scan of the device (at most the partition table probe)" \
		test "$(e2e_reads)" -le 8
}

printf '[global]\nstate_dir = %s\nwindow = 1d\n[target a\npath = %s\n' "$state" "$E2E_LOOP" >"$conf"
check_bad "syntax error" 4 "syntax error"

printf '[global]\nstate_dir = %s\nwindwo = 1d\n[target a]\npath = %s\n' "$state" "$E2E_LOOP" >"$conf"
check_bad "unknown key" 3 "unknown key 'windwo'"

# A target that cannot be opened now is not a config error (issue 12: one unmounted or
# corrupt filesystem stopped patrol of every disk): --check names it with file and line, says
# patrol retries it, and passes; patrol-broken shows the others are patrolled meanwhile.
printf '[global]\nstate_dir = %s\n\n[target a]\npath = /nonexistent/mediascan-e2e\n' "$state" >"$conf"
rc=0
out=$("$MEDIASCAN" patrol --config "$conf" --check 2>&1) || rc=$?
ms_expect_eq "missing target: --check passes" "$rc" 0
e2e_check "missing target: names file and line 5" grep -q "^mediascan: $conf:5: target 'a'" <<<"$out"
e2e_check "missing target: says patrol retries it" grep -q "retries it" <<<"$out"
e2e_check "missing target: nothing scanned (no state store)" test ! -e "$state"

printf '[global]\nstate_dir = %s\n' "$state" >"$conf"
check_bad "no target at all" 2 "no \[target"

printf '[global]\nstate_dir = %s\nrate_max = 1M\n[target a]\npath = %s\nwindow = 10s\n' \
	"$state" "$E2E_LOOP" >"$conf"
check_bad "impossible window" 6 "impossible window"

printf '[global]\nstate_dir = %s\nwindow = never\n[target a]\npath = %s\n' "$state" "$E2E_LOOP" >"$conf"
check_bad "bad window value" 3 "bad window"

printf '[global]\nstate_dir = %s\n[target a]\npath = %s\nmethod = nvme-verfy\n' "$state" "$E2E_LOOP" >"$conf"
check_bad "unknown method" 5 "bad method: unknown method 'nvme-verfy'"

# Two targets naming one device (one by a symlink to it) would scan it twice under two
# histories: a config error naming the second.
ln -s "$E2E_LOOP" "$E2E_DIR/same-disk"
printf '[global]\nstate_dir = %s\n[target a]\npath = %s\n[target b]\npath = %s\n' "$state" \
	"$E2E_LOOP" "$E2E_DIR/same-disk" >"$conf"
check_bad "two targets, one device" 6 "same filesystem or device as target 'a' (line 4)"

# A filesystem mediascan cannot scan (tmpfs) is a config error, not a target to retry.
mkdir -p "$E2E_DIR/tmpfs"
mount -t tmpfs -o size=1M none "$E2E_DIR/tmpfs"
e2e_on_cleanup "umount '$E2E_DIR/tmpfs' 2>/dev/null || true"
printf '[global]\nstate_dir = %s\n[target t]\npath = %s\n' "$state" "$E2E_DIR/tmpfs" >"$conf"
check_bad "tmpfs target" 4 "supported: xfs"
umount "$E2E_DIR/tmpfs"

# Hook commands: inih cut "notify ; logger x" to "notify" and let an indented line replace
# the command; now refused with file and line (exit 8). A config anyone but root can write is
# refused as sshd refuses its keys: it names commands patrol runs as root.
printf '[global]\nstate_dir = %s\non_damage = /usr/local/sbin/notify ; logger x\n[target a]\npath = %s\n' \
	"$state" "$E2E_LOOP" >"$conf"
check_bad "hook with ' ;'" 3 "on_damage has ' ;'"
printf '[global]\nstate_dir = %s\non_damage = /usr/local/sbin/notify\n  logger x\n[target a]\npath = %s\n' \
	"$state" "$E2E_LOOP" >"$conf"
check_bad "indented line under a hook" 4 "indented line continues no value"
rc=0
"$MEDIASCAN" patrol --config "$conf" --check >/dev/null 2>&1 || rc=$?
ms_expect_eq "indented line: exit 8" "$rc" 8
printf '[global]\nstate_dir = %s\nwindow = 1h\non_damage = logger -t ms "damage on $MEDIASCAN_TARGET"\n[target a]\npath = %s\n' \
	"$state" "$E2E_LOOP" >"$conf"
chmod 664 "$conf"
rc=0
out=$("$MEDIASCAN" patrol --config "$conf" --check 2>&1) || rc=$?
ms_expect_eq "group-writable config: refused, exit 8" "$rc" 8
e2e_check "group-writable config: says why" grep -q "writable by its group" <<<"$out"
chmod 644 "$conf"
chmod 777 "$E2E_DIR"
rc=0
out=$("$MEDIASCAN" patrol --config "$conf" --check 2>&1) || rc=$?
chmod 700 "$E2E_DIR"
ms_expect_eq "config in a world-writable directory: refused, exit 8" "$rc" 8
e2e_check "world-writable directory: named" grep -q "$E2E_DIR is writable by everyone" <<<"$out"
e2e_check "refused configs: nothing scanned (no state store)" test ! -e "$state"
out=$("$MEDIASCAN" patrol --config "$conf" --check)
e2e_check "--check prints the hook as it will run" \
	grep -qF "  on_damage: /bin/sh -c 'logger -t ms \"damage on \$MEDIASCAN_TARGET\"'  (killed after 5:00)" <<<"$out"

# A metrics_file that cannot be written (here a symlink) is said at once, not only at each
# write (every write refuses it: the link's target is never written).
echo precious >"$E2E_DIR/victim"
ln -s "$E2E_DIR/victim" "$E2E_DIR/link.prom"
printf '[global]\nstate_dir = %s\nmetrics_file = %s\n[target a]\npath = %s\n' "$state" \
	"$E2E_DIR/link.prom" "$E2E_LOOP" >"$conf"
rc=0
out=$("$MEDIASCAN" patrol --config "$conf" --check 2>&1) || rc=$?
ms_expect_eq "metrics_file a symlink: --check still passes" "$rc" 0
e2e_check "metrics_file a symlink: said" grep -q "metrics_file .*symbolic link" <<<"$out"
ms_expect_eq "metrics_file a symlink: its target untouched" "$(cat "$E2E_DIR/victim")" precious

# A good config passes --check and scans nothing either.
printf '[global]\nstate_dir = %s\nwindow = 1h\n[target a]\npath = %s\n' "$state" "$E2E_LOOP" >"$conf"
out=$("$MEDIASCAN" patrol --config "$conf" --check)
e2e_check "--check lists the target with its disk" grep -q "^a: $E2E_LOOP, 64.0 MiB planned" <<<"$out"
e2e_pass "config errors name file and line; nothing scanned"
