// SPDX-License-Identifier: GPL-2.0
/*
 * tw_lawn.c - Timer Lawn: a hash of TTL -> FIFO queue.
 *
 * Lev-Libfeld, "Timer Lawn" (section III): timers are bucketed by their
 * time to live, TTL = expires - now at START_TIMER, not by their expiry.
 * Two timers with the same TTL expire in the order they were started, so
 * each bucket is a plain FIFO queue, sorted for free: an insert is a hash
 * lookup and a list_add_tail(). PER_TICK "mows the lawn": it looks at the
 * head of every queue and pops what is due. Like the paper's "closest
 * expiration", the earliest head is cached, so a tick before it costs one
 * compare.
 *
 * Cost, with n outstanding entries in t distinct TTLs (t queues in use):
 *
 *   START_TIMER   O(1)   hash_64(TTL) into a table of at least lawn_ttls
 *                        buckets, a short chain walk, list_add_tail()
 *   STOP_TIMER    O(1)   list_del(); an emptied queue goes back to the pool
 *   PER_TICK      O(1) while the cached earliest head is not due,
 *                 O(t) + one per expiring entry when it is
 *   next()        O(1), O(t) after the earliest head was stopped
 *
 * The paper's assumption is t << n: TTLs come from a few protocol
 * constants. With many distinct TTLs the tick degrades towards Scheme 1's
 * O(n), which is the scheme's documented weakness, not a bug.
 *
 * No allocation per entry: init preallocates geo.lawn_ttls queues and a
 * hash table; a TTL that needs a new queue when all are in use is refused
 * with -ENOSPC, and a queue returns to the pool when it empties. The queues
 * in use are the first nr_active of the permutation slots[], so the tick
 * looks at queue heads only and a queue is taken or returned in O(1).
 * Because a queue lives only while it holds entries and every entry in it
 * has the same TTL, an empty lawn has no state and is valid at any w->now.
 */
#define pr_fmt(fmt) "callout: " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include "tw.h"

#define TW_LAWN_MAX_TTLS	BIT(20)

/**
 * struct tw_lawn_queue - the entries of one TTL, earliest first
 * @node:	link in the TTL hash while the queue is in use
 * @entries:	the entries, in insertion (and so expiry) order
 * @ttl:	the TTL all of them were started with
 * @len:	the number of entries
 * @pos:	the queue's index in &struct tw_lawn.slots
 */
struct tw_lawn_queue {
	struct hlist_node node;
	struct list_head entries;
	u64 ttl;
	u64 len;
	u32 pos;
};

/**
 * struct tw_lawn - the state of the Lawn scheme
 * @queues:	geo.lawn_ttls queues, allocated once
 * @slots:	a permutation of the queue indices: in use, then free
 * @nr_active:	queues in use, slots[0..nr_active)
 * @hash:	TTL -> queue in use, 1 << @hash_bits buckets
 * @hash_bits:	log2 of the buckets, at least log2(geo.lawn_ttls)
 * @first:	the earliest expiry of a queue head, unless @first_stale
 * @first_stale: @first must be recomputed from the queue heads
 * @passing:	a pass that ran out of budget is in progress (tw.h)
 * @cursor:	the queues slots[0..@cursor) are still to mow in that pass
 */
struct tw_lawn {
	struct tw_lawn_queue *queues;
	u32 *slots;
	u32 nr_active;
	struct hlist_head *hash;
	u32 hash_bits;
	u64 first;
	bool first_stale;
	bool passing;
	u32 cursor;
};

static struct tw_lawn *tw_lawn_of(struct tw_wheel *w)
{
	return w->priv;
}

static struct tw_entry *tw_lawn_head(struct tw_lawn_queue *q)
{
	return list_first_entry(&q->entries, struct tw_entry, list);
}

static void tw_lawn_free(struct tw_lawn *l)
{
	kvfree(l->hash);
	kvfree(l->slots);
	kvfree(l->queues);
	kfree(l);
}

static int tw_lawn_init(struct tw_wheel *w)
{
	u32 i, nr = w->geo.lawn_ttls;
	struct tw_lawn *l;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	/* hash_64() needs at least one bit. */
	l->hash_bits = nr > 1 ? ilog2(roundup_pow_of_two(nr)) : 1;
	l->queues = kvcalloc(nr, sizeof(*l->queues), GFP_KERNEL);
	l->slots = kvcalloc(nr, sizeof(*l->slots), GFP_KERNEL);
	l->hash = kvcalloc(1U << l->hash_bits, sizeof(*l->hash), GFP_KERNEL);
	if (!l->queues || !l->slots || !l->hash) {
		tw_lawn_free(l);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		INIT_HLIST_NODE(&l->queues[i].node);
		INIT_LIST_HEAD(&l->queues[i].entries);
		l->queues[i].pos = i;
		l->slots[i] = i;
	}
	for (i = 0; i < 1U << l->hash_bits; i++)
		INIT_HLIST_HEAD(&l->hash[i]);
	l->first = TW_NEVER;
	w->priv = l;
	return 0;
}

