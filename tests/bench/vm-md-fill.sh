# tests/bench/vm-md-fill.sh - guest-side shell of vm-md.sh (it appends it to the script the
# guest runs; not run on the host): the md array and its filled XFS that the bench scans.
#
# md_xfs_fill LEVEL PCT MEMBER... : /dev/md0 of the members at RAID LEVEL (metadata 1.2, data
# offset 1 MiB, no resync, no bitmap), XFS with rmapbt on it mounted at /mnt/m, filled with
# files of marked blocks (`blkmark write`, 64 MiB each) until the used share (df's used,
# metadata too) reaches PCT percent. Sets fs_bytes, used and files; returns 1 on failure
# (mdadm's output is shown).
md_xfs_fill() {
	level=$1 pct=$2
	shift 2
	mdadm --create /dev/md0 --run --metadata=1.2 --data-offset=1M --assume-clean \
		--bitmap=none --level="$level" --raid-devices=$# "$@" >/tmp/mdadm.out 2>&1 ||
		{ cat /tmp/mdadm.out; return 1; }
	mkfs.xfs -q -f -K -m rmapbt=1 /dev/md0 && mkdir -p /mnt/m && mount /dev/md0 /mnt/m ||
		return 1
	fs_bytes=$(( $(stat -f -c '%b * %S' /mnt/m) ))
	want=$(( fs_bytes * pct / 100 ))
	files=0
	while [ $(( $(stat -f -c '(%b - %f) * %S' /mnt/m) )) -lt "$want" ]; do
		left=$(( (want - $(( $(stat -f -c '(%b - %f) * %S' /mnt/m) ))) / 4096 ))
		[ $left -gt 16384 ] && left=16384
		blkmark write /mnt/m/f$files f$files $left || return 1
		files=$((files + 1))
	done
	sync
	used=$(( $(stat -f -c '(%b - %f) * %S' /mnt/m) ))
}
