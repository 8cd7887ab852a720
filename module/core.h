/* SPDX-License-Identifier: GPL-2.0 */
/*
 * core.h - the facility's core (core.c) as the rest of callout.ko sees it:
 * the per-CPU bases, the module parameters, arming and cancelling.
 */
#ifndef CALLOUT_CORE_H
#define CALLOUT_CORE_H

#include <linux/atomic.h>
#include <linux/callout.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/smp.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include "callout_tw.h"
#include "compat.h"
#include "tw.h"

/* Owner bits of callout.entry.flags, under the base lock */
#define CALLOUT_EXPIRING	0x100u	/* collected, func not yet started */
#define CALLOUT_PARKED		0x200u	/* on base->parked, see there */
/* Its owner may have moved its due time later: ask callout_defer_ops */
#define CALLOUT_DEFER		0x400u
static_assert(!((CALLOUT_EXPIRING | CALLOUT_PARKED | CALLOUT_DEFER) &
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
 * @refiled:		due callouts queued again at a later tick their owner
 *			put them back to, their func not run (CALLOUT_DEFER)
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

/* core.c */
extern struct callout_base __percpu *callout_bases;
extern const struct tw_ops *callout_ops;
int callout_core_init(void);
void callout_core_stop(void);
void callout_core_exit(void);

/**
 * struct callout_defer_ops - what the tick asks the owner of a due
 * CALLOUT_DEFER callout before it runs its func
 * @due_tick:	the later tick, after @now, that @c's owner has moved it to,
 *		or 0 to run its func now; @now is the current tick, or the
 *		tick the wheel's pass has reached if that is later. Called
 *		for every expiry of @c, with its base locked and interrupts
 *		off: no lock, no sleep, O(1). @now_ns is the tick's latest
 *		clock read, made before this call: when @c fires, for its
 *		lateness and its tracepoint
 * @requeued:	@c is queued again at @tick, as @due_tick asked, its func not
 *		run; as @due_tick
 */
struct callout_defer_ops {
	u64 (*due_tick)(struct callout *c, u64 now, u64 now_ns);
	void (*requeued)(struct callout *c, u64 tick);
};

void callout_defer_register(const struct callout_defer_ops *ops);
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
/* Arm with @c's own func and arg, read under the base lock (callout_requeue) */
#define ARM_KEEP_FUNC		0x8u

/**
 * struct callout_commit - what a re-arming writes once it is sure
 * @commit:	called with @c's base lock held and interrupts off, once the
 *		new arming is accepted and before any expiry of it can run:
 *		O(1), no lock, no sleep. Embed it in what @commit needs.
 */
struct callout_commit {
	void (*commit)(struct callout *c, const struct callout_commit *cm);
};

int callout_arm(struct callout *c, u64 tick, u64 now, callout_func_t func,
		void *arg, unsigned int how, const struct callout_commit *cm);

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
	return callout_arm(c, now + ticks + !!rem, now, func, arg, 0, NULL);
}

int callout_unset_if(struct callout *c,
		     bool (*still)(const struct callout *c, const void *want),
		     const void *want);
int callout_set_from(struct callout *c, u64 now_ns, u64 expires_ns,
		     callout_func_t func, void *arg);
int callout_rearm_from(struct callout *c, u64 now_ns, u64 expires_ns,
		       unsigned int how, const struct callout_commit *cm);
int callout_requeue(struct callout *c, u64 now_ns, u64 expires_ns);
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
int __callout_batch_rearm_from(struct callout_batch *b, struct callout *c,
			       u64 now_ns, u64 expires_ns, unsigned int how,
			       const struct callout_commit *cm);
int __callout_batch_try_unset(struct callout_batch *b, struct callout *c);

/*
 * The batch calls, a NULL @b being the usual way. Inline, so that the
 * usual way costs no call more than the unbatched one.
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

static inline int callout_batch_rearm_from(struct callout_batch *b,
					   struct callout *c, u64 now_ns,
					   u64 expires_ns, unsigned int how,
					   const struct callout_commit *cm)
{
	return b ? __callout_batch_rearm_from(b, c, now_ns, expires_ns, how,
					      cm) :
		   callout_rearm_from(c, now_ns, expires_ns, how, cm);
}

static inline int callout_batch_try_unset(struct callout_batch *b,
					  struct callout *c)
{
	return b ? __callout_batch_try_unset(b, c) : callout_try_unset_sync(c);
}

void callout_wait_idle(struct callout *c);

#endif /* CALLOUT_CORE_H */
