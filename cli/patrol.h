/*
 * cli/patrol.h - the patrol service and its companions: config file, scan hooks (history,
 * journal, on_damage), status, report and the Prometheus textfile.
 */
#ifndef MEDIASCAN_PATROL_H
#define MEDIASCAN_PATROL_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "state.h"

#define CLI_DEFAULT_CONFIG "/etc/mediascan/mediascan.conf"

/*
 * Return the number of settled errors after storing owners, settling (settle[0..nr_settle):
 * read cleanly, or no longer allocated) the open errors a complete pass did not see fail,
 * and sending journal events and on_damage for damage not told before (st may be NULL:
 * everything is new); the damage is marked told only when on_damage (if any) exited 0.
 * Failures are warnings.
 */
int cli_scan_after(const struct cli_scan_cfg *cfg, const struct cli_report *rep,
		   struct scan_state *st, int64_t pass_id, const char *key,
		   const struct scan_state_outcome *settle, size_t nr_settle);
/* Print the damage of rep in xfs_scrub's shape ("Unfixable Error: PATH: media error ..."). */
void cli_report_print_xfs_scrub(const struct cli_report *rep, FILE *f);
/*
 * Return the exit status of `sh -c cmd` fed input on stdin (128+N if killed by signal N);
 * -ETIMEDOUT after killing its process group when it ran longer than timeout_s (0: the
 * default), -EINTR after killing it on SIGTERM/SIGINT (passed on to their handlers), or -errno.
 */
int cli_run_hook(const char *cmd, const char *input, double timeout_s);
/* Write the state store's key of target t (filesystem type:UUID:devices) into key. */
void cli_scan_target_key(const struct map_target *t, char *key, size_t len);

/* One scan per target and per physical disk (scan_lock.c). */
#define CLI_LOCK_DIR "/run/mediascan"
#define CLI_MAX_DISKS 8			/* physical disks under one target */
struct cli_scan_lock {
	int fd[1 + CLI_MAX_DISKS];	/* the target's lock, then one per disk */
	unsigned nr;
};
/* Return the number of physical disks under target t written to out[0..max). */
int cli_target_disks(const struct map_target *t, char (*out)[KIO_DISK_NAME_LEN], unsigned max);
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
int cli_scan_lock_ids(const char *key, const char *name, char (*disks)[KIO_DISK_NAME_LEN],
		      unsigned nr_disks, const char *label, struct cli_scan_lock *lk, char *err,
		      size_t len);
/* Release the locks of cli_scan_lock. */
void cli_scan_unlock(struct cli_scan_lock *lk);

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
