#!/usr/bin/env bash
# tests/bench/vm-pacing.sh - issue 32's goals for --pacing latency, measured in the VM on two
# disk models in ONE QEMU boot (tests/vm/, build-image --stack-tools; TCG unless KVM works):
#   plain  one NVMe namespace (NS_MIB), XFS (rmapbt) on it;
#   md     md RAID1 of two NVMe namespaces (NS_MIB each), XFS (rmapbt) on /dev/md0.
# Each namespace is throttled in QEMU's block layer, its own throttle group: THROTTLE_MIB MiB/s
# and IOPS requests/s, of reads and writes together (THROTTLE=total: a writer and the scan
# share the disk) or of reads only (THROTTLE=read), so the disk, not TCG's
# CPU, is the limit. Each XFS filled to FILL_PCT with `blkmark write` files, plus the writer's
# file (WR_FILE_MIB, written once before the runs). Foregrounds (fio, psync, O_DIRECT, QD 1):
#   light   4 KiB random reads at FG_IOPS a second on the raw device (read-only), their
#           arrivals a Poisson process (FG_PROCESS=poisson; linear: evenly spaced, which
#           can fall into step with a fixed rate's evenly spaced reads: see pacing.sh);
#   busy    4 KiB random reads back to back on the raw device (read-only);
#   writer  bursts of WR_BURST_MIB 1 MiB sequential writes to the writer's file, then
#           WR_IDLE_MS of nothing (tests/bench/pacing.sh's writer, its 32 MiB burst scaled
#           to the throttle: 2 MiB is 0.25 s at 8 MiB/s, as 32 MiB is at 150 MB/s);
#   none    no foreground.
# The scanner: `mediascan scan MNT --state-dir D --progress none -q --max-duration S --json F
# MODE` (the member-level scan of the filesystem), started 1 s before the foreground and
# stopped by --max-duration DUR+2 s (none: DUR s, no foreground); a warm-up scan per binary
# first, so the drive-side method's proof is in D's history and no run pays for it (QEMU's
# namespace earns NVMe Verify; its proof reads 64 MiB unpaced). Per model, in this order:
#   light:  alone; the sweep (--rate R --pacing off for each R of SWEEP_PLAIN / SWEEP_MD);
#           pacing (--pacing latency); the same with MEDIASCAN_ALT; md only: md's check
#           (`echo check > /sys/block/md0/md/sync_action`, default speed limits)
#   busy:   alone; pacing; MEDIASCAN_ALT's pacing; md only: md's check
#   writer: alone; pacing; MEDIASCAN_ALT's pacing
#   none:   pacing; MEDIASCAN_ALT's pacing; --pacing off (unthrottled); md only: md's check
#   light:  alone again (the drift over the model's runs)
# Before each run: the page cache dropped, the XFS frozen and thawed (its metadata written
# back). Scan MiB/s: scanned_bytes / elapsed_s of the scan's JSON (md: both copies); md's
# check: what both members read over the foreground's run less the foreground's own bytes
# (their stat files). The best fixed rate: the highest rate of the
# sweep whose foreground mean is within 1.25x alone (both after ARRIVAL_S). Each foreground
# request's time is in fio's log: the mean after its first ARRIVAL_S seconds (the steady
# state) and before them (its arrival against a scan already reading, mean and max) are shown
# apart. Goals judged (issue 32), the whole run's ratio beside: 1 light within 1.25x after
# ARRIVAL_S; 2 the paced scan >= 0.8x the best fixed rate's MiB/s; 3 busy keeps >= 0.95x its
# IOPS after ARRIVAL_S; 4 the writer within 1.25x after ARRIVAL_S; 5 no foreground: >= 0.9x
# the unthrottled scan (counted as full speed). One run each: single runs, not medians. The
# sweep starts low: QEMU's throttle (util/throttle.c, no *-max set) lets a tenth of a second's
# budget through at once, then holds every request of the drive until the bucket drains, so each
# 1 MiB the scan reads stalls the namespace ~25 ms at 8 MiB/s; the paced scan's floor is
# --rate-min (1M).
# Usage: tests/bench/vm-pacing.sh [BUILD_DIR]   (or MEDIASCAN_BIN=path/to/mediascan)
# Environment: DUR (seconds per run, default 30: in 10 s runs the climb after the arrival is most of
# the run; one model takes ~11 min), NS_MIB (512), FILL_PCT (25), THROTTLE (total|read, default
# total), THROTTLE_MIB (8), IOPS (150), FG_IOPS (40), FG_PROCESS (poisson), ARRIVAL_S (2),
# SWEEP_PLAIN ("0.25 0.5 1 2 4 6 7", MiB/s; past 4M, where the reader read 0.86x), SWEEP_MD ("0.25
# 0.5 1 2 4 8 12 16": md's check reads ~16), WR_BURST_MIB (2), WR_IDLE_MS (1000), WR_FILE_MIB (32),
# MODELS ("plain md"), KINDS ("light busy writer none": the foregrounds run), PACING_LOG (1: each
# paced run's `--progress log` lines, one a second, as "X ... log:" lines of RAW_OUT: the
# controller's rate and its view of the foreground; the paced runs' second half, shown beside their
# rate, is taken from them always), MEDIASCAN_ALT (another binary: its pacing rows right after ours,
# e.g. the old controller 3e2ff51 built apart), ALT_LABEL (its name in the tables, default its
# path), RAW_OUT (keep the guest's raw lines there), VMPACING_RAW=FILE
# (no VM: print the tables from a RAW_OUT kept earlier). Needs qemu-system-x86_64, fio and jq
# on the host (copied into the guest). One VM at a time on a shared host: it says at the
# start and in the header how many other QEMU processes ran (sampled every 30 s, with the
# load); it refuses to start beside another unless ALLOW_OTHER_VM=1. Prints markdown tables;
# not a pass/fail test.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"	# second_half_mibs, copied into the guest
build=${1:-$root/build}
dur=${DUR:-30}
ns_mib=${NS_MIB:-512}
fill_pct=${FILL_PCT:-25}
throttle=${THROTTLE:-total}
throttle_mib=${THROTTLE_MIB:-8}
iops=${IOPS:-150}
fg_iops=${FG_IOPS:-40}
fg_process=${FG_PROCESS:-poisson}
arrival_s=${ARRIVAL_S:-2}
sweep_plain=${SWEEP_PLAIN:-"0.25 0.5 1 2 4 6 7"}
sweep_md=${SWEEP_MD:-"0.25 0.5 1 2 4 8 12 16"}
wr_burst=${WR_BURST_MIB:-2}
wr_idle_ms=${WR_IDLE_MS:-1000}
wr_file_mib=${WR_FILE_MIB:-32}
models=${MODELS:-"plain md"}
kinds=${KINDS:-"light busy writer none"}
pacing_log=${PACING_LOG:-0}
alt=${MEDIASCAN_ALT:-}
alt_label=${ALT_LABEL:-$alt}
case $throttle in total|read) ;; *) echo "THROTTLE: total or read" >&2; exit 1 ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vmpace.XXXXXX")
sampler=
cleanup() { [[ -n $sampler ]] && kill "$sampler" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

if [[ -n ${VMPACING_RAW:-} ]]; then
	cp "$VMPACING_RAW" "$tmp/raw"
else
	for t in qemu-system-x86_64 fio jq; do
		command -v "$t" >/dev/null || { echo "needs $t on the host (scripts/deps; fio and jq are copied into the guest)" >&2; exit 1; }
	done
	bin=${MEDIASCAN_BIN:-$(cd "$build" && pwd)/mediascan}
	[[ -x $bin ]] || { echo "$bin is not built (pass BUILD_DIR or MEDIASCAN_BIN)" >&2; exit 1; }
	[[ -z $alt || -x $alt ]] || { echo "MEDIASCAN_ALT=$alt: not an executable" >&2; exit 1; }
	blkmark=${BLKMARK:-$build/tests/tools/blkmark}
	[[ -x $blkmark ]] || blkmark=$root/build/tests/tools/blkmark
	[[ -x $blkmark ]] || { echo "needs tests/tools/blkmark (built in BUILD_DIR or build/, or BLKMARK=path)" >&2; exit 1; }
	others=$(pgrep -c qemu-system || true)
	if [[ ${others:-0} -gt 0 ]]; then
		echo "vm-pacing: $others other QEMU process(es) running: one VM at a time (ALLOW_OTHER_VM=1 runs beside them, the header counts them)" >&2
		[[ ${ALLOW_OTHER_VM:-0} = 1 ]] || exit 1
	fi

	export VMTEST_ACCEL_CACHE=$tmp/accel
	bins=(--bin "$bin:/usr/bin/mediascan")
	[[ -z $alt ]] || bins+=(--bin "$alt:/usr/bin/mediascan-alt")
	"$root/tests/vm/build-image" "$tmp/initrd" --stack-tools --modules xfs \
		--autoload "xfs md-mod raid1" "${bins[@]}" --bin "$blkmark:/usr/bin/blkmark" \
		--bin "$(command -v fio)" --bin "$(command -v jq)" \
		>/dev/null 2>"$tmp/build.err" || { cat "$tmp/build.err" >&2; exit 1; }
	# nsid 1: the plain model; nsid 2 and 3: the md members
	if [[ $throttle = total ]]; then
		tq="bps-total=$((throttle_mib << 20)),iops-total=$iops"
	else
		tq="bps-read=$((throttle_mib << 20)),iops-read=$iops"
	fi
	nvme_args=()
	for n in 1 2 3; do
		truncate -s "${ns_mib}M" "$tmp/ns$n.img"
		nvme_args+=(--nvme "$tmp/ns$n.img,$tq")
	done

	cat >"$tmp/guest.sh" <<EOF
dur=$dur
fill_pct=$fill_pct
fg_iops=$fg_iops
fg_process=$fg_process
arrival_s=$arrival_s
wr_burst=$wr_burst
wr_idle_us=$((wr_idle_ms * 1000))
wr_file_mib=$wr_file_mib
models="$models"
kinds="$kinds"
plog=$pacing_log
sweep_plain="$sweep_plain"
sweep_md="$sweep_md"
alt=$([[ -n $alt ]] && echo 1 || echo 0)
EOF
	declare -f second_half_mibs >>"$tmp/guest.sh"
	cat >>"$tmp/guest.sh" <<'EOF'
ns() { for d in /sys/block/nvme*n*; do [ "$(cat "$d/nsid")" = "$1" ] && echo "/dev/${d##*/}"; done; }
now() { cut -d' ' -f1 /proc/uptime; }
# drop: the page cache, and XFS's metadata written back in place (a freeze pushes the AIL
# and covers the log): after the writer's runs the log's background pushes landed in the
# next run with no foreground, as a user's requests (2 of 88 ms in the throttle's queue)
drop() { sync; xfs_io -x -c freeze -c thaw "$mnt" 2>/dev/null; echo 3 >/proc/sys/vm/drop_caches; }
usedb() { echo $(( $(stat -f -c '(%b - %f) * %S' "$mnt") )); }
# xfs_fill: XFS (rmapbt) on $dev at $mnt, blkmark files to fill_pct percent, the writer's file
xfs_fill() {
	mkfs.xfs -q -f -K -m rmapbt=1 "$dev" && mkdir -p "$mnt" && mount "$dev" "$mnt" || return 1
	fs_bytes=$(( $(stat -f -c '%b * %S' "$mnt") ))
	want=$(( fs_bytes * fill_pct / 100 ))
	files=0
	while [ "$(usedb)" -lt "$want" ]; do
		left=$(( (want - $(usedb)) / 4096 ))
		[ $left -gt 16384 ] && left=16384
		blkmark write "$mnt/f$files" "f$files" $left || return 1
		files=$((files + 1))
	done
	fio --name=lay --filename="$mnt/wr.dat" --size=${wr_file_mib}M --rw=write --bs=1M \
		--direct=1 --ioengine=psync >/dev/null 2>&1 || { echo "INFO $model: the writer's file failed"; return 1; }
	sync
	echo "INFO $model fs_bytes $fs_bytes used $(usedb) files $files dev $dev members $members scheduler $(cat /sys/block/${members%% *}/queue/scheduler | tr -d '\n')"
}
fgrun() {	# KIND: the foreground for dur seconds, fio's JSON in /tmp/fg.json, each request in /tmp/fgl_clat.1.log
	rm -f /tmp/fg.json /tmp/fgl_*
	lg="--write_lat_log=/tmp/fgl --log_avg_msec=0"
	case $1 in
	light|busy)
		r=; [ "$1" = light ] && r="--rate_iops=$fg_iops --rate_process=$fg_process"
		fio --name=fg --filename="$dev" --ioengine=psync --direct=1 --rw=randread --bs=4k $r $lg \
			--time_based --runtime=$dur --readonly --output-format=json \
			--output=/tmp/fg.json >/dev/null 2>&1 ;;
	writer)
		fio --name=fg --filename="$mnt/wr.dat" --size=${wr_file_mib}M --ioengine=psync \
			--direct=1 --rw=write --bs=1M --thinktime=$wr_idle_us --thinktime_blocks=$wr_burst $lg \
			--time_based --runtime=$dur --output-format=json --output=/tmp/fg.json \
			>/dev/null 2>&1 ;;
	esac
}
fgstats() {	# "mean_us p99_us iops read_bytes steady_us first_us first_max_us steady_iops"
	j=$(jq -r '.jobs[0] | (if .read.total_ios > 0 then .read else .write end) as $d |
		"\($d.clat_ns.mean / 1000 | floor) \($d.clat_ns.percentile["99.000000"] / 1000 | floor) \($d.iops * 100 | floor / 100) \(.read.io_bytes)"' \
		/tmp/fg.json 2>/dev/null) || j="- - - 0"
	echo -n "$j "
	# the steady state (from arrival_s on) and the arrival (before), from fio's log
	awk -F', ' -v a="$arrival_s" -v d="$dur" '{ if ($1 < a * 1000) { fn++; fs += $2; if ($2 > fm) fm = $2 } else { sn++; ss += $2 } }
		END { printf "%s %s %s %s\n", sn ? int(ss / sn / 1000) : "-", fn ? int(fs / fn / 1000) : "-", fn ? int(fm / 1000) : "-",
			sn ? int(sn / (d - a) * 100) / 100 : "-" }' \
		/tmp/fgl_clat.1.log 2>/dev/null || echo "- - - -"
}
rd_sec() {	# sectors read from the members so far (the stat files' third field)
	s=0
	for m in $members; do s=$(( s + $(awk '{ print $3 }' /sys/block/$m/stat) )); done
	echo $s
}
mdsync=/sys/block/md0/md
want() { case " $kinds " in *" $1 "*) return 0 ;; esac; return 1; }
# run KIND MODE WHO [ARGS...]: one run; WHO: - (no scanner), cur, alt (mediascan-alt), check
# (md's check). Prints "R model kind mode fg_mean_us fg_p99_us fg_iops scan_mibs rc" and the
# fg's steady mean, first mean and max, steady IOPS, and a paced scan's second-half MiB/s.
run() {
	kind=$1 mode=$2 who=$3
	shift 3
	drop
	rm -f /tmp/s.json /tmp/s.err
	sp=
	case $who in
	cur|alt)
		b=mediascan; [ "$who" = alt ] && b=mediascan-alt
		md_s=$((dur + 2)); [ "$kind" = none ] && md_s=$dur
		case $mode in pacing*) set -- "$@" --progress log ;; esac	# its second half
		$b scan "$mnt" --state-dir /var/tmp/ms-$who --progress none -q --max-duration ${md_s}s \
			--json /tmp/s.json "$@" >/dev/null 2>/tmp/s.err &
		sp=$!
		[ "$kind" = none ] || sleep 1 ;;
	check)
		echo check >$mdsync/sync_action
		sleep 1 ;;
	esac
	t0=$(now); r0=$(rd_sec)
	rc=-; mib=-; half=-
	if [ "$kind" = none ]; then
		if [ -n "$sp" ]; then rc=0; wait $sp || rc=$?; sp=; else sleep $dur; fi
	else
		fgrun $kind
	fi
	r1=$(rd_sec); t1=$(now)
	set -- $(fgstats)
	fmean=$1 fp99=$2 fio_iops=$3 fbytes=$4 fsteady=${5:--} ffirst=${6:--} ffmax=${7:--} fsiops=${8:--}
	[ "$kind" = none ] && { fmean=-; fp99=-; fio_iops=-; fbytes=0; fsteady=-; ffirst=-; ffmax=-; fsiops=-; }
	if [ -n "$sp" ]; then
		rc=0; wait $sp || rc=$?
	fi
	case $who in
	cur|alt)
		mib=$(jq -r '(.scanned_bytes / .elapsed_s / 1048576 * 100 | floor) / 100' /tmp/s.json 2>/dev/null || echo -)
		echo "X $model $kind $mode $(jq -c '{scanned_mib: (.scanned_bytes / 1048576 | floor), planned_mib: (.planned_bytes / 1048576 | floor), elapsed_s, backoffs, backoff_s, pacing}' /tmp/s.json 2>/dev/null | tr -d ' ')"
		grep -v '^progress ' /tmp/s.err | sed "s/^/X $model $kind $mode stderr: /" | head -n 3
		half=$(second_half_mibs "$dur" /tmp/s.err)	# tests/bench/lib.sh's
		[ "$plog" != 1 ] || grep '^progress ' /tmp/s.err | sed "s/^/X $model $kind $mode log: /" ;;
	check)
		action=$(cat $mdsync/sync_action)
		echo idle >$mdsync/sync_action
		while [ "$(cat $mdsync/sync_action)" != idle ]; do sleep 0.2; done
		mib=$(awk -v a="$r0" -v b="$r1" -v f="$fbytes" -v t0="$t0" -v t1="$t1" \
			'BEGIN { printf "%.2f", ((b - a) * 512 - f) / 1048576 / (t1 - t0) }')
		echo "X $model $kind $mode action=$action sync_completed=$(cat $mdsync/sync_completed | tr -d ' ') speed_limit_min=$(cat /proc/sys/dev/raid/speed_limit_min) speed_limit_max=$(cat /proc/sys/dev/raid/speed_limit_max)" ;;
	esac
	echo "R $model $kind $mode $fmean $fp99 $fio_iops $mib $rc $fsteady $ffirst $ffmax $fsiops $half"
}
p=$(ns 1); m2=$(ns 2); m3=$(ns 3)
for model in $models; do
	case $model in
	plain) dev=$p; mnt=/mnt/p; members=${p##*/}; sweep=$sweep_plain ;;
	md)
		mdadm --create /dev/md0 --run --metadata=1.2 --data-offset=1M --assume-clean \
			--bitmap=none --level=1 --raid-devices=2 $m2 $m3 >/tmp/mdadm.out 2>&1 ||
			{ cat /tmp/mdadm.out; exit 1; }
		dev=/dev/md0; mnt=/mnt/m; members="${m2##*/} ${m3##*/}"; sweep=$sweep_md ;;
	*) echo "INFO unknown model $model"; continue ;;
	esac
	xfs_fill || { echo "INFO $model: the filesystem failed"; exit 1; }
	# The drive-side method's proof (NVMe Verify on QEMU's namespace: 64 MiB verified, then
	# read, unpaced) is made once per disk and kept in the history: the runs measure pacing,
	# not a first scan's proof (at 8 MiB/s it outlasts a run).
	for b in mediascan $([ "$alt" = 1 ] && echo mediascan-alt); do
		w=cur; [ "$b" = mediascan-alt ] && w=alt
		$b scan "$mnt" --state-dir /var/tmp/ms-$w --progress none -q --max-duration 60s \
			--json /tmp/w.json >/dev/null 2>&1
		echo "X $model warm-up $w $(jq -c '[.devices[]? | {method, trust}]' /tmp/w.json 2>/dev/null | tr -d ' ')"
	done
	echo "INFO $model start $(date -u +%H:%M:%S)"
	if want light; then
		run light alone -
		for r in $sweep; do run light fixed:$r cur --rate ${r}M --pacing off; done
		run light pacing cur --pacing latency
		[ "$alt" = 1 ] && run light pacing-alt alt --pacing latency
		[ "$model" = md ] && run light md-check check
	fi
	if want busy; then
		run busy alone -
		run busy pacing cur --pacing latency
		[ "$alt" = 1 ] && run busy pacing-alt alt --pacing latency
		[ "$model" = md ] && run busy md-check check
	fi
	if want writer; then
		run writer alone -
		run writer pacing cur --pacing latency
		[ "$alt" = 1 ] && run writer pacing-alt alt --pacing latency
	fi
	if want none; then
		run none pacing cur --pacing latency
		[ "$alt" = 1 ] && run none pacing-alt alt --pacing latency
		run none unthrottled cur --pacing off
		[ "$model" = md ] && run none md-check check
	fi
	want light && run light alone-again -
	echo "INFO $model end $(date -u +%H:%M:%S)"
	umount "$mnt"
