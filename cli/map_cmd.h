/*
 * cli/map_cmd.h - `mediascan map` (map_cmd.c).
 */
#ifndef MEDIASCAN_MAP_CMD_H
#define MEDIASCAN_MAP_CMD_H

/* Return the exit status of `mediascan map ARGS`. */
int cli_map_main(int argc, char **argv);

#endif
