/*
 * pass/stack.c - the storage stack's safety rules for a pass: an md array under the target
 * that resyncs, recovers, reshapes or runs check/repair is not scanned (its members are busy
 * and a reshape moves data while it runs; patrol retries on its next run), and a degraded
 * array is scanned with a warning that its survivors hold the only copy. What the stack says of
 * itself (a note, a changed geometry, a layer that cannot be mapped) is told here, in any mode.
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

void pass_stack_tell(const struct pass_stack *ps, const struct pass_hooks *h)
{
	if (ps->note[0])
		pass_say(h, ps->unmappable ? PASS_SAY_ERROR : PASS_SAY_NOTE, "%s", ps->note);
}

void pass_stack_tell_geometry(const struct pass_stack *ps, const struct pass_hooks *h)
{
	if (ps->geom_msg[0])		/* the whole of it: fatal_msg holds its start */
		pass_say(h, PASS_SAY_ERROR, "%s", ps->geom_msg);
}

void pass_stack_unmappable(struct pass_stack *ps, struct pass_report *rep)
{
	if (ps->unmappable) {
		rep->exit_bits |= PASS_EXIT_OPERATIONAL;
		rep->stack = ps;
	}
}
