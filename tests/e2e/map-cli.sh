#!/bin/bash
# map-cli.sh - `mediascan map` command line: bad input gets one clear line and exit 8; a bare
# device (no filesystem, no partition table) answers "device"; OFFSET/LENGTH take sizes;
# --sector counts 512-byte sectors; the JSON answer has the scan report's shape.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 64
M=$MEDIASCAN
D=$E2E_LOOP

# expect STATUS PATTERN ARGS... : exit STATUS, one stderr line matching PATTERN.
expect()
{
	local want=$1 pat=$2 rc=0 err
	shift 2
	"$@" >/dev/null 2>"$E2E_DIR/err" || rc=$?
	err=$(cat "$E2E_DIR/err")
	[ "$rc" = "$want" ] || e2e_fail "'$*': exit $rc, want $want (stderr: $err)"
	[ "$(wc -l <"$E2E_DIR/err")" = 1 ] || e2e_fail "'$*': want one line on stderr, got: $err"
	grep -qE "$pat" <<<"$err" || e2e_fail "'$*': stderr '$err' does not match '$pat'"
	echo "ok: exit $rc: $err"
}

expect 8 "name a DEVICE" "$M" map
expect 8 "DEVICE OFFSET" "$M" map "$D"
expect 8 "bad OFFSET" "$M" map "$D" 12q
expect 8 "bad OFFSET" "$M" map "$D" 4096 0
expect 8 "bad --sector" "$M" map "$D" --sector x
expect 8 "bad --count" "$M" map "$D" --sector 1 --count 0
expect 8 "DEVICE OFFSET" "$M" map "$D" --sector 1 4096
expect 8 "past the end" "$M" map "$D" $((1 << 30))
expect 8 "not a block device" "$M" map /etc/hostname 0
expect 8 "No such file" "$M" map /dev/nonexistent-ms 0
expect 8 "unknown or incomplete option" "$M" map "$D" 0 --frobnicate
expect 8 "at most one FILE" "$M" map --kernel-log a b
expect 8 "cannot read" "$M" map --kernel-log /nonexistent/kern.log
expect 8 "bad --block-size" "$M" map --kernel-log /dev/null --block-size 3000
# Sector and count in bytes overflow 64 bits (2^55 * 512 = 2^64): refused, not wrapped to 0.
expect 8 "out of range" "$M" map "$D" --sector 36028797018963968
expect 8 "out of range" "$M" map "$D" --sector 1 --count 36028797018963968
expect 8 "out of range" "$M" map "$D" --sector 36028797018963967 --count 2
# OFFSET + LENGTH past 2^64 must not wrap into a short range.
expect 8 "past the end|out of range" "$M" map "$D" 4096 18446744073709547520

ans=$E2E_DIR/ans.json
rc=0
"$M" map "$D" 1M 8k --json "$ans" -q || rc=$?
ms_expect_eq "bare device: exit 0" "$rc" 0
ms_expect_eq "bare device: the range and its owner" \
	"$(ms_jq "$ans" '.media_errors[0] | "\(.device) \(.offset) \(.length) \(.role) \(.owners[0].type)"')" \
	"$D 1048576 8192 whole device"
ms_expect_eq "schema and shape" \
	"$(ms_jq "$ans" '"\(.schema) \(.damaged_files | length) \(.damaged_metadata | length) \(.exit_status)"')" \
	"mediascan-map/1 0 0 0"
"$M" map "$D" --sector 2048 --count 16 --json "$ans" -q
ms_expect_eq "--sector and --count" "$(ms_jq "$ans" '.media_errors[0] | "\(.offset) \(.length)"')" \
	"1048576 8192"
"$M" map "$D" 4096 --json "$ans" -q
ms_expect_eq "default length: one logical block" "$(ms_jq "$ans" '.media_errors[0].length')" 512
# --json FILE lists private file names: a new file is 0600 whatever the umask; a symlink
# planted at FILE is not followed (its target is not clobbered).
rm -f "$E2E_DIR/priv.json"
(umask 022 && "$M" map "$D" 1M --json "$E2E_DIR/priv.json" -q)
ms_expect_eq "--json FILE created 0600" "$(stat -c %a "$E2E_DIR/priv.json")" 600
echo precious >"$E2E_DIR/victim"
ln -s "$E2E_DIR/victim" "$E2E_DIR/link.json"
rc=0
"$M" map "$D" 1M --json "$E2E_DIR/link.json" -q 2>"$E2E_DIR/err" || rc=$?
ms_expect_eq "--json onto a symlink: refused before mapping (exit 8)" "$rc" 8
ms_expect_eq "--json onto a symlink: its target untouched" "$(cat "$E2E_DIR/victim")" precious
e2e_check "--json onto a symlink: said why" grep -q "symbolic link" "$E2E_DIR/err"
"$M" map "$D" 1M --json /dev/stdout -q | jq -e .schema >/dev/null ||
	e2e_fail "--json /dev/stdout no longer works"
out=$("$M" map "$D" 0 2>&1)
e2e_check "human: says no filesystem" grep -q "no filesystem mounted" <<<"$out"
ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_pass "map command line: clear errors, sizes, sectors, JSON"
