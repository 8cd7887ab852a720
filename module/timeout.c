// SPDX-License-Identifier: GPL-2.0
/*
 * timeout.c - the old interface, timeout() and untimeout(): callouts found
 * by their owner, func and arg through a hash instead of a handle.
 *
 * One implementation for every owner. An owner (struct callout_owner) is
 * whoever arms timeouts and cancels them by key: the kernel's callers share
 * one, callout_kernel_owner; each /dev/callout file has one of its own
 * (see "Owners" below). A timeout is a struct callout_to: a callout, its
 * entry in the func/arg hash, a state word and a link on its owner's lists.
 *
 * The index. A table of hlist_nulls buckets keyed by (owner, func, arg),
 * jhash2 with a seed drawn at load, fixed in size at load: one bucket per
 * 8 pages of memory, 2^10 to 2^18 buckets (8 KiB to 2 MiB), so the mean
 * chain is the pending timeouts over that. It was an rhltable, which grows
 * with its entries; its insert, lookup and remove cost 2-5 times this
 * table's under TCG (the notes of issue 17 give the figures), more than a
 * whole callout_set() + callout_unset(). One key may have several
 * callouts (4.4BSD's untimeout() cancelled the first it met, so does this
 * one), at most CALLOUT_HASH_MAX_DUPS, counted under the bucket's lock by
 * the insert. Lookups run under RCU; inserts and removals take the
 * bucket's lock, one of a small array shared by the buckets
 * (alloc_bucket_spinlocks()), with bottom halves off. An untimeout() keeps
 * them off from its lookup to its put, as rcu_read_lock_bh(), and a
 * timeout() from its take off the free list to its insert: one section
 * each, where there were four.
 *
 * The free list. Costello & Varghese put the hash line of their Fig. 9 just
 * above the handle line because 4.4BSD's timeout() took its callout from a
 * preallocated free list (callfree) and untimeout() put it back: no
 * allocator on the way. So here: each owner keeps the callouts it has done
 * with on a free list, up to @max_free of them (CALLOUT_KERNEL_MAX_FREE for
 * the kernel's owner), and a timeout() takes one from there before it asks
 * the slab. A warm owner's timeout()+untimeout() allocates and frees
 * nothing; beyond the bound a callout goes back to the slab, so an owner
 * that once had many pending keeps no more than @max_free idle ones. What
 * a free list holds stays charged to its owner: the kernel owner's cache
 * is its own, a file's is SLAB_ACCOUNT and allocated with its gfp
 * (GFP_KERNEL_ACCOUNT), so a process's idle callouts count in its memory
 * cgroup as its pending ones do. The kernel's owner, which every CPU's
 * callers share, has a front of TO_PCPU_MAX_FREE more per CPU, taken with
 * bottom halves off under a local lock of that CPU's own (lockdep's notice
 * alone but on PREEMPT_RT), as the slab's own per-CPU free lists:
 * one owner lock for all of them would be the one lock every CPU's
 * timeouts meet, and it cost a quarter of a pair (the notes of issue 17).
 *
 * Reuse without a grace period. A lookup under RCU may hold a pointer to a
 * callout that, meanwhile, fired or was cancelled, went back to the free
 * list and was armed again for another key. Freeing after a grace period
 * (call_rcu(), as this file did) costs an RCU callback an operation and
 * defeats the free list. Instead the caches are SLAB_TYPESAFE_BY_RCU: in an
 * RCU read side (untimeout()'s is rcu_read_lock_bh(), bottom halves off,
 * which since the flavours were merged a grace period waits for too) a
 * pointer found in the hash always points to a struct
 * callout_to (of that cache, maybe of another arming), never to freed
 * memory, and every user revalidates what it found:
 *
 * - @state holds a generation, bumped at each arming, and the arming's
 *   state. untimeout() reads @state (acquire), then the key; if the key is
 *   its own and the state TO_ARMED it claims that arming with a cmpxchg of
 *   the exact word it read. The key is written before the arming's state is
 *   published (TO_ARMING, then a cmpxchg to TO_ARMED: full barriers), and
 *   rewritten only by the next arming, which bumps the generation: so a
 *   cmpxchg that succeeds proves the key read belonged to the arming it
 *   claims. An untimeout() therefore never cancels another key's callout,
 *   nor a later arming of its own key that it did not see.
 * - The expiry and untimeout() race for one arming through the same word:
 *   the expiry's func, to_expire(), claims TO_ARMING/TO_ARMED with a
 *   cmpxchg too. Exactly one wins, so a func runs or is cancelled, never
 *   both, never twice. An untimeout() that wins but finds the expiry
 *   already started (callout_unset() returns 0) cannot wait (it may be
 *   called from softirq): the two hand the callout over through the same
 *   word (TO_CLAIMED -> TO_ORPHAN or TO_SEEN) and whichever of them comes
 *   second puts it back on the free list, so no one touches a callout that
 *   has been reused.
 * - A walk along a bucket's chain follows ->next pointers of callouts that
 *   may be reused under it and linked into another chain. Every chain
 *   ends in a nulls marker holding its bucket's number: a walk that ends
 *   on another bucket's marker starts again from its own bucket, so a
 *   callout pending throughout an untimeout() is not missed
 *   (Documentation/RCU/rculist_nulls.rst).
 * - A slab object keeps its state word across kmem_cache_free() and
 *   kmem_cache_alloc() (set once by the cache's constructor), so a
 *   generation never goes back to a value a stale reader may hold.
 *
 * A callout goes back to its owner (callout_to_put()) only when nothing
 * can touch it any more: out of the hash, not pending, and either its
 * expiry finished or known never to run for this arming. Its struct callout
 * is not initialised again on reuse: it may still be its base's running
 * callout while the func that put it back returns, which the core allows
 * (a callout may be set from its own func).
 *
 * Owners. An owner gives a cache of objects that start with a struct
 * callout_to (callout_to_cache_create()), a gfp for cold allocations, a
 * bound for its free list and an expire op, called in softirq context with
 * the callout claimed and out of the hash: it owns the callout then, until
 * it calls callout_to_put(). The kernel's op runs func(arg); a file's
 * (dev.c) queues an event, and its reader puts the callout back. An
 * owner's list of all its callouts lets callout_owner_drain() cancel what
 * it left at exit (close(), unload), looking at each once; the free list
 * is a stack of the idle ones, so taking and putting one is a pop and a
 * push.
 *
 * Locking (the whole order is at the top of core.c): the owner's lock
 * protects its lists, a bucket's lock the bucket's chain; both are taken
 * with bottom halves off (timeouts are armed and cancelled in process or
 * softirq context, and expire in softirq), never one inside the other,
 * and with no lock of callout.ko held but a tick's expiry_lock.
 * callout_set() and callout_unset() take a base lock with neither held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/rculist_nulls.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "internal.h"

/*
 * Callouts of one key share its bucket with others; a cap keeps the walk
 * of a bucket, the insert's and untimeout()'s, O(1) whatever one key has.
 */
