/*
 * tests/fuzz/fuzz_history.c - `mediascan report` and `status` over a state database whose rows
 * were edited behind mediascan's back: a target, a pass and error rows whose text (device,
 * error, class, verdict, owners JSON, path, filesystem type) and numbers (offsets, lengths,
 * times, counts; negative too) come from the input. No crash, and the human output holds no
 * control byte but newlines (the store's text is escaped as any name); the HTML page no
 * string written raw (each text ends with "<zq", a tag the writer never writes).
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "report_cmd.h"
#include "state.h"
#include "status_cmd.h"

static char dir[] = "/dev/shm/mediascan-fuzz-history-XXXXXX";	/* tmpfs: fsync is free */
static char db_path[128];
static int out_fd = -1;

/* The next text of the input (up to a NUL byte), "<zq" after it; malloc'd. */
static char *text(const uint8_t **data, size_t *size)
{
	size_t n = strnlen((const char *)*data, *size);
	char *s = malloc(n + 4);

	if (!s)
		abort();
	memcpy(s, *data, n);
	memcpy(s + n, "<zq", 4);
	n = n < *size ? n + 1 : n;
	*data += n;
	*size -= n;
	return s;
}

static void init(void)
{
	struct scan_state *st = NULL;
	char warn[256];

	if (!mkdtemp(dir) || scan_state_open(dir, &st, warn, sizeof(warn)) < 0)
		abort();
	scan_state_close(st);
	snprintf(db_path, sizeof(db_path), "%s/mediascan.db", dir);
	out_fd = memfd_create("fuzz-history-out", 0);
	if (out_fd < 0)
		abort();
}

