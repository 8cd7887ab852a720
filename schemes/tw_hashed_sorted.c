// SPDX-License-Identifier: GPL-2.0
/*
 * tw_hashed_sorted.c - Scheme 5: a hashed timing wheel whose slot lists are
 * kept sorted by expiry.
 *
 * G. Varghese and A. Lauck, "Hashed and Hierarchical Timing Wheels: Data
 * Structures for the Efficient Implementation of a Timer Facility" (SOSP
 * 1987; IEEE/ACM ToN 1997), section VI.A.1 (the extension of Scheme 4 that
 * the paper credits to B. Spinney).
 *
 * The array is Scheme 6's: HASHED_SIZE = 1 << wheel_bits slots, the timer
 * due at absolute tick t in slot t & HASHED_MASK. But each slot is an
 * ordered list, as Scheme 2's single list is, here by absolute expiry (the
 * paper sorts the high-order bits, which within one slot is the same
 * order). STARTTIMER walks its slot to the place of the new timer: from the
 * tail, since a new timer is most often the latest of its slot, and past
 * equal expiries, so that they stay first in, first out. PERTICKBOOKKEEPING
 * then only looks at the head of the slot it visits: it collects while the
 * head is due and stops at the first that is not, which belongs to a later
 * round like everything behind it. With one slot this is Scheme 2; in
 * sorting terms, a bucket sort on the low-order bits followed by an
 * insertion sort of each bucket.
 *
 * As in tw_hashed.c, the expiry is absolute, so the wheel has no cursor
 * and its state is a function of w->now and its entries; a jump visits the
 * busy slots passed, each once (all of them for a round or more).
 *
 * Cost, for n pending timers and M = HASHED_SIZE slots:
 *
 *   STARTTIMER   O(1) average when n < M and the hash spreads the timers
 *                (a slot then holds about n/M), O(n) worst case (all in one
 *                slot): w->stats.insert_steps counts the walk
 *   STOPTIMER    O(1): a list_del(), a __clear_bit() if the slot empties
 *   PERTICK      O(1) plus the entries that expire: one comparison that
 *                fails per visited busy slot, whatever its length
 *   a jump of d  min(d, M) / BITS_PER_LONG bitmap words, plus one failed
 *   ticks        comparison per busy slot passed, plus the expiring entries
 *   next         a bitmap scan to the next busy slot, as in Scheme 6
 *
 * Geometry: the ring's (w->geo.wheel_bits), as tw_hashed.c's; the table
 * is in tw_slots.h.
 *
 * "Scheme 5 depends too much on the hash distribution (for a fast
 * STARTTIMER) to be generally useful": it is here to be measured.
 */
#define pr_fmt(fmt) "callout: " fmt

#include "tw.h"
#include "tw_slots.h"

static int sorted_init(struct tw_wheel *w)
{
	return tw_ring_init(w, true);
}

/*
 * Link @e into its slot after the last entry due no later than it, walking
 * from the tail: equal expiries stay first in, first out.
 */
static int sorted_insert(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_ring *sw = w->priv;
	u32 idx = tw_ring_calc_slot(sw, e->expires);
	struct list_head *head = &sw->slots.head[idx];
	struct tw_entry *pos;
	u64 steps = 0;

	list_for_each_entry_reverse(pos, head, list) {
		if (pos->expires <= e->expires)
			break;
		steps++;
	}
	/* @pos is the entry to follow, or the head itself. */
	tw_slots_enqueue_after(&sw->slots, e, idx, &pos->list);
	w->stats.insert_steps += steps;
	tw_note_chain(w, steps);
	return 0;
}

/* In its slot, and no earlier than the entry before it. */
static bool sorted_placed(struct tw_wheel *w, const struct tw_entry *e,
			  u32 idx)
{
	struct tw_ring *sw = w->priv;
	const struct tw_entry *prev;

	if (tw_ring_calc_slot(sw, e->expires) != idx)
		return false;
	if (e->list.prev == &sw->slots.head[idx])
		return true;
	prev = list_prev_entry(e, list);
	return prev->expires <= e->expires;
}

static int sorted_check(struct tw_wheel *w)
{
	struct tw_ring *sw = w->priv;

	return tw_slots_check(&sw->slots, w, sorted_placed);
}

const struct tw_ops tw_hashed_sorted_ops = {
	.name		= "hashed_sorted",
	.id		= TW_HASHED_SORTED,
	.geometry	= TW_RING_GEOMETRY,
	.init		= sorted_init,
	.destroy	= tw_ring_destroy,
	.insert		= sorted_insert,
	.remove		= tw_ring_remove,
	.advance	= tw_ring_advance,
	.next		= tw_ring_next,
	.check		= sorted_check,
	.nr_slots	= tw_slots_nr_slots,
	.slot_len	= tw_slots_slot_len,
};
