/*
 * klog/klog.c - parse kernel log lines that name a failed device range: the block layer's
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

#include <json-c/json.h>

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
	/* A discard, secure erase or write-zeroes the device does not support ("operation not
	 * supported error, dev loop0, sector 0 op 0x3:(DISCARD)", logged by every mkfs on a
	 * loop device) names no data lost. */
	if (strncmp(start, "operation not supported ", 24) == 0 || strstr(e, " op 0x3:(") ||
	    strstr(e, " op 0x5:(") || strstr(e, " op 0x9:("))
		return 0;
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
	ret = map_klog_parse_cmd(msg, rec);
	if (ret)
		return ret;
	return parse_block_layer(msg, rec);
}

const char *map_klog_unit_name(const char *format)
{
	if (!format)
		return "sector";
	if (strcmp(format, "buffer-io") == 0)
		return "block";
	if (strcmp(format, "xfs-metadata") == 0)
		return "daddr";
	if (strcmp(format, "scsi-cdb") == 0 || strcmp(format, "scsi-info") == 0 ||
	    strncmp(format, "libata-", 7) == 0 || strcmp(format, "nvme-cmd") == 0)
		return "lba";
	return "sector";
}

int map_klog_parse_ctx(struct map_klog_ctx *ctx, const char *line, struct map_klog_rec *rec)
{
	int ret = map_klog_parse(line, rec);

	if (ret == 1 && rec->format && strncmp(rec->format, "libata-", 7) == 0) {
		if (rec->dev[0]) {
			snprintf(ctx->ata_dev, sizeof(ctx->ata_dev), "%s", rec->dev);
			ctx->ata_usec = rec->usec;
		} else if (ctx->ata_dev[0] && (rec->usec < 0 || rec->usec == ctx->ata_usec)) {
			/* a result line: printed with its command, same record, same stamp */
			snprintf(rec->dev, sizeof(rec->dev), "%s", ctx->ata_dev);
		} else {
			return -EINVAL;
		}
	}
	return ret;
}

/* Skip "[...] " (a dmesg timestamp: seconds, ctime, reltime, delta); NULL if s does not start
 * so. *usec gets the time of a seconds stamp ("[  12.345678]"), else stays. */
