// SPDX-License-Identifier: GPL-2.0
/*
 * core.c - per-CPU callout bases advanced by an hrtimer tick, and the
 * in-kernel API.
 *
 * Each CPU has a base: a wheel of the chosen scheme (tw.h), a spinlock and a
 * pinned soft hrtimer. A callout is armed on the base of the CPU that sets it,
 * or stays on another's (that CPU's lock busy, or its func running there);
 * then that CPU is kicked to start its own hrtimer, as a pinned hrtimer
 * started from here would move here: a base's funcs run on its CPU.
 * The hrtimer is armed only while the wheel holds work, for the next tick
 * that can hold work (tickless): a CPU with nothing pending takes no timer
 * interrupts from callout.
 *
 * Time: tick t covers [t * tick_ns, (t + 1) * tick_ns) of CLOCK_MONOTONIC. A
 * callout due at expires_ns is filed at tick ceil(expires_ns / tick_ns), and
 * the hrtimer for tick t fires at t * tick_ns, so no callout fires before its
 * time (late over early). Each run advances the wheel to the tick ktime says
 * it is, so a late run catches up in one pass and nothing drifts.
 *
 * A run collects the due callouts onto base->expired under the lock, then
 * runs their funcs one at a time with the lock dropped, at most
 * CALLOUT_RUN_BUDGET a run; a longer backlog re-arms the hrtimer to come back
 * at once in a new softirq run, so a burst cannot hog the CPU.
 *
 * Bounded work with interrupts off. The base lock is taken with interrupts
 * off, so no section under it may grow with the number of callouts due.
 * A collection looks at no more than CALLOUT_COLLECT_BUDGET entries of the
 * wheel (tw.h, "Budgets"): a run collects a chunk, runs it, lets go of the
 * lock and collects the next, up to its budget of funcs, and comes back at
 * once for the rest, as it does for funcs. A set catches the wheel up by at
 * most a chunk too, so the wheel may lag the clock while a backlog is
 * worked off: a set due by the clock's tick, or by the tick the wheel's
 * pass is going to, goes straight onto base->expired, never into a wheel
 * that might have passed its slot. A scheme that measures from w->now
 * (simple's MaxInterval, lawn's TTL queues) may refuse a lagging wheel what
 * it takes from one that is current: that set alone catches the wheel up
 * in full and asks again (stats "full_catch_ups"), the one collection
 * without a bound, and a rare one: only simple and lawn refuse, only with a
 * backlog in progress, and it costs what that backlog costs without
 * budgets. CPU offline moves callouts CALLOUT_MOVE_BUDGET at a time,
 * letting go of both locks between chunks.
 *
 * Locking. Every lock of callout.ko, outermost first: none is taken while
 * holding one below it in this list.
 *
 *   file->read_lock     dev_events.c, a mutex: one reader of a file at a time
 *                       (read(), and poll() with a trylock)
 *   base->expiry_lock   held by the tick across a run of funcs (BHs off)
 *   callout_func_map    lockdep only: "a func runs", inside expiry_lock
 *   file->lock          dev.h, the file lock (BHs off): ioctls, the
 *                       reader's batches, close(); never taken in the
 *                       tick
 *   timeout.c's locks   the func/arg index's bucket locks, and an owner's
 *                       lock (its free list), each BHs off and taken with
 *                       no other lock of callout.ko held but expiry_lock
 *                       (a timeout's expiry unhashes it and may put
 *                       it); neither nests in the other;
 *                       callout_owner_drain() cancels with an owner's
 *                       lock held (a base lock inside it).
 *                       The kernel owner's per-CPU free lists take a
 *                       local lock each, BHs off (a per-CPU spinlock on
 *                       PREEMPT_RT), a leaf
 *   base->lock          a base and its callouts (interrupts off); only the
 *                       hrtimer core's own locks nest inside it, and in
 *                       a batch (dev_submit.c's SUBMIT, "Batches" below)
 *                       what the device does between its operations:
 *                       the slab's, a percpu_counter's and printk's, all
 *                       leaves
 *   file->wq's lock     a leaf: the tick's uc_fire() wakes a file's
 *                       readers with no lock of callout.ko held but
 *                       expiry_lock (and the func map)
 *
 * That is expiry_lock -> base lock (a func re-arms, callout_requeue()),
 * and the read mutex -> file lock -> base lock (never in the tick, nor
 * under expiry_lock). The tick hands events to a file through a
 * lock-less list, and asks the owner of a CALLOUT_DEFER callout, under
 * the base lock, where it is due now (callout_defer_ops, which a file
 * answers with a read of its due-time entry, no lock). Rules that follow:
 *
 * - base->lock protects the base and the state of every callout on it. A
 *   callout moves to another base only with both base locks held, the
 *   second taken with spin_trylock(), so two base locks have no order:
 *   c->base always names a base, and lock_base() retries if it changed
 *   while it waited. callout_cpu_dead() alone takes a second one outright
 *   (the dead CPU's, under its own), and callout_arm() lets go of a dead
 *   CPU's base rather than wait for it.
 * - A func runs with no base lock held; it may set callouts (base locks)
 *   and take locks of its own. callout_unset_sync() waits for funcs, so its
 *   caller holds no lock that any func takes: not only its own callout's
 *   func, since a waiter on expiry_lock may wait out the rest of a run.
 *   Lockdep checks this on every call, not only when it waits
 *   (callout_func_map). A file lock holder cancels with
 *   callout_try_unset_sync() and re-arms with callout_rearm_from(), which
 *   never wait; it waits (callout_unset_sync(), callout_wait_idle()) with
 *   the file lock dropped.
 * - A helper whose name starts with __ is called with the lock it works
 *   under held, and says so with lockdep_assert_held().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/export.h>
#include <linux/math64.h>
#include <linux/preempt.h>
#include <linux/slab.h>

#include "core.h"
#include "stats.h"
#include "timeout.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

#define CALLOUT_RUN_BUDGET	1024

/*
 * The most wheel entries one collection looks at with the base lock held
 * (interrupts off), and the most chunks a run collects before it comes
 * back in a new softirq run.
 */
#define CALLOUT_COLLECT_BUDGET	256
#define CALLOUT_RUN_CHUNKS	16

/* The most callouts a CPU going offline hands over per locked section. */
#define CALLOUT_MOVE_BUDGET	256

struct callout_base __percpu *callout_bases;
const struct tw_ops *callout_ops;
u64 callout_max_ns __ro_after_init;	/* callout_max_timeout_ns() */
u64 callout_max_ticks __ro_after_init;	/* the same in ticks */
static enum cpuhp_state callout_hp_state;

/*
 * "A func runs", for lockdep, as timer.c couples call_timer_fn() and
 * timer_delete_sync(): the tick holds it around each func, and
 * callout_unset_sync() takes and drops it on every call, so a caller that
 * holds a lock some func takes is reported the first time it calls, not
 * only on the day it happens to wait. One map for all callouts, where
 * timer.c has one per timer: a waiter on expiry_lock may wait for the rest
 * of the run, whatever funcs that holds, so a lock held across
 * callout_unset_sync() must be one that no func takes.
 */
