// SPDX-License-Identifier: GPL-2.0
/*
 * tw.c - the common half of every timer scheme: the pending flag, the count
 * of pending entries and the work statistics live here, so each scheme file
 * only links and unlinks.
 *
 * callout.ko exports these entry points for its benchmark module in a
 * namespace of their own, CALLOUT_TW, spelt for the kernel by Kbuild
 * (module/callout_tw.h).
 */
#define pr_fmt(fmt) "callout: " fmt

#include <linux/export.h>
#include <linux/kernel.h>

#include "tw.h"

static const struct tw_ops *const tw_schemes[TW_NR_SCHEMES] = {
	[TW_LIST]		= &tw_list_ops,
	[TW_ORDERED]		= &tw_ordered_ops,
	[TW_TREE]		= &tw_tree_ops,
	[TW_SIMPLE]		= &tw_simple_ops,
	[TW_HASHED_SORTED]	= &tw_hashed_sorted_ops,
	[TW_HASHED]		= &tw_hashed_ops,
	[TW_HIERARCHICAL]	= &tw_hierarchical_ops,
	[TW_BSD]		= &tw_bsd_ops,
	[TW_LAWN]		= &tw_lawn_ops,
};

/**
 * tw_ops_by_id() - look a scheme up by its id
 * @id:		its &enum tw_scheme_id, from 1 to TW_NR_SCHEMES - 1
 *
 * Return: the scheme, or NULL if there is none of that id.
 */
const struct tw_ops *tw_ops_by_id(enum tw_scheme_id id)
{
	if (id <= 0 || id >= TW_NR_SCHEMES)
		return NULL;
	return tw_schemes[id];
}
EXPORT_SYMBOL_NS_GPL(tw_ops_by_id, CALLOUT_TW_NS);

/**
 * tw_ops_by_name() - look a scheme up by its name
 * @name:	as the module parameter takes it ("hashed", ...)
 *
 * Return: the scheme, or NULL if there is none of that name.
 */
const struct tw_ops *tw_ops_by_name(const char *name)
{
	int id;

	for (id = 1; id < TW_NR_SCHEMES; id++)
		if (!strcmp(tw_schemes[id]->name, name))
			return tw_schemes[id];
	return NULL;
}
EXPORT_SYMBOL_NS_GPL(tw_ops_by_name, CALLOUT_TW_NS);

/* The fields of struct tw_geometry, by name: the module parameters'. */
static const struct {
	const char *name;
	size_t offset;
} tw_geometry_fields[] = {
	{ "wheel_bits", offsetof(struct tw_geometry, wheel_bits) },
	{ "levels", offsetof(struct tw_geometry, levels) },
	{ "level_bits", offsetof(struct tw_geometry, level_bits) },
	{ "lawn_ttls", offsetof(struct tw_geometry, lawn_ttls) },
};

static u32 *tw_geometry_field(struct tw_geometry *geo, unsigned int i)
{
	/* Every field is a u32 and is in the table. */
	BUILD_BUG_ON(sizeof(*geo) !=
		     ARRAY_SIZE(tw_geometry_fields) * sizeof(u32));
	return (u32 *)((char *)geo + tw_geometry_fields[i].offset);
}

static u32 tw_geometry_value(const struct tw_geometry *geo, unsigned int i)
{
	return *tw_geometry_field((struct tw_geometry *)geo, i);
}

/**
 * tw_geometry_defaults() - fill in a geometry with the schemes' defaults
 * @geo:	each field that is 0 gets the default of the schemes that
 *		use it
 */
void tw_geometry_defaults(struct tw_geometry *geo)
{
	unsigned int i;
	u32 *val;
	int id;

	for (i = 0; i < ARRAY_SIZE(tw_geometry_fields); i++) {
		val = tw_geometry_field(geo, i);
		for (id = 1; !*val && id < TW_NR_SCHEMES; id++)
			*val = tw_geometry_value(&tw_schemes[id]->geometry.def,
						 i);
	}
}

