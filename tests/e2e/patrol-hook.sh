#!/bin/bash
# patrol-hook.sh - finding 8 of issue 11, on_damage: (1) a hook that fails (exit 1) leaves the
# damage untold (errors.notified = 0) and is run again on the next run, until it succeeds,
# then not again; (2) a hook that hangs is killed with everything it started after
# hook_timeout, and the damage stays untold; (3) with a hook hanging (long hook_timeout), a
# SIGHUP that removes its target returns promptly and (4) so does SIGTERM, leaving no hook
# process. Nothing is written to the device.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v sqlite3 >/dev/null || e2e_skip "sqlite3 is not installed"
e2e_setup 64
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
bad=$((40 << 20))
e2e_bad_add "$bad" 512
export HOOKDIR=$E2E_DIR/hook
mkdir "$HOOKDIR"
cat >"$HOOKDIR/fail.sh" <<'EOS'
#!/bin/sh
cat >"$HOOKDIR/call.$(date +%s%N)"
[ -e "$HOOKDIR/ok" ] && exit 0
exit 1
EOS
cat >"$HOOKDIR/hang.sh" <<'EOS'
#!/bin/sh
cat >/dev/null
sleep 987654 &
echo "$$ $!" >>"$HOOKDIR/hang.pids"
wait
EOS

patrol=
cleanup_all()
{
	local rc=$?

	[ -z "$patrol" ] || kill -KILL "$patrol" 2>/dev/null || :
	if [ -f "$HOOKDIR/hang.pids" ]; then
		for p in $(cat "$HOOKDIR/hang.pids"); do kill -KILL "$p" 2>/dev/null || :; done
	fi
	sleep 0.5
	_e2e_cleanup
	exit "$rc"
}
trap cleanup_all EXIT

# conf STATE_DIR HOOK TIMEOUT [TARGET_NAME] : write the config for one raw target.
conf()
{
	cat >"$E2E_DIR/mediascan.conf" <<EOC
[global]
state_dir = $1
window = 6s
rate_max = 100M
rate_min = 1M
on_damage = $2
hook_timeout = $3

[target ${4:-raw}]
path = $E2E_LOOP
EOC
}
complete_passes()
{
	sqlite3 "$1/mediascan.db" "select count(*) from passes where result = 'complete'" \
		2>/dev/null || echo 0
}
wait_passes()
{
	local t0=$SECONDS
	while [ "$(complete_passes "$1")" -lt "$2" ]; do
		[ $((SECONDS - t0)) -lt 60 ] || e2e_fail "no complete pass $2 in 60 s"
		kill -0 "$patrol" 2>/dev/null || e2e_fail "patrol died"
		sleep 0.5
	done
}
notified()
{
	sqlite3 "$1/mediascan.db" "select group_concat(notified) from errors where offset = $bad"
}
# hook_gone : every process the hanging hook started has ended (a zombie that the reaper of
# orphans has not collected yet has ended), waiting up to 2 s.
hook_gone()
{
	local p alive
	for _ in $(seq 20); do
		alive=
		for p in $(cat "$HOOKDIR/hang.pids"); do
			[ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null || echo Z)" = Z ] ||
				alive="$alive $p"
		done
		[ -z "$alive" ] && return 0
		sleep 0.1
	done
	echo "still running:$alive" >&2
	return 1
}
wait_file()
{
	for _ in $(seq 300); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	e2e_fail "$2"
}

# 1. A failing hook: damage stays untold, the hook is run again on the next run.
st1=$E2E_DIR/state1
conf "$st1" "sh $HOOKDIR/fail.sh" 30s
"$MEDIASCAN" patrol --config "$E2E_DIR/mediascan.conf" 2>"$E2E_DIR/patrol1.log" &
patrol=$!
wait_passes "$st1" 2
calls=$(ls "$HOOKDIR"/call.* 2>/dev/null | wc -l)
e2e_log "failing hook: $calls calls after 2 passes"
e2e_check "the failed hook was run again on the next run (>= 2 calls)" test "$calls" -ge 2
e2e_check "each call got the damage" \
	sh -c "jq -r '.media_errors[].offset' '$HOOKDIR'/call.* | sort -u | grep -qx $bad"
ms_expect_eq "the damage is not marked notified" "$(notified "$st1")" 0
e2e_check "patrol says the hook failed and will be retried" \
	grep -q "on_damage failed with exit status 1.*offered again on the next run" \
	"$E2E_DIR/patrol1.log"
