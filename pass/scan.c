/*
 * pass/scan.c - the scan stage's view of the target: its devices as the executor reads them
 * (descriptor, block size, size, the queue's transfer limit as a plain value) and the disk
 * statistics that show foreground load on them (for the governor's backoff).
 */
#include <stdio.h>
#include <string.h>

#include "pass_int.h"

unsigned pass_scan_devices(const struct map_target *t, struct scan_device *devs)
{
	for (unsigned i = 0; i < t->nr_devices; i++) {
		devs[i].fd = t->devices[i].fd;
		devs[i].logical_block_size = t->devices[i].info.logical_block_size;
		devs[i].size_bytes = t->devices[i].info.size_bytes;
		devs[i].max_io_bytes = (uint64_t)t->devices[i].info.max_sectors_kb * 1024;
		devs[i].max_segments = t->devices[i].info.max_segments;
		devs[i].path = t->devices[i].path;
	}
	return t->nr_devices;
}

void pass_scan_view_add(struct scan_opts *so, const char *name, unsigned d)
{
	unsigned v;

	for (v = 0; v < so->nr_views; v++)
		if (strcmp(so->views[v].name, name) == 0)
			break;
	if (v == so->nr_views) {
		if (v == SCAN_GOV_MAX_VIEWS)
			return;			/* more disks than views: this one unwatched */
		memset(&so->views[v], 0, sizeof(so->views[v]));
		snprintf(so->views[v].name, sizeof(so->views[v].name), "%s", name);
		so->nr_views++;
	}
	so->views[v].dev_mask |= 1u << d;
}

void pass_scan_views(const struct map_target *t, struct scan_opts *so)
{
	for (unsigned d = 0; d < t->nr_devices; d++) {
		const struct map_dev_info *bi = &t->devices[d].info;
		const char *names[2] = { bi->name, bi->is_partition ? bi->disk_name : NULL };

		for (unsigned k = 0; k < 2 && names[k] && names[k][0]; k++)
			pass_scan_view_add(so, names[k], d);
	}
}
