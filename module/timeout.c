// SPDX-License-Identifier: GPL-2.0
/*
 * timeout.c - the old interface, timeout() and untimeout(): callouts found
 * by their owner, func and arg through a hash instead of a handle.
 *
 * One implementation for every owner. An owner (struct callout_owner) is
 * whoever arms timeouts and cancels them by key: the kernel's callers share
 * one, callout_kernel_owner; each /dev/callout file has one of its own
 * (see "Owners" below). A timeout is a struct callout_to: a callout, its
 * entry in the func/arg hash, a state and a link on its owner's lists.
 *
 * The index. A table of hlist_nulls buckets keyed by (owner, func, arg),
 * hashed with a seed drawn at load, fixed in size at load: one bucket per
 * page of memory (0.4% of it), 2^10 to 2^18 buckets (16 KiB to 4 MiB), so
 * the mean chain is the callouts linked over that: 8 for a million in 512
 * MiB, where one per 8 pages made it 61. A bucket keeps its length beside
 * its head, so a timeout() walks its chain to count the key's callouts
 * only when it is long enough to hold too many. Not an rhltable: its
 * insert, lookup and remove cost several times this table's, more than a
 * whole callout_set() + callout_unset(). One key may have several
 * callouts (4.4BSD's untimeout() cancelled the first it met, so does this
 * one), up to CALLOUT_HASH_MAX_DUPS armed at once, counted by the arming
 * under RCU (so arms of one key at the same moment on several CPUs may
 * together pass it by their number). Lookups run under RCU. A callout
 * leaves its bucket when it fires (its expire op may keep it long: a
 * file's, until its event is read), to move to another bucket, or to go
 * back to the slab. One cancelled, or whose arming failed, stays in its
 * bucket on its owner's free list, and stays there when it is armed again
 * for a key of the same bucket (the same key, most often: a timer pushed
 * back, cancelled and armed again, with its func and arg). Links and
 * unlinks take the bucket's lock, one of a small array shared by the
 * buckets (alloc_bucket_spinlocks()), with bottom halves off. So every
 * untimeout(), and a timeout() of the key its callout had when cancelled,
 * take no lock of the index: such a pair costs the base lock twice, as
 * callout_set() + callout_unset() does, where it cost four atomic
 * operations more (two bucket locks and two claims of a state word). A
 * bucket holds the pending callouts of its keys and idle ones, at most as
 * many as the owners' free lists keep.
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
 * timeouts meet.
 *
 * Reuse without a grace period. A lookup under RCU may hold a pointer to a
 * callout that, meanwhile, fired or was cancelled, went back to the free
 * list and was armed again for another key. Freeing after a grace period
 * (call_rcu(), as this file did) costs an RCU callback an operation and
 * defeats the free list. Instead the caches are SLAB_TYPESAFE_BY_RCU: in an
 * RCU read side (untimeout()'s is rcu_read_lock_bh(), bottom halves off,
 * which since the flavours were merged a grace period waits for too) a
 * pointer found in the hash always points to a struct callout_to (of that
 * cache, maybe of another arming), never to freed memory, and every user
 * revalidates what it found:
 *
 * - The core decides, under the callout's base lock, between an expiry and
 *   a cancel, as it does for every callout: callout_unset() detaches a
 *   pending callout, or finds its expiry started. untimeout() cancels with
 *   callout_unset_if(), which also checks the key under that lock. The key
 *   is written before each arming's callout_set() and never while the
 *   callout is pending, so under the lock the key of a pending callout is
 *   its arming's: a callout that was reused for another key is left
 *   alone, and one that untimeout() cancels was pending for its key. One
 *   armed for the same key while untimeout() walked may be the one it
 *   cancels, as it would be had it come a moment earlier.
 * - So exactly one of the expiry and an untimeout() gets an arming: the
 *   func of an expiry the core started runs, and an untimeout() that lost
 *   to it looks on along the chain. Neither waits for the other and no
 *   callout is handed over between them.
 * - The callout inside is initialised once, by the cache's constructor,
 *   and never again: a walk may lock its base at any time, so its fields
 *   must be a callout's across kmem_cache_free() and kmem_cache_alloc()
 *   (the slab keeps its free pointer out of the object of such a cache,
 *   and neither zeroes nor poisons it).
 * - A walk along a bucket's chain follows ->next pointers of callouts that
 *   may be moved under it into another chain. Every chain ends in a nulls
 *   marker holding its bucket's number: a walk that ends on another
 *   bucket's marker starts again from its own bucket, so a callout
 *   pending throughout an untimeout() is not missed
 *   (Documentation/RCU/rculist_nulls.rst).
 *
 * A callout goes back to its owner (callout_to_put()) only when no arming
 * of it is pending and none will run: untimeout() cancelled it, or its
 * expire op is done with it, or it was never armed. Its struct callout
 * is not initialised again on reuse: it may still be its base's running
 * callout while the func that put it back returns, which the core allows
 * (a callout may be set from its own func).
 *
 * Owners. An owner gives a cache of objects that start with a struct
 * callout_to (callout_to_cache_create()), a gfp for cold allocations, a
 * bound for its free list and an expire op, called in softirq context once
 * the core has started the callout's expiry, so no untimeout() can cancel
 * it: the op owns the callout then, until it calls callout_to_put(). The
 * kernel's op runs func(arg); a file's (dev_timeout.c) queues an event, and its
 * reader puts the callout back. An
 * owner's list of all its callouts lets callout_owner_drain() cancel what
 * it left at exit (close(), unload), looking at each once; the free list
 * is a stack of the idle ones, so taking and putting one is a pop and a
 * push.
 *
 * Locking (the whole order is at the top of core.c): the owner's lock
 * protects its lists, a bucket's lock the bucket's chain; both are taken
 * with bottom halves off (timeouts are armed and cancelled in process or
 * softirq context, and expire in softirq), never one inside the other,
 * and with no lock of callout.ko held but a tick's expiry_lock. A base
 * lock nests inside an owner's lock in callout_owner_drain() alone;
 * callout_set() and callout_unset_if() otherwise take it with neither.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/rculist_nulls.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "stats.h"
#include "timeout.h"

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
 * (alloc_bucket_spinlocks()), taken with bottom halves off, for the links
 * alone: a callout is linked when armed for another bucket than the one it
 * is in, and unlinked when it moves or goes back to the slab.
 */