done
EOF
	# the host's load and other QEMU processes, every 30 s while the VM runs
	( while :; do echo "$(cut -d' ' -f1 /proc/loadavg) $(pgrep -c qemu-system || true)"; sleep 30; done ) >"$tmp/load" &
	sampler=$!
	start=$(date -u '+%Y-%m-%d %H:%M')
	"$root/tests/vm/run" --initrd "$tmp/initrd" --script "$tmp/guest.sh" --timeout 3600 \
		"${nvme_args[@]}" >"$tmp/out" 2>"$tmp/err" ||
		{ cat "$tmp/out" "$tmp/err" >&2; exit 1; }
	kill "$sampler" 2>/dev/null; sampler=
	accel=$(grep -o 'accelerator [a-z]*' "$tmp/err" | head -n 1 | cut -d' ' -f2)
	# our own QEMU is one of the processes counted: the others are the count less one
	load=$(awk '{ l[NR] = $1; if ($2 > 1) o++ } END {
		if (NR == 0) { print "not sampled"; exit }
		lo = hi = l[1]; for (i = 2; i <= NR; i++) { if (l[i] < lo) lo = l[i]; if (l[i] > hi) hi = l[i] }
		printf "%s-%s (%d samples, 30 s apart), other QEMU processes in %d of them", lo, hi, NR, o }' "$tmp/load")
	{
		echo "H start $start"
		echo "H end $(date -u +%H:%M)"
		echo "H accel ${accel:-?}"
		echo "H qemu $(qemu-system-x86_64 --version | head -n 1 | awk '{ print $4 }')"
		echo "H load $load"
		echo "H bin $bin (tree at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))"
		echo "H alt ${alt_label:--}"
		echo "H conf DUR=$dur NS_MIB=$ns_mib FILL_PCT=$fill_pct THROTTLE=$throttle THROTTLE_MIB=$throttle_mib IOPS=$iops FG_IOPS=$fg_iops FG_PROCESS=$fg_process ARRIVAL_S=$arrival_s WR_BURST_MIB=$wr_burst WR_IDLE_MS=$wr_idle_ms"
		grep -E '^(R|X|INFO) ' "$tmp/out"
	} >"$tmp/raw"
	[[ -z ${RAW_OUT:-} ]] || cp "$tmp/raw" "$RAW_OUT"
