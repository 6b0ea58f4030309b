#!/usr/bin/env bash
# VM test of `mediascan scan MOUNT` on a storage stack read at member level (issue 19): XFS on
# an LVM LV on an md RAID1 of two NVMe namespaces, the second with a blkdebug read error at
# member sector 12000 (under the file the guest writes first; its marker there is the ground
# truth). The scan reads both members with O_DIRECT and must say "redundancy lost" (exit bit
# 16, not 1) naming the file and its file offset, the good mirror and md's repair command;
# no damaged files. --top-only reads through md, which serves the good mirror: exit 0.
# Then XFS on an md RAID5 of three (64 KiB chunks, left-symmetric): a read error in a data
# chunk (member nvme0n3 sector 10585) and one in a parity chunk of another stripe row
# (nvme0n5 sector 10900): both redundancy lost, the data one named to its file offset with
# the rest of the stripe as its copies, the parity one with "parity": true and no owner.
# Usage: tests/vm/stack-scan.sh [BUILD_DIR]   Exit: 0 pass, 1 fail, 77 skip, 99 VM died.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-$here/../../build}
command -v qemu-system-x86_64 >/dev/null || { echo "SKIP: qemu-system-x86_64 missing"; exit 77; }
[[ -x $build/mediascan && -x $build/tests/tools/blkmark ]] ||
	{ echo "SKIP: build $build first"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stackscan.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rc=0
"$here/build-image" "$tmp/initrd" --stack-tools >"$tmp/kernel" 2>"$tmp/build.err" || rc=$?
[[ $rc -eq 77 ]] && { echo "SKIP: $(tail -n 1 "$tmp/build.err")"; exit 77; }
[[ $rc -eq 0 ]] || { cat "$tmp/build.err" >&2; echo "FAIL: build-image exited $rc"; exit 1; }
bad=12000 bad5=10585 badp=10900
truncate -s 400M "$tmp/d1.img" "$tmp/d2.img" "$tmp/d3.img" "$tmp/d4.img" "$tmp/d5.img"
cat >"$tmp/guest.sh" <<EOF
bad=$bad bad5=$bad5 badp=$badp
EOF
cat >>"$tmp/guest.sh" <<'EOF'
fails=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check_eq() { if [ "$2" = "$3" ]; then pass "$1 = $2"; else fail "$1 = '$2', want '$3'"; fi; }
has() { if grep -q -- "$2" "$3"; then pass "$1"; else fail "$1: no '$2' in:"; cat "$3"; fi; }
# hasE NAME ERE FILE: an extended regex (the JSON's keys between two named ones may grow)
hasE() { if grep -Eq -- "$2" "$3"; then pass "$1"; else fail "$1: no '$2' in:"; cat "$3"; fi; }
hasnt() { if grep -q -- "$2" "$3"; then fail "$1: '$2' in:"; cat "$3"; else pass "$1"; fi; }
for m in md-mod raid1 raid456 dm-mod; do modprobe $m; done
exec 3>&1 >/tmp/setup.log 2>&1
mdadm --create /dev/md0 --level=1 --raid-devices=2 --assume-clean --run /dev/nvme0n1 /dev/nvme0n2
pvcreate /dev/md0 && vgcreate vg /dev/md0 && lvcreate -y -L 320M -n lv vg
mkfs.xfs -q /dev/vg/lv && mkdir -p /mnt/a && mount /dev/vg/lv /mnt/a
blkmark write /mnt/a/f1 F1 2000
mdadm --create /dev/md1 --level=5 --raid-devices=3 --chunk=64 --assume-clean --run /dev/nvme0n3 /dev/nvme0n4 /dev/nvme0n5
mkfs.xfs -q /dev/md1 && mkdir -p /mnt/b && mount /dev/md1 /mnt/b
blkmark write /mnt/b/f2 F2 3000
sync
exec 1>&3 2>&1
# ground truth: the marker at the bad sector, read on the good mirror
set -- $(blkmark find /dev/nvme0n1 F1 | awk -v s=$bad '$3 <= s && s < $3 + 8 { print; exit }')
[ -n "${2:-}" ] || { echo "FAIL: no marker of F1 at sector $bad"; cat /tmp/setup.log; exit 1; }
foff=$(( $2 * 4096 + (bad - $3) * 512 ))
echo "marker $* -> file offset $foff"
mediascan scan /mnt/a --no-state --json /tmp/s.json >/tmp/s.out 2>&1; r=$?
cat /tmp/s.out
tr -d ' \n' </tmp/s.json >/tmp/a.json
check_eq "exit bit 16 (redundancy lost)" $((r & 16)) 16
check_eq "exit bit 1 (damage)" $((r & 1)) 0
has "member listed" '"path":"/dev/nvme0n2","role":"member"' /tmp/a.json
has "redundancy lost on nvme0n2" '"redundancy_lost":\[{"device":"/dev/nvme0n2"' /tmp/a.json
has "verdict" '"verdict":"redundancy-lost"' /tmp/a.json
has "good mirror named" '"copies":\[{"device":"/dev/nvme0n1"' /tmp/a.json
has "owner" '"/mnt/a/f1"' /tmp/a.json
has "file offset" "\"file_offset\":$foff," /tmp/a.json
has "repair command" 'echorepair>/sys/block/md0/md/sync_action' /tmp/a.json
has "no damaged files" '"damaged_files":\[\]' /tmp/a.json
has "human: redundancy lost" "Redundancy lost (1)" /tmp/s.out
mediascan scan /mnt/a --state-dir /tmp/state >/tmp/t.out 2>&1; r=$?
check_eq "with the state store: exit" $r 16
mediascan scan /mnt/a --no-state --top-only >/tmp/t.out 2>&1; r=$?
check_eq "--top-only exit (md serves the good mirror)" $r 0
hasnt "--top-only reads no member" "member level" /tmp/t.out

# RAID5: a data chunk and a parity chunk
# the member's first 16 MiB with the bad sector zeroed, for its markers
/usr/bin/dd if=/dev/nvme0n3 of=/tmp/n3.img bs=512 count=32768 conv=noerror,sync iflag=direct status=none 2>/dev/null
set -- $(blkmark find /tmp/n3.img F2 | awk -v s=$bad5 '$3 <= s && s < $3 + 8 { print; exit }')
[ -n "${2:-}" ] || { echo "FAIL: no marker of F2 at sector $bad5"; exit 1; }
foff=$(( $2 * 4096 + (bad5 - $3) * 512 ))
mediascan scan /mnt/b --no-state --json /tmp/s.json >/tmp/s.out 2>&1; r=$?
cat /tmp/s.out
tr -d ' \n' </tmp/s.json >/tmp/a.json
check_eq "raid5: exit bit 16" $((r & 16)) 16
check_eq "raid5: exit bit 1" $((r & 1)) 0
hasE "raid5: data error on nvme0n3" "\\{\"device\":\"/dev/nvme0n3\",[^{}]*\"offset\":$((bad5 * 512)),\"length\":512,\"verdict\":\"redundancy-lost\"" /tmp/a.json
has "raid5: owner" '"/mnt/b/f2"' /tmp/a.json
has "raid5: file offset" "\"file_offset\":$foff," /tmp/a.json
hasE "raid5: parity error on nvme0n5" "\\{\"device\":\"/dev/nvme0n5\",[^{}]*\"offset\":$((badp * 512)),\"length\":512,\"verdict\":\"redundancy-lost\"" /tmp/a.json
has "raid5: parity flagged" '"parity":true' /tmp/a.json
has "raid5: no damaged files" '"damaged_files":\[\]' /tmp/a.json
[ $fails -eq 0 ] || { cat /tmp/setup.log; exit 1; }
exit 0
EOF
rc=0
"$here/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" --nvme "$tmp/d1.img" \
	--nvme "$tmp/d2.img,read-error=$bad" --nvme "$tmp/d3.img,read-error=$bad5" \
	--nvme "$tmp/d4.img" --nvme "$tmp/d5.img,read-error=$badp" \
	--bin "$build/mediascan:/usr/bin/mediascan" \
	--bin "$build/tests/tools/blkmark:/usr/bin/blkmark" --mem 1G \
	--timeout "${VMTEST_TIMEOUT:-900}" || rc=$?
exit $rc
