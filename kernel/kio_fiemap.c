/*
 * kernel/kio_fiemap.c - what mapping needs beyond GETFSMAP: FS_IOC_FIEMAP, opening inodes by
 * handle (open_by_handle_at), the partitions the kernel knows of a disk (sysfs), and the
 * kernel log (/dev/kmsg). Every function returns 0/count or -errno.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <linux/fs.h>
#include <linux/fiemap.h>

#include "kio.h"

int kio_fiemap(int fd, struct fiemap *fm)
{
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0)
		return errno == ENOTTY ? -EOPNOTSUPP : -errno;
	return 0;
}

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

int kio_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	/* Start at the oldest record still in the buffer. */
	lseek(fd, 0, SEEK_DATA);
	return fd;
}

ssize_t kio_kmsg_read(int fd, char *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(fd, buf, len - 1);

		if (n >= 0) {
			buf[n] = '\0';
			return n;
		}
		if (errno == EINTR || errno == EPIPE)	/* EPIPE: records were overwritten */
			continue;
		if (errno == EAGAIN)
			return 0;
		return -errno;
	}
}

/* Read a decimal number from /sys/class/block/NAME/ATTR. */
static int sys_u64(const char *name, const char *attr, uint64_t *v)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/class/block/%.255s/%.64s", name, attr);
	return kio_sysfs_u64(path, v);
}

int kio_devt_of_name(const char *name, dev_t *devt)
{
	char path[PATH_MAX], buf[64];
	unsigned ma, mi;

	if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	if (kio_sysfs_read(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return -ENOENT;
	*devt = makedev(ma, mi);
	return 0;
}

static int cmp_part(const void *a, const void *b)
{
	const struct kio_part *x = a, *y = b;

	return x->start_bytes < y->start_bytes ? -1 : x->start_bytes > y->start_bytes;
}

int kio_partitions(const char *disk_name, struct kio_part *out, unsigned max)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/block/%s", disk_name);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && n < max) {
		char child[PATH_MAX];
		uint64_t v;

		if (strncmp(de->d_name, disk_name, strlen(disk_name)) != 0)
			continue;
		snprintf(child, sizeof(child), "%s/%s", disk_name, de->d_name);
		if (sys_u64(child, "partition", &v) < 0)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].number = (unsigned)v;
		if (sys_u64(child, "start", &v) < 0)
			continue;
		out[n].start_bytes = v * 512;
		if (sys_u64(child, "size", &v) < 0)
			continue;
		out[n].size_bytes = v * 512;
		snprintf(out[n].name, sizeof(out[n].name), "%.63s", de->d_name);
		if (kio_devt_of_name(out[n].name, &out[n].devt) < 0)
			continue;
		n++;
	}
	closedir(dir);
	qsort(out, n, sizeof(*out), cmp_part);
	return (int)n;
}

/* Undo mountinfo's octal escapes (\040 for space) in place. */
static void mi_unescape(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

/* Does option key=PATH of the comma-separated opts name block device devt? */
static int opt_names_dev(const char *opts, const char *key, dev_t devt)
{
	size_t klen = strlen(key);
	const char *p = opts;

	while (p && *p) {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			char path[PATH_MAX];
			size_t n = strcspn(p + klen + 1, ",");
			dev_t d;

			if (n < sizeof(path)) {
				memcpy(path, p + klen + 1, n);
				path[n] = '\0';
				if (kio_devt_of_path(path, &d) == 0 && d == devt)
					return 1;
			}
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

/*
 * Return 1 when the ext4 filesystem mounted at mp reports records for device devt through
 * GETFSMAP: its external journal, which mountinfo does not name. ext4 accepts only its own
 * devices (and 0, UINT32_MAX) as keys and lists the journal only from physical 0.
 */
static int ext4_owns_dev(const char *mp, dev_t devt)
{
	uint32_t got;
	int fd, found;

	if ((uint32_t)devt != devt)
		return 0;
	fd = open(mp, O_RDONLY | O_CLOEXEC | O_DIRECTORY);
	if (fd < 0)
		return 0;
	found = kio_getfsmap_first_dev(fd, (uint32_t)devt, &got) == 1 && got == (uint32_t)devt;
	close(fd);
	return found;
}

int kio_mount_find_aux_dev(dev_t devt, struct kio_mount *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *mp = NULL;
	size_t cap = 0;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *sep = strstr(line, " - "), *save = NULL, *tok, *fstype, *opts;
		unsigned n = 0;
		int is_ext4;

		if (!sep)
			continue;
		*sep = '\0';
		fstype = strtok_r(sep + 3, " \n", &save);
		if (!fstype || !strtok_r(NULL, " \n", &save))
			continue;
		opts = strtok_r(NULL, " \n", &save);
		is_ext4 = strcmp(fstype, "ext4") == 0 || strcmp(fstype, "ext3") == 0 ||
			  strcmp(fstype, "ext2") == 0;
		if (!opts || (!is_ext4 && !opt_names_dev(opts, "logdev", devt) &&
			      !opt_names_dev(opts, "rtdev", devt)))
			continue;
		save = NULL;
		for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			if (n++ == 4)
				break;
		if (!tok)
			continue;
		if (is_ext4) {
			char *ep = strdup(tok);

			if (!ep) {
				ret = -ENOMEM;
				break;
			}
			mi_unescape(ep);
			n = ext4_owns_dev(ep, devt);
			free(ep);
			if (!n)
				continue;
		}
		free(mp);
		mp = strdup(tok);
		if (!mp) {
			ret = -ENOMEM;
			break;
		}
		mi_unescape(mp);
	}
	free(line);
	fclose(f);
	if (mp) {
		ret = kio_mount_find(mp, m);
		free(mp);
	}
	return ret;
}
