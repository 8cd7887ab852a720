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
 * The hash. An rhltable keyed by (owner, func, arg), which may hold several
 * callouts of one key (4.4BSD's untimeout() cancelled the first it met, so
 * does this one); a cap of CALLOUT_HASH_MAX_DUPS a key keeps the walk of
 * one key's list, rhltable_remove()'s and untimeout()'s, O(1). Lookups run
 * under rcu_read_lock(); inserts and removals take the table's bucket lock.
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
 * cgroup as its pending ones do.
 *
 * Reuse without a grace period. A lookup under RCU may hold a pointer to a
 * callout that, meanwhile, fired or was cancelled, went back to the free
 * list and was armed again for another key. Freeing after a grace period
 * (call_rcu(), as this file did) costs an RCU callback an operation and
 * defeats the free list. Instead the caches are SLAB_TYPESAFE_BY_RCU: under
 * rcu_read_lock() a pointer found in the hash always points to a struct
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
 * - The walk along one key's list of duplicates follows ->next pointers
 *   of callouts that may be reused under it, into another key's list. After
 *   reading an entry's ->next the walk checks that entry's key again (the
 *   writer sets a key before linking, smp_wmb()/smp_rmb()); a mismatch
 *   means the walk left its list and it starts again from the table, so a
 *   callout pending throughout an untimeout() is not missed. rhashtable's
 *   own lookup restarts the same way when a bucket chain ends on another
 *   bucket's nulls marker.
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
 * owner's armed list lets callout_owner_drain() cancel what it left at
 * exit (close(), unload).
 *
 * Locking: the owner's lock (bottom halves off: timeouts are armed and
 * cancelled in process or softirq context, and expire in softirq) protects
 * its lists; it nests inside nothing of callout.ko's and nothing nests
 * inside it. The hash's bucket locks are taken with bottom halves off, outside
 * any owner lock; callout_set()/callout_unset() take a base lock, with no
 * owner lock held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/overflow.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "internal.h"

/*
 * The func/arg hash of the old interface, shared by every owner: each
 * entry is a struct callout_to, key.owner its owner.
 */
static const struct rhashtable_params callout_hash_params = {
	.key_len		= sizeof(struct callout_key),
	.key_offset		= offsetof(struct callout_hashed, key),
	.head_offset		= offsetof(struct callout_hashed, node),
	.automatic_shrinking	= true,
};

static struct rhltable callout_hash;
/* Per CPU: a shared counter would be an atomic on every untimeout(). */
static DEFINE_PER_CPU(u64, callout_hash_nr_lookups);

/*
 * Callouts of one key share a singly linked list, which rhltable_remove()
 * walks; a cap keeps that walk, and untimeout()'s, O(1).
 */
#define CALLOUT_HASH_MAX_DUPS	64

static void callout_hash_remove(struct callout_hashed *h)
{
	rhltable_remove(&callout_hash, &h->node, callout_hash_params);
}

/* Call under rcu_read_lock(); walk the result with rhl_for_each_entry_rcu. */
static struct rhlist_head *callout_hash_lookup(const struct callout_key *key)
{
	this_cpu_inc(callout_hash_nr_lookups);
	return rhltable_lookup(&callout_hash, key, callout_hash_params);
}

u64 callout_hash_lookups(void)
{
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu)
		sum += per_cpu(callout_hash_nr_lookups, cpu);
	return sum;
}

/* For debugfs: entries, and the longest bucket chain of the current table. */
void callout_hash_stats(u64 *entries, u64 *longest_chain)
{
	const struct bucket_table *tbl;
	struct rhash_head *pos;
	unsigned int i;
	u64 len, max = 0;

	*entries = atomic_read(&callout_hash.ht.nelems);
	rcu_read_lock();
	tbl = rht_dereference_rcu(callout_hash.ht.tbl, &callout_hash.ht);
	for (i = 0; i < tbl->size; i++) {
		len = 0;
		rht_for_each_rcu(pos, tbl, i)
			len++;
		max = max(max, len);
	}
	rcu_read_unlock();
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
	INIT_LIST_HEAD(&o->free);
	INIT_LIST_HEAD(&o->armed);
	o->nr_free = 0;
	o->max_free = max_free;
	o->closing = false;
	o->ops = ops;
	o->cache = cache;
	o->gfp = gfp;
}

/*
 * A callout of @o for a new arming: from its free list, else from its
 * cache with its gfp. On @o's armed list from here until it is put back.
 */
static struct callout_to *callout_to_get(struct callout_owner *o)
{
	struct callout_to *to;

	spin_lock_bh(&o->lock);
	to = list_first_entry_or_null(&o->free, struct callout_to, link);
	if (to) {
		list_move(&to->link, &o->armed);
		o->nr_free--;
	}
	spin_unlock_bh(&o->lock);
	if (to)
		return to;

