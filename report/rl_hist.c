/*
 * report/rl_hist.c - redundancy lost as the history keeps it, for `mediascan report`, `status`
 * and the HTML report: each member range that failed while another copy read fine, named by
 * the member disk's identity (WWN/serial) and the array's UUID, with its good copies, the
 * files at risk and the command that repairs it. One JSON shape serves all three.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "escape.h"
#include "owners_json.h"
#include "rl_hist.h"
#include "units.h"

/* Untrusted JSON text of the store: parsed, kept only when it is an array. */
static json_object *json_array_of(const char *s)
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

static int add_row(const struct scan_state_rl_row *e, void *arg)
{
	json_object *a = arg, *j = json_object_new_object();
	const struct scan_state_rl *v = &e->rl;

	json_object_object_add(j, "device", json_object_new_string(v->member_path ?
								     v->member_path : ""));
	json_object_object_add(j, "member_id", json_object_new_string(v->member ? v->member :
									""));
	json_object_object_add(j, "array", str_or_null(v->array_path));
	json_object_object_add(j, "array_uuid", json_object_new_string(v->array_uuid ?
									 v->array_uuid : ""));
	json_object_object_add(j, "offset", json_object_new_uint64(v->offset));
	json_object_object_add(j, "length", json_object_new_uint64(v->length));
	json_object_object_add(j, "verdict", json_object_new_string(v->no_copy ? "damage" :
								     "redundancy-lost"));
	json_object_object_add(j, "errno", json_object_new_int(v->err));
	if (v->parity)
		json_object_object_add(j, "parity", json_object_new_boolean(1));
	if (v->has_fs)
		json_object_object_add(j, "fs_offset", json_object_new_uint64(v->fs_offset));
	json_object_object_add(j, "copies", json_array_of(v->copies_json));
	json_object_object_add(j, "owners", json_array_of(v->owners_json));
	json_object_object_add(j, "repair", str_or_null(v->repair));
	json_object_object_add(j, "state", json_object_new_string(e->cleared ? "cleared" :
								   "open"));
	json_object_object_add(j, "first_seen", json_object_new_int64(e->first_seen));
	json_object_object_add(j, "last_seen", json_object_new_int64(e->last_seen));
	json_object_object_add(j, "times_seen", json_object_new_int((int)e->times_seen));
	json_object_object_add(j, "first_pass", json_object_new_int64(e->first_pass_id));
	if (e->cleared)
		json_object_object_add(j, "cleared", json_object_new_int64(e->cleared_at));
	json_object_array_add(a, j);
	return 0;
}

int report_rl_hist_json(struct scan_state *st, int64_t target_id, int64_t since, int all,
		     json_object **out)
{
	json_object *a = json_object_new_array();
	int ret;

	if (!a)
		return -ENOMEM;
	ret = scan_state_list_rl(st, target_id, since, all, add_row, a);
	if (ret < 0) {
		json_object_put(a);
		return ret;
	}
	*out = a;
	return ret;
}

void report_rl_hist_print(FILE *f, json_object *rl)
{
	size_t n = rl ? json_object_array_length(rl) : 0;
	char a[PATH_MAX * 4], b[1400], c[400], d[64];

	if (!n)
		return;
	fprintf(f, "  redundancy lost (a copy failed, another reads; nothing lost yet):\n");
	for (size_t i = 0; i < n; i++) {
		json_object *j = json_object_array_get_idx(rl, i), *own = NULL;
		const char *uuid = report_json_str(j, "array_uuid");

		/* the store's text is untrusted like any file: escaped as everywhere else */
		fprintf(f, "  %-7s %s (%s) offset %" PRIu64 " length %" PRIu64 " of %s%s%s%s, "
			"last seen %s\n", report_json_str(j, "state"),
			report_escape(report_json_str(j, "device"), a, sizeof(a)),
			report_escape(report_json_str(j, "member_id"), c, sizeof(c)), report_json_u64(j, "offset"),
			report_json_u64(j, "length"), report_escape(report_json_str(j, "array"), b, sizeof(b)),
			uuid[0] ? " (uuid " : "", uuid[0] ? report_escape(uuid, d, sizeof(d)) : "",
			uuid[0] ? ")" : "", report_fmt_time((int64_t)report_json_u64(j, "last_seen"), d,
							   sizeof(d)));
		if (json_object_object_get_ex(j, "owners", &own))
			report_owners_print(f, own);
		if (report_json_str(j, "repair")[0] && strcmp(report_json_str(j, "state"), "open") == 0)
			fprintf(f, "          repair: %s\n",
				report_escape(report_json_str(j, "repair"), b, sizeof(b)));
	}
}
