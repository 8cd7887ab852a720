// SPDX-License-Identifier: GPL-2.0
/*
 * tw_diff.c - drive one timer scheme and a sorted reference with the same
 * random operations and require identical results at every step.
 *
 * The reference is deliberately naive: a sorted array of (expires, index)
 * pairs. It knows the contract of tw.h - an expiry at or before w->now is
 * due at w->now + 1, an advance collects exactly what is due by its target,
 * a remove of an entry that is not pending returns false - and the limits
 * a scheme may enforce: an interval beyond the scheme's tw_max_interval()
 * (simple's MaxInterval, 1 << wheel_bits) is refused with -ERANGE, and lawn
 * refuses a TTL that needs a queue when all geo.lawn_ttls are in use with
 * -ENOSPC. Every other refusal is a bug.
 *
 * Checked after every operation: the return value, w->now, nr_pending and
 * the pending flags; after every advance: the set of entries collected,
 * and that tw_next() is a lower bound (> w->now, <= the earliest expiry,
 * TW_NEVER when empty); regularly: tw_check() == 0.
 *
 * Operations: inserts with intervals from 1 tick past the wheel span, the
 * level boundaries of hierarchical and the 32-bit range up to 2^63 (and
 * into the past); reinserts of pending entries (remove, then insert, as
 * mod_timer does); removes of pending and idle entries; advances by 1, a
 * few, to tw_next(), to the earliest expiry and by large jumps; drains.
 *
 * Budgets (d->budget, tw.h "Budgets"): most advances and drains get a small
 * random budget. The reference does not predict which entries a call that
 * stops collects, only what may be collected: each one pending and due by
 * the target of the pass it belongs to, no more entries looked at than the
 * budget, w->now either unmoved or at a target, and once w->now moves,
 * nothing due by it left behind. A pass that stops is left partway for the
 * operations that follow (inserts, some due by its target, removes, checks,
 * next) about half the time, and otherwise driven to its end; a drain is
 * driven to its end, with removes between its calls, as a CPU going offline
 * sees them.
 */
#include <stdarg.h>
#include "tw_diff.h"

#define TW_DIFF_CEILING	(U64_MAX - (1ULL << 42))

struct tw_diff_item {
	u64 expires;
	u32 idx;
};

struct tw_diff_ttl {
	u64 ttl;
	u32 count;
};

/* The reference and the bookkeeping of one run. */
struct tw_diff_model {
	struct tw_diff *d;
	struct tw_wheel w;
	struct tw_entry *ent;
	/* The pending entries, sorted by (expires, idx). */
	struct tw_diff_item *ref;
	u32 nr;
	bool *pending;
	u64 *expires;
	u64 *ttl;
	/* Lawn: the distinct TTLs pending and how many entries hold each. */
	struct tw_diff_ttl *ttls;
	u32 nr_ttls;
	u8 *seen;
	u64 now;
	/* w->target: the pass in progress goes there; == now when none */
	u64 target;
	u64 opno;
	/* d->stats.inserted when this wheel was initialised */
	u64 inserted_before;
};

