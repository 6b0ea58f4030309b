/*
 * pass/lock.c - one scan per target and per physical disk, whoever started it: a scan
 * holds an exclusive lock file for its target (named by a hash of its state store key) and
 * one for each disk under it, in PASS_LOCK_DIR, for as long as it runs. A second scan (patrol's,
 * an admin's `mediascan scan`, a scanner left by a killed patrol) is refused and told who
 * holds the lock. The kernel drops the locks when a scanner dies, however it dies.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "devinfo.h"
#include "pass.h"
#include "proc.h"

/* FNV-1a, 64 bits: a file name for a state store key of any length. */
static uint64_t key_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

void pass_unlock(struct pass_lock *lk)
{
	for (unsigned i = 0; i < lk->nr; i++)
		pass_proc_unlock(lk->fd[i]);
	lk->nr = 0;
}

/*
 * Return 0 after adding the lock on path (for what) to lk, or after a warning when the lock
 * file cannot be made; -EWOULDBLOCK with err when another process holds it.
 */
static int take(struct pass_lock *lk, const char *path, const char *what, const char *note,
		char *err, size_t len)
{
	char holder[256];
	int fd = pass_proc_lock(path, note, holder, sizeof(holder));

	if (fd == -EWOULDBLOCK) {
		snprintf(err, len, "%s is being scanned by another mediascan (%s); one scan at a "
			 "time: try again when it ends", what, holder[0] ? holder : "pid unknown");
		return fd;
	}
	if (fd < 0) {
		/* No lock dir (not root, a sandbox without it): scan, but say what is lost. */
		pass_say(NULL, PASS_SAY_ERROR, "warning: cannot lock %s (%s): %s; a second scan "
			 "of it would not be refused", what, path, strerror(-fd));
		return 0;
	}
	lk->fd[lk->nr++] = fd;
	return 0;
}

int pass_lock_ids(const char *key, const char *name, char (*disks)[MAP_DISK_NAME_LEN],
		  unsigned nr_disks, const char *label, struct pass_lock *lk, char *err,
		  size_t len)
{
	char path[PATH_MAX], what[PATH_MAX + 640], note[PATH_MAX + 64];
	int ret;

	lk->nr = 0;
	snprintf(note, sizeof(note), "pid %d: %s\n", (int)getpid(), label);
	snprintf(path, sizeof(path), "%s/target-%016" PRIx64 ".lock", PASS_LOCK_DIR, key_hash(key));
	snprintf(what, sizeof(what), "target %s", name);
	ret = take(lk, path, what, note, err, len);
	if (ret < 0)
		return ret;
	for (unsigned i = 0; i < nr_disks && i < PASS_MAX_DISKS; i++) {
		snprintf(path, sizeof(path), "%s/disk-%s.lock", PASS_LOCK_DIR, disks[i]);
		snprintf(what, sizeof(what), "disk %s (under %s)", disks[i], name);
		ret = take(lk, path, what, note, err, len);
		if (ret < 0) {
			pass_unlock(lk);
			return ret;
		}
	}
	return 0;
}

int pass_lock(const struct map_target *t, const char *key, const char *label,
	      struct pass_lock *lk, char *err, size_t len)
{
	char disks[PASS_MAX_DISKS][MAP_DISK_NAME_LEN];
	int nr = map_target_disks(t, disks, PASS_MAX_DISKS);

	return pass_lock_ids(key, t->mount_point[0] ? t->mount_point : t->arg, disks,
			     (unsigned)nr, label, lk, err, len);
}
