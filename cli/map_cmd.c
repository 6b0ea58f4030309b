/*
 * cli/map_cmd.c - `mediascan map`: who owns a device range, without scanning. The range comes
 * from the command line (bytes, or --sector as the kernel prints them) or from kernel log
 * lines (a file, or /dev/kmsg): every line naming a failed range is mapped to its owners,
 * repeated lines once. Works on a disk (through its partitions), a partition, or a mounted
 * filesystem's data or log device. The JSON answer has the shape of a scan report's
 * media_errors, damaged_files and damaged_metadata.
 *
 * Over 600 lines for now: its argument forms (device + range, --sector, --kernel-log) share
 * one query table and one report; it splits when the mapping stage moves out of cli/ into
 * the pass module.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <limits.h>

#include "config.h"
#include "cli.h"
#include "exits.h"
#include "files.h"
#include "devinfo.h"
#include "escape.h"
#include "klog.h"
#include "kmsg.h"
#include "map_cmd.h"
#include "map_report.h"
#include "map_stack.h"
#include "units.h"

#define MAP_SHOW_UNUSABLE 20
/* Kernel log bounds: a longer line is no kernel's (its records are at most 2 KiB), and at
 * most this many distinct ranges are kept (repeats merge); lines past either are dropped and
 * counted. */
#define MAP_KLOG_MAX_LINE 8192
#define MAP_KLOG_MAX_RANGES 16384
#define MAP_KLOG_MAX_EVENTS 256

static void map_usage(FILE *f)
{
	fprintf(f,
		"usage: mediascan map DEVICE OFFSET [LENGTH]   who owns bytes OFFSET..+LENGTH\n"
		"       mediascan map DEVICE --sector N [--count N]  512-byte sectors, as the\n"
		"                                              kernel prints them\n"
		"       mediascan map --kernel-log [FILE|-]   every failed range in kernel log lines\n"
		"                                              (FILE, stdin, or /dev/kmsg)\n"
		"  DEVICE is a disk (mapped through its partitions), a partition, or the data or\n"
		"  log device of a mounted XFS or ext4. Sizes take suffixes (4k, 1M).\n"
		"options:\n"
		"  --json FILE|-          write the answer as JSON (media_errors, damaged_files,\n"
		"                         damaged_metadata, as in a scan report)\n"
		"  --block-size N         unit of \"Buffer I/O error ... logical block N\" lines\n"
		"                         (default: the filesystem's block size, else the device's)\n"
		"  -q, --quiet            no human output\n");
	report_print_exits(f, "map");
}

/* One range to map, with how it was named. */
struct query {
	char devpath[128];
	uint64_t offset;		/* bytes on devpath */
	uint64_t length;
	unsigned lines;			/* kernel log lines naming it */
	const char *format;		/* "query", "block-layer", ... */
	uint64_t value;			/* sector/block/daddr as the line said */
	int tgt;			/* index into the targets, -1 not mapped */
	unsigned dev_idx;
	size_t group;			/* map_damage group of this query */
	/* under md/dm: the way up to the filesystem's device (devpath/offset are then the
	 * top's, asked_* what was queried); no_owner: parity, unused or unmappable */
	struct map_stack_up *stk;
	char asked_dev[128];
	uint64_t asked_off;
	int no_owner;
	char kname[64];			/* the kernel's device name in the log line */
	int64_t usec;			/* latest line's kernel time (us since boot), -1 unknown */
	char stale[160];		/* why not mapped: logged before the device appeared */
};

struct tgt {
	char devpath[128];		/* as opened */
	unsigned dev_idx;		/* devpath's index among the target's devices */
	struct map_target t;
	struct map_damage d;
	int open;
	int mapped;
	int err_class;			/* enum map_target_err when it did not open */
	char err[512];
};

struct map_run {
	struct query *q;
	size_t nr_q, cap_q;
	struct tgt *tg;
	size_t nr_tg;
	/* kernel log accounting */
	int from_log;
	unsigned lines, matched, ignored, not_kernel;
	unsigned nr_unusable;
	char *unusable[MAP_SHOW_UNUSABLE];
	unsigned nr_unknown;
	char unknown[16][64];
	int from_kmsg;			/* /dev/kmsg: times comparable with its events */
	unsigned kernel_lines;		/* lines that are the kernel's (usable) */
	unsigned too_long, dropped, nr_stale;
	/* when each device last (re)appeared or had a filesystem mounted, from the log */
	struct {
		char name[64];
		int64_t appeared, mounted;	/* us since boot, -1 none */
	} ev[MAP_KLOG_MAX_EVENTS];
	unsigned nr_ev;
	uint64_t block_size;		/* --block-size */
	unsigned exit_bits;
	/* kernel names already looked up: name -> /dev path ("" unknown) */
	struct {
		char name[64];
		char devpath[128];
	} names[64];
	unsigned nr_names;
};

