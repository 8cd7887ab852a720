/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tw_slots.h - the slot array of a timing wheel and its occupancy bitmap,
 * shared by the wheels: simple, hashed_sorted, hashed and hierarchical; and
 * the one-level ring of simple, hashed_sorted and hashed.
 *
 * Varghese & Lauck, Appendix A ("Hardware assist"), proposes a counter chip
 * that steps through the timer arrays and interrupts the host only at a
 * "busy" slot: the host marks slot X busy when it links a timer into the
 * empty queue of X, and clears the mark when it unlinks the last one. Here
 * the chip is a bitmap beside the slots: bit i is set iff slot i's list is
 * non-empty. Every link and unlink keeps it (entry->idx names the slot, so
 * an unlink finds its bit in O(1)), and find_next_bit() steps over
 * BITS_PER_LONG empty slots per word, so an empty slot costs a bit and the
 * next busy slot (the next tick that can hold work) is a bitmap scan.
 *
 * Slot lists are FIFO: entries are linked at the tail, so among entries due
 * at the same tick the first inserted is the first collected.
 *
 * A visit that spends its budget partway through a slot (tw.h, "Budgets")
 * leaves a cursor in it: a bare list node, @cursor, linked just before the
 * next entry to look at. Removes unlink around it, inserts go to the tail
 * behind it, and the next call resumes after it, so each entry is looked at
 * once and the slot keeps its order. A slot holding the cursor counts as
 * busy; the walks that are not visits (len, check) step over it.
 */
#ifndef CALLOUT_TW_SLOTS_H
#define CALLOUT_TW_SLOTS_H

#include "tw.h"

/**
 * struct tw_slots - the slot lists of a wheel and their busy bitmap
 * @head:	@nr list heads, one per slot
 * @busy:	bit i set iff @head[i] is non-empty
 * @nr:		number of slots
 * @cursor:	where a visit that stopped resumes, linked in slot
 *		@cursor_idx while @stopped
 * @cursor_idx:	the slot of @cursor
 * @stopped:	a visit stopped partway and holds @cursor
 *
 * Locked by the caller of the tw_ops, as the wheel is.
 */
struct tw_slots {
	struct list_head *head;
	unsigned long *busy;
	u32 nr;
	struct list_head cursor;
	u32 cursor_idx;
	bool stopped;
};

static inline void tw_slots_free(struct tw_slots *s)
{
	kvfree(s->busy);
	kvfree(s->head);
	s->busy = NULL;
	s->head = NULL;
	s->nr = 0;
}

/* Allocate @nr empty slots and a clear bitmap: 0 or -ENOMEM. */
static inline int tw_slots_alloc(struct tw_slots *s, u32 nr)
{
	u32 i;

	s->head = kvcalloc(nr, sizeof(*s->head), GFP_KERNEL);
	s->busy = kvcalloc(BITS_TO_LONGS(nr), sizeof(*s->busy), GFP_KERNEL);
	if (!s->head || !s->busy) {
		tw_slots_free(s);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++)
		INIT_LIST_HEAD(&s->head[i]);
	s->nr = nr;
	INIT_LIST_HEAD(&s->cursor);
	s->stopped = false;
	return 0;
}

/* Link @e at the tail of slot @idx and mark the slot busy. */
static inline void tw_slots_enqueue(struct tw_slots *s, struct tw_entry *e,
				    u32 idx)
{
	e->idx = idx;
	list_add_tail(&e->list, &s->head[idx]);
	__set_bit(idx, s->busy);
}

/* Link @e into slot @idx right after @prev (an entry of it, or its head). */
static inline void tw_slots_enqueue_after(struct tw_slots *s,
					  struct tw_entry *e, u32 idx,
					  struct list_head *prev)
{
	e->idx = idx;
	list_add(&e->list, prev);
	__set_bit(idx, s->busy);
}

/* Clear the busy bit of slot @idx if its list has become empty. */
static inline void tw_slots_settle(struct tw_slots *s, u32 idx)
{
	if (list_empty(&s->head[idx]))
		__clear_bit(idx, s->busy);
}

