// SPDX-License-Identifier: GPL-2.0
/*
 * tw_bsd.c - the classic BSD calltodo list: sorted, in differential time.
 *
 * Varghese & Lauck, "Hashed and Hierarchical Timing Wheels", section VII
 * (the UNIX implementation) describes the callout list that Costello's
 * timing wheel replaced: "Outstanding callouts are kept in a linked list,
 * sorted by their expiration times. The c_time member of each callout
 * structure is differential, not absolute - the first callout in the list
 * stores the number of ticks from now until expiration, and each subsequent
 * callout in the list stores the number of ticks between its own expiration
 * and the expiration of its predecessor." This is that list, with e->delta
 * as c_time. It is the linear baseline of the paper's Fig. 9, which plots
 * the cost of restarting one callout "for a random time farther in the
 * future than the others" against the number outstanding: a timeout()
 * that walks the whole list.
 *
 * Cost, with n outstanding entries:
 *
 *   START_TIMER   O(n)   timeout(): walk from the head, subtracting each
 *                        delta, until the remaining interval is smaller
 *   STOP_TIMER    O(1)   untimeout() given the entry: unlink it and add its
 *                        delta to its successor (BSD's untimeout(func, arg)
 *                        searched the list first; the entry is the handle
 *                        here, as in Costello's unsetcallout())
 *   PER_TICK      O(1)   softclock(): decrement the head's delta only, and
 *                        pop the entries whose delta reaches zero
 *   next()        O(1)   w->now + the head's delta
 *
 * The head's delta is relative to w->now, the last tick processed, and
 * every other delta to the entry before it. An empty list carries no time
 * at all, so it is valid at any w->now. A jump over d ticks consumes d from
 * the head onwards: each entry whose delta fits in what is left of d
 * expires, and the first that does not keeps the remainder, so the cost is
 * that of the entries due, whatever d. Only the deltas drive the list;
 * e->expires (kept by tw.c) is used by check() to prove that the running
 * sum of the deltas lands on every entry's expiry. Equal expiries follow
 * their predecessor with a delta of 0, in insertion order.
 */
#define pr_fmt(fmt) "callout: " fmt

#include "tw.h"

/**
 * struct tw_bsd - the state of the BSD scheme
 * @calltodo:	the pending entries in expiry order; the first one's delta
 *		counts from w->now, every other one's from its predecessor
 */
struct tw_bsd {
	struct list_head calltodo;
};

static struct list_head *tw_bsd_list(struct tw_wheel *w)
{
	return &((struct tw_bsd *)w->priv)->calltodo;
}

static int tw_bsd_init(struct tw_wheel *w)
{
	struct tw_bsd *b = kzalloc(sizeof(*b), GFP_KERNEL);

	if (!b)
		return -ENOMEM;
	INIT_LIST_HEAD(&b->calltodo);
	w->priv = b;
	return 0;
}

static void tw_bsd_destroy(struct tw_wheel *w)
{
	kfree(w->priv);
}

/* timeout(): the interval is consumed delta by delta from the head. */
static int tw_bsd_insert(struct tw_wheel *w, struct tw_entry *e)
{
	struct list_head *head = tw_bsd_list(w);
	struct tw_entry *p = NULL;
	struct list_head *pos;
	u64 t = e->expires - w->now, steps = 0;

	for (pos = head->next; pos != head; pos = pos->next) {
		p = list_entry(pos, struct tw_entry, list);
		if (p->delta > t)
			break;
		t -= p->delta;
		steps++;
	}
	e->delta = t;
	if (pos != head)
		p->delta -= t;
	list_add_tail(&e->list, pos);
	w->stats.insert_steps += steps;
	tw_note_chain(w, steps);
	return 0;
}

/* untimeout(): the successor inherits the removed entry's delta. */
static void tw_bsd_remove(struct tw_wheel *w, struct tw_entry *e)
{
	if (!list_is_last(&e->list, tw_bsd_list(w)))
		list_next_entry(e, list)->delta += e->delta;
	list_del_init(&e->list);
}

/*
 * softclock(): @now - w->now ticks are taken off the head, then its heirs.
 * A pass that runs out of budget gives the new head the deltas it has
 * consumed, so that it counts from w->now again, which has not moved; the
 * next call starts over from there with the same @now.
 */
static bool tw_bsd_advance(struct tw_wheel *w, u64 now,
			   struct list_head *expired, u64 *budget)
{
	struct list_head *head = tw_bsd_list(w);
	u64 elapsed = now - w->now, spent = 0, seen = 0;
	struct tw_entry *e;
	bool done = true;

	while (!list_empty(head)) {
		e = list_first_entry(head, struct tw_entry, list);
		if (!*budget) {
			e->delta += spent;
			done = false;
			break;
		}
		(*budget)--;
		seen++;
		if (e->delta > elapsed) {
			e->delta -= elapsed;
			break;
		}
		elapsed -= e->delta;
		spent += e->delta;
		list_move_tail(&e->list, expired);
	}
	w->stats.examined += seen;
	return done;
}

static u64 tw_bsd_next(struct tw_wheel *w)
{
	struct list_head *head = tw_bsd_list(w);

	if (list_empty(head))
		return TW_NEVER;
	return w->now + list_first_entry(head, struct tw_entry, list)->delta;
}

static int tw_bsd_check(struct tw_wheel *w)
{
	struct list_head *head = tw_bsd_list(w);
	struct tw_entry *e;
	u64 n = 0, sum = w->now;

	list_for_each_entry(e, head, list) {
		/*
		 * The deltas must add up to each expiry, and the head is due
		 * after w->now: its delta is at least 1.
		 */
		if (e->list.prev->next != &e->list || !tw_pending(e) ||
		    (!n && !e->delta) || sum + e->delta < sum ||
		    sum + e->delta != e->expires) {
			pr_err("bsd: entry %llu: flags %#x, delta %llu after %llu, expires %llu, now %llu\n",
			       (unsigned long long)n, e->flags,
			       (unsigned long long)e->delta,
			       (unsigned long long)sum,
			       (unsigned long long)e->expires,
			       (unsigned long long)w->now);
			return -EUCLEAN;
		}
		sum += e->delta;
		n++;
	}
	if (n != tw_nr_linked(w)) {
		pr_err("bsd: %llu entries, %llu linked\n",
		       (unsigned long long)n,
		       (unsigned long long)tw_nr_linked(w));
		return -EUCLEAN;
	}
	return 0;
}

const struct tw_ops tw_bsd_ops = {
	.name		= "bsd",
	.id		= TW_BSD,
	.linear		= TW_LINEAR_INSERT,
	.init		= tw_bsd_init,
	.destroy	= tw_bsd_destroy,
	.insert		= tw_bsd_insert,
	.remove		= tw_bsd_remove,
	.advance	= tw_bsd_advance,
	.next		= tw_bsd_next,
	.check		= tw_bsd_check,
};
