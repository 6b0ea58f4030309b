/*
 * cli/map_klog.c - `mediascan map --kernel-log`: kernel log lines (a file, stdin or /dev/kmsg)
 * turned into queries. Each line is parsed (klog/klog.c), its kernel device name looked up
 * once, its sector or buffer block turned into bytes; lines that cannot be used are counted
 * and a few shown; from /dev/kmsg, the times a device (re)appeared or had a filesystem mounted
 * are kept, so that a range logged before is not mapped onto what is there now.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cli.h"
#include "klog.h"
#include "kmsg.h"
#include "units.h"

#include "map_int.h"

static void note_unusable(struct map_run *m, const char *line, const char *why)
{
	char buf[512];

	if (m->nr_unusable < MAP_SHOW_UNUSABLE) {
		snprintf(buf, sizeof(buf), "%.300s (%.180s)", line, why);
		m->unusable[m->nr_unusable] = strdup(buf);
	}
	m->nr_unusable++;
}

static void note_unknown(struct map_run *m, const char *dev)
{
	for (unsigned i = 0; i < m->nr_unknown && i < 16; i++)
		if (strcmp(m->unknown[i], dev) == 0)
			return;
	if (m->nr_unknown < 16)
		snprintf(m->unknown[m->nr_unknown], sizeof(m->unknown[0]), "%s", dev);
	m->nr_unknown++;
}

/* Bytes per "logical block" of a buffer I/O error on the device of target t. */
static uint64_t buffer_block_size(const struct map_run *m, const struct map_target *t,
				  unsigned dev_idx)
{
	uint32_t lbs = t->devices[dev_idx].info.logical_block_size;
	uint64_t size = t->devices[dev_idx].info.size_bytes, bs;

	if (m->block_size)
		return m->block_size;
	if (t->bdev_block_bytes)		/* a mounted filesystem set the block size */
		return t->bdev_block_bytes;
	/* The block device's own page cache: the largest power of two up to the page size
	 * that divides the device size, from its logical block size (set_init_blocksize). */
	bs = lbs ? lbs : 512;
	while (bs < 4096 && !(size & bs))
		bs <<= 1;
	return bs;
}

/* The event slot of kernel device name, made if new; NULL when the table is full. */
static int event_slot(struct map_run *m, const char *name, size_t n)
{
	unsigned i;

	if (n == 0 || n >= sizeof(m->ev[0].name))
		return -1;
	for (i = 0; i < m->nr_ev; i++)
		if (strlen(m->ev[i].name) == n && strncmp(m->ev[i].name, name, n) == 0)
			return (int)i;
	if (m->nr_ev == MAP_KLOG_MAX_EVENTS)
		return -1;
	memcpy(m->ev[i].name, name, n);
	m->ev[i].name[n] = '\0';
	m->ev[i].appeared = m->ev[i].mounted = -1;
	m->nr_ev++;
	return (int)i;
}

/*
 * A /dev/kmsg message saying a device (re)appeared ("loop2: detected capacity change from 0
 * to 2048", a partition scan "loop2: p1 p2") or a filesystem was mounted on it (ext4's
 * "EXT4-fs (loop2p1): mounted filesystem", XFS's "XFS (loop2p1): Mounting"): remembered with
 * its time, so that errors logged before are not mapped onto what is there now.
 */
static void note_event(struct map_run *m, const char *msg, int64_t usec)
{
	const char *p, *e;
	int i;

	if (usec < 0)
		return;
	if ((p = strstr(msg, ": detected capacity change from ")) ||
	    ((p = strstr(msg, ": p")) && p[3] >= '0' && p[3] <= '9')) {
		for (e = msg; *e == ' '; e++)
			;
		if (strcspn(e, " ") < (size_t)(p - e))
			return;			/* the name is one word */
		i = event_slot(m, e, (size_t)(p - e));
		if (i >= 0)
			m->ev[i].appeared = usec;
		return;
	}
	if (strncmp(msg, "EXT4-fs (", 9) == 0 && (e = strstr(msg, "): mounted filesystem")))
		p = msg + 9;
	else if (strncmp(msg, "XFS (", 5) == 0 && (e = strstr(msg, "): Mounting V")))
		p = msg + 5;
	else
		return;
	i = event_slot(m, p, (size_t)(e - p));
	if (i >= 0)
		m->ev[i].mounted = usec;
}

/* 1 when kernel name part is a partition of disk (sda1 of sda, loop2p1 of loop2). */
static int is_part_of(const char *part, const char *disk)
{
	size_t n = strlen(disk);
	const char *p = part + n;

	if (!n || strncmp(part, disk, n))
		return 0;
	if (disk[n - 1] >= '0' && disk[n - 1] <= '9' && *p++ != 'p')
		return 0;
	return *p && strspn(p, "0123456789") == strlen(p);
}

/* Why q (from /dev/kmsg) is not mapped: its device appeared, or a filesystem was mounted on
 * it, after the line was logged; "" when it may be mapped. */
void cli_map_check_stale(struct map_run *m, struct query *q)
{
	if (!m->from_kmsg || q->usec < 0)
		return;
	for (unsigned i = 0; i < m->nr_ev; i++) {
		const char *n = m->ev[i].name;
		int same = strcmp(n, q->kname) == 0;

		/* the disk (or partition) named, or the disk it is a partition of */
		if ((same || is_part_of(q->kname, n) || is_part_of(n, q->kname)) &&
		    m->ev[i].appeared > q->usec) {
			snprintf(q->stale, sizeof(q->stale), "logged at %.1f s, before this device "
				 "(%s) appeared at %.1f s: not mapped", q->usec / 1e6, n,
				 m->ev[i].appeared / 1e6);
			return;
		}
		if ((same || is_part_of(n, q->kname)) && m->ev[i].mounted > q->usec) {
			snprintf(q->stale, sizeof(q->stale), "logged at %.1f s, before the "
				 "filesystem on %s was mounted at %.1f s: not mapped (the same "
				 "filesystem? map it: mediascan map DEVICE OFFSET)", q->usec / 1e6,
				 n, m->ev[i].mounted / 1e6);
			return;
		}
	}
}

