#!/bin/bash
# report-reuse.sh - `mediascan report` names a file only when it is still the file that was
# damaged: the same filesystem mounted at the target's path and the same inode generation.
# A deleted file whose inode number is reused by an innocent new file is "path unknown now"
# (the path it had at the scan kept apart), never "restore this innocent file"; the same
# holds when another filesystem is mounted at the path.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 320
export MS_STATE_DIR=$E2E_DIR/state
out=$E2E_DIR/report.json
hist() { "$MEDIASCAN" report --json --all --state-dir "$MS_STATE_DIR" || true; }
mkfs.xfs -q -f -m rmapbt=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
mkdir "$E2E_MNT/d"
xfs_io -f -c "pwrite -S 0x11 -b 1048576 0 1048576" -c fsync "$E2E_MNT/d/victim" >/dev/null
ino=$(stat -c %i "$E2E_MNT/d/victim")
bad=$(( $(ms_first_phys "$E2E_MNT/d/victim") + 4096 ))
e2e_umount
e2e_bad_add "$bad" 512
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
ms_scan "$out" "$E2E_MNT"
ms_expect_eq "scan: exit 1" "$MS_RC" 1
ms_expect_eq "report names the damaged file" \
	"$(hist | jq -r '[.targets[].errors[].owners[].paths[]?] | join(" ")')" "$E2E_MNT/d/victim"
e2e_umount

# Delete it; new files until one gets its inode number (XFS reuses the freed slot).
e2e_bad_del "$bad" 512
e2e_mount || e2e_hard_error "rw mount failed"
rm "$E2E_MNT/d/victim"
reused=""
for i in $(seq 1 200); do
	echo innocent >"$E2E_MNT/d/new$i"
	if [ "$(stat -c %i "$E2E_MNT/d/new$i")" = "$ino" ]; then reused=$E2E_MNT/d/new$i; break; fi
done
[ -n "$reused" ] || e2e_skip "XFS did not reuse inode $ino in 200 creates"
e2e_log "inode $ino reused by $reused"
sync
e2e_umount
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
got=$(hist)
ms_expect_eq "the innocent file is not named" \
	"$(jq -r --arg p "$reused" '[.targets[].errors[].owners[].paths[]? | select(. == $p)] | length' <<<"$got")" 0
ms_expect_eq "the owner says path unknown now" \
	"$(jq -r '[.targets[].errors[].owners[] | select(.path_unknown != null)] | length' <<<"$got")" 1
ms_expect_eq "the path it had at the scan is kept apart" \
	"$(jq -r '[.targets[].errors[].owners[].paths_at_scan[]?] | join(" ")' <<<"$got")" "$E2E_MNT/d/victim"
human=$("$MEDIASCAN" report --all --state-dir "$MS_STATE_DIR" 2>&1 || true)
e2e_check "the human report says path unknown now" grep -q "path unknown now" <<<"$human"
e2e_check_fails "the human report does not name the innocent file" grep -qF "$reused" <<<"$human"
e2e_umount

# Another filesystem mounted at the same path: nothing is named through it.
truncate -s 320M "$E2E_DIR/other.img"
mkfs.xfs -q -f "$E2E_DIR/other.img"
mount -o loop "$E2E_DIR/other.img" "$E2E_MNT"
e2e_on_cleanup "umount $E2E_MNT 2>/dev/null"
mkdir -p "$E2E_MNT/d"
echo innocent >"$E2E_MNT/d/victim"
got=$(hist)
umount "$E2E_MNT"
ms_expect_eq "another filesystem at the path: the file there is not named" \
	"$(jq -r '[.targets[].errors[].owners[].paths[]?] | length' <<<"$got")" 0
ms_expect_eq "another filesystem at the path: path unknown now" \
	"$(jq -r '[.targets[].errors[].owners[] | .path_unknown] | join(" ")' <<<"$got")" \
	"the filesystem scanned is not mounted at its path now"
e2e_pass "report names a file only when it is the same inode of the same filesystem"
