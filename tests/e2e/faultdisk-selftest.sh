#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# faultdisk-selftest.sh - end-to-end test of the fault disk itself: a loop
# device (direct I/O, 512-byte sectors) over tests/faultdisk must fail exactly
# the bad sectors with EIO, count reads, forget deleted ranges, delay reads
# without stalling others, refuse writes when read-only, and never change the
# image on reads. Exit 0 pass, 1 fail, 77 skip, 99 hard error.

# shellcheck source=tests/lib/e2e.sh disable=SC2317 # helpers run via e2e_check
. "$(dirname "${BASH_SOURCE[0]}")/../lib/e2e.sh"

MIB=$((1024 * 1024))
BAD_OFF=$((MIB + 1024))		# sector 2050
BAD_LEN=512
BAD_SECTOR=$((BAD_OFF / 512))
DELAY_OFF=$((8 * MIB))
DELAY_LEN=4096
DELAY_MS=2000

# read_sector N : O_DIRECT read of 512-byte sector N of the loop device.
# Returns 0 if it read, 5 on EIO, 1 on anything else.
read_sector()
{
	local err

	err=$(dd if="$E2E_LOOP" of=/dev/null iflag=direct bs=512 skip="$1" count=1 2>&1) &&
		return 0
	case "$err" in
	*"Input/output error"*) return 5 ;;
	esac
	echo "$err" >&2
	return 1
}

# sector_reads_ok N : sector N reads fine.
sector_reads_ok()
{
	read_sector "$1"
}

# sector_fails_eio N : reading sector N fails with EIO.
sector_fails_eio()
{
	local rc

	read_sector "$1"
	rc=$?
	[ "$rc" = 5 ]
}

# ctl_send LINE : write LINE to the ctl file; returns non-zero if refused.
ctl_send()
{
	printf '%s\n' "$1" >"$E2E_CTL"
}

# now_ms : monotonic-enough wall clock in milliseconds.
now_ms()
{
	echo $(($(date +%s%N) / 1000000))
}

e2e_require_root_loop_fuse
command -v blockdev >/dev/null 2>&1 || e2e_skip "blockdev not installed"
e2e_setup 64

e2e_check "loop device uses direct I/O" \
	test "$(losetup --noheadings --output DIO "$E2E_LOOP" | tr -d ' ')" = 1
e2e_check "loop device has 512-byte logical blocks" \
	test "$(blockdev --getss "$E2E_LOOP")" = 512
e2e_check "disk has the image's size" \
	test "$(blockdev --getsize64 "$E2E_LOOP")" = $((64 * MIB))
e2e_check "disk st_blksize is 4096" test "$(stat -c %o "$E2E_FUSE/disk")" = 4096

# some data to read back: 4 MiB written through the loop device
e2e_reset_counters
dd if=/dev/urandom of="$E2E_LOOP" oflag=direct bs=1M count=4 status=none ||
	e2e_fail "write through the loop device"
e2e_check "write requests counted" test "$(e2e_writes)" -ge 1
e2e_check "write bytes counted" test "$(e2e_ctl | awk '$1 == "write_bytes" { print $2 }')" = $((4 * MIB))
e2e_check "data read back through the loop device equals the image" \
	cmp -n $((4 * MIB)) <(dd if="$E2E_LOOP" iflag=direct bs=1M count=4 status=none) "$E2E_IMG"

hash0=$(e2e_hash)

# one bad sector
e2e_bad_add "$BAD_OFF" "$BAD_LEN"
e2e_check "bad range listed with reads=0" test "$(e2e_bad_reads "$BAD_OFF" "$BAD_LEN")" = 0
reads0=$(e2e_reads)
e2e_check "sector before the bad one reads" sector_reads_ok $((BAD_SECTOR - 1))
e2e_check "bad sector fails with EIO" sector_fails_eio "$BAD_SECTOR"
e2e_check "sector after the bad one reads" sector_reads_ok $((BAD_SECTOR + 1))
e2e_check "bad range counted one read" test "$(e2e_bad_reads "$BAD_OFF" "$BAD_LEN")" = 1
e2e_check "three read requests counted" test "$(e2e_reads)" = $((reads0 + 3))
e2e_check "bad sector fails again" sector_fails_eio "$BAD_SECTOR"
e2e_check "bad range counted a second read" test "$(e2e_bad_reads "$BAD_OFF" "$BAD_LEN")" = 2

# a large read spanning the bad sector fails as a whole
e2e_check_fails "1 MiB O_DIRECT read spanning the bad sector fails" \
	dd if="$E2E_LOOP" of=/dev/null iflag=direct bs=1M skip=1 count=1 status=none
