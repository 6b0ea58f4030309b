#!/usr/bin/env bash
# VM test of the storage stack through dm-crypt and LVM striping (issue 19):
# - XFS in LUKS2 on the first partition of an md RAID1 (md0p1) of two NVMe namespaces, the
#   second with a read error at member sector 45056: `scan` reads both members and says
#   redundancy lost (exit 16, not 1) naming the file at the file offset the decrypted
#   device's marker gives, `map` on the member names the same file; the dm-crypt key
#   (dmsetup table --showkeys) appears in no output, report or journal line;
# - XFS on an LVM LV striped over two PVs (64 KiB stripes), the second PV's disk with a read
#   error at sector 4105: no other copy, so damage (exit 1) naming the file.
# Usage: tests/vm/stack-crypt.sh [BUILD_DIR]   Exit: 0 pass, 1 fail, 77 skip, 99 VM died.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-$here/../../build}
command -v qemu-system-x86_64 >/dev/null || { echo "SKIP: qemu-system-x86_64 missing"; exit 77; }
[[ -x $build/mediascan && -x $build/tests/tools/blkmark ]] ||
	{ echo "SKIP: build $build first"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stackcrypt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rc=0
"$here/build-image" "$tmp/initrd" --stack-tools >"$tmp/kernel" 2>"$tmp/build.err" || rc=$?
[[ $rc -eq 77 ]] && { echo "SKIP: $(tail -n 1 "$tmp/build.err")"; exit 77; }
[[ $rc -eq 0 ]] || { cat "$tmp/build.err" >&2; echo "FAIL: build-image exited $rc"; exit 1; }
badc=45056 bads=4105
truncate -s 400M "$tmp/d1.img" "$tmp/d2.img" "$tmp/d3.img" "$tmp/d4.img"
cat >"$tmp/guest.sh" <<EOF
badc=$badc bads=$bads
EOF
cat >>"$tmp/guest.sh" <<'EOF'
fails=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check_eq() { if [ "$2" = "$3" ]; then pass "$1 = $2"; else fail "$1 = '$2', want '$3'"; fi; }
has() { if grep -q -- "$2" "$3"; then pass "$1"; else fail "$1: no '$2' in:"; cat "$3"; fi; }
# hasE NAME ERE FILE: an extended regex (the JSON's keys between two named ones may grow)
hasE() { if grep -Eq -- "$2" "$3"; then pass "$1"; else fail "$1: no '$2' in:"; cat "$3"; fi; }
hasnt() { if grep -q -- "$2" "$3"; then fail "$1: '$2' in $3"; else pass "$1"; fi; }
for m in md-mod raid1 dm-mod dm-crypt; do modprobe $m; done
exec 3>&1 >/tmp/setup.log 2>&1
mdadm --create /dev/md0 --level=1 --raid-devices=2 --assume-clean --run /dev/nvme0n1 /dev/nvme0n2
# one MBR partition: type 0x83, start 2048, 700000 sectors
{ head -c 446 /dev/zero; printf '\000\000\000\000\203\000\000\000\000\010\000\000\140\256\012\000'
  head -c 48 /dev/zero; printf '\125\252'; } | /usr/bin/dd of=/dev/md0 bs=512 count=1 conv=notrunc status=none
blockdev --rereadpt /dev/md0
ls -l /dev/md0p1 || { echo "no md0p1"; exit 1; }
head -c 64 /dev/urandom >/tmp/key
cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file /tmp/key /dev/md0p1
cryptsetup open --disable-keyring --key-file /tmp/key /dev/md0p1 c
mkfs.xfs -q /dev/mapper/c && mkdir -p /mnt/c && mount /dev/mapper/c /mnt/c
blkmark write /mnt/c/f4 F4 4000
pvcreate /dev/nvme0n3 /dev/nvme0n4 && vgcreate vs /dev/nvme0n3 /dev/nvme0n4
lvcreate -y -i 2 -I 64k -L 320M -n st vs
mkfs.xfs -q /dev/vs/st && mkdir -p /mnt/s && mount /dev/vs/st /mnt/s
blkmark write /mnt/s/f5 F5 3000
sync
exec 1>&3 2>&1
key=$(dmsetup table --showkeys c | awk '{ print $5 }')
[ ${#key} -ge 64 ] || { echo "FAIL: no key in the table"; cat /tmp/setup.log; exit 1; }
# ground truth: the decrypted device's marker at the bad member sector
doff=$(cat /sys/block/md0/md/dev-nvme0n2/offset)
pstart=$(cat /sys/class/block/md0p1/start)
set -- $(dmsetup table c)
csec=$((badc - doff - pstart - $8))
set -- $(blkmark find /dev/mapper/c F4 | awk -v s=$csec '$3 <= s && s < $3 + 8 { print; exit }')
[ -n "${2:-}" ] || { echo "FAIL: no marker of F4 at crypt sector $csec"; cat /tmp/setup.log; exit 1; }
foff=$(( $2 * 4096 + (csec - $3) * 512 ))
echo "crypt sector $csec: marker $* -> file offset $foff"
mediascan scan /mnt/c --no-state --json /tmp/s.json >/tmp/s.out 2>&1; r=$?
cat /tmp/s.out
tr -d ' \n' </tmp/s.json >/tmp/a.json
check_eq "luks on md0p1: exit bit 16" $((r & 16)) 16
check_eq "luks on md0p1: exit bit 1" $((r & 1)) 0
hasE "luks: redundancy lost on nvme0n2" "\\{\"device\":\"/dev/nvme0n2\",[^{}]*\"offset\":$((badc * 512))," /tmp/a.json
has "luks: crypt in the stack" '"kind":"dm-crypt"' /tmp/a.json
has "luks: partition of md0 in the stack" '"device":"/dev/md0p1","kind":"partition"' /tmp/a.json
has "luks: owner" '"/mnt/c/f4"' /tmp/a.json
has "luks: file offset" "\"file_offset\":$foff," /tmp/a.json
mediascan map /dev/nvme0n2 --sector $badc --json - >/tmp/m.json 2>&1
tr -d ' \n' </tmp/m.json >/tmp/b.json
has "map: owner through crypt" "\"file_offset\":$foff," /tmp/b.json
mediascan probe /mnt/c --json - >/tmp/p.json 2>&1
mediascan map --kernel-log /tmp/s.out >/tmp/k.out 2>&1
for f in /tmp/s.out /tmp/s.json /tmp/m.json /tmp/p.json /tmp/k.out; do
	hasnt "key not in $f" "$key" $f
done
# striped LV: no other copy: damage
/usr/bin/dd if=/dev/nvme0n4 of=/tmp/n4.img bs=512 count=32768 conv=noerror,sync iflag=direct status=none 2>/dev/null
set -- $(blkmark find /tmp/n4.img F5 | awk -v s=$bads '$3 <= s && s < $3 + 8 { print; exit }')
[ -n "${2:-}" ] || { echo "FAIL: no marker of F5 at nvme0n4 sector $bads"; exit 1; }
foff=$(( $2 * 4096 + (bads - $3) * 512 ))
mediascan scan /mnt/s --no-state --json /tmp/s.json >/tmp/s.out 2>&1; r=$?
cat /tmp/s.out
tr -d ' \n' </tmp/s.json >/tmp/a.json
check_eq "striped: exit bit 1 (damage)" $((r & 1)) 1
has "striped: damaged file" '"damaged_files":\[{"inode"' /tmp/a.json
has "striped: owner" '"/mnt/s/f5"' /tmp/a.json
has "striped: file offset" "\"file_offset\":$foff," /tmp/a.json
has "striped: no redundancy lost" '"redundancy_lost":\[\]' /tmp/a.json
[ $fails -eq 0 ] || { cat /tmp/setup.log; exit 1; }
exit 0
EOF
rc=0
"$here/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" --nvme "$tmp/d1.img" \
	--nvme "$tmp/d2.img,read-error=$badc" --nvme "$tmp/d3.img" \
	--nvme "$tmp/d4.img,read-error=$bads" \
	--bin "$build/mediascan:/usr/bin/mediascan" \
	--bin "$build/tests/tools/blkmark:/usr/bin/blkmark" --mem 1G \
	--timeout "${VMTEST_TIMEOUT:-900}" || rc=$?
exit $rc