#ifdef CONFIG_LOCKDEP
static struct lock_class_key callout_func_key;
static struct lockdep_map callout_func_map =
	STATIC_LOCKDEP_MAP_INIT("callout_func", &callout_func_key);
#endif

/*
 * Tell lockdep that the caller waits for funcs, whether or not it will: if
 * it reports here, the caller holds a lock that some func takes. Interrupts
 * off, as timer.c does: the map is held in softirq context. Always inline,
 * so the report's "at:" names the API its caller called (callout_unset_sync()
 * or callout_wait_idle()), not this helper.
 */
static __always_inline void wait_for_funcs_map(void)
{
#ifdef CONFIG_LOCKDEP
	unsigned long flags;

	local_irq_save(flags);
	lock_map_acquire(&callout_func_map);
	lock_map_release(&callout_func_map);
	local_irq_restore(flags);
#endif
}

/**
 * callout_tick_ns() - the length of one tick of the facility
 *
 * Return: nanoseconds per tick, the tick_ns module parameter.
 */
u64 callout_tick_ns(void)
{
	return callout_tick_ns_param;
}
EXPORT_SYMBOL_NS_GPL(callout_tick_ns, CALLOUT_NS);

/*
 * The longest timeout, whatever the scheme: a quarter of ktime_t's range,
 * so that now + timeout cannot wrap for centuries of uptime.
 */
#define CALLOUT_MAX_NS	(KTIME_MAX / 4)

/*
 * now + timeout must not wrap, and the scheme holds no more than its
 * longest interval, of which one tick goes to rounding the due time up.
 */
static void callout_max_timeout_init(void)
{
	u64 ticks = tw_max_interval(callout_ops, &callout_geo) - 1;

	callout_max_ns = CALLOUT_MAX_NS;
	if (ticks < div64_u64(callout_max_ns, callout_tick_ns_param))
		callout_max_ns = ticks * callout_tick_ns_param;
	callout_max_ticks = div64_u64(callout_max_ns, callout_tick_ns_param);
}

static struct callout_base *lock_base(struct callout *c, unsigned long *flags)
	__acquires(&base->lock)
{
	for (;;) {
		struct callout_base *base = READ_ONCE(c->base);

		spin_lock_irqsave(&base->lock, *flags);
		/* If @c left this base, it may move on under other locks. */
		if (likely(base == READ_ONCE(c->base)))
			return base;
		spin_unlock_irqrestore(&base->lock, *flags);
	}
}

/*
 * Start the base's hrtimer for @tick, 0 meaning as soon as possible (see
 * __arm_soon()). On the base's own CPU, or on any while that one is down.
 */
static void start_tick(struct callout_base *base, u64 tick)
{
	u64 ns;

	if (!tick)
		ns = callout_now_ns() + 1;
	else if (tick < div64_u64(KTIME_MAX, callout_tick_ns_param))
		ns = tick * callout_tick_ns_param;
	else
		ns = KTIME_MAX;
	hrtimer_start(&base->timer, ns_to_ktime(ns),
		      HRTIMER_MODE_ABS_PINNED_SOFT);
}

/*
 * The kick: another CPU filed a callout on this base due before the hrtimer
 * was armed for, and asks this CPU to start it. An IPI function, it runs in
 * hard interrupt context, on PREEMPT_RT too, so it takes no base lock (a
 * sleeping lock there). Other CPUs only ever lower timer_tick, each then
 * sending a kick unless one is pending; pending is cleared before
 * timer_tick is read, with full barriers on both sides, so a kick either
 * reads the latest value or another is sent. On PREEMPT_RT a kick may read
 * a value the tick is replacing; that costs at most one early run that
 * finds nothing due.
 */
static void callout_kick(void *arg)
{
	struct callout_base *base = arg;
	u64 tick;

	atomic_set(&base->kick_pending, 0);
	smp_mb();	/* pairs with atomic_xchg() in __program() */
	tick = READ_ONCE(base->timer_tick);
	if (tick != TW_NEVER)
		start_tick(base, tick);
}

/*
 * Get the base's hrtimer started for base->timer_tick, from its own CPU. A
 * pinned hrtimer started on another CPU moves to that CPU
 * (switch_hrtimer_base()), and the base's funcs would run there: so
 * another CPU kicks the base's CPU instead, with an IPI, as timer.c's
 * trigger_dyntick_cpu() wakes a remote CPU. A CPU that is down has had its
 * hrtimers moved away by the hrtimer core until callout_cpu_dead() takes
 * its callouts: that base's is started from here. Preemption is off from
 * the check to the IPI, so the CPU cannot go down between them (a CPU goes
 * down in stop_machine()).
 */
static void __program(struct callout_base *base)
{
	lockdep_assert_held(&base->lock);
	preempt_disable();
	if (base->cpu == smp_processor_id() || !cpu_online(base->cpu)) {
		start_tick(base, base->timer_tick);
	} else if (!atomic_xchg(&base->kick_pending, 1)) {
		base->stats.kicks++;
		/* Only with the csd in use or the CPU down: neither can be. */
		if (WARN_ON_ONCE(smp_call_function_single_async(base->cpu,
								&base->kick)))
			atomic_set(&base->kick_pending, 0);
	}
	preempt_enable();
}

/* Arm the base's hrtimer for @tick unless it is already armed earlier. */
static void __arm_base(struct callout_base *base, u64 tick)
{
	lockdep_assert_held(&base->lock);
	if (tick >= base->timer_tick)
		return;
	WRITE_ONCE(base->timer_tick, tick);
	__program(base);
}

/*
 * Run the base's tick as soon as possible, for callouts already due. Not at
 * a tick boundary: one at or before the hrtimer core's "now" of a run in
 * progress would run again in the same loop of __hrtimer_run_queues(), so a
 * func that re-arms itself for "now" would never let the softirq end.
 */
static void __arm_soon(struct callout_base *base)
{
	lockdep_assert_held(&base->lock);
	if (base->timer_tick == 0)
		return;
	WRITE_ONCE(base->timer_tick, 0);
	__program(base);
}

/*
 * The helpers of a set and a cancel below are inline where they sit on
 * every set or cancel: a call and its return can cost as much as the work
 * of a small helper.
 */

/* Take @c off its base. Return: true if it was pending (not yet started). */
static __always_inline bool __detach(struct callout_base *base,
				     struct callout *c)
{
	lockdep_assert_held(&base->lock);
	if (tw_remove(&base->wheel, &c->entry))
		return true;
	if (c->entry.flags & (CALLOUT_EXPIRING | CALLOUT_PARKED)) {
		list_del_init(&c->entry.list);
		c->entry.flags &= ~(CALLOUT_EXPIRING | CALLOUT_PARKED);
		return true;
	}
	return false;
}

