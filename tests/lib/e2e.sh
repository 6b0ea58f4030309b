# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# e2e.sh - library for mediascan's host end-to-end tests (bash; source it).
#
# A test builds a loop device over a FUSE "fault disk" (tests/faultdisk) whose
# bad byte ranges it controls while the device is in use, makes a filesystem
# on it, runs mediascan and checks what was reported:
#
#	. "$(dirname "$0")/../lib/e2e.sh"
#	e2e_require_root_loop_fuse
#	e2e_setup 512				# MiB; mkfs.xfs needs >= 300
#	mkfs.xfs -q -m rmapbt=1 "$E2E_LOOP" || e2e_fail "mkfs"
#	e2e_mount || e2e_fail "mount"
#	... write files; e2e_file_phys FILE tells where their bytes are ...
#	e2e_umount
#	h=$(e2e_hash)
#	e2e_bad_add $((dev_off)) 512
#	"$MEDIASCAN" scan ...; e2e_check "scan saw the read" test "$(e2e_bad_reads ...)" -ge 1
#	e2e_assert_unchanged "$h"
#	e2e_pass "bad sector found"
#
# Exit status follows meson: 0 pass, 1 fail, 77 skip, 99 hard error (the test
# infrastructure itself failed). Cleanup runs from an EXIT/INT/TERM trap.
#
# Environment:
#	FAULTDISK	faultdisk binary (default: $MESON_BUILD_ROOT/tests/faultdisk/faultdisk,
#			else <repo>/build/tests/faultdisk/faultdisk)
#	MEDIASCAN	not used here; tests find mediascan the same way (E2E_BUILD)
#	E2E_KEEP=1	keep the work dir (image, faultdisk log) after the test
#	E2E_FIEMAP	"filefrag" makes e2e_file_extents use filefrag, not xfs_io
#	TMPDIR		where the work dir is made (default /tmp)
#
# Notes:
#	- Only O_DIRECT readers see a newly added bad range at once. Buffered
#	  readers of the loop device or of files may be served from the page
#	  cache: call e2e_drop_caches first.
#	- Read counters also count reads by anything else (mount, blkid, udev).
#	  Compare before/after values, or e2e_reset_counters right before the step.
#	- Hash the image while the filesystem is unmounted (or mounted ro with
#	  norecovery): a read-write mount writes by itself.

if [ -n "${E2E_LIB_LOADED:-}" ]; then
	return 0
fi
E2E_LIB_LOADED=1

PATH="$PATH:/usr/sbin:/sbin"

# Repository root and default build dir, from this file's own location.
E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ -n "${MESON_BUILD_ROOT:-}" ]; then
	E2E_BUILD=${E2E_BUILD:-$MESON_BUILD_ROOT}
else
	E2E_BUILD=${E2E_BUILD:-$E2E_ROOT/build}
fi
FAULTDISK=${FAULTDISK:-$E2E_BUILD/tests/faultdisk/faultdisk}
export E2E_ROOT E2E_BUILD FAULTDISK

E2E_DIR=
E2E_IMG=
E2E_FUSE=
E2E_CTL=
E2E_LOOP=
E2E_MNT=
E2E_FUSE_PID=
E2E_CLEANED=
E2E_TEST_NAME=$(basename "$0")

# e2e_log MSG... : print a progress line on stdout.
e2e_log()
{
	printf '%s: %s\n' "$E2E_TEST_NAME" "$*"
}

# e2e_pass [MSG] : print "PASS: MSG" and exit 0 (the trap cleans up).
e2e_pass()
{
	printf '%s: PASS: %s\n' "$E2E_TEST_NAME" "${*:-ok}"
	exit 0
}

# e2e_fail MSG : print "FAIL: MSG" on stderr and exit 1.
e2e_fail()
{
	printf '%s: FAIL: %s\n' "$E2E_TEST_NAME" "$*" >&2
	exit 1
}

# e2e_skip MSG : print "SKIP: MSG" on stderr and exit 77.
e2e_skip()
{
	printf '%s: SKIP: %s\n' "$E2E_TEST_NAME" "$*" >&2
	exit 77
}

# e2e_hard_error MSG : the test infrastructure failed (not the code under
# test); print "ERROR: MSG" on stderr and exit 99.
e2e_hard_error()
{
	printf '%s: ERROR: %s\n' "$E2E_TEST_NAME" "$*" >&2
	exit 99
}

# e2e_check DESC CMD... : run CMD; print "ok: DESC" if it succeeds, else
# e2e_fail "DESC" (the command's own output is not hidden).
e2e_check()
{
	local desc=$1

	shift
	if "$@"; then
		printf '%s: ok: %s\n' "$E2E_TEST_NAME" "$desc"
		return 0
	fi
	e2e_fail "$desc (command: $*)"
}

