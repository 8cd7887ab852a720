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
 * Geometry (w->geo.wheel_bits, 1..24; the default is 12): as tw_hashed.c,
 * each slot one tick wide, one round HASHED_SIZE ticks:
 *
 *   wheel_bits     slots   one round  at 1 ms/tick  memory
 *            8       256         256      0.256 s    4 KiB +  32 B
 *   12 (default)    4096        4096      4.096 s   64 KiB + 512 B
 *           16     65536       65536     65.5 s      1 MiB +   8 KiB
 *           20   1048576     1048576     17.5 min   16 MiB + 128 KiB
 *           24  16777216    16777216      4.7 h    256 MiB +   2 MiB
 *
 * "Scheme 5 depends too much on the hash distribution (for a fast
 * STARTTIMER) to be generally useful": it is here to be measured.
 */
#define pr_fmt(fmt) "callout: " fmt

#include "tw.h"
#include "tw_slots.h"

#define SORTED_MIN_BITS		1
#define SORTED_MAX_BITS		24

static inline u32 calc_slot(const struct tw_ring *sw, u64 expires)
{
	return expires & sw->mask;
}

static int sorted_init(struct tw_wheel *w)
{
	return tw_ring_init(w, SORTED_MIN_BITS, SORTED_MAX_BITS);
}

/*
 * Link @e into its slot after the last entry due no later than it, walking
 * from the tail: equal expiries stay first in, first out.
 */
static int sorted_insert(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_ring *sw = w->priv;
	u32 idx = calc_slot(sw, e->expires);
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

static void sorted_remove(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_ring *sw = w->priv;

	tw_slots_detach(&sw->slots, e);
}

/*
 * Visit slot @idx at tick @now: collect from the head while it is due. The
 * first entry that is not due ends the visit: all behind it are later.
 */
static void collect_slot(struct tw_wheel *w, struct tw_ring *sw,
			 u32 idx, u64 now, struct list_head *expired)
{
	struct list_head *head = &sw->slots.head[idx];
	struct tw_entry *e;
	u64 len = 0;

	while (!list_empty(head)) {
		e = list_first_entry(head, struct tw_entry, list);
		len++;
		if (e->expires > now)
			break;
		list_move_tail(&e->list, expired);
	}
	w->stats.examined += len;
	tw_note_chain(w, len);
	tw_slots_settle(&sw->slots, idx);
}

/*
 * PERTICK for every tick w->now + 1 .. @now: visit the busy slots those
 * ticks hash to, each at most once (all of them for a round or more).
 */
static void sorted_advance(struct tw_wheel *w, u64 now,
			   struct list_head *expired)
{
	struct tw_ring *sw = w->priv;
	struct tw_slot_range r[2];
	int i, nr = tw_slots_passed(sw->mask, w->now, now, r);
	u32 idx, end;

	for (i = 0; i < nr; i++) {
		end = r[i].last + 1;
		for (idx = tw_slots_find(&sw->slots, r[i].first, end);
		     idx < end; idx = tw_slots_find(&sw->slots, idx + 1, end))
			collect_slot(w, sw, idx, now, expired);
	}
}

/*
 * The tick of the first busy slot after w->now: no later than the earliest
 * expiry (see hashed_next()), and exact when that slot's head is due in
 * this round.
 */
static u64 sorted_next(struct tw_wheel *w)
{
	struct tw_ring *sw = w->priv;
	s64 dist = tw_slots_distance(&sw->slots, calc_slot(sw, w->now + 1));

	return dist < 0 ? TW_NEVER : w->now + 1 + dist;
}

/* In its slot, and no earlier than the entry before it. */
static bool sorted_placed(struct tw_wheel *w, const struct tw_entry *e,
			  u32 idx)
{
	struct tw_ring *sw = w->priv;
	const struct tw_entry *prev;

	if (calc_slot(sw, e->expires) != idx)
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
	.init		= sorted_init,
	.destroy	= tw_ring_destroy,
	.insert		= sorted_insert,
	.remove		= sorted_remove,
	.advance	= sorted_advance,
	.next		= sorted_next,
	.check		= sorted_check,
	.nr_slots	= tw_slots_nr_slots,
	.slot_len	= tw_slots_slot_len,
};
