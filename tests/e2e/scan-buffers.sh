#!/bin/bash
# scan-buffers.sh - the read buffers are huge pages whatever the machine's settings allow, so
# a 1 MiB read reaches the device as one request: transparent huge pages (madvise mode);
# with THP "never" (common on database hosts) hugetlb pages when some are reserved; with
# neither, small pages, which the block layer splits (max_segments pages per request). The
# report's io_buffer says which; requests are counted in /sys/block/DEV/stat.
# The test changes /sys/kernel/mm/transparent_hugepage/enabled and vm.nr_hugepages and puts
# both back when it ends.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
thp=/sys/kernel/mm/transparent_hugepage/enabled
[ -w "$thp" ] || e2e_skip "cannot change $thp"
[ -w /proc/sys/vm/nr_hugepages ] || e2e_skip "cannot change vm.nr_hugepages"
e2e_setup 256
thp_was=$(sed 's/.*\[\(.*\)\].*/\1/' "$thp")
hp_was=$(cat /proc/sys/vm/nr_hugepages)
e2e_on_cleanup "echo $thp_was >$thp; echo $hp_was >/proc/sys/vm/nr_hugepages"
e2e_readonly on
h=$(e2e_hash)
dev=${E2E_LOOP#/dev/}
segs=$(cat "/sys/block/$dev/queue/max_segments")
page=$(getconf PAGESIZE)
[ $((segs * page)) -lt 1048576 ] || e2e_skip "max_segments $segs: a 1 MiB read never splits here"
size=$(blockdev --getsize64 "$E2E_LOOP")
out=$E2E_DIR/report.json
bad=$((100 * 1048576 + 4096))
e2e_bad_add "$bad" 512

# scan_counting WHAT ARGS... : scan the device; sets REQS (read requests the loop device
# completed) and prints nothing.
scan_counting()
{
	local what=$1 r0 r1
	shift
	r0=$(awk '{ print $1 }' "/sys/block/$dev/stat")
	ms_scan "$out" "$E2E_LOOP" --engine uring --no-state "$@"
	r1=$(awk '{ print $1 }' "/sys/block/$dev/stat")
	REQS=$((r1 - r0))
	ms_expect_eq "$what: exit 1" "$MS_RC" 1
	ms_expect_eq "$what: the bad block is found" \
		"$(ms_jq "$out" '[.media_errors[] | "\(.offset)+\(.length)"] | join(" ")')" "$bad+512"
	ms_expect_eq "$what: scanned == planned" "$(ms_jq "$out" '.scanned_bytes == .planned_bytes')" true
}

# requests_ok WHAT IO : the scan took about size/IO requests (plus isolation re-reads),
# not twice that (every read split in two).
requests_ok()
{
	local what=$1 io=$2 want iso
	iso=$(ms_jq "$out" '.isolation_reads')
	want=$(( (size + io - 1) / io + iso ))
	e2e_log "$what: $REQS read requests, io_size $io, $want reads expected ($iso isolation)"
	e2e_check "$what: reads reach the device whole ($REQS requests for $want reads)" \
		test "$REQS" -ge "$want" -a "$REQS" -le $((want + want / 8 + 16))
}

# 1. Transparent huge pages allowed (madvise): 1 MiB reads, one request each.
echo madvise >"$thp"
scan_counting "thp madvise"
ms_expect_eq "thp madvise: io_size" "$(ms_jq "$out" '.io_size')" 1048576
ms_expect_eq "thp madvise: buffer" "$(ms_jq "$out" '.io_buffer')" thp
requests_ok "thp madvise" 1048576

# 2. THP never, no hugetlb pages: small pages, said in the report; every 1 MiB read is
# split in two by the block layer (the bad block is found all the same).
echo never >"$thp"
echo 0 >/proc/sys/vm/nr_hugepages
scan_counting "thp never"
ms_expect_eq "thp never: buffer" "$(ms_jq "$out" '.io_buffer')" pages
e2e_check "thp never: reads are split ($REQS requests)" \
	test "$REQS" -ge $((2 * size / 1048576))

# 3. THP never, hugetlb pages reserved: the buffer takes them, 1 MiB reads again. The buffer
# is a piece of io_size per slot, 2 x depth slots: 32 MiB (16 pages of 2 MiB) at the defaults.
echo 20 >/proc/sys/vm/nr_hugepages
if [ "$(cat /proc/sys/vm/nr_hugepages)" -ge 16 ]; then
	scan_counting "hugetlb"
	ms_expect_eq "hugetlb: buffer" "$(ms_jq "$out" '.io_buffer')" hugetlb
	requests_ok "hugetlb" 1048576
else
	e2e_skip "THP and small pages checked; could not reserve 16 hugetlb pages for the rest (memory too fragmented)"
fi

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_assert_unchanged "$h"
e2e_pass "read buffers: THP, hugetlb when THP is never, small pages reported"