static void dedup_queries(struct map_run *m);

static int add_query(struct map_run *m, const char *devpath, uint64_t off, uint64_t len,
		     const char *format, uint64_t value)
{
	if (m->from_log && m->nr_q >= MAP_KLOG_MAX_RANGES) {
		dedup_queries(m);		/* repeats merge; past the bound, dropped */
		if (m->nr_q >= MAP_KLOG_MAX_RANGES) {
			m->dropped++;
			return 1;
		}
	}
	if (m->nr_q == m->cap_q) {
		size_t cap = m->cap_q ? m->cap_q * 2 : 64;
		struct query *n = realloc(m->q, sizeof(*n) * cap);

		if (!n)
			return -ENOMEM;
		m->q = n;
		m->cap_q = cap;
	}
	m->q[m->nr_q] = (struct query){ .offset = off, .length = len, .lines = 1,
					.format = format, .value = value, .tgt = -1, .usec = -1 };
	snprintf(m->q[m->nr_q].devpath, sizeof(m->q[m->nr_q].devpath), "%s", devpath);
	m->nr_q++;
	return 0;
}

static int cmp_query(const void *a, const void *b)
{
	const struct query *x = a, *y = b;
	int c = strcmp(x->devpath, y->devpath);

	if (c)
		return c;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->length < y->length ? -1 : x->length > y->length;
}

/* Sort the queries by device and offset and merge repeats (counting their lines). */
static void dedup_queries(struct map_run *m)
{
	size_t w = 0;

	if (m->nr_q)
		qsort(m->q, m->nr_q, sizeof(*m->q), cmp_query);
	for (size_t i = 0; i < m->nr_q; i++) {
		if (w && cmp_query(&m->q[w - 1], &m->q[i]) == 0) {
			m->q[w - 1].lines += m->q[i].lines;
			if (m->q[i].usec > m->q[w - 1].usec)	/* the latest line counts */
				m->q[w - 1].usec = m->q[i].usec;
			continue;
		}
		m->q[w++] = m->q[i];
	}
	m->nr_q = w;
}

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

/* Return the open target for devpath (opened once), or NULL with why in its err. */
static struct tgt *target_for(struct map_run *m, const char *devpath, unsigned *dev_idx)
{
	struct tgt *n;
	int cls;

	for (size_t i = 0; i < m->nr_tg; i++)
		if (strcmp(m->tg[i].devpath, devpath) == 0) {
			*dev_idx = m->tg[i].dev_idx;
			return &m->tg[i];
		}
	n = realloc(m->tg, sizeof(*n) * (m->nr_tg + 1));
	if (!n)
		return NULL;
	m->tg = n;
	n = &m->tg[m->nr_tg++];
	memset(n, 0, sizeof(*n));
	snprintf(n->devpath, sizeof(n->devpath), "%s", devpath);
	if (map_target_open_device(devpath, &n->t, &n->dev_idx, n->err, sizeof(n->err),
				   &cls) == 0)
		n->open = 1;
	else
		n->err_class = cls;
	*dev_idx = n->dev_idx;
	return n;
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
static void check_stale(struct map_run *m, struct query *q)
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
	ret = map_klog_parse(line, &rec);
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
		snprintf(devpath, sizeof(devpath), "%s", m->names[ni].devpath);
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
	tg = target_for(m, devpath, &dev_idx);
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
	ret = add_query(m, devpath, off, len, rec.format, rec.value);
	if (ret == 0) {
		snprintf(m->q[m->nr_q - 1].kname, sizeof(m->q[0].kname), "%s", rec.dev);
		m->q[m->nr_q - 1].usec = rec.usec;
	}
	return ret < 0 ? ret : 0;
}

/* Read kernel log lines from path ("-" stdin, NULL /dev/kmsg). */
static int read_log(struct map_run *m, const char *path)
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

/* Kernel name of a device path (/dev/mapper/vg-lv -> dm-3), or -errno. */
static int kernel_name(const char *devpath, char *name, size_t len)
{
	char real[PATH_MAX];
	const char *b;

	if (!realpath(devpath, real))
		return -errno;
	b = strrchr(real, '/');
	b = b ? b + 1 : real;
	if (strlen(b) >= len)
		return -ENAMETOOLONG;
	snprintf(name, len, "%s", b);
	return 0;
}

