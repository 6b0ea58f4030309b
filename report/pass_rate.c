/*
 * report/pass_rate.c - a pass's rate and time left as the history holds it: what status shows
 * and the metrics say (one computation for both).
 */
#include <time.h>

#include "report.h"
#include "state.h"

void report_pass_rate(const struct scan_state_pass *p, time_t now, double *rate, double *eta)
{
	/* in double: times from the store may be anything (an edited row), no int overflow */
	double el = p->result == SCAN_PASS_RUNNING ? (double)now - (double)p->started :
		    (double)p->ended - (double)p->started;

	*rate = p->bytes_per_s > 0 && p->result != SCAN_PASS_RUNNING ? p->bytes_per_s :
		el > 0 ? (double)p->scanned_bytes / el : 0;
	if (!(*rate >= 0 && *rate < 1e19))
		*rate = 0;			/* NaN, or out of what a rate can be */
	*eta = -1;
	if (p->result == SCAN_PASS_RUNNING && *rate > 0 && p->planned_bytes >= p->scanned_bytes)
		*eta = (double)(p->planned_bytes - p->scanned_bytes) / *rate;
}
