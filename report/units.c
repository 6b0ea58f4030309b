/*
 * report/units.c - sizes (binary multiples), rates, durations and times as users type and read
 * them, and report_err.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdarg.h>
#include <time.h>

#include "units.h"

int report_parse_size(const char *s, uint64_t *bytes)
{
	static const char units[] = "kmgtpe";
	char *end;
	double v, mult = 1;
	const char *u;

	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	if (*end) {
		u = strchr(units, tolower((unsigned char)*end));
		if (!u)
			return -EINVAL;
		mult = pow(1024.0, (double)(u - units + 1));
		end++;
		/* Accept k, K, KiB, kB, KB: all binary, as dd and fio take them. */
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'b' || *end == 'B')
			end++;
	} else if (v != floor(v)) {
		return -EINVAL;			/* fractional bytes */
	}
	if (*end)
		return -EINVAL;
	v *= mult;
	if (v >= 18446744073709551615.0)
		return -EINVAL;
	*bytes = (uint64_t)v;
	return 0;
}

int report_parse_duration(const char *s, double *seconds)
{
	double total = 0;
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	while (*p) {
		char *end;
		double v, mult;

		if (*p == '-' || isspace((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		v = strtod(p, &end);
		if (errno || end == p || !isfinite(v) || v < 0)
			return -EINVAL;
		switch (*end) {
		case '\0':
			mult = 1;
			break;
		case 's':
			mult = 1;
			end++;
			break;
		case 'm':
			mult = 60;
			end++;
			break;
		case 'h':
			mult = 3600;
			end++;
			break;
		case 'd':
			mult = 86400;
			end++;
			break;
		case 'w':
			mult = 7 * 86400;
			end++;
			break;
		default:
			return -EINVAL;
		}
		total += v * mult;
		p = end;
	}
	*seconds = total;
	return 0;
}

char *report_digits(char *end, uint64_t v, int neg)
{
	/* two digits a division: an answer's offsets have nine or ten */
	static const char pairs[201] =
		"0001020304050607080910111213141516171819"
		"2021222324252627282930313233343536373839"
		"4041424344454647484950515253545556575859"
		"6061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char *p = end;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	if (neg)
		*--p = '-';
	return p;
}

char *report_fmt_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int i = 0;

	while (v >= 1023.95 && i < 6) {	/* so 1048575 prints as 1.0 MiB */
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, u[i]);
	return buf;
}

char *report_fmt_duration(double seconds, char *buf, size_t len)
{
	unsigned long long s;

	if (!isfinite(seconds) || seconds < 0 || seconds > 1e15) {
		snprintf(buf, len, "--:--");
		return buf;
	}
	s = (unsigned long long)(seconds + 0.5);
	if (s >= 86400)
		snprintf(buf, len, "%llud%02llu:%02llu:%02llu", s / 86400, s / 3600 % 24,
			 s / 60 % 60, s % 60);
	else if (s >= 3600)
		snprintf(buf, len, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%llu:%02llu", s / 60, s % 60);
	return buf;
}

/* Return 0 and unix seconds for "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS]", "@SECONDS", or
 * a duration ago ("7d"); -EINVAL otherwise. */
int report_parse_since(const char *s, int64_t *out)
{
	struct tm tm;
	double ago;
	char *end, *t;

	if (s[0] == '@') {
		long long v;

		errno = 0;
		v = strtoll(s + 1, &end, 10);
		if (errno || *end || end == s + 1)
			return -EINVAL;
		*out = v;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%d", &tm);
	if (end) {
		/* a time may follow the date; only ever read from where the date ended */
		if (*end) {
			t = strptime(end, " %H:%M:%S", &tm);
			if (!t)
				t = strptime(end, " %H:%M", &tm);
			if (!t || *t)
				return -EINVAL;
		}
		tm.tm_isdst = -1;
		*out = (int64_t)mktime(&tm);
		return 0;
	}
	if (report_parse_duration(s, &ago) == 0) {
		time_t now = time(NULL);

		/* a duration longer than the time since 1970 names no date we store */
		if (!(ago >= 0 && ago <= (double)now))
			return -EINVAL;
		*out = (int64_t)now - (int64_t)ago;
		return 0;
	}
	return -EINVAL;
}

int report_parse_rate(const char *s, uint64_t *bps)
{
	char buf[64];
	size_t n = strlen(s);

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	if (n > 2 && strcmp(buf + n - 2, "/s") == 0)
		buf[n - 2] = '\0';
	if (report_parse_size(buf, bps) < 0 || *bps == 0)
		return -EINVAL;
	return 0;
}

char *report_fmt_time(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!t) {
		snprintf(buf, len, "never");
		return buf;
	}
	localtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

void report_err(const char *fmt, ...)
{
	va_list ap;

	fputs("mediascan: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