#define CALLOUT_HASH_MAX_DUPS	64

/*
 * The index of callout_to: a table of hlist_nulls buckets, fixed at load.
 * Each chain ends in a nulls marker holding its bucket's number, so a walk
 * under RCU that a reused callout led into another chain notices it at the
 * end and starts again (Documentation/RCU/rculist_nulls.rst, the
 * SLAB_TYPESAFE_BY_RCU discipline). Buckets share a small array of locks
 * (alloc_bucket_spinlocks()), taken with bottom halves off: the expiry
 * unhashes from softirq.
 */
static struct hlist_nulls_head *to_table;
static unsigned int to_hash_bits;
static spinlock_t *to_locks;
static unsigned int to_lock_mask;
static u32 to_hash_seed;

/* One bucket per 8 pages of memory, 2^10 to 2^18 of them (8 B each). */
#define TO_HASH_MIN_BITS	10
#define TO_HASH_MAX_BITS	18

static u32 to_bucket_of(const struct callout_key *key)
{
	return jhash2((const u32 *)key, sizeof(*key) / sizeof(u32),
		      to_hash_seed) >> (32 - to_hash_bits);
}

static spinlock_t *to_lock(u32 bucket)
{
	return &to_locks[bucket & to_lock_mask];
}

/*
 * Enter @to in its bucket unless its key has CALLOUT_HASH_MAX_DUPS there
 * already; bottom halves are off. Return: 0 or -ENOSPC.
 */
