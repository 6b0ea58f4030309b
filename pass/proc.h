/*
 * pass/proc.h - a scanner's process lifetime and exclusion (proc.c): it stops when the
 * process that started it dies, and holds lock files so that one scan runs per target and
 * per disk.
 */
#ifndef MEDIASCAN_PASS_PROC_H
#define MEDIASCAN_PASS_PROC_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Return 0 after asking for signal sig when the parent (pid parent, read before the call)
 * dies, -ESRCH if it is already gone, or -errno.
 */
int pass_proc_die_with_parent(int sig, pid_t parent);
/*
 * Return a lock handle after taking the exclusive lock file path (created 0644, its directory
 * 0755 if missing) with note written into it; -EWOULDBLOCK when another process holds it
 * (its note's first line copied into holder), or -errno. The kernel drops the lock when
 * its holder dies.
 */
int pass_proc_lock(const char *path, const char *note, char *holder, size_t holder_len);
/* Release a lock of pass_proc_lock. */
void pass_proc_unlock(int lock);

#endif
