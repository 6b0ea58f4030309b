/*
 * report/units.h - parsing and printing of sizes, rates, durations and times given by users, and
 * report_err, the one-line error every subcommand, writer and the daemon print.
 */
#ifndef MEDIASCAN_UNITS_H
#define MEDIASCAN_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Return 0 and bytes for "4096", "64k", "1M", "1MiB", "2G", "1.5G", or -EINVAL. */
int report_parse_size(const char *s, uint64_t *bytes);
/* Return 0 and seconds for "30", "30s", "5m", "12h", "7d", "1w", "1h30m", or -EINVAL. */
int report_parse_duration(const char *s, double *seconds);
/* Return 0 and unix seconds for "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS]", "@SECONDS", or a
 * duration ago ("7d"); -EINVAL otherwise. */
int report_parse_since(const char *s, int64_t *out);
/* Bytes for report_digits' text: 20 digits and a sign. */
#define REPORT_DIGITS 21
/* Write the decimal digits of v ('-' before them when neg) to the REPORT_DIGITS bytes before
 * end, unterminated: return where they start (JSON, human answers and json-c's integers share
 * this loop; no printf per number). */
char *report_digits(char *end, uint64_t v, int neg);
/* Return buf after writing bytes as "1.5 MiB". */
char *report_fmt_bytes(uint64_t bytes, char *buf, size_t len);
/* Return buf after writing seconds as "1:02:03" or "2:03". */
char *report_fmt_duration(double seconds, char *buf, size_t len);
/* Return 0 after parsing "50M" or "50M/s" into bytes per second (> 0), or -EINVAL. */
int report_parse_rate(const char *s, uint64_t *bps);
/* Return buf after writing unix time t as local "YYYY-MM-DD HH:MM:SS" ("never" for 0). */
char *report_fmt_time(int64_t t, char *buf, size_t len);
/* Print a one-line error "mediascan: ..." to stderr. */
void report_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
