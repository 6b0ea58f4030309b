/*
 * klog/kmsg.c - the live kernel log through kernel/kio_kmsg.c, so that cli/ reads it
 * through mapping (which parses its lines) rather than calling kernel/ itself.
 */
#include "kio.h"
#include "kmsg.h"

int map_kmsg_open(void)
{
	return kio_kmsg_open();
}

ssize_t map_kmsg_read(int h, char *buf, size_t len)
{
	return kio_kmsg_read(h, buf, len);
}

void map_kmsg_close(int h)
{
	kio_close(h);
}
