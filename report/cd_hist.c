/*
 * report/cd_hist.c - copies that differ as the history keeps them, for `mediascan report` and
 * its HTML page: each run of an array whose copies (or data and parity) disagreed, by the
 * array's UUID and its first leg's member, with every leg, the wrong copy where it was known,
 * and the files it holds. The store's text is untrusted: parsed, escaped when printed.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cd_hist.h"
#include "escape.h"
#include "owners_json.h"
#include "units.h"

static json_object *array_of(const char *s)
{
	json_object *j = s ? json_tokener_parse(s) : NULL;

	if (j && !json_object_is_type(j, json_type_array)) {
		json_object_put(j);
		j = NULL;
	}
	return j ? j : json_object_new_array();
}

static json_object *str_or_null(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
}

static int add_row(const struct scan_state_cd_row *e, void *arg)
{
	json_object *a = arg, *j = json_object_new_object();
	const struct scan_state_cd *v = &e->cd;

	json_object_object_add(j, "verdict", json_object_new_string("copies-differ"));
	json_object_object_add(j, "array", str_or_null(v->array_path));
	json_object_object_add(j, "array_uuid", json_object_new_string(v->array_uuid ?
									 v->array_uuid : ""));
	json_object_object_add(j, "level", str_or_null(v->level));
	json_object_object_add(j, "member_id", json_object_new_string(v->member ? v->member :
									""));
	json_object_object_add(j, "offset", json_object_new_uint64(v->offset));
	json_object_object_add(j, "length", json_object_new_uint64(v->length));
	json_object_object_add(j, "wrong", str_or_null(v->wrong));
	json_object_object_add(j, "how", json_object_new_string(v->how ? v->how : "unknown"));
	json_object_object_add(j, "legs", array_of(v->legs_json));
	json_object_object_add(j, "owners", array_of(v->owners_json));
	json_object_object_add(j, "state", json_object_new_string(e->cleared ? "cleared" :
								   "open"));
	json_object_object_add(j, "first_seen", json_object_new_int64(e->first_seen));
	json_object_object_add(j, "last_seen", json_object_new_int64(e->last_seen));
	json_object_object_add(j, "times_seen", json_object_new_int((int)e->times_seen));
	json_object_object_add(j, "first_pass", json_object_new_int64(e->first_pass_id));
	json_object_array_add(a, j);
	return 0;
}

int report_cd_hist_json(struct scan_state *st, int64_t target_id, int all, json_object **out)
{
	json_object *a = json_object_new_array();
	int ret;

	if (!a)
		return -ENOMEM;
	ret = scan_state_list_cd(st, target_id, all, add_row, a);
	if (ret < 0) {
		json_object_put(a);
		return ret;
	}
	*out = a;
	return ret;
}

void report_cd_hist_print(FILE *f, json_object *cd)
{
	size_t n = cd ? json_object_array_length(cd) : 0;
	char a[PATH_MAX * 4], b[400], c[400], d[64];

	if (!n)
		return;
	fprintf(f, "  copies differ (the copies or parity of an array disagree, no read "
		"failed):\n");
	for (size_t i = 0; i < n; i++) {
		json_object *j = json_object_array_get_idx(cd, i), *own = NULL;
		const char *wrong = report_json_str(j, "wrong");

		fprintf(f, "  %-7s %s (%s) %s offset %" PRIu64 " length %" PRIu64 ": %s%s, last "
			"seen %s\n", report_json_str(j, "state"),
			report_escape(report_json_str(j, "array"), a, sizeof(a)),
			report_escape(report_json_str(j, "level"), b, sizeof(b)),
			report_escape(report_json_str(j, "member_id"), c, sizeof(c)), report_json_u64(j, "offset"),
			report_json_u64(j, "length"), wrong[0] ? "wrong copy on " : "which copy is wrong "
			"cannot be known", wrong[0] ? report_escape(wrong, b, sizeof(b)) : "",
			report_fmt_time((int64_t)report_json_u64(j, "last_seen"), d, sizeof(d)));
		if (json_object_object_get_ex(j, "owners", &own))
			report_owners_print(f, own);
	}
}