/*
 * Bring @base's wheel towards tick @now, looking at no more than @budget
 * entries (TW_UNBOUNDED: all the way): what is due by then moves to the
 * base's expired list, to run on the next tick. The tick sleeps over empty
 * slots and a budget may stop a pass, so a wheel may lag the clock; every
 * set first catches it up by a chunk, so that a scheme measures an
 * interval from the present (Scheme 4's MaxInterval) in all but a backlog.
 * Return: true if the wheel has reached @now.
 */
static bool __catch_up_pass(struct callout_base *base, u64 now, u64 budget)
{
	struct tw_entry *e;
	LIST_HEAD(due);

	tw_advance(&base->wheel, now, &due, budget);
	list_for_each_entry(e, &due, list)
		e->flags |= CALLOUT_EXPIRING;
	list_splice_tail(&due, &base->expired);
	if (!tw_advancing(&base->wheel))
		return true;
	base->stats.collect_stopped++;
	return false;
}

/* __catch_up_pass() unless the wheel is there already, as it mostly is */
static __always_inline bool __catch_up(struct callout_base *base, u64 now,
				       u64 budget)
{
	lockdep_assert_held(&base->lock);
	if (now <= base->wheel.now && !tw_advancing(&base->wheel))
		return true;
	return __catch_up_pass(base, now, budget);
}

/*
 * File @c at @tick on @base, whose wheel the caller has caught up as far
 * as it goes (__catch_up()); @now is the current tick, read by the caller
 * before it took the lock: one clock read a set.
 */
static __always_inline int __insert(struct callout_base *base,
				    struct callout *c, u64 tick, u64 now)
{
	struct tw_wheel *w = &base->wheel;
	int ret;

	lockdep_assert_held(&base->lock);
	/*
	 * Due by the clock, or by the tick a pass of the wheel goes to (read
	 * from the clock, maybe after @now): it runs next, whatever the wheel
	 * has passed. Late over early: the clock is at or past @tick.
	 */
	if (tick <= max(now, w->target)) {
		c->entry.expires = tick;
		c->entry.flags |= CALLOUT_EXPIRING;
		list_add_tail(&c->entry.list, &base->expired);
	} else {
		ret = tw_insert(w, &c->entry, tick);
		if (ret && w->now < now) {
			/* Refused by a lagging wheel: see the top of the file. */
			base->stats.full_catch_ups++;
			__catch_up(base, now, TW_UNBOUNDED);
			ret = tw_insert(w, &c->entry, tick);
		}
		if (ret)
			return ret;
	}
	base->stats.set++;
	if (list_empty(&base->expired) && !tw_advancing(w))
		__arm_base(base, c->entry.expires);
	else
		__arm_soon(base);
	return 0;
}

/* Catch @base up by a chunk, then file @c at @tick: as __insert(). */
static __always_inline int __enqueue(struct callout_base *base,
				     struct callout *c, u64 tick, u64 now)
{
	lockdep_assert_held(&base->lock);
	__catch_up(base, now, CALLOUT_COLLECT_BUDGET);
	return __insert(base, c, tick, now);
}

/**
 * callout_init() - prepare a callout for first use
 * @c: the callout
 *
 * Context: any.
 */
void callout_init(struct callout *c)
{
	__callout_init(c);
}
EXPORT_SYMBOL_NS_GPL(callout_init, CALLOUT_NS);

/*
 * lawn is the one scheme whose insert can refuse for want of room (a TTL
 * without a queue when every queue is in use): there a re-arm makes sure
 * of the room before it takes the old arming off (__hold_room()).
 */
static bool callout_room_probe;

/*
 * Make sure a callout can be filed at @tick on @base before a pending one's
 * old arming is taken off. Where the scheme may refuse for want of room,
 * a stand-in entry @probe is filed at @tick first and holds the room (the
 * lawn queue of that TTL) until the callout takes it; removing the old
 * arming only gives room back. Elsewhere an insert is refused only beyond
 * the scheme's range, and the old arming fits back in at its own tick, as
 * the interval to it has only shrunk.
 * Return: 0, with *@held telling whether @probe is filed, or the scheme's
 * refusal.
 */
static __always_inline int __hold_room(struct callout_base *base, u64 tick,
				       u64 now, struct tw_entry *probe,
				       bool *held)
{
	int ret;

	lockdep_assert_held(&base->lock);
	*held = false;
	__catch_up(base, now, CALLOUT_COLLECT_BUDGET);
	if (!callout_room_probe || tick <= max(now, base->wheel.target))
		return 0;
	tw_entry_init(probe);
	ret = tw_insert(&base->wheel, probe, tick);
	*held = !ret;
	return ret;
}

/*
 * Arm @c to run @func(@arg) at tick @tick; @now is the current tick. @how
 * is 0 or ARM_* refusals. @c's base *@basep is locked, interrupts off;
 * the arming may move @c to this CPU's base, and *@basep is then that
 * base, locked instead. A re-arm that the scheme refuses leaves the
 * old arming as it was: its tick, func and arg. An accepted one calls
 * @cm's commit, if there is one, before the lock is let go.
 * Return: as callout_set_ns(), or -EALREADY/-EBUSY/-ENOENT as @how asks;
 * or -EAGAIN, @c untouched, if it must move off a CPU that is down and
 * this CPU's lock is busy: see callout_arm().
 */
static __always_inline int __arm(struct callout_base **basep,
				 struct callout *c, u64 tick, u64 now,
				 callout_func_t func, void *arg,
				 unsigned int how,
				 const struct callout_commit *cm)
{
	struct callout_base *base = *basep, *new;
	callout_func_t old_func;
	struct tw_entry probe;
	bool was, held = false, pending;
	void *old_arg;
	u64 old_tick;
	int ret;

	lockdep_assert_held(&base->lock);
	if (how & ARM_KEEP_FUNC) {
		/* Under the lock, so the pair is one arming's, never torn. */
		func = c->func;
		arg = c->arg;
	}
	pending = callout_pending(c);
	if ((how & ARM_IF_IDLE) && pending)
		return -EALREADY;
	if ((how & ARM_IF_NOT_RUNNING) && base->running == c)
		return -EBUSY;
	if ((how & ARM_IF_PENDING) && !pending)
		return -ENOENT;

	/*
	 * Arm on this CPU if its lock is free at once; otherwise stay, which
	 * is as good: __program() has the other CPU start its own tick. A
	 * callout whose func runs now stays where it is, so
	 * callout_unset_sync() finds it on the base that runs it (the run
	 * that runs it goes on, wherever, and callout_cpu_dead() waits for
	 * it). Any other on the base of a CPU that is down, or not yet up,
	 * must move: callout_cpu_dead() may hold the new lock and wait for
	 * ours, so the caller lets go, waits for the new lock without ours
	 * (spinning on trylock could starve its holder on PREEMPT_RT) and
	 * tries again. @c
	 * is detached only once the decision is made and the new tick is
	 * known to fit: it stays pending across a retry and across a refusal,
	 * so the return value says whether this set replaced an arming, and
	 * no arming ends unseen in between.
	 */
	old_tick = c->entry.expires;
	old_func = c->func;
	old_arg = c->arg;
	new = this_cpu_ptr(callout_bases);
	if (base != new && base->running != c && spin_trylock(&new->lock)) {
		ret = pending ? __hold_room(new, tick, now, &probe, &held) : 0;
		if (ret) {
			spin_unlock(&new->lock);
			return ret;
		}
		was = __detach(base, c);
		WRITE_ONCE(c->base, new);
		spin_unlock(&base->lock);
		base = new;
		*basep = new;
	} else {
		if (base != new && base->running == c) {
			base->stats.stayed_running++;
		} else if (base != new) {
			if (!base->online || !cpu_online(base->cpu))
				return -EAGAIN;
			base->stats.stayed_busy++;
		}
		ret = pending ? __hold_room(base, tick, now, &probe, &held) : 0;
		if (ret)
			return ret;
		was = __detach(base, c);
	}
	c->func = func;
	c->arg = arg;
	ret = __enqueue(base, c, tick, now);
	if (ret) {
		/* Refused: @c stays as it was, its old arming back (see above). */
		c->func = old_func;
		c->arg = old_arg;
		if (was && !WARN_ON_ONCE(__enqueue(base, c, old_tick, now)))
			base->stats.set--;	/* not a new arming */
	} else if (cm) {
		/* No expiry of the new arming can run before this. */
		cm->commit(c, cm);
	}
	if (held)
		tw_remove(&base->wheel, &probe);
	if (!ret && trace_callout_set_enabled())
		trace_callout_set(c, func, base->cpu,
				  c->entry.expires * callout_tick_ns_param,
				  callout_now_ns());
	return ret ? ret : was;
}

