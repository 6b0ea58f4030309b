/*
 * cli/scan_cmd.c - `mediascan scan TARGET`: parse options, plan, scan, map, report.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "units.h"
#include "verify.h"
#include "engine.h"

#define DEFAULT_IO_SIZE (1024 * 1024)
#define DEFAULT_DEPTH 16
#define MAX_DEPTH 4096

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	fputs("mediascan: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void scan_usage(FILE *f)
{
	fprintf(f,
		"usage: mediascan scan TARGET [options]\n"
		"  TARGET                 mount point of an XFS filesystem, or a block device\n"
		"  --json FILE|-          write the JSON report (schema mediascan-report/1)\n"
		"  --io-size SIZE         bytes per read (default: 1M, capped by the queue limits)\n"
		"  --queue-depth N        reads in flight (default %d)\n"
		"  --engine uring|aio|sync  I/O engine (default: the first that works)\n"
		"  --method auto|read     how blocks are verified (default auto)\n"
		"  --merge-gap SIZE       bridge gaps up to SIZE between ranges (default 64k on\n"
		"                         rotational disks, 0 otherwise)\n"
		"  --progress auto|bar|none  progress bar on stderr (auto: when it is a terminal)\n"
		"  -q, --quiet            no human summary\n"
		"exit status: 0 clean, 1 media errors, 2 integrity errors, 4 operational error,\n"
		"             8 usage error (bits may combine)\n",
		DEFAULT_DEPTH);
}

struct scan_args {
	const char *target;
	const char *json;
	const char *engine;
	const char *method;
	const char *progress;
	uint64_t io_size;
	uint64_t depth;
	uint64_t merge_gap;
	int quiet;
};

/* Return 0, or CLI_EXIT_USAGE after printing why. */
static int parse_args(int argc, char **argv, struct scan_args *a)
{
	enum { O_JSON = 256, O_IOSIZE, O_DEPTH, O_ENGINE, O_METHOD, O_GAP, O_PROGRESS };
	static const struct option opts[] = {
		{ "json", required_argument, NULL, O_JSON },
		{ "io-size", required_argument, NULL, O_IOSIZE },
		{ "queue-depth", required_argument, NULL, O_DEPTH },
		{ "engine", required_argument, NULL, O_ENGINE },
		{ "method", required_argument, NULL, O_METHOD },
		{ "merge-gap", required_argument, NULL, O_GAP },
		{ "progress", required_argument, NULL, O_PROGRESS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->merge_gap = (uint64_t)-1;
	a->progress = "auto";
	a->method = "auto";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case O_JSON:
			a->json = optarg;
			break;
		case O_IOSIZE:
			if (cli_parse_size(optarg, &a->io_size) || a->io_size < 512 ||
			    a->io_size > 64ull << 20) {
				cli_err("bad --io-size '%s': give a size from 512 to 64M, e.g. 1M",
					optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case O_DEPTH: {
			char *end;

			errno = 0;
			a->depth = strtoull(optarg, &end, 10);
			if (errno || *end || end == optarg || a->depth < 1 ||
			    a->depth > MAX_DEPTH) {
				cli_err("bad --queue-depth '%s': give a number from 1 to %d", optarg,
					MAX_DEPTH);
				return CLI_EXIT_USAGE;
			}
			break;
		}
		case O_ENGINE:
			a->engine = optarg;
			break;
		case O_METHOD:
			a->method = optarg;
			break;
		case O_GAP:
			if (cli_parse_size(optarg, &a->merge_gap) || a->merge_gap > 1ull << 30) {
				cli_err("bad --merge-gap '%s': give a size up to 1G, e.g. 64k", optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case O_PROGRESS:
			if (strcmp(optarg, "auto") && strcmp(optarg, "bar") &&
			    strcmp(optarg, "none")) {
				cli_err("bad --progress '%s': choose auto, bar or none", optarg);
				return CLI_EXIT_USAGE;
			}
			a->progress = optarg;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'h':
			scan_usage(stdout);
			exit(0);
		default:
			cli_err("scan: unknown or incomplete option '%s' (see mediascan scan --help)",
				argv[optind - 1]);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		cli_err(optind >= argc ? "scan: name a mount point or block device to scan" :
			"scan: one target only, got '%s' too (see mediascan scan --help)",
			optind >= argc ? "" : argv[optind + 1]);
		return CLI_EXIT_USAGE;
	}
	a->target = argv[optind];
	return 0;
}

/* The plan as a scan_source. */
static int plan_source_next(void *arg, struct map_range *out, unsigned max)
{
	return map_plan_next(arg, out, max);
}

/* Default I/O size: 1 MiB within the device's queue limit, a multiple of its block size. */
static uint32_t pick_io_size(const struct map_target *t, uint64_t asked)
{
	uint64_t io = asked ? asked : DEFAULT_IO_SIZE;
	uint32_t lbs = 512;

	for (unsigned i = 0; i < t->nr_devices; i++) {
		const struct kio_bdev_info *bi = &t->devices[i].info;

		if (!asked && bi->max_sectors_kb && io > (uint64_t)bi->max_sectors_kb * 1024)
			io = (uint64_t)bi->max_sectors_kb * 1024;
		if (bi->logical_block_size > lbs)
			lbs = bi->logical_block_size;
	}
	io -= io % lbs;
	return (uint32_t)(io ? io : lbs);
}

int cli_scan_main(int argc, char **argv)
{
	struct scan_args a;
	struct map_target t;
	struct map_plan_opts po;
	struct map_plan *plan = NULL;
	struct scan_device devs[SCAN_MAX_DEVICES];
	struct scan_source src;
	struct scan_opts so;
	struct scan_result r;
	struct cli_progress pr = { 0 };
	struct cli_report rep;
	const struct vfy_method *method;
	char err[1024] = "";
	int ret, err_class, status;
	struct sigaction sa;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret;
	if (a.engine && !scan_engine_pick(a.engine, err, sizeof(err), NULL, 0) &&
	    strncmp(err, "unknown", 7) == 0) {
		cli_err("bad --engine: %s", err);
		return CLI_EXIT_USAGE;
	}
	method = vfy_method_pick(a.method, err, sizeof(err));
	if (!method) {
		cli_err("bad --method: %s", err);
		return CLI_EXIT_USAGE;
	}
	ret = map_target_open(a.target, &t, err, sizeof(err), &err_class);
	if (ret < 0) {
		cli_err("%s", err);
		return err_class == MAP_TERR_USAGE ? CLI_EXIT_USAGE : CLI_EXIT_OPERATIONAL;
	}
	if (geteuid() != 0 && t.mount_fd >= 0) {
		cli_err("scanning a filesystem needs root (GETFSMAP needs CAP_SYS_ADMIN)");
		map_target_close(&t);
		return CLI_EXIT_OPERATIONAL;
	}

	memset(&po, 0, sizeof(po));
	po.merge_gap = a.merge_gap;
	memset(&so, 0, sizeof(so));
	so.io_size = pick_io_size(&t, a.io_size);
	so.depth = a.depth ? (unsigned)a.depth : DEFAULT_DEPTH;
	so.engine = a.engine;
	so.isolate_step_bytes = 16 * 4096;
	so.stop = &stop_requested;
	ret = map_plan_count(&t, &po, &so.planned_total, NULL);
	if (ret < 0) {
		cli_err("cannot plan %s: reading the space map (GETFSMAP) failed: %s", a.target,
			strerror(-ret));
		map_target_close(&t);
		return CLI_EXIT_OPERATIONAL;
	}
	pr.enabled = strcmp(a.progress, "bar") == 0 ||
		     (strcmp(a.progress, "auto") == 0 && isatty(STDERR_FILENO));
	so.progress = cli_progress_cb;
	so.progress_arg = &pr;
	for (unsigned i = 0; i < t.nr_devices; i++) {
		devs[i].fd = t.devices[i].fd;
		devs[i].logical_block_size = t.devices[i].info.logical_block_size;
	}
	ret = map_plan_open(&t, &po, &plan);
	if (ret < 0) {
		cli_err("cannot plan %s: %s", a.target, strerror(-ret));
		map_target_close(&t);
		return CLI_EXIT_OPERATIONAL;
	}
	src.next = plan_source_next;
	src.arg = plan;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (!a.quiet && !(a.json && strcmp(a.json, "-") == 0)) {
		char sz[32];

		printf("mediascan: scanning %s (%s", t.mount_point[0] ? t.mount_point : t.arg,
		       t.fs_type);
		for (unsigned i = 0; i < t.nr_devices; i++)
			printf("%s %s %s", i ? "," : " on", map_role_name(t.devices[i].role),
			       t.devices[i].path);
		printf("): %s planned, method %s\n",
		       cli_fmt_bytes(so.planned_total, sz, sizeof(sz)), method->name);
		fflush(stdout);
	}
	memset(&r, 0, sizeof(r));
	ret = scan_run(devs, t.nr_devices, &src, &so, &r);
	cli_progress_done(&pr);
	map_plan_close(plan);
	if (ret < 0) {
		cli_err("%s", r.fatal_msg[0] ? r.fatal_msg : strerror(-ret));
		map_target_close(&t);
		return CLI_EXIT_OPERATIONAL;
	}
	if (stop_requested && !r.fatal_msg[0])
		snprintf(r.fatal_msg, sizeof(r.fatal_msg), "interrupted by a signal");

	memset(&rep, 0, sizeof(rep));
	rep.t = &t;
	rep.r = &r;
	rep.method = method->name;
	ret = cli_report_build(&rep);
	if (ret < 0) {
		cli_err("mapping the errors to their owners failed: %s", strerror(-ret));
		rep.exit_bits |= CLI_EXIT_OPERATIONAL;
	}
	if (a.json) {
		ret = cli_report_write_json(&rep, a.json);
		if (ret < 0) {
			cli_err("cannot write the JSON report to %s: %s", a.json, strerror(-ret));
			rep.exit_bits |= CLI_EXIT_OPERATIONAL;
		}
	}
	if (!a.quiet && !(a.json && strcmp(a.json, "-") == 0))
		cli_report_print(&rep, stdout);
	status = (int)rep.exit_bits;
	cli_report_free(&rep);
	scan_result_free(&r);
	map_target_close(&t);
	return status;
}
