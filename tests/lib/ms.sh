# shellcheck shell=bash
#
# ms.sh - helpers for mediascan's end-to-end tests, on top of e2e.sh: run a scan, query
# its JSON report, find filesystem objects on the device.

. "$(dirname "${BASH_SOURCE[0]}")/e2e.sh"

MEDIASCAN=${MEDIASCAN:-$E2E_BUILD/mediascan}
export MEDIASCAN

# ms_require : skip unless mediascan and jq are there (after e2e_require_root_loop_fuse).
ms_require()
{
	[ -x "$MEDIASCAN" ] || e2e_skip "mediascan binary not built ($MEDIASCAN)"
	command -v jq >/dev/null || e2e_skip "jq is not installed"
}

# ms_engines : print the scan engines this build and machine can run, one per line.
ms_engines()
{
	local e
	for e in uring aio sync; do
		if "$MEDIASCAN" scan --engine "$e" --help >/dev/null 2>&1 &&
		   ! "$MEDIASCAN" scan /nonexistent-ms-probe --engine "$e" 2>&1 |
		   grep -q "cannot run here\|unknown engine"; then
			echo "$e"
		fi
	done
}

# ms_scan JSON ARGS... : run `mediascan scan ARGS --json JSON`; sets MS_RC to its exit status.
ms_scan()
{
	local json=$1
	shift
	MS_RC=0
	"$MEDIASCAN" scan "$@" --json "$json" --progress none -q \
		--state-dir "${MS_STATE_DIR:-$E2E_DIR/state}" || MS_RC=$?
	e2e_log "mediascan scan $* -> exit $MS_RC"
}

# ms_jq JSON FILTER : print jq -r FILTER of the report.
ms_jq()
{
	jq -r "$2" "$1"
}

# ms_expect_eq DESC GOT WANT : fail unless GOT equals WANT.
ms_expect_eq()
{
	if [ "$2" != "$3" ]; then
		e2e_fail "$1: got '$2', want '$3'"
	fi
	echo "ok: $1 ($2)"
}

# ms_fsmap_first OWNER : print "OFFSET LENGTH" in bytes of the first GETFSMAP record of
# OWNER on the mounted E2E_MNT (xfs_io fsmap -m owners: special_88:5 inodes,
# special_0:1 free space, special_88:2 log, inode_N_data ...).
ms_fsmap_first()
{
	xfs_io -c 'fsmap -m' "$E2E_MNT" | awk -F, -v o="$1" \
		'$6 == o { printf "%.0f %.0f\n", $4 * 512, ($5 - $4 + 1) * 512; exit }'
}

# ms_fsmap_all OWNER : every record of OWNER as "OFFSET LENGTH" in bytes.
ms_fsmap_all()
{
	xfs_io -c 'fsmap -m' "$E2E_MNT" | awk -F, -v o="$1" \
		'$6 == o { printf "%.0f %.0f\n", $4 * 512, ($5 - $4 + 1) * 512 }'
}

# ms_first_phys PATH : device offset in bytes of file offset 0 of PATH.
ms_first_phys()
{
	e2e_file_phys "$1" | awk '$1 == 0 { print $2; exit }'
}

# ms_split_loops AT LEN : two loop devices over the fault disk (after e2e_setup): DATA over
# [0, AT) and LOGDEV over [AT, AT+LEN), for filesystems with an external log or journal.
# Sets DATA and LOGDEV; the EXIT trap unmounts E2E_MNT and detaches both before the usual
# cleanup.
ms_split_loops()
{
	DATA= LOGDEV=
	trap 'rc=$?; set +e; _ms_split_cleanup; _e2e_cleanup; exit $rc' EXIT
	DATA=$(losetup --direct-io=on --sector-size 512 --offset 0 --sizelimit "$1" \
		--find --show "$E2E_FUSE/disk") || e2e_hard_error "losetup (data) failed"
	LOGDEV=$(losetup --direct-io=on --sector-size 512 --offset "$1" --sizelimit "$2" \
		--find --show "$E2E_FUSE/disk") || e2e_hard_error "losetup (log) failed"
}

_ms_split_cleanup()
{
	local l
	cd / || :
	if mountpoint -q -- "$E2E_MNT" 2>/dev/null; then
		umount -- "$E2E_MNT" 2>/dev/null || umount -l -- "$E2E_MNT" 2>/dev/null
	fi
	for l in $DATA $LOGDEV; do
		losetup -d "$l" 2>/dev/null || :
		# losetup -d only sets autoclear while the device is still open: wait for it
		for _ in $(seq 50); do
			losetup --noheadings --output BACK-FILE -- "$l" 2>/dev/null |
				grep -q "$E2E_FUSE/disk" || break
			sleep 0.1
		done
	done
}
