/*
 * cli/scan_opts.c - the options of `mediascan scan` as one table, and its usage's synopsis.
 * Every default shown is the constant the pass or the engine uses.
 */
#include <stddef.h>

#include "opts.h"
#include "cli.h"
#include "verify.h"
#include "engine.h"
#include "governor.h"
#include "plan.h"

#define F(field) offsetof(struct run_cfg, field)
#define TEN_YEARS_S (10 * 365 * 86400.0)

const struct cli_opt cli_scan_opts[] = {
	{ .name = "json", .type = CLI_OPT_FILE, .arg = "FILE|-", .off = F(json),
	  .section = "output",
	  .help = "write the JSON report (schema mediascan-report/1)" },
	{ .name = "html", .type = CLI_OPT_FILE, .arg = "FILE|-", .off = F(html),
	  .help = "write the HTML report: a surface map of each device, the damaged files and "
		  "metadata (one self-contained page)" },
	{ .name = "progress", .type = CLI_OPT_CHOICE, .flags = CLI_OPT_INIT,
	  .choices = "auto|bar|log|none", .def_str = "auto", .off = F(progress),
	  .help = "progress on stderr: a bar (auto: on a terminal) or one machine-readable line "
		  "a second (log)" },
	{ .name = "quiet", .short_name = 'q', .type = CLI_OPT_FLAG, .off = F(quiet),
	  .help = "no human summary" },
	{ .name = "format", .type = CLI_OPT_CHOICE, .choices = "human|xfs_scrub", .off = F(format),
	  .help = "xfs_scrub: damage as xfs_scrub -x prints it on stderr (\"Unfixable Error: "
		  "PATH: media error at data offset N length M.\") instead of the human summary" },

	{ .name = "io-size", .type = CLI_OPT_SIZE, .arg = "SIZE", .min = 512, .max = 64 << 20,
	  .align = 512, .def = SCAN_DEFAULT_IO_SIZE, .off = F(pass.io_size), .section = "I/O",
	  .hint = "give a multiple of {align} from {min} to {max}, e.g. 1M",
	  .help = "bytes per read, a multiple of {align} (default: {def}, capped by the queue's "
		  "max_sectors_kb; a size given is used as given, whole blocks; above that "
		  "limit the kernel splits it)" },
	{ .name = "queue-depth", .type = CLI_OPT_UINT, .flags = CLI_OPT_WIDE, .arg = "N",
	  .min = 1, .max = 4096, .def = PASS_DEFAULT_DEPTH, .off = F(pass.depth),
	  .help = "reads or device commands in flight (default {def})" },
	{ .name = "engine", .type = CLI_OPT_STR, .choices_fn = scan_engine_names,
	  .off = F(pass.engine),
	  .help = "I/O engine (default: the first that works)" },
	{ .name = "method", .type = CLI_OPT_STR, .flags = CLI_OPT_INIT, .arg = "M",
	  .choices_fn = vfy_method_names, .def_str = "auto", .off = F(pass.method),
	  .help = "how blocks are verified: {choices} (default {def}; mediascan probe says which "
		  "work); a drive-side verify is trusted only where it proved that it reads the "
		  "medium (timed against reads of the plan)" },
	{ .name = "trust-verify", .type = CLI_OPT_FLAG, .off = F(pass.trust_verify),
	  .help = "use a drive-side verify that failed that proof" },
	{ .name = "sample-reads", .type = CLI_OPT_SCALED, .flags = CLI_OPT_MARK, .arg = "PCT",
	  .min = 0, .max = 100, .scale = 10, .def = PASS_DEFAULT_SAMPLE_PERMILLE,
	  .off = F(pass.sample_permille), .set_off = F(pass.sample_set),
	  .hint = "a percentage from {min} to {max}",
	  .help = "also read PCT% of what a drive-side verify passed; a read that fails there "
		  "voids the method on that device and the plan is read again (default {def}, "
		  "{min} to {max})" },
	{ .name = "merge-gap", .type = CLI_OPT_SIZE, .arg = "SIZE", .max = 1 << 30,
	  .def = MAP_DEFAULT_GAP_ROTATIONAL, .off = F(pass.merge_gap),
	  .hint = "give a size up to {max}, e.g. 64k",
	  .help = "bridge gaps up to SIZE between ranges (default {def} on rotational disks, 0 "
		  "otherwise)" },
	{ .name = "io-timeout", .type = CLI_OPT_DURATION, .flags = CLI_OPT_INIT,
	  .arg = "DURATION", .max = TEN_YEARS_S, .def = PASS_DEFAULT_IO_TIMEOUT_S,
	  .off = F(pass.io_timeout_s),
	  .help = "a read slower than this is set aside; once the queue has drained it is read "
		  "again alone and narrowed: 'slow' sectors with their latency, never damage "
		  "(default {def}; 0 disables)" },
	{ .name = "max-failed-reads", .type = CLI_OPT_UINT, .flags = CLI_OPT_MARK, .arg = "N",
	  .min = 0, .max = 1000000, .def = PASS_DEFAULT_MAX_FAILED_READS,
	  .off = F(pass.max_failed_reads), .set_off = F(pass.max_failed_reads_set),
	  .help = "after N failed or late reads in a row the disk is called failing and the "
		  "scan stops (default {def}; 0 never)" },

	{ .name = "rate", .type = CLI_OPT_RATE, .arg = "SIZE[/s]", .off = F(pass.rate),
	  .section = "pacing",
	  .help = "read at most SIZE per second (fio's deadline model)" },
	{ .name = "window", .type = CLI_OPT_DURATION, .flags = CLI_OPT_POSITIVE,
	  .arg = "DURATION", .max = TEN_YEARS_S, .off = F(pass.window_s),
	  .help = "pace the pass to end within DURATION (7d, 12h, 90m)" },
	{ .name = "rate-min", .type = CLI_OPT_RATE, .arg = "SIZE[/s]",
	  .def = SCAN_GOV_FLOOR_BPS_DEFAULT, .off = F(pass.rate_min),
	  .help = "floor of the window rate and of pacing (default {def})" },
	{ .name = "rate-max", .type = CLI_OPT_RATE, .arg = "SIZE[/s]", .off = F(pass.rate_max),
	  .help = "ceiling of the window rate" },
	{ .name = "pacing", .type = CLI_OPT_CHOICE, .choices = "latency|backoff|off",
	  .off = F(pass.pacing),
	  .help = "how to yield to other I/O on the disk: latency keeps other requests' mean "
		  "time within --latency-target of theirs without the scan (default with "
		  "--window); backoff drops to --rate-min while any other I/O is seen (default "
		  "with --rate); off: the pace only" },
	{ .name = "latency-target", .type = CLI_OPT_SCALED, .arg = "X", .min = 1.01, .max = 10,
	  .scale = 100, .def = SCAN_GOV_LAT_TARGET_PCT_DEFAULT, .off = F(pass.lat_target_pct),
	  .hint = "a factor from {min} to {max} (1.25: 25% slower than alone)",
	  .help = "other requests may take X times as long (default {def})" },
	{ .name = "no-backoff", .type = CLI_OPT_FLAG, .off = F(pass.no_backoff),
	  .help = "same as --pacing off" },
	{ .name = "ioprio", .type = CLI_OPT_CHOICE, .choices = "idle|be", .off = F(pass.ioprio),
	  .help = "I/O priority class (default idle with --window, else be); only the BFQ and "
		  "mq-deadline schedulers act on it" },
	{ .name = "max-duration", .type = CLI_OPT_DURATION, .flags = CLI_OPT_POSITIVE,
	  .arg = "DURATION", .max = TEN_YEARS_S, .off = F(pass.max_duration_s),
	  .help = "stop cleanly after this long, with a checkpoint" },

	{ .name = "state-dir", .type = CLI_OPT_FILE, .flags = CLI_OPT_INIT, .arg = "DIR",
	  .def_str = REPORT_DEFAULT_STATE_DIR, .off = F(pass.state_dir), .section = "state",
	  .help = "checkpoints and history (default {def})" },
	{ .name = "resume", .type = CLI_OPT_FLAG, .off = F(pass.resume),
	  .help = "continue the interrupted pass of this target" },
	{ .name = "recheck", .type = CLI_OPT_FLAG, .off = F(pass.recheck),
	  .help = "re-read only the open errors of the history (after a restore or a drive's "
		  "reallocation): cleared when read clean" },
	{ .name = "no-state", .type = CLI_OPT_FLAG, .off = F(pass.no_state),
	  .help = "keep no checkpoints" },
	{ .name = "top-only", .type = CLI_OPT_FLAG, .off = F(pass.top_only),
	  .help = "on md RAID/LVM/dm-crypt: read the filesystem's device as md serves it, not "
		  "every copy on the member disks" },
	{ .name = "compare", .type = CLI_OPT_FLAG, .off = F(pass.compare),
	  .help = "on md RAID/LVM raid: compare the copies (mirrors, parity, RAID6 P and Q) "
		  "read at member level; differing copies are named with their files" },
	{ .name = "no-compare", .type = CLI_OPT_FLAG, .off = F(pass.no_compare),
	  .help = "do not compare the copies (the default of scan; patrol compares when the "
		  "machine has 2 CPUs or more)" },
};
const size_t cli_scan_nr_opts = sizeof(cli_scan_opts) / sizeof(cli_scan_opts[0]);

const struct cli_opts cli_scan_cmd_opts = {
	.cmd = "scan",
	.opts = cli_scan_opts,
	.nr = sizeof(cli_scan_opts) / sizeof(cli_scan_opts[0]),
	.synopsis = "usage: mediascan scan TARGET [options]\n"
		    "  TARGET                 mount point of an XFS or ext4 filesystem, or a block "
		    "device\n"
		    "                         (a disk's partitions are planned through their mounted\n"
		    "                         filesystems; the rest is read whole)\n",
};
