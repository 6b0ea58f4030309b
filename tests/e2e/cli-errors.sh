#!/bin/bash
# cli-errors.sh - bad input gets one clear line on stderr, the documented exit status
# (8 usage, 4 operational) and nothing is written: no report file, no byte on the device.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v mkfs.ext4 >/dev/null || e2e_skip "mkfs.ext4 is not installed"
e2e_setup 512
mkfs.xfs -q -f "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "mount failed"
json=$E2E_DIR/should-not-exist.json

# expect STATUS PATTERN ARGS... : mediascan ARGS exits STATUS, prints one line matching
# PATTERN on stderr, nothing on stdout, and writes no JSON file.
expect()
{
	local want=$1 pat=$2 rc=0 err out
	shift 2
	out=$("$@" 2>"$E2E_DIR/err") || rc=$?
	err=$(cat "$E2E_DIR/err")
	[ "$rc" = "$want" ] || e2e_fail "'$*': exit $rc, want $want (stderr: $err)"
	[ "$(wc -l <"$E2E_DIR/err")" = 1 ] || e2e_fail "'$*': want one line on stderr, got: $err"
	grep -qE "$pat" <<<"$err" || e2e_fail "'$*': stderr '$err' does not match '$pat'"
	[ -z "$out" ] || e2e_fail "'$*': printed on stdout: $out"
	[ ! -e "$json" ] || e2e_fail "'$*': wrote $json"
	echo "ok: exit $rc: $err"
}

M=$MEDIASCAN
notmnt=$E2E_DIR/plain-dir
mkdir -p "$notmnt"
expect 8 "not a mount point" "$M" scan "$notmnt" --json "$json"
expect 8 "No such file" "$M" scan "$E2E_DIR/missing" --json "$json"
expect 8 "bad --io-size" "$M" scan "$E2E_MNT" --io-size 12q --json "$json"
expect 8 "bad --io-size" "$M" scan "$E2E_MNT" --io-size -1 --json "$json"
expect 8 "bad --queue-depth" "$M" scan "$E2E_MNT" --queue-depth 0 --json "$json"
expect 8 "bad --engine" "$M" scan "$E2E_MNT" --engine warp --json "$json"
expect 8 "unknown or incomplete option" "$M" scan "$E2E_MNT" --frobnicate --json "$json"
expect 8 "name a mount point" "$M" scan --json "$json"
expect 8 "unknown command" "$M" scrub "$E2E_MNT"
expect 8 "neither a mount point nor a block device" "$M" scan /etc/hostname --json "$json"

# tmpfs is neither XFS nor ext4: say what is supported; ext4 is scanned.
tmp=$E2E_DIR/tmpfs
mkdir -p "$tmp"
mount -t tmpfs none "$tmp"
expect 8 "supported: xfs" "$M" scan "$tmp" --json "$json"
umount "$tmp"
ext=$E2E_DIR/ext4.img
truncate -s 64M "$ext"
mkfs.ext4 -q -F "$ext"
mkdir -p "$E2E_DIR/ext4"
mount -o loop,ro "$ext" "$E2E_DIR/ext4"
rc=0
"$M" scan "$E2E_DIR/ext4" -q --no-state --progress none || rc=$?
ms_expect_eq "ext4 is scanned" "$rc" 0
umount "$E2E_DIR/ext4"

# Not root: operational error, exit 4 (the report named where that user may write it: a
# report that cannot be written is refused first, exit 8, before anything is read).
if command -v setpriv >/dev/null; then
	expect 8 "cannot write --json .*nothing was read" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$M" scan "$E2E_MNT" --json "$json"
	ndir=$(mktemp -d "${TMPDIR:-/tmp}/mediascan-e2e-nobody.XXXXXX")
	e2e_on_cleanup "rm -rf -- '$ndir'"
	chown 65534:65534 "$ndir"
	rootjson=$json
	json=$ndir/should-not-exist.json
	expect 4 "needs root|Permission denied" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$M" scan "$E2E_MNT" --json "$json"
	expect 4 "Permission denied" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$M" scan "$E2E_LOOP" --json "$json"
	json=$rootjson
fi

# An unwritable report path: refused before the scan reads anything, exit 8 (the whole scan
# used to run and the report was lost, exit 4).
rc=0
e2e_reset_counters
"$M" scan "$E2E_MNT" -q --json /nonexistent-dir/r.json 2>"$E2E_DIR/err" || rc=$?
ms_expect_eq "unwritable --json path: exit 8" "$rc" 8
e2e_check "unwritable --json path: says so" grep -q "cannot write --json /nonexistent-dir/r.json" \
	"$E2E_DIR/err"
ms_expect_eq "unwritable --json path: nothing read" "$(e2e_reads)" 0

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "bad input: clear errors, documented exit codes, nothing written"
