/*
 * klog/kmsg.h - the live kernel log (/dev/kmsg) record by record, for `mediascan map
 * --kernel-log` (kmsg.c); klog.h parses what it gives.
 */
#ifndef MEDIASCAN_KMSG_H
#define MEDIASCAN_KMSG_H

#include <stddef.h>
#include <sys/types.h>

/**
 * map_kmsg_open() - open the kernel log at its oldest record.
 *
 * Return: a handle, or -errno (-EPERM, -EACCES: not allowed to read it).
 */
int map_kmsg_open(void);
/**
 * map_kmsg_read() - read the next record of the kernel log.
 * @h: the handle
 * @buf: set to the record ("PRI,SEQ,USEC,FLAGS;message", NUL-terminated)
 * @len: size of buf
 *
 * Return: its length, 0 when no more are waiting, or -errno.
 */
ssize_t map_kmsg_read(int h, char *buf, size_t len);
/**
 * map_kmsg_close() - release the handle of map_kmsg_open().
 * @h: the handle
 */
void map_kmsg_close(int h);

#endif