static int __to_index_insert(struct callout_to *to)
{
	struct hlist_nulls_head *head = &to_table[to->bucket];
	const struct callout_key *key = &to->h.key;
	struct hlist_nulls_node *pos;
	struct callout_to *t;
	unsigned int n = 0;

	spin_lock(to_lock(to->bucket));
	hlist_nulls_for_each_entry(t, pos, head, h.node)
		if (t->h.key.arg == key->arg && t->h.key.func == key->func &&
		    t->h.key.owner == key->owner && ++n >= CALLOUT_HASH_MAX_DUPS)
			break;
	if (n < CALLOUT_HASH_MAX_DUPS)
		hlist_nulls_add_head_rcu(&to->h.node, head);
	spin_unlock(to_lock(to->bucket));
	return n < CALLOUT_HASH_MAX_DUPS ? 0 : -ENOSPC;
}

/* Take @to out of its bucket; bottom halves are off. */
static void __to_index_remove(struct callout_to *to)
{
	spin_lock(to_lock(to->bucket));
	hlist_nulls_del_rcu(&to->h.node);
	spin_unlock(to_lock(to->bucket));
}

static void to_index_remove(struct callout_to *to)
{
	local_bh_disable();
	__to_index_remove(to);
	local_bh_enable();
}

static int to_index_init(void)
{
	unsigned long want = totalram_pages() >> 3;
	unsigned int i;

	to_hash_bits = clamp(order_base_2(want), TO_HASH_MIN_BITS,
			     TO_HASH_MAX_BITS);
	to_table = kvmalloc_array(1U << to_hash_bits, sizeof(*to_table),
				  GFP_KERNEL);
	if (!to_table)
		return -ENOMEM;
	for (i = 0; i < 1U << to_hash_bits; i++)
		INIT_HLIST_NULLS_HEAD(&to_table[i], i);
	if (alloc_bucket_spinlocks(&to_locks, &to_lock_mask,
				   1U << to_hash_bits, 32, GFP_KERNEL)) {
		kvfree(to_table);
		return -ENOMEM;
	}
	to_hash_seed = get_random_u32();
	return 0;
}

static void to_index_exit(void)
{
	free_bucket_spinlocks(to_locks);
	kvfree(to_table);
}

/*
 * For debugfs: entries, and the longest bucket chain, of the index. A walk
 * of every bucket, in steps that reschedule.
 */
void callout_hash_stats(u64 *entries, u64 *longest_chain)
{
	struct hlist_nulls_node *pos;
	struct callout_to *to;
	u64 len, max = 0, sum = 0;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < 1U << to_hash_bits; i++) {
		if (!(i % 1024)) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
		len = 0;
		hlist_nulls_for_each_entry_rcu(to, pos, &to_table[i], h.node)
			len++;
		sum += len;
		max = max(max, len);
	}
	rcu_read_unlock();
	*entries = sum;
	*longest_chain = max;
}

/*
 * callout_to.state: a generation above TO_GEN_SHIFT, bumped when an arming
 * begins, and the arming's state below it.
 *
 *   TO_IDLE     on a free list, or taken and not armed yet
 *   TO_ARMING   in the hash, being set: the expiry may claim it,
 *               untimeout() may not (the timeout() has not returned)
 *   TO_ARMED    pending: the expiry or an untimeout() claims it
 *   TO_FIRED    the expiry claimed it: the owner's expire op has it
 *   TO_CLAIMED  an untimeout() claimed it: its func will not run
 *   TO_ORPHAN   ... and left it to the expiry that had started, to put
 *   TO_SEEN     ... and that expiry has seen the claim: untimeout() puts it
 */
enum {
	TO_IDLE,
	TO_ARMING,
	TO_ARMED,
	TO_FIRED,
	TO_CLAIMED,
	TO_ORPHAN,
	TO_SEEN,
};

#define TO_GEN_SHIFT	3
#define TO_STATE_MASK	((1UL << TO_GEN_SHIFT) - 1)

