// SPDX-License-Identifier: GPL-2.0
/*
 * timeout.c - the old interface, timeout() and untimeout(): callouts found
 * by their func and arg through a hash (an rhltable) instead of a handle.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>

#include "internal.h"

/*
 * The func/arg hash of the old interface, timeout() and untimeout(), shared
 * by kernel callers (owner NULL) and /dev/callout files (owner the file).
 */
static const struct rhashtable_params callout_hash_params = {
	.key_len		= sizeof(struct callout_key),
	.key_offset		= offsetof(struct callout_hashed, key),
	.head_offset		= offsetof(struct callout_hashed, node),
	.automatic_shrinking	= true,
};

static struct rhltable callout_hash;
static atomic64_t callout_hash_nr_lookups;

/*
 * Callouts of one key share a singly linked list, which rhltable_remove()
 * walks; a cap keeps that walk, and untimeout()'s, O(1).
 */
#define CALLOUT_HASH_MAX_DUPS	64

/* Return: 0, -ENOSPC when the key already has its fill, or -ENOMEM. */
int callout_hash_insert(struct callout_hashed *h)
{
	struct rhlist_head *pos, *list;
	unsigned int n = 0;
	int ret;

	rcu_read_lock();
	list = rhltable_lookup(&callout_hash, &h->key, callout_hash_params);
	rhl_for_each_rcu(pos, list)
		if (++n >= CALLOUT_HASH_MAX_DUPS)
			break;
	rcu_read_unlock();
	if (n >= CALLOUT_HASH_MAX_DUPS)
		return -ENOSPC;
	ret = rhltable_insert(&callout_hash, &h->node, callout_hash_params);
	/* -EBUSY, -E2BIG: the table could not grow fast enough. */
	return ret ? -ENOMEM : 0;
}

void callout_hash_remove(struct callout_hashed *h)
{
	rhltable_remove(&callout_hash, &h->node, callout_hash_params);
}

/* Call under rcu_read_lock(); walk the result with rhl_for_each_entry_rcu. */
struct rhlist_head *callout_hash_lookup(const struct callout_key *key)
{
	atomic64_inc(&callout_hash_nr_lookups);
	return rhltable_lookup(&callout_hash, key, callout_hash_params);
}

u64 callout_hash_lookups(void)
{
	return atomic64_read(&callout_hash_nr_lookups);
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

/* A timeout() of a kernel caller. */
struct callout_to {
	struct callout c;
	struct callout_hashed h;
	struct rcu_head rcu;
};

static struct kmem_cache *callout_to_cache;

/* call_rcu(), not kfree_rcu(): rcu_barrier() at unload waits for these. */
static void callout_to_free_rcu(struct rcu_head *rcu)
{
	kmem_cache_free(callout_to_cache, container_of(rcu, struct callout_to, rcu));
}

static void callout_to_fire(void *arg)
{
	struct callout_to *to = arg;

	callout_hash_remove(&to->h);
	((callout_func_t)(uintptr_t)to->h.key.func)((void *)(uintptr_t)to->h.key.arg);
	call_rcu(&to->rcu, callout_to_free_rcu);
}

/**
 * callout_timeout() - the old interface: run @func(@arg) in @ticks ticks
 * @func:	run at expiry in softirq context; must not sleep
 * @arg:	its argument; with @func the key untimeout() cancels by
 * @ticks:	ticks of callout_tick_ns() from now, as callout_set()
 *
 * The pair need not be unique: each call arms one more callout, up to 64
 * pending for one pair.
 *
 * Context: process or softirq, interrupts enabled (allocates with
 * GFP_ATOMIC; the hash takes its bucket locks with bottom halves off).
 * Return: 0, -EINVAL for a NULL @func, -ENOMEM, -ENOSPC when 64 callouts of
 * this pair are pending, or -ERANGE as callout_set().
 */
int callout_timeout(callout_func_t func, void *arg, unsigned long ticks)
{
	struct callout_to *to;
	int ret;

	lockdep_assert_irqs_enabled();
	if (!func)
		return -EINVAL;
	this_cpu_inc(callout_op_counts.timeout);
	to = kmem_cache_zalloc(callout_to_cache, GFP_ATOMIC);
	if (!to)
		return -ENOMEM;
	to->h.key.func = (uintptr_t)func;
	to->h.key.arg = (uintptr_t)arg;
	callout_init(&to->c);
	ret = callout_hash_insert(&to->h);
	if (ret)
		goto free;
	ret = callout_set(&to->c, ticks, callout_to_fire, to);
	if (ret < 0) {
		callout_hash_remove(&to->h);
		goto free;
	}
	return 0;
free:
	call_rcu(&to->rcu, callout_to_free_rcu);
	return ret;
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
	struct callout_key key = {
		.func = (uintptr_t)func,
		.arg = (uintptr_t)arg,
	};
	struct callout_to *to, *found = NULL;
	struct callout_hashed *h;
	struct rhlist_head *pos, *list;

	lockdep_assert_irqs_enabled();
	this_cpu_inc(callout_op_counts.untimeout);
	rcu_read_lock();
	list = callout_hash_lookup(&key);
	rhl_for_each_entry_rcu(h, pos, list, node) {
		to = container_of(h, struct callout_to, h);
		if (callout_unset(&to->c)) {
			found = to;
			break;
		}
	}
	rcu_read_unlock();
	if (!found)
		return 0;
	callout_hash_remove(&found->h);
	call_rcu(&found->rcu, callout_to_free_rcu);
	return 1;
}
EXPORT_SYMBOL_NS_GPL(callout_untimeout, CALLOUT_NS);

int callout_timeout_init(void)
{
	int ret;

	callout_to_cache = KMEM_CACHE(callout_to, 0);
	if (!callout_to_cache)
		return -ENOMEM;
	ret = rhltable_init(&callout_hash, &callout_hash_params);
	if (ret)
		kmem_cache_destroy(callout_to_cache);
	return ret;
}

static void callout_to_free(void *ptr, void *arg)
{
	struct callout_to *to = container_of(ptr, struct callout_to, h);

	WARN_ONCE(1, "a kernel caller left timeout %ps pending\n",
		  (void *)(uintptr_t)to->h.key.func);
	callout_unset_sync(&to->c);
	kmem_cache_free(callout_to_cache, to);
}

/* Every file is closed and no client is loaded; the ticks still run. */
void callout_timeout_exit(void)
{
	rhltable_free_and_destroy(&callout_hash, callout_to_free, NULL);
	rcu_barrier();
	kmem_cache_destroy(callout_to_cache);
}