static void tw_lawn_destroy(struct tw_wheel *w)
{
	tw_lawn_free(tw_lawn_of(w));
}

/* The queue of @ttl, or NULL; @steps counts the chain walked. */
static struct tw_lawn_queue *tw_lawn_find(struct tw_lawn *l, u64 ttl,
					  u64 *steps)
{
	struct tw_lawn_queue *q;

	hlist_for_each_entry(q, &l->hash[hash_64(ttl, l->hash_bits)], node) {
		(*steps)++;
		if (q->ttl == ttl)
			return q;
	}
	return NULL;
}

/* Take a queue from the pool for @ttl; NULL when none is left. */
static struct tw_lawn_queue *tw_lawn_take(struct tw_wheel *w, u64 ttl)
{
	struct tw_lawn *l = tw_lawn_of(w);
	struct tw_lawn_queue *q;

	if (l->nr_active == w->geo.lawn_ttls)
		return NULL;
	q = &l->queues[l->slots[l->nr_active++]];
	q->ttl = ttl;
	hlist_add_head(&q->node, &l->hash[hash_64(ttl, l->hash_bits)]);
	return q;
}

/* Return the empty @q to the pool: swap it with the last queue in use. */
static void tw_lawn_release(struct tw_lawn *l, struct tw_lawn_queue *q)
{
	struct tw_lawn_queue *last = &l->queues[l->slots[--l->nr_active]];
	u32 idx = l->slots[q->pos];

	hlist_del_init(&q->node);
	l->slots[q->pos] = l->slots[l->nr_active];
	last->pos = q->pos;
	l->slots[l->nr_active] = idx;
	q->pos = l->nr_active;
}

static int tw_lawn_insert(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_lawn *l = tw_lawn_of(w);
	u64 ttl = e->expires - w->now, steps = 0;
	struct tw_lawn_queue *q;

	q = tw_lawn_find(l, ttl, &steps);
	w->stats.insert_steps += steps;
	tw_note_chain(w, steps);
	if (!q) {
		q = tw_lawn_take(w, ttl);
		if (!q)
			return -ENOSPC;
	}
	list_add_tail(&e->list, &q->entries);
	q->len++;
	e->idx = q - l->queues;
	if (e->expires < l->first)
		l->first = e->expires;
	return 0;
}

static void tw_lawn_remove(struct tw_wheel *w, struct tw_entry *e)
{
	struct tw_lawn *l = tw_lawn_of(w);
	struct tw_lawn_queue *q = &l->queues[e->idx];

	list_del_init(&e->list);
	if (!--q->len)
		tw_lawn_release(l, q);
	if (e->expires == l->first)
		l->first_stale = true;
}

/* The earliest head over the queues in use. */
static u64 tw_lawn_first(struct tw_lawn *l)
{
	u64 first = TW_NEVER, expires;
	u32 i;

	for (i = 0; i < l->nr_active; i++) {
		expires = tw_lawn_head(&l->queues[l->slots[i]])->expires;
		if (expires < first)
			first = expires;
	}
	return first;
}

/*
 * Mow the lawn: pop the due heads of every queue, one unit of *@budget per
 * head looked at. A pass that runs out of budget keeps its place, @cursor:
 * a queue taken meanwhile lands at or above it (its entries are not due in
 * this pass), and a queue released meanwhile may move one already mown
 * below it, to be looked at once more. Such a pass leaves @first stale.
 */
static bool tw_lawn_advance(struct tw_wheel *w, u64 now,
			    struct list_head *expired, u64 *budget)
{
	struct tw_lawn *l = tw_lawn_of(w);
	u64 first = TW_NEVER, seen = 0;
	struct tw_lawn_queue *q;
	struct tw_entry *e;
	bool done = true;
	u32 i;

	if (!l->passing) {
		if (!l->first_stale && now < l->first)
			return true;
		l->cursor = l->nr_active;
	}
	/* Downwards, so that releasing slots[i] only moves a visited queue. */
	for (i = min(l->cursor, l->nr_active); i-- > 0;) {
		q = &l->queues[l->slots[i]];
		while (q->len) {
			if (!*budget) {
				done = false;
				break;
			}
			(*budget)--;
			e = tw_lawn_head(q);
			seen++;
			if (e->expires > now) {
				if (e->expires < first)
					first = e->expires;
				break;
			}
			list_move_tail(&e->list, expired);
			q->len--;
		}
		if (!q->len)
			tw_lawn_release(l, q);
		if (!done) {
			l->cursor = i + 1;
			break;
		}
	}
	w->stats.examined += seen;
	if (!done) {
		l->passing = true;
		l->first_stale = true;
		return false;
	}
	if (!l->passing) {
		l->first = first;
		l->first_stale = false;
	}
	l->passing = false;
	return true;
}