static_assert(TO_SEEN <= TO_STATE_MASK);

static unsigned long to_state(unsigned long word)
{
	return word & TO_STATE_MASK;
}

/* @word with its state changed to @state, the generation kept. */
static unsigned long to_word(unsigned long word, unsigned long state)
{
	return (word & ~TO_STATE_MASK) | state;
}

/* Slab constructor: once per object, not per allocation (see the top). */
static void callout_to_ctor(void *obj)
{
	struct callout_to *to = obj;

	atomic_long_set(&to->state, TO_IDLE);
	INIT_LIST_HEAD(&to->link);
}

/**
 * callout_to_cache_create() - a cache for an owner's timeouts
 * @name:	the cache's name
 * @size:	the size of its objects, which start with a struct callout_to
 * @flags:	more SLAB_ flags: SLAB_ACCOUNT for a user's
 *
 * Return: the cache, SLAB_TYPESAFE_BY_RCU, or NULL.
 */
struct kmem_cache *callout_to_cache_create(const char *name, size_t size,
					   slab_flags_t flags)
{
	return kmem_cache_create(name, size, __alignof__(struct callout_to),
				 SLAB_TYPESAFE_BY_RCU | flags, callout_to_ctor);
}

/**
 * callout_owner_init() - an owner of timeouts, with an empty free list
 * @o:		the owner
 * @ops:	its expire op
 * @cache:	of callout_to_cache_create()
 * @gfp:	for allocations when its free list is empty
 * @max_free:	the most idle callouts its free list keeps
 */
void callout_owner_init(struct callout_owner *o,
			const struct callout_owner_ops *ops,
			struct kmem_cache *cache, gfp_t gfp,
			unsigned int max_free)
{
	spin_lock_init(&o->lock);
	o->free = NULL;
	INIT_LIST_HEAD(&o->all);
	o->nr_free = 0;
	o->max_free = max_free;
	o->closing = false;
	o->ops = ops;
	o->cache = cache;
	o->gfp = gfp;
	o->pcpu = NULL;
}

/*
 * The per-CPU front of a free list (callout_owner.pcpu): a stack of up to
 * TO_PCPU_MAX_FREE idle callouts, taken with bottom halves off (by the
 * caller: the whole of a timeout()'s take and insert, of an untimeout()'s
 * lookup, remove and put, is one such section), as expiries put theirs
 * from softirq, and under its local lock: on
 * PREEMPT_RT bottom halves off no longer keep out another task of the
 * same CPU (CONFIG_PREEMPT_RT_NEEDS_BH_LOCK unset, as Debian's 7.x-rt),
 * and there the local lock is a per-CPU spinlock; elsewhere it costs
 * nothing but lockdep's notice.
 */
#define TO_PCPU_MAX_FREE	32

static struct callout_to *to_pcpu_pop(struct callout_owner *o)
{
	struct callout_to_stack *st;
	struct callout_to *to;

	local_lock_nested_bh(&o->pcpu->bh_lock);
	st = this_cpu_ptr(o->pcpu);
	to = st->top;
	if (to) {
		st->top = to->next_free;
		st->nr--;
	}
	local_unlock_nested_bh(&o->pcpu->bh_lock);
	return to;
}

static bool to_pcpu_push(struct callout_owner *o, struct callout_to *to)
{
	struct callout_to_stack *st;
	bool keep;

	local_lock_nested_bh(&o->pcpu->bh_lock);
	st = this_cpu_ptr(o->pcpu);
	keep = st->nr < TO_PCPU_MAX_FREE;
	if (keep) {
		to->next_free = st->top;
		st->top = to;
		st->nr++;
	}
	local_unlock_nested_bh(&o->pcpu->bh_lock);
	return keep;
}

/*
 * An idle callout of @o for a new arming, from its free list (this CPU's
 * front of it first), or NULL; bottom halves are off.
 */
static struct callout_to *__to_take_free(struct callout_owner *o)
{
	struct callout_to *to;

	if (o->pcpu) {
		to = to_pcpu_pop(o);
		if (to)
			return to;
	}
	spin_lock(&o->lock);
	to = o->free;
	if (to) {
		o->free = to->next_free;
		o->nr_free--;
	}
	spin_unlock(&o->lock);
	return to;
}