int callout_arm(struct callout *c, u64 tick, u64 now, callout_func_t func,
		void *arg, unsigned int how, const struct callout_commit *cm)
{
	struct callout_base *base, *new;
	unsigned long flags;
	int ret;

	if (WARN_ON_ONCE(!func && !(how & ARM_KEEP_FUNC)))
		return -EINVAL;
	for (;;) {
		base = lock_base(c, &flags);
		ret = __arm(&base, c, tick, now, func, arg, how, cm);
		if (ret != -EAGAIN)
			break;
		/* Wait for this CPU's lock without @c's: see __arm(). */
		new = this_cpu_ptr(callout_bases);
		spin_unlock_irqrestore(&base->lock, flags);
		spin_lock_irqsave(&new->lock, flags);
		spin_unlock_irqrestore(&new->lock, flags);
	}
	spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}

/*
 * callout_set_from() - arm @c to run @func(@arg) at @expires_ns
 * @now_ns:	callout_now_ns() read by the caller a moment ago, so a caller
 *		that computes @expires_ns from the clock reads it once
 *
 * Return: 1 if @c was pending (it is re-armed), 0 if not, -EINVAL for a NULL
 * @func, or the scheme's -ERANGE/-ENOSPC (then @c stays as it was: a
 * pending @c keeps its arming, func and arg).
 */
int callout_set_from(struct callout *c, u64 now_ns, u64 expires_ns,
		     callout_func_t func, void *arg)
{
	return callout_arm(c, callout_ns_to_tick_up(expires_ns),
			   div64_u64(now_ns, callout_tick_ns_param), func, arg,
			   0, NULL);
}

/*
 * callout_rearm_from() - arm @c again, with its own func and arg, at
 * @expires_ns, computed from @now_ns
 * @how:	ARM_IF_* refusals
 * @cm:		NULL, or what to write once the new arming is sure
 *
 * For a caller that keeps an arming's parameters beside @c, where its func
 * reads them: @cm->commit() writes the new ones with @c's base lock held,
 * once nothing can refuse the arming any more and before any expiry of it
 * can run, so an expiry reads either the old arming's parameters or the
 * new one's. With ARM_IF_NOT_RUNNING no func of the arming it replaces
 * runs after this returns 1: one that did start has returned, and none
 * starts later; on -EBUSY wait with callout_wait_idle() and try again.
 * Return: 1 (@c was pending and is re-armed), 0 (armed, it was not), -EBUSY
 * or -ENOENT or -EALREADY as @how asks (@c untouched), or the scheme's
 * -ERANGE/-ENOSPC (then @c stays as it was).
 */
int callout_rearm_from(struct callout *c, u64 now_ns, u64 expires_ns,
		       unsigned int how, const struct callout_commit *cm)
{
	return callout_arm(c, callout_ns_to_tick_up(expires_ns),
			   div64_u64(now_ns, callout_tick_ns_param), NULL, NULL,
			   how | ARM_KEEP_FUNC, cm);
}

/*
 * callout_requeue() - arm the callout whose func runs now again, with its
 * func and arg, at @expires_ns: a periodic one's next expiry, or one whose
 * user put its due time back (dev_due.c's due-time table)
 * @c:		the callout whose func runs now
 * @now_ns:	callout_now_ns() read by the func
 * @expires_ns:	the new due time
 *
 * An arming made since its expiry began stands: @c is not touched then.
 *
 * Context: @c's func.
 * Return: 0; -EALREADY if @c was pending again; the scheme's -ERANGE or
 * -ENOSPC (then @c is not pending).
 */
int callout_requeue(struct callout *c, u64 now_ns, u64 expires_ns)
{
	int ret;

	ret = callout_rearm_from(c, now_ns, expires_ns, ARM_IF_IDLE, NULL);
	return ret < 0 ? ret : 0;
}

/**
 * callout_set_ns() - arm a callout at an absolute time
 * @c:		an initialised callout, pending or not
 * @expires_ns:	CLOCK_MONOTONIC; it fires at the first tick boundary at or
 *		after it, never earlier
 * @func:	run at expiry in softirq context
 * @arg:	passed to @func
 *
 * Callouts set for one time from different moments share one tick, which
 * callout_set() cannot promise: the benchmark's burst needs that. Exported
 * in CALLOUT_TW, not to clients (module/callout_tw.h).
 *
 * Context: any; takes the base lock with interrupts off.
 * Return: as callout_set().
 */
int callout_set_ns(struct callout *c, u64 expires_ns, callout_func_t func,
		   void *arg)
{
	return callout_set_from(c, callout_now_ns(), expires_ns, func, arg);
}
EXPORT_SYMBOL_NS_GPL(callout_set_ns, CALLOUT_TW_NS);

/**
 * callout_set() - arm a callout @ticks ticks from now (setcallout)
 * @c:		an initialised callout, pending or not
 * @ticks:	ticks of callout_tick_ns() from now; it fires at the first tick
 *		boundary at or after now + @ticks * tick_ns, never earlier
 * @func:	run at expiry in softirq context (it must not sleep); it may
 *		set @c again
 * @arg:	passed to @func
 *
 * A pending callout is re-armed. It is armed on the calling CPU's base, or
 * stays on the one it was on when that base is busy (or runs its func).
 *
 * Context: any; takes the base lock with interrupts off.
 * Return:
 * * 1       - @c was pending and is re-armed
 * * 0       - @c was not pending and is armed
 * * -EINVAL - @func is NULL
 * * -ERANGE - @ticks is beyond what the scheme can hold
 * * -ENOSPC - the scheme has no room (Timer Lawn out of queues)
 *
 * On -ERANGE and -ENOSPC a pending @c stays armed as it was.
 */
