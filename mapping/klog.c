/*
 * mapping/klog.c - parse kernel log lines that name a failed device range: the block layer's
 * "<kind> error, dev NAME, sector N", the buffer cache's "Buffer I/O error on dev NAME,
 * logical block N" and XFS's "metadata I/O error ... at daddr 0xN len N". Whatever prefix the
 * line has (/dev/kmsg "6,123,456,-;", dmesg "[  12.3]", journal "host kernel:") is skipped.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klog.h"

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

/* Parse an unsigned number (base 0: 0x for hex) at s; 0 or -EINVAL. */
static int take_num(const char *s, int base, uint64_t *v, const char **end)
{
	char *e;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &e, base);
	if (errno || e == s)
		return -EINVAL;
	/* the number must end there: "0xZZ" or "12ab" is not a number */
	if (*e && *e != ' ' && *e != ',' && *e != ')' && *e != '\t' && *e != '\n')
		return -EINVAL;
	*end = e;
	return 0;
}

/* "... error, dev NAME, sector N" */
static int parse_block_layer(const char *line, struct map_klog_rec *rec)
{
	const char *p = strstr(line, " error, dev ");
	const char *e;

	if (!p)
		return 0;
	p += strlen(" error, dev ");
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
static int parse_buffer_io(const char *line, struct map_klog_rec *rec)
{
	const char *p = strstr(line, "Buffer I/O error on dev");
	const char *e;

	if (!p)
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
static int parse_xfs(const char *line, struct map_klog_rec *rec)
{
	const char *p = strstr(line, "XFS (");
	const char *e, *d;

	if (!p || !strstr(p, "I/O error") || !(d = strstr(p, " at daddr ")))
		return 0;
	if (take_name(p + 5, ")", rec->dev, sizeof(rec->dev), &e) < 0 || *e != ')')
		return -EINVAL;
	if (take_num(d + strlen(" at daddr "), 0, &rec->value, &e) < 0)
		return -EINVAL;
	rec->count = 1;
	if (strncmp(e, " len ", 5) == 0 && take_num(e + 5, 0, &rec->count, &e) == 0 &&
	    rec->count == 0)
		rec->count = 1;
	rec->unit = MAP_KLOG_DADDR;
	rec->format = "xfs-metadata";
	return 1;
}

int map_klog_parse(const char *line, struct map_klog_rec *rec)
{
	int ret;

	memset(rec, 0, sizeof(*rec));
	if (!line)
		return 0;
	ret = parse_buffer_io(line, rec);
	if (ret)
		return ret;
	ret = parse_xfs(line, rec);
	if (ret)
		return ret;
	return parse_block_layer(line, rec);
}
