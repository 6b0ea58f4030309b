/*
 * cli/scan_lock.h - one scan per target and per physical disk (scan_lock.c).
 */
#ifndef MEDIASCAN_SCAN_LOCK_H
#define MEDIASCAN_SCAN_LOCK_H

#include <stddef.h>

#include "devinfo.h"
#include "target.h"

#define CLI_LOCK_DIR "/run/mediascan"
#define CLI_MAX_DISKS 8			/* physical disks under one target */

struct cli_scan_lock {
	int fd[1 + CLI_MAX_DISKS];	/* the target's lock, then one per disk */
	unsigned nr;
};

/*
 * Return 0 after locking target t (state store key key) and each of its disks for this
 * process (label says who, for a refused scan's message; a lock file that cannot be made is
 * a warning, not an error); -EWOULDBLOCK when another scan holds one, with one line in err
 * and nothing held.
 */
int cli_scan_lock(const struct map_target *t, const char *key, const char *label,
		  struct cli_scan_lock *lk, char *err, size_t len);
/*
 * Return as cli_scan_lock, for a target known by its key, its name for messages and its
 * disks[0..nr_disks) (patrol: to see whether a target is free before starting its scan).
 */
int cli_scan_lock_ids(const char *key, const char *name, char (*disks)[MAP_DISK_NAME_LEN],
		      unsigned nr_disks, const char *label, struct cli_scan_lock *lk, char *err,
		      size_t len);
/* Release the locks of cli_scan_lock. */
void cli_scan_unlock(struct cli_scan_lock *lk);

#endif
