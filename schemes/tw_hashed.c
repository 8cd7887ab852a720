// SPDX-License-Identifier: GPL-2.0
/*
 * tw_hashed.c - Scheme 6: a hashed timing wheel with unsorted slot lists.
 * The default scheme of callout.
 *
 * G. Varghese and A. Lauck, "Hashed and Hierarchical Timing Wheels: Data
 * Structures for the Efficient Implementation of a Timer Facility" (SOSP
 * 1987; IEEE/ACM ToN 1997), section VI.A.2, the scheme A. Costello and
 * G. Varghese put under the BSD callout facility ("Redesigning the BSD
 * callout and timeout facilities", WUCS-95-23).
 *
 * The wheel is an array of HASHED_SIZE = 1 << wheel_bits slots, each an
 * unordered doubly linked list. A timer is hashed by the low-order bits of
 * its expiry: the timer due at absolute tick t lives in slot
 * t & HASHED_MASK, so that the slot under the "current time pointer" at tick
 * t is the one that holds it. STARTTIMER links it at the tail of that list;
 * STOPTIMER unlinks it; PERTICKBOOKKEEPING visits the slot of each tick and
 * collects what is due there.
 *
 * The rounds count. The paper stores, with each timer, the high-order bits
 * of its interval: the number of times the pointer must still go round the
 * wheel, decremented at every visit of the slot, the timer expiring when it
 * reaches zero. This file keeps that count as an absolute time instead (the
 * "Compare instead of Decrement" option of the paper's section III.A): the
 * rounds left are (expires - now) >> wheel_bits, nothing is decremented per
 * visit, and an entry in the visited slot is due iff expires <= now. An
 * entry's slot depends on its expiry alone, so the wheel has no cursor that
 * could go stale: w->now is the current time pointer, and an empty wheel is
 * valid at any w->now.
 *
 * Advancing from w->now to now visits the slots of the ticks
 * w->now + 1 .. now, at most every slot once (a jump of HASHED_SIZE ticks
 * or more visits them all, once), and only the busy ones: the occupancy
 * bitmap (tw_slots.h, the paper's Appendix A) skips the empty slots a word
 * at a time. In a visited slot, every entry is examined and the due ones are
 * moved to the expired list; the others are in a later round and stay.
 *
 * The earliest-due hint. N timers due at one far tick share one slot, and
 * without more every round of the wheel would walk all N to find none due.
 * So each slot keeps a tick no later than its earliest expiry
 * (tw_ring.earliest): an insert into an empty slot sets it, an insert
 * lowers it, a whole visit makes it exact, a remove leaves it (low, which
 * is safe: it only costs a visit that finds nothing). A visit whose pass
 * ends before the hint skips the slot in O(1), so a slot of later rounds
 * costs one comparison per round, however long it is.
 *
 * Cost, for n pending timers, M = HASHED_SIZE slots, T the mean interval:
 *
 *   STARTTIMER   O(1): a mask, a list_add_tail(), a __set_bit()
 *   STOPTIMER    O(1): a list_del(), a __clear_bit() if the slot empties
 *   PERTICK      O(1) + the visited slot's length when something in it
 *                is due (or its hint is stale), else O(1): a timer is
 *                examined about T/M times in its life only where slots
 *                mix rounds, the paper's n * c(6) / M per tick; the hash
 *                spreads that work, the hint skips the rounds of a slot
 *                whose earliest timer is not yet due
 *   a jump of d  min(d, M) / BITS_PER_LONG bitmap words, plus the entries
 *   ticks        of the busy slots in the range
 *   next         a bitmap scan to the next busy slot: the answer may be a
 *                slot whose entries are all in later rounds (an early
 *                wake-up that collects nothing), never a late one
 *
 * Geometry: the ring's (w->geo.wheel_bits), whose table in tw_slots.h
 * gives the slots, the ticks of one round and the memory of each size.
 *
 * Any expiry is accepted: intervals longer than a round simply wait in
 * their slot for the round that is theirs.
 */
#define pr_fmt(fmt) "callout: " fmt

#include "tw.h"
#include "tw_slots.h"

static int hashed_init(struct tw_wheel *w)
{
	return tw_ring_init(w, false);
}

/**
 * tw_hashed_insert() - Scheme 6's insert op, called directly by tw_insert()
 * @w:	the wheel
 * @e:	the entry, with its due tick in @e->expires
 *
 * Return: 0; the ring takes any tick.
 */
int tw_hashed_insert(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_ring *hw = w->priv;
	u32 idx = tw_ring_calc_slot(hw, e->expires);

	/* The hint: exact in an empty slot, lowered in a busy one. */
	if (!test_bit(idx, hw->slots.busy) || e->expires < hw->earliest[idx])
		hw->earliest[idx] = e->expires;
	tw_slots_enqueue(&hw->slots, e, idx);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(tw_hashed_insert, CALLOUT_TW_NS);

/**
 * tw_hashed_remove() - Scheme 6's remove op, called directly by tw_remove()
 * @w:	the wheel
 * @e:	an entry the scheme holds
 */
void tw_hashed_remove(struct tw_wheel *w, struct tw_entry *e)
{
	tw_ring_remove(w, e);
}
EXPORT_SYMBOL_NS_GPL(tw_hashed_remove, CALLOUT_TW_NS);

/* In its slot, and not before the slot's hint. */
static bool hashed_placed(struct tw_wheel *w, const struct tw_entry *e,
			  u32 idx)
{
	struct tw_ring *hw = w->priv;

	return tw_ring_calc_slot(hw, e->expires) == idx &&
	       hw->earliest[idx] <= e->expires;
}

static int hashed_check(struct tw_wheel *w)
{
	struct tw_ring *hw = w->priv;

	return tw_slots_check(&hw->slots, w, hashed_placed);
}

const struct tw_ops tw_hashed_ops = {
	.name		= "hashed",
	.id		= TW_HASHED,
	.geometry	= TW_RING_GEOMETRY,
	.init		= hashed_init,
	.destroy	= tw_ring_destroy,
	.insert		= tw_hashed_insert,
	.remove		= tw_hashed_remove,
	.advance	= tw_ring_advance,
	.next		= tw_ring_next,
	.check		= hashed_check,
	.nr_slots	= tw_slots_nr_slots,
	.slot_len	= tw_slots_slot_len,
};
