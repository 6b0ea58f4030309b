#!/usr/bin/env bash
# Smoke test of the VM test tier: builds the guest image, boots it with an NVMe controller
# (nsid 1: 4 KiB LBAs with a blkdebug read error at LBA 100; nsid 2: 512+8 metadata with
# PI type 1), loads scsi_debug (DIF/DIX type 1, medium errors at LBA 1000-1007) and
# null_blk (badblocks 100-107) in the guest, and checks that each device and each injected
# error looks as later tests expect. Nothing is written to the devices.
# Exit: 0 pass, 1 fail, 77 skip (no QEMU or other host tools), 99 VM did not finish.
# Environment: VMTEST_LOG=FILE keeps the console log; VMTEST_TIMEOUT (default 300 s).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
t0=$(date +%s%N)

if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "SKIP: qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmsmoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- image
rc=0
"$here/build-image" "$tmp/initrd" >"$tmp/kernel" 2>"$tmp/build.err" || rc=$?
if [[ $rc -eq 77 ]]; then
	echo "SKIP: $(grep SKIP "$tmp/build.err" | head -n 1)"
	exit 77
elif [[ $rc -ne 0 ]]; then
	cat "$tmp/build.err" >&2
	echo "FAIL: build-image exited $rc"
	exit 1
fi
t_built=$(date +%s%N)

# ---------------------------------------------------------------- disks
nvme_err_lba=100                 # 4 KiB LBA on nsid 1
nvme_err_sector=$((nvme_err_lba * 8))   # blkdebug counts 512 B sectors of the image
truncate -s 64M "$tmp/ns1.img"
# nsid 2: 65536 blocks of 512 B data + 8 B metadata (QEMU keeps the metadata after the data)
truncate -s $((65536 * (512 + 8))) "$tmp/ns2.img"
sum_before=$(sha256sum "$tmp"/ns*.img)

# ---------------------------------------------------------------- guest
cat >"$tmp/guest.sh" <<EOF
nvme_err_lba=$nvme_err_lba
EOF
cat >>"$tmp/guest.sh" <<'EOF'
# Runs inside the VM (busybox sh). Prints one line per check; exits 1 if any failed.
fails=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check_eq() { # WHAT GOT WANT
	if [ "$2" = "$3" ]; then pass "$1 = $2"; else fail "$1 = '$2', want '$3'"; fi
}
# expect_read DEV BS LBA ok|ENODATA|EIO: one O_DIRECT read of block LBA (GNU dd: busybox
# dd would silently retry without O_DIRECT).
expect_read() {
	out=$(/usr/bin/dd if="$1" of=/dev/null bs="$2" skip="$3" count=1 iflag=direct status=none 2>&1)
	r=$?
	case $4 in
	ok) want="success" ;;
	ENODATA) want="No data available" ;;
	EIO) want="Input/output error" ;;
	esac
	if [ $r -eq 0 ]; then got=success; else got=${out##*: }; fi
	if [ "$got" = "$want" ]; then pass "read $1 block $3 (bs $2): $got"
	else fail "read $1 block $3 (bs $2): '$got', want '$want'"; fi
}

echo "kernel $(uname -r)"

# NVMe namespaces
check_eq "nvme0n1 logical_block_size" "$(cat /sys/block/nvme0n1/queue/logical_block_size 2>&1)" 4096
check_eq "nvme0n2 logical_block_size" "$(cat /sys/block/nvme0n2/queue/logical_block_size 2>&1)" 512
check_eq "nvme0n2 integrity/format" "$(cat /sys/block/nvme0n2/integrity/format 2>&1)" T10-DIF-TYPE1-CRC
echo "info nvme0n2 integrity: tag_size=$(cat /sys/block/nvme0n2/integrity/tag_size)" \
	"protection_interval_bytes=$(cat /sys/block/nvme0n2/integrity/protection_interval_bytes)" \
	"read_verify=$(cat /sys/block/nvme0n2/integrity/read_verify)"
check_eq "nvme0n1 integrity/format" "$(cat /sys/block/nvme0n1/integrity/format 2>&1)" none
for c in /dev/ng0n1 /dev/ng0n2; do
	if [ -c $c ]; then pass "$c is a character device"; else fail "$c missing"; fi
done
expect_read /dev/nvme0n1 4096 $((nvme_err_lba - 1)) ok
expect_read /dev/nvme0n1 4096 $nvme_err_lba ENODATA
expect_read /dev/nvme0n1 4096 $((nvme_err_lba + 1)) ok
expect_read /dev/nvme0n2 512 0 ok
expect_read /dev/nvme0n2 512 65535 ok

# scsi_debug: 64 MiB, 512 B sectors, DIF type 1 with DIX, medium errors at LBA 1000-1007
if modload scsi_debug dev_size_mb=64 sector_size=512 dif=1 dix=1 opt_blks=128 \
	opts=2 medium_error_start=1000 medium_error_count=8; then
	pass "modload scsi_debug"
else
	fail "modload scsi_debug"
