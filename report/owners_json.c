/*
 * report/owners_json.c - the owners of a range as the history stores them (owners_json: a JSON
 * array, one object per owner, as media_errors[].owners[]): read back checked, counted, told
 * as an action and printed. One home for the format: report, metrics and HTML read it here.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "escape.h"
#include "owners_json.h"

/* Keep owner o when it is an object with a string "type"; drop fields of the wrong type
 * (paths: strings only). Return 1 to keep it. */
static int owner_clean(json_object *o)
{
	static const char *const strings[] = { "metadata", "note", "fork" };
	json_object *v, *paths;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "type", &v) || !json_object_is_type(v, json_type_string))
		return 0;
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (json_object_object_get_ex(o, strings[i], &v) &&
		    !json_object_is_type(v, json_type_string))
			json_object_object_del(o, strings[i]);
	if (json_object_object_get_ex(o, "paths", &paths)) {
		if (!json_object_is_type(paths, json_type_array)) {
			json_object_object_del(o, "paths");
		} else {
			json_object *keep = json_object_new_array();

			for (size_t k = 0; k < json_object_array_length(paths); k++) {
				v = json_object_array_get_idx(paths, k);
				if (json_object_is_type(v, json_type_string))
					json_object_array_add(keep, json_object_get(v));
			}
			json_object_object_add(o, "paths", keep);
		}
	}
	return 1;
}

json_object *report_owners_parse(const char *owners_json)
{
	json_object *a = owners_json ? json_tokener_parse(owners_json) : NULL, *out;

	/* The state DB is input like any other (an old version, a tampered file): keep the
	 * owners that have the shape we wrote, so nothing below meets a null or a wrong type. */
	if (!a || !json_object_is_type(a, json_type_array)) {
		json_object_put(a);
		return json_object_new_array();
	}
	out = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);

		if (owner_clean(o))
			json_object_array_add(out, json_object_get(o));
	}
	json_object_put(a);
	return out;
}

const char *report_owners_action(json_object *owners)
{
	int files = 0, meta = 0;

	for (size_t i = 0; i < json_object_array_length(owners); i++) {
		json_object *o = json_object_array_get_idx(owners, i), *v, *u;

		if (!json_object_object_get_ex(o, "type", &v))
			continue;
		if (strcmp(json_object_get_string(v), "file") == 0) {
			if (!json_object_object_get_ex(o, "unwritten", &u) ||
			    !json_object_get_boolean(u))
				files = 1;
		} else if (strcmp(json_object_get_string(v), "metadata") == 0 ||
			   strcmp(json_object_get_string(v), "log") == 0) {
			meta = 1;
		}
	}
	if (files && meta)
		return "restore the files from backup; check the filesystem (xfs_repair -n)";
	if (files)
		return "restore from backup";
	if (meta)
		return "filesystem metadata: check the filesystem (xfs_repair -n), restore from "
		       "backup what it names";
	return "no file data lost: watch the disk (SMART), replace it if errors grow";
}

/*
 * Print " NAME" for path k of o's key array, escaped once as scan and HTML print it: from the
 * exact bytes in hexkey when they are there (key holds them repaired for JSON, "\xff" already
 * written out, which escaping again would double), else from key.
 */
static void print_path(FILE *f, json_object *o, const char *key, const char *hexkey, size_t k,
		       const char *sep)
{
	static char esc[PATH_MAX * 4], raw[PATH_MAX * 2];
	json_object *a = NULL, *h = NULL;
	const char *name = NULL, *hex;
	size_t n;

	if (json_object_object_get_ex(o, hexkey, &h) && json_object_is_type(h, json_type_array) &&
	    k < json_object_array_length(h) &&
	    (hex = json_object_get_string(json_object_array_get_idx(h, k))) &&
	    (n = strlen(hex)) % 2 == 0 && n / 2 < sizeof(raw) &&
	    strspn(hex, "0123456789abcdefABCDEF") == n) {
		for (size_t i = 0; i < n / 2; i++) {
			unsigned v;

			sscanf(hex + 2 * i, "%2x", &v);
			raw[i] = (char)(v ? v : '?');	/* a NUL cannot be in a name */
		}
		raw[n / 2] = '\0';
		name = raw;
	} else if (json_object_object_get_ex(o, key, &a) &&
		   json_object_is_type(a, json_type_array) && k < json_object_array_length(a)) {
		name = json_object_get_string(json_object_array_get_idx(a, k));
	}
	fprintf(f, "%s%s", sep, report_escape(name ? name : "", esc, sizeof(esc)));
}

