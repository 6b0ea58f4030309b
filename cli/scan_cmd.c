/*
 * cli/scan_cmd.c - `mediascan scan TARGET`: parse options, plan, scan (paced, checkpointed,
 * resumable), map the errors to their owners, report.
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
#include "state.h"

#define DEFAULT_IO_SIZE (1024 * 1024)
#define DEFAULT_DEPTH 16
#define MAX_DEPTH 4096
#define DEFAULT_IO_TIMEOUT_S 30.0
#define DEFAULT_STATE_DIR "/var/lib/mediascan"
#define CHECKPOINT_INTERVAL_NS 5000000000ull	/* after SIGKILL at most this much is re-read */

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
		"                         (a device without a mounted filesystem is read whole)\n"
		"output:\n"
		"  --json FILE|-          write the JSON report (schema mediascan-report/1)\n"
		"  --progress auto|bar|log|none  progress on stderr: a bar (auto: on a terminal)\n"
		"                         or one machine-readable line a second (log)\n"
		"  -q, --quiet            no human summary\n"
		"I/O:\n"
		"  --io-size SIZE         bytes per read (default: 1M, capped by the queue limits)\n"
		"  --queue-depth N        reads in flight (default %d)\n"
		"  --engine %-14s I/O engine (default: the first that works)\n"
		"  --method auto|read     how blocks are verified (default auto)\n"
		"  --merge-gap SIZE       bridge gaps up to SIZE between ranges (default 64k on\n"
		"                         rotational disks, 0 otherwise)\n"
		"  --io-timeout DURATION  a read slower than this is reported as 'timeout' and the\n"
		"                         scan goes on (default 30s; 0 disables)\n"
		"pacing:\n"
		"  --rate SIZE[/s]        read at most SIZE per second (fio's deadline model)\n"
		"  --window DURATION      pace the pass to end within DURATION (7d, 12h, 90m)\n"
		"  --rate-min SIZE[/s]    floor of the window rate, and the rate while backing off\n"
		"  --rate-max SIZE[/s]    ceiling of the window rate\n"
		"  --no-backoff           do not slow down when other I/O hits the disk (backoff is\n"
		"                         on by default with --rate or --window)\n"
		"  --ioprio idle|be       I/O priority class (default idle with --window, else be);\n"
		"                         only the BFQ scheduler acts on it\n"
		"  --max-duration DURATION  stop cleanly after this long, with a checkpoint\n"
		"state:\n"
		"  --state-dir DIR        checkpoints and history (default " DEFAULT_STATE_DIR ")\n"
		"  --resume               continue the interrupted pass of this target\n"
		"  --no-state             keep no checkpoints\n"
		"exit status: 0 clean, 1 media errors, 2 integrity errors, 4 operational error,\n"
		"             8 usage error (bits may combine)\n",
		DEFAULT_DEPTH, scan_engine_names());
}

struct scan_args {
	const char *target;
	const char *json;
	const char *engine;
	const char *method;
	const char *progress;
	const char *state_dir;
	const char *ioprio;
	uint64_t io_size;
	uint64_t depth;
	uint64_t merge_gap;
	uint64_t rate, rate_min, rate_max;
	double window_s, max_duration_s, io_timeout_s;
	int no_backoff;
	int resume;
	int no_state;
	int quiet;
};

/* Parse "50M" or "50M/s" into bytes per second; 0 or -EINVAL. */
static int parse_rate(const char *s, uint64_t *bps)
{
	char buf[64];
	size_t n = strlen(s);

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	if (n > 2 && strcmp(buf + n - 2, "/s") == 0)
		buf[n - 2] = '\0';
	if (cli_parse_size(buf, bps) < 0 || *bps == 0)
		return -EINVAL;
	return 0;
}

