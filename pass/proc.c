/*
 * pass/proc.c - a scanner's process lifetime and exclusion, through kernel/kio_proc.c
 * (prctl PR_SET_PDEATHSIG, flock on lock files), so cli/ and patrol do not call kernel/.
 */
#include "kio.h"
#include "proc.h"

int pass_proc_die_with_parent(int sig, pid_t parent)
{
	return kio_pdeathsig_set(sig, parent);
}

int pass_proc_lock(const char *path, const char *note, char *holder, size_t holder_len)
{
	return kio_lockfile_take(path, note, holder, holder_len);
}

void pass_proc_unlock(int lock)
{
	kio_close(lock);
}
