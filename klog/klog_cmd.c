/*
 * klog/klog_cmd.c - drivers' lines that name the failed command itself: sd's CDB and
 * "Info fld" lines, libata's command and result taskfiles, NVMe's "@ LBA N, C blocks". The
 * block layer's "I/O error, dev X, sector N" is rate-limited (printk_ratelimit): after a
 * burst of errors only these lines remain, and they carry the command's blocks, or the
 * failing block itself (libata's result with UNC, sd's information field). Pure parsing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klog.h"

#define ATA_ERR_UNC 0x40

/* Copy the name inside "[NAME]" at s; 0 or -EINVAL. */
static int bracket_name(const char *s, char *out, size_t len, const char **end)
{
	size_t n;

	if (*s != '[')
		return -EINVAL;
	n = strcspn(s + 1, "] ");
	if (!n || n >= len || s[1 + n] != ']')
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[1 + i]) && s[1 + i] != '!' && s[1 + i] != '_')
			return -EINVAL;
	memcpy(out, s + 1, n);
	out[n] = '\0';
	*end = s + 2 + n;
	return 0;
}

static uint64_t be(const uint8_t *b, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

/* Decode a read or verify CDB into its LBA and blocks; 0 for other commands. */
static int cdb_range(const uint8_t *c, unsigned n, uint64_t *lba, uint64_t *count)
{
	switch (c[0]) {
	case 0x08:				/* READ(6) */
		if (n < 6)
			return -EINVAL;
		*lba = (uint64_t)(c[1] & 0x1f) << 16 | (uint64_t)c[2] << 8 | c[3];
		*count = c[4] ? c[4] : 256;
		return 1;
	case 0x28:				/* READ(10) */
	case 0x2f:				/* VERIFY(10) */
		if (n < 10)
			return -EINVAL;
		*lba = be(c + 2, 4);
		*count = be(c + 7, 2);
		break;
	case 0xa8:				/* READ(12) */
	case 0xaf:				/* VERIFY(12) */
		if (n < 12)
			return -EINVAL;
		*lba = be(c + 2, 4);
		*count = be(c + 6, 4);
		break;
	case 0x88:				/* READ(16) */
	case 0x8f:				/* VERIFY(16) */
		if (n < 16)
			return -EINVAL;
		*lba = be(c + 2, 8);
		*count = be(c + 10, 4);
		break;
	default:
		return 0;
	}
	return *count ? 1 : 0;			/* no blocks: nothing read */
}

/* "sd H:C:T:L: [NAME] ... CDB: Read(10) 28 00 ..." or "... Info fld=0xN" */
static int parse_sd(const char *msg, struct map_klog_rec *rec)
{
	const char *p = msg + 3, *e, *k;
	uint8_t cdb[32];
	unsigned n = 0;
	int ret;

	if (strncmp(msg, "sd ", 3))
		return 0;
	p += strspn(p, "0123456789:");
	if (*p++ != ' ')
		return 0;
	if (bracket_name(p, rec->dev, sizeof(rec->dev), &e) < 0)
		return 0;
	if ((k = strstr(e, "Info fld=0x"))) {
		char *end;

		errno = 0;
		rec->value = strtoull(k + 11, &end, 16);
		if (errno || end == k + 11 || (*end && !isspace((unsigned char)*end)))
			return -EINVAL;
		rec->count = 1;
		rec->unit = MAP_KLOG_LBA;
		rec->format = "scsi-info";
		return 1;
	}
	k = strstr(e, "CDB: ");
	if (!k)
		return 0;
	k += 5;
	/* the command's name ("Read(10)", "Read(10):"), then its bytes in hex */
	while (*k && !(isxdigit((unsigned char)k[0]) && isxdigit((unsigned char)k[1]) &&
		       (k[2] == ' ' || !k[2] || k[2] == '\n') && k[-1] == ' '))
		k++;
	while (n < sizeof(cdb) && isxdigit((unsigned char)k[0]) && isxdigit((unsigned char)k[1])) {
		cdb[n++] = (uint8_t)strtoul((char[3]){ k[0], k[1], 0 }, NULL, 16);
		k += 2;
		if (*k != ' ')
			break;
		k++;
	}
	if (!n)
		return -EINVAL;
	ret = cdb_range(cdb, n, &rec->value, &rec->count);
	if (ret <= 0)
		return ret;
	rec->unit = MAP_KLOG_LBA;
	rec->format = "scsi-cdb";
	return 1;
}

/* Parse a taskfile "xx/xx:xx:xx:xx:xx/xx:xx:xx:xx:xx/xx" into its 12 bytes; 0 or -EINVAL. */
static int taskfile(const char *s, uint8_t tf[12], const char **end)
{
	static const char seps[] = "/::::/::::/";

	for (unsigned i = 0; i < 12; i++) {
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]))
			return -EINVAL;
		tf[i] = (uint8_t)strtoul((char[3]){ s[0], s[1], 0 }, NULL, 16);
		s += 2;
		if (i < 11 && *s++ != seps[i])
			return -EINVAL;
	}
	*end = s;
	return 0;
}

/*
 * The LBA in a taskfile's registers: bytes are command/status, feature/error, count, LBA
 * 7:0, 15:8, 23:16, then the high ("hob") feature, count, LBA 31:24, 39:32, 47:40, device.
 * A 28-bit command keeps LBA 27:24 in the device register's low nibble.
 */
