/*
 * pass/proc.h - a scanner's process lifetime and exclusion (proc.c): it stops when the
 * process that started it dies, and holds lock files so that one scan runs per target and
 * per disk.
 */
#ifndef MEDIASCAN_PASS_PROC_H
#define MEDIASCAN_PASS_PROC_H

#include <stddef.h>
#include <sys/types.h>

/**
 * pass_proc_die_with_parent() - ask for a signal when the parent process dies.
 * @sig: the signal (patrol's scans: SIGTERM, so they checkpoint and stop)
 * @parent: the parent's pid, read before the call
 *
 * Return: 0, -ESRCH if the parent is already gone, or -errno.
 */
int pass_proc_die_with_parent(int sig, pid_t parent);
/**
 * pass_proc_lock() - take an exclusive lock file; the kernel drops it when its holder dies.
 * @path: the lock file (created 0644, its directory 0755 if missing)
 * @note: written into it: who holds it
 * @holder: the holder's note's first line, when refused
 * @holder_len: size of holder
 *
 * Return: a lock handle (release with pass_proc_unlock()); -EWOULDBLOCK when another process
 * holds it, or -errno.
 */
int pass_proc_lock(const char *path, const char *note, char *holder, size_t holder_len);
/**
 * pass_proc_unlock() - release a lock of pass_proc_lock().
 * @lock: the handle
 */
void pass_proc_unlock(int lock);

#endif
