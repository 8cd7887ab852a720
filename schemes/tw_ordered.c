// SPDX-License-Identifier: GPL-2.0
/*
 * tw_ordered.c - Scheme 2: one list ordered by absolute expiry.
 *
 * Varghese & Lauck, "Hashed and Hierarchical Timing Wheels", section III-B:
 * "Timers are stored in an ordered list ... we will store the absolute time
 * at which the timer expires". The earliest timer is at the head, so
 * PER_TICK_BOOKKEEPING compares the head with the time of day and stops at
 * the first entry not yet due; START_TIMER searches for the place to insert.
 *
 * Cost, with n outstanding entries:
 *
 *   START_TIMER   O(n)   the search for the insertion point
 *   STOP_TIMER    O(1)   list_del(): doubly linked, the entry is the handle
 *   PER_TICK      O(1)   one compare, plus one per entry that expires
 *   next()        O(1)   the head's expiry
 *
 * The search starts at the TAIL and walks towards the head. Section III-B
 * gives the average cost of a search from the head as 2 + n/2 for uniform
 * and 2 + 2n/3 for negative exponential intervals, and notes that a search
 * from the rear brings the latter down to 2 + n/3, and to O(1) when every
 * interval is the same - the common case of a protocol restarting one
 * retransmission timeout. So the rear it is.
 * Entries with equal expiry stay in insertion order (the walk stops at the
 * first entry not later than the new one), so they expire first in, first
 * out. A jump over many ticks pops every due entry from the head, in expiry
 * order.
 */
#define pr_fmt(fmt) "callout: " fmt

#include "tw.h"

/**
 * struct tw_ordered - the state of Scheme 2
 * @head:	every pending entry, sorted by ->expires, ties in insertion
 *		order
 */
struct tw_ordered {
	struct list_head head;
};

static struct tw_ordered *tw_ordered_of(struct tw_wheel *w)
{
	return w->priv;
}

static int tw_ordered_init(struct tw_wheel *w)
{
	struct tw_ordered *o = kzalloc(sizeof(*o), GFP_KERNEL);

	if (!o)
		return -ENOMEM;
	INIT_LIST_HEAD(&o->head);
	w->priv = o;
	return 0;
}

static void tw_ordered_destroy(struct tw_wheel *w)
{
	kfree(w->priv);
}

static int tw_ordered_insert(struct tw_wheel *w, struct tw_entry *e)
{
	struct list_head *head = &tw_ordered_of(w)->head;
	struct list_head *pos;
	u64 steps = 0;

	/* From the rear: stop at the last entry due no later than @e. */
	for (pos = head->prev; pos != head; pos = pos->prev) {
		if (list_entry(pos, struct tw_entry, list)->expires <=
		    e->expires)
			break;
		steps++;
	}
	list_add(&e->list, pos);
	w->stats.insert_steps += steps;
	tw_note_chain(w, steps);
	return 0;
}

static void tw_ordered_remove(struct tw_wheel *w, struct tw_entry *e)
{
	list_del_init(&e->list);
}

/* The due entries lead: a pass that stops leaves the rest of them there. */
static bool tw_ordered_advance(struct tw_wheel *w, u64 now,
			       struct list_head *expired, u64 *budget)
{
	struct list_head *head = &tw_ordered_of(w)->head;
	struct tw_entry *e;
	bool done = true;
	u64 seen = 0;

	while (!list_empty(head)) {
		if (!*budget) {
			done = false;
			break;
		}
		(*budget)--;
		e = list_first_entry(head, struct tw_entry, list);
		seen++;
		if (e->expires > now)
			break;
		list_move_tail(&e->list, expired);
	}
	w->stats.examined += seen;
	return done;
}

static u64 tw_ordered_next(struct tw_wheel *w)
{
	struct list_head *head = &tw_ordered_of(w)->head;

	if (list_empty(head))
		return TW_NEVER;
	return list_first_entry(head, struct tw_entry, list)->expires;
}

static int tw_ordered_check(struct tw_wheel *w)
{
	struct list_head *head = &tw_ordered_of(w)->head;
	struct tw_entry *e;
	u64 n = 0, last = w->now + 1;

	list_for_each_entry(e, head, list) {
		if (e->list.prev->next != &e->list || !tw_pending(e) ||
		    e->expires < last) {
			pr_err("ordered: entry %llu: flags %#x, expires %llu after %llu at now %llu\n",
			       (unsigned long long)n, e->flags,
			       (unsigned long long)e->expires,
			       (unsigned long long)last,
			       (unsigned long long)w->now);
			return -EUCLEAN;
		}
		last = e->expires;
		n++;
	}
	if (n != tw_nr_linked(w)) {
		pr_err("ordered: %llu entries, %llu linked\n",
		       (unsigned long long)n,
		       (unsigned long long)tw_nr_linked(w));
		return -EUCLEAN;
	}
	return 0;
}

const struct tw_ops tw_ordered_ops = {
	.name		= "ordered",
	.id		= TW_ORDERED,
	.linear		= TW_LINEAR_INSERT,
	.init		= tw_ordered_init,
	.destroy	= tw_ordered_destroy,
	.insert		= tw_ordered_insert,
	.remove		= tw_ordered_remove,
	.advance	= tw_ordered_advance,
	.next		= tw_ordered_next,
	.check		= tw_ordered_check,
};