static uint64_t tf_lba(const uint8_t tf[12], int lba48)
{
	uint64_t v = (uint64_t)tf[3] | (uint64_t)tf[4] << 8 | (uint64_t)tf[5] << 16;

	if (lba48)
		return v | (uint64_t)tf[8] << 24 | (uint64_t)tf[9] << 32 | (uint64_t)tf[10] << 40;
	return v | (uint64_t)(tf[11] & 0x0f) << 24;
}

/* Return 1 for an ATA read or verify command (48-bit in *lba48), else 0. */
static int ata_read_cmd(uint8_t cmd, int *lba48, int *fpdma)
{
	*fpdma = cmd == 0x60;
	switch (cmd) {
	case 0x24: case 0x25: case 0x29: case 0x2a: case 0x2b: case 0x42: case 0x60:
		*lba48 = 1;
		return 1;
	case 0x20: case 0x21: case 0x40: case 0x41: case 0xc4: case 0xc8: case 0xc9:
		*lba48 = 0;
		return 1;
	}
	return 0;
}

/* "res SS/EE:..." with UNC in the error register: the failing block; 0 without UNC. */
static int parse_ata_res(const char *s, struct map_klog_rec *rec)
{
	uint8_t tf[12];
	const char *e;
	int lba48;

	if (taskfile(s, tf, &e) < 0)
		return -EINVAL;
	if (!(tf[1] & ATA_ERR_UNC))
		return 0;			/* ABRT and the like: the registers name nothing */
	lba48 = tf[8] || tf[9] || tf[10] || !(tf[11] & 0x0f);	/* else the device nibble */
	rec->value = tf_lba(tf, lba48);
	rec->count = 1;
	rec->unit = MAP_KLOG_LBA;
	rec->format = "libata-res";
	return 1;
}

/* "ataN.DD: cmd CC/FF:NN:LL:MM:HH/..." (and, from /dev/kmsg, the result in the same record) */
static int parse_ata(const char *msg, struct map_klog_rec *rec)
{
	const char *p = msg, *e, *r;
	uint8_t tf[12];
	int lba48, fpdma, ret;
	size_t n;

	r = msg + strspn(msg, " ");
	if (strncmp(r, "res ", 4) == 0) {	/* the result on a line of its own, indented */
		rec->dev[0] = '\0';
		return parse_ata_res(r + 4, rec);
	}
	if (strncmp(p, "ata", 3) || !isdigit((unsigned char)p[3]))
		return 0;
	n = strcspn(p, ": ");
	if (p[n] != ':' || n >= sizeof(rec->dev) || !strchr(p, '.') || strchr(p, '.') > p + n)
		return 0;
	if (strncmp(p + n, ": cmd ", 6))
		return 0;
	memcpy(rec->dev, p, n);
	rec->dev[n] = '\0';
	if (taskfile(p + n + 6, tf, &e) < 0)
		return -EINVAL;
	if (!ata_read_cmd(tf[0], &lba48, &fpdma))
		return 0;
	/* /dev/kmsg escapes the record's newline: "...in\x0a         res 51/40:..." */
	r = strstr(e, "res ");
	if (r) {
		ret = parse_ata_res(r + 4, rec);
		if (ret)
			return ret;
	}
	rec->value = tf_lba(tf, lba48);
	if (fpdma)				/* NCQ: the count is in the features */
		rec->count = (uint64_t)tf[6] << 8 | tf[1];
	else if (lba48)
		rec->count = (uint64_t)tf[7] << 8 | tf[2];
	else
		rec->count = tf[2];
	if (!rec->count)			/* 0 is the most: 65536, or 256 in 28 bits */
		rec->count = lba48 ? 65536 : 256;
	rec->unit = MAP_KLOG_LBA;
	rec->format = "libata-cmd";
	return 1;
}

/* "nvme0n1: I/O Cmd(0x2) @ LBA 16384, 8 blocks, ..." / "nvme0n1: Read(0x2) @ LBA ..." */
static int parse_nvme(const char *msg, struct map_klog_rec *rec)
{
	const char *p, *at;
	unsigned long long lba, count;
	unsigned op;
	size_t n;
	int used = 0;

	if (strncmp(msg, "nvme", 4))
		return 0;
	n = strcspn(msg, ": ");
	if (msg[n] != ':' || n >= sizeof(rec->dev))
		return 0;
	at = strstr(msg + n, " @ LBA ");
	if (!at)
		return 0;
	p = strstr(msg + n, "(0x");
	if (!p || p > at || sscanf(p, "(0x%x)", &op) != 1)
		return -EINVAL;
	if (op != 0x2 && op != 0xc)		/* Read, Verify */
		return 0;
	if (sscanf(at, " @ LBA %llu, %llu blocks%n", &lba, &count, &used) != 2 || !used)
		return -EINVAL;
	memcpy(rec->dev, msg, n);
	rec->dev[n] = '\0';
	rec->value = lba;
	rec->count = count ? count : 1;
	rec->unit = MAP_KLOG_LBA;
	rec->format = "nvme-cmd";
	return 1;
}

int map_klog_parse_cmd(const char *msg, struct map_klog_rec *rec)
{
	int ret;

	ret = parse_sd(msg, rec);
	if (ret)
		return ret;
	ret = parse_ata(msg, rec);
	if (ret)
		return ret;
	return parse_nvme(msg, rec);
}