/* Append q to *v (n, cap). */
static int push_query(struct query **v, size_t *n, size_t *cap, const struct query *q)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct query *nv = realloc(*v, sizeof(*nv) * c);

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = *q;
	return 0;
}

/*
 * Queries on devices under md or dm (a member disk, its partition, an md array under LVM):
 * each mapped up the stack to the device the filesystem sits on, piece by piece (a range may
 * cross chunks), with the other copies kept for the answer.
 */
static int stack_queries(struct map_run *m)
{
	struct query *v = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	for (size_t i = 0; i < m->nr_q && ret == 0; i++) {
		struct query *q = &m->q[i];
		char name[64];
		uint64_t off = q->offset, left = q->length;

		if (kernel_name(q->devpath, name, sizeof(name)) < 0 ||
		    !map_stack_is_stacked(NULL, name)) {
			ret = push_query(&v, &n, &cap, q);
			continue;
		}
		while (left && ret == 0) {
			struct map_stack_up *u = malloc(sizeof(*u));
			struct query p = *q;

			if (!u) {
				ret = -ENOMEM;
				break;
			}
			ret = map_stack_up(NULL, name, off, left, u);
			if (ret < 0) {
				snprintf(u->bad_name, sizeof(u->bad_name), "%s", name);
				snprintf(u->bad_kind, sizeof(u->bad_kind), "unknown");
				snprintf(u->bad_reason, sizeof(u->bad_reason),
					 "reading the stack failed: %s", strerror(-ret));
				u->unmappable = 1;
				u->nr_hops = 0;
				u->length = left;
				ret = 0;
			}
			if (!u->length || u->length > left)
				u->length = left;
			snprintf(p.asked_dev, sizeof(p.asked_dev), "%s", q->devpath);
			p.asked_off = off;
			p.length = u->length;
			p.stk = u;
			if (u->unmappable || u->parity || u->unused || !u->nr_hops) {
				p.no_owner = 1;
				p.offset = off;
			} else {
				snprintf(p.devpath, sizeof(p.devpath), "/dev/%s",
					 u->hop[u->nr_hops - 1].name);
				p.offset = u->hop[u->nr_hops - 1].offset;
			}
			if (u->unmappable)
				m->exit_bits |= REPORT_EXIT_OPERATIONAL;
			ret = push_query(&v, &n, &cap, &p);
			if (ret < 0)
				free(u);
			off += u->length;
			left -= u->length;
		}
	}
	if (ret < 0) {
		for (size_t i = 0; i < n; i++)
			if (v[i].stk && (i >= m->nr_q || v[i].stk != m->q[i].stk))
				free(v[i].stk);
		free(v);
		return ret;
	}
	free(m->q);
	m->q = v;
	m->nr_q = n;
	m->cap_q = cap;
	if (m->nr_q)
		qsort(m->q, m->nr_q, sizeof(*m->q), cmp_query);
	return 0;
}

/* Map every query through its target: owners (nearby ranges in one GETFSMAP pass), then
 * one resolve per target. */
