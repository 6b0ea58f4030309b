/*
 * pass/method.c - choose the verify method for a scan target (--method): probe each of
 * the target's devices (integrity/), pick the asked or the best method, fall back to read
 * when SCSI VERIFY is refused, and hand the executor its method, devices and the SCSI
 * sense-based isolation for the read method.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pass_int.h"

static uint32_t xfs_dev_of_role(enum map_role role)
{
	switch (role) {
	case MAP_ROLE_LOG:
		return VFY_XFS_DEV_LOG;
	case MAP_ROLE_RT:
		return VFY_XFS_DEV_RT;
	default:
		return VFY_XFS_DEV_DATA;
	}
}

/*
 * Hand the executor its method and devices; the read method isolates on SCSI disks through a
 * passthrough READ whose sense names the LBA: ATA PASS-THROUGH behind libata (whose error
 * handler counts translated READs and slows the link), else SCSI READ(16).
 */
static void method_handover(struct pass_method *m, struct scan_opts *so, const struct map_target *t)
{
	char why[160];
	unsigned ata = 0, scsi = 0;

	so->vfy = m->ops;
	so->vfy_isolate = NULL;
	for (unsigned d = 0; d < m->nr; d++)
		so->vfy_devs[d] = &m->devs[d];
	if (m->ops != &vfy_read || m->nr != t->nr_devices || !m->nr)
		return;
	for (unsigned d = 0; d < m->nr; d++) {	/* not behind USB bridges */
		ata += vfy_ata_read.probe(&m->devs[d], why, sizeof(why)) == 0;
		scsi += vfy_scsi_read.probe(&m->devs[d], why, sizeof(why)) == 0;
	}
	if (ata == m->nr)
		so->vfy_isolate = &vfy_ata_read;
	else if (scsi == m->nr)
		so->vfy_isolate = &vfy_scsi_read;
}

int pass_method_setup(const struct vfy_ops *asked, const struct map_target *t,
		      struct scan_opts *so, struct pass_method *m, char *err, size_t len)
{
	int ret;

	memset(m, 0, sizeof(*m));
	m->ops = &vfy_read;
	snprintf(m->why, sizeof(m->why), "asked for with --method");
	for (unsigned d = 0; d < t->nr_devices; d++) {
		ret = vfy_dev_open(t->devices[d].fd, map_target_xfs_fd(t),
				   xfs_dev_of_role(t->devices[d].role), &m->devs[d]);
		if (ret < 0) {
			if (asked) {
				snprintf(err, len, "--method %s: cannot probe %s: %s", asked->name,
					 t->devices[d].path, strerror(-ret));
				pass_method_close(m);
				return ret;
			}
			pass_method_close(m);
			snprintf(m->why, sizeof(m->why), "auto: probing %s failed (%s)",
				 t->devices[d].path, strerror(-ret));
			return 0;
		}
		m->nr = d + 1;
	}
	if (asked == &vfy_read) {
		m->ops = &vfy_read;
		goto out_isolate_probe;
	}
	ret = vfy_method_select(asked, m->devs, m->nr, &m->ops, m->why, sizeof(m->why));
	if (ret < 0) {
		if (asked == &vfy_scsi_verify && m->devs[0].kind == VFY_DEV_SCSI) {
			/* The disk refused VERIFY: read it instead, and say so in the report. */
			size_t n = strlen(m->why);

			snprintf(m->why + n, sizeof(m->why) - n, "; fell back to read");
			pass_method_use_read(m, t, so);
			return 0;
		} else {
			snprintf(err, len, "--method: %s", m->why);
			pass_method_close(m);
			return ret;
		}
	}
out_isolate_probe:
	method_handover(m, so, t);
	return 0;
}

void pass_method_use_read(struct pass_method *m, const struct map_target *t, struct scan_opts *so)
{
	char why[160];
	unsigned ata = 0;

	/*
	 * Behind libata a failed translated READ is retried five times and counted by its
	 * error handler, which lowers the link's speed after six such errors in ten minutes:
	 * ATA PASS-THROUGH reads are neither, and the device names an unreadable block.
	 */
	for (unsigned d = 0; d < m->nr; d++)
		ata += vfy_ata_read.probe(&m->devs[d], why, sizeof(why)) == 0;
	m->ops = m->nr && ata == m->nr && m->nr == t->nr_devices ? &vfy_ata_read : &vfy_read;
	method_handover(m, so, t);
}

void pass_method_note(struct pass_method *m, const char *fmt, ...)
{
	size_t n = strlen(m->why);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->why + n, sizeof(m->why) - n, fmt, ap);
	va_end(ap);
}

void pass_method_close(struct pass_method *m)
{
	for (unsigned d = 0; d < m->nr; d++)
		vfy_dev_close(&m->devs[d]);
	m->nr = 0;
}
