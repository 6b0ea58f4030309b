/*
 * cli/forget_cmd.h - `mediascan forget TARGET`: drop a target's history (forget_cmd.c).
 */
#ifndef MEDIASCAN_FORGET_CMD_H
#define MEDIASCAN_FORGET_CMD_H

/* Return the exit status of `mediascan forget ARGS`. */
int cli_forget_main(int argc, char **argv);

#endif
