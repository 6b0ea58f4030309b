/*
 * mapping/klog.c - parse kernel log lines that name a failed device range: the block layer's
 * "<kind> error, dev NAME, sector N", the buffer cache's "Buffer I/O error on dev NAME,
 * logical block N" and XFS's "metadata I/O error ... at daddr 0xN len N". A line from a file
 * counts only when its prefix marks it as the kernel's (a /dev/kmsg record of facility 0, a
 * dmesg timestamp, a journal or syslog line whose identifier is "kernel"); the message must
 * start with the kernel's wording, so a user's text quoted inside another line is not taken.
 * Numbers are bounded: a range whose bytes do not fit 64 bits, or that leaves the device, is
 * refused with the reason (map_klog_range).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klog.h"

/* The longest buffer XFS logs an error for: a log recovery read (the log is at most 2 GiB). */
#define KLOG_XFS_MAX_BYTES (2ull << 30)
/* Longer lines are not the kernel's (its records are about 1 KiB) and are not parsed. */
#define KLOG_MAX_LINE 8192

/* Copy a device name (up to one of stop) from s; 0 or -EINVAL. */
static int take_name(const char *s, const char *stop, char *out, size_t len, const char **end)
{
	size_t n = strcspn(s, stop);

	if (n == 0 || n >= len)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.' &&
		    s[i] != '!' && s[i] != ':')
			return -EINVAL;
	memcpy(out, s, n);
	out[n] = '\0';
	*end = s + n;
	return 0;
}

/* Parse an unsigned number (base 0: 0x for hex) at s into *v (only on success); 0 or -EINVAL. */
static int take_num(const char *s, int base, uint64_t *v, const char **end)
{
	unsigned long long n;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &e, base);
	if (errno || e == s)
		return -EINVAL;
	/* the number must end there: "0xZZ" or "12ab" is not a number */
	if (*e && *e != ' ' && *e != ',' && *e != ')' && *e != '\t' && *e != '\n')
		return -EINVAL;
	*v = n;
	*end = e;
	return 0;
}

/* An optional "function: " the kernel puts first (blk_update_request:, print_req_error:). */
static const char *skip_func(const char *s)
{
	const char *p = s;

	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	return p != s && p[0] == ':' && p[1] == ' ' ? p + 2 : s;
}

/* "[function: ]<kind> error, dev NAME, sector N", kind being words like "I/O",
 * "critical medium" */
static int parse_block_layer(const char *msg, struct map_klog_rec *rec)
{
	const char *start = skip_func(msg), *p = start, *e;

	/* the kind is a few words ("critical space allocation" is the longest) */
	while ((isalpha((unsigned char)*p) || *p == '/' || *p == ' ') && p - start < 48)
		if (*p++ == ' ' && strncmp(p, "error, dev ", 11) == 0)
			break;
	if (p == start || strncmp(p, "error, dev ", 11))
		return 0;
	p += strlen("error, dev ");
	if (take_name(p, ", ", rec->dev, sizeof(rec->dev), &e) < 0 || strncmp(e, ", sector ", 9))
		return -EINVAL;
	if (take_num(e + 9, 10, &rec->value, &e) < 0)
		return -EINVAL;
	rec->unit = MAP_KLOG_SECTOR;
	rec->count = 1;
	rec->format = "block-layer";
	return 1;
}

/* "Buffer I/O error on dev NAME, logical block N" (older kernels: "on device NAME") */
static int parse_buffer_io(const char *msg, struct map_klog_rec *rec)
{
	const char *p = msg, *e;

	if (strncmp(p, "Buffer I/O error on dev", 23))
		return 0;
	p += strlen("Buffer I/O error on dev");
	if (strncmp(p, "ice ", 4) == 0)
		p += 4;
	else if (*p == ' ')
		p++;
	else
		return -EINVAL;
	if (take_name(p, ", ", rec->dev, sizeof(rec->dev), &e) < 0 ||
	    strncmp(e, ", logical block ", 16))
		return -EINVAL;
	if (take_num(e + 16, 10, &rec->value, &e) < 0)
		return -EINVAL;
	rec->unit = MAP_KLOG_BLOCK;
	rec->count = 1;
	rec->format = "buffer-io";
	return 1;
}