/*
 * A new callout of @o from its cache, with its gfp (bottom halves on, as
 * that may sleep): on @o's list of all its callouts until it goes back to
 * the slab.
 */
static struct callout_to *to_alloc(struct callout_owner *o)
{
	struct callout_to *to;

	to = kmem_cache_alloc(o->cache, o->gfp | __GFP_NOWARN);
	if (!to)
		return NULL;
	/* Not ->state: the constructor's, kept across reuse (see the top). */
	__callout_init(&to->c);
	to->owner = o;
	spin_lock_bh(&o->lock);
	list_add(&to->link, &o->all);
	spin_unlock_bh(&o->lock);
	return to;
}

/* callout_to_put() with bottom halves off */
static void __callout_to_put(struct callout_to *to)
{
	struct callout_owner *o = to->owner;
	bool keep;

	atomic_long_set(&to->state, to_word(atomic_long_read(&to->state),
					    TO_IDLE));
	if (o->pcpu && !READ_ONCE(o->closing) && to_pcpu_push(o, to))
		return;
	spin_lock(&o->lock);
	keep = o->nr_free < o->max_free && !o->closing;
	if (keep) {
		to->next_free = o->free;
		o->free = to;
		o->nr_free++;
	} else {
		list_del_init(&to->link);
	}
	spin_unlock(&o->lock);
	if (!keep)
		kmem_cache_free(o->cache, to);
}

/**
 * callout_to_put() - give a timeout back to its owner
 * @to:	out of the hash, not pending, and its expiry finished or never to
 *	run for the arming it had
 *
 * It goes on its owner's free list (this CPU's front of it first), or back
 * to the slab when that list is full or the owner is being drained.
 *
 * Context: process or softirq, interrupts on.
 */
void callout_to_put(struct callout_to *to)
{
	local_bh_disable();
	__callout_to_put(to);
	local_bh_enable();
}

/*
 * The func of every timeout's callout, in softirq context: claim the
 * arming against untimeout(), or finish the hand-over of one it lost.
 */
static void to_expire(void *arg)
{
	struct callout_to *to = arg;
	unsigned long s = atomic_long_read(&to->state);

	for (;;) {
		switch (to_state(s)) {
		case TO_ARMING:
		case TO_ARMED:
			if (!atomic_long_try_cmpxchg(&to->state, &s,
						     to_word(s, TO_FIRED)))
				continue;
			__to_index_remove(to);
			to->owner->ops->expire(to);
			return;
		case TO_CLAIMED:
			/* untimeout() has it and finds us started: its to put. */
			if (!atomic_long_try_cmpxchg(&to->state, &s,
						     to_word(s, TO_SEEN)))
				continue;
			return;
		case TO_ORPHAN:
			/* untimeout() left it to us. */
			__callout_to_put(to);
			return;
		default:
			WARN_ONCE(1, "timeout %ps expires in state %lu\n",
				  (void *)(uintptr_t)to->h.key.func, to_state(s));
			return;
		}
	}
}

/**
 * callout_to_arm() - arm a timeout of @o: @func(@arg) in @ticks ticks
 * @o:		the owner
 * @func:	the key's func, as an opaque value
 * @arg:	the key's arg
 * @ticks:	as callout_set()
 * @now_ns:	callout_now_ns() read by the caller, once for a batch
 *
 * The arming's due time, @now_ns + @ticks * tick_ns, is kept in the
 * callout's ->expires_ns for @o's expire op to report.
 *
 * Context: as @o's gfp allows when its free list is empty; interrupts on
 * (the hash's bucket locks are taken with bottom halves off).
 * Return: 0, -ENOMEM, -ENOSPC when CALLOUT_HASH_MAX_DUPS of this key are
 * pending, or callout_set()'s -ERANGE/-ENOSPC.
 */