/* Turn one kernel log line into a query; never fatal. */
static int use_log_line(struct map_run *m, const char *line)
{
	struct map_klog_rec rec;
	char devpath[128];
	unsigned dev_idx = 0;
	uint64_t off, len;
	const char *why;
	struct tgt *tg;
	int ret;

	m->lines++;
	ret = map_klog_parse_ctx(&m->klog_ctx, line, &rec);
	if (rec.form == MAP_KLOG_KERNEL)
		m->kernel_lines++;
	if (ret == 0) {
		m->ignored++;
		m->not_kernel += rec.not_kernel;
		if (m->from_kmsg && rec.form == MAP_KLOG_KERNEL && strchr(line, ';'))
			note_event(m, strchr(line, ';') + 1, rec.usec);
		return 0;
	}
	if (ret < 0) {
		note_unusable(m, line, "malformed");
		return 0;
	}
	/* Kernel names as sysfs has them (dm-0, md127, cciss!c0d0), looked up once. */
	devpath[0] = '\0';
	unsigned ni;

	for (ni = 0; ni < m->nr_names; ni++)
		if (strcmp(m->names[ni].name, rec.dev) == 0)
			break;
	if (ni < m->nr_names) {
		cli_map_copy(devpath, sizeof(devpath), m->names[ni].devpath);
	} else {
		if (map_devpath_of_name(rec.dev, devpath, sizeof(devpath)) < 0)
			devpath[0] = '\0';
		if (m->nr_names < 64) {
			snprintf(m->names[m->nr_names].name, sizeof(m->names[0].name), "%s",
				 rec.dev);
			snprintf(m->names[m->nr_names].devpath, sizeof(m->names[0].devpath), "%s",
				 devpath);
			m->nr_names++;
		}
	}
	if (!devpath[0]) {
		note_unknown(m, rec.dev);
		return 0;
	}
	tg = cli_map_target_for(m, devpath, &dev_idx);
	if (!tg)
		return -ENOMEM;
	if (!tg->open) {
		note_unusable(m, line, tg->err);
		return 0;
	}
	if (map_klog_range(&rec, tg->t.devices[dev_idx].info.logical_block_size,
			   rec.unit == MAP_KLOG_BLOCK ? buffer_block_size(m, &tg->t, dev_idx) : 0,
			   tg->t.devices[dev_idx].info.size_bytes, &off, &len, &why) < 0) {
		note_unusable(m, line, why);
		return 0;
	}
	m->matched++;
	ret = cli_map_add_query(m, devpath, off, len, rec.format, rec.value);
	if (ret == 0) {
		cli_map_copy(m->q[m->nr_q - 1].kname, sizeof(m->q[0].kname), rec.dev);
		m->q[m->nr_q - 1].usec = rec.usec;
		m->q[m->nr_q - 1].cmd_range = rec.unit == MAP_KLOG_LBA && rec.count > 1;
	}
	return ret < 0 ? ret : 0;
}

/* Read kernel log lines from path ("-" stdin, NULL /dev/kmsg). */
int cli_map_read_log(struct map_run *m, const char *path)
{
	char *line = NULL;
	ssize_t n;
	int ret = 0;

	if (!path) {
		char rec[8192];
		int fd = map_kmsg_open();

		if (fd < 0) {
			report_err("cannot read /dev/kmsg: %s%s", strerror(-fd),
				fd == -EPERM || fd == -EACCES ? " (needs root, or name a FILE)" : "");
			return REPORT_EXIT_OPERATIONAL;
		}
		m->from_kmsg = 1;
		while ((n = map_kmsg_read(fd, rec, sizeof(rec))) > 0) {
			/* "pri,seq,usec,flags;message\n continuation": the record whole, so the
			 * parser sees the facility (a program may write to /dev/kmsg too) */
			rec[strcspn(rec, "\n")] = '\0';
			ret = use_log_line(m, rec);
			if (ret < 0)
				break;
		}
		map_kmsg_close(fd);
		return ret < 0 ? REPORT_EXIT_OPERATIONAL : 0;
	}
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;

	if (!f) {
		report_err("cannot read %s: %s", path, strerror(errno));
		return REPORT_EXIT_USAGE;
	}
	line = malloc(MAP_KLOG_MAX_LINE + 2);
	if (!line) {
		if (f != stdin)
			fclose(f);
		return REPORT_EXIT_OPERATIONAL;
	}
	while (fgets(line, MAP_KLOG_MAX_LINE + 2, f)) {
		size_t n = strlen(line);

		if (n > MAP_KLOG_MAX_LINE && line[n - 1] != '\n') {
			int c;

			/* longer than any kernel record: dropped, the rest of it skipped */
			while ((c = getc(f)) != EOF && c != '\n')
				;
			m->lines++;
			m->too_long++;
			continue;
		}
		line[strcspn(line, "\n")] = '\0';
		ret = use_log_line(m, line);
		if (ret < 0)
			break;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return ret < 0 ? REPORT_EXIT_OPERATIONAL : 0;
}