# e2e_check_fails DESC CMD... : like e2e_check, but CMD must fail (its
# stderr is hidden).
e2e_check_fails()
{
	local desc=$1

	shift
	if "$@" 2>/dev/null; then
		e2e_fail "$desc (succeeded: $*)"
	fi
	printf '%s: ok: %s\n' "$E2E_TEST_NAME" "$desc"
	return 0
}

# e2e_require_root_loop_fuse : exit 77 with a one-line reason unless this runs
# as root with /dev/loop-control, /dev/fuse, mkfs.xfs, losetup, fusermount3 and
# the faultdisk binary ($FAULTDISK).
e2e_require_root_loop_fuse()
{
	local tool

	[ "$(id -u)" = 0 ] || e2e_skip "needs root"
	[ -c /dev/loop-control ] || e2e_skip "no /dev/loop-control (loop driver)"
	[ -c /dev/fuse ] || e2e_skip "no /dev/fuse"
	for tool in mkfs.xfs losetup fusermount3 mountpoint sha256sum; do
		command -v "$tool" >/dev/null 2>&1 || e2e_skip "$tool not installed"
	done
	[ -x "$FAULTDISK" ] || e2e_skip "faultdisk not built: $FAULTDISK (set FAULTDISK)"
}

# _e2e_mounted DIR : true if DIR is a mount point.
_e2e_mounted()
{
	[ -n "$1" ] && [ -d "$1" ] && mountpoint -q -- "$1" 2>/dev/null
}

# _e2e_loop_is_ours : true if E2E_LOOP is still attached to our fault disk.
_e2e_loop_is_ours()
{
	local back

	[ -n "$E2E_LOOP" ] || return 1
	back=$(losetup --noheadings --output BACK-FILE -- "$E2E_LOOP" 2>/dev/null) || return 1
	back=${back%% (deleted)}
	[ "$back" = "$E2E_FUSE/disk" ]
}

# _e2e_cleanup : undo whatever e2e_setup and e2e_mount did, in reverse order.
# Safe after a half-finished setup and safe to call more than once.
# e2e_on_cleanup CMD : run CMD (eval) first when the test ends, however it ends; for
# machine settings a test changes (and must put back).
e2e_on_cleanup()
{
	E2E_ON_CLEANUP="${E2E_ON_CLEANUP:-}$1;"
}

_e2e_cleanup()
{
	local pid
	# Best effort: a failing step (a daemon already gone, a busy mount) must neither
	# stop the cleanup nor, under the test's set -e, turn a pass into a failure.
	local -
	set +e

	[ -z "$E2E_CLEANED" ] || return 0
	E2E_CLEANED=1
	[ -z "${E2E_ON_CLEANUP:-}" ] || eval "$E2E_ON_CLEANUP"

	# nothing of ours may keep the filesystem busy: not our cwd, not a
	# background job the test left running (mediascan, a reader)
	cd / || :
	for pid in $(jobs -p); do
		[ "$pid" = "$E2E_FUSE_PID" ] || kill -TERM "$pid" 2>/dev/null
	done
	for pid in $(jobs -p); do
		[ "$pid" = "$E2E_FUSE_PID" ] || wait "$pid" 2>/dev/null
	done

	if _e2e_mounted "$E2E_MNT"; then
		for _ in 1 2 3 4 5; do
			umount -- "$E2E_MNT" 2>/dev/null && break
			sleep 0.2
		done
		_e2e_mounted "$E2E_MNT" && umount -l -- "$E2E_MNT" 2>/dev/null
	fi
	if _e2e_loop_is_ours; then
		for _ in 1 2 3 4 5; do
			losetup -d "$E2E_LOOP" 2>/dev/null && break
			sleep 0.2
		done
		# losetup -d only sets autoclear while the device is still open
		for _ in $(seq 50); do
			_e2e_loop_is_ours || break
			sleep 0.1
		done
	fi
	if _e2e_mounted "$E2E_FUSE"; then
		for _ in 1 2 3 4 5; do
			fusermount3 -u -- "$E2E_FUSE" 2>/dev/null && break
			sleep 0.2
		done
		_e2e_mounted "$E2E_FUSE" && fusermount3 -u -z -- "$E2E_FUSE" 2>/dev/null
	fi
	if [ -n "$E2E_FUSE_PID" ] && kill -0 "$E2E_FUSE_PID" 2>/dev/null; then
		kill -TERM "$E2E_FUSE_PID" 2>/dev/null
		for _ in $(seq 50); do
			kill -0 "$E2E_FUSE_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$E2E_FUSE_PID" 2>/dev/null
	fi
	[ -z "$E2E_FUSE_PID" ] || wait "$E2E_FUSE_PID" 2>/dev/null
	if [ -n "$E2E_DIR" ] && [ -d "$E2E_DIR" ]; then
		if [ -n "${E2E_KEEP:-}" ]; then
			printf '%s: kept %s\n' "$E2E_TEST_NAME" "$E2E_DIR" >&2
		elif _e2e_mounted "$E2E_MNT" || _e2e_mounted "$E2E_FUSE"; then
			printf '%s: still mounted, not removing %s\n' "$E2E_TEST_NAME" "$E2E_DIR" >&2
		else
			rm -rf --one-file-system -- "$E2E_DIR"
		fi
	fi
	return 0
}