fi

# ---- the tables, from $tmp/raw ----
raw=$tmp/raw
arrival=$arrival_s
h() { sed -n "s/^H $1 //p" "$raw" | head -n 1; }
conf=$(h conf)
case $conf in *FG_PROCESS=*) ;; *) fg_process=linear ;; esac	# kept before it was a knob
for kv in $conf; do
	case $kv in
	DUR=*) dur=${kv#*=} ;; ARRIVAL_S=*) arrival=${kv#*=} ;; THROTTLE=*) throttle=${kv#*=} ;; THROTTLE_MIB=*) throttle_mib=${kv#*=} ;;
	IOPS=*) iops=${kv#*=} ;; FG_IOPS=*) fg_iops=${kv#*=} ;; FG_PROCESS=*) fg_process=${kv#*=} ;; NS_MIB=*) ns_mib=${kv#*=} ;;
	WR_BURST_MIB=*) wr_burst=${kv#*=} ;; WR_IDLE_MS=*) wr_idle_ms=${kv#*=} ;;
	esac
done
alt_label=$(h alt)
kinds=$(grep '^R ' "$raw" | cut -d' ' -f3 | awk '!s[$0]++' | tr '\n' ' ')	# those run
[[ $alt_label = - ]] && alt_label=
row() { grep "^R $1 $2 $3 " "$raw" | tail -n 1 | cut -d' ' -f5-; }	# MODEL KIND MODE
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "-" && b != "-" && a + 0 <= b + 0) }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "-" && b != "-" && a + 0 >= b + 0) }'; }
yn() { if "$@"; then echo yes; else echo no; fi; }
echo "# vm-pacing: $(h start)-$(h end) UTC; QEMU $(h qemu), $(h accel), 2 vCPUs; host load $(h load)"
echo "# $(h conf)"
echo "# mediascan $(h bin)${alt_label:+; MEDIASCAN_ALT $alt_label}"
echo "# throttle per namespace: $throttle_mib MiB/s and $iops IOPS of $([[ $throttle = total ]] && echo "reads and writes together" || echo reads)"
echo "# foregrounds: light \`fio --rw=randread --bs=4k --rate_iops=$fg_iops --rate_process=$fg_process --direct=1 --ioengine=psync\` on the raw device;" \
	"busy the same without --rate_iops; writer \`fio --rw=write --bs=1M --thinktime=$((wr_idle_ms * 1000)) --thinktime_blocks=$wr_burst --direct=1\` on a file of the XFS"
