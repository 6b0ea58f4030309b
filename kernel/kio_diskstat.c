/*
 * kernel/kio_diskstat.c - block device I/O counters from /sys/class/block/NAME/stat (the
 * governor sees foreground load in them). Returns a count, 0 or -errno.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kio.h"

#define KIO_DISKSTAT_MIN_FIELDS 11	/* every kernel since 2.6 */
#define KIO_DISKSTAT_MAX_FIELDS 17	/* Linux 5.5+: discard (4.18) and flush (5.5) */

int kio_diskstat_parse(const char *line, struct kio_diskstat *st)
{
	uint64_t v[KIO_DISKSTAT_MAX_FIELDS] = {0};
	const char *p = line;
	unsigned n = 0;

	if (!line || !st)
		return -EINVAL;
	for (;;) {
		char *end;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p || n == KIO_DISKSTAT_MAX_FIELDS)
			break;		/* fields a newer kernel may add are ignored */
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v[n] = strtoull(p, &end, 10);
		if (errno)
			return -EINVAL;
		if (*end && *end != ' ' && *end != '\t' && *end != '\n')
			return -EINVAL;
		p = end;
		n++;
	}
	if (n < KIO_DISKSTAT_MIN_FIELDS)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->read_ios = v[0];
	st->read_merges = v[1];
	st->read_sectors = v[2];
	st->read_ticks_ms = v[3];
	st->write_ios = v[4];
	st->write_merges = v[5];
	st->write_sectors = v[6];
	st->write_ticks_ms = v[7];
	st->in_flight = v[8];
	st->io_ticks_ms = v[9];
	st->time_in_queue_ms = v[10];
	st->discard_ios = v[11];
	st->discard_merges = v[12];
	st->discard_sectors = v[13];
	st->discard_ticks_ms = v[14];
	st->flush_ios = v[15];
	st->flush_ticks_ms = v[16];
	st->nr_fields = n;
	return (int)n;
}

int kio_diskstat_read(const char *disk_name, struct kio_diskstat *st)
{
	char path[PATH_MAX], buf[512];
	int ret;

	if (!disk_name || !*disk_name || strchr(disk_name, '/') || !strcmp(disk_name, ".") ||
	    !strcmp(disk_name, ".."))
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "/sys/class/block/%s/stat", disk_name) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	ret = kio_sysfs_read(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	ret = kio_diskstat_parse(buf, st);
	return ret < 0 ? ret : 0;
}
