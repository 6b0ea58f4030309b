#!/bin/bash
# report-files.sh - report files of a root tool (--json, --html): written to a new temporary
# file beside the target and renamed over it; the target must be absent or a regular file
# root owns. Refused, with the victim untouched and no hang: a symlink another user planted
# in a sticky directory, another user's file there, a FIFO, a character device (/dev/null),
# a hard link is replaced not written through. A report that cannot be written is refused
# before the scan reads anything (exit 8), not lost after the whole scan.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
id nobody >/dev/null 2>&1 || e2e_skip "no user 'nobody' to plant files as"
e2e_setup 64
M=$MEDIASCAN
D=$E2E_LOOP
sticky=$E2E_DIR/sticky
mkdir -m 1777 "$sticky"

# refused CASE PATH : `map D 1M --json PATH` exits 4 within 10 s, saying why on stderr.
refused()
{
	local rc=0
	timeout 10 "$M" map "$D" 1M --json "$2" -q 2>"$E2E_DIR/err" || rc=$?
	[ "$rc" != 124 ] || e2e_fail "$1: mediascan hung on $2"
	[ "$rc" = 8 ] || e2e_fail "$1: exit $rc, want 8 (stderr: $(cat "$E2E_DIR/err"))"
	echo "ok: $1: exit $rc: $(cat "$E2E_DIR/err")"
}

# 1. a symlink planted by another user in a sticky directory, to a root-only file
echo precious >"$E2E_DIR/victim"
chmod 600 "$E2E_DIR/victim"
ln -s "$E2E_DIR/victim" "$sticky/link.json"
chown -h nobody "$sticky/link.json"
refused "symlink in a sticky directory" "$sticky/link.json"
ms_expect_eq "symlink: its target untouched" "$(cat "$E2E_DIR/victim")" precious
e2e_check "symlink: said why" grep -q "symbolic link" "$E2E_DIR/err"

# 2. another user's regular file in the sticky directory
echo theirs >"$sticky/other.json"
chown nobody "$sticky/other.json"
refused "another user's file" "$sticky/other.json"
ms_expect_eq "another user's file: untouched" "$(cat "$sticky/other.json")" theirs
ms_expect_eq "another user's file: still theirs" "$(stat -c %U "$sticky/other.json")" nobody
e2e_check "another user's file: said why" grep -q "another user owns it" "$E2E_DIR/err"

# 3. a FIFO: no hang
mkfifo "$sticky/fifo.json"
refused "FIFO" "$sticky/fifo.json"
e2e_check "FIFO: said why" grep -q "FIFO" "$E2E_DIR/err"

# 4. a character device: /dev/null (a tape or /dev/sgN would take a write as a command)
refused "character device /dev/null" /dev/null
e2e_check "character device: said why" grep -q "character device" "$E2E_DIR/err"
ls -l /dev/null | grep -q '^c' || e2e_fail "/dev/null is no longer a character device"

# 5. the directory does not exist; a directory
refused "missing directory" /nonexistent-ms/dir/x.json
refused "a directory" "$sticky"

# 6. our own file: replaced (0600, whatever was there), a hard link to it not written through
echo old >"$E2E_DIR/own.json"
chmod 644 "$E2E_DIR/own.json"
ln "$E2E_DIR/own.json" "$E2E_DIR/hardlink"
(umask 022 && "$M" map "$D" 1M --json "$E2E_DIR/own.json" -q)
ms_expect_eq "own file replaced by the report" "$(jq -r .schema "$E2E_DIR/own.json")" mediascan-map/1
ms_expect_eq "own file now 0600" "$(stat -c %a "$E2E_DIR/own.json")" 600
ms_expect_eq "its other hard link untouched" "$(cat "$E2E_DIR/hardlink")" old
ms_expect_eq "no temporary file left" "$(find "$E2E_DIR" -maxdepth 1 -name '.*.tmp' | wc -l)" 0
"$M" map "$D" 1M --json - -q | jq -e .schema >/dev/null || e2e_fail "--json - no longer works"
"$M" map "$D" 1M --json /dev/stdout -q | jq -e .schema >/dev/null ||
	e2e_fail "--json /dev/stdout no longer works"

# 7. scan: an output that cannot be written is refused before the first read (exit 8)
e2e_reset_counters
for args in "--json /nonexistent-ms/dir/x.json" "--html /nonexistent-ms/dir/x.html" \
	    "--html /dev/null" "--json $sticky/link.json"; do
	rc=0
	# shellcheck disable=SC2086
	timeout 60 "$M" scan "$D" $args --no-state --progress none -q 2>"$E2E_DIR/err" || rc=$?
	ms_expect_eq "scan $args: refused" "$rc" 8
	e2e_check "scan $args: said so" grep -q "cannot write" "$E2E_DIR/err"
done
ms_expect_eq "scan read nothing before refusing" "$(e2e_reads)" 0
ms_expect_eq "symlink target still untouched" "$(cat "$E2E_DIR/victim")" precious
rc=0
"$M" scan "$D" --html "$E2E_DIR/scan.html" --json "$E2E_DIR/scan.json" --no-state \
	--progress none -q || rc=$?
ms_expect_eq "scan with writable reports: clean" "$rc" 0
ms_expect_eq "HTML report written 0600" "$(stat -c %a "$E2E_DIR/scan.html")" 600
e2e_check "HTML report is a page" grep -q "</html>" "$E2E_DIR/scan.html"
ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_pass "report files: symlink, other user's file, FIFO, device, missing dir refused"
