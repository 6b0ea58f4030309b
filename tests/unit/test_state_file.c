/*
 * tests/unit/test_state_file.c - history/ (state.h): the state store's directory and database
 * file: the directory made 0700, a file where the directory should be, and a database that is
 * garbage, has corrupt pages or is not ours moved aside. The fixture is in state_fixture.c.
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
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "state.h"
#include "state_fixture.h"

static void test_dir_created_0700(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st;
	struct stat sb;
	mode_t old = umask(022);

	st = open_ok(f);
	umask(old);
	assert_int_equal(stat(f->dir, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0700);
	assert_int_equal(stat(f->db, &sb), 0);
	assert_int_equal(scan_state_close(st), 0);

	/* Reopening an existing store is quiet and keeps the schema. */
	st = open_ok(f);
	assert_int_equal(query_int(f, "PRAGMA application_id"), SCAN_STATE_APPLICATION_ID);
	assert_int_equal(query_int(f, "SELECT value FROM meta WHERE key = 'schema_version'"),
			 SCAN_STATE_SCHEMA_VERSION);
	assert_int_equal(scan_state_close(st), 0);
}

static void test_not_a_directory(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = (void *)1;
	char path[160], warn[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/file", f->base);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(scan_state_open(path, &st, warn, sizeof(warn)), -ENOTDIR);
	assert_null(st);
	assert_non_null(strstr(warn, path));
}

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, len, fp), len);
	fclose(fp);
}

/* Open a store over a bad mediascan.db: moved aside with a warning, and a working fresh one. */
static void open_moves_aside(struct fixture *f, const char *why)
{
	struct scan_state *st = NULL;
	char warn[1024];
	uint64_t cur[2] = {0, 0};
	int64_t rid;

	assert_int_equal(scan_state_open(f->dir, &st, warn, sizeof(warn)), 0);
	print_message("warn: %s\n", warn);
	assert_non_null(strstr(warn, "moved to"));
	assert_non_null(strstr(warn, "mediascan.db.bad-"));
	assert_non_null(strstr(warn, why));
	assert_int_equal(scan_state_find_resumable(st, KEY, &rid, cur, 2), 0);
	begin(st, KEY);
	assert_int_equal(query_int(f, "SELECT count(*) FROM passes"), 1);
	assert_int_equal(query_int(f, "PRAGMA application_id"), SCAN_STATE_APPLICATION_ID);
	assert_int_equal(scan_state_close(st), 0);
}

static void test_garbage_moved_aside(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	char garbage[8192], back[sizeof(garbage)], path[256];
	glob_t g;
	FILE *fp;

	assert_int_equal(scan_state_close(st), 0);
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)(i * 7 + 3);
	write_file(f->db, garbage, sizeof(garbage));
	snprintf(path, sizeof(path), "%s-wal", f->db);
	write_file(path, garbage, 100);		/* a stale log must go with it */
	open_moves_aside(f, "not a database");
	assert_int_equal(count_bad(f), 1);

	/* The bad file is kept, byte for byte, with its log. */
	snprintf(path, sizeof(path), "%s/mediascan.db.bad-*-wal", f->dir);
	assert_int_equal(glob(path, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	globfree(&g);
	snprintf(path, sizeof(path), "%s/mediascan.db.bad-[0-9]*[0-9]", f->dir);
	assert_int_equal(glob(path, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	fp = fopen(g.gl_pathv[0], "r");
	globfree(&g);
	assert_non_null(fp);
	assert_int_equal(fread(back, 1, sizeof(back), fp), sizeof(back));
	fclose(fp);
	assert_memory_equal(back, garbage, sizeof(garbage));

	/* Twice in the same second: a second, distinct name. */
	write_file(f->db, "definitely not sqlite", 21);
	open_moves_aside(f, "not a database");
	assert_int_equal(count_bad(f), 2);
}

static void test_corrupt_pages_moved_aside(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	uint64_t cur[2] = {0, 0};
	char junk[4096];
	int64_t id = begin(st, KEY);
	FILE *fp;

	for (unsigned i = 0; i < 400; i++) {
		struct scan_error e = mk_err(i & 1, (uint64_t)i << 16, 512, -EIO);

		assert_int_equal(scan_state_checkpoint(st, id, cur, 2, i, &e, 1, devs), 0);
	}
	assert_int_equal(scan_state_close(st), 0);

	/* A valid header over damaged pages: quick_check finds it. */
	memset(junk, 0xa5, sizeof(junk));
	fp = fopen(f->db, "r+");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 4 * 4096, SEEK_SET), 0);
	assert_int_equal(fwrite(junk, 1, sizeof(junk), fp), sizeof(junk));
	assert_int_equal(fseek(fp, 9 * 4096, SEEK_SET), 0);
	assert_int_equal(fwrite(junk, 1, sizeof(junk), fp), sizeof(junk));
	fclose(fp);
	open_moves_aside(f, "corrupt");
	assert_int_equal(count_bad(f), 1);

	/* An empty file is simply a new database. */
	assert_int_equal(unlink(f->db), 0);
	write_file(f->db, "", 0);
	st = open_ok(f);
	begin(st, KEY);
	assert_int_equal(scan_state_close(st), 0);
	assert_int_equal(count_bad(f), 1);
}

static void test_foreign_moved_aside(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st;

	st = open_ok(f);		/* creates the directory */
	assert_int_equal(scan_state_close(st), 0);
	assert_int_equal(unlink(f->db), 0);

	/* Another application's SQLite file. */
	exec_sql(f->db, "PRAGMA application_id = 1234; CREATE TABLE t (x); "
			"INSERT INTO t VALUES (1);");
	open_moves_aside(f, "another application");
	assert_int_equal(count_bad(f), 1);

	/* A SQLite file without application_id but with tables is foreign too. */
	assert_int_equal(unlink(f->db), 0);
	exec_sql(f->db, "CREATE TABLE targets (id INTEGER PRIMARY KEY);");
	open_moves_aside(f, "another application");
	assert_int_equal(count_bad(f), 2);

	/* Ours, from a newer mediascan. */
	exec_sql(f->db, "UPDATE meta SET value = '99' WHERE key = 'schema_version';");
	open_moves_aside(f, "schema version 99");
	assert_int_equal(count_bad(f), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dir_created_0700, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_moved_aside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_pages_moved_aside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_moved_aside, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
