/*
 * report/owners_json.h - the owners_json format of the history (owners_json.c): parse it
 * checked, count its files, say what to do, print it.
 */
#ifndef MEDIASCAN_OWNERS_JSON_H
#define MEDIASCAN_OWNERS_JSON_H

#include <stdint.h>
#include <stdio.h>

struct json_object;

/* Return the owners array stored as owners_json (a new empty array when it is not one). */
struct json_object *report_owners_parse(const char *owners_json);
/* Return what an admin should do about an error with these owners (static text). */
const char *report_owners_action(struct json_object *owners);
/* Print owners as report's human output does, one line each, names escaped. */
void report_owners_print(FILE *f, struct json_object *owners);
/* A stored document's member key: its string ("" when absent or not a string), its number
 * (0 when absent). */
const char *report_json_str(struct json_object *j, const char *key);
int64_t report_json_int(struct json_object *j, const char *key);
uint64_t report_json_u64(struct json_object *j, const char *key);
/* Return the number of distinct files (inodes) named in an owners_json array. */
unsigned report_owners_json_files(const char *owners_json, uint64_t *inodes, unsigned max);

#endif
