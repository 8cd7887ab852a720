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
 * Geometry (w->geo.wheel_bits, 1..24; the default is 12). Memory is a list
 * head (16 bytes) and a bit per slot on 64-bit:
 *
 *   wheel_bits   MaxInterval  at 1 ms/tick  memory
 *            8           256      0.256 s    4 KiB +  32 B
 *   12 (default)        4096      4.096 s   64 KiB + 512 B
 *           16         65536     65.5 s      1 MiB +   8 KiB
 *           20       1048576     17.5 min   16 MiB + 128 KiB
 *           24      16777216      4.7 h    256 MiB +   2 MiB
 *
 * "It is difficult to justify 2^32 words of memory to implement 32 bit
 * timers", hence the refusal above and the schemes that follow.
 */
#define pr_fmt(fmt) "callout: " fmt

#include "tw.h"
#include "tw_slots.h"

#define SIMPLE_MIN_BITS		1
#define SIMPLE_MAX_BITS		24

static inline u32 calc_slot(const struct tw_ring *sw, u64 expires)
{
	return expires & sw->mask;
}

/* True iff @expires is within MaxInterval of tick @now (< @expires). */
static inline bool within_max_interval(const struct tw_ring *sw,
				       u64 expires, u64 now)
{
	return expires - now - 1 <= sw->mask;
}

static int simple_init(struct tw_wheel *w)
{
	return tw_ring_init(w, SIMPLE_MIN_BITS, SIMPLE_MAX_BITS);
}

static int simple_insert(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_ring *sw = w->priv;

	if (!within_max_interval(sw, e->expires, w->now))
		return -ERANGE;
	tw_slots_enqueue(&sw->slots, e, calc_slot(sw, e->expires));
	return 0;
}

static void simple_remove(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_ring *sw = w->priv;

	tw_slots_detach(&sw->slots, e);
}

/* Visit slot @idx: its tick has come, so all of it is due. */
static void collect_slot(struct tw_wheel *w, struct tw_ring *sw,
			 u32 idx, struct list_head *expired)
{
	struct list_head *head = &sw->slots.head[idx];
	const struct list_head *pos;
	u64 len = 0;

	list_for_each(pos, head)
		len++;
	list_splice_tail_init(head, expired);
	__clear_bit(idx, sw->slots.busy);
	w->stats.examined += len;
	tw_note_chain(w, len);
}

/*
 * PERTICK for every tick w->now + 1 .. @now: each slot those ticks reach
 * holds the entries of one of them, all due. A round or more reaches every
 * slot, and every entry (all are due by w->now + MaxInterval).
 */
static void simple_advance(struct tw_wheel *w, u64 now,
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
			collect_slot(w, sw, idx, expired);
	}
}

/* Exact: the first busy slot ahead is the earliest tick with work. */
static u64 simple_next(struct tw_wheel *w)
{
	struct tw_ring *sw = w->priv;
	s64 dist = tw_slots_distance(&sw->slots, calc_slot(sw, w->now + 1));

	return dist < 0 ? TW_NEVER : w->now + 1 + dist;
}

static bool simple_placed(struct tw_wheel *w, const struct tw_entry *e,
			  u32 idx)
{
	struct tw_ring *sw = w->priv;

	return within_max_interval(sw, e->expires, w->now) &&
	       calc_slot(sw, e->expires) == idx;
}

static int simple_check(struct tw_wheel *w)
{
	struct tw_ring *sw = w->priv;

	return tw_slots_check(&sw->slots, w, simple_placed);
}

const struct tw_ops tw_simple_ops = {
	.name		= "simple",
	.id		= TW_SIMPLE,
	.init		= simple_init,
	.destroy	= tw_ring_destroy,
	.insert		= simple_insert,
	.remove		= simple_remove,
	.advance	= simple_advance,
	.next		= simple_next,
	.check		= simple_check,
	.nr_slots	= tw_slots_nr_slots,
	.slot_len	= tw_slots_slot_len,
};