static u64 tw_lawn_next(struct tw_wheel *w)
{
	struct tw_lawn *l = tw_lawn_of(w);

	if (l->first_stale) {
		l->first = tw_lawn_first(l);
		l->first_stale = false;
	}
	return l->first;
}

static int tw_lawn_check_queue(struct tw_wheel *w, struct tw_lawn_queue *q,
			       u64 *n)
{
	struct tw_lawn *l = tw_lawn_of(w);
	u64 len = 0, last = 0, steps = 0;
	struct tw_entry *e;

	if (tw_lawn_find(l, q->ttl, &steps) != q || list_empty(&q->entries)) {
		pr_err("lawn: queue of TTL %llu: not hashed, or empty\n",
		       (unsigned long long)q->ttl);
		return -EUCLEAN;
	}
	list_for_each_entry(e, &q->entries, list) {
		/*
		 * FIFO is expiry order, and each entry was started at
		 * expires - ttl, which cannot be in the future.
		 */
		if (!tw_pending(e) || e->idx != (u32)(q - l->queues) ||
		    e->expires <= w->now || e->expires < last ||
		    e->expires < q->ttl || e->expires - q->ttl > w->now) {
			pr_err("lawn: queue of TTL %llu, entry %llu: flags %#x, idx %u, expires %llu after %llu at now %llu\n",
			       (unsigned long long)q->ttl,
			       (unsigned long long)len, e->flags, e->idx,
			       (unsigned long long)e->expires,
			       (unsigned long long)last,
			       (unsigned long long)w->now);
			return -EUCLEAN;
		}
		last = e->expires;
		len++;
	}
	*n += len;
	if (len != q->len) {
		pr_err("lawn: queue of TTL %llu holds %llu entries, counts %llu\n",
		       (unsigned long long)q->ttl, (unsigned long long)len,
		       (unsigned long long)q->len);
		return -EUCLEAN;
	}
	return 0;
}

static int tw_lawn_check(struct tw_wheel *w)
{
	struct tw_lawn *l = tw_lawn_of(w);
	struct tw_lawn_queue *q;
	u64 n = 0;
	u32 i;

	if (l->nr_active > w->geo.lawn_ttls) {
		pr_err("lawn: %u queues in use of %u\n", l->nr_active,
		       w->geo.lawn_ttls);
		return -EUCLEAN;
	}
	for (i = 0; i < w->geo.lawn_ttls; i++) {
		if (l->slots[i] >= w->geo.lawn_ttls ||
		    l->queues[l->slots[i]].pos != i) {
			pr_err("lawn: slot %u: not a permutation\n", i);
			return -EUCLEAN;
		}
		q = &l->queues[l->slots[i]];
		if (i < l->nr_active) {
			if (tw_lawn_check_queue(w, q, &n))
				return -EUCLEAN;
		} else if (q->len || !list_empty(&q->entries) ||
			   !hlist_unhashed(&q->node)) {
			pr_err("lawn: free queue %u is in use\n", l->slots[i]);
			return -EUCLEAN;
		}
	}
	if (!l->first_stale && l->first != tw_lawn_first(l)) {
		pr_err("lawn: cached first %llu, heads say %llu\n",
		       (unsigned long long)l->first,
		       (unsigned long long)tw_lawn_first(l));
		return -EUCLEAN;
	}
	if (n != tw_nr_linked(w)) {
		pr_err("lawn: %llu entries, %llu linked\n",
		       (unsigned long long)n,
		       (unsigned long long)tw_nr_linked(w));
		return -EUCLEAN;
	}
	return 0;
}

static u32 tw_lawn_nr_slots(struct tw_wheel *w)
{
	return w->geo.lawn_ttls;
}

static u64 tw_lawn_slot_len(struct tw_wheel *w, u32 slot)
{
	return slot < w->geo.lawn_ttls ? tw_lawn_of(w)->queues[slot].len : 0;
}

const struct tw_ops tw_lawn_ops = {
	.name		= "lawn",
	.id		= TW_LAWN,
	.may_be_full	= true,
	.geometry	= {
		.min = { .lawn_ttls = 1 },
		.max = { .lawn_ttls = TW_LAWN_MAX_TTLS },
		.def = { .lawn_ttls = 4096 },
	},
	.init		= tw_lawn_init,
	.destroy	= tw_lawn_destroy,
	.insert		= tw_lawn_insert,
	.remove		= tw_lawn_remove,
	.advance	= tw_lawn_advance,
	.next		= tw_lawn_next,
	.check		= tw_lawn_check,
	.nr_slots	= tw_lawn_nr_slots,
	.slot_len	= tw_lawn_slot_len,
};
