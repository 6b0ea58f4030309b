/*
 * kernel/kio_fs.c - filesystem-level kernel interfaces: /proc/self/mountinfo lookups,
 * FS_IOC_GETFSMAP, XFS_IOC_FSGEOMETRY and FS_IOC_GETVERSION (an inode's generation).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>
#include <xfs/xfs.h>

#include "kio.h"
#include "kio_xfs.h"

/* Undo mountinfo's octal escapes (\040 for space) in place. */
static void unescape_octal(char *s)
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

/* Parse one mountinfo line into m; 0 on success. */
static int parse_mountinfo_line(char *line, struct kio_mount *m)
{
	char *save = NULL, *tok, *fields[16];
	unsigned int maj, min, n = 0;
	char *sep;

	/* Fields before " - " are positional; after it: fstype source superopts. */
	sep = strstr(line, " - ");
	if (!sep)
		return -EINVAL;
	*sep = '\0';
	for (tok = strtok_r(line, " ", &save); tok && n < 16; tok = strtok_r(NULL, " ", &save))
		fields[n++] = tok;
	if (n < 5 || sscanf(fields[2], "%u:%u", &maj, &min) != 2)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->devt = makedev(maj, min);
	snprintf(m->mount_point, sizeof(m->mount_point), "%s", fields[4]);
	unescape_octal(m->mount_point);
	save = NULL;
	tok = strtok_r(sep + 3, " \n", &save);
	if (!tok)
		return -EINVAL;
	snprintf(m->fs_type, sizeof(m->fs_type), "%s", tok);
	tok = strtok_r(NULL, " \n", &save);
	if (tok) {
		snprintf(m->source, sizeof(m->source), "%s", tok);
		unescape_octal(m->source);
		tok = strtok_r(NULL, " \n", &save);
		if (tok)
			snprintf(m->super_opts, sizeof(m->super_opts), "%s", tok);
	}
	return 0;
}

/* Walk mountinfo; keep the last match (the topmost mount) of path or devt. */
static int mount_lookup(const char *path, dev_t devt, struct kio_mount *out)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int found = -ENOENT;
	struct kio_mount *m;

	if (!f)
		return -errno;
	m = malloc(sizeof(*m));
	if (!m) {
		fclose(f);
		return -ENOMEM;
	}
	while (getline(&line, &cap, f) > 0) {
		if (parse_mountinfo_line(line, m))
			continue;
		if (path ? strcmp(m->mount_point, path) == 0 : m->devt == devt) {
			*out = *m;
			found = 0;
			if (!path)
				break;
		}
	}
	free(line);
	free(m);
	fclose(f);
	return found;
}

int kio_mount_find(const char *path, struct kio_mount *m)
{
	return mount_lookup(path, 0, m);
}

int kio_mount_find_dev(dev_t devt, struct kio_mount *m)
{
	return mount_lookup(NULL, devt, m);
}

int kio_getfsmap(int fd, struct fsmap_head *head)
{
	if (ioctl(fd, FS_IOC_GETFSMAP, head) < 0)
		return -errno;
	if (head->fmh_entries == 0)
		return 0;
	/* Continue after the last record returned. */
	head->fmh_keys[0] = head->fmh_recs[head->fmh_entries - 1];
	return (int)head->fmh_entries;
}

int kio_getfsmap_first_dev(int fd, uint32_t low_dev, uint32_t *rec_dev)
{
	struct fsmap_head *head = calloc(1, fsmap_sizeof(1));
	int ret = 0;

	if (!head)
		return -ENOMEM;
	head->fmh_count = 1;
	head->fmh_keys[0].fmr_device = low_dev;
	head->fmh_keys[1].fmr_device = UINT32_MAX;
	head->fmh_keys[1].fmr_physical = UINT64_MAX;
	head->fmh_keys[1].fmr_owner = UINT64_MAX;
	head->fmh_keys[1].fmr_offset = UINT64_MAX;
	head->fmh_keys[1].fmr_flags = UINT32_MAX;
	if (ioctl(fd, FS_IOC_GETFSMAP, head) < 0)
		ret = -errno;
	else if (head->fmh_entries) {
		*rec_dev = head->fmh_recs[0].fmr_device;
		ret = 1;
	}
	free(head);
	return ret;
}

int kio_xfs_geometry(int fd, struct kio_xfs_geom *g)
{
	struct xfs_fsop_geom geo;

	memset(&geo, 0, sizeof(geo));
	if (ioctl(fd, XFS_IOC_FSGEOMETRY, &geo) < 0)
		return -errno;
	memset(g, 0, sizeof(*g));
	g->blocksize = geo.blocksize;
	g->agblocks = geo.agblocks;
	g->agcount = geo.agcount;
	g->datablocks = geo.datablocks;
	g->logblocks = geo.logblocks;
	g->logstart = geo.logstart;
	g->rtblocks = geo.rtblocks;
	g->sectsize = geo.sectsize;
	g->has_rmapbt = !!(geo.flags & XFS_FSOP_GEOM_FLAGS_RMAPBT);
	g->has_reflink = !!(geo.flags & XFS_FSOP_GEOM_FLAGS_REFLINK);
#ifdef XFS_FSOP_GEOM_FLAGS_PARENT
	g->has_parent = !!(geo.flags & XFS_FSOP_GEOM_FLAGS_PARENT);
#else
	g->has_parent = !!(geo.flags & (1U << 25));
#endif
	memcpy(g->uuid, geo.uuid, sizeof(g->uuid));
	return 0;
}

int kio_inode_ident(const char *path, uint64_t *ino, uint32_t *gen)
{
	struct stat st;
	int fd, version = 0, ret = 0;

	/* O_PATH would not do: FS_IOC_GETVERSION needs a real open; no follow, no blocking. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out_close;
	}
	*ino = (uint64_t)st.st_ino;
	if (ioctl(fd, FS_IOC_GETVERSION, &version) < 0) {
		ret = -errno;
		goto out_close;
	}
	*gen = (uint32_t)version;
out_close:
	close(fd);
	return ret;
}
