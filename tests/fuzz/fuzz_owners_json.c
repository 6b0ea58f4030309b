/*
 * tests/fuzz/fuzz_owners_json.c - the owners JSON a pass stored in the state DB, read back by
 * report and metrics (a tampered or old state file): parsed, checked, printed, counted.
 */
#include <stdio.h>
#include <json-c/json.h>

#include "cli.h"
#include "fuzz.h"
#include "metrics.h"
#include "owners_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null_out;
	char *s = fuzz_str(data, size);
	uint64_t ino[16];
	struct json_object *o;

	if (!null_out)
		null_out = fopen("/dev/null", "w");
	report_owners_json_files(s, ino, 16);
	o = report_owners_parse(s);
	report_owners_action(o);
	report_owners_print(null_out, o);
	json_object_put(o);
	free(s);
	return 0;
}
