/*
 * pass/stack.c - the storage stack's safety rules for a pass: an md array under the target
 * that resyncs, recovers, reshapes or runs check/repair is not scanned (its members are busy
 * and a reshape moves data while it runs; patrol retries on its next run), and a degraded
 * array is scanned with a warning that its survivors hold the only copy.
 */
#include <stdio.h>
#include <string.h>

#include "pass_int.h"
#include "stack.h"

int pass_stack_check(const struct map_target *t, const struct pass_hooks *h)
{
	for (unsigned i = 0; i < t->nr_devices; i++) {
		struct map_stack_node *tree = NULL;
		const struct map_stack_node *b;

		if (!t->devices[i].info.name[0] ||
		    map_stack_tree(NULL, t->devices[i].info.name, &tree) < 0)
			continue;
		b = map_stack_busy(tree);
		if (b) {
			pass_say(h, PASS_SAY_ERROR, "not scanning %s: /dev/%s (%s) is running '%s'%s "
				 "(md/sync_action); scan it when the array is idle (patrol retries "
				 "on its next run)", t->devices[i].path, b->name, b->level,
				 b->reshape[0] && strcmp(b->reshape, "none") ? "reshape" :
				 b->sync_action, b->reshape[0] && strcmp(b->reshape, "none") ?
				 ", reshaping" : "");
			map_stack_tree_free(tree);
			return PASS_EXIT_OPERATIONAL;
		}
		b = map_stack_degraded(tree);
		if (b)
			pass_say(h, PASS_SAY_ERROR, "warning: /dev/%s (%s) is degraded (%llu member%s "
				 "missing): its survivors hold the only copy of the data on %s",
				 b->name, b->level, (unsigned long long)b->degraded,
				 b->degraded == 1 ? "" : "s", t->devices[i].path);
		map_stack_tree_free(tree);
	}
	return 0;
}