void report_owners_print(FILE *f, json_object *owners)
{
	char esc[PATH_MAX * 4];

	for (size_t i = 0; i < json_object_array_length(owners); i++) {
		json_object *o = json_object_array_get_idx(owners, i), *v, *paths;

		if (!json_object_object_get_ex(o, "type", &v))
			continue;
		if (strcmp(json_object_get_string(v), "file") == 0) {
			json_object *ino = NULL, *fo = NULL, *len = NULL;

			json_object_object_get_ex(o, "inode", &ino);
			json_object_object_get_ex(o, "file_offset", &fo);
			json_object_object_get_ex(o, "length", &len);
			fprintf(f, "          file inode %llu at offset %llu length %llu:",
			       (unsigned long long)json_object_get_uint64(ino),
			       (unsigned long long)json_object_get_uint64(fo),
			       (unsigned long long)json_object_get_uint64(len));
			if (json_object_object_get_ex(o, "paths", &paths) &&
			    json_object_array_length(paths)) {
				json_object *vol = NULL;

				for (size_t k = 0; k < json_object_array_length(paths); k++)
					print_path(f, o, "paths", "paths_hex", k, " ");
				if (json_object_object_get_ex(o, "volume", &vol) &&
				    json_object_is_type(vol, json_type_string))
					fprintf(f, " (on the filesystem of %s, as the scan named it)",
						report_escape(json_object_get_string(vol), esc,
							      sizeof(esc)));
			} else {
				json_object *why = NULL, *was = NULL;

				json_object_object_get_ex(o, "path_unknown", &why);
				fprintf(f, " path unknown now (%s)", report_escape(
					why && json_object_is_type(why, json_type_string) ?
					json_object_get_string(why) : "no path found", esc,
					sizeof(esc)));
				if (json_object_object_get_ex(o, "paths_at_scan", &was) &&
				    json_object_is_type(was, json_type_array))
					for (size_t k = 0; k < json_object_array_length(was); k++)
						print_path(f, o, "paths_at_scan",
							   "paths_at_scan_hex", k,
							   k ? ", " : "; at the scan: ");
			}
			fprintf(f, "\n");
		} else {
			json_object *m = NULL;

			json_object_object_get_ex(o, "metadata", &m);
			char esc2[512];

			fprintf(
			    f, "          %s: %s\n",
			    report_escape(json_object_get_string(v), esc2, sizeof(esc2)),
			    report_escape(m ? json_object_get_string(m) : "", esc, sizeof(esc)));
		}
	}
}

unsigned report_owners_json_files(const char *owners_json, uint64_t *inodes, unsigned max)
{
	json_object *a = report_owners_parse(owners_json); /* checked: types as we wrote them */
	unsigned nr = 0;

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i), *v;
		uint64_t ino;
		unsigned k;

		if (!json_object_object_get_ex(o, "type", &v) ||
		    strcmp(json_object_get_string(v), "file") != 0 ||
		    !json_object_object_get_ex(o, "inode", &v))
			continue;
		ino = json_object_get_uint64(v);
		for (k = 0; k < nr; k++)
			if (inodes[k] == ino)
				break;
		if (k == nr && nr < max)
			inodes[nr++] = ino;
	}
	json_object_put(a);
	return nr;
}

const char *report_json_str(json_object *j, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(j, key, &v) && json_object_is_type(v, json_type_string) ?
	       json_object_get_string(v) : "";
}

int64_t report_json_int(json_object *j, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(j, key, &v) ? json_object_get_int64(v) : 0;
}

uint64_t report_json_u64(json_object *j, const char *key)
{
	return (uint64_t)report_json_int(j, key);
}
