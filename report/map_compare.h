/*
 * report/map_compare.h - copies that differ, found by a member-level scan that compared what it
 * read, as JSON and as text.
 */
#ifndef MEDIASCAN_REPORT_MAP_COMPARE_H
#define MEDIASCAN_REPORT_MAP_COMPARE_H

#include <stdio.h>
#include <json-c/json.h>

#include "pass.h"

/* Return a new JSON object of copies-differ run i of rep->stack (as copies_differ[]). */
json_object *report_compare_cd_json(const struct pass_report *rep, size_t i);
/* Add "compare" (the choice and counts) and "copies_differ" of a member-level scan. */
void report_compare_json(json_object *root, const struct pass_report *rep);
/* Print the compare's choice and counts, and the copies that differ. */
void report_compare_print(FILE *f, const struct pass_report *rep);

#endif