struct to_bucket {
	struct hlist_nulls_head head;
	unsigned int len;	/* linked, pending or idle: the lock's */
};

static struct to_bucket *to_table;
static unsigned int to_hash_bits;
static spinlock_t *to_locks;
static unsigned int to_lock_mask;
static u64 to_hash_seed;

/* One bucket per page of memory, 2^10 to 2^18 of them (16 B each). */
#define TO_HASH_MIN_BITS	10
#define TO_HASH_MAX_BITS	18
/* Bucket locks per possible CPU (alloc_bucket_spinlocks()), at most one a bucket */
#define TO_LOCKS_PER_CPU	32
/* A drain reschedules at least this often while it frees */
#define TO_RESCHED		256
/* callout_hash_stats() leaves RCU and reschedules this often, in buckets */
#define TO_STATS_RESCHED	1024

/*
 * The bucket of @key: its three words mixed in turn into a seeded
 * multiply-xor hash, hash_64() at the end. The seed, drawn at load, keeps
 * where a user's keys (an ioctl's func and arg) land unknown to the user;
 * a walk of a bucket crowded on purpose is bounded by that owner's cap all
 * the same. Cheaper than jhash2() of the key, on every timeout() and
 * untimeout().
 */
static u32 to_bucket_of(const struct callout_key *key)
{
	u64 h = ((uintptr_t)key->owner ^ to_hash_seed) * GOLDEN_RATIO_64;

	h = (h ^ key->func) * GOLDEN_RATIO_64;
	return hash_64(h ^ key->arg, to_hash_bits);
}

static spinlock_t *to_lock(u32 bucket)
{
	return &to_locks[bucket & to_lock_mask];
}