int callout_to_arm(struct callout_owner *o, u64 func, u64 arg,
		   unsigned long ticks, u64 now_ns)
{
	struct callout_to *to;
	unsigned long s;
	int ret;

	/* One section with bottom halves off, from the take to the insert. */
	local_bh_disable();
	to = __to_take_free(o);
	if (!to) {
		local_bh_enable();
		to = to_alloc(o);
		if (!to)
			return -ENOMEM;
		local_bh_disable();
	}
	WRITE_ONCE(to->h.key.owner, o);
	WRITE_ONCE(to->h.key.func, func);
	WRITE_ONCE(to->h.key.arg, arg);
	WRITE_ONCE(to->bucket, to_bucket_of(&to->h.key));
	/* A new generation: a claim read from an earlier arming fails. */
	s = atomic_long_read(&to->state);
	s = to_word(s + (1UL << TO_GEN_SHIFT), TO_ARMING);
	atomic_long_set(&to->state, s);
	/* The key before the ->next pointers the insert writes (see the top). */
	smp_wmb();
	ret = __to_index_insert(to);
	local_bh_enable();
	if (ret)
		goto put;
	/* One clock read for the due time and the arming, as callout_set(). */
	to->expires_ns = now_ns + (u64)ticks * callout_tick_ns_param;
	ret = callout_set_ticks_from(&to->c, now_ns, ticks, to_expire, to);
	if (ret < 0) {
		/* Never pending: no expiry, and untimeout() skips TO_ARMING. */
		to_index_remove(to);
		goto put;
	}
	/* Failing means it has expired already: its expire op has it. */
	atomic_long_cmpxchg(&to->state, s, to_word(s, TO_ARMED));
	return 0;
put:
	callout_to_put(to);
	return ret;
}

/* Read racily: @h may be rewritten by a new arming while we look. */
static bool has_key(const struct callout_hashed *h,
		    const struct callout_key *key)
{
	return READ_ONCE(h->key.owner) == key->owner &&
	       READ_ONCE(h->key.func) == key->func &&
	       READ_ONCE(h->key.arg) == key->arg;
}

/*
 * Claim one pending arming of @key, under RCU. Return: the callout, now
 * TO_CLAIMED, or NULL if none is pending.
 */
static struct callout_to *to_claim(const struct callout_key *key)
{
	u32 bucket = to_bucket_of(key);
	struct hlist_nulls_node *pos;
	struct callout_to *to;
	unsigned long s;

restart:
	hlist_nulls_for_each_entry_rcu(to, pos, &to_table[bucket], h.node) {
		s = atomic_long_read_acquire(&to->state);
		if (to_state(s) == TO_ARMED && has_key(&to->h, key) &&
		    atomic_long_try_cmpxchg(&to->state, &s,
					    to_word(s, TO_CLAIMED)))
			return to;
	}
	/* Led into another chain by a callout reused meanwhile? */
	if (get_nulls_value(pos) != bucket)
		goto restart;
	return NULL;
}

/**
 * callout_to_cancel() - cancel one pending timeout of @o by its key
 * @o:		the owner
 * @func:	the key's func, as given to callout_to_arm()
 * @arg:	the key's arg
 *
 * Context: any with interrupts on; never waits.
 * Return: 1 if one was cancelled (its expire op will not be called for
 * it), 0 if none of this key was pending.
 */
int callout_to_cancel(struct callout_owner *o, u64 func, u64 arg)
{
	struct callout_key key = { .owner = o, .func = func, .arg = arg };
	struct callout_to *to;
	unsigned long s;

	/*
	 * One section with bottom halves off, which is an RCU read side,
	 * from the lookup to the put: the bucket lock and this CPU's free
	 * list want them off too.
	 */
	rcu_read_lock_bh();
	to = to_claim(&key);
	if (!to) {
		rcu_read_unlock_bh();
		return 0;
	}
	__to_index_remove(to);
	if (callout_unset(&to->c)) {
		__callout_to_put(to);
	} else {
		/*
		 * Its expiry has started: to_expire() will find the claim.
		 * Whichever of us sees the other's mark puts it.
		 */
		s = to_word(atomic_long_read(&to->state), TO_CLAIMED);
		if (!atomic_long_try_cmpxchg(&to->state, &s,
					     to_word(s, TO_ORPHAN)))
			__callout_to_put(to);
	}
	rcu_read_unlock_bh();
	return 1;
}