u64 tw_diff_rand(struct tw_diff_src *src)
{
	u64 z = 0;
	size_t i;

	if (src->data) {
		for (i = 0; i < 8 && src->pos < src->len; i++)
			z |= (u64)src->data[src->pos++] << (8 * i);
		return z;
	}
	/* splitmix64 */
	z = (src->state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

bool tw_diff_src_done(const struct tw_diff_src *src)
{
	return src->data && src->pos >= src->len;
}

static u64 rnd(struct tw_diff_model *m)
{
	return tw_diff_rand(m->d->src);
}

static u64 rnd_below(struct tw_diff_model *m, u64 n)
{
	return n ? rnd(m) % n : 0;
}

__printf(2, 3)
static int fail(struct tw_diff_model *m, const char *fmt, ...)
{
	struct tw_diff *d = m->d;
	va_list ap;
	int len;

	len = snprintf(d->why, sizeof(d->why), "op %llu, now %llu: ",
		       (unsigned long long)m->opno,
		       (unsigned long long)m->now);
	va_start(ap, fmt);
	vsnprintf(d->why + len, sizeof(d->why) - len, fmt, ap);
	va_end(ap);
	return -1;
}

static int item_cmp(u64 expires, u32 idx, const struct tw_diff_item *it)
{
	if (expires != it->expires)
		return expires < it->expires ? -1 : 1;
	return idx < it->idx ? -1 : idx > it->idx;
}

/* First position whose item is not below (expires, idx). */
static u32 ref_lower_bound(struct tw_diff_model *m, u64 expires, u32 idx)
{
	u32 lo = 0, hi = m->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (item_cmp(expires, idx, &m->ref[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static u32 ttl_lower_bound(struct tw_diff_model *m, u64 ttl)
{
	u32 lo = 0, hi = m->nr_ttls, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->ttls[mid].ttl < ttl)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool ttl_known(struct tw_diff_model *m, u64 ttl)
{
	u32 pos = ttl_lower_bound(m, ttl);

	return pos < m->nr_ttls && m->ttls[pos].ttl == ttl;
}

static void ttl_get(struct tw_diff_model *m, u64 ttl)
{
	u32 pos = ttl_lower_bound(m, ttl);

	if (pos < m->nr_ttls && m->ttls[pos].ttl == ttl) {
		m->ttls[pos].count++;
		return;
	}
	memmove(&m->ttls[pos + 1], &m->ttls[pos],
		(m->nr_ttls - pos) * sizeof(*m->ttls));
	m->ttls[pos].ttl = ttl;
	m->ttls[pos].count = 1;
	m->nr_ttls++;
}

static void ttl_put(struct tw_diff_model *m, u64 ttl)
{
	u32 pos = ttl_lower_bound(m, ttl);

	if (--m->ttls[pos].count)
		return;
	memmove(&m->ttls[pos], &m->ttls[pos + 1],
		(m->nr_ttls - pos - 1) * sizeof(*m->ttls));
	m->nr_ttls--;
}

static void ref_add(struct tw_diff_model *m, u32 idx, u64 expires, u64 ttl)
{
	u32 pos = ref_lower_bound(m, expires, idx);

	memmove(&m->ref[pos + 1], &m->ref[pos],
		(m->nr - pos) * sizeof(*m->ref));
	m->ref[pos].expires = expires;
	m->ref[pos].idx = idx;
	m->nr++;
	m->pending[idx] = true;
	m->expires[idx] = expires;
	m->ttl[idx] = ttl;
	if (ttl)
		ttl_get(m, ttl);
	if (m->nr > m->d->stats.max_pending)
		m->d->stats.max_pending = m->nr;
}

static void ref_del(struct tw_diff_model *m, u32 idx)
{
	u32 pos = ref_lower_bound(m, m->expires[idx], idx);

	memmove(&m->ref[pos], &m->ref[pos + 1],
		(m->nr - pos - 1) * sizeof(*m->ref));
	m->nr--;
	m->pending[idx] = false;
	if (m->ttl[idx])
		ttl_put(m, m->ttl[idx]);
}

/* Mark every entry on @list as seen; they must be idle and due by @now. */
static int collect(struct tw_diff_model *m, struct list_head *list, u64 now,
		   u64 *count)
{
	struct tw_entry *e;
	u64 n = 0;
	u32 idx;

	list_for_each_entry(e, list, list) {
		if (e < m->ent || e >= m->ent + m->d->pool)
			return fail(m, "a foreign entry %p was collected", e);
		idx = e - m->ent;
		if (tw_pending(e) || (e->flags & TW_DUE))
			return fail(m, "entry %u collected but still pending",
				    idx);
		if (!m->pending[idx] || m->seen[idx])
			return fail(m, "entry %u collected but %s", idx,
				    m->seen[idx] ? "twice" : "not pending");
		if (e->expires > now)
			return fail(m, "entry %u collected early: expires %llu",
				    idx, (unsigned long long)e->expires);
		m->seen[idx] = 1;
		if (++n > m->nr)
			return fail(m, "more entries collected than pending");
	}
	*count = n;
	return 0;
}

/*
 * The reference side of a call that collected @list: take each entry out,
 * then require that nothing due by w->now (@now) is left, the pass that
 * got there being done.
 */
static int ref_take(struct tw_diff_model *m, struct list_head *list, u64 now)
{
	struct tw_entry *e;
	u32 idx;

	list_for_each_entry(e, list, list) {
		idx = e - m->ent;
		m->seen[idx] = 0;
		ref_del(m, idx);
		m->d->stats.expired++;
	}
	if (m->nr && m->ref[0].expires <= now)
		return fail(m, "entry %u due at %llu was not collected by %llu",
			    m->ref[0].idx,
			    (unsigned long long)m->ref[0].expires,
			    (unsigned long long)now);
	return 0;
}

static int verify_next(struct tw_diff_model *m)
{
	u64 next = tw_next(&m->w);

	if (m->target != m->now) {
		if (next != m->now + 1)
			return fail(m, "tw_next() %llu during a pass to %llu",
				    (unsigned long long)next,
				    (unsigned long long)m->target);
		return 0;
	}
	if (!m->nr) {
		if (next != TW_NEVER)
			return fail(m, "tw_next() %llu on an empty wheel",
				    (unsigned long long)next);
		return 0;
	}
	if (next <= m->now || next > m->ref[0].expires)
		return fail(m, "tw_next() %llu is no bound: earliest %llu",
			    (unsigned long long)next,
			    (unsigned long long)m->ref[0].expires);
	return 0;
}

static int verify_state(struct tw_diff_model *m)
{
	if (m->w.now != m->now || m->w.target != m->target)
		return fail(m, "w->now is %llu, w->target %llu",
			    (unsigned long long)m->w.now,
			    (unsigned long long)m->w.target);
	if (m->w.nr_pending != m->nr)
		return fail(m, "nr_pending %llu, reference %u",
			    (unsigned long long)m->w.nr_pending, m->nr);
	return 0;
}

static int do_check(struct tw_diff_model *m)
{
	int ret = tw_check(&m->w);

	m->d->stats.checks++;
	if (ret)
		return fail(m, "tw_check() returned %d", ret);
	return verify_next(m);
}

/* A budget for one call: unbounded, or 1..d->budget. */
static u64 pick_budget(struct tw_diff_model *m)
{
	if (!m->d->budget || !rnd_below(m, 4))
		return TW_UNBOUNDED;
	return 1 + rnd_below(m, m->d->budget);
}

/*
 * One call of tw_advance(w, @to, budget), checked: what it collected, the
 * work it did against its budget, and where it left w->now and w->target.
 */
static int advance_once(struct tw_diff_model *m, u64 to, u64 budget)
{
	u64 examined = m->w.stats.examined, n, got, limit;
	u64 now = m->now, target = m->target;
	LIST_HEAD(expired);
	int ret;

	n = tw_advance(&m->w, to, &expired, budget);
	/* What this call may collect: by its target, or the one before. */
	limit = max(to, target);
	ret = collect(m, &expired, limit, &got);
	if (ret)
		return ret;
	if (got != n)
		return fail(m, "tw_advance() returned %llu for %llu entries",
			    (unsigned long long)n, (unsigned long long)got);
	if (budget != TW_UNBOUNDED &&
	    (n > budget || m->w.stats.examined - examined > budget))
		return fail(m, "budget %llu: %llu collected, %llu looked at",
			    (unsigned long long)budget, (unsigned long long)n,
			    (unsigned long long)(m->w.stats.examined -
						 examined));
	/* w->now stays, or is at the target of a pass that is done. */
	if (m->w.now != now && m->w.now != target && m->w.now != to)
		return fail(m, "w->now %llu: neither %llu, %llu nor %llu",
			    (unsigned long long)m->w.now,
			    (unsigned long long)now,
			    (unsigned long long)target,
			    (unsigned long long)to);
	if (budget == TW_UNBOUNDED && to > now && m->w.now != max(to, target))
		return fail(m, "an unbounded advance to %llu stopped at %llu",
			    (unsigned long long)to,
			    (unsigned long long)m->w.now);
	if (m->w.target != m->w.now && m->w.target != target &&
	    m->w.target != max(to, target))
		return fail(m, "w->target %llu after a call to %llu",
			    (unsigned long long)m->w.target,
			    (unsigned long long)to);
	m->now = m->w.now;
	m->target = m->w.target;
	if (m->target != m->now)
		m->d->stats.stopped++;
	ret = ref_take(m, &expired, m->now);
	if (ret)
		return ret;
	return verify_state(m);
}

/* Drive the pass in progress to its end, a random budget a call. */
static int finish_pass(struct tw_diff_model *m)
{
	u64 calls = 0;
	int ret;

	while (m->target != m->now) {
		if (++calls > 100000000ULL)
			return fail(m, "the pass to %llu never ends",
				    (unsigned long long)m->target);
		ret = advance_once(m, m->target, pick_budget(m));
		if (ret)
			return ret;
	}
	return 0;
}

static int do_advance(struct tw_diff_model *m, u64 to)
{
	int ret;

	if (to > TW_DIFF_CEILING)
		to = TW_DIFF_CEILING;
	if (to <= m->now && m->target == m->now) {
		LIST_HEAD(expired);

		if (tw_advance(&m->w, to, &expired, pick_budget(m)) ||
		    !list_empty(&expired))
			return fail(m, "an advance back to %llu collected",
				    (unsigned long long)to);
		return verify_state(m);
	}
	m->d->stats.advances++;
	ret = advance_once(m, to, pick_budget(m));
	/* Half the passes that stop are left partway for what follows. */
	if (!ret && m->target != m->now && rnd_below(m, 2))
		ret = finish_pass(m);
	return ret ? ret : verify_next(m);
}

/*
 * Drain a budget at a time, removing a few pending entries between calls
 * (callout_arm() taking a callout off a CPU that went down); then the
 * wheel is empty and back at the tick the drain started from.
 */
static int do_drain(struct tw_diff_model *m)
{
	u64 back = m->target, calls = 0, budget, examined, got;
	LIST_HEAD(out);
	bool done;
	int ret;
	u32 idx;

	m->d->stats.drains++;
	do {
		if (++calls > 100000000ULL)
			return fail(m, "the drain never ends");
		budget = pick_budget(m);
		examined = m->w.stats.examined;
		done = tw_drain(&m->w, &out, budget);
		if (m->w.stats.examined != examined)
			return fail(m, "a drain counted in the stats");
		ret = collect(m, &out, TW_NEVER, &got);
		if (ret)
			return ret;
		if (budget != TW_UNBOUNDED && got > budget)
			return fail(m, "a drain of budget %llu took %llu",
				    (unsigned long long)budget,
				    (unsigned long long)got);
		if (budget == TW_UNBOUNDED && !done)
			return fail(m, "an unbounded drain stopped");
		ret = ref_take(m, &out, 0);
		if (ret)
			return ret;
		INIT_LIST_HEAD(&out);
		if (!done)
			m->d->stats.stopped++;
		if (!done && m->nr && !rnd_below(m, 4)) {
			idx = m->ref[rnd_below(m, m->nr)].idx;
			if (!tw_remove(&m->w, &m->ent[idx]))
				return fail(m, "remove of %u while draining",
					    idx);
			ref_del(m, idx);
			m->d->stats.removed++;
		}
	} while (!done);
	if (m->nr)
		return fail(m, "%u entries left after a drain", m->nr);
	m->now = back;
	m->target = back;
	ret = verify_state(m);
	return ret ? ret : do_check(m);
}

/* An interval for the next insert, spread over every scale that matters. */
static u64 pick_expires(struct tw_diff_model *m)
{
	const struct tw_geometry *g = &m->d->geo;
	u64 now = m->now, iv, span, base;
	u32 k, shift;

	/*
	 * Amid a pass, half the inserts go just past its target, where a
	 * scheme may file them in a place the pass has passed already.
	 */
	if (m->target != now && rnd_below(m, 2)) {
		k = rnd_below(m, min(2 * max(g->level_bits, g->wheel_bits) + 2,
				     40U));
		iv = rnd_below(m, 1ULL << k);
		return min(m->target + 1 + iv, U64_MAX - 1);
	}
	switch (rnd_below(m, 16)) {
	case 0: case 1: case 2:
		iv = 1 + rnd_below(m, 16);
		break;
	case 3: case 4:
		iv = 1 + rnd_below(m, 2ULL << min(g->wheel_bits, 40U));
		break;
	case 5:
		iv = (1ULL << min(g->wheel_bits, 40U)) + rnd_below(m, 5) - 2;
		break;
	case 6: case 7:
		/* Around a boundary of hierarchical level k, absolute. */
		k = 1 + rnd_below(m, max(g->levels, 1U));
		shift = min(k * g->level_bits, 62U);
		base = ((now >> shift) + 1 + rnd_below(m, 3)) << shift;
		if (base <= now + 2)	/* wrapped: the top of the range */
			return U64_MAX - 1 - rnd_below(m, 3);
		return min(base + rnd_below(m, 5) - 2, U64_MAX - 1);
	case 8: case 9:
		iv = 1 + rnd_below(m, 1ULL << 33);
		break;
	case 10:
		iv = (1ULL << 32) + rnd_below(m, 5) - 2;
		break;
	case 11:
		iv = 1 + rnd_below(m, 1ULL << 48);
		break;
	case 12:
		iv = (1ULL << 40) + rnd_below(m, 1ULL << 63);
		break;
	case 13:
		/* At or before now: due at now + 1. */
		return now - min(now, rnd_below(m, 100));
	case 14: {
		/* The expiry of another entry, to make ties. */
		u32 j = rnd_below(m, m->d->pool);

		if (m->pending[j])
			return m->expires[j];
		iv = 1 + rnd_below(m, 64);
		break;
	}
	default:
		iv = 1 + rnd_below(m, 300);
		break;
	}
	span = U64_MAX - 1 - now;
	return iv > span ? U64_MAX - 1 : now + iv;
}

static int do_insert(struct tw_diff_model *m)
{
	const struct tw_geometry *g = &m->d->geo;
	u32 idx = rnd_below(m, m->d->pool);
	u64 max = tw_max_interval(m->d->ops, g), expires, eff, iv;
	int want = 0, ret;
	bool due;

	if (m->pending[idx]) {
		/* mod_timer(): off, then on again. */
		if (!tw_remove(&m->w, &m->ent[idx]))
			return fail(m, "remove of pending entry %u failed", idx);
		ref_del(m, idx);
		m->d->stats.removed++;
	}
	expires = pick_expires(m);
	eff = expires > m->now ? expires : m->now + 1;
	iv = eff - m->now;
	/*
	 * A scheme refuses what is beyond its longest interval (simple's
	 * MaxInterval): fold three in four of those into its range, so that
	 * its wheel fills up too.
	 */
	if (iv > max && rnd_below(m, 4)) {
		iv = 1 + (iv - 1) % max;
		expires = eff = m->now + iv;
	}
	/* Due by the target of a pass partway: w->due takes it, always. */
	due = eff <= m->target;
	if (iv > max && !due)
		want = -ERANGE;
	if (m->d->ops->id == TW_LAWN && !due && !ttl_known(m, iv) &&
	    m->nr_ttls >= g->lawn_ttls)
		want = -ENOSPC;
	ret = tw_insert(&m->w, &m->ent[idx], expires);
	if (ret != want)
		return fail(m, "insert of entry %u at %llu (interval %llu) returned %d, expected %d",
			    idx, (unsigned long long)expires,
			    (unsigned long long)iv, ret, want);
	if (ret) {
		m->d->stats.refused++;
		if (tw_pending(&m->ent[idx]))
			return fail(m, "refused entry %u is pending", idx);
		return verify_state(m);
	}
	if (!tw_pending(&m->ent[idx]) || m->ent[idx].expires != eff)
		return fail(m, "inserted entry %u: pending %d, expires %llu, expected %llu",
			    idx, tw_pending(&m->ent[idx]),
			    (unsigned long long)m->ent[idx].expires,
			    (unsigned long long)eff);
	if (due != !!(m->ent[idx].flags & TW_DUE))
		return fail(m, "entry %u at %llu: on w->due %d, pass to %llu",
			    idx, (unsigned long long)eff,
			    !!(m->ent[idx].flags & TW_DUE),
			    (unsigned long long)m->target);
	/* An entry on w->due holds no lawn queue: no TTL. */
	ref_add(m, idx, eff, due ? 0 : iv);
	m->d->stats.inserted++;
	return verify_state(m);
}

static int do_remove(struct tw_diff_model *m)
{
	u32 idx = rnd_below(m, m->d->pool);
	bool was = m->pending[idx];

	if (tw_remove(&m->w, &m->ent[idx]) != was)
		return fail(m, "remove of %s entry %u returned %d", was ?
			    "pending" : "idle", idx, !was);
	if (tw_pending(&m->ent[idx]))
		return fail(m, "removed entry %u is still pending", idx);
	if (was) {
		ref_del(m, idx);
		m->d->stats.removed++;
	} else {
		m->d->stats.idle_removes++;
	}
	return verify_state(m);
}

/* A far jump: over levels, the 32-bit range, or most of the 64-bit one. */
static int do_far_jump(struct tw_diff_model *m)
{
	const struct tw_geometry *g = &m->d->geo;
	u64 now = m->now;
	u32 k;

	switch (rnd_below(m, 4)) {
	case 0:
		k = min(2 * g->level_bits, 40U);
		return do_advance(m, now + 1 + rnd_below(m, 1ULL << k));
	case 1:
		return do_advance(m, now + 1 + rnd_below(m, 1ULL << 36));
	case 2:
		k = rnd_below(m, 41);
		return do_advance(m, now + (1ULL << k) + rnd_below(m, 3));
	default:
		/* Rarely, most of the 64-bit range. */
		if (rnd_below(m, 16))
			return do_advance(m, now + 1 + rnd_below(m, 1 << 20));
		return do_advance(m, now + 1 + rnd_below(m, 1ULL << 50));
	}
}

/*
 * An advance by more than a tick. Calm phases of 8192 operations stay near
 * the earliest expiry, so entries pile up towards the pool size; stormy
 * ones also jump far and empty most of the wheel.
 */
static int do_jump(struct tw_diff_model *m)
{
	const struct tw_geometry *g = &m->d->geo;
	bool calm = !((m->opno >> 13) & 1);
	u64 next, now = m->now;

	switch (rnd_below(m, 10)) {
	case 0:
		next = tw_next(&m->w);
		return do_advance(m, next == TW_NEVER ? now + 1 : next);
	case 1:
		next = tw_next(&m->w);
		return do_advance(m, next == TW_NEVER ? now + 2 : next - 1);
	case 2:
		return do_advance(m, m->nr ? m->ref[0].expires : now + 1);
	case 3:
		return do_advance(m, m->nr ? m->ref[0].expires - 1 : now + 1);
	case 4:
		if (calm)
			break;
		return do_advance(m, now + 1 +
				  rnd_below(m, 4ULL << min(g->wheel_bits, 40U)));
	case 5: case 6: case 7: case 8:
		if (calm)
			break;
		return do_far_jump(m);
	default:
		break;
	}
	return do_advance(m, now + 2 + rnd_below(m, 300));
}
static int step(struct tw_diff_model *m)
{
	u64 r = rnd_below(m, 1000);

	if (m->target != m->now)
		m->d->stats.interleaved++;

	if (r < 450)
		return do_insert(m);
	if (r < 600)
		return do_remove(m);
	if (r < 880)
		return do_advance(m, m->now + 1);
	if (r < 985 && m->d->dense)
		return do_advance(m, m->now + 1 + rnd_below(m, 3));
	if (r < 985)
		return do_jump(m);
	if (r < 999 || rnd_below(m, 16))
		return do_check(m);
	return do_drain(m);
}

/*
 * Near the ceiling nothing can be advanced any more: drain, and start again
 * lower with a fresh wheel (w->now only moves forwards).
 */
static int restart(struct tw_diff_model *m)
{
	int ret = do_drain(m);

	if (ret)
		return ret;
	tw_destroy(&m->w);
	m->now = rnd_below(m, 1ULL << 40);
	m->target = m->now;
	m->d->stats.restarts++;
	m->inserted_before = m->d->stats.inserted;
	ret = tw_init(&m->w, m->d->ops, &m->d->geo, m->now);
	if (ret)
		return fail(m, "tw_init() of a fresh wheel returned %d", ret);
	return 0;
}

static void model_free(struct tw_diff_model *m)
{
	free(m->ent);
	free(m->ref);
	free(m->pending);
	free(m->expires);
	free(m->ttl);
	free(m->ttls);
	free(m->seen);
}

int tw_diff_run(struct tw_diff *d)
{
	struct tw_diff_model m = { .d = d, .now = d->start,
				   .target = d->start };
	int ret;
	u32 i;

	memset(&d->stats, 0, sizeof(d->stats));
	d->why[0] = 0;
	m.ent = calloc(d->pool, sizeof(*m.ent));
	m.ref = calloc(d->pool, sizeof(*m.ref));
	m.pending = calloc(d->pool, sizeof(*m.pending));
	m.expires = calloc(d->pool, sizeof(*m.expires));
	m.ttl = calloc(d->pool, sizeof(*m.ttl));
	m.ttls = calloc(d->pool, sizeof(*m.ttls));
	m.seen = calloc(d->pool, sizeof(*m.seen));
	if (!m.ent || !m.ref || !m.pending || !m.expires || !m.ttl ||
	    !m.ttls || !m.seen) {
		model_free(&m);
		snprintf(d->why, sizeof(d->why), "out of memory");
		return -1;
	}
	for (i = 0; i < d->pool; i++)
		tw_entry_init(&m.ent[i]);
	ret = tw_init(&m.w, d->ops, &d->geo, d->start);
	if (ret) {
		model_free(&m);
		snprintf(d->why, sizeof(d->why), "tw_init() returned %d", ret);
		return -1;
	}
	ret = do_check(&m);
	for (m.opno = 1; !ret && m.opno <= d->nr_ops; m.opno++) {
		if (tw_diff_src_done(d->src))
			break;
		ret = step(&m);
		d->stats.ops++;
		if (!ret && m.now >= TW_DIFF_CEILING - (1ULL << 44))
			ret = restart(&m);
		if (!ret && !(m.opno & 4095))
			ret = do_check(&m);
	}
	/* Whatever is left must drain, and the wheel must then be empty. */
	if (!ret)
		ret = do_drain(&m);
	if (!ret && m.w.stats.inserted != d->stats.inserted - m.inserted_before)
		ret = fail(&m, "stats.inserted %llu, %llu accepted",
			   (unsigned long long)m.w.stats.inserted,
			   (unsigned long long)(d->stats.inserted -
						m.inserted_before));
	if (!ret)
		tw_destroy(&m.w);
	/* On a failure the wheel may be corrupt: leak it rather than walk it. */
	model_free(&m);
	return ret;
}
