/*
 * cli/map_int.h - the state `mediascan map` shares between its files (map_cmd.c parses the
 * arguments; map_query.c, map_klog.c, map_batch.c, map_answer.c). Not for use outside cli/.
 */
#ifndef CLI_MAP_INT_H
#define CLI_MAP_INT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "klog.h"
#include "map_stack.h"

#define MAP_SHOW_UNUSABLE 20
/* Kernel log bounds: a longer line is no kernel's (its records are at most 2 KiB), and at
 * most this many distinct ranges are kept (repeats merge); lines past either are dropped and
 * counted. */
#define MAP_KLOG_MAX_LINE 8192
#define MAP_KLOG_MAX_RANGES 16384
#define MAP_KLOG_MAX_EVENTS 256

/* One range to map, with how it was named. */
struct query {
	char devpath[128];
	uint64_t offset;		/* bytes on devpath */
	uint64_t length;
	unsigned lines;			/* kernel log lines naming it */
	const char *format;		/* "query", "block-layer", ... */
	uint64_t value;			/* sector/block/daddr as the line said */
	int tgt;			/* index into the targets, -1 not mapped */
	unsigned dev_idx;
	size_t group;			/* map_damage group of this query */
	/* under md/dm: the way up to the filesystem's device (devpath/offset are then the
	 * top's, asked_* what was queried); no_owner: parity, unused or unmappable */
	struct map_stack_up *stk;
	char asked_dev[128];
	uint64_t asked_off;
	int no_owner;
	char kname[64];			/* the kernel's device name in the log line */
	int64_t usec;			/* latest line's kernel time (us since boot), -1 unknown */
	char stale[160];		/* why not mapped: logged before the device appeared */
	int cmd_range;			/* a failed command's blocks: the bad one lies inside */
	int vague;			/* such a range that no narrower line explained */
	int drop;			/* cli_map_narrow: explained by another line */
};

struct tgt {
	char devpath[128];		/* as opened */
	unsigned dev_idx;		/* devpath's index among the target's devices */
	struct map_target t;
	struct map_damage d;
	int open;
	int mapped;
	int err_class;			/* enum map_target_err when it did not open */
	char err[512];
};

struct map_run {
	struct query *q;
	size_t nr_q, cap_q;
	struct tgt *tg;
	size_t nr_tg;
	/* kernel log accounting */
	int from_log;
	unsigned lines, matched, ignored, not_kernel;
	unsigned nr_unusable;
	char *unusable[MAP_SHOW_UNUSABLE];
	unsigned nr_unknown;
	char unknown[16][64];
	int from_kmsg;			/* /dev/kmsg: times comparable with its events */
	struct map_klog_ctx klog_ctx;	/* the log's lines in order (libata's result lines) */
	unsigned kernel_lines;		/* lines that are the kernel's (usable) */
	unsigned too_long, dropped, nr_stale;
	unsigned narrowed;		/* command ranges explained by a narrower line */
	unsigned request_starts;	/* block-layer lines naming a command's first sector */
	unsigned nr_vague;		/* command ranges left: owners of the whole range */
	/* when each device last (re)appeared or had a filesystem mounted, from the log */
	struct {
		char name[64];
		int64_t appeared, mounted;	/* us since boot, -1 none */
	} ev[MAP_KLOG_MAX_EVENTS];
	unsigned nr_ev;
	uint64_t block_size;		/* --block-size */
	unsigned exit_bits;
	/* kernel names already looked up: name -> /dev path ("" unknown) */
	struct {
		char name[64];
		char devpath[128];
	} names[64];
	unsigned nr_names;
};

/* Copy src to dst (len bytes), cut to fit, as snprintf(dst, len, "%s", src) does without its
 * cost (every range copies its device names). Not strnlen: see stack_copy (stack_int.h). */
static inline void cli_map_copy(char *dst, size_t len, const char *src)
{
	size_t n = 0;

	if (!len)
		return;
	while (n + 1 < len && src[n])
		n++;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* snprintf(dst, len, "/dev/%s", name), the same way (len > 0). */
static inline void cli_map_copy_dev(char *dst, size_t len, const char *name)
{
	cli_map_copy(dst, len, "/dev/");
	if (len > 6)
		cli_map_copy(dst + 5, len - 5, name);
}

/* Return 0 after adding a query for [off, off+len) of devpath, 1 when dropped (over the
 * bound), or -ENOMEM. */
int cli_map_add_query(struct map_run *m, const char *devpath, uint64_t off, uint64_t len,
		      const char *format, uint64_t value);
/* Return <0, 0 or >0 as query a sorts before, with or after query b (device, offset, length). */
int cli_map_cmp_query(const void *a, const void *b);
/* Sort the queries by device and offset and merge repeats (counting their lines). */
void cli_map_dedup(struct map_run *m);
/*
 * Drop what the kernel log says twice about one failed command: the block layer's line that
 * names the command's first sector, and a command's range that a narrower line (the failing
 * block, a smaller retry) explains; mark the command ranges left as vague.
 */
void cli_map_narrow(struct map_run *m);
/* Return the open target for devpath (opened once), or NULL with why in its err. */
struct tgt *cli_map_target_for(struct map_run *m, const char *devpath, unsigned *dev_idx);
/* Set q->stale when q (from /dev/kmsg) was logged before its device or filesystem appeared. */
void cli_map_check_stale(struct map_run *m, struct query *q);
/* Return 0 after reading kernel log lines from path ("-" stdin, NULL /dev/kmsg), or an exit
 * status (REPORT_EXIT_*). */
int cli_map_read_log(struct map_run *m, const char *path);
/* Return 0 after mapping every query through its target (errors said in the targets and
 * m->exit_bits), or -ENOMEM. */
int cli_map_all(struct map_run *m);
/* Return 0 after writing the JSON answer to path ("-" stdout), or an exit status. */
int cli_map_write_json(const struct map_run *m, const char *path);
/* Print the human answer to f. */
void cli_map_print_answer(const struct map_run *m, FILE *f);

#endif
