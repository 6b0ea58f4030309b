/*
 * kernel/kio_ioprio.c - the ioprio_set() syscall: the scan's I/O class (idle, or best effort
 * at a level). Returns 0 or -errno.
 */
#include <errno.h>
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