/* "XFS (NAME): metadata I/O error in "fn" at daddr 0xN len N error N" */
static int parse_xfs(const char *msg, struct map_klog_rec *rec)
{
	const char *e, *d;

	if (strncmp(msg, "XFS (", 5) || !strstr(msg, "I/O error") ||
	    !(d = strstr(msg, " at daddr ")))
		return 0;
	if (take_name(msg + 5, ")", rec->dev, sizeof(rec->dev), &e) < 0 || *e != ')')
		return -EINVAL;
	if (take_num(d + strlen(" at daddr "), 0, &rec->value, &e) < 0)
		return -EINVAL;
	rec->count = 1;
	if (strncmp(e, " len ", 5) == 0) {
		/* the kernel prints an int: anything else is not its line */
		if (take_num(e + 5, 0, &rec->count, &e) < 0 || rec->count > INT_MAX)
			return -EINVAL;
		if (rec->count == 0)
			rec->count = 1;
	}
	rec->unit = MAP_KLOG_DADDR;
	rec->format = "xfs-metadata";
	return 1;
}

int map_klog_parse_msg(const char *msg, struct map_klog_rec *rec)
{
	int ret;

	memset(rec, 0, sizeof(*rec));
	if (!msg)
		return 0;
	ret = parse_buffer_io(msg, rec);
	if (ret)
		return ret;
	ret = parse_xfs(msg, rec);
	if (ret)
		return ret;
	ret = map_klog_md_parse(msg, rec);
	if (ret)
		return ret;
	return parse_block_layer(msg, rec);
}

/* Skip "[...] " (a dmesg timestamp, seconds or -T/ctime); NULL if s does not start so. */
static const char *skip_stamp(const char *s)
{
	size_t n;

	if (*s != '[')
		return NULL;
	n = strcspn(s + 1, "]\n");
	if (s[1 + n] != ']' || n == 0 || n > 40)
		return NULL;
	for (size_t i = 1; i <= n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(" .:+-", s[i]))
			return NULL;
	s += n + 2;
	return *s == ' ' ? s + 1 : s;
}

/* Skip one word and the blanks after it; NULL at the end of the line. */
static const char *skip_word(const char *s)
{
	s += strcspn(s, " \t");
	if (!*s)
		return NULL;
	return s + strspn(s, " \t");
}

/*
 * After a syslog/journal timestamp: "HOST kernel: MESSAGE", an optional dmesg stamp after
 * "kernel:"; the message, or NULL when the identifier is not "kernel" (any program can log).
 */
static const char *after_host(const char *s)
{
	const char *p;

	if (!s || !(s = skip_word(s)))		/* the host name */
		return NULL;
	if (strncmp(s, "kernel: ", 8))
		return NULL;
	s += 8;
	p = skip_stamp(s);
	return p ? p : s;
}

static int is_month(const char *s)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	for (int i = 0; i < 12; i++)
		if (strncmp(s, months + 3 * i, 3) == 0 && s[3] == ' ')
			return 1;
	return 0;
}