fi
sd=""
i=0
while [ -z "$sd" ] && [ $i -lt 200 ]; do
	for d in /sys/block/sd*; do
		[ -e "$d/device/model" ] && grep -q scsi_debug "$d/device/model" && sd=${d##*/}
	done
	[ -n "$sd" ] || { sleep 0.1; i=$((i + 1)); }
done
if [ -n "$sd" ] && [ -b /dev/$sd ]; then
	pass "scsi_debug disk /dev/$sd"
	check_eq "$sd logical_block_size" "$(cat /sys/block/$sd/queue/logical_block_size)" 512
	check_eq "$sd integrity/format" "$(cat /sys/block/$sd/integrity/format 2>&1)" T10-DIF-TYPE1-CRC
	echo "info $sd optimal_io_size=$(cat /sys/block/$sd/queue/optimal_io_size)" \
		"max_sectors_kb=$(cat /sys/block/$sd/queue/max_sectors_kb)"
	echo "info $(sg_readcap -l /dev/$sd 2>&1 | grep -i 'prot_en')"
	expect_read /dev/$sd 512 999 ok
	expect_read /dev/$sd 512 1000 ENODATA
	expect_read /dev/$sd 512 1007 ENODATA
	expect_read /dev/$sd 512 1008 ok
else
	fail "no scsi_debug disk appeared"
fi

# null_blk through configfs with bad blocks 100-107 (512 B sectors)
if modload null_blk nr_devices=0 && mkdir /sys/kernel/config/nullb/vmnb &&
	echo 64 >/sys/kernel/config/nullb/vmnb/size &&
	echo 1 >/sys/kernel/config/nullb/vmnb/memory_backed &&
	echo +100-107 >/sys/kernel/config/nullb/vmnb/badblocks &&
	echo 1 >/sys/kernel/config/nullb/vmnb/power && waitfor /dev/vmnb 10; then
	pass "null_blk /dev/vmnb with badblocks '$(cat /sys/kernel/config/nullb/vmnb/badblocks)'"
	expect_read /dev/vmnb 512 99 ok
	expect_read /dev/vmnb 512 100 EIO
	expect_read /dev/vmnb 512 108 ok
else
	fail "null_blk with badblocks"
fi

echo "--- kernel messages about the injected errors"
dmesg | grep -E 'I/O Cmd|critical medium error|Sense Key|Add. Sense|I/O error, dev vmnb' | sed 's/^/dmesg /'
echo "uptime $(cut -d' ' -f1 /proc/uptime) s"
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
exit 0
EOF

# ---------------------------------------------------------------- boot
rc=0
"$here/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" \
	--timeout "${VMTEST_TIMEOUT:-300}" \
	--nvme "$tmp/ns1.img,logical_block_size=4096,physical_block_size=4096,read-error=$nvme_err_sector" \
	--nvme "$tmp/ns2.img,logical_block_size=512,physical_block_size=512,ms=8,mset=0,pi=1,pil=0" \
	>"$tmp/guest.out" 2>"$tmp/run.err" || rc=$?
t_end=$(date +%s%N)
cat "$tmp/guest.out"
cat "$tmp/run.err" >&2

# The boot watchdog: a guest that has not begun its payload in VMTEST_BEGIN_TIMEOUT seconds
# hung while booting; run kills it, boots once more (kernel messages on) and then gives up
# with 99. One second is shorter than any boot to its payload here (~5 s under TCG).
echo 'echo watchdog-payload-ran' >"$tmp/hang.sh"
hrc=0
VMTEST_BEGIN_TIMEOUT=1 "$here/run" --initrd "$tmp/initrd" --script "$tmp/hang.sh" \
	--timeout 60 >"$tmp/hang.out" 2>"$tmp/hang.err" || hrc=$?
if [[ $hrc -eq 99 ]] && grep -q 'booting once more' "$tmp/hang.err" &&
	grep -q 'did not reach its payload within 1s' "$tmp/hang.err" &&
	! grep -q watchdog-payload-ran "$tmp/hang.out"; then
	echo "ok   boot watchdog: a boot short of its payload killed, booted once more, exit 99"
else
	echo "FAIL boot watchdog: exit $hrc, stderr: $(grep -v '^\[' "$tmp/hang.err" | head -n 3 | tr '\n' ' ')"
	[[ $rc -ne 0 ]] || rc=1
fi

sum_after=$(sha256sum "$tmp"/ns*.img)
if [[ $sum_before != "$sum_after" ]]; then
	echo "FAIL: the NVMe images changed"
	rc=1
fi
ms() { echo "$(( ($2 - $1) / 1000000 ))"; }
echo "time: build $(ms "$t0" "$t_built") ms, boot+guest $(ms "$t_built" "$t_end") ms, total $(ms "$t0" "$t_end") ms"
case $rc in
0) echo "PASS: vm smoke" ;;
77) echo "SKIP: guest skipped" ;;
99) echo "FAIL: the VM did not finish (exit 99)"; exit 99 ;;
*) echo "FAIL: vm smoke (guest exit $rc)"; rc=1 ;;
esac
exit "$rc"
