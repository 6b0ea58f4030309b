#!/bin/bash
# patrol-units.sh - the packaging: the systemd units meson builds pass `systemd-analyze verify`
# without a warning (template instances included), the patrol unit's sandbox lets the
# documented on_damage example queue mail and both units have the lock dir, the man page is
# built, the bash completion loads and completes the subcommands.
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

# The sandbox against what the documented on_damage example needs (issue 11, finding 8): the
# mail example (man page and docs/patrol.md) pipes to mail(1), which hands the message to the
# local MTA's sendmail: postfix's postdrop writes maildrop/ and pokes public/pickup, exim4
# writes its spool and log and switches to its own user. With ProtectSystem=strict each of
# those paths must be in ReadWritePaths, and the capabilities in the bounding set.
pu=$dir/mediascan-patrol.service
e2e_check "the man page's on_damage example is mail(1)" \
	grep -q 'on_damage = mail -s' "$E2E_ROOT/man/mediascan.8.scd"
e2e_check "docs/patrol.md's on_damage example is mail(1)" \
	grep -q '| mail -s "mediascan: damage on' "$E2E_ROOT/docs/patrol.md"
rw=" $(sed -n 's/^ReadWritePaths=//p' "$pu" | tr '\n' ' ' | sed 's/-\//\//g') "
for p in /var/spool/postfix/maildrop /var/spool/postfix/public /var/spool/exim4 /var/log/exim4 \
	/var/mail; do
	e2e_check "patrol unit lets on_damage's MTA write $p" grep -q " $p " <<<"$rw"
done
caps=" $(sed -n 's/^CapabilityBoundingSet=//p' "$pu" | tr '\n' ' ') "
for c in CAP_DAC_OVERRIDE CAP_SETUID CAP_SETGID CAP_CHOWN CAP_KILL; do
	e2e_check "patrol unit keeps $c for on_damage" grep -q " $c " <<<"$caps"
done
e2e_check_fails "no AF_INET needed: the example queues locally (PrivateNetwork stays)" \
	grep -q "^PrivateNetwork=false" "$pu"
# The lock dir of one scan per target/disk exists under ProtectSystem=strict in both units and
# is kept when one of them stops.
e2e_check "the binary locks in /run/mediascan" grep -qa "/run/mediascan" "$MEDIASCAN"
for u in "$pu" "$dir/mediascan@tmp.service"; do
	e2e_check "$(basename "$u"): RuntimeDirectory=mediascan" grep -qx "RuntimeDirectory=mediascan" "$u"
	e2e_check "$(basename "$u"): RuntimeDirectoryPreserve=yes" \
		grep -qx "RuntimeDirectoryPreserve=yes" "$u"
done

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
