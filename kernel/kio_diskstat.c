/*
 * kernel/kio_diskstat.c - kernel interfaces for pacing: block device I/O counters from
 * /sys/class/block/NAME/stat (to see foreground load) and the ioprio_set() syscall (to
 * put the scan in a lower I/O class).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "kio.h"

/* Fallbacks for <linux/ioprio.h>, which old headers lack (values are uapi, stable). */
#ifndef IOPRIO_CLASS_SHIFT
#define IOPRIO_CLASS_SHIFT 13
#endif
#ifndef IOPRIO_WHO_PROCESS
#define IOPRIO_WHO_PROCESS 1
#endif
#define KIO_IOPRIO_CLASS_BE 2
#define KIO_IOPRIO_CLASS_IDLE 3
#define KIO_IOPRIO_VALUE(cls, data) (((cls) << IOPRIO_CLASS_SHIFT) | (data))

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

/*
 * The I/O class is honoured by the BFQ scheduler (an idle-class reader gets the disk only
 * when nobody else wants it) and, since Linux 5.14, by mq-deadline (one queue per class,
 * idle dispatched last, but aged in after prio_aging_expire, 10 s by default). "none" (the
 * default for NVMe) and kyber ignore it. It is never a substitute for the governor's own
 * backoff. ioprio is per thread: call it in the thread that submits the reads; io_uring
 * reads take the submitter's class when their sqe->ioprio is 0.
 */
static int kio_ioprio_set(int value)
{
	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, value) < 0)
		return -errno;
	return 0;
}

int kio_ioprio_set_idle(void)
{
	return kio_ioprio_set(KIO_IOPRIO_VALUE(KIO_IOPRIO_CLASS_IDLE, 0));
}

int kio_ioprio_set_be(int level)
{
	if (level < 0 || level > 7)
		return -EINVAL;
	return kio_ioprio_set(KIO_IOPRIO_VALUE(KIO_IOPRIO_CLASS_BE, level));
}