	to = kmem_cache_alloc(o->cache, o->gfp | __GFP_NOWARN);
	if (!to)
		return NULL;
	/* Not ->state: the constructor's, kept across reuse (see the top). */
	callout_init(&to->c);
	to->owner = o;
	spin_lock_bh(&o->lock);
	list_add(&to->link, &o->armed);
	spin_unlock_bh(&o->lock);
	return to;
}

/**
 * callout_to_put() - give a timeout back to its owner
 * @to:	out of the hash, not pending, and its expiry finished or never to
 *	run for the arming it had
 *
 * It goes on its owner's free list, or back to the slab when that list is
 * full or the owner is being drained.
 *
 * Context: process or softirq, interrupts on.
 */
void callout_to_put(struct callout_to *to)
{
	struct callout_owner *o = to->owner;
	bool keep;

	atomic_long_set(&to->state, to_word(atomic_long_read(&to->state),
					    TO_IDLE));
	spin_lock_bh(&o->lock);
	keep = o->nr_free < o->max_free && !o->closing;
	if (keep) {
		list_move(&to->link, &o->free);
		o->nr_free++;
	} else {
		list_del_init(&to->link);
	}
	spin_unlock_bh(&o->lock);
	if (!keep)
		kmem_cache_free(o->cache, to);
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
			callout_hash_remove(&to->h);
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
			callout_to_put(to);
			return;
		default:
			WARN_ONCE(1, "timeout %ps expires in state %lu\n",
				  (void *)(uintptr_t)to->h.key.func, to_state(s));
			return;
		}
	}
}

/*
 * Enter @to in the hash, unless its key has CALLOUT_HASH_MAX_DUPS already.
 * rhltable_insert() puts it at the head of its key's list, so the entries
 * it counts are those its ->next leads to: no second lookup. The cap is
 * approximate when inserts of one key race.
 * Return: 0, -ENOSPC, or -ENOMEM.
 */
static int to_hash_insert(struct callout_to *to)
{
	struct rhlist_head *pos;
	unsigned int n = 1;

	if (rhltable_insert(&callout_hash, &to->h.node, callout_hash_params))
		return -ENOMEM;	/* -EBUSY, -E2BIG: the table could not grow */
	rcu_read_lock();
	for (pos = rcu_dereference(to->h.node.next);
	     pos && n <= CALLOUT_HASH_MAX_DUPS;
	     pos = rcu_dereference(pos->next))
		n++;
	rcu_read_unlock();
	if (n <= CALLOUT_HASH_MAX_DUPS)
		return 0;
	callout_hash_remove(&to->h);
	return -ENOSPC;
}

/**
 * callout_to_arm() - arm a timeout of @o: @func(@arg) in @ticks ticks
 * @o:		the owner
 * @func:	the key's func, as an opaque value
 * @arg:	the key's arg
 * @ticks:	as callout_set()
 *
 * The arming's due time, the clock read once + @ticks * tick_ns, is kept
 * in the callout's ->expires_ns for @o's expire op to report.
 *
 * Context: as @o's gfp allows when its free list is empty; interrupts on
 * (the hash's bucket locks are taken with bottom halves off).
 * Return: 0, -ENOMEM, -ENOSPC when CALLOUT_HASH_MAX_DUPS of this key are
 * pending, or callout_set()'s -ERANGE/-ENOSPC.
 */
