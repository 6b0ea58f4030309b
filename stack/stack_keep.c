/*
 * stack/stack_keep.c - a walk up the stack kept for the ranges after it. A map of a thousand
 * sectors of a thin pool's disk asks about neighbours: the sectors of one run of data blocks
 * go up through the same partition, rows and volumes, each layer's offset moving with the
 * sector. A range within what the last walk's layers promise (u->same) is answered from it,
 * every offset moved by the distance, without a walk: the answer map_stack_up gives. It is
 * kept a second at most, as the sysfs answers and dm tables a walk reads are (stack_memo.c,
 * stack_sysfs.c; so what it says of sysfs is at most two seconds old where a walk's is at most
 * one), and only while the thin pools' models are the ones it used (a model is never older
 * than its limit).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stack.h"
#include "stack_int.h"

#define KEEP_NS 1000000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	/* the tick the vDSO keeps, as stack_memo.c's */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void map_stack_keep_release(struct map_stack_keep *k)
{
	map_stack_up_release(&k->u);
	k->name[0] = '\0';
}

/* u: the kept walk moved d bytes on, for len bytes; 0 or -ENOMEM. */
static int moved(const struct map_stack_keep *k, uint64_t d, uint64_t len,
		 struct map_stack_up *u)
{
	*u = k->u;
	u->copy = NULL;				/* none: a walk with copies is not kept */
	u->also = NULL;
	if (k->u.nr_also) {
		u->also = malloc(sizeof(*u->also) * k->u.nr_also);
		if (!u->also) {
			u->nr_also = 0;
			return -ENOMEM;
		}
		for (unsigned i = 0; i < k->u.nr_also; i++) {
			u->also[i] = k->u.also[i];
			u->also[i].offset += d;
		}
	}
	for (unsigned i = 0; i < u->nr_hops; i++)
		u->hop[i].offset += d;
	u->length = len;
	u->same = k->u.same - d;
	return 0;
}

/* Keep walk u of name at off in k (its also[] copied); nothing kept when it cannot be. */
static void keep(struct map_stack_keep *k, const char *name, uint64_t off, uint64_t at,
		 const struct map_stack_up *u)
{
	map_stack_keep_release(k);
	if (!u->same || strlen(name) >= sizeof(k->name))
		return;
	k->u = *u;
	k->u.copy = NULL;
	k->u.also = NULL;
	if (u->nr_also) {
		k->u.also = malloc(sizeof(*u->also) * u->nr_also);
		if (!k->u.also) {
			memset(&k->u, 0, sizeof(k->u));
			return;
		}
		memcpy(k->u.also, u->also, sizeof(*u->also) * u->nr_also);
	}
	stack_copy(k->name, sizeof(k->name), name);
	k->off = off;
	k->at = at;
	k->gen = map_thin_models_gen();
}

int map_stack_up_kept(struct map_stack_keep *k, const char *sysfs, const char *name,
		      uint64_t off, uint64_t len, struct map_stack_up *u)
{
	uint64_t at;
	int ret;

	if (k->u.same && len && off >= k->off && off - k->off < k->u.same &&
	    len <= k->u.same - (off - k->off) && !strcmp(k->name, name) &&
	    mono_ns() - k->at < KEEP_NS && map_thin_models_fresh(k->gen)) {
		if (moved(k, off - k->off, len, u) == 0)
			return 0;
		map_stack_up_release(u);	/* out of memory: walked instead */
	}
	at = mono_ns();
	ret = map_stack_up(sysfs, name, off, len, u);
	if (ret == 0)
		keep(k, name, off, at, u);
	else
		map_stack_keep_release(k);
	return ret;
}
