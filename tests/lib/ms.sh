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

# ms_check_split_log MNT AT TYPE META : with MNT mounted over ms_split_loops devices (log at AT),
# a bad 512 B block in MNT/file and one 1 MiB into the log device: a scan names the file on
# the data device and the log's owner (type TYPE, metadata META, e.g. "log log" for XFS,
# "metadata journal" for ext4) on the log device, reads all it planned, and `mediascan map`
# on the log device answers the same through the filesystem.
ms_check_split_log()
{
	local m=$1 at=$2 type=$3 meta=$4 out=$E2E_DIR/report.json ans=$E2E_DIR/map.json rc=0
	local file
	file=$(ms_first_phys "$m/file")
	e2e_bad_add $((file + 4096)) 512
	e2e_bad_add $((at + (1 << 20))) 512
	e2e_reset_counters
	ms_scan "$out" "$m" --queue-depth 1
	ms_expect_eq "exit status 1" "$MS_RC" 1
	ms_expect_eq "both devices, with their roles" \
		"$(ms_jq "$out" '[.devices[] | "\(.path)=\(.role)"] | join(",")')" "$DATA=data,$LOGDEV=log"
	ms_expect_eq "the log error: on the log device, role log, owned by the $meta" \
		"$(ms_jq "$out" '.media_errors[] | select(.role == "log") | "\(.device) \(.offset) \(.owners[0].type) \(.owners[0].metadata)"')" \
		"$LOGDEV $((1 << 20)) $type $meta"
	ms_expect_eq "the data error: the file" \
		"$(ms_jq "$out" '.media_errors[] | select(.role == "data") | .owners[0].paths | join(",")')" "$m/file"
	ms_expect_eq "damaged metadata: the $meta, on the log device" \
		"$(ms_jq "$out" '.damaged_metadata[] | "\(.type) \(.device)"')" "$meta $LOGDEV"
	e2e_check "the log device was read" test "$(e2e_bad_reads $((at + (1 << 20))) 512)" -ge 1
	ms_expect_eq "scanned == planned" "$(ms_jq "$out" '.scanned_bytes == .planned_bytes')" true

	"$MEDIASCAN" map "$LOGDEV" $((1 << 20)) --json "$ans" -q || rc=$?
	ms_expect_eq "map log device: a lookup that names the log exits 0" "$rc" 0
	ms_expect_eq "map log device: role and owner" \
		"$(ms_jq "$ans" '.media_errors[0] | "\(.role) \(.owners[0].type) \(.owners[0].metadata)"')" \
		"log $type $meta"
	ms_expect_eq "map log device: the filesystem" "$(ms_jq "$ans" '.targets[0].target')" "$m"
}
