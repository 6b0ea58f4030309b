/*
 * report/map_report.h - owners of damaged ranges as JSON and as text (map_report.c), shared by
 * `mediascan map` and the scan report: damaged files, damaged metadata, partitions, notes.
 */
#ifndef MEDIASCAN_MAP_REPORT_H
#define MEDIASCAN_MAP_REPORT_H

#include <stdio.h>

#include "damage.h"
#include "target.h"

struct json_object;

/*
 * Add the array key (paths[0..n)) to json-c object j, valid UTF-8 always: a name that is not
 * is written with \xNN, and then key_hex[] holds the exact bytes of every name. key outlives j
 * (a string literal: report_json_add).
 */
void report_json_add_paths(struct json_object *j, const char *key, const char *const *paths,
			unsigned n);
/* Return the kind of owner o for people and JSON: "file", "metadata", "log", ... */
const char *report_owner_kind_name(const struct map_owner *o);
/* Return a new json-c object for one owner, as in media_errors[].owners[]. */
struct json_object *report_owner_json(const struct map_damage *d, const struct map_target *t,
				   const struct map_owner *o);
/* Write one owner as report_owner_json does, as field key of what s writes (NULL: the array
 * open's next element), with no json-c object. */
struct report_json_stream;
void report_owner_write(struct report_json_stream *s, const char *key,
			const struct map_damage *d, const struct map_target *t,
			const struct map_owner *o);
/* Return a new json-c object for d's damaged file i, as in damaged_files[]. */
struct json_object *report_damaged_file_json(const struct map_damage *d,
					     const struct map_target *t, size_t i);
/* Return a new json-c object for d's damaged metadata i, as in damaged_metadata[]. */
struct json_object *report_damaged_meta_json(const struct map_damage *d,
					     const struct map_target *t, size_t i);
/* Begin the next element of the array s has open with d's damaged metadata i, as
 * report_damaged_meta_json writes it (report_json_w_end writes it out). */
void report_damaged_meta_write(struct report_json_stream *s, const struct map_damage *d,
			       const struct map_target *t, size_t i);
/* Return 0 after adding damaged_files[] and damaged_metadata[] of d to root. */
int report_damage_json(struct json_object *root, const struct map_damage *d,
		    const struct map_target *t);
/* Return 0 after adding partition_table and partitions[] (partitioned disk) to root. */
int report_target_json(struct json_object *root, const struct map_target *t);
/* Return 0 after adding scrub, fs_health, paths_from and notes[] of d to root. */
int report_mapping_json(struct json_object *root, const struct map_damage *d);
/* Write v in decimal to f, as "%" PRIu64 does (no fprintf: a map prints thousands). */
void report_put_u64(FILE *f, uint64_t v);
/* Print one owner line (and its health and scrub verdicts) for people. */
/* A damaged metadata entry's line for people up to its partition and inode, unterminated:
 * "  %-12s", " AG %-3" PRId64 " when it has an AG, "  %s offset %" PRIu64 " length %" PRIu64
 * with path, written without fprintf (a map's summary lists hundreds). */
void report_print_meta_start(FILE *f, const struct map_damage_meta *m, const char *path);
void report_print_owner(FILE *f, const struct map_damage *d, const struct map_target *t,
		     const struct map_owner *o);
/* Print the damaged files and damaged metadata sections. */
void report_print_damage(FILE *f, const struct map_damage *d, const struct map_target *t);
/*
 * Print the files and metadata of d: as damage ("restore these", the filesystem's repair
 * tool) when lookup is 0, as the owners of a range looked up (`mediascan map`) otherwise.
 */
void report_print_owners(FILE *f, const struct map_damage *d, const struct map_target *t,
		      int lookup);
/* Print mapping's notes ("note: ..."), each once. */
void report_print_notes(FILE *f, const struct map_damage *d);

#endif