int callout_set(struct callout *c, unsigned long ticks, callout_func_t func,
		void *arg)
{
	return callout_set_ticks_from(c, callout_now_ns(), ticks, func, arg);
}
EXPORT_SYMBOL_NS_GPL(callout_set, CALLOUT_NS);

/* callout_unset() under the base lock, counted and traced. */
static __always_inline bool __cancel(struct callout_base *base,
				     struct callout *c)
{
	bool was;

	lockdep_assert_held(&base->lock);
	was = __detach(base, c);
	if (was)
		base->stats.unset++;
	trace_callout_unset(c, c->func, base->cpu, was);
	return was;
}

/**
 * callout_unset() - cancel a callout (unsetcallout)
 * @c: an initialised callout
 *
 * Does not wait for @func if it already runs on another CPU: see
 * callout_unset_sync().
 *
 * Context: any.
 * Return:
 * * 1 - @c was pending and is cancelled: @func will not run for it
 * * 0 - @c was not pending (never set, already fired or running, cancelled)
 */
int callout_unset(struct callout *c)
{
	struct callout_base *base;
	unsigned long flags;
	bool was;

	base = lock_base(c, &flags);
	was = __cancel(base, c);
	spin_unlock_irqrestore(&base->lock, flags);
	return was;
}
EXPORT_SYMBOL_NS_GPL(callout_unset, CALLOUT_NS);

/*
 * callout_unset_if() - callout_unset() of a @c still pending for @want
 * @c:		an initialised callout
 * @still:	whether @c, pending, is armed for @want: a test of what its
 *		owner keeps beside it, written before each arming of @c and
 *		never while it is pending (timeout.c's func/arg key), read
 *		with READ_ONCE() (an arming of a @c not pending may be
 *		writing it)
 * @want:	what @still compares with
 *
 * For a caller that found @c without a lock, and so may hold a @c reused
 * since for another arming: under the base lock what the owner keeps for
 * a pending @c is that of its arming, and cannot change until the arming
 * ends, which takes the same lock. So a @c cancelled here was pending for
 * @want, and one of another is left alone.
 * Return: as callout_unset().
 */
int callout_unset_if(struct callout *c,
		     bool (*still)(const struct callout *c, const void *want),
		     const void *want)
{
	struct callout_base *base;
	unsigned long flags;
	bool was = false;

	base = lock_base(c, &flags);
	if (still(c, want))
		was = __cancel(base, c);
	spin_unlock_irqrestore(&base->lock, flags);
	return was;
}

/*
 * One pass of callout_unset_sync(), which takes the base lock itself: cancel
 * @c unless @cancelled is NULL (callout_wait_idle()); set *@cancelled to 1
 * if it was pending. Return: true if its func runs now, on *@basep.
 */
static __always_inline bool __unset(struct callout_base *base,
				    struct callout *c, int *cancelled)
{
	bool was;

	lockdep_assert_held(&base->lock);
	if (cancelled) {
		was = __detach(base, c);
		if (was) {
			base->stats.unset++;
			*cancelled = 1;
		}
		trace_callout_unset(c, c->func, base->cpu, was);
	}
	return base->running == c;
}

static bool unset_pass(struct callout *c, struct callout_base **basep,
		       int *cancelled)
{
	struct callout_base *base;
	unsigned long flags;
	bool running;

	base = lock_base(c, &flags);
	running = __unset(base, c, cancelled);
	spin_unlock_irqrestore(&base->lock, flags);
	*basep = base;
	return running;
}

/* Wait on @base's expiry_lock for the end of the func running there. */
static void wait_for_run(struct callout_base *base)
{
	atomic_inc(&base->expiry_waiters);
	spin_lock_bh(&base->expiry_lock);
	atomic_dec(&base->expiry_waiters);
	spin_unlock_bh(&base->expiry_lock);
}

/**
 * callout_unset_sync() - cancel a callout and wait for its func to finish
 * @c: an initialised callout
 *
 * As callout_unset(), and if @c's func runs on some CPU, wait until it has
 * returned; if the func set @c again meanwhile, cancel that too. On return
 * @c is neither pending nor running, so its memory may be freed::
 *
 *   CPU0 (tick)                     CPU1
 *   base->running = c
 *   unlock; func(arg) ...           callout_unset_sync(c)
 *                                     lock; detach; running == c: unlock
 *                                     expiry_waiters++
 *                                     wait on base->expiry_lock
 *   ... return; lock; running = NULL
 *   waiters: unlock expiry_lock       expiry_waiters--
 *                                     lock; detach; running != c: done
 *
 * A waiter the tick did not see yet waits until the end of that run, at
 * most CALLOUT_RUN_BUDGET funcs.
 *
 * Context: process context, may sleep on PREEMPT_RT. Must not be called from
 * a func, nor holding a lock that a func takes: not only @c's, as a waiter
 * may wait out the rest of the tick's run. With lockdep, a caller holding
 * such a lock is reported on every call, whether it waits or not.
 * Return: as callout_unset().
 */