e2e_check "1 MiB O_DIRECT read before the bad sector succeeds" \
	dd if="$E2E_LOOP" of=/dev/null iflag=direct bs=1M skip=0 count=1 status=none

# del makes it readable again, with the image's data
e2e_bad_del "$BAD_OFF" "$BAD_LEN"
e2e_check_fails "deleted range is gone" grep -q "^bad " "$E2E_CTL"
e2e_check "sector reads after del" sector_reads_ok "$BAD_SECTOR"
e2e_check "sector data equals the image" \
	cmp <(dd if="$E2E_LOOP" iflag=direct bs=512 skip="$BAD_SECTOR" count=1 status=none) \
	<(dd if="$E2E_IMG" bs=512 skip="$BAD_SECTOR" count=1 status=none)
e2e_check_fails "del of a range that does not exist is refused" ctl_send "del 1 1"
e2e_check_fails "a bad command is refused" ctl_send "frobnicate"

# clear removes everything
e2e_bad_add 0 512
e2e_bad_add $((2 * MIB)) 4096
e2e_bad_clear
e2e_check_fails "clear removes all ranges" grep -Eq "^(bad|delay|flaky) " "$E2E_CTL"
e2e_check "sector 0 reads after clear" sector_reads_ok 0

# delay: the delayed read takes >= DELAY_MS, a read elsewhere meanwhile does not
e2e_delay_add "$DELAY_OFF" "$DELAY_LEN" "$DELAY_MS"
t0=$(now_ms)
read_sector $((DELAY_OFF / 512)) &
delayed_pid=$!
sleep 0.2
t1=$(now_ms)
e2e_check "a read elsewhere is not held up by the delayed one" sector_reads_ok 4096
t2=$(now_ms)
e2e_check "the other read took < 1 s ($((t2 - t1)) ms)" test $((t2 - t1)) -lt 1000
wait "$delayed_pid"
rc=$?
t3=$(now_ms)
e2e_check "delayed read succeeded" test "$rc" = 0
e2e_check "delayed read took >= ${DELAY_MS} ms ($((t3 - t0)) ms)" test $((t3 - t0)) -ge "$DELAY_MS"
e2e_check "delay range counted the read" test "$(e2e_bad_reads "$DELAY_OFF" "$DELAY_LEN")" = 1
e2e_bad_del "$DELAY_OFF" "$DELAY_LEN"

# flaky: the next 2 reads fail, then the sector reads with the image's data
e2e_flaky_add "$BAD_OFF" "$BAD_LEN" 2
e2e_check "flaky sector fails (1 of 2)" sector_fails_eio "$BAD_SECTOR"
e2e_check "flaky sector fails (2 of 2)" sector_fails_eio "$BAD_SECTOR"
e2e_check "flaky sector then reads" sector_reads_ok "$BAD_SECTOR"
e2e_check "flaky range listed with left=0 reads=3" \
	grep -qx "flaky $BAD_OFF $BAD_LEN left=0 reads=3" "$E2E_CTL"
e2e_bad_del "$BAD_OFF" "$BAD_LEN"

e2e_assert_unchanged "$hash0"

# readonly: writes are refused, counted, and change nothing
e2e_readonly on
writes0=$(e2e_writes)
e2e_check_fails "direct write fails while read-only" \
	dd if=/dev/urandom of="$E2E_LOOP" oflag=direct bs=512 seek=10 count=1 status=none
e2e_check "refused write was counted" test "$(e2e_writes)" -gt "$writes0"
e2e_check "ctl shows readonly 1" grep -qx "readonly 1" "$E2E_CTL"
e2e_readonly off
e2e_check "ctl shows readonly 0" grep -qx "readonly 0" "$E2E_CTL"

# disk model: one queue, one request at a time: two concurrent 4 KiB reads at 100 ms each
# take >= 200 ms together (serialised), and the model counts its busy time
echo "model 100000 0" >"$E2E_CTL"
t0=$(now_ms)
read_sector 1000 & p1=$!
read_sector 3000 & p2=$!
wait "$p1"; rc1=$?
wait "$p2"; rc2=$?
t1=$(now_ms)
echo "model 0 0" >"$E2E_CTL"
e2e_check "model: both reads succeeded" test "$rc1$rc2" = 00
e2e_check "model: two concurrent reads served one after the other ($((t1 - t0)) ms >= 200)" \
	test $((t1 - t0)) -ge 200
e2e_check "model: busy time counted" \
	awk '$1 == "model_busy_ns" { exit !($2 >= 200000000) }' "$E2E_CTL"
e2e_check_fails "model: a bad model command is refused" sh -c "echo 'model x 1' >'$E2E_CTL'"

e2e_assert_unchanged "$hash0"
e2e_log "final state: $(e2e_ctl | tr '\n' ' ')"
e2e_pass "fault disk works"
