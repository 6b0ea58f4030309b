/*
 * cli/scan_cmd.c - `mediascan scan TARGET`: parse options into a struct run_cfg and run
 * it with run_scan() (run/scan.c).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "exits.h"
#include "units.h"
#include "verify.h"
#include "engine.h"
#include "state.h"

#define MAX_DEPTH 4096
#define DEFAULT_STATE_DIR REPORT_DEFAULT_STATE_DIR

static void scan_usage(FILE *f)
{
	fprintf(f,
		"usage: mediascan scan TARGET [options]\n"
		"  TARGET                 mount point of an XFS or ext4 filesystem, or a block device\n"
		"                         (a disk's partitions are planned through their mounted\n"
		"                         filesystems; the rest is read whole)\n"
		"output:\n"
		"  --json FILE|-          write the JSON report (schema mediascan-report/1)\n"
		"  --html FILE|-          write the HTML report: a surface map of each device, the\n"
		"                         damaged files and metadata (one self-contained page)\n"
		"  --progress auto|bar|log|none  progress on stderr: a bar (auto: on a terminal)\n"
		"                         or one machine-readable line a second (log)\n"
		"  -q, --quiet            no human summary\n"
		"  --format human|xfs_scrub  xfs_scrub: damage as xfs_scrub -x prints it on stderr\n"
		"                         (\"Unfixable Error: PATH: media error at data offset N\n"
		"                         length M.\") instead of the human summary\n"
		"I/O:\n"
		"  --io-size SIZE         bytes per read, a multiple of 512 (default: 1M, capped by\n"
		"                         the queue's max_sectors_kb; a size given is used as given,\n"
		"                         whole blocks; above that limit the kernel splits it)\n"
		"  --queue-depth N        reads or device commands in flight (default %d)\n"
		"  --engine %-14s I/O engine (default: the first that works)\n"
		"  --method M             how blocks are verified: auto (default), read, ata-read,\n"
		"                         nvme-verify, scsi-verify, pi-read, xfs-verify (mediascan\n"
		"                         probe says which work);\n"
		"                         a drive-side verify is trusted only where it proved that\n"
		"                         it reads the medium (timed against reads of the plan)\n"
		"  --trust-verify         use a drive-side verify that failed that proof\n"
		"  --sample-reads PCT     also read PCT%% of what a drive-side verify passed; a read\n"
		"                         that fails there voids the method on that device and the\n"
		"                         plan is read again (default 1, 0 to 100)\n"
		"  --merge-gap SIZE       bridge gaps up to SIZE between ranges (default 64k on\n"
		"                         rotational disks, 0 otherwise)\n"
		"  --io-timeout DURATION  a read slower than this is set aside; once the queue has\n"
		"                         drained it is read again alone and narrowed: 'slow' sectors\n"
		"                         with their latency, never damage (default 30s; 0 disables)\n"
		"  --max-failed-reads N   after N failed or late reads in a row the disk is called\n"
		"                         failing and the scan stops (default %d; 0 never)\n"
		"pacing:\n"
		"  --rate SIZE[/s]        read at most SIZE per second (fio's deadline model)\n"
		"  --window DURATION      pace the pass to end within DURATION (7d, 12h, 90m)\n"
		"  --rate-min SIZE[/s]    floor of the window rate and of pacing (default 1M)\n"
		"  --rate-max SIZE[/s]    ceiling of the window rate\n"
		"  --pacing latency|backoff|off  how to yield to other I/O on the disk: latency\n"
		"                         keeps other requests' mean time within --latency-target\n"
		"                         of theirs without the scan (default with --window);\n"
		"                         backoff drops to --rate-min while any other I/O is seen\n"
		"                         (default with --rate); off: the pace only\n"
		"  --latency-target X     other requests may take X times as long (default 1.25)\n"
		"  --no-backoff           same as --pacing off\n"
		"  --ioprio idle|be       I/O priority class (default idle with --window, else be);\n"
		"                         only the BFQ and mq-deadline schedulers act on it\n"
		"  --max-duration DURATION  stop cleanly after this long, with a checkpoint\n"
		"state:\n"
		"  --state-dir DIR        checkpoints and history (default " DEFAULT_STATE_DIR ")\n"
		"  --resume               continue the interrupted pass of this target\n"
		"  --recheck              re-read only the open errors of the history (after a\n"
		"                         restore or a drive's reallocation): cleared when read clean\n"
		"  --no-state             keep no checkpoints\n"
		"  --top-only             on md RAID/LVM/dm-crypt: read the filesystem's device as\n"
		"                         md serves it, not every copy on the member disks\n",
		PASS_DEFAULT_DEPTH, scan_engine_names(), REPORT_DEFAULT_MAX_FAILED_READS);
	report_print_exits(f, "scan");
}

/* Return 0, or REPORT_EXIT_USAGE after printing why. */
static int parse_args(int argc, char **argv, struct run_cfg *a)
{
	enum {
		O_JSON = 256, O_IOSIZE, O_DEPTH, O_ENGINE, O_METHOD, O_GAP, O_PROGRESS, O_RATE,
		O_WINDOW, O_RATE_MIN, O_RATE_MAX, O_NO_BACKOFF, O_MAXDUR, O_IOTIMEOUT, O_IOPRIO,
		O_STATE_DIR, O_RESUME, O_NO_STATE, O_TOP_ONLY, O_FORMAT, O_MAX_FAILED, O_RECHECK,
		O_HTML, O_PACING, O_LAT_TARGET, O_TRUST_VERIFY, O_SAMPLE_READS,
	};
	static const struct option opts[] = {
		{ "json", required_argument, NULL, O_JSON },
		{ "html", required_argument, NULL, O_HTML },
		{ "io-size", required_argument, NULL, O_IOSIZE },
		{ "queue-depth", required_argument, NULL, O_DEPTH },
		{ "engine", required_argument, NULL, O_ENGINE },
		{ "method", required_argument, NULL, O_METHOD },
		{ "trust-verify", no_argument, NULL, O_TRUST_VERIFY },
		{ "sample-reads", required_argument, NULL, O_SAMPLE_READS },
		{ "merge-gap", required_argument, NULL, O_GAP },
		{ "progress", required_argument, NULL, O_PROGRESS },
		{ "rate", required_argument, NULL, O_RATE },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "rate-min", required_argument, NULL, O_RATE_MIN },
		{ "rate-max", required_argument, NULL, O_RATE_MAX },
		{ "no-backoff", no_argument, NULL, O_NO_BACKOFF },
		{ "pacing", required_argument, NULL, O_PACING },
		{ "latency-target", required_argument, NULL, O_LAT_TARGET },
		{ "max-duration", required_argument, NULL, O_MAXDUR },
		{ "io-timeout", required_argument, NULL, O_IOTIMEOUT },
		{ "max-failed-reads", required_argument, NULL, O_MAX_FAILED },
		{ "ioprio", required_argument, NULL, O_IOPRIO },
		{ "state-dir", required_argument, NULL, O_STATE_DIR },
		{ "resume", no_argument, NULL, O_RESUME },
		{ "recheck", no_argument, NULL, O_RECHECK },
		{ "no-state", no_argument, NULL, O_NO_STATE },
		{ "top-only", no_argument, NULL, O_TOP_ONLY },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->pass.merge_gap = (uint64_t)-1;
	a->progress = "auto";
	a->pass.method = "auto";
	a->pass.state_dir = DEFAULT_STATE_DIR;
	a->pass.io_timeout_s = PASS_DEFAULT_IO_TIMEOUT_S;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case O_JSON:
			a->json = optarg;
			break;
		case O_HTML:
			a->html = optarg;
			break;
		case O_IOSIZE:
			if (report_parse_size(optarg, &a->pass.io_size) || a->pass.io_size < 512 ||
			    a->pass.io_size > 64ull << 20 || a->pass.io_size % 512) {
				report_err("bad --io-size '%s': give a multiple of 512 from 512 to 64M, "
					"e.g. 1M", optarg);
				return REPORT_EXIT_USAGE;
			}
			break;
		case O_MAX_FAILED: {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || *end || end == optarg || optarg[0] == '-' || v > 1000000) {
				report_err("bad --max-failed-reads '%s': give a number from 0 to 1000000",
					optarg);
				return REPORT_EXIT_USAGE;
			}
			a->pass.max_failed_reads = (unsigned)v;
			a->pass.max_failed_reads_set = 1;
			break;
		}
		case O_DEPTH: {
			char *end;

			errno = 0;
			a->pass.depth = strtoull(optarg, &end, 10);
			if (errno || *end || end == optarg || a->pass.depth < 1 ||
			    a->pass.depth > MAX_DEPTH) {
				report_err("bad --queue-depth '%s': give a number from 1 to %d", optarg,
					MAX_DEPTH);
				return REPORT_EXIT_USAGE;
			}
			break;
		}
		case O_ENGINE:
			a->pass.engine = optarg;
			break;
		case O_METHOD:
			a->pass.method = optarg;
			break;
		case O_GAP:
			if (report_parse_size(optarg, &a->pass.merge_gap) || a->pass.merge_gap > 1ull << 30) {
				report_err("bad --merge-gap '%s': give a size up to 1G, e.g. 64k", optarg);
				return REPORT_EXIT_USAGE;
			}
			break;
		case O_PROGRESS:
			if (strcmp(optarg, "auto") && strcmp(optarg, "bar") &&
			    strcmp(optarg, "log") && strcmp(optarg, "none")) {
				report_err("bad --progress '%s': choose auto, bar, log or none", optarg);
				return REPORT_EXIT_USAGE;
			}
			a->progress = optarg;
			break;
		case O_RATE:
		case O_RATE_MIN:
		case O_RATE_MAX: {
			uint64_t *dst = c == O_RATE ? &a->pass.rate : c == O_RATE_MIN ? &a->pass.rate_min :
				       &a->pass.rate_max;

			if (report_parse_rate(optarg, dst)) {
				report_err(
				    "bad --%s '%s': give bytes per second, e.g. 50M or 50M/s",
				    c == O_RATE	      ? "rate"
				    : c == O_RATE_MIN ? "rate-min"
						      : "rate-max",
				    optarg);
				return REPORT_EXIT_USAGE;
			}
			break;
		}
		case O_WINDOW:
		case O_MAXDUR:
		case O_IOTIMEOUT: {
			double *dst = c == O_WINDOW ? &a->pass.window_s : c == O_MAXDUR ?
				      &a->pass.max_duration_s : &a->pass.io_timeout_s;
			const char *name = c == O_WINDOW ? "window" : c == O_MAXDUR ?
					   "max-duration" : "io-timeout";

			if (report_parse_duration(optarg, dst) ||
			    (*dst <= 0 && c != O_IOTIMEOUT) || *dst > 10 * 365 * 86400.0) {
				report_err(
				    "bad --%s '%s': give a duration such as 30s, 90m, 12h, 7d",
				    name, optarg);
				return REPORT_EXIT_USAGE;
			}
			break;
		}
		case O_NO_BACKOFF:
			a->pass.no_backoff = 1;
			break;
		case O_PACING:
			if (strcmp(optarg, "latency") && strcmp(optarg, "backoff") &&
			    strcmp(optarg, "off")) {
				report_err("bad --pacing '%s': choose latency, backoff or off", optarg);
				return REPORT_EXIT_USAGE;
			}
			a->pass.pacing = optarg;
			break;
		case O_LAT_TARGET: {
			char *end;
			double x = strtod(optarg, &end);

			if (end == optarg || *end || !(x >= 1.01 && x <= 10)) {
				report_err("bad --latency-target '%s': a factor from 1.01 to 10 (1.25: "
					"25%% slower than alone)", optarg);
				return REPORT_EXIT_USAGE;
			}
			a->pass.lat_target_pct = (unsigned)(x * 100 + 0.5);
			break;
		}
		case O_IOPRIO:
			if (strcmp(optarg, "idle") && strcmp(optarg, "be")) {
				report_err("bad --ioprio '%s': choose idle or be", optarg);
				return REPORT_EXIT_USAGE;
			}
			a->pass.ioprio = optarg;
			break;
		case O_STATE_DIR:
			a->pass.state_dir = optarg;
			break;
		case O_RECHECK:
			a->pass.recheck = 1;
			break;
		case O_RESUME:
			a->pass.resume = 1;
			break;
		case O_TOP_ONLY:
			a->pass.top_only = 1;
			break;
		case O_TRUST_VERIFY:
			a->pass.trust_verify = 1;
			break;
		case O_SAMPLE_READS: {
			char *end;
			double pct = strtod(optarg, &end);

			if (end == optarg || *end || !(pct >= 0 && pct <= 100)) {
				report_err("bad --sample-reads '%s': a percentage from 0 to 100",
					   optarg);
				return REPORT_EXIT_USAGE;
			}
			a->pass.sample_permille = (unsigned)(pct * 10 + 0.5);
			a->pass.sample_set = 1;
			break;
		}
		case O_NO_STATE:
			a->pass.no_state = 1;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case O_FORMAT:
			if (strcmp(optarg, "human") && strcmp(optarg, "xfs_scrub")) {
				report_err("bad --format '%s': choose human or xfs_scrub", optarg);
				return REPORT_EXIT_USAGE;
			}
			a->format = optarg;
			break;
		case 'h':
			scan_usage(stdout);
			exit(0);
		default:
			report_err("scan: unknown or incomplete option '%s' (see mediascan scan --help)",
				argv[optind - 1]);
			return REPORT_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		report_err(optind >= argc ? "scan: name a mount point or block device to scan" :
			"scan: one target only, got '%s' too (see mediascan scan --help)",
			optind >= argc ? "" : argv[optind + 1]);
		return REPORT_EXIT_USAGE;
	}
	if (a->pass.rate && a->pass.window_s) {
		report_err(
		    "--rate and --window exclude each other (bound a window with --rate-max)");
		return REPORT_EXIT_USAGE;
	}
	if (a->pass.rate_min && a->pass.rate_max && a->pass.rate_min > a->pass.rate_max) {
		report_err("--rate-min is above --rate-max");
		return REPORT_EXIT_USAGE;
	}
	if (a->pass.resume && a->pass.no_state) {
		report_err("--resume needs the state store; drop --no-state");
		return REPORT_EXIT_USAGE;
	}
	if (a->pass.recheck && (a->pass.no_state || a->pass.resume)) {
		report_err("--recheck re-reads the open errors of the history: not with --%s",
			a->pass.no_state ? "no-state" : "resume");
		return REPORT_EXIT_USAGE;
	}
	if (a->html && a->json && strcmp(a->html, "-") == 0 && strcmp(a->json, "-") == 0) {
		report_err("--json - and --html - both name stdout: give one of them a FILE");
		return REPORT_EXIT_USAGE;
	}
	if (a->html && strcmp(a->html, "-") == 0)
		a->quiet = 1;			/* stdout holds the page */
	a->pass.target = argv[optind];
	return 0;
}

int cli_scan_main(int argc, char **argv)
{
	struct run_cfg a;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret;
	return run_scan(&a);
}
