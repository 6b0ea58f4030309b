/*
 * patrol/patrol_int.h - what the patrol's daemon loop (patrol.c) and its target table
 * (targets.c) share: a target at run time, the patrol, and the target functions.
 */
#ifndef MEDIASCAN_PATROL_INT_H
#define MEDIASCAN_PATROL_INT_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "report.h"
#include "config_file.h"

#define PATROL_RETRY_S 60		/* after a failed pass or a target that cannot open */

/* A configured target at run time. */
struct patrol_target {
	struct patrol_cfg_target c;
	char key[8192];
	char devices[1024];		/* its devices' kernel paths, for the metrics' label */
	int broken;			/* cannot be opened or planned now: retried, the others run */
	char broken_why[10240];
	char disks[PASS_MAX_DISKS][MAP_DISK_NAME_LEN];
	unsigned nr_disks;
	uint64_t planned_bytes;
	pid_t pid;			/* running scan, 0 none */
	int active;			/* the run was started inside active hours */
	time_t next_try;
};

struct patrol {
	const char *config_file;
	struct patrol_config cfg;
	struct patrol_target *t;
	unsigned nr;
	struct scan_state *st;
};

/*
 * Return 0 after opening target pt's path to learn its state key, physical disks and planned
 * size and checking its window (a target that cannot be opened or planned now is marked
 * broken, not an error), or -errno with "FILE:LINE: ..." in err.
 */
int patrol_resolve(const char *file, struct patrol_target *pt, char *err, size_t len);
/* Return the seconds between tries of a target that failed or cannot be opened. */
int patrol_retry_s(void);
/* Tell (stderr and journal) that pt became unavailable, or available again. */
void patrol_tell_broken(struct patrol_target *pt, int was_broken);
/* Return 0 after loading and checking the config into p (targets resolved), or -errno. */
int patrol_load(struct patrol *p, struct patrol_config *cfg, struct patrol_target **tp,
		char *err, size_t len);
/* Return 1 when targets a and b share a physical disk, else 0. */
int disks_overlap(const struct patrol_target *a, const struct patrol_target *b);
/* Return when target pt is (or was) due: 0 never scanned; earlier means more overdue. */
time_t patrol_due(struct patrol *p, struct patrol_target *pt, time_t now);

#endif
