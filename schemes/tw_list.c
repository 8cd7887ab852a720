// SPDX-License-Identifier: GPL-2.0
/*
 * tw_list.c - Scheme 1: the straightforward unordered list.
 *
 * Varghese & Lauck, "Hashed and Hierarchical Timing Wheels", section III-A:
 * START_TIMER "finds a memory location and sets that location to the
 * specified timer interval"; every tick PER_TICK_BOOKKEEPING visits every
 * outstanding timer. The paper decrements an interval; as it notes, storing
 * the absolute expiry and comparing is equivalent, and that is what is done
 * here (e->expires, set by tw.c), so no entry is written on a tick.
 *
 * Cost, with n outstanding entries:
 *
 *   START_TIMER   O(1)   list_add_tail()
 *   STOP_TIMER    O(1)   list_del() (the handle is the entry itself)
 *   PER_TICK      O(n)   every entry is compared, due or not
 *   next()        O(n)   the minimum is found by the same walk
 *
 * Space is the minimum possible: one list_head per entry and one list head.
 * The scheme suits a few timers, or timers that are mostly stopped within a
 * few ticks; it is here as the paper's baseline for a per-tick cost linear
 * in n. A jump over many ticks costs one walk, like a single tick. Entries
 * due in one advance reach the expired list in list (insertion) order, not
 * in expiry order.
 *
 * A pass that cannot finish within its budget (tw.h) first moves the whole
 * list onto a private one, @visiting, and then takes entries from its head:
 * the due ones to the expired list, the others back to the tail of @head.
 * Inserts meanwhile go to the tail of @visiting, so the list keeps its
 * insertion order; a remove unlinks from either.
 */
#define pr_fmt(fmt) "callout: " fmt

#include "tw.h"

/**
 * struct tw_list - the state of Scheme 1
 * @head:	every pending entry, in insertion order; during a pass, those
 *		the pass has looked at
 * @visiting:	during a pass that stopped, the entries still to look at,
 *		after those of @head in insertion order
 * @passing:	such a pass is in progress
 */
struct tw_list {
	struct list_head head;
	struct list_head visiting;
	bool passing;
};

static struct tw_list *tw_list_of(struct tw_wheel *w)
{
	return w->priv;
}

static int tw_list_init(struct tw_wheel *w)
{
	struct tw_list *l = kzalloc(sizeof(*l), GFP_KERNEL);

	if (!l)
		return -ENOMEM;
	INIT_LIST_HEAD(&l->head);
	INIT_LIST_HEAD(&l->visiting);
	w->priv = l;
	return 0;
}

static void tw_list_destroy(struct tw_wheel *w)
{
	kfree(w->priv);
}

static int tw_list_insert(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_list *l = tw_list_of(w);

	list_add_tail(&e->list, l->passing ? &l->visiting : &l->head);
	return 0;
}

static void tw_list_remove(struct tw_wheel *w, struct tw_entry *e)
{
	list_del_init(&e->list);
}

static bool tw_list_advance(struct tw_wheel *w, u64 now,
			    struct list_head *expired, u64 *budget)
{
	struct tw_list *l = tw_list_of(w);
	struct tw_entry *e, *tmp;
	u64 seen = 0;
	bool done = true;

	if (!l->passing && *budget >= tw_nr_linked(w)) {
		/* The budget covers the list: one walk in place. */
		list_for_each_entry_safe(e, tmp, &l->head, list) {
			seen++;
			if (e->expires <= now)
				list_move_tail(&e->list, expired);
		}
		*budget -= seen;
	} else {
		if (!l->passing) {
			list_splice_init(&l->head, &l->visiting);
			l->passing = true;
		}
		while (!list_empty(&l->visiting)) {
			if (!*budget) {
				done = false;
				break;
			}
			(*budget)--;
			seen++;
			e = list_first_entry(&l->visiting, struct tw_entry,
					     list);
			list_move_tail(&e->list, e->expires <= now ?
				       expired : &l->head);
		}
		l->passing = !done;
	}
	w->stats.examined += seen;
	tw_note_chain(w, seen);
	return done;
}

static u64 tw_list_next(struct tw_wheel *w)
{
	struct tw_entry *e;
	u64 first = TW_NEVER;

	/* No pass is in progress here (tw_next()): @visiting is empty. */
	list_for_each_entry(e, &tw_list_of(w)->head, list)
		if (e->expires < first)
			first = e->expires;
	return first;
}

static int tw_list_check_one(struct tw_wheel *w, struct list_head *head,
			     u64 *n)
{
	struct tw_entry *e;

	list_for_each_entry(e, head, list) {
		if (e->list.prev->next != &e->list || !tw_pending(e) ||
		    e->expires <= w->now) {
			pr_err("list: entry %llu: flags %#x, expires %llu at now %llu\n",
			       (unsigned long long)*n, e->flags,
			       (unsigned long long)e->expires,
			       (unsigned long long)w->now);
			return -EUCLEAN;
		}
		(*n)++;
	}
	return 0;
}

static int tw_list_check(struct tw_wheel *w)
{
	struct tw_list *l = tw_list_of(w);
	u64 n = 0;

	if ((!l->passing && !list_empty(&l->visiting)) ||
	    tw_list_check_one(w, &l->head, &n) ||
	    tw_list_check_one(w, &l->visiting, &n))
		return -EUCLEAN;
	if (n != tw_nr_linked(w)) {
		pr_err("list: %llu entries, %llu linked\n",
		       (unsigned long long)n,
		       (unsigned long long)tw_nr_linked(w));
		return -EUCLEAN;
	}
	return 0;
}

const struct tw_ops tw_list_ops = {
	.name		= "list",
	.id		= TW_LIST,
	.linear		= TW_LINEAR_TICK,
	.init		= tw_list_init,
	.destroy	= tw_list_destroy,
	.insert		= tw_list_insert,
	.remove		= tw_list_remove,
	.advance	= tw_list_advance,
	.next		= tw_list_next,
	.check		= tw_list_check,
};
