/*
 * report/rl_hist.h - redundancy lost from the history as JSON and text (report, status, HTML).
 */
#ifndef MEDIASCAN_RL_HIST_H
#define MEDIASCAN_RL_HIST_H

#include <stdint.h>
#include <stdio.h>

#include "state.h"

struct json_object;

/*
 * Return the number of rows after setting *out to a new JSON array of the redundancy-lost rows
 * of a target (open ones, cleared too when all), each as a scan's redundancy_lost[] entry
 * plus state, first/last seen; or -errno.
 */
int report_rl_hist_json(struct scan_state *st, int64_t target_id, int64_t since, int all,
		     struct json_object **out);
/* Print the rows of report_rl_hist_json's array, escaped, indented under their target. */
void report_rl_hist_print(FILE *f, struct json_object *rl);

#endif
