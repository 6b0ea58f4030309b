/*
 * tests/unit/state_fixture.h - the fixture of the test_state* tests (state_fixture.c): a fresh
 * state store in its own mkdtemp directory per test, and the helpers that open it, build
 * passes and errors, and read rows back on a second connection.
 */
#ifndef MEDIASCAN_STATE_FIXTURE_H
#define MEDIASCAN_STATE_FIXTURE_H

#include <stdint.h>

#include "state.h"

#define KEY "xfs:0b6f4c2e-1d1e-4f5a-9d43-6a3b1f1c2d3e:/dev/loop3,/dev/loop4"
#define KEY2 "ext4:7e1d2c3b-aaaa-bbbb-cccc-0123456789ab:/dev/loop5"

/* The devices of KEY. */
extern const char *const devs[2];

struct fixture {
	char base[64];		/* mkdtemp directory, removed afterwards */
	char dir[128];		/* state directory inside it */
	char db[160];		/* dir/mediascan.db */
};

/* cmocka setup: a fresh fixture (state directory not created yet) in *state; -1 on failure. */
int setup(void **state);
/* cmocka teardown: remove the fixture's directory. */
int teardown(void **state);
/* Return the store of f opened, checking it opened without a warning. */
struct scan_state *open_ok(struct fixture *f);
/* Return the integer a query gives on a second, independent connection to the database. */
int64_t query_int(struct fixture *f, const char *sql);
/* Run sql on the database at path, failing the test if it fails. */
void exec_sql(const char *path, const char *sql);
/* Return a scan error of dev at [off, off+len) with err, read 3 times, reproducible. */
struct scan_error mk_err(uint32_t dev, uint64_t off, uint64_t len, int err);
/* Return the id of a pass of key begun in st, checking it began. */
int64_t begin(struct scan_state *st, const char *key);
/* Count (and check) the glob matches of mediascan.db.bad-* in the state directory. */
int count_bad(struct fixture *f);

#endif