/* The kernel's message in line, or NULL when nothing marks line as the kernel's. */
static const char *kernel_msg(const char *line)
{
	const char *p;
	unsigned long pri;
	char *e;

	/* /dev/kmsg record "PRI,SEQ,USEC,FLAGS;MSG": the kernel writes facility 0 (PRI < 8);
	 * what a program writes to /dev/kmsg has facility user (PRI >= 8) */
	if (isdigit((unsigned char)line[0])) {
		errno = 0;
		pri = strtoul(line, &e, 10);
		/* (more fields may follow the flags: "caller=T123" with CONFIG_PRINTK_CALLER) */
		if (!errno && *e == ',' && (p = strchr(e, ';')) &&
		    (size_t)(p - line) == strspn(line, "0123456789,-+=_abcdefghijklmnopqrstuvwxyz"
						 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
			return pri < 8 ? p + 1 : NULL;
		/* ISO 8601 syslog/journal time "2026-12-03T10:00:00[.frac][+zone] HOST kernel:" */
		if (strlen(line) > 19 && line[4] == '-' && line[7] == '-' && line[10] == 'T')
			return after_host(skip_word(line));
		return NULL;
	}
	/* dmesg "[  12.345678] MSG" or journalctl -o short-monotonic "[  12.3] HOST kernel:" */
	if ((p = skip_stamp(line))) {
		const char *k = after_host(p);

		return k ? k : p;
	}
	/* syslog/journal "Dec  3 10:00:00[.frac] HOST kernel: MSG" */
	if (is_month(line)) {
		p = skip_word(line);		/* month */
		p = p ? skip_word(p) : NULL;	/* day */
		p = p ? skip_word(p) : NULL;	/* time */
		return after_host(p);
	}
	return NULL;
}

int map_klog_parse(const char *line, struct map_klog_rec *rec)
{
	const char *msg;
	int ret;

	memset(rec, 0, sizeof(*rec));
	/* the kernel's lines are at most about 1 KiB (PRINTK_MESSAGE_MAX) */
	if (!line || strnlen(line, KLOG_MAX_LINE + 1) > KLOG_MAX_LINE)
		return 0;
	msg = kernel_msg(line);
	if (msg) {
		ret = map_klog_parse_msg(msg, rec);
		if (ret)
			return ret;
	}
	/* Not the kernel's: say so when the text would have been taken as an error. */
	for (const char *p = line; *p; p++)
		if ((p == line || p[-1] == ' ' || p[-1] == ';' || p[-1] == ':') &&
		    (ret = map_klog_parse_msg(p, rec)) != 0) {
			memset(rec, 0, sizeof(*rec));
			rec->not_kernel = 1;
			return 0;
		}
	memset(rec, 0, sizeof(*rec));
	return 0;
}

int map_klog_range(const struct map_klog_rec *rec, uint32_t lbs, uint64_t block_bytes,
		   uint64_t dev_bytes, uint64_t *off, uint64_t *len, const char **why)
{
	uint64_t o, l;

	if (!lbs)
		lbs = 512;
	switch (rec->unit) {
	case MAP_KLOG_SECTOR:
		if (__builtin_mul_overflow(rec->value, 512, &o)) {
			*why = "sector out of range: its byte offset does not fit 64 bits";
			return -ERANGE;
		}
		o -= o % lbs;
		l = lbs;
		break;
	case MAP_KLOG_BLOCK:
		l = block_bytes ? block_bytes : lbs;
		if (__builtin_mul_overflow(rec->value, l, &o)) {
			*why = "logical block out of range: its byte offset does not fit 64 bits";
			return -ERANGE;
		}
		break;
	default:
		if (__builtin_mul_overflow(rec->value, 512, &o) ||
		    __builtin_mul_overflow(rec->count, 512, &l)) {
			*why = "daddr or len out of range: bytes do not fit 64 bits";
			return -ERANGE;
		}
		if (l > KLOG_XFS_MAX_BYTES) {
			*why = "len longer than any XFS buffer (2 GiB): not mapped";
			return -ERANGE;
		}
		break;
	}
	if (o >= dev_bytes) {
		*why = "past the end of the device";
		return -ERANGE;
	}
	if (l > dev_bytes - o) {
		/* The kernel does not read past the end: a longer range is not its line, and
		 * would name every file up to the end as damaged. */
		*why = "range runs past the end of the device: not mapped";
		return -ERANGE;
	}
	*off = o;
	*len = l;
	return 0;
}
