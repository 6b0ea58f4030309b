/*
 * patrol/metrics.h - the Prometheus textfile for node_exporter (metrics.c).
 */
#ifndef MEDIASCAN_METRICS_H
#define MEDIASCAN_METRICS_H

#include <stdint.h>

#include "state.h"

/* A target as the metrics see it: config name and state store key. */
struct patrol_metrics_target {
	const char *name;
	const char *key;
	const char *devices;		/* its devices' kernel paths, for the label */
	int available;			/* 0: cannot be opened or planned now (retried) */
	int running;
};

/*
 * Return 0 after writing the node_exporter textfile for targets[0..nr) from the state store
 * to path atomically (temp file + rename), or -errno.
 */
int patrol_metrics_write(struct scan_state *st, const struct patrol_metrics_target *targets,
		      unsigned nr, const char *path);

#endif
