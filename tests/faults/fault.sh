#!/bin/bash
# tests/faults/fault.sh FAULT - one fault of the fault-injection tier (tests/faults/run): a
# fault disk with known bad ranges, a history that knows some of them, the fault injected
# during a pass, then one more clean pass; the history must then equal the disk's ground
# truth (tests/lib/history.sh: every bad range open as damage, nothing else open, nothing
# cleared that was not read cleanly, each told). Appends "FAULT|MOMENT|pass or FAIL|detail"
# rows to $FAULT_TABLE. Exit 0 when every row passed, 1 otherwise, 77 skip, 99 hard error.
#   busy		another connection holds BEGIN IMMEDIATE for 11 s from 0.5 s into a pass
#   busy-to-end		the same, for the rest of the pass (and its last tries)
#   enospc		the state directory's filesystem (tmpfs size=1m) fills during a pass
#   enospc-at-open	it is full before the pass (the store cannot be opened)
#   sigterm-isolation	SIGTERM while a failed read is narrowed
#   sigkill		SIGKILL at 24 seeded moments (plan, scan, isolation, record), then
#			--resume, then a clean pass
set -uo pipefail
. "$(dirname "$0")/../lib/history.sh"
e2e_require_root_loop_fuse
ms_require
command -v sqlite3 >/dev/null || e2e_skip "sqlite3 is not installed"
fault=${1:?fault name}
: "${FAULT_TABLE:=/dev/stdout}"
failed=0

# row MOMENT WHY : one row of the table; an empty WHY passed.
row()
{
	if [ -z "$2" ]; then
		echo "$fault|$1|pass|history = ground truth" >>"$FAULT_TABLE"
	else
		echo "$fault|$1|FAIL|$2" >>"$FAULT_TABLE"
		failed=$((failed + 1))
	fi
	e2e_log "$fault $1: ${2:-pass}"
}

# scan STATE ARGS... : one pass; MS_RC its exit status.
scan()
{
	local st=$1
	shift
	MS_RC=0
	"$MEDIASCAN" scan "$E2E_LOOP" --state-dir "$st" --progress none -q \
		--json "$E2E_DIR/r.json" "$@" 2>>"$E2E_DIR/scan.err" || MS_RC=$?
}

# scan_bg STATE ARGS... : the same in the background, mediascan's own pid in pid.
scan_bg()
{
	local st=$1
	shift
	"$MEDIASCAN" scan "$E2E_LOOP" --state-dir "$st" --progress none -q \
		--json "$E2E_DIR/r.json" "$@" 2>>"$E2E_DIR/scan.err" &
	pid=$!
}

e2e_setup 16
e2e_readonly on
h=$(e2e_hash)
b1=$(((2 << 20) + 512))
b2=$((8 << 20))
b3=$((12 << 20))
truth="$b1:512 $b2:4096"
e2e_bad_add "$b1" 512
e2e_bad_add "$b2" 4096
base=$E2E_DIR/base
scan "$base"			# the history knows b1 and b2
[ "$(hist_open "$base")" = "$b1:512:damage $b2:4096:damage" ] ||
	e2e_hard_error "the baseline pass did not record $truth: $(hist_open "$base")"
# fresh_state DIR : a copy of the baseline history.
fresh_state()
{
	rm -rf "$1"
	cp -a "$base" "$1"
}

case $fault in
busy | busy-to-end)
	st=$E2E_DIR/st
	fresh_state "$st"
	e2e_bad_add "$b3" 512		# new damage in the faulty pass
	truth="$truth $b3:512"
	hold=11
	[ "$fault" = busy ] || hold=40
	scan_bg "$st" --rate 2M
	sleep 0.5
	hist_hold_lock "$st/mediascan.db" "$hold"
	wait "$pid"
	rc=$?
	kill "$HIST_LOCK_PID" 2>/dev/null
	wait "$HIST_LOCK_PID" 2>/dev/null
	why=
	if [ "$fault" = busy-to-end ] && [ $((rc & 4)) -ne 4 ]; then
		why="the pass did not say its errors were not stored (exit $rc)"
	fi
	cl=$(hist_db "$st" "select count(*) from errors where state = 'cleared'")
	[ "$cl" = 0 ] || why="$why${why:+; }the faulty pass cleared $cl rows"
	scan "$st"
	why="$why${why:+; }$(hist_truth_why "$st" "$truth")"
	row "lock ${hold}s from 0.5s (exit $rc)" "${why%; }"
	;;
