/*
 * cli/map_cmd.c - `mediascan map`: who owns a device range, without scanning. The range comes
 * from the command line (bytes, or --sector as the kernel prints them) or from kernel log
 * lines (a file, or /dev/kmsg): every line naming a failed range is mapped to its owners,
 * repeated lines once. Works on a disk (through its partitions), a partition, or a mounted
 * filesystem's data or log device. The JSON answer has the shape of a scan report's
 * media_errors, damaged_files and damaged_metadata.
 * This file parses the arguments and runs the rest: the query table (map_query.c), the kernel
 * log (map_klog.c), the batch (map_batch.c) and the answer (map_answer.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cli.h"
#include "exits.h"
#include "files.h"
#include "map_cmd.h"
#include "opts.h"
#include "units.h"

#include "map_int.h"

/* What the command line of `mediascan map` asked, besides the run itself. */
struct map_args {
	const char *json;
	uint64_t sector, count;
	uint64_t block_size;		/* --block-size, for the run's kernel log lines */
	int have_sector, quiet, from_log;
};

#define F(field) offsetof(struct map_args, field)

static const struct cli_opt map_opts[] = {
	CLI_OPT_JSON(F(json), "write the answer as JSON (media_errors, damaged_files, "
		     "damaged_metadata, as in a scan report)"),
	{ .name = "sector", .type = CLI_OPT_UINT, .flags = CLI_OPT_WIDE | CLI_OPT_ANYBASE |
	  CLI_OPT_MARK, .arg = "N", .min = 0, .max = (double)UINT64_MAX, .off = F(sector),
	  .set_off = F(have_sector), .hint = "give a number",
	  .help = "the range starts at 512-byte sector N, as the kernel prints it" },
	{ .name = "count", .type = CLI_OPT_UINT, .flags = CLI_OPT_WIDE | CLI_OPT_ANYBASE,
	  .arg = "N", .min = 1, .max = (double)UINT64_MAX, .def = 1, .off = F(count),
	  .hint = "give a number",
	  .help = "and is N sectors long (default {def})" },
	{ .name = "kernel-log", .type = CLI_OPT_FLAG, .off = F(from_log),
	  .help = "map every failed range in the kernel log lines of FILE, stdin (-) or "
		  "/dev/kmsg" },
	{ .name = "block-size", .type = CLI_OPT_SIZE, .flags = CLI_OPT_POW2, .arg = "N",
	  .min = 512, .max = 65536, .off = F(block_size),
	  .hint = "a power of two from {min} to {max}",
	  .help = "unit of \"Buffer I/O error ... logical block N\" lines (default: the "
		  "filesystem's block size, else the device's)" },
	{ .name = "quiet", .short_name = 'q', .type = CLI_OPT_FLAG, .off = F(quiet),
	  .help = "no human output" },
};

const struct cli_opts cli_map_opts = {
	.cmd = "map",
	.opts = map_opts,
	.nr = sizeof(map_opts) / sizeof(map_opts[0]),
	.synopsis =
		"usage: mediascan map DEVICE OFFSET [LENGTH]   who owns bytes OFFSET..+LENGTH\n"
		"       mediascan map DEVICE --sector N [--count N]  512-byte sectors, as the\n"
		"                                              kernel prints them\n"
		"       mediascan map --kernel-log [FILE|-]   every failed range in kernel log lines\n"
		"                                              (FILE, stdin, or /dev/kmsg)\n"
		"  DEVICE is a disk (mapped through its partitions), a partition, or the data or\n"
		"  log device of a mounted XFS or ext4. Sizes take suffixes (4k, 1M).\n"
		"options:\n",
};

/* Return 0 after reading the bytes DEVICE OFFSET [LENGTH] or --sector name into *off, *len. */
static int map_parse_range(int argc, char **argv, const struct map_args *a, uint64_t *off,
			   uint64_t *len)
{
	if (optind >= argc) {
		report_err("map: name a DEVICE and an OFFSET (or --sector N), or --kernel-log");
		return REPORT_EXIT_USAGE;
	}
	if (a->have_sector ? argc - optind != 1 : argc - optind < 2 || argc - optind > 3) {
		report_err("map: give DEVICE OFFSET [LENGTH] or DEVICE --sector N [--count N]");
		return REPORT_EXIT_USAGE;
	}
	if (a->have_sector) {
		if (__builtin_mul_overflow(a->sector, 512, off) ||
		    __builtin_mul_overflow(a->count, 512, len) || *off + *len < *off) {
			report_err("map: --sector %" PRIu64 " --count %" PRIu64
				" out of range: the bytes do not fit 64 bits", a->sector,
				a->count);
			return REPORT_EXIT_USAGE;
		}
	} else if (report_parse_size(argv[optind + 1], off) ||
		   (argc - optind == 3 && (report_parse_size(argv[optind + 2], len) ||
					   *len == 0))) {
		report_err("map: bad OFFSET or LENGTH '%s %s': give bytes, e.g. 1048576 4k",
			argv[optind + 1], argc - optind == 3 ? argv[optind + 2] : "");
		return REPORT_EXIT_USAGE;
	}
	if (*len > UINT64_MAX - *off) {
		report_err(
		    "map: OFFSET + LENGTH out of range: the bytes do not fit 64 bits");
		return REPORT_EXIT_USAGE;
	}
	return 0;
}

