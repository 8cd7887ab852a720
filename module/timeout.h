/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timeout.h - the old interface (timeout.c): timeouts found by owner, func
 * and arg, for the kernel's callers and each /dev/callout file.
 */
#ifndef CALLOUT_TIMEOUT_H
#define CALLOUT_TIMEOUT_H

#include <linux/list_nulls.h>
#include <linux/spinlock.h>
/* After spinlock.h: 6.12-rt's local_lock_internal.h needs spinlock_t. */
#include <linux/local_lock.h>

#include "core.h"

/**
 * struct callout_key - what the old interface finds a callout by
 * @owner:	the struct callout_owner: a /dev/callout file's, or
 *		timeout.c's of kernel callers
 * @func:	the func, as an opaque value
 * @arg:	the arg, as an opaque value
 */
struct callout_key {
	const void *owner;
	u64 func;
	u64 arg;
};

/* An entry of the func/arg index (timeout.c): one key may have many. */
struct callout_hashed {
	struct hlist_nulls_node node;
	struct callout_key key;
};

/* timeout.c: the old interface, one implementation for every owner */
struct callout_to;
struct kmem_cache;

/**
 * struct callout_owner_ops - what an owner of timeouts does with them
 * @expire:	a timeout of the owner expired: softirq context, the callout
 *		beyond untimeout()'s reach; the op owns it until it calls
 *		callout_to_put()
 */
struct callout_owner_ops {
	void (*expire)(struct callout_to *to);
};

/**
 * struct callout_to_stack - a per-CPU front of an owner's free list
 * @bh_lock:	taken with bottom halves off (timeout.c says why)
 * @top:	the idle callout put last, linked by ->next_free
 * @nr:		how many
 */
struct callout_to_stack {
	local_lock_t bh_lock;
	struct callout_to *top;
	unsigned int nr;
};

/**
 * struct callout_owner - who arms timeouts and cancels them by key: the
 * kernel's callers, or a /dev/callout file
 * @lock:	protects @free, @all, @nr_free and @closing; taken with
 *		bottom halves off, with no lock of the facility inside it
 *		but a base lock in callout_owner_drain()
 * @free:	idle callouts, at most @max_free, linked by ->next_free
 *		(4.4BSD's callfree)
 * @all:	every callout it has from its cache, idle or not
 * @nr_free:	on @free
 * @max_free:	the bound of @free
 * @closing:	draining: a callout put goes back to the slab
 * @ops:	its expire op
 * @cache:	its callouts' cache (callout_to_cache_create()), which its
 *		callouts are charged to
 * @gfp:	for allocations when @free is empty
 * @pcpu:	NULL, or per-CPU fronts of @free, each with bottom halves off:
 *		for an owner whose callers run on every CPU at once (the
 *		kernel's), drained only when nothing runs against it
 */
struct callout_owner {
	spinlock_t lock;		/* see above */
	struct callout_to *free;
	struct list_head all;
	unsigned int nr_free;
	unsigned int max_free;
	bool closing;
	const struct callout_owner_ops *ops;
	struct kmem_cache *cache;
	gfp_t gfp;
	struct callout_to_stack __percpu *pcpu;
};

/**
 * struct callout_to - a timeout: a callout found by its owner, func and arg
 * @c:		the callout; its func is timeout.c's
 * @h:		its entry in the func/arg index, key.owner its owner
 * @bucket:	the bucket of @h.key in that index
 * @state:	TO_IDLE, TO_ARMED or TO_FIRED (timeout.c), read racily
 * @expires_ns:	when its arming is due: the clock when it was armed + ticks
 *		* tick_ns (it fires at the first tick boundary at or after
 *		that), for its owner's expire op to report
 * @owner:	the owner whose cache it comes from
 * @link:	on the owner's list of all its callouts, under its lock
 * @next_free:	next on the owner's free list, under its lock
 *
 * An owner's objects start with one; its cache is SLAB_TYPESAFE_BY_RCU.
 */
struct callout_to {
	struct callout c;
	struct callout_hashed h;
	u32 bucket;
	int state;
	u64 expires_ns;
	struct callout_owner *owner;
	struct list_head link;
	struct callout_to *next_free;
};

struct kmem_cache *callout_to_cache_create(const char *name, size_t size,
					   slab_flags_t flags);
void callout_owner_init(struct callout_owner *o,
			const struct callout_owner_ops *ops,
			struct kmem_cache *cache, gfp_t gfp,
			unsigned int max_free);
unsigned long callout_owner_drain(struct callout_owner *o, bool warn);
void callout_owner_destroy(struct callout_owner *o);
int callout_to_arm(struct callout_owner *o, u64 func, u64 arg,
		   unsigned long ticks, u64 now_ns);
int callout_to_cancel(struct callout_owner *o, u64 func, u64 arg);
void callout_to_put(struct callout_to *to);
int callout_timeout_init(void);
void callout_timeout_exit(void);
void callout_hash_stats(u64 *entries, u64 *longest_chain);

#endif /* CALLOUT_TIMEOUT_H */