touch "$HOOKDIR/ok"
n=$(complete_passes "$st1")
wait_passes "$st1" $((n + 1))
# a pass is recorded complete before its report stage runs the hook and marks what it told
for _ in $(seq 100); do
	[ "$(notified "$st1")" = 1 ] && break
	sleep 0.2
done
ms_expect_eq "after the hook succeeded the damage is notified" "$(notified "$st1")" 1
calls=$(ls "$HOOKDIR"/call.* | wc -l)
n=$(complete_passes "$st1")
wait_passes "$st1" $((n + 2))
ms_expect_eq "a told damage is not told again" "$(ls "$HOOKDIR"/call.* | wc -l)" "$calls"
kill -TERM "$patrol"
wait "$patrol" || :
patrol=

# 2. A hanging hook is killed (all of it) after hook_timeout; the damage stays untold.
st2=$E2E_DIR/state2
conf "$st2" "sh $HOOKDIR/hang.sh" 2s
"$MEDIASCAN" patrol --config "$E2E_DIR/mediascan.conf" 2>"$E2E_DIR/patrol2.log" &
patrol=$!
wait_file "$HOOKDIR/hang.pids" "the hanging hook did not start in 30 s"
t0=$SECONDS
until grep -q "on_damage timed out after 2s and was killed" "$E2E_DIR/patrol2.log"; do
	[ $((SECONDS - t0)) -lt 10 ] || e2e_fail "the hook was not killed 10 s after it started: $(cat "$E2E_DIR/patrol2.log")"
	sleep 0.2
done
e2e_log "hook killed after $((SECONDS - t0)) s"
e2e_check "the hook and what it started are gone" hook_gone
ms_expect_eq "the damage is not marked notified" "$(notified "$st2")" 0
kill -TERM "$patrol"
wait "$patrol" || :
patrol=
rm -f "$HOOKDIR/hang.pids"

# 3. A hook hanging for long: a SIGHUP that removes its target returns promptly.
st3=$E2E_DIR/state3
conf "$st3" "sh $HOOKDIR/hang.sh" 10m
"$MEDIASCAN" patrol --config "$E2E_DIR/mediascan.conf" 2>"$E2E_DIR/patrol3.log" &
patrol=$!
wait_file "$HOOKDIR/hang.pids" "the hanging hook did not start in 30 s"
conf "$st3" "" 10m renamed
t0=$(date +%s%N)
kill -HUP "$patrol"
until grep -q "config reloaded" "$E2E_DIR/patrol3.log"; do
	[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 10000 ] ||
		e2e_fail "SIGHUP blocked: no reload 10 s later (a hook hangs): $(cat "$E2E_DIR/patrol3.log")"
	sleep 0.1
done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
e2e_log "reload with a hanging hook took $ms ms"
e2e_check "SIGHUP returned within 5 s" test "$ms" -le 5000
e2e_check "the hook of the removed target is gone" hook_gone
e2e_check "patrol says the hook was stopped" grep -q "on_damage was stopped" "$E2E_DIR/patrol3.log"
kill -TERM "$patrol"
wait "$patrol" || :
patrol=
rm -f "$HOOKDIR/hang.pids"

# 4. A hook hanging for long: SIGTERM stops patrol promptly, the hook with it.
conf "$st3" "sh $HOOKDIR/hang.sh" 10m
"$MEDIASCAN" patrol --config "$E2E_DIR/mediascan.conf" 2>"$E2E_DIR/patrol4.log" &
patrol=$!
wait_file "$HOOKDIR/hang.pids" "the hanging hook did not start in 30 s"
t0=$(date +%s%N)
kill -TERM "$patrol"
for _ in $(seq 100); do
	kill -0 "$patrol" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$patrol" 2>/dev/null && e2e_fail "patrol still runs 10 s after SIGTERM (a hook hangs)"
rc=0
wait "$patrol" || rc=$?
patrol=
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
e2e_log "stop with a hanging hook took $ms ms"
ms_expect_eq "patrol exits 0 on SIGTERM" "$rc" 0
e2e_check "SIGTERM returned within 5 s" test "$ms" -le 5000
e2e_check "the hook is gone" hook_gone
ms_expect_eq "the damage is still not marked notified" "$(notified "$st3")" 0

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "failed hooks retried, hung hooks killed, SIGHUP and SIGTERM prompt"
