/*
 * integrity/verify.c - the table of verify methods, how one is chosen (asked for, or the
 * best one that works on every device of the target), and the shared failure vocabulary.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kio_dev.h"
#include "verify.h"

/*
 * The read method is the scan engine's own path (VFY_CAP_ENGINE_READ): the executor reads
 * with O_DIRECT, nothing here; verify() says so, for a caller that did not look at caps.
 */
static int read_verify(struct vfy_dev *d, uint64_t lba, uint32_t nlb, struct vfy_result *res)
{
	(void)d;
	(void)lba;
	(void)nlb;
	(void)res;
	return -EOPNOTSUPP;
}

const struct vfy_ops vfy_read = {
	.name = "read",
	.summary = "read every block into host memory with O_DIRECT and discard it",
	.moves_data = 1,
	.caps = VFY_CAP_ENGINE_READ,
	.verify = read_verify,
};

static const struct vfy_ops *const methods[] = {
	&vfy_read, &vfy_ata_read, &vfy_nvme_verify, &vfy_scsi_verify, &vfy_pi_read,
	&vfy_xfs_verify,
};

/* What auto tries, best first: drive-side verification moves no data. */
static const struct vfy_ops *const auto_order[] = {
	&vfy_nvme_verify, &vfy_scsi_verify, &vfy_xfs_verify,
};

const char *vfy_method_names(void)
{
	return "auto|read|ata-read|nvme-verify|scsi-verify|pi-read|xfs-verify";
}

int vfy_method_lookup(const char *name, const struct vfy_ops **ops, char *why, size_t len)
{
	*ops = NULL;
	if (!name || strcmp(name, "auto") == 0)
		return 0;
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		if (strcmp(methods[i]->name, name) == 0) {
			*ops = methods[i];
			return 0;
		}
	}
	snprintf(why, len, "unknown method '%s' (choose %s)", name, vfy_method_names());
	return -EINVAL;
}

/* Return 0 when ops works on every device, or -EOPNOTSUPP with the first refusal in why. */
static int probe_all(const struct vfy_ops *ops, struct vfy_dev *devs, unsigned nr, char *why,
		     size_t len)
{
	char one[256];
	int ret;

	if (!ops->probe)
		return 0;
	for (unsigned i = 0; i < nr; i++) {
		one[0] = '\0';
		ret = ops->probe(&devs[i], one, sizeof(one));
		if (ret < 0) {
			snprintf(why, len, "%s: %s", devs[i].path, one[0] ? one : strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int vfy_method_select(const struct vfy_ops *asked, struct vfy_dev *devs, unsigned nr,
		      const struct vfy_ops **out, char *why, size_t len)
{
	char refused[512] = "", one[256];
	size_t n = 0;
	int ret;

	*out = NULL;
	if (asked) {
		ret = probe_all(asked, devs, nr, one, sizeof(one));
		if (ret < 0) {
			snprintf(why, len, "%s cannot run here: %s", asked->name, one);
			return ret;
		}
		*out = asked;
		snprintf(why, len, "asked for with --method");
		return 0;
	}
	for (size_t i = 0; i < sizeof(auto_order) / sizeof(auto_order[0]); i++) {
		one[0] = '\0';
		if (probe_all(auto_order[i], devs, nr, one, sizeof(one)) == 0) {
			*out = auto_order[i];
			snprintf(why, len, "auto: %s works on every device%s%s",
				 auto_order[i]->name, refused[0] ? "; refused: " : "", refused);
			return 0;
		}
		if (n < sizeof(refused))
			n += (size_t)snprintf(refused + n, sizeof(refused) - n, "%s%s (%s)",
					      n ? "; " : "", auto_order[i]->name, one);
	}
	*out = &vfy_read;
	snprintf(why, len, "auto: no drive-side method works (%s)", refused);
	return 0;
}

const char *vfy_fail_name(enum vfy_fail f)
{
	switch (f) {
	case VFY_FAIL_NONE:
		return "none";
	case VFY_FAIL_MEDIUM:
		return "medium";
	case VFY_FAIL_PI_GUARD:
		return "pi-guard";
	case VFY_FAIL_PI_APP:
		return "pi-app-tag";
	case VFY_FAIL_PI_REF:
		return "pi-ref-tag";
	case VFY_FAIL_DEVICE:
		return "device";
	}
	return "unknown";
}

int vfy_fail_errno(const struct vfy_result *res)
{
	switch (res->fail) {
	case VFY_FAIL_MEDIUM:
		return -ENODATA;
	case VFY_FAIL_PI_GUARD:
	case VFY_FAIL_PI_APP:
	case VFY_FAIL_PI_REF:
		return -EILSEQ;
	default:
		return -EIO;
	}
}

enum vfy_fail vfy_nvme_status_fail(uint32_t status)
{
	switch (status & 0x7ff) {
	case 0:
		return VFY_FAIL_NONE;
	case KIO_NVME_SC_UNRECOVERED_READ:
		return VFY_FAIL_MEDIUM;
	case KIO_NVME_SC_GUARD_CHECK:
		return VFY_FAIL_PI_GUARD;
	case KIO_NVME_SC_APPTAG_CHECK:
		return VFY_FAIL_PI_APP;
	case KIO_NVME_SC_REFTAG_CHECK:
		return VFY_FAIL_PI_REF;
	}
	return VFY_FAIL_DEVICE;
}