static int map_all(struct map_run *m)
{
	uint32_t *dev = malloc(sizeof(*dev) * (m->nr_q + 1));
	uint64_t *off = malloc(sizeof(*off) * (m->nr_q + 1));
	uint64_t *len = malloc(sizeof(*len) * (m->nr_q + 1));
	int ret = 0;

	if (!dev || !off || !len) {
		ret = -ENOMEM;
		goto out_free;
	}
	dedup_queries(m);
	ret = stack_queries(m);
	if (ret < 0)
		goto out_free;
	free(off);
	free(len);
	off = malloc(sizeof(*off) * (m->nr_q + 1));
	len = malloc(sizeof(*len) * (m->nr_q + 1));
	if (!off || !len) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < m->nr_q; i++) {
		struct query *q = &m->q[i];
		unsigned dev_idx = 0;
		struct tgt *tg;

		if (q->no_owner)
			continue;
		check_stale(m, q);
		if (q->stale[0]) {		/* not mapped onto what is there now */
			m->nr_stale++;
			continue;
		}
		tg = target_for(m, q->devpath, &dev_idx);

		if (!tg) {
			ret = -ENOMEM;
			goto out_free;
		}
		if (tg->open) {
			q->tgt = (int)(tg - m->tg);
			q->dev_idx = dev_idx;
		}
	}
	/* Queries are sorted by device: each run of one device is one batch. */
	for (size_t a = 0; a < m->nr_q;) {
		size_t b = a;
		struct tgt *tg;

		size_t n = 0, first = SIZE_MAX;

		while (b < m->nr_q && strcmp(m->q[b].devpath, m->q[a].devpath) == 0)
			b++;
		for (size_t i = a; i < b; i++)
			if (m->q[i].tgt >= 0 && first == SIZE_MAX)
				first = i;
		if (first == SIZE_MAX) {	/* not open, or every line stale */
			a = b;
			continue;
		}
		tg = &m->tg[m->q[first].tgt];
		for (size_t i = a; i < b; i++) {
			if (m->q[i].tgt < 0)
				continue;
			dev[n] = m->q[first].dev_idx;
			off[n] = m->q[i].offset;
			len[n] = m->q[i].length;
			m->q[i].group = tg->d.nr_groups + n;
			n++;
		}
		ret = pass_map_batch(&tg->d, &tg->t, dev, off, len, n);
		if (ret < 0) {
			snprintf(tg->err, sizeof(tg->err), "looking up owners on %s: %s",
				 m->q[a].devpath, strerror(-ret));
			m->exit_bits |= REPORT_EXIT_OPERATIONAL;
			ret = 0;
		}
		tg->mapped = 1;
		a = b;
	}
	for (size_t k = 0; k < m->nr_tg; k++) {
		struct tgt *tg = &m->tg[k];

		if (!tg->open || !tg->mapped)
			continue;
		ret = map_damage_resolve(&tg->d, &tg->t);
		if (ret < 0) {
			snprintf(tg->err, sizeof(tg->err), "naming the owners on %s failed: %s",
				 tg->devpath, strerror(-ret));
			m->exit_bits |= REPORT_EXIT_OPERATIONAL;
			ret = 0;
		}
		/* a filesystem mediascan cannot map (btrfs) holds the range: not answered */
		if (tg->t.foreign_fs[0])
			m->exit_bits |= REPORT_EXIT_OPERATIONAL;
		/* a failed range the kernel logged is damage; a range looked up is only owned */
		if ((tg->d.nr_files || tg->d.nr_meta) && m->from_log)
			m->exit_bits |= REPORT_EXIT_MEDIA;
	}
out_free:
	free(dev);
	free(off);
	free(len);
	return ret;
}

static const char *target_name(const struct tgt *tg)
{
	return tg->t.mount_point[0] ? tg->t.mount_point : tg->t.arg;
}

