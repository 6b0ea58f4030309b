#!/bin/bash
# map-klog-reuse.sh - `map --kernel-log` with no FILE reads all of /dev/kmsg, whose old lines
# may name a device that has been reused since: a read error logged on loopN over one image,
# then loopN detached and attached to another image (a new ext4 whose file covers the same
# sector). The old line must not name today's file: it is "logged before this device
# appeared: not mapped" (the kernel logs "loopN: detected capacity change" on attach; its
# time is compared with the line's). A line logged after the attach is mapped as before.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
command -v mkfs.ext4 >/dev/null || e2e_skip "mkfs.ext4 is not installed"
e2e_setup 64
D=$E2E_LOOP
DN=$(basename "$D")
mkfs.ext4 -q -F -b 4096 "$D" || e2e_hard_error "mkfs.ext4 failed"
e2e_mount || e2e_hard_error "mount failed"
head -c 1048576 /dev/urandom >"$E2E_MNT/old-file"
sync
off=$(ms_first_phys "$E2E_MNT/old-file")
e2e_umount
SEC=$((off / 512 + 8))
e2e_bad_add $((SEC * 512)) 512
# (the block layer logs at most 10 errors in 5 s: other tests may have used them up)
logged=0
for _ in $(seq 12); do
	dd if="$D" of=/dev/null bs=512 skip="$SEC" count=1 iflag=direct 2>/dev/null || :
	if dmesg 2>/dev/null | tail -500 | grep -q "dev $DN, sector $SEC "; then
		logged=1
		break
	fi
	sleep 1
done
[ $logged = 1 ] || e2e_skip "the kernel did not log the read error (rate limited?)"
e2e_bad_clear

# The same loop device, another image: a new filesystem whose one big file covers SEC.
other=$E2E_DIR/other.img
truncate -s 64M "$other"
mkfs.ext4 -q -F -b 4096 "$other"
mkdir -p "$E2E_DIR/o"
mount -o loop "$other" "$E2E_DIR/o"
head -c 48M /dev/zero >"$E2E_DIR/o/new-file"
umount "$E2E_DIR/o"
losetup -d "$D"
for _ in $(seq 50); do
	losetup "$D" >/dev/null 2>&1 || break
	sleep 0.1
done
losetup "$D" "$other" 2>/dev/null || e2e_skip "$D was taken by another process meanwhile"
e2e_on_cleanup 'umount "$E2E_MNT" 2>/dev/null; losetup -d "$E2E_LOOP" 2>/dev/null'
sleep 0.2
mount -o ro "$D" "$E2E_MNT" || e2e_hard_error "mount of the other image failed"
now=$({ "$MEDIASCAN" map "$D" --sector "$SEC" --json - -q || :; } | jq -r ".damaged_files[0].paths[0]")
ms_expect_eq "today the sector belongs to the new file" "$now" "$E2E_MNT/new-file"

ans=$E2E_DIR/map.json
rc=0
"$MEDIASCAN" map --kernel-log --json "$ans" -q || rc=$?
e2e_log "map --kernel-log (kmsg) -> exit $rc: $(jq -c ".kernel_log | del(.unusable_lines)" "$ans")"
ms_expect_eq "the old line is not mapped onto today's file" \
	"$(ms_jq "$ans" "[.damaged_files[].paths[] | select(. == \"$E2E_MNT/new-file\")] | length")" 0
ms_expect_eq "the old line says why" \
	"$(ms_jq "$ans" "[.media_errors[] | select(.device == \"$D\" and .sector == $SEC) | .not_mapped | test(\"before this device\")] | all")" true
jq -e '.kernel_log.logged_before_device >= 1' "$ans" >/dev/null ||
	e2e_fail "the count of lines logged before their device is missing"
human=$("$MEDIASCAN" map --kernel-log 2>&1 || true)
e2e_check "human: said" grep -q "logged at .* before this device ($DN) appeared" <<<"$human"
e2e_pass "a kernel log line older than its (reused) device is not mapped onto today's files"
