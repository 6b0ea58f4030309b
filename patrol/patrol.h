/*
 * patrol/patrol.h - the patrol service (patrol.c, targets.c): a pass over every configured
 * target within its window, one scanner process per target.
 */
#ifndef MEDIASCAN_PATROL_H
#define MEDIASCAN_PATROL_H

/*
 * Return the exit status of the patrol service run with config_file (NULL: the default one)
 * until SIGTERM, or of checking that config and its targets (check).
 */
int patrol_run(const char *config_file, int check);

#endif
