#!/bin/bash
# scan-transient.sh - a read that fails once and then reads fine (the fault disk's "flaky"
# range: a marginal sector the drive recovers on retry, a path hiccup) is a transient error:
# listed in transient_errors with a warning, never reported as damage, never an open error
# in the history; a block that stays bad beside it is still damage. With every engine.
set -euo pipefail
. "$(dirname "$0")/../lib/ms.sh"
e2e_require_root_loop_fuse
ms_require
e2e_setup 512
mkfs.xfs -q -f -m rmapbt=1,reflink=1 "$E2E_LOOP" || e2e_hard_error "mkfs.xfs failed"
e2e_mount || e2e_hard_error "mount failed"
xfs_io -f -c "pwrite -S 0x11 -b 65536 0 65536" -c fsync "$E2E_MNT/marginal" >/dev/null
# a spacer, so that no read covers both the flaky and the bad block (a read failing for a
# bad block hides a flaky neighbour's failure: the bad block explains it)
xfs_io -f -c "pwrite -S 0x33 -b 1048576 0 8388608" -c fsync "$E2E_MNT/spacer" >/dev/null
xfs_io -f -c "pwrite -S 0x22 -b 65536 0 65536" -c fsync "$E2E_MNT/broken" >/dev/null
sync
e2e_umount
e2e_readonly on
e2e_reset_counters
h=$(e2e_hash)
e2e_mount -o ro,norecovery || e2e_hard_error "ro mount failed"
flaky=$(( $(ms_first_phys "$E2E_MNT/marginal") + 20480 ))
bad=$(( $(ms_first_phys "$E2E_MNT/broken") + 8192 ))
e2e_log "flaky block at $flaky, bad block at $bad"
dist=$((bad > flaky ? bad - flaky : flaky - bad))
[ "$dist" -gt $((4 * 1048576)) ] || e2e_hard_error "flaky and bad blocks only $dist bytes apart"
e2e_bad_add "$bad" 512
out=$E2E_DIR/report.json

for engine in $(ms_engines); do
	e2e_flaky_add "$flaky" 512 1		# fails the scan's read once, then reads fine
	MS_STATE_DIR=$E2E_DIR/state-$engine
	ms_scan "$out" "$E2E_MNT" --engine "$engine"
	ms_expect_eq "$engine: exit 1 (the bad block only)" "$MS_RC" 1
	ms_expect_eq "$engine: the flaky range failed once" \
		"$(e2e_ctl | awk -v o="$flaky" '$1 == "flaky" && $2 == o { print $4 }')" left=0
	ms_expect_eq "$engine: one media error, the bad block" \
		"$(ms_jq "$out" '[.media_errors[] | "\(.offset)+\(.length)"] | join(" ")')" "$bad+512"
	ms_expect_eq "$engine: only the broken file is damaged" \
		"$(ms_jq "$out" '[.damaged_files[].paths[0]] | join(" ")')" "$E2E_MNT/broken"
	ms_expect_eq "$engine: one transient error, covering the flaky block" \
		"$(ms_jq "$out" "[.transient_errors[] | select(.offset <= $flaky and .offset + .length >= $flaky + 512)] | length")" 1
	ms_expect_eq "$engine: nothing else is transient" "$(ms_jq "$out" '.transient_errors | length')" 1
	ms_expect_eq "$engine: complete" "$(ms_jq "$out" '.complete')" true

	# The history keeps the bad block open; the transient one is not damage.
	rep=$("$MEDIASCAN" report --json --all --state-dir "$MS_STATE_DIR" || true)
	ms_expect_eq "$engine: history: open damage is the bad block only" \
		"$(jq -r '[.targets[].errors[] | select(.state == "open") | .offset] | join(" ")' <<<"$rep")" "$bad"
	unset MS_STATE_DIR
done

# The human summary warns about the transient error.
e2e_flaky_add "$flaky" 512 1
human=$("$MEDIASCAN" scan "$E2E_MNT" --no-state --progress none 2>&1 || true)
e2e_check "the summary tells the admin to watch the disk" grep -q "Watch this disk" <<<"$human"

# A block that keeps failing is damage, however many isolation reads it takes.
e2e_bad_del "$flaky" 512
e2e_flaky_add "$flaky" 512 1000
ms_scan "$out" "$E2E_MNT" --no-state
ms_expect_eq "persistent: both blocks are media errors" \
	"$(ms_jq "$out" '[.media_errors[] | .offset] | sort | map(tostring) | join(" ")')" \
	"$(printf '%s\n' "$flaky" "$bad" | sort -n | tr "\n" " " | sed "s/ $//")"
ms_expect_eq "persistent: no transient errors" "$(ms_jq "$out" '.transient_errors | length')" 0

ms_expect_eq "no write reached the device" "$(e2e_writes)" 0
e2e_umount
e2e_assert_unchanged "$h"
e2e_pass "transient errors listed, not damage; persistent ones are"