/* Take @to out of its bucket, if it is in one; bottom halves are off. */
static void to_unlink(struct callout_to *to)
{
	lockdep_assert(in_softirq());
	if (hlist_nulls_unhashed_lockless(&to->h.node))
		return;
	spin_lock(to_lock(to->bucket));
	/* ->next kept: a walk on @to goes on (to a nulls marker, at worst). */
	hlist_nulls_del_init_rcu(&to->h.node);
	WRITE_ONCE(to_table[to->bucket].len, to_table[to->bucket].len - 1);
	spin_unlock(to_lock(to->bucket));
}

/* Enter an unlinked @to in @bucket, its key written; bottom halves off. */
static void to_link(struct callout_to *to, u32 bucket)
{
	lockdep_assert(in_softirq());
	to->bucket = bucket;
	spin_lock(to_lock(bucket));
	/* A release: a walk that finds @to reads its new key. */
	hlist_nulls_add_head_rcu(&to->h.node, &to_table[bucket].head);
	WRITE_ONCE(to_table[bucket].len, to_table[bucket].len + 1);
	spin_unlock(to_lock(bucket));
}

static int to_index_init(void)
{
	unsigned long want = totalram_pages();
	unsigned int i;

	to_hash_bits = clamp(order_base_2(want), TO_HASH_MIN_BITS,
			     TO_HASH_MAX_BITS);
	to_table = kvmalloc_array(1U << to_hash_bits, sizeof(*to_table),
				  GFP_KERNEL);
	if (!to_table)
		return -ENOMEM;
	for (i = 0; i < 1U << to_hash_bits; i++) {
		INIT_HLIST_NULLS_HEAD(&to_table[i].head, i);
		to_table[i].len = 0;
	}
	if (alloc_bucket_spinlocks(&to_locks, &to_lock_mask,
				   1U << to_hash_bits, TO_LOCKS_PER_CPU, GFP_KERNEL)) {
		kvfree(to_table);
		return -ENOMEM;
	}
	to_hash_seed = get_random_u64();
	return 0;
}

static void to_index_exit(void)
{
	free_bucket_spinlocks(to_locks);
	kvfree(to_table);
}

/*
 * callout_to.state, for the owner's end (callout_owner_drain() and
 * callout_owner_destroy()) and debugfs; the core's pending state, not
 * this, decides between an expiry and an untimeout().
 *
 *   TO_IDLE   on a free list, or taken and not armed yet
 *   TO_ARMED  armed: pending, or its expiry or untimeout() under way
 *   TO_FIRED  its expiry ran: the owner's expire op has it
 */
enum {
	TO_IDLE,
	TO_ARMED,
	TO_FIRED,
};

/*
 * For debugfs: pending timeouts, and the longest bucket chain of the
 * index (idle callouts stay in theirs). A walk of every bucket, in steps
 * that reschedule.
 */
void callout_hash_stats(u64 *entries, u64 *longest_chain)
{
	struct hlist_nulls_node *pos;
	struct callout_to *to;
	u64 len, max = 0, sum = 0;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < 1U << to_hash_bits; i++) {
		if (!(i % TO_STATS_RESCHED)) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
		len = 0;
		hlist_nulls_for_each_entry_rcu(to, pos, &to_table[i].head, h.node) {
			len++;
			sum += READ_ONCE(to->state) == TO_ARMED;
		}
		max = max(max, len);
	}
	rcu_read_unlock();
	*entries = sum;
	*longest_chain = max;
}

/*
 * Slab constructor: once per object, not per allocation (see the top).
 * The callout is initialised here and never again: a walk under RCU may
 * lock its base at any time, so its fields stay a callout's across
 * kmem_cache_free() and kmem_cache_alloc().
 */
static void callout_to_ctor(void *obj)
{
	struct callout_to *to = obj;

	__callout_init(&to->c);
	to->h.node.pprev = NULL;	/* unhashed: in no bucket */
	to->bucket = 0;
	to->state = TO_IDLE;
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
 * caller: the whole of a timeout() and of an untimeout() is one such
 * section), as expiries put theirs from softirq, and under its local lock:
 * on PREEMPT_RT bottom halves off no longer keep out another task of the
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
static struct callout_to *to_take_free(struct callout_owner *o)
{
	struct callout_to *to;

