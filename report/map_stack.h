/*
 * report/map_stack.h - the storage stack in map answers: a range's way up (stack), the other
 * copies and the layers that cannot be mapped, as JSON and as text.
 */
#ifndef MEDIASCAN_REPORT_MAP_STACK_H
#define MEDIASCAN_REPORT_MAP_STACK_H

#include <stdio.h>
#include <json-c/json.h>

#include "json_stream.h"
#include "pass.h"
#include "stack.h"

/* Return a new JSON array of u's hops ({device, kind, offset[, parity]}). */
json_object *report_stack_hops_json(const struct map_stack_up *u);
/* Write u's hops (as report_stack_hops_json) as field key of what s writes (key NULL: the
 * array open's next element). */
void report_stack_hops_write(struct report_json_stream *s, const char *key,
			     const struct map_stack_up *u);
/* Return a new JSON array of u's other copies ({device, offset, length, role, disk, ...}). */
json_object *report_stack_copies_json(const struct map_stack_up *u);
/* Return a new JSON object naming u's unmappable layer ({device, kind, reason}), or NULL. */
json_object *report_stack_unmappable_json(const struct map_stack_up *u);
/* Print u's way up, copies and what stopped it, indented, to f. */
void report_stack_print(FILE *f, const struct map_stack_up *u);
/* Return a new JSON object of the stack tree n ({device, kind, size, md, below: [...]}). */
json_object *report_stack_tree_json(const struct map_stack_node *n);
/* Print the stack tree n indented (depth levels) to f. */
void report_stack_tree_print(FILE *f, const struct map_stack_node *n, unsigned depth);
/* Return a new JSON object of redundancy-lost range i of rep->stack (as redundancy_lost[]). */
json_object *report_stack_rl_json(const struct pass_report *rep, size_t i);
/* Add "redundancy_lost" (and the members read) of a member-level scan to a report. */
void report_stack_report_json(json_object *root, const struct pass_report *rep);
/* Print the members read and the redundancy-lost ranges of a member-level scan. */
void report_stack_report_print(FILE *f, const struct pass_report *rep);

#endif
