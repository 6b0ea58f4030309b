#!/bin/bash
# xfs-normap.sh - XFS made without the reverse-mapping btree (-m rmapbt=0): GETFSMAP reports
# allocated space as "unknown", so every non-free range is planned and owners come from the
# inode sweep (bulkstat, FIEMAP). The same files and bad blocks as on rmapbt=1 give the same
# files lost (paths, ranges, shared); the inode chunk and the log are still named; an
# unwritten extent, which only rmapbt lets the plan skip, is read and reported lost: false;
# the report says once that rmapbt makes mapping faster. Nothing is written.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 512

# run RMAPBT : make the filesystem, put bad blocks under the same objects, scan; leaves the
# report in $E2E_DIR/report-RMAPBT.json.
run()
{
	local rmap=$1 m=$E2E_MNT out=$E2E_DIR/report-$1.json h ino_off log_off
	local plain linked orig prealloc

	e2e_bad_clear
	e2e_readonly off
	mkfs.xfs -q -f -m rmapbt="$rmap",reflink=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
	e2e_mount || e2e_hard_error "mount failed"
	mkdir -p "$m/a" "$m/b"
	xfs_io -f -c "pwrite -S 0x11 0 64k" -c fsync "$m/a/plain" >/dev/null
	xfs_io -f -c "pwrite -S 0x22 0 64k" -c fsync "$m/a/linked" >/dev/null
	ln "$m/a/linked" "$m/b/second-link"
	xfs_io -f -c "pwrite -S 0x33 0 128k" -c fsync "$m/a/original" >/dev/null
	cp --reflink=always "$m/a/original" "$m/b/clone"
	xfs_io -f -c "falloc 0 1m" -c fsync "$m/a/prealloc" >/dev/null
	xfs_io -f -c "pwrite -S 0x44 0 8k" -c fsync "$m/a/xattr-holder" >/dev/null
	for i in $(seq 1 20); do
		head -c $((RANDOM % 20000 + 1)) /dev/urandom >"$m/a/f$i"
	done
	sync
	e2e_umount
	e2e_readonly on
	h=$(e2e_hash)
	e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
	plain=$(ms_first_phys "$m/a/plain")
	linked=$(ms_first_phys "$m/a/linked")
	orig=$(ms_first_phys "$m/a/original")
	prealloc=$(ms_first_phys "$m/a/prealloc")
	# Metadata: the last (free) inode record of the files' inode chunk, and the log.
	ino_off=$(xfs_db -r -c "convert inode $(($(stat -c %i "$m/a/plain") | 63)) daddr" \
		  "$E2E_LOOP" | awk '{ print $2 }' | tr -d '()')
	log_off=$(xfs_db -r -c "convert fsb $(xfs_db -r -c 'sb 0' -c 'print logstart' "$E2E_LOOP" |
		  awk '{ print $3 }') daddr" "$E2E_LOOP" | awk '{ print $2 }' | tr -d '()')
	e2e_log "rmapbt=$rmap: plain $plain linked $linked orig $orig prealloc $prealloc" \
		"inode daddr $ino_off log daddr $log_off"
	e2e_bad_add $((plain + 4096)) 512
	e2e_bad_add $((linked + 8192)) 512
	e2e_bad_add $((orig + 16384)) 1024
	e2e_bad_add $((prealloc + 65536)) 4096
	e2e_bad_add $((ino_off * 512)) 512
	e2e_bad_add $((log_off * 512 + 65536)) 512
	e2e_reset_counters
	ms_scan "$out" "$m" --merge-gap 0 --queue-depth 1
	ms_expect_eq "rmapbt=$rmap: exit status 1" "$MS_RC" 1
	if [ "$rmap" = 1 ]; then
		ms_expect_eq "rmapbt=1: the unwritten extent is never read" \
			"$(e2e_bad_reads $((prealloc + 65536)) 4096)" 0
	else
		# GETFSMAP cannot tell unwritten space without rmapbt: read, found, nothing lost.
		ms_expect_eq "rmapbt=0: the unwritten extent is read and reported lost: false" \
			"$(ms_jq "$out" ".damaged_files[] | select(.paths == [\"$m/a/prealloc\"]) | \"\(.ranges[0].offset) \(.lost)\"")" \
			"65536 false"
	fi
	ms_expect_eq "rmapbt=$rmap: inode chunk named" \
		"$(ms_jq "$out" "[.damaged_metadata[] | select(.type == \"inodes\")] | length")" 1
	ms_expect_eq "rmapbt=$rmap: log named" \
		"$(ms_jq "$out" "[.damaged_metadata[] | select(.type == \"log\")] | length")" 1
	ms_expect_eq "rmapbt=$rmap: scanned == planned" \
		"$(ms_jq "$out" '.scanned_bytes == .planned_bytes')" true
	ms_expect_eq "rmapbt=$rmap: no write reached the device" "$(e2e_writes)" 0
	e2e_umount
	e2e_assert_unchanged "$h"
	# Paths below the mount point, so the two runs compare.
	jq -S --arg m "$m" '[.damaged_files[] | select(.lost) | {paths: ([.paths[] | ltrimstr($m)] | sort),
		ranges, lost, shared}] | sort_by(.paths)' "$out" >"$E2E_DIR/files-$rmap.json"
}

run 1
run 0
with=$E2E_DIR/report-1.json without=$E2E_DIR/report-0.json
e2e_log "damaged files with rmapbt: $(jq -c . "$E2E_DIR/files-1.json")"
e2e_log "damaged files without rmapbt: $(jq -c . "$E2E_DIR/files-0.json")"
ms_expect_eq "four damaged files (plain, hard link pair, reflink pair)" \
	"$(jq 'length' "$E2E_DIR/files-1.json")" 4
e2e_check "same lost files, ranges and sharing without rmapbt" \
	cmp "$E2E_DIR/files-1.json" "$E2E_DIR/files-0.json"
ms_expect_eq "hard link: both paths without rmapbt" \
	"$(jq -r '.[] | select(.paths | index("/a/linked")) | .paths | join(",")' \
	"$E2E_DIR/files-0.json")" "/a/linked,/b/second-link"
ms_expect_eq "reflink: shared without rmapbt" \
	"$(jq -r '[.[] | select(.paths == ["/a/original"] or .paths == ["/b/clone"]) | .shared] | all' \
	"$E2E_DIR/files-0.json")" true
ms_expect_eq "the rmapbt note, once, only without rmapbt" \
	"$(ms_jq "$without" '[.notes[]? | select(test("rmapbt"))] | length') $(ms_jq "$with" '[.notes[]? | select(test("rmapbt"))] | length')" \
	"1 0"
# An inode unlinked while open: no directory reaches it; bulkstat names it by inode number and
# generation (found by the sweep without rmapbt, by GETFSMAP with it). Read-write mount: the
# file must stay open.
unlinked()
{
	local rmap=$1 m=$E2E_MNT out=$E2E_DIR/unlinked-$1.json gone ino gen

	e2e_bad_clear
	e2e_readonly off
	mkfs.xfs -q -f -m rmapbt="$rmap" "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
	e2e_mount || e2e_hard_error "mount failed"
	xfs_io -f -c "pwrite -S 0x55 0 64k" -c fsync "$m/going" >/dev/null
	gone=$(ms_first_phys "$m/going")
	ino=$(stat -c %i "$m/going")
	gen=$(($(xfs_io -r -c "bulkstat_single $ino" "$m" | awk '$1 == "bs_gen" { print $3 }')))
	exec 7<"$m/going"
	rm "$m/going"
	sync
	e2e_bad_add $((gone + 8192)) 512
	ms_scan "$out" "$m" --queue-depth 1
	ms_expect_eq "rmapbt=$rmap: unlinked file by inode and generation, not reached" \
		"$(ms_jq "$out" '.damaged_files[0] | "\(.inode) \(.generation) \(.reached) \(.ranges[0].offset)"')" \
		"$ino $gen false 8192"
	e2e_check "rmapbt=$rmap: note: unlinked but still open" \
		grep -q "unlinked but still open" <<<"$(ms_jq "$out" '.damaged_files[0].note')"
	exec 7<&-
	e2e_umount
}
unlinked 0
unlinked 1
e2e_pass "XFS without rmapbt: same owners as with it; unlinked inodes named"