static json_object *answer_json(const struct map_run *m)
{
	json_object *root = json_object_new_object(), *errs = json_object_new_array();
	json_object *files = json_object_new_array(), *meta = json_object_new_array();
	json_object *targets = json_object_new_array(), *notes = json_object_new_array();
	json_object *unmappable = json_object_new_array(), *copies = json_object_new_array();
	int stack_done = 0;

	json_object_object_add(root, "schema", json_object_new_string("mediascan-map/1"));
	json_object_object_add(root, "version", json_object_new_string(MEDIASCAN_VERSION));
	json_object_object_add(root, "source", json_object_new_string(
		m->from_log ? "kernel-log" : "query"));
	for (size_t k = 0; k < m->nr_tg; k++) {
		const struct tgt *tg = &m->tg[k];
		json_object *jt = json_object_new_object(), *devs = json_object_new_array();

		json_object_object_add(jt, "device", json_object_new_string(tg->devpath));
		if (!tg->open) {
			json_object_object_add(jt, "error", json_object_new_string(tg->err));
			json_object_array_add(targets, jt);
			continue;
		}
		json_object_object_add(jt, "target", json_object_new_string(target_name(tg)));
		json_object_object_add(jt, "fs_type", json_object_new_string(tg->t.fs_type));
		if (tg->t.uuid[0])
			json_object_object_add(jt, "fs_uuid", json_object_new_string(tg->t.uuid));
		for (unsigned i = 0; i < tg->t.nr_devices; i++) {
			json_object *d = json_object_new_object();

			json_object_object_add(d, "path",
					       json_object_new_string(tg->t.devices[i].path));
			json_object_object_add(d, "role", json_object_new_string(
				map_role_name(tg->t.devices[i].role)));
			json_object_object_add(d, "logical_block_size", json_object_new_int(
				(int)tg->t.devices[i].info.logical_block_size));
			json_object_object_add(d, "size", json_object_new_uint64(
				tg->t.devices[i].info.size_bytes));
			json_object_array_add(devs, d);
		}
		json_object_object_add(jt, "devices", devs);
		report_target_json(jt, &tg->t);
		report_mapping_json(jt, &tg->d);
		if (tg->err[0])
			json_object_object_add(jt, "error", json_object_new_string(tg->err));
		/* damaged files and metadata of this target, into the common arrays */
		json_object *tmp = json_object_new_object(), *a;

		report_damage_json(tmp, &tg->d, &tg->t);
		json_object_object_get_ex(tmp, "damaged_files", &a);
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			json_object *e = json_object_get(json_object_array_get_idx(a, i));

			json_object_object_add(e, "target",
					       json_object_new_string(target_name(tg)));
			json_object_array_add(files, e);
		}
		json_object_object_get_ex(tmp, "damaged_metadata", &a);
		for (size_t i = 0; i < json_object_array_length(a); i++)
			json_object_array_add(meta, json_object_get(json_object_array_get_idx(a, i)));
		json_object_put(tmp);
		json_object_object_get_ex(jt, "notes", &a);
		for (size_t i = 0; a && i < json_object_array_length(a); i++)
			json_object_array_add(notes,
					      json_object_get(json_object_array_get_idx(a, i)));
		json_object_array_add(targets, jt);
	}
	json_object_object_add(root, "targets", targets);
	for (size_t i = 0; i < m->nr_q; i++) {
		const struct query *q = &m->q[i];
		json_object *j = json_object_new_object(), *owners = json_object_new_array();
		size_t first = 0, count = 0;

		json_object_object_add(j, "device", json_object_new_string(
			q->stk ? q->asked_dev : q->devpath));
		json_object_object_add(j, "offset", json_object_new_uint64(
			q->stk ? q->asked_off : q->offset));
		json_object_object_add(j, "length", json_object_new_uint64(q->length));
		if (q->stk) {
			json_object *um = report_stack_unmappable_json(q->stk);

			if (!q->no_owner) {
				json_object_object_add(j, "fs_device",
						       json_object_new_string(q->devpath));
				json_object_object_add(j, "fs_offset",
						       json_object_new_uint64(q->offset));
			}
			json_object_object_add(j, "stack", report_stack_hops_json(q->stk));
			json_object_object_add(j, "copies", report_stack_copies_json(q->stk));
			if (q->stk->parity)
				json_object_object_add(j, "parity", json_object_new_boolean(1));
			if (q->stk->unused)
				json_object_object_add(j, "unused", json_object_new_string(
					q->stk->bad_reason));
			if (um) {
				json_object_array_add(unmappable, json_object_get(um));
				json_object_object_add(j, "unmappable", um);
			}
			if (!stack_done) {
				json_object_object_add(root, "stack", report_stack_hops_json(q->stk));
				stack_done = 1;
			}
			json_object *cj = report_stack_copies_json(q->stk);

			for (size_t c = 0; c < json_object_array_length(cj); c++)
				json_object_array_add(copies, json_object_get(
					json_object_array_get_idx(cj, c)));
			json_object_put(cj);
		}
		json_object_object_add(j, "error", json_object_new_string(
			m->from_log ? "kernel-log" : "query"));
		json_object_object_add(j, "format", json_object_new_string(q->format));
		if (q->stale[0])
			json_object_object_add(j, "not_mapped", json_object_new_string(q->stale));
		if (m->from_log) {
			json_object_object_add(j, "lines", json_object_new_int((int)q->lines));
			json_object_object_add(j, strcmp(q->format, "buffer-io") == 0 ? "block" :
					       strcmp(q->format, "xfs-metadata") == 0 ? "daddr" :
					       "sector", json_object_new_uint64(q->value));
		}
		if (q->tgt >= 0) {
			const struct tgt *tg = &m->tg[q->tgt];

			json_object_object_add(j, "role", json_object_new_string(
				map_role_name(tg->t.devices[q->dev_idx].role)));
			map_damage_group(&tg->d, q->group, &first, &count);
			for (size_t k = 0; k < count; k++)
				json_object_array_add(owners, report_owner_json(&tg->d, &tg->t,
						      &tg->d.owners[first + k]));
		}
		json_object_object_add(j, "owners", owners);
		json_object_array_add(errs, j);
	}
	json_object_object_add(root, "media_errors", errs);
	if (!stack_done)
		json_object_object_add(root, "stack", json_object_new_array());
	json_object_object_add(root, "copies", copies);
	json_object_object_add(root, "unmappable", unmappable);
	json_object_object_add(root, "damaged_files", files);
	json_object_object_add(root, "damaged_metadata", meta);
	if (m->from_log) {
		json_object *kl = json_object_new_object(), *u = json_object_new_array();
		json_object *unk = json_object_new_array();

		json_object_object_add(kl, "lines", json_object_new_int((int)m->lines));
		json_object_object_add(kl, "matched", json_object_new_int((int)m->matched));
		json_object_object_add(kl, "ranges", json_object_new_int((int)m->nr_q));
		json_object_object_add(kl, "ignored", json_object_new_int((int)m->ignored));
		json_object_object_add(kl, "not_kernel", json_object_new_int((int)m->not_kernel));
		json_object_object_add(kl, "kernel_lines",
				       json_object_new_int((int)m->kernel_lines));
		json_object_object_add(kl, "too_long", json_object_new_int((int)m->too_long));
		json_object_object_add(kl, "dropped", json_object_new_int((int)m->dropped));
		json_object_object_add(kl, "logged_before_device",
				       json_object_new_int((int)m->nr_stale));
		json_object_object_add(kl, "unusable", json_object_new_int((int)m->nr_unusable));
		for (unsigned i = 0; i < m->nr_unusable && i < MAP_SHOW_UNUSABLE; i++)
			json_object_array_add(u, json_object_new_string(m->unusable[i]));
		json_object_object_add(kl, "unusable_lines", u);
		for (unsigned i = 0; i < m->nr_unknown && i < 16; i++)
			json_object_array_add(unk, json_object_new_string(m->unknown[i]));
		json_object_object_add(kl, "unknown_devices", unk);
		json_object_object_add(root, "kernel_log", kl);
	}
	json_object_object_add(root, "notes", notes);
	json_object_object_add(root, "exit_status", json_object_new_int((int)m->exit_bits));
	return root;
}