	lockdep_assert(in_softirq());
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
	if (!to) {
		callout_alloc_failed(CALLOUT_ALLOC_TIMEOUT);
		return NULL;
	}
	/* Not ->c nor ->h: the constructor's, kept across reuse (the top). */
	to->owner = o;
	spin_lock_bh(&o->lock);
	list_add(&to->link, &o->all);
	spin_unlock_bh(&o->lock);
	return to;
}

/*
 * Back to the slab, out of the index; the caller has taken it off @o's
 * list. Bottom halves are off.
 */
static void to_free(struct callout_owner *o, struct callout_to *to)
{
	lockdep_assert(in_softirq());
	to_unlink(to);
	kmem_cache_free(o->cache, to);
}

/* callout_to_put() with bottom halves off */
static void to_put(struct callout_to *to)
{
	struct callout_owner *o = to->owner;
	bool keep;

	lockdep_assert(in_softirq());
	WRITE_ONCE(to->state, TO_IDLE);
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
		to_free(o, to);
}

/**
 * callout_to_put() - give a timeout back to its owner
 * @to:	not pending, and its expiry finished or never to run for the
 *	arming it had
 *
 * It goes on its owner's free list (this CPU's front of it first), still
 * in its bucket of the index, or back to the slab when that list is full
 * or the owner is being drained.
 *
 * Context: process or softirq, interrupts on.
 */
void callout_to_put(struct callout_to *to)
{
	local_bh_disable();
	to_put(to);
	local_bh_enable();
}

/*
 * The func of every timeout's callout, in softirq context. The core ran
 * it, so no untimeout() can cancel this arming any more: the owner's
 * expire op has it, out of the index (see the top).
 */
static void to_expire(void *arg)
{
	struct callout_to *to = arg;

	WRITE_ONCE(to->state, TO_FIRED);
	to_unlink(to);
	to->owner->ops->expire(to);
}

/* Read racily: @h may be rewritten by a new arming while we look. */
static bool has_key(const struct callout_hashed *h,
		    const struct callout_key *key)
{
	return READ_ONCE(h->key.owner) == key->owner &&
	       READ_ONCE(h->key.func) == key->func &&
	       READ_ONCE(h->key.arg) == key->arg;
}

/* callout_unset_if()'s test, under @c's base lock: @c is armed for @key. */
static bool to_armed_for(const struct callout *c, const void *key)
{
	return has_key(&container_of(c, struct callout_to, c)->h, key);
}

/*
 * How many armings of @key @bucket holds, up to CALLOUT_HASH_MAX_DUPS;
 * under RCU. Racy: arms of the one key at the same moment on other CPUs
 * may each count the others out. A bucket shorter than the cap holds
 * fewer, and that is every bucket but a few: no walk then.
 */
