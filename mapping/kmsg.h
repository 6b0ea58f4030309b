/*
 * mapping/kmsg.h - the live kernel log (/dev/kmsg) record by record, for `mediascan map
 * --kernel-log` (kmsg.c); klog.h parses what it gives.
 */
#ifndef MEDIASCAN_KMSG_H
#define MEDIASCAN_KMSG_H

#include <stddef.h>
#include <sys/types.h>

/* Return a handle on the kernel log positioned at its oldest record, or -errno (-EPERM,
 * -EACCES: not allowed to read it). */
int map_kmsg_open(void);
/* Return the length of the next record ("PRI,SEQ,USEC,FLAGS;message", NUL-terminated) copied
 * into buf, 0 when no more are waiting, or -errno. */
ssize_t map_kmsg_read(int h, char *buf, size_t len);
/* Release the handle of map_kmsg_open. */
void map_kmsg_close(int h);

#endif
