/*
 * report/progress.c - the progress bar: percent, bytes, current rate, ETA, errors so far,
 * redrawn in place on a terminal.
 */
#include <stdio.h>

#include "report.h"
#include "units.h"

#define BAR_WIDTH 28

void report_progress_cb(const struct scan_progress *p, void *arg)
{
	struct report_progress *pr = arg;
	char done[32], total[32], rate[32], eta[32], bar[BAR_WIDTH + 1], errs[64] = "";
	double frac = p->planned_bytes ? (double)p->scanned_bytes / (double)p->planned_bytes : 0;
	int fill;

	if (!pr->enabled)
		return;
	if (pr->enabled == 2) {
		/* Machine-readable, for logs and benchmarks: one line a second. */
		if (p->elapsed_s - pr->last_log_s < 1.0 && p->scanned_bytes < p->planned_bytes)
			return;
		pr->last_log_s = p->elapsed_s;
		fprintf(stderr, "progress t=%.2f scanned=%llu planned=%llu rate=%.0f target=%.0f "
			"backoff=%d errors=%u damage=%u probing=%d fg_alone_ms=%.3f "
			"fg_ms=%.3f end_s=%.0f late=%d\n", p->elapsed_s,
			(unsigned long long)p->scanned_bytes, (unsigned long long)p->planned_bytes,
			p->rate_bps, p->target_bps, p->backing_off, p->nr_errors, p->nr_damage,
			p->probing, p->fg_base_ms, p->fg_lat_ms, p->projected_end_s,
			p->window_late);
		return;
	}
	if (frac > 1)
		frac = 1;
	fill = (int)(frac * BAR_WIDTH + 0.5);
	for (int i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[BAR_WIDTH] = '\0';
	report_fmt_bytes(p->scanned_bytes, done, sizeof(done));
	report_fmt_bytes(p->planned_bytes, total, sizeof(total));
	report_fmt_bytes((uint64_t)p->rate_bps, rate, sizeof(rate));
	report_fmt_duration(p->rate_bps > 0 ?
			 (double)(p->planned_bytes - (p->scanned_bytes < p->planned_bytes ?
						      p->scanned_bytes : p->planned_bytes)) /
			 p->rate_bps : -1, eta, sizeof(eta));
	/* What was found so far; files are known only once the scan is mapped, at the end. */
	if (p->nr_damage)
		snprintf(errs, sizeof(errs), "  %u bad range%s%s", p->nr_damage,
			 p->nr_damage == 1 ? "" : "s", p->nr_errors > p->nr_damage ? " +" : "");
	else if (p->nr_errors)
		snprintf(errs, sizeof(errs), "  %u read%s to recheck", p->nr_errors,
			 p->nr_errors == 1 ? "" : "s");
	fprintf(stderr, "\r\033[K %5.1f%% [%s] %s / %s  %s/s  ETA %s%s%s%s", frac * 100, bar,
		done, total, rate, eta, p->window_late ? "  WINDOW WILL BE MISSED (disk busy)" :
		p->backing_off ? "  (slowed: disk busy)" : "", p->probing ? "  (probing)" : "",
		errs);
	fflush(stderr);
	pr->drawn = 1;
}

void report_progress_done(struct report_progress *pr)
{
	if (pr->drawn && pr->enabled == 1) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
	pr->drawn = 0;
}