/* Return 0, or CLI_EXIT_USAGE after printing why. */
static int parse_args(int argc, char **argv, struct scan_args *a)
{
	enum {
		O_JSON = 256, O_IOSIZE, O_DEPTH, O_ENGINE, O_METHOD, O_GAP, O_PROGRESS, O_RATE,
		O_WINDOW, O_RATE_MIN, O_RATE_MAX, O_NO_BACKOFF, O_MAXDUR, O_IOTIMEOUT, O_IOPRIO,
		O_STATE_DIR, O_RESUME, O_NO_STATE,
	};
	static const struct option opts[] = {
		{ "json", required_argument, NULL, O_JSON },
		{ "io-size", required_argument, NULL, O_IOSIZE },
		{ "queue-depth", required_argument, NULL, O_DEPTH },
		{ "engine", required_argument, NULL, O_ENGINE },
		{ "method", required_argument, NULL, O_METHOD },
		{ "merge-gap", required_argument, NULL, O_GAP },
		{ "progress", required_argument, NULL, O_PROGRESS },
		{ "rate", required_argument, NULL, O_RATE },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "rate-min", required_argument, NULL, O_RATE_MIN },
		{ "rate-max", required_argument, NULL, O_RATE_MAX },
		{ "no-backoff", no_argument, NULL, O_NO_BACKOFF },
		{ "max-duration", required_argument, NULL, O_MAXDUR },
		{ "io-timeout", required_argument, NULL, O_IOTIMEOUT },
		{ "ioprio", required_argument, NULL, O_IOPRIO },
		{ "state-dir", required_argument, NULL, O_STATE_DIR },
		{ "resume", no_argument, NULL, O_RESUME },
		{ "no-state", no_argument, NULL, O_NO_STATE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->merge_gap = (uint64_t)-1;
	a->progress = "auto";
	a->method = "auto";
	a->state_dir = DEFAULT_STATE_DIR;
	a->io_timeout_s = DEFAULT_IO_TIMEOUT_S;
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
			    strcmp(optarg, "log") && strcmp(optarg, "none")) {
				cli_err("bad --progress '%s': choose auto, bar, log or none", optarg);
				return CLI_EXIT_USAGE;
			}
			a->progress = optarg;
			break;
		case O_RATE:
		case O_RATE_MIN:
		case O_RATE_MAX: {
			uint64_t *dst = c == O_RATE ? &a->rate : c == O_RATE_MIN ? &a->rate_min :
				       &a->rate_max;

			if (parse_rate(optarg, dst)) {
				cli_err("bad --%s '%s': give bytes per second, e.g. 50M or 50M/s",
					c == O_RATE ? "rate" : c == O_RATE_MIN ? "rate-min" :
					"rate-max", optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		}
		case O_WINDOW:
		case O_MAXDUR:
		case O_IOTIMEOUT: {
			double *dst = c == O_WINDOW ? &a->window_s : c == O_MAXDUR ?
				      &a->max_duration_s : &a->io_timeout_s;
			const char *name = c == O_WINDOW ? "window" : c == O_MAXDUR ?
					   "max-duration" : "io-timeout";

			if (cli_parse_duration(optarg, dst) ||
			    (*dst <= 0 && c != O_IOTIMEOUT) || *dst > 10 * 365 * 86400.0) {
				cli_err("bad --%s '%s': give a duration such as 30s, 90m, 12h, 7d",
					name, optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		}
		case O_NO_BACKOFF:
			a->no_backoff = 1;
			break;
		case O_IOPRIO:
			if (strcmp(optarg, "idle") && strcmp(optarg, "be")) {
				cli_err("bad --ioprio '%s': choose idle or be", optarg);
				return CLI_EXIT_USAGE;
			}
			a->ioprio = optarg;
			break;
		case O_STATE_DIR:
			a->state_dir = optarg;
			break;
		case O_RESUME:
			a->resume = 1;
			break;
		case O_NO_STATE:
			a->no_state = 1;
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
	if (a->rate && a->window_s) {
		cli_err("--rate and --window exclude each other (bound a window with --rate-max)");
		return CLI_EXIT_USAGE;
	}
	if (a->rate_min && a->rate_max && a->rate_min > a->rate_max) {
		cli_err("--rate-min is above --rate-max");
		return CLI_EXIT_USAGE;
	}
	if (a->resume && a->no_state) {
		cli_err("--resume needs the state store; drop --no-state");
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

/* The disk statistics views that show this target's I/O: each device and its whole disk. */
static void pick_views(const struct map_target *t, struct scan_opts *so)
{
	for (unsigned d = 0; d < t->nr_devices; d++) {
		const struct kio_bdev_info *bi = &t->devices[d].info;
		const char *names[2] = { bi->name, bi->is_partition ? bi->disk_name : NULL };

		for (unsigned k = 0; k < 2 && names[k] && names[k][0]; k++) {
			unsigned v;

			for (v = 0; v < so->nr_views; v++)
				if (strcmp(so->views[v].name, names[k]) == 0)
					break;
			if (v == so->nr_views) {
				if (v == SCAN_GOV_MAX_VIEWS)
					continue;
				snprintf(so->views[v].name, sizeof(so->views[v].name), "%s",
					 names[k]);
				so->nr_views++;
			}
			so->views[v].dev_mask |= 1u << d;
		}
	}
}

/* The key under which the state store knows this target: filesystem UUID and devices. */
static void target_key(const struct map_target *t, char *key, size_t len)
{
	size_t n;

	if (t->fs != MAP_FS_NONE)
		n = (size_t)snprintf(key, len, "%s:%s:", t->fs_type, t->uuid);
	else
		n = (size_t)snprintf(key, len, "device:%llu:",
				     (unsigned long long)t->devices[0].info.size_bytes);
	for (unsigned i = 0; i < t->nr_devices && n < len; i++)
		n += (size_t)snprintf(key + n, len - n, "%s%s", i ? "," : "", t->devices[i].path);
}

struct ckpt_ctx {
	struct scan_state *st;
	int64_t pass_id;
	const char *dev_paths[MAP_MAX_DEVICES];
	int warned;
};

static int on_checkpoint(const struct scan_checkpoint *c, void *arg)
{
	struct ckpt_ctx *k = arg;
	int ret = scan_state_checkpoint(k->st, k->pass_id, c->cursor, c->nr_devs,
					c->scanned_bytes, c->new_errors, c->nr_new_errors,
					k->dev_paths);

	if (ret < 0 && !k->warned) {
		/* A full /var must not stop a media scan: warn once, keep scanning. */
		cli_err("warning: checkpoint not saved (%s): %s", strerror(-ret),
			scan_state_errmsg(k->st));
		k->warned = 1;
	}
	return 0;
}

struct load_ctx {
	struct scan_result *r;
	const struct map_target *t;
	const uint64_t *cursor;
};

/* Keep an error found before the interruption when its range lies below the cursor. */
static int on_loaded_error(const struct scan_error *e, const char *device, void *arg)
{
	struct load_ctx *l = arg;
	struct scan_error copy = *e;

	for (unsigned d = 0; d < l->t->nr_devices; d++) {
		if (strcmp(l->t->devices[d].path, device) != 0)
			continue;
		if (e->offset >= l->cursor[d])
			return 0;		/* will be read again in this run */
		copy.dev_idx = d;
		return scan_result_add(l->r, &copy);
	}
	return 0;				/* a device no longer part of the target */
}

/* Set up the state store and the pass; 0, or -errno after a warning (scan without state). */
static int open_state(const struct scan_args *a, const struct map_target *t,
		      const struct vfy_method *method, struct scan_opts *so,
		      struct map_plan_opts *po, struct scan_result *r, struct ckpt_ctx *k,
		      int *resumed)
{
	char warn[512] = "", key[8192];
	uint64_t cursor[MAP_MAX_DEVICES] = { 0 };
	struct scan_state_pass pass;
	int ret;

	*resumed = 0;
	ret = scan_state_open(a->state_dir, &k->st, warn, sizeof(warn));
	if (warn[0])
		cli_err("warning: %s", warn);
	if (ret < 0)
		return ret;
	target_key(t, key, sizeof(key));
	for (unsigned d = 0; d < t->nr_devices; d++)
		k->dev_paths[d] = t->devices[d].path;
	if (a->resume) {
		ret = scan_state_find_resumable(k->st, key, &k->pass_id, cursor, t->nr_devices);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			ret = scan_state_resume(k->st, k->pass_id);
			if (ret < 0)
				return ret;
			if (scan_state_get_pass(k->st, k->pass_id, &pass) == 0)
				so->scanned_base = pass.scanned_bytes;
			for (unsigned d = 0; d < t->nr_devices; d++) {
				po->start_offset[d] = cursor[d];
				so->start_cursor[d] = cursor[d];
			}
			struct load_ctx l = { .r = r, .t = t, .cursor = cursor };
			ret = scan_state_load_errors(k->st, k->pass_id, on_loaded_error, &l);
			if (ret < 0)
				return ret;
			*resumed = 1;
			return 0;
		}
		if (!a->quiet)
			printf("mediascan: no interrupted pass of %s to resume; starting a new "
			       "pass\n", a->target);
	}
	return scan_state_begin_pass(k->st, key, t->mount_point[0] ? t->mount_point : t->arg,
				     t->fs_type, so->planned_total, method->name,
				     a->engine ? a->engine : "auto", &k->pass_id);
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
	struct scan_gov_opts go;
	struct scan_result r;
	struct cli_progress pr = { 0 };
	struct cli_report rep;
	struct ckpt_ctx ck = { 0 };
	const struct vfy_method *method;
	char err[1024] = "";
	int ret, err_class, status, resumed = 0;
	struct sigaction sa;
	int human;

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
	human = !a.quiet && !(a.json && strcmp(a.json, "-") == 0);

	memset(&po, 0, sizeof(po));
	po.merge_gap = a.merge_gap;
	memset(&so, 0, sizeof(so));
	memset(&r, 0, sizeof(r));
	so.io_size = pick_io_size(&t, a.io_size);
	so.depth = a.depth ? (unsigned)a.depth : DEFAULT_DEPTH;
	so.engine = a.engine;
	so.isolate_step_bytes = 16 * 4096;
	so.stop = &stop_requested;
	so.io_timeout_ns = (uint64_t)(a.io_timeout_s * 1e9);
	so.max_duration_ns = (uint64_t)(a.max_duration_s * 1e9);
	ret = map_plan_count(&t, &po, &so.planned_total, NULL);
	if (ret < 0) {
		cli_err("cannot plan %s: reading the space map (GETFSMAP) failed: %s", a.target,
			strerror(-ret));
		map_target_close(&t);
		return CLI_EXIT_OPERATIONAL;
	}
	if (!a.no_state) {
		ret = open_state(&a, &t, method, &so, &po, &r, &ck, &resumed);
		if (ret < 0) {
			if (a.resume) {
				cli_err("cannot resume: the state store in %s failed: %s",
					a.state_dir, strerror(-ret));
				scan_state_close(ck.st);
				scan_result_free(&r);
				map_target_close(&t);
				return CLI_EXIT_OPERATIONAL;
			}
			cli_err("warning: scanning without checkpoints: state store in %s: %s",
				a.state_dir, strerror(-ret));
			scan_state_close(ck.st);
			ck.st = NULL;
		} else {
			so.checkpoint = on_checkpoint;
			so.checkpoint_arg = &ck;
			so.checkpoint_interval_ns = CHECKPOINT_INTERVAL_NS;
		}
	}
	if (a.rate || a.window_s) {
		memset(&go, 0, sizeof(go));
		go.rate_bps = a.rate;
		go.window_s = (uint64_t)(a.window_s + 0.5);
		go.rate_min_bps = a.rate_min;
		go.rate_max_bps = a.rate_max;
		go.backoff = !a.no_backoff;
		go.planned_total_bytes = so.planned_total > so.scanned_base ?
					 so.planned_total - so.scanned_base : 0;
		go.slack_bytes = (uint64_t)so.depth * so.io_size;
		so.gov = &go;
		pick_views(&t, &so);
	}
	if ((a.ioprio && strcmp(a.ioprio, "idle") == 0) || (!a.ioprio && a.window_s)) {
		ret = kio_ioprio_set_idle();
		if (ret < 0)
			cli_err("warning: cannot set the idle I/O class: %s", strerror(-ret));
	}

	pr.enabled = strcmp(a.progress, "log") == 0 ? 2 :
		     (strcmp(a.progress, "bar") == 0 ||
		      (strcmp(a.progress, "auto") == 0 && isatty(STDERR_FILENO)));
	so.progress = cli_progress_cb;
	so.progress_arg = &pr;
	for (unsigned i = 0; i < t.nr_devices; i++) {
		devs[i].fd = t.devices[i].fd;
		devs[i].logical_block_size = t.devices[i].info.logical_block_size;
	}
	ret = map_plan_open(&t, &po, &plan);
	if (ret < 0) {
		cli_err("cannot plan %s: %s", a.target, strerror(-ret));
		ret = CLI_EXIT_OPERATIONAL;
		goto out_state;
	}
	src.next = plan_source_next;
	src.arg = plan;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (human) {
		char sz[32], rb[32];

		printf("mediascan: %s %s (%s", resumed ? "resuming" : "scanning",
		       t.mount_point[0] ? t.mount_point : t.arg, t.fs_type);
		for (unsigned i = 0; i < t.nr_devices; i++)
			printf("%s %s %s", i ? "," : " on", map_role_name(t.devices[i].role),
			       t.devices[i].path);
		printf("): %s planned", cli_fmt_bytes(so.planned_total, sz, sizeof(sz)));
		if (resumed)
			printf(", %s already read", cli_fmt_bytes(so.scanned_base, sz, sizeof(sz)));
		printf(", method %s", method->name);
		if (a.rate)
			printf(", rate %s/s", cli_fmt_bytes(a.rate, rb, sizeof(rb)));
		if (a.window_s) {
			char w[32];

			printf(", window %s", cli_fmt_duration(a.window_s, w, sizeof(w)));
		}
		printf("\n");
		fflush(stdout);
	}
	ret = scan_run(devs, t.nr_devices, &src, &so, &r);
	cli_progress_done(&pr);
	map_plan_close(plan);
	if (ret < 0) {
		cli_err("%s", r.fatal_msg[0] ? r.fatal_msg : strerror(-ret));
		ret = CLI_EXIT_OPERATIONAL;
		goto out_state;
	}
	/* Report the whole pass: bytes read before a resume count too. */
	r.scanned_bytes += so.scanned_base;
	r.planned_bytes += so.scanned_base;
	if (r.stopped == 1 && !r.fatal_msg[0])
		snprintf(r.fatal_msg, sizeof(r.fatal_msg),
			 "interrupted by a signal; continue with --resume");

	memset(&rep, 0, sizeof(rep));
	rep.t = &t;
	rep.r = &r;
	rep.method = method->name;
	rep.resumed = resumed;
	ret = cli_report_build(&rep);
	if (ret < 0) {
		cli_err("mapping the errors to their owners failed: %s", strerror(-ret));
		rep.exit_bits |= CLI_EXIT_OPERATIONAL;
	}
	if (r.stopped == 2) {
		/* A --max-duration stop is planned, not a failure: continue with --resume. */
		rep.exit_bits &= ~(unsigned)CLI_EXIT_OPERATIONAL;
		if (r.fatal)
			rep.exit_bits |= CLI_EXIT_OPERATIONAL;
	}
	if (ck.st) {
		enum scan_pass_result res = r.complete ? SCAN_PASS_COMPLETE :
					    r.fatal ? SCAN_PASS_FAILED : SCAN_PASS_INTERRUPTED;

		ret = scan_state_finish(ck.st, ck.pass_id, res, r.scanned_bytes,
					r.elapsed_s > 0 ? (double)r.read_bytes / r.elapsed_s : 0);
		if (ret < 0)
			cli_err("warning: the pass could not be recorded as %s: %s",
				scan_pass_result_name(res), strerror(-ret));
	}
	if (a.json) {
		ret = cli_report_write_json(&rep, a.json);
		if (ret < 0) {
			cli_err("cannot write the JSON report to %s: %s", a.json, strerror(-ret));
			rep.exit_bits |= CLI_EXIT_OPERATIONAL;
		}
	}
	if (human)
		cli_report_print(&rep, stdout);
	status = (int)rep.exit_bits;
	cli_report_free(&rep);
	scan_state_close(ck.st);
	scan_result_free(&r);
	map_target_close(&t);
	return status;

out_state:
	scan_state_close(ck.st);
	scan_result_free(&r);
	map_target_close(&t);
	return ret;
}
