/*
 * patrol/config_file.h - the patrol config file: [global] defaults and [target NAME] sections.
 */
#ifndef MEDIASCAN_CONFIG_FILE_H
#define MEDIASCAN_CONFIG_FILE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "report.h"
#include "run.h"

/* -Dconfigfile (meson_options.txt), the same path the systemd units read. */
#define PATROL_DEFAULT_CONFIG MEDIASCAN_CONFIG_FILE
#define PATROL_MAX_TARGETS 64
#define PATROL_DEFAULT_WINDOW_S (7 * 86400.0)

/* Settings [global] gives and a target may override. */
struct patrol_opts {
	double window_s;		/* a full pass within this */
	uint64_t rate_max_bps, rate_min_bps;	/* 0: none */
	int active_start_min, active_end_min;	/* minutes after midnight; start -1: always */
	char method[32];		/* "" : auto */
	char on_damage[1024];		/* "" : none */
	double hook_timeout_s;		/* on_damage killed after this */
	unsigned window_line, rate_line, method_line;	/* where they were set (0: default) */
	unsigned set;			/* keys this section set (CFG_SET_* in config.c) */
};

struct patrol_cfg_target {
	char name[64];
	char path[PATH_MAX];		/* mount point or block device */
	unsigned line, path_line;	/* of the [target] header and of path */
	struct patrol_opts o;	/* [global] filled in where the target sets nothing */
};

struct patrol_config {
	char state_dir[PATH_MAX];
	char metrics_file[PATH_MAX];	/* "" : none */
	struct patrol_opts global;
	struct patrol_cfg_target targets[PATROL_MAX_TARGETS];
	unsigned nr_targets;
};

/*
 * Return 0 after reading file into c, or -errno with one line "FILE:LINE: problem" in err
 * (syntax error, unknown section or key, bad value, target without path, no target).
 */
int patrol_config_load(const char *file, struct patrol_config *c, char *err, size_t errlen);
/*
 * Return 0 when file (symlinks resolved) and every directory above it are owned by root (or
 * us) and writable by no one else (a directory writable by others only when root's and
 * sticky, like /tmp), as sshd checks its files; -EPERM (or -errno) with "FILE: why" in err.
 * The config names commands patrol runs as root.
 */
int patrol_config_secure(const char *file, char *err, size_t errlen);
/* Return 0 and minutes after midnight of "HH:MM-HH:MM" (may cross midnight), or -EINVAL. */
int patrol_parse_active_hours(const char *s, int *start_min, int *end_min);
/* Return 1 if now_min (minutes after midnight) is inside the active hours (start -1: always). */
int patrol_active_now(int start_min, int end_min, int now_min);

#endif