/*
 * Every callout of @o's per-CPU fronts, on top of @idle. Nothing runs
 * against @o any more: an owner with per-CPU fronts is drained only once
 * no expiry and no caller can put one (the kernel's, at unload).
 */
static struct callout_to *to_pcpu_take_all(struct callout_owner *o,
					   struct callout_to *idle)
{
	struct callout_to_stack *st;
	struct callout_to *to;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(o->pcpu, cpu);
		while (st->top) {
			to = st->top;
			st->top = to->next_free;
			to->next_free = idle;
			idle = to;
		}
		st->nr = 0;
	}
	return idle;
}

/**
 * callout_owner_drain() - cancel every timeout of an owner at its end
 * @o:		the owner, which arms no more
 * @warn:	warn, naming its func, that a timeout was left pending
 *
 * Waits for cancels and expiries in passage; what its expire op holds,
 * the owner puts with callout_to_put() as usual. From here on every
 * callout put goes back to the slab. Each callout is looked at once, one
 * per section of @o's lock.
 *
 * Context: process; may sleep.
 * Return: how many were pending.
 */
unsigned long callout_owner_drain(struct callout_owner *o, bool warn)
{
	struct callout_to *to, *idle;
	unsigned long n = 0, s;
	LIST_HEAD(todo);

	spin_lock_bh(&o->lock);
	o->closing = true;
	idle = o->free;
	o->free = NULL;
	o->nr_free = 0;
	if (o->pcpu)
		idle = to_pcpu_take_all(o, idle);
	for (to = idle; to; to = to->next_free)
		list_del(&to->link);
	/* Puts still take theirs off, from here, under the lock. */
	list_splice_init(&o->all, &todo);
	spin_unlock_bh(&o->lock);
	while (idle) {
		to = idle;
		idle = to->next_free;
		kmem_cache_free(o->cache, to);
	}

	for (;;) {
		spin_lock_bh(&o->lock);
		to = list_first_entry_or_null(&todo, struct callout_to, link);
		if (!to) {
			spin_unlock_bh(&o->lock);
			break;
		}
		/* Back on @o's list: a put takes it off there. */
		list_move(&to->link, &o->all);
		s = atomic_long_read(&to->state);
		if (to_state(s) == TO_ARMED &&
		    atomic_long_try_cmpxchg(&to->state, &s,
					    to_word(s, TO_CLAIMED))) {
			spin_unlock_bh(&o->lock);
			WARN_ONCE(warn, "a kernel caller left timeout %ps pending\n",
				  (void *)(uintptr_t)to->h.key.func);
			to_index_remove(to);
			/* After this its expiry, if it ran, has seen the claim. */
			callout_unset_sync(&to->c);
			callout_to_put(to);
			n++;
		} else {
			/* Its expire op's (TO_FIRED) or in passage: put soon. */
			spin_unlock_bh(&o->lock);
		}
		cond_resched();
	}
	return n;
}

/**
 * callout_owner_destroy() - the end of a drained owner
 * @o:	the owner, every callout of which its expire op has put
 *
 * Waits for the cancels and expiries that callout_owner_drain() left in
 * passage to put theirs.
 *
 * Context: process; may sleep.
 */
void callout_owner_destroy(struct callout_owner *o)
{
	struct callout_to *to;
	bool busy;

	do {
		busy = false;
		spin_lock_bh(&o->lock);
		list_for_each_entry(to, &o->all, link)
			if (to_state(atomic_long_read(&to->state)) != TO_FIRED)
				busy = true;
		WARN_ON(!busy && !list_empty(&o->all));
		spin_unlock_bh(&o->lock);
		if (busy)
			schedule_timeout_uninterruptible(1);
	} while (busy);
	WARN_ON(o->free);
}

/* The kernel's callers: one owner, its callouts from a cache of its own. */
static struct callout_owner callout_kernel_owner;
static struct kmem_cache *callout_kernel_cache;

/*
 * The kernel owner's free list: enough for a few hundred timeouts in
 * flight at once without the slab, 64 KiB at most.
 */
#define CALLOUT_KERNEL_MAX_FREE	512