static unsigned int to_count_key(const struct callout_key *key, u32 bucket)
{
	struct hlist_nulls_node *pos;
	struct callout_to *to;
	unsigned int n;

	if (READ_ONCE(to_table[bucket].len) < CALLOUT_HASH_MAX_DUPS)
		return 0;
restart:
	n = 0;
	hlist_nulls_for_each_entry_rcu(to, pos, &to_table[bucket].head,
				       h.node)
		if (has_key(&to->h, key) &&
		    READ_ONCE(to->state) == TO_ARMED &&
		    ++n >= CALLOUT_HASH_MAX_DUPS)
			return n;
	if (get_nulls_value(pos) != bucket)
		goto restart;
	return n;
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
	struct callout_key key = { .owner = o, .func = func, .arg = arg };
	struct callout_to *to;
	u32 bucket;
	int ret;

	/*
	 * One section with bottom halves off, an RCU read side, from the
	 * take to the set: the free list and the bucket locks want them off.
	 */
	rcu_read_lock_bh();
	to = to_take_free(o);
	if (!to) {
		rcu_read_unlock_bh();
		to = to_alloc(o);
		if (!to)
			return -ENOMEM;
		rcu_read_lock_bh();
	}
	bucket = to_bucket_of(&key);
	if (to_count_key(&key, bucket) >= CALLOUT_HASH_MAX_DUPS) {
		ret = -ENOSPC;
		goto put;
	}
	/*
	 * A callout cancelled and armed again for its bucket stays linked
	 * (the same key, most often): only the key is written, which a walk
	 * checks again under the base lock before it cancels anything.
	 */
	if (to->bucket != bucket)
		to_unlink(to);
	WRITE_ONCE(to->h.key.owner, key.owner);
	WRITE_ONCE(to->h.key.func, func);
	WRITE_ONCE(to->h.key.arg, arg);
	if (hlist_nulls_unhashed_lockless(&to->h.node))
		to_link(to, bucket);
	WRITE_ONCE(to->state, TO_ARMED);
	/* One clock read for the due time and the arming, as callout_set(). */
	to->expires_ns = now_ns + (u64)ticks * callout_tick_ns_param;
	/* The key before the arming: callout_unset_if() relies on it. */
	ret = callout_set_ticks_from(&to->c, now_ns, ticks, to_expire, to);
	if (ret < 0)
		goto put;
	/* Pending now: an untimeout() or the expiry may have it already. */
	rcu_read_unlock_bh();
	return 0;
put:
	to_put(to);
	rcu_read_unlock_bh();
	return ret;
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
	u32 bucket = to_bucket_of(&key);
	struct hlist_nulls_node *pos;
	struct callout_to *to;

	/*
	 * One section with bottom halves off, which is an RCU read side,
	 * from the lookup to the put: this CPU's free list wants them off.
	 * A callout found may have been reused for another key since (it
	 * is never freed under us, SLAB_TYPESAFE_BY_RCU): the key is
	 * checked again with the cancel, under its base lock.
	 */
	rcu_read_lock_bh();
restart:
	hlist_nulls_for_each_entry_rcu(to, pos, &to_table[bucket].head,
				       h.node) {
		/* A racy look first: an idle one costs no base lock. */
		if (READ_ONCE(to->state) == TO_ARMED &&
		    has_key(&to->h, &key) &&
		    callout_unset_if(&to->c, to_armed_for, &key)) {
			to_put(to);
			rcu_read_unlock_bh();
			return 1;
		}
	}
	/* Led into another chain by a callout reused meanwhile? */
	if (get_nulls_value(pos) != bucket)
		goto restart;
	rcu_read_unlock_bh();
	return 0;
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
 * @o:		the owner, which arms and cancels no more
 * @warn:	warn, naming its func, that a timeout was left pending
 *
 * What its expire op holds, or an expiry in passage will give it, the
 * owner puts with callout_to_put() as usual. From here on every callout
 * put goes back to the slab. Each callout is looked at once, one per
 * section of @o's lock, and its idle ones are freed rescheduling as they
 * go.
 *
 * Context: process; may sleep.
 * Return: how many were pending.
 */
unsigned long callout_owner_drain(struct callout_owner *o, bool warn)
{
	struct callout_to *to, *idle;
	unsigned long n = 0, i = 0;
	LIST_HEAD(todo);
	bool was;

	spin_lock_bh(&o->lock);
	/* Read without the lock by to_put()'s per-CPU fast path. */
	WRITE_ONCE(o->closing, true);
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
		local_bh_disable();
		to_free(o, to);
		local_bh_enable();
		if (!(++i % TO_RESCHED))
			cond_resched();
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
		/* Under @o's lock: no put can free it while we look. */
		was = callout_unset(&to->c);
		spin_unlock_bh(&o->lock);
		if (was) {
			WARN_ONCE(warn, "a kernel caller left timeout %ps pending\n",
				  (void *)(uintptr_t)to->h.key.func);
			callout_to_put(to);
			n++;
		}
		/* Otherwise idle with its expire op, or its expiry under way. */
		cond_resched();
	}
	return n;
}

/**
 * callout_owner_destroy() - the end of a drained owner
 * @o:	the owner, every callout of which its expire op has put
 *
 * Waits for the expiries that callout_owner_drain() left in passage to
 * hand theirs to the expire op.
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
			if (READ_ONCE(to->state) != TO_FIRED)
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
static DEFINE_PER_CPU(struct callout_to_stack, callout_kernel_front) = {
	.bh_lock = INIT_LOCAL_LOCK(bh_lock),
};

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
	callout_kernel_owner.pcpu = &callout_kernel_front;
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
	to_index_exit();
	/* It waits for RCU readers of its objects first (TYPESAFE_BY_RCU). */
	kmem_cache_destroy(callout_kernel_cache);
}
