/*
 * kernel/kio_disk_hw.c - what a disk says it is, from sysfs: vendor and model, the driver of
 * the adapter it hangs off (the scsi_host's proc_name, or the device's own driver), and for a
 * disk behind libata its port and device (ata2.00), which libata's kernel log lines name.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kio.h"

/* Copy the last component of the symlink at path into out; -errno when it is not one. */
static int link_base(const char *path, char *out, size_t len)
{
	char t[PATH_MAX];
	ssize_t n = readlink(path, t, sizeof(t) - 1);
	const char *b;

	if (n < 0)
		return -errno;
	t[n] = '\0';
	b = strrchr(t, '/');
	b = b ? b + 1 : t;
	if (strlen(b) >= len)
		return -ENAMETOOLONG;
	memcpy(out, b, strlen(b) + 1);
	return 0;
}

/* Trim trailing blanks (SCSI INQUIRY strings are space padded). */
static void trim(char *s)
{
	for (size_t n = strlen(s); n && (s[n - 1] == ' ' || s[n - 1] == '\n'); n--)
		s[n - 1] = '\0';
}

/* Return 0 and set *port and *dev from a device path holding "/ataN/" and "/hostH/targetH:C:T/". */
static int ata_of_path(const char *real, int *port, int *dev)
{
	const char *a = strstr(real, "/ata"), *t;
	unsigned h, c, id;

	while (a && (a[4] < '0' || a[4] > '9'))
		a = strstr(a + 1, "/ata");
	if (!a)
		return -ENOENT;
	*port = atoi(a + 4);
	t = strstr(a, "/target");
	/* libata's SCSI address: channel 0, target id = device on the port (PATA master 0,
	 * slave 1); a port multiplier's links use the channel */
	if (!t || sscanf(t, "/target%u:%u:%u", &h, &c, &id) != 3)
		return -ENOENT;
	*dev = (int)(c ? c : id);
	return 0;
}

int kio_disk_hw(const char *sysfs, const char *disk_name, struct kio_disk_hw *hw)
{
	char p[PATH_MAX], real[PATH_MAX];
	const char *h;
	unsigned host;

	memset(hw, 0, sizeof(*hw));
	hw->ata_port = hw->ata_dev = -1;
	if (!sysfs)
		sysfs = "/sys";
	if (strchr(disk_name, '/') || !disk_name[0])
		return -EINVAL;
	snprintf(p, sizeof(p), "%s/block/%s", sysfs, disk_name);
	if (access(p, F_OK) < 0)
		return -ENOENT;
	snprintf(p, sizeof(p), "%s/block/%s/device/vendor", sysfs, disk_name);
	if (kio_sysfs_read(p, hw->vendor, sizeof(hw->vendor)) >= 0)
		trim(hw->vendor);
	snprintf(p, sizeof(p), "%s/block/%s/device/model", sysfs, disk_name);
	if (kio_sysfs_read(p, hw->model, sizeof(hw->model)) >= 0)
		trim(hw->model);
	snprintf(p, sizeof(p), "%s/block/%s/device", sysfs, disk_name);
	if (!realpath(p, real))
		return 0;
	h = strstr(real, "/host");
	while (h && sscanf(h, "/host%u/", &host) != 1)
		h = strstr(h + 1, "/host");
	if (h) {
		/* a SCSI disk: the adapter's driver says what carries it */
		snprintf(p, sizeof(p), "%s/class/scsi_host/host%u/proc_name", sysfs, host);
		if (kio_sysfs_read(p, hw->driver, sizeof(hw->driver)) >= 0)
			trim(hw->driver);
		ata_of_path(real, &hw->ata_port, &hw->ata_dev);
		return 0;
	}
	/* virtio_blk: the device's own driver; NVMe: the controller's (device/device) */
	snprintf(p, sizeof(p), "%s/block/%s/device/driver", sysfs, disk_name);
	if (link_base(p, hw->driver, sizeof(hw->driver)) < 0) {
		snprintf(p, sizeof(p), "%s/block/%s/device/device/driver", sysfs, disk_name);
		link_base(p, hw->driver, sizeof(hw->driver));
	}
	return 0;
}

int kio_ata_disk_name(const char *sysfs, int port, int dev, char *out, size_t len)
{
	char p[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int ret = -ENOENT;

	if (!sysfs)
		sysfs = "/sys";
	snprintf(p, sizeof(p), "%s/block", sysfs);
	d = opendir(p);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct kio_disk_hw hw;

		if (de->d_name[0] == '.')
			continue;
		if (kio_disk_hw(sysfs, de->d_name, &hw) == 0 && hw.ata_port == port &&
		    hw.ata_dev == dev) {
			snprintf(out, len, "%s", de->d_name);
			ret = 0;
			break;
		}
	}
	closedir(d);
	return ret;
}
