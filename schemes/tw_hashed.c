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
 * Cost, for n pending timers, M = HASHED_SIZE slots, T the mean interval:
 *
 *   STARTTIMER   O(1): a mask, a list_add_tail(), a __set_bit()
 *   STOPTIMER    O(1): a list_del(), a __clear_bit() if the slot empties
 *   PERTICK      O(1) + the visited slot's length: each timer is examined
 *                about T/M times in its life, so the mean is n/M entries
 *                per tick, the paper's n * c(6) / M; the hash spreads
 *                that work, it does not change it
 *   a jump of d  min(d, M) / BITS_PER_LONG bitmap words, plus the entries
 *   ticks        of the busy slots in the range
 *   next         a bitmap scan to the next busy slot: the answer may be a
 *                slot whose entries are all in later rounds (an early
 *                wake-up that collects nothing), never a late one
 *
 * Geometry (w->geo.wheel_bits, 1..24; the default is 12). A slot is one
 * tick wide at every size; one round is HASHED_SIZE ticks; memory is a list
 * head (16 bytes) and a bit per slot on 64-bit:
 *
 *   wheel_bits     slots   one round  at 1 ms/tick  memory
 *            8       256         256      0.256 s    4 KiB +  32 B
 *   12 (default)    4096        4096      4.096 s   64 KiB + 512 B
 *           16     65536       65536     65.5 s      1 MiB +   8 KiB
 *           20   1048576     1048576     17.5 min   16 MiB + 128 KiB
 *           24  16777216    16777216      4.7 h    256 MiB +   2 MiB
 *
 * Any expiry is accepted: intervals longer than a round simply wait in
 * their slot for the round that is theirs.
 */
#define pr_fmt(fmt) "callout: " fmt

#include "tw.h"
#include "tw_slots.h"

#define HASHED_MIN_BITS		1
#define HASHED_MAX_BITS		24

/* The slot of tick @expires: the low-order wheel_bits bits, the hash. */
static inline u32 calc_slot(const struct tw_ring *hw, u64 expires)
{
	return expires & hw->mask;
}

static int hashed_init(struct tw_wheel *w)
{
	return tw_ring_init(w, HASHED_MIN_BITS, HASHED_MAX_BITS);
}

static int hashed_insert(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_ring *hw = w->priv;

	tw_slots_enqueue(&hw->slots, e, calc_slot(hw, e->expires));
	return 0;
}

static void hashed_remove(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_ring *hw = w->priv;

	tw_slots_detach(&hw->slots, e);
}

/*
 * Visit slot @idx at tick @now: move its due entries onto @expired. The rest
 * are in a later round (expires > now) and stay; comparing with the absolute
 * expiry is the paper's "decrement the rounds count and test for zero".
 */
static void collect_slot(struct tw_wheel *w, struct tw_ring *hw,
			 u32 idx, u64 now, struct list_head *expired)
{
	struct tw_entry *e, *tmp;
	u64 len = 0;

	list_for_each_entry_safe(e, tmp, &hw->slots.head[idx], list) {
		len++;
		if (e->expires <= now)
			list_move_tail(&e->list, expired);
	}
	w->stats.examined += len;
	tw_note_chain(w, len);
	tw_slots_settle(&hw->slots, idx);
}

/*
 * PERTICK for every tick w->now + 1 .. @now: visit the busy slots those
 * ticks hash to, each at most once (all of them for a round or more).
 */
static void hashed_advance(struct tw_wheel *w, u64 now,
			   struct list_head *expired)
{
	struct tw_ring *hw = w->priv;
	struct tw_slot_range r[2];
	int i, nr = tw_slots_passed(hw->mask, w->now, now, r);
	u32 idx, end;

	for (i = 0; i < nr; i++) {
		end = r[i].last + 1;
		for (idx = tw_slots_find(&hw->slots, r[i].first, end);
		     idx < end; idx = tw_slots_find(&hw->slots, idx + 1, end))
			collect_slot(w, hw, idx, now, expired);
	}
}

/*
 * The tick of the first busy slot after w->now. Every entry's slot is
 * (expires - w->now - 1) mod HASHED_SIZE slots after the one of w->now + 1,
 * which is no more than expires - w->now - 1: the answer is never later
 * than the earliest expiry, so it cannot overflow either.
 */
static u64 hashed_next(struct tw_wheel *w)
{
	struct tw_ring *hw = w->priv;
	s64 dist = tw_slots_distance(&hw->slots, calc_slot(hw, w->now + 1));

	return dist < 0 ? TW_NEVER : w->now + 1 + dist;
}

static bool hashed_placed(struct tw_wheel *w, const struct tw_entry *e,
			  u32 idx)
{
	return calc_slot(w->priv, e->expires) == idx;
}

static int hashed_check(struct tw_wheel *w)
{
	struct tw_ring *hw = w->priv;

	return tw_slots_check(&hw->slots, w, hashed_placed);
}

const struct tw_ops tw_hashed_ops = {
	.name		= "hashed",
	.id		= TW_HASHED,
	.init		= hashed_init,
	.destroy	= tw_ring_destroy,
	.insert		= hashed_insert,
	.remove		= hashed_remove,
	.advance	= hashed_advance,
	.next		= hashed_next,
	.check		= hashed_check,
	.nr_slots	= tw_slots_nr_slots,
	.slot_len	= tw_slots_slot_len,
};