# _e2e_trap_exit : EXIT trap; cleans up and keeps the test's exit status.
_e2e_trap_exit()
{
	local rc=$?

	_e2e_cleanup
	exit "$rc"
}

# e2e_setup SIZE_MB : make a work dir, a sparse SIZE_MB MiB image, serve it
# with faultdisk and attach a direct-I/O loop device with 512-byte sectors.
# Sets and exports E2E_DIR (work dir), E2E_IMG (backing image), E2E_FUSE (fault
# disk mount dir), E2E_CTL (its ctl file), E2E_LOOP (e.g. /dev/loop3), E2E_MNT
# (empty mount point) and E2E_FUSE_PID. Installs the cleanup trap
# (EXIT INT TERM). Exits 99 if anything fails.
e2e_setup()
{
	local size_mb=$1

	case "$size_mb" in
	'' | *[!0-9]*) e2e_hard_error "e2e_setup: size in MiB expected, got '$size_mb'" ;;
	esac
	[ -z "$E2E_DIR" ] || e2e_hard_error "e2e_setup called twice"

	E2E_CLEANED=
	trap _e2e_trap_exit EXIT
	trap '_e2e_cleanup; exit 130' INT
	trap '_e2e_cleanup; exit 143' TERM

	E2E_DIR=$(mktemp -d "${TMPDIR:-/tmp}/mediascan-e2e.XXXXXX") ||
		e2e_hard_error "mktemp failed"
	E2E_IMG=$E2E_DIR/disk.img
	E2E_FUSE=$E2E_DIR/fuse
	E2E_CTL=$E2E_FUSE/ctl
	E2E_MNT=$E2E_DIR/mnt
	export E2E_DIR E2E_IMG E2E_FUSE E2E_CTL E2E_MNT
	mkdir "$E2E_FUSE" "$E2E_MNT" || e2e_hard_error "mkdir in $E2E_DIR failed"
	truncate -s "${size_mb}M" "$E2E_IMG" || e2e_hard_error "cannot make $E2E_IMG"

	"$FAULTDISK" "$E2E_IMG" "$E2E_FUSE" -f >"$E2E_DIR/faultdisk.log" 2>&1 &
	E2E_FUSE_PID=$!
	export E2E_FUSE_PID
	for _ in $(seq 100); do
		[ -e "$E2E_FUSE/disk" ] && _e2e_mounted "$E2E_FUSE" && break
		kill -0 "$E2E_FUSE_PID" 2>/dev/null ||
			e2e_hard_error "faultdisk died: $(tr '\n' ' ' <"$E2E_DIR/faultdisk.log")"
		sleep 0.1
	done
	[ -e "$E2E_FUSE/disk" ] || e2e_hard_error "faultdisk did not come up in 10 s"

	E2E_LOOP=$(losetup --direct-io=on --sector-size 512 --find --show "$E2E_FUSE/disk") ||
		e2e_hard_error "losetup failed"
	export E2E_LOOP
	if [ "$(losetup --noheadings --output DIO -- "$E2E_LOOP" | tr -d ' ')" != 1 ]; then
		e2e_hard_error "$E2E_LOOP: direct I/O did not turn on"
	fi
	# let udev (if any) finish probing the new device before counting reads
	if command -v udevadm >/dev/null 2>&1; then
		udevadm settle --timeout=10 >/dev/null 2>&1
	fi
	e2e_log "fault disk $E2E_LOOP (${size_mb} MiB) over $E2E_FUSE/disk, work dir $E2E_DIR"
}

