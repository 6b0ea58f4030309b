/*
 * report/cd_hist.h - copies that differ from the history as JSON and text (report, HTML).
 */
#ifndef MEDIASCAN_CD_HIST_H
#define MEDIASCAN_CD_HIST_H

#include <stdint.h>
#include <stdio.h>

#include "state.h"

struct json_object;

/*
 * Return the number of rows after setting *out to a new JSON array of the copies-differ rows
 * of a target (open ones, cleared too when all), each with its array, legs, wrong copy, how
 * that is known, owners, state and first/last seen; or -errno.
 */
int report_cd_hist_json(struct scan_state *st, int64_t target_id, int all,
			struct json_object **out);
/* Print the rows of report_cd_hist_json's array, escaped, indented under their target. */
void report_cd_hist_print(FILE *f, struct json_object *cd);

#endif