int callout_unset_sync(struct callout *c)
{
	struct callout_base *base;
	int ret = 0;

	might_sleep();
	wait_for_funcs_map();
	while (unset_pass(c, &base, &ret))
		wait_for_run(base);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(callout_unset_sync, CALLOUT_NS);

/*
 * callout_wait_idle() - wait until @c's func does not run, leaving @c armed
 * or not as it is: for a callout_rearm_from() that found it running.
 * Another expiry of @c may start as soon as this returns.
 *
 * Context: as callout_unset_sync().
 */
void callout_wait_idle(struct callout *c)
{
	struct callout_base *base;

	might_sleep();
	wait_for_funcs_map();
	while (unset_pass(c, &base, NULL))
		wait_for_run(base);
}

/*
 * callout_try_unset_sync() - callout_unset_sync() for a caller that may not
 * wait, as try_to_del_timer_sync() is to timer_delete_sync()
 *
 * Context: any, even under a lock that @c's func takes.
 * Return: as callout_unset(), or -EBUSY if @c's func runs now: then @c is
 * no longer pending, but it may be freed only after a callout_unset_sync().
 */
int callout_try_unset_sync(struct callout *c)
{
	struct callout_base *base;
	int ret = 0;

	return unset_pass(c, &base, &ret) ? -EBUSY : ret;
}

/*
 * Batches. A caller that sets and cancels callouts in a row, as
 * CALLOUT_IOC_SUBMIT does, keeps this CPU's base locked from one to the
 * next: one lock section for up to CALLOUT_BATCH_OPS of them instead of
 * one each. Only callouts on that base are done under it, and they stay
 * there (__arm() arms on this CPU's base): another base's lock is never
 * taken while it is held (two base locks have no order), so for a callout
 * elsewhere the batch lets go and takes the usual way. Nor while the wheel
 * works off a backlog, whose catching up every set shares: the section
 * then ends, so that it holds at most one chunk of collection
 * (CALLOUT_COLLECT_BUDGET) besides its operations. The caller ends the
 * batch (callout_batch_end()) before it sleeps or lets go of a lock of its
 * own; a NULL batch is the usual way.
 */
#define CALLOUT_BATCH_OPS	16

/* batch_base() when the batch must take this CPU's base anew */
static struct callout_base *batch_take_base(struct callout_batch *b,
					    struct callout *c)
{
	struct callout_base *base;

	if (b->base)
		__callout_batch_end(b);
	base = raw_cpu_ptr(callout_bases);
	if (READ_ONCE(c->base) != base)
		return NULL;
	spin_lock_irqsave(&base->lock, b->flags);
	/* Pinned now; @c moves only under the lock held. */
	if (base != this_cpu_ptr(callout_bases) || READ_ONCE(c->base) != base) {
		spin_unlock_irqrestore(&base->lock, b->flags);
		return NULL;
	}
	/* Held across calls till callout_batch_end(): not for sparse. */
	__release(&base->lock);
	b->base = base;
	b->ops = 1;
	return base;
}

/* The batch's base, held, for an operation on @c; NULL: the usual way. */
static __always_inline struct callout_base *
batch_base(struct callout_batch *b, struct callout *c)
{
	if (b->base && b->ops < CALLOUT_BATCH_OPS &&
	    READ_ONCE(c->base) == b->base &&
	    !tw_advancing(&b->base->wheel)) {
		b->ops++;
		return b->base;
	}
	return batch_take_base(b, c);
}

/* The tick of @now_ns, divided once for a batch's one clock read */
static u64 batch_now(struct callout_batch *b, u64 now_ns)
{
	if (now_ns != b->now_ns) {
		b->now_ns = now_ns;
		b->now = div64_u64(now_ns, callout_tick_ns_param);
	}
	return b->now;
}

/* Let go of the base batch @b holds: callout_batch_end() */
void __callout_batch_end(struct callout_batch *b)
{
	__acquire(&b->base->lock);
	spin_unlock_irqrestore(&b->base->lock, b->flags);
	b->base = NULL;
}

/* callout_set_from() in batch @b: callout_batch_set_from() */
int __callout_batch_set_from(struct callout_batch *b, struct callout *c,
			     u64 now_ns, u64 expires_ns, callout_func_t func,
			     void *arg)
{
	struct callout_base *base;

	if (WARN_ON_ONCE(!func))
		return -EINVAL;
	base = batch_base(b, c);
	if (!base)
		return callout_set_from(c, now_ns, expires_ns, func, arg);
	return __arm(&b->base, c, callout_ns_to_tick_up(expires_ns),
		     batch_now(b, now_ns), func, arg, 0, NULL);
}

/* callout_rearm_from() in batch @b: callout_batch_rearm_from() */
int __callout_batch_rearm_from(struct callout_batch *b, struct callout *c,
			       u64 now_ns, u64 expires_ns, unsigned int how,
			       const struct callout_commit *cm)
{
	if (!batch_base(b, c))
		return callout_rearm_from(c, now_ns, expires_ns, how, cm);
	return __arm(&b->base, c, callout_ns_to_tick_up(expires_ns),
		     batch_now(b, now_ns), NULL, NULL, how | ARM_KEEP_FUNC, cm);
}

/* callout_try_unset_sync() in batch @b: callout_batch_try_unset() */
int __callout_batch_try_unset(struct callout_batch *b, struct callout *c)
{
	struct callout_base *base = batch_base(b, c);
	int ret = 0;

	if (!base)
		return callout_try_unset_sync(c);
	return __unset(base, c, &ret) ? -EBUSY : ret;
}

/**
 * callout_pending() - is a callout armed and its func not yet started?
 * @c: an initialised callout
 *
 * Context: any. The answer may be stale unless the caller serialises with
 * every setter and canceller of @c.
 * Return: true if pending.
 */
bool callout_pending(const struct callout *c)
{
	/*
	 * Without the base lock its writers hold: they are plain
	 * read-modify-writes of this aligned word, each a single store, so
	 * a racing read sees the word before or after one of them.
	 */
	return READ_ONCE(c->entry.flags) &
	       (TW_PENDING | CALLOUT_EXPIRING | CALLOUT_PARKED);
}
EXPORT_SYMBOL_NS_GPL(callout_pending, CALLOUT_NS);

static void note_lateness(struct callout_base *base, u64 late_ns)
{
	u64 us = late_ns / NSEC_PER_USEC;
	unsigned int i = us ? min(ilog2(us) + 1, CALLOUT_LATE_BUCKETS - 1) : 0;

	base->stats.late[i]++;
	if (late_ns > base->stats.max_late_ns)
		base->stats.max_late_ns = late_ns;
}

/*
 * Run one func with the base lock dropped; guard what it may break.
 * @clock is when the func before it returned (or the run began): its start,
 * near enough. One clock read a func: it becomes the next one's @clock.
 */
static void run_callout(struct callout_base *base, struct callout *c,
			u64 *clock)
	__releases(&base->lock) __acquires(&base->lock)
{
	callout_func_t func = c->func;
	void *arg = c->arg;
	u64 due = c->entry.expires * callout_tick_ns_param, start = *clock;
	u64 took;
	int count;

	note_lateness(base, start > due ? start - due : 0);
	base->running = c;
	spin_unlock_irq(&base->lock);
	count = preempt_count();

	trace_callout_expire(c, func, base->cpu, due, start);
	lock_map_acquire(&callout_func_map);
	func(arg);
	lock_map_release(&callout_func_map);
	*clock = callout_now_ns();
	took = *clock - start;

	if (WARN_ONCE(count != preempt_count(),
		      "callout %ps changed preempt count %08x -> %08x\n",
		      func, count, preempt_count()))
		preempt_count_set(count);

	spin_lock_irq(&base->lock);
	base->running = NULL;
	base->stats.expired++;
	if (took > base->stats.slowest_ns)
		base->stats.slowest_ns = took;
}

/*
 * The parked callouts (struct callout_base): the due ones go to the expired
 * list, the others are offered to the wheel again. O(parked) with the lock
 * held: a base parks only what a lawn out of queues refused it while a CPU
 * went offline. Return: the earliest expiry still parked, or TW_NEVER.
 */
static u64 __unpark(struct callout_base *base, u64 now)
{
	struct callout *c, *tmp;
	u64 first = TW_NEVER;
	LIST_HEAD(parked);

	lockdep_assert_held(&base->lock);
	list_splice_init(&base->parked, &parked);
	list_for_each_entry_safe(c, tmp, &parked, entry.list) {
		list_del_init(&c->entry.list);
		c->entry.flags &= ~CALLOUT_PARKED;
		if (c->entry.expires <= max(now, base->wheel.target)) {
			c->entry.flags |= CALLOUT_EXPIRING;
			list_add_tail(&c->entry.list, &base->expired);
		} else if (tw_insert(&base->wheel, &c->entry,
				     c->entry.expires)) {
			c->entry.flags |= CALLOUT_PARKED;
			list_add_tail(&c->entry.list, &base->parked);
			first = min(first, c->entry.expires);
		}
	}
	return first;
}

/*
 * Collect a chunk of what is due by @now (at most CALLOUT_COLLECT_BUDGET
 * wheel entries, interrupts off), and record how long it held the lock.
 * @start is a clock read made with the lock held, just before.
 * Return: the clock at the end, the start of the func to run next.
 */
static u64 __collect(struct callout_base *base, u64 now, u64 start)
{
	u64 end;

	lockdep_assert_held(&base->lock);
	__catch_up(base, now, CALLOUT_COLLECT_BUDGET);
	end = callout_now_ns();
	if (end - start > base->stats.collect_max_ns)
		base->stats.collect_max_ns = end - start;
	return end;
}

/* The owner's answers for CALLOUT_DEFER callouts: a file's (dev_due.c) */
static const struct callout_defer_ops *callout_defer __ro_after_init;

/**
 * callout_defer_register() - who answers for CALLOUT_DEFER callouts
 * @ops:	the answers; set once, at load, before any such callout is armed
 */
void callout_defer_register(const struct callout_defer_ops *ops)
{
	callout_defer = ops;
}

/*
 * A due callout whose owner may have put it back (CALLOUT_DEFER: a
 * /dev/callout file's, whose user may have stored a later tick in its
 * due-time table): queue it again at the tick the owner says, here, where
 * the wheel collected it, with the base lock held, instead of running its
 * func only for it to re-arm itself. The owner is told the later of the
 * tick and the wheel's pass as its now, so a tick it returns is after both;
 * one the scheme refuses is not queued again, and the func runs.
 * Return: true if @c is queued again.
 */
static bool __requeue_deferred(struct callout_base *base, struct callout *c,
			       u64 now, u64 now_ns)
{
	u64 tick;

	lockdep_assert_held(&base->lock);
	now = max(now, base->wheel.target);
	tick = callout_defer->due_tick(c, now, now_ns);
	if (!tick || tick <= now ||
	    tw_insert(&base->wheel, &c->entry, tick))
		return false;
	callout_defer->requeued(c, tick);
	base->stats.refiled++;
	return true;
}

static enum hrtimer_restart callout_tick(struct hrtimer *timer)
{
	struct callout_base *base = container_of(timer, struct callout_base,
						 timer);
	unsigned int budget = CALLOUT_RUN_BUDGET, chunks = 1, refiled = 0;
	u64 next, examined, migrations, expired, clock, now_ns, now;
	struct callout *c;
	bool deferred;

	spin_lock_bh(&base->expiry_lock);
	spin_lock_irq(&base->lock);
	now_ns = callout_now_ns();
	now = div64_u64(now_ns, callout_tick_ns_param);
	/*
	 * A base's funcs run on its CPU while that CPU is up: __program()
	 * never starts the hrtimer elsewhere. Once it is going down the
	 * hrtimer core moves its hrtimers away, and they may fire anywhere
	 * until callout_cpu_dead() has taken the callouts.
	 */
	if (WARN_ONCE(base->cpu != smp_processor_id() && cpu_online(base->cpu),
		      "callout: the tick of cpu%u runs on cpu%u\n", base->cpu,
		      smp_processor_id()))
		base->stats.ticks_off_cpu++;
	WRITE_ONCE(base->timer_tick, TW_NEVER);
	base->stats.ticks_run++;
	/* For the tracepoint: what this run adds to the counters. */
	examined = base->wheel.stats.examined;
	migrations = base->wheel.stats.migrations;
	expired = base->stats.expired;
	next = list_empty(&base->parked) ? TW_NEVER : __unpark(base, now);
	/* The funcs start now, after a collection that took its time. */
	clock = __collect(base, now, now_ns);
	for (;;) {
		if (list_empty(&base->expired)) {
			/* The next chunk, if the wheel lags and time is left. */
			if (!tw_advancing(&base->wheel) || !budget ||
			    chunks++ >= CALLOUT_RUN_CHUNKS)
				break;
			/* Interrupts in between: each chunk is a section. */
			spin_unlock_irq(&base->lock);
			spin_lock_irq(&base->lock);
			clock = __collect(base, now, callout_now_ns());
			continue;
		}
		if (!budget)
			break;
		budget--;
		c = list_first_entry(&base->expired, struct callout, entry.list);
		list_del_init(&c->entry.list);
		c->entry.flags &= ~CALLOUT_EXPIRING;
		if ((c->entry.flags & CALLOUT_DEFER) &&
		    __requeue_deferred(base, c, now, clock)) {
			/*
			 * No func to unlock around: interrupts in between
			 * every CALLOUT_COLLECT_BUDGET, as for a collection.
			 */
			if (!(++refiled % CALLOUT_COLLECT_BUDGET)) {
				spin_unlock_irq(&base->lock);
				spin_lock_irq(&base->lock);
			}
			continue;
		}
		run_callout(base, c, &clock);
		/*
		 * Let a callout_unset_sync() waiting for this func go on; four
		 * lock operations a func otherwise, each a sleeping lock's on
		 * PREEMPT_RT.
		 */
		if (atomic_read(&base->expiry_waiters)) {
			spin_unlock_irq(&base->lock);
			spin_unlock_bh(&base->expiry_lock);
			spin_lock_bh(&base->expiry_lock);
			spin_lock_irq(&base->lock);
		}
	}

	deferred = !list_empty(&base->expired) || tw_advancing(&base->wheel);
	if (deferred) {
		/* Over a budget: the rest in a new softirq run. */
		base->stats.deferred++;
		__arm_soon(base);
	} else {
		next = min(next, tw_next(&base->wheel));
		if (next != TW_NEVER)
			__arm_base(base, next);
	}
	trace_callout_tick(base->cpu, now,
			   base->wheel.stats.examined - examined,
			   base->wheel.stats.migrations - migrations,
			   base->stats.expired - expired, deferred);
	spin_unlock_irq(&base->lock);
	spin_unlock_bh(&base->expiry_lock);
	return HRTIMER_NORESTART;
}

/*
 * CPU hotplug: a dead CPU's callouts move to the CPU running this callback,
 * keeping their expiry ticks, so none is lost and none fires early.
 */
static int callout_cpu_prepare(unsigned int cpu)
{
	struct callout_base *base = per_cpu_ptr(callout_bases, cpu);

	spin_lock_irq(&base->lock);
	base->online = true;
	spin_unlock_irq(&base->lock);
	return 0;
}

/*
 * Take up to @budget callouts off @old, a CPU that went down, onto @moving:
 * its collected ones, its parked ones, then its wheel's, by tw_drain().
 * Return: true when @old holds none any more.
 */
static bool __take_from_dead(struct callout_base *old,
			     struct list_head *moving, u64 budget)
{
	struct list_head *lists[] = { &old->expired, &old->parked };
	struct callout *c;
	unsigned int i;

	lockdep_assert_held(&old->lock);
	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		while (!list_empty(lists[i])) {
			if (!budget)
				return false;
			budget--;
			c = list_first_entry(lists[i], struct callout,
					     entry.list);
			list_move_tail(&c->entry.list, moving);
			c->entry.flags &= ~(CALLOUT_EXPIRING | CALLOUT_PARKED);
		}
	}
	return budget && tw_drain(&old->wheel, moving, budget);
}