int callout_to_arm(struct callout_owner *o, u64 func, u64 arg,
		   unsigned long ticks)
{
	struct callout_to *to;
	unsigned long s;
	u64 span, now;
	int ret;

	/* callout_set()'s bound, without its division */
	if (check_mul_overflow((u64)ticks, callout_tick_ns(), &span) ||
	    span > callout_max_timeout_ns())
		return -ERANGE;
	to = callout_to_get(o);
	if (!to)
		return -ENOMEM;
	WRITE_ONCE(to->h.key.owner, o);
	WRITE_ONCE(to->h.key.func, func);
	WRITE_ONCE(to->h.key.arg, arg);
	/* A new generation: a claim read from an earlier arming fails. */
	s = atomic_long_read(&to->state);
	s = to_word(s + (1UL << TO_GEN_SHIFT), TO_ARMING);
	atomic_long_set(&to->state, s);
	/* The key before the ->next pointers the insert writes (see the top). */
	smp_wmb();
	ret = to_hash_insert(to);
	if (ret)
		goto put;
	/* One clock read for the due time and the arming, as callout_set(). */
	now = callout_now_ns();
	to->expires_ns = now + span;
	ret = callout_set_from(&to->c, now, to->expires_ns, to_expire, to);
	if (ret < 0) {
		/* Never pending: no expiry, and untimeout() skips TO_ARMING. */
		callout_hash_remove(&to->h);
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
 * Claim one pending arming of @key, under rcu_read_lock(). Return: the
 * callout, now TO_CLAIMED, or NULL if none is pending.
 */
static struct callout_to *to_claim(const struct callout_key *key)
{
	struct callout_hashed *h;
	struct rhlist_head *pos;
	struct callout_to *to;
	unsigned long s;

restart:
	pos = callout_hash_lookup(key);
	while (pos) {
		h = container_of(pos, struct callout_hashed, node);
		/* Reused for another key since the lookup: not our list. */
		if (!has_key(h, key))
			goto restart;
		to = container_of(h, struct callout_to, h);
		s = atomic_long_read_acquire(&to->state);
		if (to_state(s) == TO_ARMED && has_key(h, key) &&
		    atomic_long_try_cmpxchg(&to->state, &s,
					    to_word(s, TO_CLAIMED)))
			return to;
		pos = rcu_dereference(pos->next);
		/* Still of this key after its ->next was read? (see the top) */
		smp_rmb();
		if (!has_key(h, key))
			goto restart;
	}
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

	rcu_read_lock();
	to = to_claim(&key);
	rcu_read_unlock();
	if (!to)
		return 0;
	callout_hash_remove(&to->h);
	if (callout_unset(&to->c)) {
		callout_to_put(to);
		return 1;
	}
	/*
	 * Its expiry has started: to_expire() will find the claim. Whichever
	 * of us sees the other's mark puts it.
	 */
	s = to_word(atomic_long_read(&to->state), TO_CLAIMED);
	if (!atomic_long_try_cmpxchg(&to->state, &s, to_word(s, TO_ORPHAN)))
		callout_to_put(to);
	return 1;
}

/*
 * Claim a pending callout of @o's armed list, with @o's lock held, or
 * return NULL; *@busy says whether callouts in passage remain: being
 * armed, or cancelled and not yet put. Those its expire op holds
 * (TO_FIRED) are the owner's to put.
 */
static struct callout_to *__owner_claim_any(struct callout_owner *o,
					    bool *busy)
{
	struct callout_to *to;
	unsigned long s;

	lockdep_assert_held(&o->lock);
	*busy = false;
	list_for_each_entry(to, &o->armed, link) {
		s = atomic_long_read(&to->state);
		if (to_state(s) == TO_ARMED &&
		    atomic_long_try_cmpxchg(&to->state, &s,
					    to_word(s, TO_CLAIMED)))
			return to;
		if (to_state(s) != TO_FIRED)
			*busy = true;
	}
	return NULL;
}

/**
 * callout_owner_drain() - cancel every timeout of an owner at its end
 * @o:		the owner, which arms no more
 * @warn:	warn, naming its func, that a timeout was left pending
 *
 * Waits for cancels and expiries in passage; what its expire op holds,
 * the owner puts with callout_to_put() as usual. From here on every
 * callout put goes back to the slab. Then callout_owner_destroy().
 *
 * Context: process; may sleep.
 * Return: how many were pending.
 */
unsigned long callout_owner_drain(struct callout_owner *o, bool warn)
{
	struct callout_to *to, *tmp;
	unsigned long n = 0;
	LIST_HEAD(idle);
	bool busy;

	spin_lock_bh(&o->lock);
	o->closing = true;
	list_splice_init(&o->free, &idle);
	o->nr_free = 0;
	spin_unlock_bh(&o->lock);
	list_for_each_entry_safe(to, tmp, &idle, link)
		kmem_cache_free(o->cache, to);

	for (;;) {
		spin_lock_bh(&o->lock);
		to = __owner_claim_any(o, &busy);
		spin_unlock_bh(&o->lock);
		if (!to) {
			if (!busy)
				break;
			/* An expiry or a cancel is putting one back. */
			schedule_timeout_uninterruptible(1);
			continue;
		}
		WARN_ONCE(warn, "a kernel caller left timeout %ps pending\n",
			  (void *)(uintptr_t)to->h.key.func);
		callout_hash_remove(&to->h);
		/* After this its expiry, if it ran, has seen the claim. */
		callout_unset_sync(&to->c);
		callout_to_put(to);
		n++;
		cond_resched();
	}
	return n;
}

/**
 * callout_owner_destroy() - the end of a drained owner
 * @o:	the owner, every callout of which is put
 */
void callout_owner_destroy(struct callout_owner *o)
{
	WARN_ON(!list_empty(&o->armed) || !list_empty(&o->free));
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
			      (uintptr_t)arg, ticks);
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
	int ret;

	callout_kernel_cache = callout_to_cache_create("callout_to",
						       sizeof(struct callout_to),
						       0);
	if (!callout_kernel_cache)
		return -ENOMEM;
	ret = rhltable_init(&callout_hash, &callout_hash_params);
	if (ret) {
		kmem_cache_destroy(callout_kernel_cache);
		return ret;
	}
	callout_owner_init(&callout_kernel_owner, &callout_kernel_ops,
			   callout_kernel_cache, GFP_ATOMIC,
			   CALLOUT_KERNEL_MAX_FREE);
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
	rhltable_destroy(&callout_hash);
	/* It waits for RCU readers of its objects first (TYPESAFE_BY_RCU). */
	kmem_cache_destroy(callout_kernel_cache);
}