/**
 * tw_geometry_check() - whether a scheme takes a geometry
 * @ops:	the scheme
 * @geo:	the geometry; only the fields @ops uses are looked at
 * @err:	receives the field at fault and why, on a refusal
 *
 * Return: 0, or -EINVAL with @err filled.
 */
int tw_geometry_check(const struct tw_ops *ops, const struct tw_geometry *geo,
		      struct tw_geometry_error *err)
{
	const struct tw_geometry_limits *lim = &ops->geometry;
	u32 val, min, max;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tw_geometry_fields); i++) {
		max = tw_geometry_value(&lim->max, i);
		if (!max)
			continue;	/* not a field of this scheme */
		min = tw_geometry_value(&lim->min, i);
		val = tw_geometry_value(geo, i);
		if (val < min || val > max) {
			err->field = tw_geometry_fields[i].name;
			scnprintf(err->why, sizeof(err->why),
				  "%s takes %u..%u, not %u", ops->name, min,
				  max, val);
			return -EINVAL;
		}
	}
	return ops->check_geometry ? ops->check_geometry(geo, err) : 0;
}

/**
 * tw_init() - set a wheel up, empty
 * @w:		the wheel
 * @ops:	its scheme
 * @geo:	its geometry, copied
 * @now:	the tick it starts at (w->now)
 *
 * Return: 0, -EINVAL for a geometry the scheme refuses, or -ENOMEM.
 */
int tw_init(struct tw_wheel *w, const struct tw_ops *ops,
	    const struct tw_geometry *geo, u64 now)
{
	struct tw_geometry_error err;

	if (tw_geometry_check(ops, geo, &err))
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->ops = ops;
	w->geo = *geo;
	w->now = now;
	w->target = now;
	INIT_LIST_HEAD(&w->due);
	return ops->init(w);
}
EXPORT_SYMBOL_NS_GPL(tw_init, CALLOUT_TW_NS);

/**
 * tw_destroy() - free what tw_init() allocated
 * @w:	the wheel; it must be empty (tw_drain() empties it)
 */
void tw_destroy(struct tw_wheel *w)
{
	WARN_ON_ONCE(w->nr_pending);
	w->ops->destroy(w);
	w->priv = NULL;
}
EXPORT_SYMBOL_NS_GPL(tw_destroy, CALLOUT_TW_NS);

/* Hand out what was inserted due during the pass, one budget unit each. */
static void tw_take_due(struct tw_wheel *w, struct list_head *due,
			u64 *budget)
{
	struct tw_entry *e;

	while (w->nr_due && *budget) {
		e = list_first_entry(&w->due, struct tw_entry, list);
		list_move_tail(&e->list, due);
		e->flags &= ~TW_DUE;
		w->nr_due--;
		w->stats.examined++;
		(*budget)--;
	}
}

/**
 * tw_advance() - PER_TICK: process every tick up to and including @now
 * @w:		the wheel
 * @now:	the tick to advance to; earlier than w->now only continues a
 *		pass in progress
 * @expired:	list head that receives the due entries, linked by ->list
 * @budget:	the most entries to look at (tw.h, "Budgets"), at least 1;
 *		TW_UNBOUNDED to finish in this call
 *
 * The pass in progress, if any, is finished first; then a pass to @now
 * starts, if @now is later. With a budget the call may stop partway:
 * tw_advancing() then says so, and w->now stays where the pass started.
 *
 * Return: the number of entries moved onto @expired.
 */
