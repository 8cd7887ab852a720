// SPDX-License-Identifier: GPL-2.0
/*
 * tw_simple.c - Scheme 4: the basic timing wheel, one slot per tick.
 *
 * G. Varghese and A. Lauck, "Hashed and Hierarchical Timing Wheels: Data
 * Structures for the Efficient Implementation of a Timer Facility" (SOSP
 * 1987; IEEE/ACM ToN 1997), section V, "Scheme 4 - Basic Scheme".
 *
 * If every timer is set for at most MaxInterval ticks ahead, a circular
 * array of MaxInterval slots, one per tick, is a bucket sort that never
 * needs a comparison: the timer due at tick t goes into slot
 * t mod MaxInterval, the current time pointer steps one slot per tick, and
 * everything in the slot it reaches is due, at exactly that tick. Here
 * MaxInterval is SIMPLE_SIZE = 1 << wheel_bits, so the slot is the low
 * wheel_bits bits of the absolute expiry, and w->now is the pointer.
 *
 * MaxInterval. The ticks still to come, w->now + 1 .. w->now + SIMPLE_SIZE,
 * have SIMPLE_SIZE distinct slots, so an entry is accepted iff
 * expires - w->now <= SIMPLE_SIZE (an interval of 1..MaxInterval ticks
 * from the last processed tick) and each slot then holds a single tick's
 * entries. A longer interval would wrap onto an earlier tick's slot and
 * fire early; it is refused with -ERANGE instead (the paper leaves longer
 * timers to another scheme: that is Schemes 5-7). Note that the bound is
 * counted from w->now: a caller whose clock runs ahead of the wheel's loses
 * that much range.
 *
 * Cost, for n pending timers and M = SIMPLE_SIZE slots:
 *
 *   STARTTIMER   O(1): a subtraction and compare, a mask, a
 *                list_add_tail(), a __set_bit()
 *   STOPTIMER    O(1): a list_del(), a __clear_bit() if the slot empties
 *   PERTICK      O(1) plus the entries that expire, which is the best
 *                possible: nothing in a visited slot is examined in vain
 *   a jump of d  min(d, M) / BITS_PER_LONG bitmap words, plus the expiring
 *   ticks        entries (after a jump of M ticks or more, all of them)
 *   next         exact: the tick of the first busy slot ahead
 *
 * Geometry: the ring's (w->geo.wheel_bits), whose table in tw_slots.h
 * gives the memory and, as "one round", the MaxInterval of each size.
 *
 * "It is difficult to justify 2^32 words of memory to implement 32 bit
 * timers", hence the refusal above and the schemes that follow.
 */
#define pr_fmt(fmt) "callout: " fmt

#include "tw.h"
#include "tw_slots.h"

/* True iff @expires is within MaxInterval of tick @now (< @expires). */
static inline bool within_max_interval(const struct tw_ring *sw,
				       u64 expires, u64 now)
{
	return expires - now - 1 <= sw->mask;
}

static u64 simple_max_interval(const struct tw_geometry *geo)
{
	return 1ULL << geo->wheel_bits;
}

/* Sorted: a slot holds the entries of one tick, all due when it is visited. */
static int simple_init(struct tw_wheel *w)
{
	return tw_ring_init(w, true);
}

static int simple_insert(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_ring *sw = w->priv;

	if (!within_max_interval(sw, e->expires, w->now))
		return -ERANGE;
	tw_slots_enqueue(&sw->slots, e, tw_ring_calc_slot(sw, e->expires));
	return 0;
}

static bool simple_placed(struct tw_wheel *w, const struct tw_entry *e,
			  u32 idx)
{
	struct tw_ring *sw = w->priv;

	return within_max_interval(sw, e->expires, w->now) &&
	       tw_ring_calc_slot(sw, e->expires) == idx;
}

static int simple_check(struct tw_wheel *w)
{
	struct tw_ring *sw = w->priv;

	return tw_slots_check(&sw->slots, w, simple_placed);
}

const struct tw_ops tw_simple_ops = {
	.name		= "simple",
	.id		= TW_SIMPLE,
	.geometry	= TW_RING_GEOMETRY,
	.max_interval	= simple_max_interval,
	.init		= simple_init,
	.destroy	= tw_ring_destroy,
	.insert		= simple_insert,
	.remove		= tw_ring_remove,
	.advance	= tw_ring_advance,
	.next		= tw_ring_next,
	.check		= simple_check,
	.nr_slots	= tw_slots_nr_slots,
	.slot_len	= tw_slots_slot_len,
};
