#!/bin/bash
# demo-state.sh - scripts/demo keeps its history to itself: every scan it runs is given a state
# directory of its own (inside the demo's work dir, gone after the demo), never the machine's
# /var/lib/mediascan, where the demo's throwaway filesystem would stay as a target with 4 open
# ranges (`mediascan report` exit 1) and every run would add one. The demo runs with
# MEDIASCAN pointing at a wrapper that logs each command line and then runs this build.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v mkfs.xfs >/dev/null || e2e_skip "mkfs.xfs is not installed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/mediascan" <<EOW
#!/bin/bash
printf '%s\n' "\$*" >>"$tmp/calls"
exec "$MEDIASCAN" "\$@"
EOW
chmod +x "$tmp/mediascan"
rc=0
DEMO_NO_BUILD=1 DEMO_HTML=$tmp/demo.html MEDIASCAN=$tmp/mediascan FAULTDISK=$FAULTDISK \
	E2E_BUILD=$E2E_BUILD "$E2E_ROOT/scripts/demo" >"$tmp/demo.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$tmp/demo.log"; e2e_fail "scripts/demo exit $rc"; }
grep '^scan ' "$tmp/calls" | grep -v -- '--help' >"$tmp/scans" || e2e_fail "the demo ran no scan"
while read -r line; do
	sd=$(sed -n 's/.*--state-dir \([^ ]*\).*/\1/p' <<<"$line")
	[ -n "$sd" ] || e2e_fail "demo scan without --state-dir (the machine's store): $line"
	case $sd in
	/var/lib/mediascan*) e2e_fail "demo scan into the machine's store: $line" ;;
	esac
	[ ! -e "$sd" ] || e2e_fail "the demo's state dir $sd is left after the demo"
	echo "ok: demo scan with its own state dir $sd (removed)"
done <"$tmp/scans"
e2e_check "the demo's report says damage" grep -q "exit status 1" "$tmp/demo.log"
e2e_pass "the demo keeps its history to itself"