for model in $(grep '^R ' "$raw" | cut -d' ' -f2 | awk '!s[$0]++'); do
	info=$(grep "^INFO $model fs_bytes " "$raw" | head -n 1)
	read -r _ _ _ fsb _ used _ nfiles _ dev _ <<<"$info"
	mnt=/mnt/p; [[ $model = md ]] && mnt=/mnt/m
	echo
	case $model in
	plain) echo "## plain: one NVMe namespace of $ns_mib MiB, XFS on $dev" ;;
	md) echo "## md: RAID1 of two NVMe namespaces of $ns_mib MiB, XFS on /dev/md0" ;;
	esac
	echo "# XFS $((fsb >> 20)) MiB, $((used >> 20)) MiB used ($nfiles files and the writer's); $(grep "^INFO $model start " "$raw" | cut -d' ' -f4)-$(grep "^INFO $model end " "$raw" | cut -d' ' -f4) UTC"
	echo
	echo "| foreground | run | fg mean us (x alone) | after ${arrival}s: mean us (x alone's) | first ${arrival}s: mean / max us | fg p99 us (x alone) | fg IOPS (x alone) | scan MiB/s |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	best='' best_mib=''
	for kind in light busy writer none; do
		read -r a_mean a_p99 a_iops _ _ a_st _ _ <<<"$(row "$model" "$kind" alone || true)"
		for mode in $(grep "^R $model $kind " "$raw" | cut -d' ' -f4); do
			read -r mean p99 io mib rc st first fmax _ half _ <<<"$(row "$model" "$kind" "$mode")"
			case $mode in
			alone) label="alone" ;;
			alone-again) label="alone again (after the model's runs)" ;;
			fixed:*) label="\`mediascan scan $mnt --rate ${mode#fixed:}M --pacing off\`" ;;
			pacing) label="\`mediascan scan $mnt --pacing latency\`" ;;
			pacing-alt) label="the same, ${alt_label:-MEDIASCAN_ALT}'s binary" ;;
			unthrottled) label="\`mediascan scan $mnt --pacing off\` (unthrottled)" ;;
			md-check) label="md check (\`echo check > /sys/block/md0/md/sync_action\`)" ;;
			*) label=$mode ;;
			esac
			if [[ $mode = fixed:* ]] && le "$st" "$(awk -v a="$a_st" 'BEGIN { print 1.25 * a }')"; then
				best=${mode#fixed:} best_mib=$mib
			fi
			[[ ${half:--} = - ]] || mib="$mib (second half $half)"
			[[ $rc = - || $rc = 0 || $rc = 4 ]] || label="$label (exit $rc)"
			if [[ $kind = none ]]; then
				echo "| none | $label | - | - | - | - | - | $mib |"
			elif [[ $mode = alone || $mode = alone-again ]]; then
				echo "| $kind | $label | $mean$([[ $mode = alone ]] || echo " ($(ratio "$mean" "$a_mean")x)") | ${st:--}$([[ $mode = alone ]] || echo " ($(ratio "$st" "$a_st")x)") | ${first:--} / ${fmax:--} | $p99 | $io | - |"
			else
				echo "| $kind | $label | $mean ($(ratio "$mean" "$a_mean")x) | ${st:--} ($(ratio "$st" "$a_st")x) | ${first:--} / ${fmax:--} | $p99 ($(ratio "$p99" "$a_p99")x) | $io ($(ratio "$io" "$a_iops")x) | $mib |"
			fi
		done
	done
	echo
	if [[ -n $best ]]; then
		top=$(grep "^R $model light fixed:" "$raw" | tail -n 1 | cut -d' ' -f4)
		echo "Best fixed rate within 1.25x (light): --rate ${best}M, $best_mib MiB/s read$([[ fixed:$best != "$top" ]] || echo " (the sweep's top: the best may be higher)")."
	else
		echo "Best fixed rate within 1.25x (light): none of the sweep (below its lowest rate)."
	fi
	echo
	# the goals, ours and the other binary's
	goals() {	# MODE: "cell|met" per goal, one a line
		local m=$1 a x mean io mib unth st a_st
		ran() { [[ " $kinds " == *" $1 "* ]]; }	# a kind KINDS left out: its goals not run
		if ! ran light; then
			echo "light not run (KINDS)|-"; echo "light not run (KINDS)|-"
		else
		read -r a _ _ _ _ a_st _ <<<"$(row "$model" light alone)"
		read -r mean _ _ mib _ st _ _ _ half _ <<<"$(row "$model" light "$m")"
		x=$(ratio "$st" "$a_st")
		echo "${x}x (the whole run $(ratio "$mean" "$a")x)|$(yn le "$x" 1.25)"
		if [[ -n $best ]]; then
			x=$(ratio "$mib" "$best_mib")
			[[ ${half:--} = - ]] && half= || half="; second half $half, $(ratio "$half" "$best_mib")x"
			echo "$mib of $best_mib MiB/s (${x}x$half)|$(yn ge "$x" 0.8)"
		else
			echo "$mib MiB/s; no fixed rate of the sweep within target|not judged"
		fi
		fi
		if ! ran busy; then
			echo "busy not run (KINDS)|-"
		else
		read -r _ _ a _ _ _ _ _ a_si <<<"$(row "$model" busy alone)"
		read -r _ _ io mib _ _ _ _ si <<<"$(row "$model" busy "$m")"
		x=$(ratio "$si" "$a_si")
		echo "${x}x IOPS at $mib MiB/s (the whole run $(ratio "$io" "$a")x)|$(yn ge "$x" 0.95)"
		fi
		if ! ran writer; then
			echo "writer not run (KINDS)|-"
		else
		read -r a _ _ _ _ a_st _ <<<"$(row "$model" writer alone)"
		read -r mean _ _ mib _ st _ <<<"$(row "$model" writer "$m")"
		x=$(ratio "$st" "$a_st")
		echo "${x}x at $mib MiB/s (the whole run $(ratio "$mean" "$a")x)|$(yn le "$x" 1.25)"
		fi
		if ! ran none; then
			echo "none not run (KINDS)|-"
			return
		fi
		read -r _ _ _ unth _ <<<"$(row "$model" none unthrottled)"
		read -r _ _ _ mib _ <<<"$(row "$model" none "$m")"
		x=$(ratio "$mib" "$unth")
		echo "$mib of $unth MiB/s (${x}x)|$(yn ge "$x" 0.9)"
	}
	mapfile -t ours < <(goals pacing)
	theirs=()
	[[ -z $alt_label ]] || mapfile -t theirs < <(goals pacing-alt)
	echo "| goal | --pacing latency | met |${alt_label:+ $alt_label | met |}"
	echo "| --- | --- | --- |${alt_label:+ --- | --- |}"
	names=("1 light fg mean within 1.25x alone (after ${arrival}s)" "2 paced scan >= 0.8x the best fixed rate's" \
		"3 busy fg keeps >= 0.95x its IOPS (after ${arrival}s)" "4 writer's mean within 1.25x alone (after ${arrival}s)" \
		"5 no fg: full speed (>= 0.9x unthrottled)")
	for i in 0 1 2 3 4; do
		o=${ours[$i]}
		line="| ${names[$i]} | ${o%|*} | ${o##*|} |"
		if [[ -n $alt_label ]]; then t=${theirs[$i]}; line="$line ${t%|*} | ${t##*|} |"; fi
		echo "$line"
	done
done
echo
grep -E '^(X|INFO) ' "$raw" | grep -v ' fs_bytes ' | sed 's/^/# /'
