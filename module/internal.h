/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - what the parts of callout.ko share: the per-CPU bases, the
 * module parameters and the statistics.
 */
#ifndef CALLOUT_INTERNAL_H
#define CALLOUT_INTERNAL_H

#include <linux/atomic.h>
#include <linux/callout.h>
#include <linux/list_nulls.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/smp.h>
#include <linux/percpu.h>
#include <linux/percpu_counter.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
/* After spinlock.h: 6.12-rt's local_lock_internal.h needs spinlock_t. */
#include <linux/local_lock.h>

#include "callout_tw.h"
#include "compat.h"
#include "tw.h"

/* Owner bits of callout.entry.flags, under the base lock */
#define CALLOUT_EXPIRING	0x100u	/* collected, func not yet started */
#define CALLOUT_PARKED		0x200u	/* on base->parked, see there */
/* A /dev/callout file's: its owner may have put its due time back */
#define CALLOUT_LAZY		0x400u
static_assert(!((CALLOUT_EXPIRING | CALLOUT_PARKED | CALLOUT_LAZY) &
		(TW_PENDING | TW_DUE)));

/* Lateness histogram: bucket i counts fired - due in [2^(i-1), 2^i) us. */
#define CALLOUT_LATE_BUCKETS	16

/**
 * struct callout_cpu_stats - per-CPU counters, under the base lock
 * @set:		callouts armed
 * @unset:		callouts cancelled while pending
 * @expired:		callbacks run
 * @ticks_run:		runs of the hrtimer tick
 * @late:		lateness histogram, see CALLOUT_LATE_BUCKETS
 * @max_late_ns:	largest fired - due seen
 * @slowest_ns:		slowest callback
 * @deferred:		runs that hit a budget (funcs, or the collection's)
 * @refiled:		due callouts filed again at a later tick their owner
 *			put them back to, their func not run (CALLOUT_LAZY)
 *			and came back at once
 * @collect_stopped:	collections (in a run or a set) that spent their
 *			budget, CALLOUT_COLLECT_BUDGET, with more due
 * @collect_max_ns:	longest collection of a run: from the base lock
 *			taken to the first func, interrupts off throughout
 * @full_catch_ups:	sets whose scheme refused a lagging wheel and so
 *			caught it up without a budget (core.c, __enqueue())
 * @moved:		callouts taken from CPUs that went offline
 * @parked:		of those, callouts this base's scheme refused, parked
 *			on base->parked to fire from there
 * @stayed_busy:	sets on another CPU that left a callout here, that
 *			CPU's base lock being busy
 * @stayed_running:	sets on another CPU that left a callout here, its func
 *			running here
 * @kicks:		IPIs from other CPUs to start this base's hrtimer
 * @ticks_off_cpu:	runs of this base's tick on another CPU while this one
 *			was up (each a bug, and a WARN the first time)
 */
struct callout_cpu_stats {
	u64 set;
	u64 unset;
	u64 expired;
	u64 ticks_run;
	u64 late[CALLOUT_LATE_BUCKETS];
	u64 max_late_ns;
	u64 slowest_ns;
	u64 deferred;
	u64 refiled;
	u64 collect_stopped;
	u64 collect_max_ns;
	u64 full_catch_ups;
	u64 moved;
	u64 parked;
	u64 stayed_busy;
	u64 stayed_running;
	u64 kicks;
	u64 ticks_off_cpu;
};

/**
 * struct callout_base - one CPU's wheel and the hrtimer that advances it
 * @lock:	protects every field below but @expiry_lock
 * @wheel:	the timer scheme instance
 * @expired:	collected callouts whose func has not started yet
 * @parked:	callouts moved here from a CPU that went offline whose
 *		expiry the wheel refused (lawn out of queues): each run of
 *		the tick moves the due ones to @expired and retries the
 *		others' insert; CALLOUT_PARKED in their flags
 * @running:	the callout whose func runs now, or NULL
 * @timer:	the tick; armed only while work can be due (tickless), and
 *		only by this CPU while it is up (core.c's __program())
 * @timer_tick:	the tick @timer is armed for, or is being armed for by a
 *		kick; TW_NEVER when not armed. Read by @kick without the lock
 * @kick:	another CPU's request to this one to start @timer (an IPI)
 * @kick_pending: @kick is sent and has not started yet
 * @expiry_lock: held by the tick while funcs run; callout_unset_sync()
 *		waits on it instead of spinning (PREEMPT_RT safe)
 * @expiry_waiters: callout_unset_sync() callers about to wait on or
 *		waiting on @expiry_lock; the tick lets go of it between two
 *		funcs only when there is one, as timer.c does
 * @cpu:	the CPU this base belongs to
 * @online:	false once the CPU is going down: nothing new is armed here
 * @stats:	counters
 */
