/*
 * kernel/kio_handle.c - file handles: the handle type of a mount (name_to_handle_at) and
 * opening an inode by number and generation (open_by_handle_at). Returns an fd, 0 or -errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>

#include "kio.h"

/* A file handle with room for the formats we build (at most 12 bytes of f_handle). */
struct kio_fh {
	struct file_handle h;
	unsigned char bytes[128];
};

int kio_handle_type(int mount_fd, int *handle_type)
{
	struct kio_fh fh;
	int mount_id;

	memset(&fh, 0, sizeof(fh));
	fh.h.handle_bytes = sizeof(fh.bytes);
	if (name_to_handle_at(mount_fd, "", &fh.h, &mount_id, AT_EMPTY_PATH) < 0)
		return -errno;
	*handle_type = fh.h.handle_type;
	return 0;
}

int kio_open_inode(int mount_fd, int handle_type, uint64_t ino, uint32_t gen, int flags)
{
	struct kio_fh fh;
	uint32_t v32;
	int fd;

	memset(&fh, 0, sizeof(fh));
	fh.h.handle_type = handle_type;
	switch (handle_type) {
	case 1:				/* FILEID_INO32_GEN: u32 ino, u32 gen */
		if (ino > UINT32_MAX)
			return -EOVERFLOW;
		v32 = (uint32_t)ino;
		memcpy(fh.h.f_handle, &v32, 4);
		memcpy(fh.h.f_handle + 4, &gen, 4);
		fh.h.handle_bytes = 8;
		break;
	case 0x81:			/* XFS FILEID_INO32_GEN | 64-bit flag: u64 ino, u32 gen */
		memcpy(fh.h.f_handle, &ino, 8);
		memcpy(fh.h.f_handle + 8, &gen, 4);
		fh.h.handle_bytes = 12;
		break;
	default:
		return -EOPNOTSUPP;
	}
	fd = open_by_handle_at(mount_fd, &fh.h, O_RDONLY | O_CLOEXEC | O_NOCTTY | flags);
	return fd < 0 ? -errno : fd;
}