static int write_json(const struct map_run *m, const char *path)
{
	json_object *root = answer_json(m);
	const char *s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_NOSLASHESCAPE);
	struct report_out o;
	int ret = report_out_open(path, 0600, &o);

	if (ret == 0) {
		if (fputs(s, o.f) < 0 || fputc('\n', o.f) < 0)
			ret = -EIO;
		ret = report_out_close(&o, ret);
	}
	json_object_put(root);
	return ret;
}

static void print_answer(const struct map_run *m, FILE *f)
{
	char esc[512];

	for (size_t i = 0; i < m->nr_q; i++) {
		const struct query *q = &m->q[i];
		size_t first = 0, count = 0;

		fprintf(f, "%s offset %" PRIu64 " length %" PRIu64, q->stk ? q->asked_dev :
			q->devpath, q->stk ? q->asked_off : q->offset, q->length);
		if (m->from_log)
			fprintf(f, "  (%s %" PRIu64 ", %u line%s)", strcmp(q->format, "buffer-io") ?
				strcmp(q->format, "xfs-metadata") ? "sector" : "daddr" : "block",
				q->value, q->lines, q->lines == 1 ? "" : "s");
		fputc('\n', f);
		if (q->stk)
			report_stack_print(f, q->stk);
		if (q->no_owner)
			continue;
		if (q->tgt < 0) {
			fprintf(f, "      %s\n", q->stale[0] ? q->stale : "not mapped");
			continue;
		}
		const struct tgt *tg = &m->tg[q->tgt];

		map_damage_group(&tg->d, q->group, &first, &count);
		for (size_t k = 0; k < count; k++) {
			const struct map_owner *o = &tg->d.owners[first + k];

			if (o->kind == MAP_OWN_FREE)
				fprintf(f, "      free space (nothing stored there)\n");
			else
				report_print_owner(f, &tg->d, &tg->t, o);
		}
	}
	for (size_t k = 0; k < m->nr_tg; k++) {
		const struct tgt *tg = &m->tg[k];

		if (!tg->open) {
			fprintf(f, "\n%s: %s\n", tg->devpath, tg->err);
			continue;
		}
		if (tg->d.nr_files || tg->d.nr_meta)
			fprintf(f, "\n== %s (%s)\n", target_name(tg), tg->t.fs_type);
		report_print_owners(f, &tg->d, &tg->t, !m->from_log);
		report_print_notes(f, &tg->d);
		if (tg->err[0])
			fprintf(f, "\nerror: %s\n", tg->err);
	}
	if (m->from_log) {
		fprintf(f, "\nkernel log: %u line%s, %u naming a failed range (%zu distinct), "
			"%u unusable", m->lines, m->lines == 1 ? "" : "s", m->matched, m->nr_q,
			m->nr_unusable);
		if (m->not_kernel)
			fprintf(f, ", %u not from the kernel (ignored)", m->not_kernel);
		if (m->nr_stale)
			fprintf(f, ", %u logged before their device or filesystem appeared (not "
				"mapped)", m->nr_stale);
		if (m->too_long)
			fprintf(f, ", %u longer than %d bytes (dropped)", m->too_long,
				MAP_KLOG_MAX_LINE);
		if (m->dropped)
			fprintf(f, ", %u past %d distinct ranges (dropped)", m->dropped,
				MAP_KLOG_MAX_RANGES);
		if (m->nr_unknown) {
			fprintf(f, ", on unknown devices:");
			for (unsigned i = 0; i < m->nr_unknown && i < 16; i++)
				fprintf(f, " %s", report_escape(m->unknown[i], esc, sizeof(esc)));
		}
		fputc('\n', f);
		for (unsigned i = 0; i < m->nr_unusable && i < MAP_SHOW_UNUSABLE; i++)
			fprintf(f, "  unusable: %s\n", report_escape(m->unusable[i], esc, sizeof(esc)));
	}
	if (!m->nr_q && !m->from_log)
		fprintf(f, "nothing to map\n");
}