/*
 * A dead CPU's callouts move, CALLOUT_MOVE_BUDGET at a time with both base
 * locks held, to the base of the CPU running this. Between two chunks both
 * locks are free, so callout_arm() may take a callout still on @old (it
 * moves it away, @old being down: tw_drain() allows the tw_remove()) and
 * callout_unset_sync() may cancel one; neither files anything on @old, and
 * its func cannot be running (@old's hrtimer is cancelled and nothing
 * arms it again), so the chunks end. Each callout keeps its expiry tick:
 * one due already runs on the next tick of the new base, late, never
 * early. None is lost: one the new base's scheme refuses (lawn out of
 * queues; simple's range cannot refuse, the wheel being caught up first)
 * is parked on new->parked and fires from there, as late as the tick that
 * finds it due, never earlier.
 */
static int callout_cpu_dead(unsigned int cpu)
{
	struct callout_base *old = per_cpu_ptr(callout_bases, cpu), *new;
	u64 moved = 0, parked = 0, now;
	struct callout *c, *tmp;
	bool done;

	spin_lock_irq(&old->lock);
	old->online = false;
	spin_unlock_irq(&old->lock);
	hrtimer_cancel(&old->timer);

	/*
	 * Stay on this CPU while its base takes them (the hrtimer is pinned
	 * to the CPU that arms it), with preemption on: on PREEMPT_RT the
	 * base locks sleep, which get_cpu_ptr() would forbid.
	 */
	migrate_disable();
	new = this_cpu_ptr(callout_bases);
	do {
		LIST_HEAD(moving);

		now = div64_u64(callout_now_ns(), callout_tick_ns_param);
		spin_lock_irq(&new->lock);
		spin_lock_nested(&old->lock, SINGLE_DEPTH_NESTING);
		WRITE_ONCE(old->timer_tick, TW_NEVER);
		done = __take_from_dead(old, &moving, CALLOUT_MOVE_BUDGET);
		__catch_up(new, now, CALLOUT_COLLECT_BUDGET);
		list_for_each_entry_safe(c, tmp, &moving, entry.list) {
			list_del_init(&c->entry.list);
			WRITE_ONCE(c->base, new);
			new->stats.moved++;
			moved++;
			/* Due ones run on the next tick: late, never early. */
			if (!__insert(new, c, c->entry.expires, now))
				continue;
			c->entry.flags |= CALLOUT_PARKED;
			list_add_tail(&c->entry.list, &new->parked);
			new->stats.parked++;
			parked++;
			__arm_base(new, c->entry.expires);
		}
		spin_unlock(&old->lock);
		spin_unlock_irq(&new->lock);
		cond_resched();
	} while (!done);
	migrate_enable();
	if (moved)
		pr_info("cpu%u offline: moved %llu callouts to cpu%u (%llu parked)\n",
			cpu, moved, new->cpu, parked);
	return 0;
}

