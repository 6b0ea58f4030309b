/*
 * cli/units.h - parsing and printing of sizes and durations given by users.
 */
#ifndef MEDIASCAN_UNITS_H
#define MEDIASCAN_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Return 0 and bytes for "4096", "64k", "1M", "1MiB", "2G", "1.5G", or -EINVAL. */
int cli_parse_size(const char *s, uint64_t *bytes);
/* Return 0 and seconds for "30", "30s", "5m", "12h", "7d", "1w", "1h30m", or -EINVAL. */
int cli_parse_duration(const char *s, double *seconds);
/* Return 0 and unix seconds for "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS]", "@SECONDS", or a
 * duration ago ("7d"); -EINVAL otherwise. */
int cli_parse_since(const char *s, int64_t *out);
/* Return buf after writing bytes as "1.5 MiB". */
char *cli_fmt_bytes(uint64_t bytes, char *buf, size_t len);
/* Return buf after writing seconds as "1:02:03" or "2:03". */
char *cli_fmt_duration(double seconds, char *buf, size_t len);

#endif
