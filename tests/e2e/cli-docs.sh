#!/bin/bash
# cli-docs.sh - --help, the docs and the man page say the same things, and the small answers of
# the command line are true: every long option of every subcommand's --help is in the options
# reference (docs/usage.md) and the man page; every row of `mediascan help exit` (the one exit
# table) is in README's table and the man page; `help CMD` is `CMD --help`; the unknown-command
# line names every command; the bash completion offers --quiet once and devices for map; status
# and report without a state store say "no history yet" and exit 0; --io-size 3000 is refused.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
ms_require
M=$MEDIASCAN
readme=$E2E_ROOT/README.md
usage=$E2E_ROOT/docs/usage.md
man=$E2E_ROOT/man/mediascan.8.scd
cmds="scan map patrol status report probe forget"

for c in $cmds; do
	for o in $("$M" "$c" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		e2e_check "docs/usage.md names $c $o" grep -qE -- "$o([^a-z-]|$)" "$usage"
		e2e_check "the man page names $c $o" grep -q -- "$o" "$man"
	done
	ms_expect_eq "help $c is $c --help" "$("$M" help "$c" | md5sum)" "$("$M" "$c" --help | md5sum)"
	# (captured first: grep -q quitting early would break the pipe under pipefail)
	help=$("$M" "$c" --help)
	grep -q '^exit status' <<<"$help" || e2e_fail "$c --help has no exit status"
done

# One exit table: each row as README's table and the man page give it.
n=0
while read -r cmd bit meaning; do
	[ "$cmd" = any ] && cmd="every command"
	e2e_check "README exit row '$cmd $bit'" grep -qF "| $cmd | $bit | $meaning |" "$readme"
	e2e_check "man page exit row '$cmd $bit'" \
		grep -qF -A1 "*$cmd* $bit" "$man"
	row=$(grep -F -A1 "*$cmd* $bit" "$man")
	grep -qF -- "$meaning" <<<"$row" ||
		e2e_fail "man page: '$cmd $bit' does not say '$meaning'"
	n=$((n + 1))
done < <("$M" help exit | tail -n +2)
[ "$n" -ge 10 ] || e2e_fail "help exit printed $n rows"
echo "ok: $n exit rows in README and the man page"
# The bit each command's --help gives is in the table for that command.
ms_expect_eq "scan --help exit rows" "$("$M" scan --help | sed -n '/^exit status/,$p' | tail -n +2 |
	awk '{ print $1 }' | tr '\n' ' ')" "0 1 2 4 16 8 "

# The unknown-command line names every command the usage lists.
err=$("$M" frob 2>&1) && e2e_fail "frob succeeded"
for c in $cmds help version; do
	grep -q "\b$c\b" <<<"$err" || e2e_fail "unknown-command line lacks $c: $err"
done
echo "ok: $err"

# Completion.
comp=$E2E_ROOT/completion/mediascan
if [ -f /usr/share/bash-completion/bash_completion ]; then
	complete_words() # WORDS... : what _mediascan offers for the last word
	{
		local line="$*"
		bash -c ". /usr/share/bash-completion/bash_completion; . '$comp'
			mediascan() { '$M' \"\$@\"; }
			COMP_WORDS=($line); COMP_CWORD=$(($# - 1)); COMP_LINE='$line'
			COMP_POINT=${#line}; _mediascan; printf '%s\n' \"\${COMPREPLY[@]}\""
	}
	ms_expect_eq "completion of scan --q: --quiet once" \
		"$(complete_words mediascan scan --q | grep -c -- '^--quiet$')" 1
	# a device that stays (loop devices come and go while other tests run)
	dev=$(ls /sys/class/block | grep -v '^loop' | head -n 1)
	[ -n "$dev" ] || dev=$(ls /sys/class/block | head -n 1)
	got=$(complete_words mediascan map "/dev/${dev:0:2}")
	grep -qx "/dev/$dev" <<<"$got" ||
		e2e_fail "completion of map /dev/${dev:0:2} lacks /dev/$dev"
	echo "ok: map completes /dev/$dev"
else
	echo "note: bash-completion not installed: completion not checked"
fi

# No state store: no history yet, exit 0.
none=$(mktemp -u /tmp/ms-nostate.XXXXXX)
rc=0
out=$("$M" status --state-dir "$none") || rc=$?
ms_expect_eq "status without a state store: exit 0" "$rc" 0
grep -q "no history yet" <<<"$out" || e2e_fail "status said: $out"
rc=0
out=$("$M" report --state-dir "$none") || rc=$?
ms_expect_eq "report without a state store: exit 0" "$rc" 0
grep -q "no history yet" <<<"$out" || e2e_fail "report said: $out"
ms_expect_eq "report --json without a state store: no targets" \
	"$("$M" report --state-dir "$none" --json - | jq '.targets | length')" 0
[ ! -e "$none" ] || e2e_fail "status or report created $none"

# --io-size that is no multiple of 512 is refused, not silently rounded.
rc=0
err=$("$M" scan / --io-size 3000 2>&1) || rc=$?
ms_expect_eq "--io-size 3000: usage error" "$rc" 8
grep -q "multiple of 512" <<<"$err" || e2e_fail "--io-size 3000 said: $err"
e2e_pass "help, README and man page agree; small answers true"
