/*
 * cli/patrol.h - the patrol service and its companions: config file, the pass's output hooks
 * (journal, on_damage, xfs_scrub lines), status, report and the Prometheus textfile.
 */
#ifndef MEDIASCAN_PATROL_H
#define MEDIASCAN_PATROL_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "state.h"

#define CLI_DEFAULT_CONFIG "/etc/mediascan/mediascan.conf"

/* Print the damage of rep in xfs_scrub's shape ("Unfixable Error: PATH: media error ..."). */
void cli_report_print_xfs_scrub(const struct pass_report *rep, FILE *f);
/*
 * Return the exit status of `sh -c cmd` fed input on stdin (128+N if killed by signal N);
 * -ETIMEDOUT after killing its process group when it ran longer than timeout_s (0: the
 * default), -EINTR after killing it on SIGTERM/SIGINT (passed on to their handlers), or -errno.
 */
int cli_run_hook(const char *cmd, const char *input, double timeout_s);
/* Return the exit status of `mediascan patrol ARGS`. */
int cli_patrol_main(int argc, char **argv);
/* Return the exit status of `mediascan status ARGS`. */
int cli_status_main(int argc, char **argv);
/* Return the exit status of `mediascan report ARGS`. */
int cli_report_main(int argc, char **argv);

/*
 * Return 0 and open the state store (state_dir, else the config's state_dir, else the
 * default), or -errno after printing why.
 */
int cli_history_open(const char *state_dir, const char *config, struct scan_state **st);
/* Return buf after writing unix time t as local "YYYY-MM-DD HH:MM:SS" ("never" for 0). */
char *cli_fmt_time(int64_t t, char *buf, size_t len);

/* A target as the metrics see it: config name and state store key. */
struct cli_metrics_target {
	const char *name;
	const char *key;
	const char *devices;		/* its devices' kernel paths, for the label */
	int available;			/* 0: cannot be opened or planned now (retried) */
	double rate_bps;		/* recent rate seen by patrol, -1 unknown */
	int running;
};
/*
 * Return 0 after writing the node_exporter textfile for targets[0..nr) from the state store
 * to path atomically (temp file + rename), or -errno.
 */
int cli_metrics_write(struct scan_state *st, const struct cli_metrics_target *targets,
		      unsigned nr, const char *path);
struct json_object;
/* Return the owners array stored as owners_json (a new empty array when it is not one). */
struct json_object *cli_owners_parse(const char *owners_json);
/* Return what an admin should do about an error with these owners (static text). */
const char *cli_owners_action(struct json_object *owners);
/* Print owners as report's human output does, one line each, names escaped. */
void cli_owners_print(FILE *f, struct json_object *owners);
/* Return the number of distinct files (inodes) named in an owners_json array. */
unsigned cli_owners_json_files(const char *owners_json, uint64_t *inodes, unsigned max);

#endif