# e2e_mount [-o OPTS | OPTS] : mount E2E_LOOP on E2E_MNT. A first argument not
# starting with '-' is taken as the -o option string; other arguments are
# passed to mount as they are. Returns mount's status.
e2e_mount()
{
	if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
		set -- -o "$@"
	fi
	mount "$@" -- "$E2E_LOOP" "$E2E_MNT" || return 1
	_e2e_mounted "$E2E_MNT"
}

# e2e_umount : unmount E2E_MNT (after syncing it). Returns umount's status.
e2e_umount()
{
	_e2e_mounted "$E2E_MNT" || return 0
	sync -f "$E2E_MNT" 2>/dev/null
	umount -- "$E2E_MNT"
}

# e2e_drop_caches : drop the page cache of E2E_LOOP and of clean file pages,
# so that buffered readers go to the fault disk again.
e2e_drop_caches()
{
	sync
	blockdev --flushbufs "$E2E_LOOP" 2>/dev/null
	echo 3 >/proc/sys/vm/drop_caches 2>/dev/null
	return 0
}

# _e2e_ctl_write LINE : send one command to the fault disk; exit 99 if it is
# refused (a test that sends a wrong command is broken).
_e2e_ctl_write()
{
	[ -n "$E2E_CTL" ] || e2e_hard_error "fault disk not set up"
	printf '%s\n' "$*" 2>/dev/null >"$E2E_CTL" ||
		e2e_hard_error "fault disk refused '$*'"
}

# e2e_bad_add OFF LEN : reads touching bytes [OFF, OFF+LEN) of E2E_LOOP fail with EIO.
e2e_bad_add()
{
	_e2e_ctl_write "add $1 $2"
}

# e2e_flaky_add OFF LEN N : the next N reads touching [OFF, OFF+LEN) fail with EIO, later
# ones read fine (a transient error).
e2e_flaky_add()
{
	_e2e_ctl_write "flaky $1 $2 $3"
}

# e2e_errno_add OFF LEN E : reads touching [OFF, OFF+LEN) fail with errno E (a number).
e2e_errno_add()
{
	_e2e_ctl_write "errno $1 $2 $3"
}

# e2e_bad_del OFF LEN : remove the range added with exactly OFF LEN (bad or delay).
e2e_bad_del()
{
	_e2e_ctl_write "del $1 $2"
}

# e2e_bad_clear : remove every bad and delay range.
e2e_bad_clear()
{
	_e2e_ctl_write "clear"
}

# e2e_delay_add OFF LEN MS : reads touching [OFF, OFF+LEN) wait MS ms first.
e2e_delay_add()
{
	_e2e_ctl_write "delay $1 $2 $3"
}

# e2e_readonly on|off : when on, writes to the fault disk fail (EROFS in the
# daemon; EIO for whoever writes to the loop device) and are still counted.
e2e_readonly()
{
	_e2e_ctl_write "readonly $1"
}

# e2e_reset_counters : zero all read/write counters (ranges stay).
e2e_reset_counters()
{
	_e2e_ctl_write "reset"
}

# e2e_ctl : print the fault disk's state (ranges with read counts, totals).
e2e_ctl()
{
	[ -n "$E2E_CTL" ] || e2e_hard_error "fault disk not set up"
	cat -- "$E2E_CTL" || e2e_hard_error "cannot read $E2E_CTL"
}

# _e2e_ctl_value KEY : print the value of the "KEY N" line of the state.
_e2e_ctl_value()
{
	e2e_ctl | awk -v k="$1" '$1 == k { print $2; found = 1 } END { exit !found }'
}

# e2e_bad_reads OFF LEN : print N, the number of read requests that touched
# the range OFF LEN (a bad or delay range); returns 1 (prints nothing) if
# there is no such range.
e2e_bad_reads()
{
	e2e_ctl | awk -v o="$1" -v l="$2" '
		($1 == "bad" || $1 == "delay" || $1 == "flaky" || $1 == "errno") && $2 == o && $3 == l {
			for (i = 4; i <= NF; i++)
				if ($i ~ /^reads=/) {
					print substr($i, 7)
					found = 1
					exit
				}
		}
		END { exit !found }'
}

# e2e_reads : print the number of read requests the fault disk received.
e2e_reads()
{
	_e2e_ctl_value reads
}

# e2e_writes : print the number of write requests the fault disk received.
e2e_writes()
{
	_e2e_ctl_value writes
}

# Portable awk helpers (Debian's awk is mawk: no strtonum/and/or, and %d
# stops at 2^31, so numbers are printed with %.0f).
_E2E_AWK_LIB='
function hex(s,    i, c, v) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (c == 0)
			return -1
		v = v * 16 + c - 1
	}
	return v
}
function bit(v, b) { return int(v / b) % 2 }
'

