#!/usr/bin/env bash
# VM test of `mediascan map` on a storage stack (issue 19), real mdadm/lvm2 in the guest and
# ground truth from tests/tools/blkmark markers (file tag, 4 KiB block index, member sector):
# - XFS on an LVM LV on an md RAID1 of two NVMe namespaces: a member sector maps to the file
#   and the exact file offset, the other mirror is named at the same member offset;
# - XFS on an md RAID5 of three (64 KiB chunks): a data sector on each member maps to its
#   file offset, with the parity and the other data member named;
# - XFS on an md RAID10 far-2: a member sector maps to its file offset, and the other copy
#   named holds the same marker (checked with blkmark on that member);
# - md's own kernel log line ("md/raid1:md0: read error corrected (8 sectors at N on ...)")
#   through map --kernel-log;
# - a thin pool's data on the RAID1 (a pool with no volume): its unprovisioned space, the pool
#   named (dm-thin-pool), no exit bit 4 (issue 31: no longer refused).
# Usage: tests/vm/stack-map.sh [BUILD_DIR]   Exit: 0 pass, 1 fail, 77 skip, 99 VM died.
# Environment: VMTEST_LOG=FILE keeps the console log; OLD_MEDIASCAN=PATH also runs that
# binary on the first query (to see the old answer).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-$here/../../build}
command -v qemu-system-x86_64 >/dev/null || { echo "SKIP: qemu-system-x86_64 missing"; exit 77; }
[[ -x $build/mediascan && -x $build/tests/tools/blkmark ]] ||
	{ echo "SKIP: build $build first"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stackmap.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rc=0
"$here/build-image" "$tmp/initrd" --stack-tools >"$tmp/kernel" 2>"$tmp/build.err" || rc=$?
[[ $rc -eq 77 ]] && { echo "SKIP: $(tail -n 1 "$tmp/build.err")"; exit 77; }
[[ $rc -eq 0 ]] || { cat "$tmp/build.err" >&2; echo "FAIL: build-image exited $rc"; exit 1; }
nvme=()
for i in 1 2 3 4 5 6 7; do
	truncate -s 400M "$tmp/d$i.img"
	nvme+=(--nvme "$tmp/d$i.img")
done
extra=()
[[ -n ${OLD_MEDIASCAN:-} ]] && extra+=(--bin "$OLD_MEDIASCAN:/usr/bin/mediascan-old")
cat >"$tmp/guest.sh" <<'EOF'
fails=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check_eq() { if [ "$2" = "$3" ]; then pass "$1 = $2"; else fail "$1 = '$2', want '$3'"; fi; }
has() { if grep -q -- "$2" "$3"; then pass "$1"; else fail "$1: no '$2' in:"; cat "$3"; fi; }
# mapped FILE OFFSET: the JSON answer in /tmp/a.json names FILE at file offset OFFSET
mapped() {
	has "owner $1" "\"$1\"" /tmp/a.json
	has "file offset $2" "\"file_offset\":$2," /tmp/a.json
}
q() { mediascan map "$@" --json - >/tmp/a.json 2>/tmp/a.err; echo $? >/tmp/a.rc; tr -d ' \n' </tmp/a.json >/tmp/a.min; mv /tmp/a.min /tmp/a.json; }
for m in md-mod raid1 raid456 raid10 dm-mod dm-thin-pool; do modprobe $m; done
exec 3>&1 >/tmp/setup.log 2>&1
mdadm --create /dev/md0 --level=1 --raid-devices=2 --assume-clean --run /dev/nvme0n1 /dev/nvme0n2
pvcreate /dev/md0 && vgcreate vg /dev/md0 && lvcreate -y -L 320M -n lv vg
mkfs.xfs -q /dev/vg/lv && mkdir -p /mnt/a && mount /dev/vg/lv /mnt/a
blkmark write /mnt/a/f1 F1 2000
mdadm --create /dev/md1 --level=5 --raid-devices=3 --chunk=64 --assume-clean --run /dev/nvme0n3 /dev/nvme0n4 /dev/nvme0n5
mkfs.xfs -q /dev/md1 && mkdir -p /mnt/b && mount /dev/md1 /mnt/b
blkmark write /mnt/b/f2 F2 3000
mdadm --create /dev/md2 --level=10 --layout=f2 --raid-devices=2 --assume-clean --run /dev/nvme0n6 /dev/nvme0n7
mkfs.xfs -q /dev/md2 && mkdir -p /mnt/c && mount /dev/md2 /mnt/c
blkmark write /mnt/c/f3 F3 3000
sync
lvcreate -y -L 40M -T vg/pool
exec 1>&3 2>&1

# RAID1 + LVM
set -- $(blkmark find /dev/nvme0n2 F1 | sed -n 1500p)
idx=$2; s=$3
[ -x /usr/bin/mediascan-old ] && { echo "old binary:"; mediascan-old map /dev/nvme0n2 --sector $s; echo "old exit $?"; }
q /dev/nvme0n2 --sector $s
mapped /mnt/a/f1 $((idx * 4096))
has "raid1 stack" '"kind":"md-raid1"' /tmp/a.json
has "lv stack" '"kind":"dm-linear"' /tmp/a.json
has "mirror named" "\"device\":\"/dev/nvme0n1\",\"offset\":$((s * 512)),\"length\":512,\"role\":\"mirror\"" /tmp/a.json
check_eq "raid1 exit (a range looked up is only owned: 0)" "$(cat /tmp/a.rc)" 0
printf '[   99.123456] md/raid1:md0: read error corrected (8 sectors at %s on nvme0n1)\n' $s >/tmp/kl
mediascan map --kernel-log /tmp/kl --json - | tr -d ' \n' >/tmp/a.json
mapped /mnt/a/f1 $((idx * 4096))

# RAID5: a data sector on each member
for d in nvme0n3 nvme0n4 nvme0n5; do
	set -- $(blkmark find /dev/$d F2 | sed -n 700p)
	q /dev/$d --sector $3
	mapped /mnt/b/f2 $(($2 * 4096))
	has "raid5 parity named ($d)" '"role":"parity"' /tmp/a.json
	has "raid5 data named ($d)" '"role":"data"' /tmp/a.json
done

# RAID10 far 2: the other copy named holds the same marker
set -- $(blkmark find /dev/nvme0n7 F3 | sed -n 100p)
idx=$2
q /dev/nvme0n7 --sector $3
mapped /mnt/c/f3 $((idx * 4096))
other=$(sed 's/.*"copies":\[{"device":"\/dev\/nvme0n6","offset":\([0-9]*\).*/\1/' /tmp/a.json)
want=$(blkmark find /dev/nvme0n6 F3 | awk -v i=$idx '$2 == i { print $3 * 512; exit }')
check_eq "raid10 far copy on nvme0n6" "$other" "$want"

# thin pool data (issue 31: mapped through the pool's metadata): a pool with no volume maps
# nothing there, so the sector is its unprovisioned space, named, not refused
set -- $(dmsetup table vg-pool_tdata)
doff=$(cat /sys/block/md0/md/dev-nvme0n1/offset)
q /dev/nvme0n1 --sector $(($5 + doff + 8))
check_eq "thin exit bit 4" $(( $(cat /tmp/a.rc) & 4 )) 0
has "thin pool named" '"kind":"dm-thin-pool"' /tmp/a.json
has "thin unprovisioned" '"unused":"unprovisionedspaceofthinpool' /tmp/a.json

# probe: the stack as a tree
mediascan probe /mnt/a --json - | tr -d ' \n' >/tmp/a.json
has "probe tree lv" '"stack":{"device":"/dev/dm-0","kind":"dm-linear"' /tmp/a.json
has "probe tree raid1" '"kind":"md-raid1"' /tmp/a.json
has "probe mount point" '"mount_point":"/mnt/a"' /tmp/a.json
mediascan probe /mnt/a >/tmp/p.txt
has "probe human tree" "/dev/md0  md-raid1" /tmp/p.txt

# an array running check is not scanned (exit 4, the array and its action named)
echo 1 >/sys/block/md1/md/sync_speed_max
echo check >/sys/block/md1/md/sync_action
mediascan scan /mnt/b --no-state >/tmp/s.out 2>&1; r=$?
check_eq "scan during check: exit bit 4" $((r & 4)) 4
has "scan during check names md1" "md1 (raid5) is running 'check'" /tmp/s.out
echo idle >/sys/block/md1/md/sync_action
# a degraded array is scanned with a warning
mdadm /dev/md0 --fail /dev/nvme0n2 >/dev/null 2>&1
mediascan scan /mnt/a --no-state >/tmp/s.out 2>&1; r=$?
check_eq "degraded scan exit" $r 0
has "degraded warning" "md0 (raid1) is degraded" /tmp/s.out
[ $fails -eq 0 ] || { cat /tmp/setup.log; exit 1; }
exit 0
EOF
rc=0
"$here/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" "${nvme[@]}" "${extra[@]}" \
	--bin "$build/mediascan:/usr/bin/mediascan" \
	--bin "$build/tests/tools/blkmark:/usr/bin/blkmark" --mem 1G \
	--timeout "${VMTEST_TIMEOUT:-900}" || rc=$?
exit $rc
