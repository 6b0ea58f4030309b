/*
 * patrol/patrol.h - the patrol service (patrol.c, targets.c): a pass over every configured
 * target within its window, one scanner process per target.
 */
#ifndef MEDIASCAN_PATROL_H
#define MEDIASCAN_PATROL_H

/* Return the exit status of `mediascan patrol ARGS`. */
int patrol_main(int argc, char **argv);

#endif