struct callout_base {
	spinlock_t lock;		/* see above */
	struct tw_wheel wheel;
	struct list_head expired;
	struct list_head parked;
	struct callout *running;
	struct hrtimer timer;
	u64 timer_tick;
	call_single_data_t kick;
	atomic_t kick_pending;
	spinlock_t expiry_lock;		/* see above */
	atomic_t expiry_waiters;
	unsigned int cpu;
	bool online;
	struct callout_cpu_stats stats;
};

/* Module parameters, read-only after load (main.c) */
extern char *callout_scheme;
extern unsigned long callout_tick_ns_param;

/* The first tick boundary at or after @ns; exact up to U64_MAX. */
static inline u64 callout_ns_to_tick_up(u64 ns)
{
	u64 rem, tick = div64_u64_rem(ns, callout_tick_ns_param, &rem);

	return tick + !!rem;
}

extern struct tw_geometry callout_geo;	/* the wheels', from the parameters */
extern unsigned long callout_max_per_file, callout_max_total;

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

/* core.c */
extern struct callout_base __percpu *callout_bases;
extern const struct tw_ops *callout_ops;
int callout_core_init(void);
void callout_core_exit(void);
extern u64 callout_max_ns, callout_max_ticks;

/* The facility's clock: CLOCK_MONOTONIC, inline on every arming's path. */
static inline u64 callout_now_ns(void)
{
	return ktime_get_ns();
}

/* The longest timeout any caller may ask for, fixed at load. */
static inline u64 callout_max_timeout_ns(void)
{
	return callout_max_ns;
}

/*
 * callout_init() for the facility's own callouts: inline, as the ioctls
 * set one up on every arming (the old interface's, once per object, in
 * its slab constructor).
 */
static inline void __callout_init(struct callout *c)
{
	tw_entry_init(&c->entry);
	c->func = NULL;
	c->arg = NULL;
	c->base = raw_cpu_ptr(callout_bases);
}

/* How callout_arm() may refuse, besides the scheme's refusals */
#define ARM_IF_IDLE		0x1u	/* -EALREADY if @c is pending */
#define ARM_IF_NOT_RUNNING	0x2u	/* -EBUSY if @c's func runs */
#define ARM_IF_PENDING		0x4u	/* -ENOENT if @c is not pending */
/* Arm with @c's own func and arg, read under the base lock (callout_refile) */
#define ARM_KEEP_FUNC		0x8u

int callout_arm(struct callout *c, u64 tick, u64 now, callout_func_t func,
		void *arg, unsigned int how);

/*
 * callout_set() from @now_ns, callout_now_ns() read by the caller: for one
 * that reports the due time, @now_ns + @ticks * tick_ns, to its user.
 * Inline, so that the old interface's arming costs no call more than
 * callout_set()'s.
 */
static inline int callout_set_ticks_from(struct callout *c, u64 now_ns,
					 unsigned long ticks,
					 callout_func_t func, void *arg)
{
	u64 now, rem;

	if (ticks > callout_max_ticks)
		return -ERANGE;
	/*
	 * One division: now + ticks * tick_ns rounded up to a tick boundary
	 * is tick now + ticks, plus one unless now is on a boundary itself.
	 */
	now = div64_u64_rem(now_ns, callout_tick_ns_param, &rem);
	return callout_arm(c, now + ticks + !!rem, now, func, arg, 0);
}

int callout_unset_if(struct callout *c, const struct callout_key *key,
		     const struct callout_key *want);
int callout_set_from(struct callout *c, u64 now_ns, u64 expires_ns,
		     callout_func_t func, void *arg);
int callout_reset_from(struct callout *c, u64 now_ns, u64 expires_ns,
		       callout_func_t func, void *arg);
s64 callout_forward(struct callout *c, u64 now_ns, u64 period_ns,
		    u64 *expires_ns);
