/*
 * report/journal.c - structured events for the systemd journal (sd_journal_sendv): a MESSAGE_ID
 * per event type, PRIORITY, and the fields DEVICE, OFFSET, LENGTH, PATH. Without a running
 * journald (or libsystemd) the MESSAGE goes to stderr as one plain line. libsystemd is opened
 * at the first event, not linked: a command that sends none (map, probe) never loads it and
 * the six libraries it brings.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <syslog.h>
#include <unistd.h>

#include "config.h"
#include "escape.h"
#include "journal.h"

#if HAVE_LIBSYSTEMD
#include <dlfcn.h>
#include <systemd/sd-journal.h>

/* sd_journal_sendv from libsystemd.so.0, looked up once; NULL when it cannot be had. */
static __typeof__(&sd_journal_sendv) journal_sendv(void)
{
	static __typeof__(&sd_journal_sendv) fn;
	static int tried;

	if (!tried) {
		void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);

		tried = 1;
		if (h)
			*(void **)&fn = dlsym(h, "sd_journal_sendv");
	}
	return fn;
}
#endif

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

static const struct {
	const char *id;
	int priority;
	const char *name;
} event_types[] = {
	[REPORT_EV_MEDIA_ERROR] = { REPORT_MSGID_MEDIA_ERROR, LOG_ERR, "media error" },
	[REPORT_EV_DAMAGED_FILE] = { REPORT_MSGID_DAMAGED_FILE, LOG_CRIT, "damaged file" },
	[REPORT_EV_PASS_COMPLETE] = { REPORT_MSGID_PASS_COMPLETE, LOG_INFO, "pass complete" },
	[REPORT_EV_SCAN_FAILED] = { REPORT_MSGID_SCAN_FAILED, LOG_ERR, "scan failed" },
	[REPORT_EV_REDUNDANCY_LOST] = { REPORT_MSGID_REDUNDANCY_LOST, LOG_WARNING, "redundancy lost" },
	[REPORT_EV_COPIES_DIFFER] = { REPORT_MSGID_COPIES_DIFFER, LOG_ERR, "copies differ" },
	[REPORT_EV_METHOD_UNTRUSTED] = { REPORT_MSGID_METHOD_UNTRUSTED, LOG_WARNING,
					  "method untrusted" },
};

static int add_field(struct report_journal_fields *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int add_field(struct report_journal_fields *f, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (f->nr == REPORT_JOURNAL_MAX_FIELDS)
		return -E2BIG;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	f->v[f->nr++] = s;
	return 0;
}

/*
 * Field values hold names any user wrote: escaped as in human output (report/escape.c), so a
 * newline cannot make PATH name another file (it was turned into a space), and an ESC or
 * invalid UTF-8 cannot make journalctl show "[blob data]" or reach a terminal raw.
 */
static const char *one_line(const char *s, char *buf, size_t len)
{
	return report_escape(s, buf, len);
}

int report_journal_build(const struct report_event *ev, struct report_journal_fields *f)
{
	char buf[4096];
	int ret = 0;

	memset(f, 0, sizeof(*f));
	if (ev->type >= REPORT_EV_NR || !ev->message)
		return -EINVAL;
	ret |= add_field(f, "MESSAGE=%s", one_line(ev->message, buf, sizeof(buf)));
	ret |= add_field(f, "MESSAGE_ID=%s", event_types[ev->type].id);
	ret |= add_field(f, "PRIORITY=%d", event_types[ev->type].priority);
	ret |= add_field(f, "SYSLOG_IDENTIFIER=mediascan");
	ret |= add_field(f, "MEDIASCAN_EVENT=%s", event_types[ev->type].name);
	if (ev->target)
		ret |= add_field(f, "MEDIASCAN_TARGET=%s", one_line(ev->target, buf, sizeof(buf)));
	if (ev->device)
		ret |= add_field(f, "DEVICE=%s", one_line(ev->device, buf, sizeof(buf)));
	if (ev->has_range) {
		ret |= add_field(f, "OFFSET=%" PRIu64, ev->offset);
		ret |= add_field(f, "LENGTH=%" PRIu64, ev->length);
	}
	if (ev->path)
		ret |= add_field(f, "PATH=%s", one_line(ev->path, buf, sizeof(buf)));
	if (ev->has_file_range) {
		ret |= add_field(f, "FILE_OFFSET=%" PRIu64, ev->file_offset);
		ret |= add_field(f, "FILE_LENGTH=%" PRIu64, ev->file_length);
	}
	if (ev->error)
		ret |= add_field(f, "MEDIASCAN_ERROR=%s", ev->error);
	if (ev->pass_id)
		ret |= add_field(f, "MEDIASCAN_PASS=%" PRId64, ev->pass_id);
	if (ev->member_id)
		ret |= add_field(f, "MEDIASCAN_MEMBER_ID=%s", one_line(ev->member_id, buf,
									sizeof(buf)));
	if (ev->array)
		ret |= add_field(f, "MEDIASCAN_ARRAY=%s", one_line(ev->array, buf, sizeof(buf)));
	if (ev->array_uuid && ev->array_uuid[0])
		ret |= add_field(f, "MEDIASCAN_ARRAY_UUID=%s", one_line(ev->array_uuid, buf,
									 sizeof(buf)));
	if (ret) {
		report_journal_fields_free(f);
		return -ENOMEM;
	}
	return (int)f->nr;
}

int report_journal_fields_free(struct report_journal_fields *f)
{
	for (unsigned i = 0; i < f->nr; i++)
		free(f->v[i]);
	f->nr = 0;
	return 0;
}

int report_journal_available(void)
{
#if HAVE_LIBSYSTEMD
	const char *force = getenv("MEDIASCAN_JOURNAL");

	if (force && strcmp(force, "stderr") == 0)
		return 0;
	return access(JOURNAL_SOCKET, W_OK) == 0 && journal_sendv();
#else
	return 0;
#endif
}

int report_journal_send(const struct report_event *ev)
{
	struct report_journal_fields f;
	int ret = report_journal_build(ev, &f);

	if (ret < 0)
		return ret;
#if HAVE_LIBSYSTEMD
	if (report_journal_available()) {
		struct iovec iov[REPORT_JOURNAL_MAX_FIELDS];

		for (unsigned i = 0; i < f.nr; i++) {
			iov[i].iov_base = f.v[i];
			iov[i].iov_len = strlen(f.v[i]);
		}
		ret = journal_sendv()(iov, (int)f.nr);
		if (ret >= 0) {
			report_journal_fields_free(&f);
			return 0;
		}
	}
#endif
	/* No journal: the message, plain, on stderr (f.v[0] is "MESSAGE=..."). */
	fprintf(stderr, "mediascan: %s\n", f.v[0] + strlen("MESSAGE="));
	report_journal_fields_free(&f);
	return 0;
}
