/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tw.h - the timer scheme interface of callout.
 *
 * Every timer data structure of Varghese & Lauck, "Hashed and Hierarchical
 * Timing Wheels" (Schemes 1-7), the BSD calltodo list and the Timer Lawn sits
 * behind this one interface, so the facility can drive any of them and the
 * user-space tests can compare them against a reference.
 *
 * The vocabulary is the paper's, in absolute ticks:
 *
 *   START_TIMER  tw_insert(w, e, expires)   e is due at tick @expires
 *   STOP_TIMER   tw_remove(w, e)            O(1) where the scheme allows
 *   PER_TICK     tw_advance(w, now, list,   every entry due by @now is moved
 *                           budget)         onto @list (EXPIRY_PROCESSING is
 *                                           the caller's), @budget at a time
 *
 * Entries are intrusive, as timer_list is: the scheme never allocates per
 * entry. A scheme allocates its buckets once, in init.
 *
 * Contract, checked by the user-space differential test for every scheme:
 *  - w->now is the last tick fully processed. tw_insert() with @expires <=
 *    w->now makes the entry due at w->now + 1 (late over early: it fires on
 *    the next advance).
 *  - tw_advance(w, now, list, TW_UNBOUNDED) with now >= w->now collects
 *    exactly the entries whose expiry is <= @now, leaves w->now == @now, and
 *    never collects an entry early. Advanced one tick at a time, an entry is
 *    collected at the advance to exactly its expiry tick.
 *  - Advancing an empty wheel is O(1), whatever the distance.
 *  - tw_next(w) returns a tick T > w->now such that no entry is due before T
 *    (the next tick that can hold work: a wheel may answer with a busy slot
 *    whose entries belong to a later round), or TW_NEVER when empty.
 *  - tw_remove() of an entry that is not pending is a no-op returning false.
 *  - A scheme's state is a function of w->now and its entries alone: an empty
 *    wheel is valid at any w->now (tw_drain() and idle forwarding rely on it).
 *
 * Budgets: bounded work a call. An advance to @now is a pass from w->now to
 * @now, its target (w->target). A call of tw_advance() looks at no more than
 * @budget entries (each entry collected, kept or migrated costs one, and so
 * does a slot that a hint lets it skip whole) and may stop partway; the next
 * call resumes the pass where it stopped:
 *  - While a pass is in progress, w->now stays at the tick it started from
 *    and w->target > w->now is its target; a call finishes that pass before
 *    it starts one to a later @now, and a call with an earlier @now only
 *    continues it. When the pass is done, w->now = w->target. No entry is
 *    collected early: each one collected is due by the target of its pass.
 *  - A scheme keeps a cursor for a pass it is partway through, and for a
 *    slot or queue it is partway through: a marker node linked into the
 *    slot's list before the next entry to look at (tw_slots.h), a queue
 *    index (lawn), a private list of the entries still to look at (list),
 *    or nothing where the due entries lead (ordered, tree, bsd, the sorted
 *    rings). Inserts and removes between two calls are allowed: an entry
 *    inserted due by the target goes onto w->due, handed out by the next
 *    call, so no scheme has to file it behind its cursor; a later one is
 *    filed as usual (a scheme that measures from w->now, as simple and lawn
 *    do, measures from the tick the pass started from).
 *  - tw_next() is w->now + 1 while a pass is in progress: there is work now.
 *  - A call with any budget >= 1 makes progress, so a caller that comes back
 *    with a budget finishes every pass; tw_advancing() says whether one is
 *    in progress.
 *
 * Locking: none here. The caller serialises every call on one wheel.
 */
#ifndef CALLOUT_TW_H
#define CALLOUT_TW_H

#include <linux/bitmap.h>
#include <linux/bug.h>
#include <linux/callout.h>	/* struct tw_entry */
#include <linux/errno.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>

#define TW_NEVER	U64_MAX

/* Scheme identifiers: the paper's scheme numbers, and two more. */
enum tw_scheme_id {
	TW_LIST = 1,		/* Scheme 1: unordered list */
	TW_ORDERED,		/* Scheme 2: ordered list */
	TW_TREE,		/* Scheme 3: rbtree */
	TW_SIMPLE,		/* Scheme 4: one slot per tick */
	TW_HASHED_SORTED,	/* Scheme 5: hashed wheel, sorted slots */
	TW_HASHED,		/* Scheme 6: hashed wheel, unsorted slots */
	TW_HIERARCHICAL,	/* Scheme 7: hierarchical wheels */
	TW_BSD,			/* BSD calltodo: differential sorted list */
	TW_LAWN,		/* Timer Lawn: TTL -> FIFO queue */
	TW_NR_SCHEMES
};

/*
 * The flags of struct tw_entry (include/linux/callout.h, where a client's
 * struct callout embeds it) that tw.c keeps; the other bits are the owner's.
 */
#define TW_PENDING	0x1u
#define TW_DUE		0x2u	/* on w->due: inserted due during a pass */

/* The budget of an advance that runs its pass to the end in one call. */
#define TW_UNBOUNDED	U64_MAX

/**
 * struct tw_geometry - the shape of a wheel, fixed at init
 * @wheel_bits:	log2 of the slots of simple, hashed and hashed_sorted
 *		(simple: MaxInterval = 1 << wheel_bits ticks)
 * @levels:	levels of hierarchical
 * @level_bits:	log2 of the slots per level of hierarchical
 * @lawn_ttls:	most distinct TTLs (queues) of lawn
 */
struct tw_geometry {
	u32 wheel_bits;
	u32 levels;
	u32 level_bits;
	u32 lawn_ttls;
};

/**
 * struct tw_geometry_limits - the geometry a scheme takes
 * @min:	the least value of each field it uses
 * @max:	the most; 0 in each field it does not use
 * @def:	the default of each field it uses
 *
 * Schemes that use one field give it the same limits (the ring's are in
 * tw_slots.h), so a value is good or bad for all of them alike.
 */
struct tw_geometry_limits {
	struct tw_geometry min;
	struct tw_geometry max;
	struct tw_geometry def;
};

#define TW_GEOMETRY_WHY_LEN	96

/**
 * struct tw_geometry_error - why a scheme refuses a geometry
 * @field:	the field at fault, by name (the module parameter's too)
 * @why:	what the scheme takes instead, to print as "@field: @why"
 */
struct tw_geometry_error {
	const char *field;
	char why[TW_GEOMETRY_WHY_LEN];
};

/**
 * struct tw_stats - work a scheme counts for itself
 * @ticks:	ticks advanced over (including ticks jumped over)
 * @advances:	calls of tw_advance()
 * @examined:	entries looked at by tw_advance(), total
 * @max_examined: most entries looked at by one tw_advance()
 * @stopped:	calls of tw_advance() that spent their budget partway
 * @inserted:	entries inserted
 * @insert_steps: list elements walked by inserts (ordered, bsd, sorted slots)
 * @max_chain:	longest list walked by one insert or one slot visit
 * @migrations:	entries moved between levels (hierarchical)
 * @expired:	entries collected
 */
struct tw_stats {
	u64 ticks;
	u64 advances;
	u64 examined;
	u64 max_examined;
	u64 stopped;
	u64 inserted;
	u64 insert_steps;
	u64 max_chain;
	u64 migrations;
	u64 expired;
};

/*
 * The operations of a scheme whose cost grows linearly with n, the entries
 * pending (tw_ops.linear): what a benchmark must keep n and its
 * repetitions small for.
 */
#define TW_LINEAR_INSERT	0x1u	/* START_TIMER walks a sorted list */
#define TW_LINEAR_TICK		0x2u	/* PER_TICK examines every entry */

struct tw_wheel;

/**
 * struct tw_ops - one scheme
 * @name:	the scheme's name, as the module parameter takes it
 * @id:		its &enum tw_scheme_id
 * @linear:	TW_LINEAR_* of its operations that cost O(n), 0 if none
 * @may_be_full: @insert may refuse an expiry within its range for want of
 *		room (-ENOSPC: lawn out of queues); false if it refuses only
 *		beyond its range
 * @geometry:	the fields of struct tw_geometry it uses, their ranges and
 *		defaults; all 0 if it uses none
 * @check_geometry: what @geometry cannot say, a rule between fields: 0, or
 *		-EINVAL with @err filled; NULL if there is none
 * @max_interval: the longest interval, in ticks after w->now, that @insert
 *		takes in geometry @geo; NULL if it takes any (tw_max_interval())
 * @init:	allocate and set up, in a geometry tw_geometry_check()
 *		accepts; 0 or -ENOMEM
 * @destroy:	free what init allocated; the wheel must be empty
 * @insert:	link @e, due at @e->expires (> w->target, which is w->now
 *		unless a pass is in progress); 0, or -ERANGE beyond what the
 *		scheme can hold, or -ENOSPC (lawn out of queues)
 * @remove:	unlink pending @e
 * @advance:	the pass to @now (> w->now, == w->target): move every entry
 *		due by @now onto @expired, taking one from *@budget for each
 *		entry looked at (and each slot skipped whole); true when the
 *		pass is done, false (only with *@budget == 0) when it stopped
 *		partway, to be resumed by the next call with the same @now.
 *		tw.c sets w->now; inserts and removes may come between calls
 * @next:	the next tick that can hold work, or TW_NEVER
 * @check:	verify the scheme's invariants; 0 or -EUCLEAN
 * @nr_slots:	number of slots (wheels only, else NULL)
 * @slot_len:	entries in one slot (wheels only, else NULL)
 *
 * tw.c keeps TW_PENDING, nr_pending and the common stats; the ops only link.
 */
struct tw_ops {
	const char *name;
	enum tw_scheme_id id;
	u32 linear;
	bool may_be_full;
	struct tw_geometry_limits geometry;
	int (*check_geometry)(const struct tw_geometry *geo,
			      struct tw_geometry_error *err);
	u64 (*max_interval)(const struct tw_geometry *geo);
	int (*init)(struct tw_wheel *w);
	void (*destroy)(struct tw_wheel *w);
	int (*insert)(struct tw_wheel *w, struct tw_entry *e);
	void (*remove)(struct tw_wheel *w, struct tw_entry *e);
	bool (*advance)(struct tw_wheel *w, u64 now, struct list_head *expired,
			u64 *budget);
	u64 (*next)(struct tw_wheel *w);
	int (*check)(struct tw_wheel *w);
	u32 (*nr_slots)(struct tw_wheel *w);
	u64 (*slot_len)(struct tw_wheel *w, u32 slot);
};

/**
 * struct tw_wheel - one instance of a scheme
 * @ops:	the scheme
 * @geo:	its geometry
 * @now:	last tick fully processed
 * @target:	the tick the pass in progress goes to; == @now when none is
 * @due:	entries inserted during a pass due by @target, in insertion
 *		order; the next tw_advance() hands them out
 * @nr_due:	entries on @due
 * @drain_now:	w->now to return to when the tw_drain() in progress is done
 * @draining:	a tw_drain() is in progress
 * @nr_pending:	entries pending, in the scheme or on @due
 * @stats:	work counted
 * @priv:	the scheme's state, allocated by init
 */
struct tw_wheel {
	const struct tw_ops *ops;
	struct tw_geometry geo;
	u64 now;
	u64 target;
	struct list_head due;
	u64 nr_due;
	u64 drain_now;
	bool draining;
	u64 nr_pending;
	struct tw_stats stats;
	void *priv;
};

extern const struct tw_ops tw_list_ops, tw_ordered_ops, tw_bsd_ops,
	tw_tree_ops, tw_simple_ops, tw_hashed_sorted_ops, tw_hashed_ops,
	tw_hierarchical_ops, tw_lawn_ops;

const struct tw_ops *tw_ops_by_name(const char *name);
const struct tw_ops *tw_ops_by_id(enum tw_scheme_id id);

void tw_geometry_defaults(struct tw_geometry *geo);
int tw_geometry_check(const struct tw_ops *ops, const struct tw_geometry *geo,
		      struct tw_geometry_error *err);
int tw_init(struct tw_wheel *w, const struct tw_ops *ops,
	    const struct tw_geometry *geo, u64 now);
void tw_destroy(struct tw_wheel *w);
u64 tw_advance(struct tw_wheel *w, u64 now, struct list_head *expired,
	       u64 budget);
bool tw_drain(struct tw_wheel *w, struct list_head *out, u64 budget);
u64 tw_next(struct tw_wheel *w);
int tw_check(struct tw_wheel *w);

/*
 * The longest interval, in ticks after w->now, that a wheel of @ops in
 * geometry @geo holds: tw_insert() is -ERANGE beyond it. U64_MAX: any.
 */
static inline u64 tw_max_interval(const struct tw_ops *ops,
				  const struct tw_geometry *geo)
{
	return ops->max_interval ? ops->max_interval(geo) : U64_MAX;
}

/* Whether a pass is partway: tw_advance() has more to do for w->target. */
static inline bool tw_advancing(const struct tw_wheel *w)
{
	return w->target != w->now;
}

/* For the ops: the entries the scheme holds (the rest are on w->due). */
static inline u64 tw_nr_linked(const struct tw_wheel *w)
{
	return w->nr_pending - w->nr_due;
}

static inline void tw_entry_init(struct tw_entry *e)
{
	INIT_LIST_HEAD(&e->list);
	e->flags = 0;
}

static inline bool tw_pending(const struct tw_entry *e)
{
	return e->flags & TW_PENDING;
}

/*
 * START_TIMER and STOP_TIMER sit on every set and cancel: inline, and the
 * facility's two schemes, Scheme 6 (the default) and Scheme 7, are called
 * directly (INDIRECT_CALL_2()), where a call through the ops is a
 * retpoline on most kernels. The comparison schemes are called through
 * the ops: in a comparison of schemes each of them pays that much more per
 * insert and remove (Documentation/benchmarks.rst).
 */
int tw_hashed_insert(struct tw_wheel *w, struct tw_entry *e);
void tw_hashed_remove(struct tw_wheel *w, struct tw_entry *e);
int tw_hier_insert(struct tw_wheel *w, struct tw_entry *e);
void tw_hier_remove(struct tw_wheel *w, struct tw_entry *e);

/**
 * tw_insert() - START_TIMER: link @e, due at tick @expires
 * @w:		the wheel
 * @e:		an entry that is not pending
 * @expires:	absolute tick; at or before w->now means "at the next tick"
 *
 * While a pass is in progress (tw.h, "Budgets"), an entry due by its target
 * goes onto w->due, which the next tw_advance() hands out first: the scheme
 * may already have passed the place it would file it at.
 *
 * Return: 0, -EBUSY if @e is pending, or the scheme's -ERANGE/-ENOSPC.
 */
static inline int tw_insert(struct tw_wheel *w, struct tw_entry *e,
			    u64 expires)
{
	u64 was = e->expires;
	int ret;

	if (WARN_ON_ONCE(tw_pending(e)))
		return -EBUSY;
	/* Late over early: what is already due fires on the next advance. */
	e->expires = expires > w->now ? expires : w->now + 1;
	if (e->expires <= w->target) {
		list_add_tail(&e->list, &w->due);
		e->flags |= TW_DUE;
		w->nr_due++;
	} else {
		ret = INDIRECT_CALL_2(w->ops->insert, tw_hashed_insert,
				      tw_hier_insert, w, e);
		if (ret) {
			e->expires = was;	/* a refusal leaves @e as it was */
			return ret;
		}
	}
	e->flags |= TW_PENDING;
	w->nr_pending++;
	w->stats.inserted++;
	return 0;
}

/**
 * tw_remove() - STOP_TIMER: unlink @e if it is pending
 * @w:	the wheel @e was inserted into
 * @e:	the entry
 *
 * Return: true if @e was pending and is now removed, false (a no-op) if not.
 */
static inline bool tw_remove(struct tw_wheel *w, struct tw_entry *e)
{
	if (!tw_pending(e))
		return false;
	if (e->flags & TW_DUE) {
		list_del_init(&e->list);
		e->flags &= ~TW_DUE;
		w->nr_due--;
	} else {
		INDIRECT_CALL_2(w->ops->remove, tw_hashed_remove,
				tw_hier_remove, w, e);
	}
	e->flags &= ~TW_PENDING;
	w->nr_pending--;
	return true;
}

/* For the ops: record one list walk of @len elements. */
static inline void tw_note_chain(struct tw_wheel *w, u64 len)
{
	if (len > w->stats.max_chain)
		w->stats.max_chain = len;
}

#endif /* CALLOUT_TW_H */
