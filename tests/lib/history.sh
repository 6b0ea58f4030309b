# shellcheck shell=bash
#
# history.sh - the history's ground truth for the fault tests (tests/faults, tests/e2e/
# history-*.sh), on top of ms.sh: after a fault and one more clean pass, the state store
# holds every injected bad range open as damage, nothing else open, nothing cleared that was
# not read cleanly, and every damage told once.
#
#	hist_db STATE_DIR SQL		run SQL on the store (sqlite3), print the rows
#	hist_open STATE_DIR		"OFFSET:LENGTH:VERDICT" of each open row, by offset
#	hist_truth STATE_DIR "OFF:LEN ..."	fail unless the open rows are exactly these
#					ranges as damage, none of them was ever cleared,
#					and each was told (notified)
#	hist_hold_lock DB SECONDS	take BEGIN IMMEDIATE on DB (waiting up to 10 s for it)
#					and hold it that long, in the background
#					(HIST_LOCK_PID is its pid)

. "$(dirname "${BASH_SOURCE[0]}")/ms.sh"

hist_db()
{
	sqlite3 -batch "$1/mediascan.db" "$2"
}

hist_open()
{
	hist_db "$1" "select offset || ':' || length || ':' || verdict from errors
		      where state = 'open' order by device, offset" | tr '\n' ' ' | sed 's/ $//'
}

# hist_truth_why STATE_DIR "OFF:LEN ..." : print why the history is not the ground truth
# (nothing when it is).
hist_truth_why()
{
	local st=$1 want=$2 got r off len cleared told want_open=
	for r in $want; do
		want_open="$want_open${want_open:+ }$r:damage"
	done
	got=$(hist_open "$st")
	[ "$got" = "$want_open" ] || echo "open rows '$got', want '$want_open'"
	for r in $want; do
		off=${r%%:*}
		len=${r#*:}
		cleared=$(hist_db "$st" "select count(*) from errors where state = 'cleared'
			  and offset < $off + $len and offset + length > $off")
		[ "$cleared" = 0 ] || echo "$r was cleared ($cleared rows) though it never read clean"
		told=$(hist_db "$st" "select group_concat(notified) from errors
		       where state = 'open' and offset < $off + $len and offset + length > $off")
		[ "$told" = 1 ] || echo "$r told: '$told', want '1'"
	done
}

hist_truth()
{
	local why
	why=$(hist_truth_why "$1" "$2")
	[ -z "$why" ] || e2e_fail "history is not the ground truth: $why"
	echo "ok: history holds exactly $2, open as damage, told"
}

hist_hold_lock()
{
	local out=$1.lock-held
	rm -f "$out"
	{ echo ".timeout 10000"; echo "BEGIN IMMEDIATE;"; echo "SELECT 'held';"; sleep "$2"
	  echo "COMMIT;"; } | sqlite3 -batch "$1" >"$out" &
	HIST_LOCK_PID=$!
	for _ in $(seq 200); do
		grep -q held "$out" 2>/dev/null && return 0
		sleep 0.05
	done
	e2e_hard_error "could not take the write lock of $1"
}