/* Run main(args) with stdout into out_fd; return what it printed (malloc'd, NUL-ended). */
static char *run(int (*fn)(int, char **), const char *const *args, int n)
{
	char *argv[8];
	int saved;
	off_t len;
	char *out;

	for (int i = 0; i < n; i++)
		argv[i] = (char *)args[i];
	argv[n] = NULL;
	if (ftruncate(out_fd, 0) < 0 || lseek(out_fd, 0, SEEK_SET) < 0)
		abort();
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(out_fd, STDOUT_FILENO);
	fn(n, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	len = lseek(out_fd, 0, SEEK_END);
	out = malloc((size_t)len + 1);
	if (!out || pread(out_fd, out, (size_t)len, 0) != len)
		abort();
	out[len] = '\0';
	return out;
}

static void check_human(const char *out)
{
	for (const unsigned char *p = (const unsigned char *)out; *p; p++)
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f)
			abort();		/* a control byte of the store printed raw */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const results[] = { "running", "complete", "interrupted", "failed" };
	static const char *const states[] = { "open", "cleared" };
	char *path, *fs, *key, *out;
	sqlite3 *db;
	sqlite3_stmt *ins = NULL;
	int64_t v = (int64_t)fuzz_u64(&data, &size);

	if (out_fd < 0)
		init();
	if (sqlite3_open(db_path, &db) != SQLITE_OK)
		abort();
	sqlite3_exec(db, "PRAGMA synchronous = OFF; DELETE FROM error_passes; "
		     "DELETE FROM errors; DELETE FROM cursors; "
		     "DELETE FROM passes; DELETE FROM targets;", NULL, NULL, NULL);
	key = text(&data, &size);
	path = text(&data, &size);
	fs = text(&data, &size);
	{
		/* a path that names nothing here: report must not open the machine's disks */
		char *p = malloc(strlen(path) + 32);

		sprintf(p, "/nonexistent-fuzz/%s", path);
		free(path);
		path = p;
	}
	sqlite3_prepare_v2(db, "INSERT INTO targets (id, key, path, fs_type, created) "
			   "VALUES (1, ?, ?, ?, ?)", -1, &ins, NULL);
	sqlite3_bind_text(ins, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(ins, 2, path, -1, SQLITE_STATIC);
	sqlite3_bind_text(ins, 3, fs, -1, SQLITE_STATIC);
	sqlite3_bind_int64(ins, 4, v);
	sqlite3_step(ins);
	sqlite3_finalize(ins);
	sqlite3_prepare_v2(db, "INSERT INTO passes (id, target_id, started, ended, planned_bytes, "
			   "scanned_bytes, bytes_per_s, result, method, engine) "
			   "VALUES (1, 1, ?, ?, ?, ?, ?, ?, 'read', 'uring')", -1, &ins, NULL);
	sqlite3_bind_int64(ins, 1, (v & 1) ? v : v % 2000000000);	/* any time, or a sane one */
	sqlite3_bind_int64(ins, 2, (v & 2) ? v / 2 : v % 2000000000 + 100);
	sqlite3_bind_int64(ins, 3, v);
	sqlite3_bind_int64(ins, 4, v / 3);
	sqlite3_bind_double(ins, 5, (double)v / 7);
	sqlite3_bind_text(ins, 6, results[(uint64_t)v % 4], -1, SQLITE_STATIC);
	sqlite3_step(ins);
	sqlite3_finalize(ins);
	sqlite3_prepare_v2(db, "INSERT INTO errors (target_id, pass_id, last_pass_id, dev_idx, "
			   "device, offset, length, error, err, cls, owners_json, first_seen, "
			   "last_seen, times_seen, state, verdict, latency_ns, device_path) "
			   "VALUES (1, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1,
			   &ins, NULL);
	for (int k = 0; size && k < 16; k++) {
		int64_t n = (int64_t)fuzz_u64(&data, &size);
		char *t[6];

		for (int i = 0; i < 6; i++)
			t[i] = text(&data, &size);
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, n % 3);
		sqlite3_bind_text(ins, 2, t[0], -1, SQLITE_STATIC);		/* device */
		sqlite3_bind_int64(ins, 3, n);					/* offset */
		sqlite3_bind_int64(ins, 4, n >> 20);				/* length */
		sqlite3_bind_text(ins, 5, t[1], -1, SQLITE_STATIC);		/* error */
		sqlite3_bind_int64(ins, 6, -(n & 0xff));
		sqlite3_bind_text(ins, 7, t[2], -1, SQLITE_STATIC);		/* cls */
		/* owners_json: the input's text as it is (JSON or not) */
		sqlite3_bind_text(ins, 8, t[3], (int)strlen(t[3]) - 3, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 9, n % 2000000000);
		sqlite3_bind_int64(ins, 10, n % 2000000000 + (n >> 40));
		sqlite3_bind_int64(ins, 11, n >> 50);
		sqlite3_bind_text(ins, 12, states[(uint64_t)n % 2], -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 13, t[4], -1, SQLITE_STATIC);		/* verdict */
		sqlite3_bind_int64(ins, 14, n >> 8);
		sqlite3_bind_text(ins, 15, t[5], -1, SQLITE_STATIC);		/* device_path */
		sqlite3_step(ins);
		for (int i = 0; i < 6; i++)
			free(t[i]);
	}
	sqlite3_finalize(ins);
	sqlite3_close(db);
	free(key);
	free(path);
	free(fs);

	{
		const char *a[] = { "report", "--state-dir", dir, "--all" };

		out = run(cli_report_main, a, 4);
		check_human(out);
		free(out);
		out = run(cli_report_main, a, 3);
		check_human(out);
		free(out);
	}
	{
		const char *a[] = { "status", "--state-dir", dir };

		out = run(cli_status_main, a, 3);
		check_human(out);
		free(out);
	}
	{
		const char *a[] = { "report", "--state-dir", dir, "--html", "-" };

		out = run(cli_report_main, a, 5);
		if (strstr(out, "<zq"))
			abort();		/* the store's text written raw into the page */
		free(out);
	}
	return 0;
}
