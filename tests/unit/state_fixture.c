/*
 * tests/unit/state_fixture.c - the fixture of the test_state* tests: each test gets a fresh mkdtemp
 * directory holding its state store, removed afterwards; helpers open the store, build passes
 * and errors, and read rows back on a second, independent connection.
 */
#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "state_fixture.h"

const char *const devs[2] = {"/dev/loop3", "/dev/loop4"};


static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");

	if (!f)
		return -1;
	snprintf(f->base, sizeof(f->base), "%s/mediascan-state-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->base)) {
		free(f);
		return -1;
	}
	snprintf(f->dir, sizeof(f->dir), "%s/var/lib/mediascan", f->base);
	snprintf(f->db, sizeof(f->db), "%s/mediascan.db", f->dir);
	*state = f;
	return 0;
}

int teardown(void **state)
{
	struct fixture *f = *state;

	nftw(f->base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

struct scan_state *open_ok(struct fixture *f)
{
	struct scan_state *st = NULL;
	char warn[1024];

	assert_int_equal(scan_state_open(f->dir, &st, warn, sizeof(warn)), 0);
	assert_non_null(st);
	assert_string_equal(warn, "");
	return st;
}

/* Return the integer a query gives on a second, independent connection to the database. */
int64_t query_int(struct fixture *f, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t v = -1;

	assert_int_equal(sqlite3_open_v2(f->db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

void exec_sql(const char *path, const char *sql)
{
	sqlite3 *db;
	char *err = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
	sqlite3_close(db);
}

struct scan_error mk_err(uint32_t dev, uint64_t off, uint64_t len, int err)
{
	struct scan_error e = {
		.dev_idx = dev,
		.offset = off,
		.length = len,
		.err = err,
		.cls = scan_classify(err),
		.reads = 3,
		.reproducible = 1,
	};
	return e;
}

int64_t begin(struct scan_state *st, const char *key)
{
	int64_t id = -1;

	assert_int_equal(scan_state_begin_pass(st, key, "/srv", "xfs", 1 << 30, "read", "io_uring", 0,
					       &id),
			 0);
	assert_true(id > 0);
	return id;
}

/* Count (and check) the glob matches of mediascan.db.bad-* in the state directory. */
int count_bad(struct fixture *f)
{
	char pat[256];
	glob_t g;
	int n;

	snprintf(pat, sizeof(pat), "%s/mediascan.db.bad-*", f->dir);
	if (glob(pat, 0, NULL, &g))
		return 0;
	n = 0;
	for (size_t i = 0; i < g.gl_pathc; i++)
		if (!strstr(g.gl_pathv[i], "-wal") && !strstr(g.gl_pathv[i], "-shm"))
			n++;
	globfree(&g);
	return n;
}
