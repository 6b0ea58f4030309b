#!/bin/bash
# patrol-units.sh - the packaging: the systemd units meson builds pass `systemd-analyze verify`
# without a warning (template instances included), the man page is built, the bash completion
# loads and completes the subcommands.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
ms_require
command -v systemd-analyze >/dev/null || e2e_skip "systemd-analyze is not installed"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
units=$E2E_BUILD/systemd
for u in mediascan-patrol.service mediascan@.service mediascan@.timer; do
	[ -f "$units/$u" ] || e2e_fail "meson did not build $u"
	# The unit names the installed binary; point it at this build for the check.
	sed "s|/[^ ]*/sbin/mediascan|$MEDIASCAN|g; s|ConditionPathExists=.*|ConditionPathExists=/|" \
		"$units/$u" >"$dir/$u"
done
cp "$dir/mediascan@.service" "$dir/mediascan@tmp.service"
cp "$dir/mediascan@.timer" "$dir/mediascan@tmp.timer"
out=$(cd "$dir" && systemd-analyze verify --man=no ./mediascan-patrol.service \
	./mediascan@tmp.service ./mediascan@tmp.timer 2>&1) || e2e_fail "systemd-analyze verify: $out"
[ -z "$out" ] || e2e_fail "systemd-analyze verify warns: $out"
echo "ok: systemd-analyze verify, no warnings"
e2e_check "patrol unit is sandboxed" grep -q "^ProtectSystem=strict" "$dir/mediascan-patrol.service"
e2e_check "patrol unit has no network" grep -q "^PrivateNetwork=true" "$dir/mediascan-patrol.service"
e2e_check "one-shot unit resumes and is bounded" \
	grep -q "scan %f --resume --max-duration" "$dir/mediascan@tmp.service"

if [ -f "$E2E_BUILD/man/mediascan.8" ]; then
	for w in patrol status report "--format" "--since" "--max-duration" "--window" "on_damage" \
		"MESSAGE_ID" "restore from backup"; do
		e2e_check "man page covers $w" grep -q -- "$(printf '%s' "$w" | sed 's/-/\\\\-/g; s/^\\\\//')\|$w" \
			"$E2E_BUILD/man/mediascan.8"
	done
	# every long option of `scan --help` is in the man page
	for o in $("$MEDIASCAN" scan --help | grep -o -- '--[a-z-]*' | sort -u); do
		e2e_check "man page has scan $o" grep -q -- "${o//-/\\\\-}\|$o" "$E2E_BUILD/man/mediascan.8"
	done
else
	echo "note: scdoc not installed, man page not built"
fi

comp=$E2E_ROOT/completion/mediascan
if [ -f /usr/share/bash-completion/bash_completion ]; then
	got=$(bash -c ". /usr/share/bash-completion/bash_completion; . '$comp'
		mediascan() { '$MEDIASCAN' \"\$@\"; }
		COMP_WORDS=(mediascan re); COMP_CWORD=1; COMP_LINE='mediascan re'; COMP_POINT=12
		_mediascan; echo \"\${COMPREPLY[*]}\"")
	ms_expect_eq "completion of 'mediascan re'" "$got" "report"
	got=$(bash -c ". /usr/share/bash-completion/bash_completion; . '$comp'
		COMP_WORDS=(mediascan report --si); COMP_CWORD=2; COMP_LINE='mediascan report --si'
		COMP_POINT=21; _mediascan; echo \"\${COMPREPLY[*]}\"")
	ms_expect_eq "completion of 'report --si'" "$got" "--since"
else
	bash -n "$comp" || e2e_fail "completion has a syntax error"
fi
e2e_pass "units verify, man page, completion"