int cli_map_main(int argc, char **argv)
{
	enum { O_JSON = 256, O_SECTOR, O_COUNT, O_KLOG, O_BS };
	static const struct option opts[] = {
		{ "json", required_argument, NULL, O_JSON },
		{ "sector", required_argument, NULL, O_SECTOR },
		{ "count", required_argument, NULL, O_COUNT },
		{ "kernel-log", no_argument, NULL, O_KLOG },
		{ "block-size", required_argument, NULL, O_BS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct map_run m;
	const char *json = NULL;
	uint64_t sector = 0, count = 1;
	int have_sector = 0, quiet = 0, c, ret, status;

	memset(&m, 0, sizeof(m));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case O_JSON:
			json = optarg;
			break;
		case O_SECTOR:
		case O_COUNT: {
			char *end;
			uint64_t v;

			errno = 0;
			v = strtoull(optarg, &end, 0);
			if (errno || *end || end == optarg || optarg[0] == '-' ||
			    (c == O_COUNT && v == 0)) {
				report_err("bad --%s '%s': give a number", c == O_SECTOR ? "sector" :
					"count", optarg);
				return REPORT_EXIT_USAGE;
			}
			if (c == O_SECTOR) {
				sector = v;
				have_sector = 1;
			} else {
				count = v;
			}
			break;
		}
		case O_KLOG:
			m.from_log = 1;
			break;
		case O_BS:
			if (report_parse_size(optarg, &m.block_size) || m.block_size < 512 ||
			    (m.block_size & (m.block_size - 1)) || m.block_size > 65536) {
				report_err("bad --block-size '%s': a power of two from 512 to 64k",
					optarg);
				return REPORT_EXIT_USAGE;
			}
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			map_usage(stdout);
			return 0;
		default:
			report_err("map: unknown or incomplete option '%s' (see mediascan map --help)",
				argv[optind - 1]);
			return REPORT_EXIT_USAGE;
		}
	}
	if (m.from_log) {
		if (have_sector || argc - optind > 1) {
			report_err("map --kernel-log takes at most one FILE, and no DEVICE or --sector");
			return REPORT_EXIT_USAGE;
		}
		if (report_out_refuse("map", "--json", json))
			return REPORT_EXIT_USAGE;
		ret = read_log(&m, optind < argc ? argv[optind] : NULL);
		if (ret)
			goto out_free;
	} else {
		uint64_t off = 0, len = 0;
		unsigned dev_idx = 0;
		struct tgt *tg;

		if (optind >= argc) {
			report_err("map: name a DEVICE and an OFFSET (or --sector N), or --kernel-log");
			return REPORT_EXIT_USAGE;
		}
		if (have_sector ? argc - optind != 1 : argc - optind < 2 || argc - optind > 3) {
			report_err("map: give DEVICE OFFSET [LENGTH] or DEVICE --sector N [--count N]");
			return REPORT_EXIT_USAGE;
		}
		if (have_sector) {
			if (__builtin_mul_overflow(sector, 512, &off) ||
			    __builtin_mul_overflow(count, 512, &len) || off + len < off) {
				report_err("map: --sector %" PRIu64 " --count %" PRIu64
					" out of range: the bytes do not fit 64 bits", sector,
					count);
				return REPORT_EXIT_USAGE;
			}
		} else if (report_parse_size(argv[optind + 1], &off) ||
			   (argc - optind == 3 && (report_parse_size(argv[optind + 2], &len) ||
						   len == 0))) {
			report_err("map: bad OFFSET or LENGTH '%s %s': give bytes, e.g. 1048576 4k",
				argv[optind + 1], argc - optind == 3 ? argv[optind + 2] : "");
			return REPORT_EXIT_USAGE;
		}
		if (len > UINT64_MAX - off) {
			report_err("map: OFFSET + LENGTH out of range: the bytes do not fit 64 bits");
			return REPORT_EXIT_USAGE;
		}
		if (report_out_refuse("map", "--json", json))
			return REPORT_EXIT_USAGE;
		tg = target_for(&m, argv[optind], &dev_idx);
		if (!tg) {
			ret = REPORT_EXIT_OPERATIONAL;
			goto out_free;
		}
		if (!tg->open) {
			report_err("%s", tg->err);
			ret = tg->err_class == MAP_TERR_USAGE ? REPORT_EXIT_USAGE :
							      REPORT_EXIT_OPERATIONAL;
			goto out_free;
		}
		if (!len)
			len = tg->t.devices[dev_idx].info.logical_block_size ?
			      tg->t.devices[dev_idx].info.logical_block_size : 512;
		if (off >= tg->t.devices[dev_idx].info.size_bytes) {
			report_err("map: offset %" PRIu64 " is past the end of %s (%" PRIu64 " bytes)",
				off, argv[optind], tg->t.devices[dev_idx].info.size_bytes);
			ret = REPORT_EXIT_USAGE;
			goto out_free;
		}
		if (len > tg->t.devices[dev_idx].info.size_bytes - off)
			len = tg->t.devices[dev_idx].info.size_bytes - off;
		ret = add_query(&m, tg->devpath, off, len, "query", 0);
		if (ret < 0) {
			ret = REPORT_EXIT_OPERATIONAL;
			goto out_free;
		}
	}
	if (geteuid() != 0)
		report_err("warning: not root: GETFSMAP, bulkstat and open-by-handle need "
			"CAP_SYS_ADMIN; owners may be missing");
	ret = map_all(&m);
	if (ret < 0) {
		report_err("mapping failed: %s", strerror(-ret));
		ret = REPORT_EXIT_OPERATIONAL;
		goto out_free;
	}
	for (size_t k = 0; k < m.nr_tg; k++)
		if (!m.tg[k].open && !m.from_log)
			m.exit_bits |= REPORT_EXIT_OPERATIONAL;
	/* README's exit table: a line naming an unknown device, past a device's end or
	 * otherwise unusable, or dropped, is a range not checked: bit 4 */
	if (m.from_log && (m.nr_unknown || m.nr_unusable || m.too_long || m.dropped))
		m.exit_bits |= REPORT_EXIT_OPERATIONAL;
	if (m.from_log && !m.kernel_lines) {
		if (!m.lines)
			report_err("map: the kernel log is empty: nothing was checked");
		else
			report_err("map: none of the %u lines is a kernel log line (dmesg, journalctl "
				"-k, syslog, /dev/kmsg): nothing was checked", m.lines);
		m.exit_bits |= REPORT_EXIT_OPERATIONAL;
	}
	if (json) {
		ret = write_json(&m, json);
		if (ret < 0) {
			report_err("cannot write the JSON answer to %s: %s", json,
				report_create_error(ret));
			m.exit_bits |= REPORT_EXIT_OPERATIONAL;
		}
	}
	if (!quiet && !(json && strcmp(json, "-") == 0))
		print_answer(&m, stdout);
	ret = (int)m.exit_bits;
out_free:
	status = ret;
	for (size_t k = 0; k < m.nr_tg; k++) {
		map_damage_free(&m.tg[k].d);
		map_target_close(&m.tg[k].t);
	}
	free(m.tg);
	for (size_t i = 0; i < m.nr_q; i++)
		free(m.q[i].stk);
	free(m.q);
	for (unsigned i = 0; i < m.nr_unusable && i < MAP_SHOW_UNUSABLE; i++)
		free(m.unusable[i]);
	return status;
}