/* Put it back first: a func that calls timeout() again reuses it at once. */
static void callout_kernel_expire(struct callout_to *to)
{
	callout_func_t func = (callout_func_t)(uintptr_t)to->h.key.func;
	void *arg = (void *)(uintptr_t)to->h.key.arg;

	callout_to_put(to);
	func(arg);
}

static const struct callout_owner_ops callout_kernel_ops = {
	.expire = callout_kernel_expire,
};

/**
 * callout_timeout() - the old interface: run @func(@arg) in @ticks ticks
 * @func:	run at expiry in softirq context; must not sleep
 * @arg:	its argument; with @func the key untimeout() cancels by
 * @ticks:	ticks of callout_tick_ns() from now, as callout_set()
 *
 * The pair need not be unique: each call arms one more callout, up to 64
 * pending for one pair. The callout comes from a free list of callouts
 * that fired or were cancelled, as 4.4BSD's callfree: once warm, no
 * allocation.
 *
 * Context: process or softirq, interrupts enabled (with the free list
 * empty it allocates with GFP_ATOMIC; the hash takes its bucket locks with
 * bottom halves off).
 * Return: 0, -EINVAL for a NULL @func, -ENOMEM, -ENOSPC when 64 callouts of
 * this pair are pending, or -ERANGE as callout_set().
 */
int callout_timeout(callout_func_t func, void *arg, unsigned long ticks)
{
	lockdep_assert_irqs_enabled();
	if (!func)
		return -EINVAL;
	this_cpu_inc(callout_op_counts.timeout);
	return callout_to_arm(&callout_kernel_owner, (uintptr_t)func,
			      (uintptr_t)arg, ticks, callout_now_ns());
}
EXPORT_SYMBOL_NS_GPL(callout_timeout, CALLOUT_NS);

/**
 * callout_untimeout() - the old interface: cancel one pending @func(@arg)
 * @func:	as given to callout_timeout()
 * @arg:	as given to callout_timeout()
 *
 * Cancels one pending callout armed by callout_timeout() with this exact pair,
 * found through the func/arg hash in O(1).
 *
 * Context: process or softirq, interrupts enabled, as callout_timeout().
 * Return: 1 if one was cancelled (its func will not run), 0 if none pending.
 */
int callout_untimeout(callout_func_t func, void *arg)
{
	lockdep_assert_irqs_enabled();
	this_cpu_inc(callout_op_counts.untimeout);
	return callout_to_cancel(&callout_kernel_owner, (uintptr_t)func,
				 (uintptr_t)arg);
}
EXPORT_SYMBOL_NS_GPL(callout_untimeout, CALLOUT_NS);

int callout_timeout_init(void)
{
	unsigned int cpu;
	int ret;

	callout_kernel_cache = callout_to_cache_create("callout_to",
						       sizeof(struct callout_to),
						       0);
	if (!callout_kernel_cache)
		return -ENOMEM;
	ret = to_index_init();
	if (ret) {
		kmem_cache_destroy(callout_kernel_cache);
		return ret;
	}
	callout_owner_init(&callout_kernel_owner, &callout_kernel_ops,
			   callout_kernel_cache, GFP_ATOMIC,
			   CALLOUT_KERNEL_MAX_FREE);
	/* Every CPU's callers share it: a front per CPU, so no lock is shared. */
	callout_kernel_owner.pcpu = alloc_percpu(struct callout_to_stack);
	if (!callout_kernel_owner.pcpu) {
		to_index_exit();
		kmem_cache_destroy(callout_kernel_cache);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu)
		local_lock_init(&per_cpu_ptr(callout_kernel_owner.pcpu,
					     cpu)->bh_lock);
	return 0;
}

/*
 * Every file is closed, no client is loaded and the ticks are stopped
 * (core.c), so no expiry runs: what kernel callers left is cancelled.
 */
void callout_timeout_exit(void)
{
	callout_owner_drain(&callout_kernel_owner, true);
	callout_owner_destroy(&callout_kernel_owner);
	free_percpu(callout_kernel_owner.pcpu);
	to_index_exit();
	/* It waits for RCU readers of its objects first (TYPESAFE_BY_RCU). */
	kmem_cache_destroy(callout_kernel_cache);
}