/*
 * The first list node of slot @idx a visit looks at: its first entry, or,
 * resuming a visit that stopped there, the one after the cursor, which is
 * taken out. The visit walks on with ->next until it reaches the head.
 */
static inline struct list_head *tw_slots_resume(struct tw_slots *s, u32 idx)
{
	struct list_head *pos;

	if (!s->stopped)
		return s->head[idx].next;
	WARN_ON_ONCE(s->cursor_idx != idx);
	pos = s->cursor.next;
	list_del_init(&s->cursor);
	s->stopped = false;
	return pos;
}

/* Stop the visit of slot @idx before @pos, an entry it has not looked at. */
static inline void tw_slots_stop(struct tw_slots *s, u32 idx,
				 struct list_head *pos)
{
	list_add_tail(&s->cursor, pos);
	s->cursor_idx = idx;
	s->stopped = true;
}

/* Unlink @e from the slot it is in, in O(1) thanks to @e->idx. */
static inline void tw_slots_detach(struct tw_slots *s, struct tw_entry *e)
{
	list_del(&e->list);
	tw_slots_settle(s, e->idx);
}

/*
 * The first busy slot in [@from, @to), or @to if there is none. A range of
 * one slot, which is what a wheel ticked one tick at a time looks at, is a
 * bit test rather than a call of find_next_bit().
 */
static inline u32 tw_slots_find(const struct tw_slots *s, u32 from, u32 to)
{
	if (from >= to)
		return to;
	if (from + 1 == to)
		return test_bit(from, s->busy) ? from : to;
	return find_next_bit(s->busy, to, from);
}

/**
 * struct tw_slot_range - slots @first..@last, without wrap
 * @first:	the first slot
 * @last:	the last slot, >= @first
 */
struct tw_slot_range {
	u32 first;
	u32 last;
};

/*
 * The slots that the ticks @old + 1 .. @now (@old < @now) hash to on a wheel
 * of @mask + 1 slots, one tick wide, as at most two ranges in @r: every
 * slot, once, when the distance is a round or more; else the slots from the
 * one of @old + 1 to the one of @now, split where they wrap. Returns the
 * number of ranges.
 */
static inline int tw_slots_passed(u64 mask, u64 old, u64 now,
				  struct tw_slot_range r[2])
{
	u32 first = (old + 1) & mask, last = now & mask;

	if (now - old > mask) {
		r[0].first = 0;
		r[0].last = mask;
		return 1;
	}
	if (first <= last) {
		r[0].first = first;
		r[0].last = last;
		return 1;
	}
	r[0].first = first;
	r[0].last = mask;
	r[1].first = 0;
	r[1].last = last;
	return 2;
}

/*
 * The distance in slots from @first to the first busy slot at or after it,
 * going round, or -1 if every slot is empty.
 */
static inline s64 tw_slots_distance(const struct tw_slots *s, u32 first)
{
	u32 idx = tw_slots_find(s, first, s->nr);

	if (idx < s->nr)
		return idx - first;
	idx = tw_slots_find(s, 0, first);
	if (idx < first)
		return s->nr - first + idx;
	return -1;
}

/* Entries in slot @idx (a walk: for the debugfs view and the checks). */
static inline u64 tw_slots_len(const struct tw_slots *s, u32 idx)
{
	const struct list_head *pos;
	u64 len = 0;

	if (idx >= s->nr)
		return 0;
	list_for_each(pos, &s->head[idx])
		if (pos != &s->cursor)
			len++;
	return len;
}

/**
 * tw_slots_check() - the invariants every wheel shares
 * @s:		the slots
 * @w:		their wheel
 * @placed:	the scheme's rule: true iff @e belongs in slot @idx
 *
 * Checks that each slot's busy bit is set iff the slot is non-empty (the
 * cursor of a stopped visit counts), that every entry is pending, due after
 * w->now, knows its slot (@e->idx) and is in the slot @placed says, and
 * that the entries add up to those the scheme holds (tw_nr_linked()).
 *
 * Return: 0, or -EUCLEAN (with the first broken invariant logged).
 */
