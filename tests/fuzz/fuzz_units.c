/*
 * tests/fuzz/fuzz_units.c - sizes, rates, durations, dates and active hours as users type
 * them (report/units.c, patrol/config.c): each parser gets the whole input as one string.
 */
#include "cli.h"
#include "config_file.h"
#include "fuzz.h"
#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), buf[64];
	uint64_t v;
	double d;
	int64_t t;
	int a, b;

	if (report_parse_size(s, &v) == 0)
		report_fmt_bytes(v, buf, sizeof(buf));
	report_parse_rate(s, &v);
	if (report_parse_duration(s, &d) == 0)
		report_fmt_duration(d, buf, sizeof(buf));
	report_parse_since(s, &t);
	if (patrol_parse_active_hours(s, &a, &b) == 0 && (a < 0 || a > 1440 || b < 0 || b > 1440))
		abort();
	free(s);
	return 0;
}