/* Return 0 after adding the query of DEVICE OFFSET [LENGTH] to m, or the exit status. */
static int map_add_cmdline_query(int argc, char **argv, const struct map_args *a,
				 struct map_run *m)
{
	uint64_t off = 0, len = 0, size;
	unsigned dev_idx = 0;
	struct tgt *tg;
	int ret;

	ret = map_parse_range(argc, argv, a, &off, &len);
	if (ret)
		return ret;
	if (report_out_refuse("map", "--json", a->json))
		return REPORT_EXIT_USAGE;
	tg = cli_map_target_for(m, argv[optind], &dev_idx);
	if (!tg)
		return REPORT_EXIT_OPERATIONAL;
	if (!tg->open) {
		report_err("%s", tg->err);
		return tg->err_class == MAP_TERR_USAGE ? REPORT_EXIT_USAGE :
							REPORT_EXIT_OPERATIONAL;
	}
	size = tg->t.devices[dev_idx].info.size_bytes;
	if (!len)
		len = tg->t.devices[dev_idx].info.logical_block_size ?
		      tg->t.devices[dev_idx].info.logical_block_size : 512;
	if (off >= size) {
		report_err("map: offset %" PRIu64 " is past the end of %s (%" PRIu64
			   " bytes)",
			   off, argv[optind], size);
		return REPORT_EXIT_USAGE;
	}
	if (len > size - off)
		len = size - off;
	ret = cli_map_add_query(m, tg->devpath, off, len, "query", 0);
	if (ret < 0)
		return REPORT_EXIT_OPERATIONAL;
	return 0;
}

/* Set the exit bits of what m could not check, and say why a kernel log gave nothing. */
static void map_judge(struct map_run *m)
{
	for (size_t k = 0; k < m->nr_tg; k++)
		if (!m->tg[k].open && !m->from_log)
			m->exit_bits |= REPORT_EXIT_OPERATIONAL;
	/* README's exit table: a line naming an unknown device, past a device's end or
	 * otherwise unusable, or dropped, is a range not checked: bit 4 */
	if (m->from_log && (m->nr_unknown || m->nr_unusable || m->too_long || m->dropped))
		m->exit_bits |= REPORT_EXIT_OPERATIONAL;
	if (m->from_log && !m->kernel_lines) {
		if (!m->lines)
			report_err("map: the kernel log is empty: nothing was checked");
		else
			report_err(
			    "map: none of the %u lines is a kernel log line (dmesg, journalctl "
			    "-k, syslog, /dev/kmsg): nothing was checked",
			    m->lines);
		m->exit_bits |= REPORT_EXIT_OPERATIONAL;
	}
}

/* Free what m holds. */
static void map_run_free(struct map_run *m)
{
	for (size_t k = 0; k < m->nr_tg; k++) {
		map_damage_free(&m->tg[k].d);
		map_target_close(&m->tg[k].t);
	}
	free(m->tg);
	for (size_t i = 0; i < m->nr_q; i++)
		map_stack_up_free(m->q[i].stk);
	free(m->q);
	for (unsigned i = 0; i < m->nr_unusable && i < MAP_SHOW_UNUSABLE; i++)
		free(m->unusable[i]);
}

int cli_map_main(int argc, char **argv)
{
	struct map_args a = { .count = 1 };
	struct map_run m;
	int ret;

	memset(&m, 0, sizeof(m));
	ret = cli_opts_parse(&cli_map_opts, argc, argv, &a);
	if (ret)
		return ret == 1 ? 0 : ret;
	m.from_log = a.from_log;
	m.block_size = a.block_size;
	if (m.from_log) {
		if (a.have_sector || argc - optind > 1) {
			report_err("map --kernel-log takes at most one FILE, and no DEVICE or --sector");
			return REPORT_EXIT_USAGE;
		}
		if (report_out_refuse("map", "--json", a.json))
			return REPORT_EXIT_USAGE;
		ret = cli_map_read_log(&m, optind < argc ? argv[optind] : NULL);
	} else {
		ret = map_add_cmdline_query(argc, argv, &a, &m);
	}
	if (ret)
		goto out_free;
	if (geteuid() != 0)
		report_err("warning: not root: GETFSMAP, bulkstat and open-by-handle need "
			"CAP_SYS_ADMIN; owners may be missing");
	ret = cli_map_all(&m);
	if (ret < 0) {
		report_err("mapping failed: %s", strerror(-ret));
		ret = REPORT_EXIT_OPERATIONAL;
		goto out_free;
	}
	map_judge(&m);
	if (a.json) {
		ret = cli_map_write_json(&m, a.json);
		if (ret < 0) {
			report_err("cannot write the JSON answer to %s: %s", a.json,
				report_create_error(ret));
			m.exit_bits |= REPORT_EXIT_OPERATIONAL;
		}
	}
	if (!a.quiet && !(a.json && strcmp(a.json, "-") == 0))
		cli_map_print_answer(&m, stdout);
	ret = (int)m.exit_bits;
out_free:
	map_run_free(&m);
	return ret;
}