static const char *skip_stamp(const char *s, int64_t *usec)
{
	unsigned long long sec = 0, frac = 0;
	int digits = 0, dot = 0, ok = 1;
	size_t n;

	if (*s != '[')
		return NULL;
	n = strcspn(s + 1, "]\n");
	if (s[1 + n] != ']' || n == 0 || n > 40)
		return NULL;
	for (size_t i = 1; i <= n; i++) {
		if (!isalnum((unsigned char)s[i]) && !strchr(" .:+-<>,", s[i]))
			return NULL;
		if (isdigit((unsigned char)s[i])) {
			if (!dot) {
				sec = sec * 10 + (unsigned)(s[i] - '0');
				ok &= sec < 1000000000ull;
			} else if (digits < 6) {
				frac = frac * 10 + (unsigned)(s[i] - '0');
				digits++;
			}
		} else if (s[i] == '.' && !dot) {
			dot = 1;
		} else if (s[i] != ' ' || dot) {
			ok = 0;
		}
	}
	if (ok && dot && usec) {
		while (digits++ < 6)
			frac *= 10;
		*usec = (int64_t)(sec * 1000000ull + frac);
	}
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
 * "kernel:"; the message (form KERNEL), or NULL: form OTHER when another program's
 * identifier is there ("HOST sshd[12]:"; any program can log), else UNKNOWN.
 */
static const char *after_host(const char *s, struct map_klog_rec *rec)
{
	const char *p, *w;

	if (!s || !(s = skip_word(s)))		/* the host name */
		return NULL;
	if (strncmp(s, "kernel: ", 8) == 0) {
		rec->form = MAP_KLOG_KERNEL;
		s += 8;
		p = skip_stamp(s, &rec->usec);
		return p ? p : s;
	}
	w = s + strcspn(s, " \t");
	if (w > s && w[-1] == ':')
		rec->form = MAP_KLOG_OTHER;
	return NULL;
}

static int is_word_of(const char *s, const char *list)
{
	for (int i = 0; list[3 * i]; i++)
		if (strncmp(s, list + 3 * i, 3) == 0 && s[3] == ' ')
			return 1;
	return 0;
}

/* The kinds of block layer errors (block/blk-core.c blk_errors[]), for a line without prefix */
static const char *const block_kinds[] = {
	"I/O", "critical medium", "critical target", "critical nexus", "critical space allocation",
	"recoverable transport", "timeout", "protection", "kernel resource", "device resource",
	"operation not supported", "reservation conflict", "nonblocking retry", "device offline",
	"dm internal retry", "open zones exceeded", "active zones exceeded",
	"duration limit exceeded", "invalid",
};

/* 1 when msg, a line without any prefix, starts with the kernel's own wording of an error */
static int bare_kernel_wording(const char *s)
{
	static const char *const funcs[] = { "blk_update_request: ", "print_req_error: ",
					     "blk_print_req_error: " };

	if (strncmp(s, "Buffer I/O error on dev", 23) == 0 || strncmp(s, "XFS (", 5) == 0)
		return 1;
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (strncmp(s, funcs[i], strlen(funcs[i])) == 0)
			s += strlen(funcs[i]);
	for (size_t i = 0; i < sizeof(block_kinds) / sizeof(block_kinds[0]); i++) {
		size_t n = strlen(block_kinds[i]);

		if (strncmp(s, block_kinds[i], n) == 0 && strncmp(s + n, " error, dev ", 12) == 0)
			return 1;
	}
	return 0;
}

/* A journal record (journalctl -o json, one per line): MESSAGE of _TRANSPORT "kernel" copied
 * into buf (a string, or the array of bytes journald keeps for one not UTF-8), or NULL. */
static const char *journal_json(const char *line, struct map_klog_rec *rec, char *buf,
				size_t len)
{
	struct json_tokener *tok = json_tokener_new_ex(8);
	struct json_object *j, *tr = NULL, *msg = NULL, *ts = NULL;
	const char *ret = NULL;

	if (!tok)
		return NULL;
	j = json_tokener_parse_ex(tok, line, (int)strlen(line));
	json_tokener_free(tok);
	if (!j || !json_object_is_type(j, json_type_object) ||
	    !json_object_object_get_ex(j, "MESSAGE", &msg)) {
		json_object_put(j);
		return NULL;
	}
	rec->form = MAP_KLOG_OTHER;
	if (json_object_object_get_ex(j, "_TRANSPORT", &tr) &&
	    json_object_is_type(tr, json_type_string) &&
	    strcmp(json_object_get_string(tr), "kernel") == 0) {
		rec->form = MAP_KLOG_KERNEL;
		if (json_object_is_type(msg, json_type_string)) {
			snprintf(buf, len, "%s", json_object_get_string(msg));
			ret = buf;
		} else if (json_object_is_type(msg, json_type_array)) {
			size_t n = json_object_array_length(msg), k = 0;

			for (size_t i = 0; i < n && k + 1 < len; i++) {
				int b = json_object_get_int(json_object_array_get_idx(msg, i));

				buf[k++] = b > 0 && b < 256 ? (char)b : '?';
			}
			buf[k] = '\0';
			ret = buf;
		}
		if (json_object_object_get_ex(j, "_SOURCE_MONOTONIC_TIMESTAMP", &ts) &&
		    json_object_is_type(ts, json_type_string)) {
			char *e;
			unsigned long long v;

			errno = 0;
			v = strtoull(json_object_get_string(ts), &e, 10);
			if (!errno && !*e && v < INT64_MAX)
				rec->usec = (int64_t)v;
		}
	}
	json_object_put(j);
	return ret;
}

/* "FACILITY:LEVEL : " of dmesg -x ("kern  :err   : "): the rest, or NULL; *kern set */
static const char *dmesg_x(const char *s, int *kern)
{
	const char *p = s;

	while (islower((unsigned char)*p) || isdigit((unsigned char)*p))
		p++;
	if (p == s || p - s > 8)
		return NULL;
	*kern = p - s == 4 && strncmp(s, "kern", 4) == 0;
	while (*p == ' ')
		p++;
	if (*p++ != ':')
		return NULL;
	s = p;
	while (islower((unsigned char)*p))
		p++;
	if (p == s || p - s > 6)
		return NULL;
	while (*p == ' ')
		p++;
	if (p[0] != ':' || p[1] != ' ')
		return NULL;
	return p + 2;
}

/*
 * The kernel's message in line, or NULL; rec->form says whether line is the kernel's, another
 * program's or of no form known, rec->usec when the kernel's stamp is there. buf (len) holds
 * a message decoded from JSON.
 */
static const char *kernel_msg(const char *line, struct map_klog_rec *rec, char *buf, size_t len,
			      int depth)
{
	const char *p, *k;
	unsigned long pri;
	int kern;
	char *e;

	if (line[0] == '{')
		return journal_json(line, rec, buf, len);
	/* /dev/kmsg's dictionary lines under a record: " SUBSYSTEM=block" */
	if (line[0] == ' ' && isupper((unsigned char)line[1]) &&
	    line[1 + strspn(line + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_")] == '=') {
		rec->form = MAP_KLOG_KERNEL;
		return NULL;
	}
	/* syslog priority "<PRI>" (dmesg -r, /proc/kmsg, syslog over the network) */
	if (line[0] == '<' && isdigit((unsigned char)line[1]) && depth == 0) {
		errno = 0;
		pri = strtoul(line + 1, &e, 10);
		if (errno || *e != '>' || pri > 191)
			return NULL;
		if (pri >= 8) {			/* not facility kern: a program's */
			rec->form = MAP_KLOG_OTHER;
			return NULL;
		}
		p = kernel_msg(e + 1, rec, buf, len, depth + 1);
		if (rec->form == MAP_KLOG_UNKNOWN) {	/* the message itself */
			rec->form = MAP_KLOG_KERNEL;
			return e + 1;
		}
		return p;
	}
	/* dmesg -x "kern  :err   : [stamp] MSG" */
	if ((p = dmesg_x(line, &kern))) {
		if (!kern) {
			rec->form = MAP_KLOG_OTHER;
			return NULL;
		}
		rec->form = MAP_KLOG_KERNEL;
		k = skip_stamp(p, &rec->usec);
		return k ? k : p;
	}
	if (isdigit((unsigned char)line[0])) {
		/* /dev/kmsg record "PRI,SEQ,USEC,FLAGS;MSG": the kernel writes facility 0
		 * (PRI < 8); what a program writes to /dev/kmsg has facility user (PRI >= 8) */
		errno = 0;
		pri = strtoul(line, &e, 10);
		/* (more fields may follow the flags: "caller=T123" with CONFIG_PRINTK_CALLER) */
		if (!errno && *e == ',' && (p = strchr(e, ';')) &&
		    (size_t)(p - line) == strspn(line, "0123456789,-+=_abcdefghijklmnopqrstuvwxyz"
						 "ABCDEFGHIJKLMNOPQRSTUVWXYZ")) {
			unsigned long long us;
			char *f = strchr(e + 1, ',');

			if (pri >= 8) {
				rec->form = MAP_KLOG_OTHER;
				return NULL;
			}
			rec->form = MAP_KLOG_KERNEL;
			if (f) {
				errno = 0;
				us = strtoull(f + 1, &e, 10);
				if (!errno && *e == ',' && us < INT64_MAX)
					rec->usec = (int64_t)us;
			}
			return p + 1;
		}
		/* ISO 8601 time: syslog/journal "2026-12-03T10:00:00[.frac][+zone] HOST kernel:",
		 * dmesg --time-format iso "2026-12-03T10:00:00,123456+00:00 MSG" */
		if (strlen(line) > 19 && line[4] == '-' && line[7] == '-' && line[10] == 'T') {
			p = skip_word(line);
			k = after_host(p, rec);
			if (k || rec->form != MAP_KLOG_UNKNOWN || !p)
				return k;
			if (line[19] == ',') {		/* dmesg's own */
				rec->form = MAP_KLOG_KERNEL;
				return p;
			}
			return NULL;
		}
		/* journalctl -o short-unix "1796361728.646702 HOST kernel: MSG" */
		p = line + strspn(line, "0123456789");
		if (*p == '.' && isdigit((unsigned char)p[1]))
			return after_host(skip_word(line), rec);
		return NULL;
	}
	/* dmesg "[  12.345678] MSG" or journalctl -o short-monotonic "[  12.3] HOST kernel:" */
	if ((p = skip_stamp(line, &rec->usec))) {
		k = after_host(p, rec);
		rec->form = MAP_KLOG_KERNEL;	/* "HOST sshd:" or a message "sd 2:0:0:0:"? */
		return k ? k : p;
	}
	/* syslog/journal "Dec  3 10:00:00[.frac] HOST kernel: MSG" */
	if (is_word_of(line, "JanFebMarAprMayJunJulAugSepOctNovDec")) {
		p = skip_word(line);		/* month */
		p = p ? skip_word(p) : NULL;	/* day */
		p = p ? skip_word(p) : NULL;	/* time */
		return after_host(p, rec);
	}
	/* journalctl -o short-full "Fri 2026-12-04 05:22:07 UTC HOST kernel: MSG" */
	if (is_word_of(line, "MonTueWedThuFriSatSun") && isdigit((unsigned char)line[4])) {
		p = skip_word(line);		/* weekday */
		p = p ? skip_word(p) : NULL;	/* date */
		p = p ? skip_word(p) : NULL;	/* time */
		p = p ? skip_word(p) : NULL;	/* zone */
		return after_host(p, rec);
	}
	/* no prefix: the kernel's wording from the start, as dmesg --notime prints it */
	if (bare_kernel_wording(line)) {
		rec->form = MAP_KLOG_KERNEL;
		return line;
	}
	return NULL;
}

int map_klog_parse(const char *line, struct map_klog_rec *rec)
{
	char buf[KLOG_MAX_LINE + 1];
	const char *msg;
	int64_t usec;
	int ret, form;

	memset(rec, 0, sizeof(*rec));
	rec->usec = -1;
	/* the kernel's lines are at most about 1 KiB (PRINTK_MESSAGE_MAX) */
	if (!line || strnlen(line, KLOG_MAX_LINE + 1) > KLOG_MAX_LINE)
		return 0;
	msg = kernel_msg(line, rec, buf, sizeof(buf), 0);
	form = rec->form;
	usec = rec->usec;
	if (msg) {
		ret = map_klog_parse_msg(msg, rec);
		rec->form = form;
		rec->usec = usec;
		if (ret)
			return ret;
	}
	/* Not the kernel's: say so when the text would have been taken as an error. */
	for (const char *p = line; *p; p++)
		if ((p == line || p[-1] == ' ' || p[-1] == ';' || p[-1] == ':' || p[-1] == '"') &&
		    (ret = map_klog_parse_msg(p, rec)) != 0) {
			memset(rec, 0, sizeof(*rec));
			rec->usec = -1;
			rec->form = form == MAP_KLOG_KERNEL ? MAP_KLOG_KERNEL : MAP_KLOG_OTHER;
			rec->not_kernel = 1;
			return 0;
		}
	memset(rec, 0, sizeof(*rec));
	rec->form = form;
	rec->usec = usec;
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
	case MAP_KLOG_LBA:
		if (__builtin_mul_overflow(rec->value, lbs, &o) ||
		    __builtin_mul_overflow(rec->count, lbs, &l)) {
			*why = "LBA or block count out of range: bytes do not fit 64 bits";
			return -ERANGE;
		}
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