# e2e_file_extents PATH : print "FILE_OFFSET DEVICE_OFFSET LENGTH FLAGS" in
# bytes (FLAGS: FIEMAP flags in hex; 0x1 last, 0x800 unwritten, 0x2000 shared)
# for each mapped extent of PATH on a mounted XFS or ext4 filesystem. Holes are
# left out; extents without a known location (delalloc, inline, unknown) are
# left out with a warning on stderr. Lengths are whole filesystem blocks: the
# last extent may run past EOF, and XFS may show unwritten preallocation beyond
# EOF. The file is fsynced first. Uses xfs_io's fiemap (512-byte units), else
# (or with E2E_FIEMAP=filefrag) filefrag -v -b1 (bytes).
e2e_file_extents()
{
	local path=$1

	[ -e "$path" ] || {
		echo "e2e_file_extents: $path: no such file" >&2
		return 1
	}
	if [ "${E2E_FIEMAP:-xfs_io}" = xfs_io ] && command -v xfs_io >/dev/null 2>&1; then
		# "   2: [2048..2063]:    224..239            16 0x2001"
		xfs_io -r -c fsync -c 'fiemap -v' -- "$path" | awk -v p="$path" "$_E2E_AWK_LIB"'
			/^ *[0-9]+: \[[0-9]+\.\.[0-9]+\]: +hole/ { next }
			/^ *[0-9]+: \[[0-9]+\.\.[0-9]+\]: +[0-9]+\.\.[0-9]+ / {
				split($2, f, /[].:[]+/)
				split($3, d, /\.\./)
				flags = (NF >= 5) ? $5 : "0x0"
				fl = hex(flags)
				if (fl < 0 || bit(fl, 2) || bit(fl, 4) || bit(fl, 512)) {
					printf "e2e_file_extents: %s: extent at %.0f (flags %s) has no location\n", \
						p, f[2] * 512, flags > "/dev/stderr"
					next
				}
				printf "%.0f %.0f %.0f %s\n", f[2] * 512, d[1] * 512, $4 * 512, flags
			}'
		return "${PIPESTATUS[0]}"
	fi
	command -v filefrag >/dev/null 2>&1 || {
		echo "e2e_file_extents: neither xfs_io nor filefrag installed" >&2
		return 1
	}
	sync -- "$path" 2>/dev/null
	# "   1:  1048576.. 1056767:  114688..  122879:   8192:    1228800: last,unwritten"
	filefrag -v -b1 -- "$path" | awk -v p="$path" '
		/^ *[0-9]+: *[0-9]+\.\. *[0-9]+: *[0-9]+\.\. *[0-9]+: *[0-9]+:/ {
			line = $0
			sub(/^ *[0-9]+: */, "", line)
			n = split(line, c, /:/)
			split(c[1], f, /\.\./)
			split(c[2], d, /\.\./)
			fl = 0
			if (c[n] ~ /last/)
				fl += 1
			if (c[n] ~ /unwritten/)
				fl += 2048
			if (c[n] ~ /shared/)
				fl += 8192
			if (c[n] ~ /unknown_loc|delalloc|inline/) {
				printf "e2e_file_extents: %s: extent at %.0f has no location\n", \
					p, f[1] > "/dev/stderr"
				next
			}
			printf "%.0f %.0f %.0f 0x%x\n", f[1], d[1], c[3], fl
		}'
	return "${PIPESTATUS[0]}"
}

# e2e_file_phys PATH : print "FILE_OFFSET DEVICE_OFFSET LENGTH" in bytes for
# every mapped extent of PATH (written, unwritten and shared; not holes); the
# device offset is within the filesystem's device, here E2E_LOOP.
e2e_file_phys()
{
	local out

	out=$(e2e_file_extents "$1") || return 1
	[ -z "$out" ] || printf '%s\n' "$out" | awk '{ print $1, $2, $3 }'
}

# e2e_hash : print the sha256 of the backing image (E2E_IMG). Hash while the
# filesystem is unmounted or mounted read-only with norecovery.
e2e_hash()
{
	local h

	h=$(sha256sum -- "$E2E_IMG") || e2e_hard_error "cannot hash $E2E_IMG"
	printf '%s\n' "${h%% *}"
}

# e2e_assert_unchanged HASH : e2e_fail unless the backing image still hashes to HASH.
e2e_assert_unchanged()
{
	local now

	now=$(e2e_hash)
	[ "$now" = "$1" ] || e2e_fail "backing image changed (was $1, now $now)"
	printf '%s: ok: backing image unchanged\n' "$E2E_TEST_NAME"
}