u64 tw_advance(struct tw_wheel *w, u64 now, struct list_head *expired,
	       u64 budget)
{
	u64 n = 0, before = w->stats.examined;
	struct tw_entry *e;
	LIST_HEAD(due);

	if (now <= w->now && !tw_advancing(w))
		return 0;
	w->stats.advances++;
	tw_take_due(w, &due, &budget);
	for (;;) {
		if (!tw_advancing(w)) {
			if (now <= w->now)
				break;
			w->stats.ticks += now - w->now;
			if (!w->nr_pending) {
				w->now = now;
				w->target = now;
				break;
			}
			w->target = now;
		}
		if (!budget || !w->ops->advance(w, w->target, &due, &budget)) {
			w->stats.stopped++;
			break;
		}
		w->now = w->target;
	}
	list_for_each_entry(e, &due, list) {
		e->flags &= ~TW_PENDING;
		n++;
	}
	w->nr_pending -= n;
	w->stats.expired += n;
	if (w->stats.examined - before > w->stats.max_examined)
		w->stats.max_examined = w->stats.examined - before;
	list_splice_tail(&due, expired);
	return n;
}
EXPORT_SYMBOL_NS_GPL(tw_advance, CALLOUT_TW_NS);

/**
 * tw_drain() - move every pending entry onto @out, whatever its expiry
 * @w:		the wheel; it keeps its w->now and is empty afterwards
 * @out:	receives the entries, linked by ->list, still holding ->expires
 * @budget:	the most entries to look at, as tw_advance()'s
 *
 * Used to move the callouts of a CPU going offline to another wheel, a
 * budget at a time. A drain is a pass to TW_NEVER: until it is done, only
 * tw_remove() and more tw_drain() calls may touch the wheel. Its work is
 * not counted in the wheel's statistics.
 *
 * Return: true when the wheel is empty (the drain is done), false when
 * @budget ran out first.
 */
bool tw_drain(struct tw_wheel *w, struct list_head *out, u64 budget)
{
	struct tw_stats saved = w->stats;

	if (!w->draining) {
		w->draining = true;
		w->drain_now = w->target;
	}
	tw_advance(w, TW_NEVER, out, budget);
	w->stats = saved;
	if (tw_advancing(w) || w->now != TW_NEVER)
		return false;
	w->draining = false;
	w->now = w->drain_now;
	w->target = w->drain_now;
	return true;
}
EXPORT_SYMBOL_NS_GPL(tw_drain, CALLOUT_TW_NS);

u64 tw_next(struct tw_wheel *w)
{
	if (tw_advancing(w))
		return w->now + 1;
	if (!w->nr_pending)
		return TW_NEVER;
	return w->ops->next(w);
}

/**
 * tw_check() - verify the invariants of a wheel's scheme
 * @w:	the wheel
 *
 * Return: 0, or -EUCLEAN with what is wrong in the kernel log.
 */
int tw_check(struct tw_wheel *w)
{
	struct tw_entry *e;
	u64 n = 0;

	if (w->target < w->now) {
		pr_err("%s: target %llu before now %llu\n", w->ops->name,
		       (unsigned long long)w->target,
		       (unsigned long long)w->now);
		return -EUCLEAN;
	}
	list_for_each_entry(e, &w->due, list) {
		if ((e->flags & (TW_PENDING | TW_DUE)) !=
		    (TW_PENDING | TW_DUE) || e->expires <= w->now ||
		    e->expires > w->target) {
			pr_err("%s: due entry flags %#x expires %llu, pass %llu..%llu\n",
			       w->ops->name, e->flags,
			       (unsigned long long)e->expires,
			       (unsigned long long)w->now,
			       (unsigned long long)w->target);
			return -EUCLEAN;
		}
		n++;
	}
	if (n != w->nr_due || n > w->nr_pending) {
		pr_err("%s: %llu due entries, %llu counted, %llu pending\n",
		       w->ops->name, (unsigned long long)n,
		       (unsigned long long)w->nr_due,
		       (unsigned long long)w->nr_pending);
		return -EUCLEAN;
	}
	return w->ops->check(w);
}
EXPORT_SYMBOL_NS_GPL(tw_check, CALLOUT_TW_NS);