enospc | enospc-at-open)
	mnt=$E2E_DIR/tiny
	mkdir -p "$mnt"
	mount -t tmpfs -o size=1m,mode=0700 tiny "$mnt" || e2e_skip "cannot mount a tmpfs"
	e2e_on_cleanup "umount '$mnt'"
	st=$mnt/state
	fresh_state "$st"
	e2e_bad_add "$b3" 512
	truth="$truth $b3:512"
	if [ "$fault" = enospc ]; then
		scan_bg "$st" --rate 2M	# filled once the pass has begun
		sleep 0.5
		dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null
		wait "$pid"
		rc=$?
		moment="state fs full from 0.5s"
	else
		dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null
		scan "$st"
		rc=$MS_RC
		moment="state fs full at open"
	fi
	rm -f "$mnt/fill"
	why=
	[ $((rc & 4)) -eq 4 ] || why="the pass did not say so (exit $rc)"
	cl=$(hist_db "$st" "select count(*) from errors where state = 'cleared'")
	[ "$cl" = 0 ] || why="$why${why:+; }the faulty pass cleared $cl rows"
	scan "$st"
	why="$why${why:+; }$(hist_truth_why "$st" "$truth")"
	row "$moment (exit $rc)" "${why%; }"
	;;
sigterm-isolation)
	st=$E2E_DIR/st
	fresh_state "$st"
	e2e_delay_add "$b2" 1048576 150
	e2e_reset_counters
	scan_bg "$st"
	for _ in $(seq 400); do
		[ "$(e2e_bad_reads "$b2" 4096)" -ge 3 ] && break
		sleep 0.05
	done
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	e2e_bad_del "$b2" 1048576
	why=$(hist_truth_why "$st" "$truth")
	[ -z "$why" ] || why="after the stop: $why"
	scan "$st" --resume
	scan "$st"
	why="$why${why:+; }$(hist_truth_why "$st" "$truth")"
	row "SIGTERM at isolation read 3 (exit $rc)" "${why%; }"
	;;
sigkill)
	# Moments: 4 seeded in [0, 0.04 s) (the plan), 16 in [0, 2.5 s) (the 1 s paced read,
	# isolation of b2, slowed to 100 ms a read), and 4 in the record stage: reads done,
	# the last checkpoint waiting for a write lock held 6 s.
	for seed in $(seq 1 24); do
		st=$E2E_DIR/st
		fresh_state "$st"
		rm -f "$E2E_DIR/r.json"
		e2e_delay_add "$b2" 1048576 100
		e2e_reset_counters
		RANDOM=$seed
		ms=$((RANDOM % 2500))
		[ "$seed" -gt 4 ] || ms=$((ms % 40))
		t0=$(date +%s%N)
		scan_bg "$st" --rate 16M
		if [ "$seed" -le 20 ]; then
			sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
		else
			for _ in $(seq 200); do	# the pass has begun: reading
				[ "$(_e2e_ctl_value read_bytes || echo 0)" -gt 0 ] && break
				sleep 0.01
			done
			hist_hold_lock "$st/mediascan.db" 6
			# The reads are done when the fault disk has seen no read for 0.3 s.
			last=-1
			for _ in $(seq 100); do
				now=$(_e2e_ctl_value read_bytes || echo 0)
				[ "$now" = "$last" ] && break
				last=$now
				sleep 0.3
			done
			sleep "0.$((seed * 7 % 10))"
		fi
		at=$((($(date +%s%N) - t0) / 1000000))
		if ! kill -0 "$pid" 2>/dev/null; then
			phase=after
		elif [ -e "$E2E_DIR/r.json" ] || [ "$seed" -gt 20 ]; then
			phase=record
		elif [ "$(e2e_bad_reads "$b2" 4096)" -ge 2 ]; then
			phase=isolation
		elif [ "$(_e2e_ctl_value read_bytes || echo 0)" -gt 0 ]; then
			phase=scan
		else
			phase=plan
		fi
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		[ "$seed" -le 20 ] || { kill "$HIST_LOCK_PID"; wait "$HIST_LOCK_PID"; } 2>/dev/null
		e2e_bad_del "$b2" 1048576
		why=
		cl=$(hist_db "$st" "select count(*) from errors where state = 'cleared'")
		[ "$cl" = 0 ] || why="the killed pass cleared $cl rows"
		scan "$st" --resume
		cl=$(hist_db "$st" "select count(*) from errors where state = 'cleared'")
		[ "$cl" = 0 ] || why="$why${why:+; }the resumed pass cleared $cl rows"
		scan "$st"
		why="$why${why:+; }$(hist_truth_why "$st" "$truth")"
		row "seed $seed: ${at} ms ($phase)" "${why%; }"
	done
	;;
*)
	e2e_hard_error "unknown fault $fault"
	;;
esac
e2e_assert_unchanged "$h" >/dev/null
[ "$failed" = 0 ] || exit 1
exit 0