static inline int tw_slots_check(const struct tw_slots *s, struct tw_wheel *w,
				 bool (*placed)(struct tw_wheel *w,
						const struct tw_entry *e,
						u32 idx))
{
	const struct list_head *pos;
	const struct tw_entry *e;
	u64 count = 0;
	u32 idx;

	if (s->stopped && (s->cursor_idx >= s->nr ||
			   !test_bit(s->cursor_idx, s->busy))) {
		pr_err("%s: a visit stopped in slot %u, not busy\n",
		       w->ops->name, s->cursor_idx);
		return -EUCLEAN;
	}
	for (idx = 0; idx < s->nr; idx++) {
		if (test_bit(idx, s->busy) == list_empty(&s->head[idx])) {
			pr_err("%s: slot %u: busy bit %d but list %s\n",
			       w->ops->name, idx, !!test_bit(idx, s->busy),
			       list_empty(&s->head[idx]) ? "empty" : "busy");
			return -EUCLEAN;
		}
		list_for_each(pos, &s->head[idx]) {
			if (pos == &s->cursor)
				continue;
			e = list_entry(pos, struct tw_entry, list);
			if (e->idx != idx || !(e->flags & TW_PENDING) ||
			    e->expires <= w->now || !placed(w, e, idx)) {
				pr_err("%s: slot %u: entry idx %u flags %#x expires %llu misplaced at now %llu\n",
				       w->ops->name, idx, e->idx, e->flags,
				       (unsigned long long)e->expires,
				       (unsigned long long)w->now);
				return -EUCLEAN;
			}
			count++;
		}
	}
	if (count != tw_nr_linked(w)) {
		pr_err("%s: %llu entries in the slots, %llu linked\n",
		       w->ops->name, (unsigned long long)count,
		       (unsigned long long)tw_nr_linked(w));
		return -EUCLEAN;
	}
	return 0;
}

/*
 * Every wheel keeps its struct tw_slots first in w->priv, so that these
 * serve them all as tw_ops.nr_slots and tw_ops.slot_len.
 */
static inline struct tw_slots *tw_wheel_slots(struct tw_wheel *w)
{
	return w->priv;
}

static inline u32 tw_slots_nr_slots(struct tw_wheel *w)
{
	return tw_wheel_slots(w)->nr;
}

static inline u64 tw_slots_slot_len(struct tw_wheel *w, u32 slot)
{
	return tw_slots_len(tw_wheel_slots(w), slot);
}

/*
 * The ring: a one-level wheel of 1 << wheel_bits slots, each one tick wide,
 * shared by Schemes 4, 5 and 6. The entry due at absolute tick t lives in
 * slot t & mask, the low-order wheel_bits bits of its expiry, so the slot the
 * clock reaches at tick t is the one that holds it, and one round of the
 * clock is 1 << wheel_bits ticks (Scheme 4's MaxInterval). As the slot
 * depends on the expiry alone, a ring has no cursor that could go stale:
 * w->now is the current time pointer, and an empty ring is valid at any
 * w->now. Advancing from w->now to now visits the busy slots of the ticks
 * w->now + 1 .. now, each at most once (all of them for a jump of a round or
 * more); the schemes differ in what a slot holds and how it is visited.
 *
 * Geometry (w->geo.wheel_bits, TW_RING_MIN_BITS..TW_RING_MAX_BITS; the
 * default is TW_RING_DEFAULT_BITS). Memory is a list head (16 bytes) and a
 * bit per slot on 64-bit:
 *
 *   wheel_bits     slots   one round  at 1 ms/tick  memory
 *            8       256         256      0.256 s    4 KiB +  32 B
 *   12 (default)    4096        4096      4.096 s   64 KiB + 512 B
 *           16     65536       65536     65.5 s      1 MiB +   8 KiB
 *           20   1048576     1048576     17.5 min   16 MiB + 128 KiB
 *           24  16777216    16777216      4.7 h    256 MiB +   2 MiB
 */