int callout_refile(struct callout *c, u64 now_ns, u64 expires_ns);
u64 callout_dev_due_tick(struct callout *c, u64 now);
void callout_dev_refiled(struct callout *c, u64 tick);
int callout_try_unset_sync(struct callout *c);

/**
 * struct callout_batch - this CPU's base held across operations (core.c)
 * @base:	the base held, or NULL
 * @flags:	its saved interrupt state
 * @ops:	operations done under this hold
 * @now_ns:	the clock read the batch's operations were last given
 * @now:	its tick
 *
 * Start with ``struct callout_batch b = {}``; end with callout_batch_end().
 */
struct callout_batch {
	struct callout_base *base;
	unsigned long flags;
	unsigned int ops;
	u64 now_ns;
	u64 now;
};

void __callout_batch_end(struct callout_batch *b);
int __callout_batch_set_from(struct callout_batch *b, struct callout *c,
			     u64 now_ns, u64 expires_ns, callout_func_t func,
			     void *arg);
int __callout_batch_reset_from(struct callout_batch *b, struct callout *c,
			       u64 now_ns, u64 expires_ns,
			       callout_func_t func, void *arg);
int __callout_batch_try_unset(struct callout_batch *b, struct callout *c);

/*
 * The batch calls, a NULL @b being the usual way. Inline, so that the
 * usual way costs no call more than it did: under TCG a call and its
 * return cost tens of ns.
 */

/**
 * callout_batch_end() - let go of a batch's base, if it holds one
 * @b:	the batch, or NULL
 */
static inline void callout_batch_end(struct callout_batch *b)
{
	if (b && b->base)
		__callout_batch_end(b);
}

static inline int callout_batch_set_from(struct callout_batch *b,
					 struct callout *c, u64 now_ns,
					 u64 expires_ns, callout_func_t func,
					 void *arg)
{
	return b ? __callout_batch_set_from(b, c, now_ns, expires_ns, func,
					    arg) :
		   callout_set_from(c, now_ns, expires_ns, func, arg);
}

static inline int callout_batch_reset_from(struct callout_batch *b,
					   struct callout *c, u64 now_ns,
					   u64 expires_ns, callout_func_t func,
					   void *arg)
{
	return b ? __callout_batch_reset_from(b, c, now_ns, expires_ns, func,
					      arg) :
		   callout_reset_from(c, now_ns, expires_ns, func, arg);
}

static inline int callout_batch_try_unset(struct callout_batch *b,
					  struct callout *c)
{
	return b ? __callout_batch_try_unset(b, c) : callout_try_unset_sync(c);
}

void callout_wait_idle(struct callout *c);

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

/* dev.c */
int callout_dev_init(void);
void callout_dev_exit(void);
extern struct percpu_counter callout_user_total;

/* clock.c: the clock page, which dev.c's mmap() gives */
struct vm_area_struct;
int callout_clock_mmap(struct vm_area_struct *vma);
int callout_clock_init(void);
void callout_clock_exit(void);

/* Counted where no base lock is held: this_cpu_inc() */
struct callout_op_counts {
	u64 reset;
	u64 timeout;
	u64 untimeout;
};
DECLARE_PER_CPU(struct callout_op_counts, callout_op_counts);

/*
 * Where an allocation for a caller can fail, each failure counted once
 * (debugfs alloc_failures): the caller sees -ENOMEM for every one.
 */
enum callout_alloc_site {
	CALLOUT_ALLOC_FILE,		/* open(): the file */
	CALLOUT_ALLOC_HANDLES,		/* SET: the handle table's part */
	CALLOUT_ALLOC_DUE_PAGE,		/* SET: a page of the due table */
	CALLOUT_ALLOC_DUE_INDEX,	/* SET: the due table's index */
	CALLOUT_ALLOC_CALLOUT,		/* SET: the user callout */
	CALLOUT_ALLOC_TIMEOUT,		/* TIMEOUT, timeout(): the callout */
	CALLOUT_ALLOC_NR
};

extern atomic_long_t callout_alloc_failures[CALLOUT_ALLOC_NR];

static inline void callout_alloc_failed(enum callout_alloc_site site)
{
	atomic_long_inc(&callout_alloc_failures[site]);
}

/* stats.c */
void callout_stats_sum(struct callout_cpu_stats *total);
void callout_debugfs_init(void);
void callout_debugfs_exit(void);

#endif /* CALLOUT_INTERNAL_H */
