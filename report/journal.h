/*
 * report/journal.h - structured journal events (MESSAGE_ID per event type, PRIORITY, DEVICE,
 * OFFSET, LENGTH, PATH) sent with sd_journal_sendv, or one plain line on stderr.
 */
#ifndef MEDIASCAN_JOURNAL_H
#define MEDIASCAN_JOURNAL_H

#include <stdint.h>

/* MESSAGE_IDs: stable, for `journalctl MESSAGE_ID=...` and the man page. */
#define REPORT_MSGID_MEDIA_ERROR	"5b1c0e6a4f2d4e8c9a7f3d2b1e0c9a81"
#define REPORT_MSGID_DAMAGED_FILE	"5b1c0e6a4f2d4e8c9a7f3d2b1e0c9a82"
#define REPORT_MSGID_PASS_COMPLETE	"5b1c0e6a4f2d4e8c9a7f3d2b1e0c9a83"
#define REPORT_MSGID_SCAN_FAILED	"5b1c0e6a4f2d4e8c9a7f3d2b1e0c9a84"
#define REPORT_MSGID_REDUNDANCY_LOST	"5b1c0e6a4f2d4e8c9a7f3d2b1e0c9a85"
#define REPORT_MSGID_METHOD_UNTRUSTED	"5b1c0e6a4f2d4e8c9a7f3d2b1e0c9a86"
#define REPORT_MSGID_COPIES_DIFFER	"5b1c0e6a4f2d4e8c9a7f3d2b1e0c9a87"

#define REPORT_JOURNAL_MAX_FIELDS 20

enum report_event_type {
	REPORT_EV_MEDIA_ERROR,		/* a bad device range (PRIORITY err) */
	REPORT_EV_DAMAGED_FILE,		/* a file lost data (crit) */
	REPORT_EV_PASS_COMPLETE,		/* a full pass ended (info) */
	REPORT_EV_SCAN_FAILED,		/* a scan stopped on an operational error (err) */
	REPORT_EV_REDUNDANCY_LOST,		/* a copy of an array failed, another reads (warning) */
	REPORT_EV_METHOD_UNTRUSTED,		/* a drive-side verify does not read the medium
						 * (warning) */
	REPORT_EV_COPIES_DIFFER,		/* an array's copies disagree, no read failed (err) */
	REPORT_EV_NR,
};

struct report_event {
	enum report_event_type type;
	const char *message;		/* human text, one line */
	const char *target;		/* patrol target name or scanned path; may be NULL */
	const char *device;		/* may be NULL */
	int has_range;
	uint64_t offset, length;	/* bytes on device */
	const char *path;		/* damaged file; may be NULL */
	int has_file_range;
	uint64_t file_offset, file_length;	/* bytes within the file */
	const char *error;		/* EIO, ENODATA, ... ; may be NULL */
	int64_t pass_id;		/* 0: none */
	const char *member_id;		/* redundancy lost: the member disk's WWN/serial */
	const char *array;		/* ... the array (/dev/md0) and its UUID; may be NULL */
	const char *array_uuid;
};

/* "KEY=value" strings of one journal entry. */
struct report_journal_fields {
	char *v[REPORT_JOURNAL_MAX_FIELDS];
	unsigned nr;
};

/* Return the number of fields built into f (MESSAGE first), or -errno. */
int report_journal_build(const struct report_event *ev, struct report_journal_fields *f);
/* Return 0; free the strings of f. */
int report_journal_fields_free(struct report_journal_fields *f);
/* Return 1 when journald's socket is there (and MEDIASCAN_JOURNAL is not "stderr"), else 0. */
int report_journal_available(void);
/* Return 0 after sending ev to the journal, or printing its message to stderr; or -errno. */
int report_journal_send(const struct report_event *ev);

#endif