#define TW_RING_MIN_BITS	1
#define TW_RING_MAX_BITS	24
#define TW_RING_DEFAULT_BITS	12

/* The geometry of a ring, for its scheme's tw_ops.geometry. */
#define TW_RING_GEOMETRY {					\
	.min = { .wheel_bits = TW_RING_MIN_BITS },		\
	.max = { .wheel_bits = TW_RING_MAX_BITS },		\
	.def = { .wheel_bits = TW_RING_DEFAULT_BITS },		\
}

/**
 * struct tw_ring - the state of a ring: Schemes 4, 5 and 6
 * @slots:	the slot lists and their busy bitmap (first: tw_wheel_slots())
 * @mask:	number of slots - 1
 * @sorted:	each slot's list is in expiry order, so its due entries lead
 *		it: Scheme 5 keeps it so, and a slot of Scheme 4 holds the
 *		entries of one tick
 * @earliest:	Scheme 6 only, else NULL: per slot, a tick no later than the
 *		earliest expiry in it (the hint). Set by an insert into an
 *		empty slot, lowered by inserts, made exact by a whole visit;
 *		a remove leaves it, conservatively low. A visit of a slot
 *		whose hint is after the pass's target skips it in O(1).
 * @visit_min:	the earliest expiry kept so far by the visit in progress
 * @passing:	a pass is in progress (tw.h, "Budgets")
 * @range:	which range of tw_slots_passed() the pass is in
 * @idx:	the next slot of that range the pass looks at
 *
 * Locked by the caller of the tw_ops.
 */
struct tw_ring {
	struct tw_slots slots;
	u64 mask;
	bool sorted;
	u64 *earliest;
	u64 visit_min;
	bool passing;
	u32 range;
	u32 idx;
};

/* The slot of tick @expires: its low-order wheel_bits bits, the hash. */
static inline u32 tw_ring_calc_slot(const struct tw_ring *r, u64 expires)
{
	return expires & r->mask;
}

/*
 * Make w->priv a ring of 1 << w->geo.wheel_bits slots, @sorted as struct
 * tw_ring says; an unsorted one gets the earliest-due hints too.
 * Return: 0 or -ENOMEM.
 */
static inline int tw_ring_init(struct tw_wheel *w, bool sorted)
{
	u32 bits = w->geo.wheel_bits;
	struct tw_ring *r;
	int ret;

	/* A slot number must fit in tw_entry->idx. */
	BUILD_BUG_ON(TW_RING_MAX_BITS >= 32);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	ret = tw_slots_alloc(&r->slots, 1U << bits);
	if (ret) {
		kfree(r);
		return ret;
	}
	if (!sorted) {
		/* Any value will do: an insert into an empty slot sets it. */
		r->earliest = kvcalloc(1U << bits, sizeof(*r->earliest),
				       GFP_KERNEL);
		if (!r->earliest) {
			tw_slots_free(&r->slots);
			kfree(r);
			return -ENOMEM;
		}
	}
	r->mask = (1ULL << bits) - 1;
	r->sorted = sorted;
	w->priv = r;
	return 0;
}

static inline void tw_ring_destroy(struct tw_wheel *w)
{
	struct tw_ring *r = w->priv;

	kvfree(r->earliest);
	tw_slots_free(&r->slots);
	kfree(r);
}

/* STOPTIMER: unlink @e from its slot. */
static inline void tw_ring_remove(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_ring *r = w->priv;

	tw_slots_detach(&r->slots, e);
}

/*
 * Visit slot @idx for the pass to @now: move its due entries onto
 * @expired, in order, one unit of *@budget per entry looked at. In a sorted
 * ring the due entries lead the slot: they are cut off in one piece, and
 * the first entry that is not due ends the visit, since all behind it are
 * later; a visit that runs out of budget leaves the rest at the head, where
 * the next one finds them. In an unsorted one (Scheme 6) every entry is
 * examined, and those not due, a later round's, stay: comparing with the
 * absolute expiry is the paper's "decrement the rounds count and test for
 * zero"; a visit that runs out of budget leaves the slot's cursor before the
 * next entry (tw_slots_resume()), and the hint lets a visit skip a slot
 * where nothing can be due. Return: true when the visit is done, false when
 * it stopped (*@budget is then 0).
 */