static void callout_base_exit(struct callout_base *base)
{
	/* Not when init failed before it; 7.x makes the field __private. */
	if (ACCESS_PRIVATE(&base->timer, function))
		hrtimer_cancel(&base->timer);
	if (base->wheel.ops) {
		WARN_ON(base->wheel.nr_pending || !list_empty(&base->expired) ||
			!list_empty(&base->parked));
		tw_destroy(&base->wheel);
	}
}

/**
 * callout_loaded_scheme() - the timer scheme the facility runs on
 * @geo:	receives the geometry of its wheels
 *
 * For the benchmark, which runs private wheels of every scheme in the
 * facility's geometry and labels its figures with the loaded scheme.
 * Exported in CALLOUT_TW, not to clients (module/callout_tw.h).
 *
 * Context: any.
 * Return: the loaded scheme, fixed while the module is loaded.
 */
const struct tw_ops *callout_loaded_scheme(struct tw_geometry *geo)
{
	*geo = callout_geo;
	return callout_ops;
}
EXPORT_SYMBOL_NS_GPL(callout_loaded_scheme, CALLOUT_TW_NS);

int callout_core_init(void)
{
	u64 now = div64_u64(callout_now_ns(), callout_tick_ns_param);
	unsigned int cpu;
	int ret;

	callout_max_timeout_init();
	callout_room_probe = callout_ops->may_be_full;
	callout_bases = alloc_percpu(struct callout_base);
	if (!callout_bases)
		return -ENOMEM;

	for_each_possible_cpu(cpu) {
		struct callout_base *base = per_cpu_ptr(callout_bases, cpu);

		spin_lock_init(&base->lock);
		spin_lock_init(&base->expiry_lock);
		atomic_set(&base->expiry_waiters, 0);
		INIT_LIST_HEAD(&base->expired);
		INIT_LIST_HEAD(&base->parked);
		hrtimer_setup(&base->timer, callout_tick, CLOCK_MONOTONIC,
			      HRTIMER_MODE_ABS_PINNED_SOFT);
		INIT_CSD(&base->kick, callout_kick, base);
		base->timer_tick = TW_NEVER;
		base->cpu = cpu;
		ret = tw_init(&base->wheel, callout_ops, &callout_geo, now);
		if (ret) {
			base->wheel.ops = NULL;
			pr_err("scheme %s: no wheel for CPU %u: %d\n",
			       callout_ops->name, cpu, ret);
			goto free_wheels;
		}
	}

	ret = cpuhp_setup_state(CPUHP_BP_PREPARE_DYN, "callout:prepare",
				callout_cpu_prepare, callout_cpu_dead);
	if (ret < 0)
		goto free_wheels;
	callout_hp_state = ret;
	return 0;

free_wheels:
	for_each_possible_cpu(cpu)
		callout_base_exit(per_cpu_ptr(callout_bases, cpu));
	free_percpu(callout_bases);
	return ret;
}

/*
 * Unload, first: no file is open and no client is loaded. Stop every tick,
 * so that no expiry runs while the old interface's hash is taken down
 * (callout_timeout_exit()) and the timeouts kernel callers left are
 * cancelled; the bases stay until callout_core_exit().
 */
void callout_core_stop(void)
{
	unsigned int cpu;

	cpuhp_remove_state_nocalls(callout_hp_state);
	for_each_possible_cpu(cpu)
		while (atomic_read(&per_cpu_ptr(callout_bases, cpu)->kick_pending))
			cpu_relax();
	/* A kick that has started runs with interrupts off: wait it out. */
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(callout_bases, cpu)->timer);
}

/* Unload, last: the ticks are stopped and every callout is off its base. */
void callout_core_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		callout_base_exit(per_cpu_ptr(callout_bases, cpu));
	free_percpu(callout_bases);
}
