/*
 * kernel/kio_dm.c - a device-mapper device's table (DM_TABLE_STATUS with
 * DM_STATUS_TABLE_FLAG on /dev/mapper/control). Key material never leaves this file: a crypt
 * target's key field is replaced by "-" before the row is copied out, the parameters of
 * targets that are not mapped (integrity, thin, cache...) are dropped, and the ioctl buffer is
 * wiped before it is freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/dm-ioctl.h>

#include "kio.h"

#define DM_BUF_START (16 * 1024)
#define DM_BUF_MAX (1024 * 1024)

/* Targets whose parameters are kept: they hold devices and offsets, no secrets but crypt's. */
static int params_kept(const char *type)
{
	static const char *const kept[] = { "linear", "striped", "crypt", "multipath", "raid",
					    "flakey", "delay", "mirror", "thin", "thin-pool", NULL };

	for (unsigned i = 0; kept[i]; i++)
		if (strcmp(type, kept[i]) == 0)
			return 1;
	return 0;
}

/* Copy crypt params "cipher key iv_offset dev offset [opts]" with the key as "-". */
static int crypt_scrub(const char *in, char *out, size_t len)
{
	const char *p = in, *key, *key_end;
	int n;

	while (*p == ' ')
		p++;
	key = strchr(p, ' ');
	if (!key)
		return -EINVAL;
	while (*key == ' ')
		key++;
	key_end = strchr(key, ' ');
	if (!key_end)
		return -EINVAL;
	n = snprintf(out, len, "%.*s - %s", (int)(key - p - 1), p, key_end + 1);
	return n < 0 || (size_t)n >= len ? -EOVERFLOW : 0;
}

static void wipe_free(void *buf, size_t len)
{
	if (buf) {
		explicit_bzero(buf, len);
		free(buf);
	}
}

int kio_dm_table(dev_t devt, struct kio_dm_target *out, unsigned max)
{
	size_t len = DM_BUF_START;
	struct dm_ioctl *io = NULL;
	int fd, ret;

	fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		io = calloc(1, len);
		if (!io) {
			ret = -ENOMEM;
			goto out;
		}
		io->version[0] = DM_VERSION_MAJOR;
		io->version[1] = 0;
		io->version[2] = 0;
		io->data_size = (uint32_t)len;
		io->data_start = sizeof(*io);
		io->flags = DM_STATUS_TABLE_FLAG;
		io->dev = (uint64_t)((minor(devt) & 0xff) | (major(devt) << 8) |
				     ((minor(devt) & ~0xffu) << 12));
		if (ioctl(fd, DM_TABLE_STATUS, io) < 0) {
			ret = -errno;
			goto out;
		}
		if (!(io->flags & DM_BUFFER_FULL_FLAG))
			break;
		wipe_free(io, len);
		io = NULL;
		if (len >= DM_BUF_MAX) {
			ret = -E2BIG;
			goto out;
		}
		len *= 4;
	}
	ret = 0;
	{
		const char *data = (const char *)io + io->data_start;
		size_t off = 0, avail = io->data_size > io->data_start ?
					io->data_size - io->data_start : 0;

		for (uint32_t i = 0; i < io->target_count; i++) {
			const struct dm_target_spec *sp;
			const char *params;

			if (off + sizeof(*sp) > avail) {
				ret = -EPROTO;
				goto out;
			}
			sp = (const void *)(data + off);
			params = (const char *)(sp + 1);
			if (!memchr(params, '\0', avail - off - sizeof(*sp))) {
				ret = -EPROTO;
				goto out;
			}
			if ((unsigned)ret == max) {
				ret = -E2BIG;
				goto out;
			}
			struct kio_dm_target *t = &out[ret];

			memset(t, 0, sizeof(*t));
			t->start = sp->sector_start;
			t->length = sp->length;
			snprintf(t->type, sizeof(t->type), "%.*s", (int)sizeof(sp->target_type),
				 sp->target_type);
			if (strcmp(t->type, "crypt") == 0) {
				if (crypt_scrub(params, t->params, sizeof(t->params)) < 0)
					t->params[0] = '\0';
			} else if (params_kept(t->type)) {
				if (strlen(params) >= sizeof(t->params)) {
					ret = -EOVERFLOW;
					goto out;
				}
				snprintf(t->params, sizeof(t->params), "%s", params);
			}
			ret++;
			if (!sp->next || sp->next <= off)
				break;
			off = sp->next;
		}
	}
out:
	wipe_free(io, len);
	close(fd);
	return ret;
}