static inline bool tw_ring_collect_slot(struct tw_wheel *w, struct tw_ring *r,
					u32 idx, u64 now,
					struct list_head *expired, u64 *budget)
{
	struct list_head *head = &r->slots.head[idx], *pos, *next;
	u64 len = 0, left = *budget, least;
	struct tw_entry *e;
	bool done = true;
	LIST_HEAD(due);

	if (r->sorted) {
		for (pos = head->next; pos != head; pos = pos->next) {
			if (len == left) {
				done = false;
				break;
			}
			len++;
			if (list_entry(pos, struct tw_entry, list)->expires > now)
				break;
		}
		/* @pos: the first entry not taken, or the head itself. */
		list_cut_position(&due, head, pos->prev);
		list_splice_tail(&due, expired);
	} else {
		if (!r->slots.stopped) {
			if (r->earliest[idx] > now) {
				/* Nothing here is due: one unit, no entry. */
				(*budget)--;
				return true;
			}
			r->visit_min = TW_NEVER;
		}
		least = r->visit_min;
		for (pos = tw_slots_resume(&r->slots, idx); pos != head;
		     pos = next) {
			if (len == left) {
				tw_slots_stop(&r->slots, idx, pos);
				done = false;
				break;
			}
			len++;
			next = pos->next;
			e = list_entry(pos, struct tw_entry, list);
			if (e->expires <= now)
				list_move_tail(&e->list, expired);
			else if (e->expires < least)
				least = e->expires;
		}
		r->visit_min = least;
		if (done)
			r->earliest[idx] = least;
	}
	*budget -= len;
	w->stats.examined += len;
	tw_note_chain(w, len);
	tw_slots_settle(&r->slots, idx);
	return done;
}

/*
 * PERTICK for every tick w->now + 1 .. @now: visit the busy slots those
 * ticks reach, each at most once (all of them for a round or more), from
 * where the pass stopped, if it did. Return: true when the pass is done.
 */
static inline bool tw_ring_advance(struct tw_wheel *w, u64 now,
				   struct list_head *expired, u64 *budget)
{
	struct tw_ring *r = w->priv;
	struct tw_slot_range range[2];
	int nr = tw_slots_passed(r->mask, w->now, now, range);
	u32 end;

	if (!r->passing) {
		r->passing = true;
		r->range = 0;
		r->idx = range[0].first;
	}
	while (r->range < nr) {
		end = range[r->range].last + 1;
		r->idx = tw_slots_find(&r->slots, r->idx, end);
		if (r->idx >= end) {
			if (++r->range < nr)
				r->idx = range[r->range].first;
			continue;
		}
		if (!*budget ||
		    !tw_ring_collect_slot(w, r, r->idx, now, expired, budget))
			return false;
		r->idx++;
	}
	r->passing = false;
	return true;
}

/*
 * The tick of the first busy slot after w->now. Every entry's slot is
 * (expires - w->now - 1) mod the slots after the one of w->now + 1, which
 * is no more than expires - w->now - 1: the answer is never later than the
 * earliest expiry, so it cannot overflow either. It is exact where a slot
 * holds one tick (Scheme 4); elsewhere it may be a slot whose entries are
 * all in later rounds (an early wake-up that collects nothing), never a
 * late one.
 */
static inline u64 tw_ring_next(struct tw_wheel *w)
{
	struct tw_ring *r = w->priv;
	s64 dist = tw_slots_distance(&r->slots,
				     tw_ring_calc_slot(r, w->now + 1));

	return dist < 0 ? TW_NEVER : w->now + 1 + dist;
}

#endif /* CALLOUT_TW_SLOTS_H */
