// SPDX-License-Identifier: GPL-2.0
/*
 * dev_callout.c - a file's SET, UNSET and RESET: the charge of each
 * callout, the handle table, the armings and their expiry, uc_fire().
 *
 * The handle table is an array of slots (a genradix): slot i holds the
 * callout whose handle is (gen << 32 | i), gen being the slot's generation.
 * A lookup is an index and a compare, and a cancel frees the slot for the
 * next SET with its generation one higher, so a handle is never given
 * twice; a slot whose generations are spent is retired. Freed ucallouts
 * stay with the file as spares, up to UC_SPARES, for the next SET, as
 * 4.4BSD's timeout() took its callouts from the callfree list: a SET+UNSET
 * allocates nothing once the file has run.
 *
 * The expiry only publishes. uc_fire() runs in the tick (softirq, a
 * ktimers thread on PREEMPT_RT): it writes the expiry into the ucallout
 * (the due time and the time it fired; the func of one callout never runs
 * on two CPUs at once: core.c keeps a callout whose func runs on that
 * base), stores its count (1 + the due times it was late by), and queues
 * the ucallout on the file's lock-less list, an llist, unless it is queued
 * already; it wakes a reader only when that list goes from empty to
 * non-empty. It allocates nothing and takes no lock of the file. A
 * periodic callout is not re-armed by its expiry: it is left unarmed
 * (UC_REARM) until its reader takes the count to 0, as timerfd's read()
 * does, and forwards it on its period's grid from the time of the read
 * (__uc_rearm(), as timerfd's read() forwards its hrtimer), so one whose
 * events nobody reads runs its func once, not once a period. The due
 * times that passed late or unread are added to the count; one that
 * cannot be re-armed any more ends with its last event, CALLOUT_EV_LAST.
 * A RESET arms one left unarmed anew, and an UNSET cancels it (its event
 * goes stale). An llist rather than per-CPU queues: one atomic exchange
 * takes every CPU's events at once, and a file's callouts are few enough
 * per tick that the one cache line is no bottleneck; the reader would
 * otherwise merge per-CPU queues.
 *
 * A fired callout is armed again only by its reader or by a RESET, both
 * under the file lock, so while its count is not 0 nothing writes its
 * expiry but the reader that takes the count. An event is stale, and
 * dropped, when its count is 0: a cancel (UNSET, close) sets it to 0 once
 * the callout's func is known not to run (callout_try_unset_sync() under
 * the file lock, or callout_unset_sync() outside it), and a RESET as it
 * commits its new arming. So after UNSET returns 0 no event of that
 * arming is read, and after RESET returns 0 no event of the arming it
 * replaced. A RESET replaces the arming in place, keeping the old one if
 * the scheme refuses the new (ENOSPC, ERANGE), so it cannot cancel first:
 * it re-arms with callout_rearm_from(), which the core refuses while the
 * func runs (the RESET waits that out), and writes the new arming in the
 * ucallout from the core's commit, with the base lock held, once the
 * scheme has taken it and before any expiry of it can run: an expiry
 * reads one arming or the other, whole. The core also refuses a callout
 * that is no longer pending: a one-shot whose expiry ran is never armed
 * again by a RESET (ENOENT), whatever UC_ENDED said when the RESET looked.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dev.h"
#include "stats.h"

static struct kmem_cache *ucallout_cache;

/*
 * Every file's callouts, against max_total: a per-CPU counter, so that a
 * SET and a cancel touch no cache line that every CPU's SETs share. It is
 * summed exactly only near the limit (__percpu_counter_compare()).
 */
struct percpu_counter callout_user_total;
#define UC_TOTAL_BATCH	64

/*
 * Count one more callout against @f's max_per_file and everyone's
 * max_total: a SET's from uc_get() until __uc_put(), a TIMEOUT's from the
 * ioctl until it is cancelled or its event read (or dropped at close).
 * One count for both kinds: a file can fill its cap with either.
 * Return: 0, or -ENOSPC with nothing counted.
 */
int uc_charge(struct uc_file *f)
{
	if (atomic_long_inc_return(&f->nr_uc) <= callout_max_per_file) {
		percpu_counter_add_batch(&callout_user_total, 1,
					 UC_TOTAL_BATCH);
		/*
		 * Far below the limit, as mostly, the approximate count
		 * says so; __percpu_counter_compare() says it too, but is a
		 * call on every SET. The approximate count is read without
		 * the counter's lock, racing its other CPUs' batch flushes
		 * by design: any value it reads is within the margin below.
		 */
		if (data_race(percpu_counter_read(&callout_user_total)) <
		    (s64)callout_max_total - UC_TOTAL_BATCH * num_online_cpus() ||
		    __percpu_counter_compare(&callout_user_total,
					     callout_max_total,
					     UC_TOTAL_BATCH) <= 0)
			return 0;
		percpu_counter_add_batch(&callout_user_total, -1,
					 UC_TOTAL_BATCH);
	}
	atomic_long_dec(&f->nr_uc);
	return -ENOSPC;
}

void uc_uncharge(struct uc_file *f, unsigned long n)
{
	atomic_long_sub(n, &f->nr_uc);
	percpu_counter_add_batch(&callout_user_total, -(s64)n, UC_TOTAL_BATCH);
}

/*
 * The slot of the callout armed as @handle, or NULL; the file lock is held.
 * A free slot's generation has UC_SLOT_FREE, which no handle's has.
 */
struct uc_slot *__uc_lookup(struct uc_file *f, u64 handle)
{
	u32 idx = lower_32_bits(handle);
	struct uc_slot *s;

	lockdep_assert_held(&f->lock);
	if (!idx || idx >= f->nr_slots || upper_32_bits(handle) >= UC_GEN_END)
		return NULL;
	s = genradix_ptr(&f->slots, idx);
	return s->gen == upper_32_bits(handle) && s->uc ? s : NULL;
}

/*
 * Take a free slot for a new callout; the file lock is held.
 * Return: the slot; ERR_PTR(-EAGAIN) if slot *@idx and its page of the
 * due-time table must be allocated first; ERR_PTR(-ENOSPC) if every index
 * is used.
 */
static struct uc_slot *__uc_slot_take(struct uc_file *f, u32 *idx)
{
	struct uc_slot *s = f->free_slot;

	lockdep_assert_held(&f->lock);
	if (s) {
		f->free_slot = s->next_free;
		s->gen &= ~UC_SLOT_FREE;
		s->uc = NULL;
		return s;
	}
	if (f->nr_slots == U32_MAX)
		return ERR_PTR(-ENOSPC);
	*idx = f->nr_slots;
	s = genradix_ptr(&f->slots, *idx);
	if (!s || !xa_load(&f->due_pages, *idx / UC_DUE_PER_PAGE))
		return ERR_PTR(-EAGAIN);
	s->idx = f->nr_slots++;
	return s;
}

/*
 * Allocate what slot @idx needs, its part of the handle table and its page
 * of the due-time table, without the file lock. Return: 0 or -ENOMEM.
 */
static int uc_slot_alloc(struct uc_file *f, u32 idx)
{
	unsigned long pg = idx / UC_DUE_PER_PAGE;
	struct page *page;
	int err;

	if (!genradix_ptr_alloc(&f->slots, idx, UC_GFP)) {
		callout_alloc_failed(CALLOUT_ALLOC_HANDLES);
		return -ENOMEM;
	}
	if (xa_load(&f->due_pages, pg))
		return 0;
	page = alloc_page(UC_GFP | __GFP_ZERO);
	if (!page) {
		callout_alloc_failed(CALLOUT_ALLOC_DUE_PAGE);
		return -ENOMEM;
	}
	err = xa_insert(&f->due_pages, pg, page, UC_GFP);
	if (err)
		__free_page(page);
	if (err == -ENOMEM)
		callout_alloc_failed(CALLOUT_ALLOC_DUE_INDEX);
	/* -EBUSY: another SET put one there first. */
	return err == -EBUSY ? 0 : err;
}

/*
 * Free slot @s: its next handle is one never given, and its due-time entry
 * reads 0 until then. The file lock is held.
 */
static void __uc_slot_free(struct uc_file *f, struct uc_slot *s)
{
	u64 *word = uc_due_word(f, s->idx);

	lockdep_assert_held(&f->lock);
	if (word)
		WRITE_ONCE(*word, 0);
	/* Retired once all its handles are spent: free, on no list. */
	s->uc = NULL;
	if (s->gen == UC_GEN_END - 1) {
		s->gen |= UC_SLOT_FREE;
		return;
	}
	s->gen = (s->gen + 1) | UC_SLOT_FREE;
	s->next_free = f->free_slot;
	f->free_slot = s;
}

/* Say why a SET or TIMEOUT was refused, rate-limited. Return: @err. */
int uc_refused(int err)
{
	pr_warn_ratelimited("%s (pid %d): %s\n", current->comm,
			    task_pid_nr(current), err == -ENOSPC ?
			    "callout limit reached" : "out of memory");
	return err;
}

/*
 * A new ucallout with a slot reserved for it: uc->handle names it, but
 * lookups do not find it until __uc_arm_new(). A spare if the file has
 * one. The file lock is held, and dropped and taken again to allocate
 * (batch @b ended first; as in every __ helper that takes one).
 */
static struct ucallout *__uc_get(struct uc_file *f, struct uc_slot **sp,
				 struct callout_batch *b)
	__must_hold(&f->lock)
{
	struct ucallout *uc;
	struct uc_slot *s;
	u32 idx;
	int err;

	lockdep_assert_held(&f->lock);
	err = uc_charge(f);
	if (err)
		return ERR_PTR(uc_refused(err));
	while ((s = __uc_slot_take(f, &idx)) == ERR_PTR(-EAGAIN)) {
		callout_batch_end(b);
		spin_unlock_bh(&f->lock);
		err = uc_slot_alloc(f, idx);
		spin_lock_bh(&f->lock);
		if (err)
			goto uncharge;
	}
	if (IS_ERR(s)) {
		err = PTR_ERR(s);
		goto uncharge;
	}
	if (f->spares) {
		uc = llist_entry(f->spares, struct ucallout, q.node);
		f->spares = f->spares->next;
		f->nr_spares--;
	} else {
		callout_batch_end(b);
		spin_unlock_bh(&f->lock);
		uc = kmem_cache_alloc(ucallout_cache, UC_GFP);
		spin_lock_bh(&f->lock);
		if (!uc) {
			callout_alloc_failed(CALLOUT_ALLOC_CALLOUT);
			__uc_slot_free(f, s);
			err = -ENOMEM;
			goto uncharge;
		}
	}
	/* The arming's fields are written by __uc_arm_new(). */
	__callout_init(&uc->c);
	/* Its due-time entry may put it back: the tick asks uc_defer_ops. */
	uc->c.entry.flags |= CALLOUT_DEFER;
	uc->file = f;
	uc->handle = (u64)s->gen << 32 | s->idx;
	uc->cookie = 0;
	uc->fired_ns = 0;
	atomic_set(&uc->q.state, 0);
	atomic_set(&uc->q.count, 0);
	*sp = s;
	return uc;
uncharge:
	uc_uncharge(f, 1);
	return ERR_PTR(uc_refused(err));
}

static struct ucallout *uc_get(struct uc_file *f, struct uc_slot **sp)
{
	struct ucallout *uc;

	spin_lock_bh(&f->lock);
	uc = __uc_get(f, sp, NULL);
	spin_unlock_bh(&f->lock);
	return uc;
}

/*
 * Give back @uc, which is in no table, queue or hash and whose func does
 * not run: it becomes a spare, or is freed. The file lock is held.
 */
static void __uc_put(struct uc_file *f, struct ucallout *uc)
{
	lockdep_assert_held(&f->lock);
	uc_uncharge(f, 1);
	if (f->nr_spares < UC_SPARES && !f->closing) {
		uc->q.node.next = f->spares;
		f->spares = &uc->q.node;
		f->nr_spares++;
	} else {
		kmem_cache_free(ucallout_cache, uc);
	}
}

/* Give back @uc of uc_get() and its slot @s, never armed. */
static void uc_abort(struct uc_file *f, struct uc_slot *s,
		     struct ucallout *uc)
{
	spin_lock_bh(&f->lock);
	__uc_slot_free(f, s);
	__uc_put(f, uc);
	spin_unlock_bh(&f->lock);
}

/* Take @uc out of the table; the file lock is held. */
void __uc_unlink(struct uc_file *f, struct ucallout *uc)
{
	lockdep_assert_held(&f->lock);
	if (!(atomic_read(&uc->q.state) & UC_LINKED))
		return;
	__uc_slot_free(f, genradix_ptr(&f->slots, lower_32_bits(uc->handle)));
	atomic_andnot(UC_LINKED, &uc->q.state);
}

/*
 * Put @uc if no one holds it any more: out of the table, no cancel or
 * RESET waiting on it, not queued. Only a func can queue it again, and
 * none runs: a callout leaves the table only once cancelled with its func
 * waited out, or once its arming ended. The file lock is held.
 */
void __uc_done(struct uc_file *f, struct ucallout *uc)
{
	lockdep_assert_held(&f->lock);
	if (!(atomic_read(&uc->q.state) &
	      (UC_LINKED | UC_QUEUED | ~(UC_BUSY_ONE - 1))))
		__uc_put(f, uc);
}

/*
 * Queue @uc's expiry on its file's event list, unless it is queued already,
 * with @end (UC_ENDED, or UC_REARM for a periodic one), and wake a reader
 * if the list was empty. In the tick. The fetch-or is the expiry's last
 * touch of a @uc it finds queued: from there a reader may free @uc, and a
 * close() free @f after a grace period, so @f is used inside one.
 */
static void uc_publish(struct ucallout *uc, struct uc_file *f, u32 end)
{
	rcu_read_lock();
	if (!(atomic_fetch_or(UC_QUEUED | end, &uc->q.state) & UC_QUEUED))
		uc_enqueue(f, &uc->q);
	rcu_read_unlock();
}

/*
 * The expiry of a ucallout, in the tick (softirq, or the ktimers thread of
 * PREEMPT_RT). It takes no lock of the file and allocates nothing. The
 * tick asked uc_defer_ops first, which wrote @uc->fired_ns, moved
 * @uc->due_ns to a deferral that had passed, or found the cancel mark.
 */
static void uc_fire(void *arg)
{
	struct ucallout *uc = arg;
	struct uc_file *f = uc->file;
	u64 due = uc->due_ns, period = uc->period_ns, missed = 0;
	u32 end = UC_ENDED;

	if (atomic_read(&uc->q.state) & UC_CANCEL) {
		/*
		 * A lazy cancel: the arming ends, and no event of it is
		 * read (its count stays 0), as after an UNSET; the reader
		 * reaps it.
		 */
		uc_publish(uc, f, UC_ENDED);
		return;
	}

	/*
	 * A periodic callout is not re-armed here but by its reader
	 * (__uc_rearm()), so one whose event nobody reads does no work a
	 * period. The due times that passed while this expiry was late are
	 * its own, counted; the latest is its due time.
	 */
	if (period) {
		if (uc->fired_ns >= due + period)
			missed = div64_u64(uc->fired_ns - due, period);
		uc->due_ns = due + missed * period;
		end = UC_REARM;
	}
	/*
	 * The tick's clock read may precede the tick boundary it collected
	 * @uc at, when another CPU's set moved the wheel on in between:
	 * never report an expiry before its due time.
	 */
	uc->fired_ns = max(uc->fired_ns, uc->due_ns);
	/* The fields before the count, which the reader takes them by. */
	atomic_set_release(&uc->q.count, min_t(u64, 1 + missed, U32_MAX));
	uc_publish(uc, f, end);
}

/*
 * The record of @uc's latest expiry, with @count expiries in it: the one
 * writer of the ucallout's records (its reader, its count taken).
 */
void uc_record(const struct ucallout *uc, struct callout_event *ev,
	       u64 count)
{
	*ev = (struct callout_event) {
		.handle = uc->handle,
		.cookie = uc->cookie,
		.expires_ns = uc->due_ns,
		.fired_ns = uc->fired_ns,
		/* Saturates: expiries beyond U32_MAX unread are not told. */
		.overrun = min_t(u64, count - 1, U32_MAX),
		.flags = uc->period_ns ? CALLOUT_EV_PERIODIC : 0,
	};
}

/*
 * Re-arm @uc, a periodic callout whose expiry the tick left to its reader
 * (UC_REARM), as the reader takes its count, at the clock read @now, and
 * bring @ev, the record made of that count, or NULL, up to date. Nothing
 * writes its expiry meanwhile (it is not pending, and only this lock's
 * holders arm it). It goes on at the first due time of its period's grid
 * after @now, or at a later tick the user stored meanwhile (the deferral
 * policy, uc_due_later()); the due times that passed unread are expiries
 * of it, counted in @ev as if it had fired at each. A cancel mark stored
 * meanwhile ends it as at an expiry; one the scheme refuses ends with
 * this event, CALLOUT_EV_LAST. If the reader took the count before the
 * expiry set UC_REARM (the entry it queues again brings it here), @rec is
 * false: then due times passed, or the end, make @ev a record of their
 * own. The file lock is held.
 * Return: whether @ev is a record (false after the cancel mark).
 */
bool __uc_rearm(struct uc_file *f, struct ucallout *uc,
		struct callout_event *ev, bool rec, u64 now)
{
	u64 *word = uc_due_word(f, lower_32_bits(uc->handle));
	u64 due = uc->due_ns, period = uc->period_ns, next, missed, tick, v;
	bool mine;
	int ret;

	lockdep_assert_held(&f->lock);
	/*
	 * Not in the table: a cancel that waited out its func owns it, and
	 * its slot may be another's already. Its record stands (the cancel
	 * has not returned).
	 */
	if (!(atomic_fetch_andnot(UC_REARM, &uc->q.state) & UC_LINKED))
		return rec;
	v = word ? READ_ONCE(*word) : 0;
	mine = uc_due_mine(uc, v);
	if (mine && (v & CALLOUT_DUE_CANCEL)) {
		atomic_or(UC_ENDED, &uc->q.state);
		return false;
	}
	next = due + period;
	if (now >= next) {
		missed = div64_u64(now - due, period);
		next = due + (missed + 1) * period;
		if (!rec)
			uc_record(uc, ev, missed);
		else
			ev->overrun = min_t(u64, (u64)ev->overrun + missed,
					    U32_MAX);
		ev->expires_ns = due + missed * period;
		ev->fired_ns = now;
		rec = true;
	}
	tick = mine ? uc_due_later(v, next,
				   div64_u64(now, callout_tick_ns_param)) : 0;
	if (tick)
		next = tick * callout_tick_ns_param;
	uc->due_ns = next;
	/* Before the arming, whose expiry reads it; unless the user stored since. */
	if (word)
		cmpxchg64(word, v, uc_due_entry(uc, next));
	ret = callout_requeue(&uc->c, now, next);
	/* Nothing else arms it while UC_REARM is set: -EALREADY is a bug. */
	if (ret && !WARN_ON_ONCE(ret == -EALREADY)) {
		if (!rec)
			uc_record(uc, ev, 1);
		ev->flags |= CALLOUT_EV_LAST;
		atomic_or(UC_ENDED, &uc->q.state);
		rec = true;
	}
	return rec;
}

/*
 * Cancel the callout of slot @s; the file lock is held, and dropped
 * and taken again if its func runs now. Its handle is gone at once.
 * Return: 0 if its arming is cancelled (no event of it will be read), or
 * -ENOENT if that arming had ended by itself first (a one-shot that fired,
 * whose event stands).
 */
int __uc_cancel(struct uc_file *f, struct uc_slot *s,
		struct callout_batch *b)
	__must_hold(&f->lock)
{
	struct ucallout *uc = s->uc;
	u32 state;
	int ret = 0;

	lockdep_assert_held(&f->lock);
	if (callout_batch_try_unset(b, &uc->c) == -EBUSY) {
		/* Out of the table before the lock is dropped: its handle is gone. */
		__uc_unlink(f, uc);
		atomic_add(UC_BUSY_ONE, &uc->q.state);
		callout_batch_end(b);
		spin_unlock_bh(&f->lock);
		callout_unset_sync(&uc->c);
		spin_lock_bh(&f->lock);
		atomic_sub(UC_BUSY_ONE, &uc->q.state);
	}
	/*
	 * Not pending, its func done with: nothing but this lock's holders
	 * changes its state now, so one store does it, and UC_ENDED cannot
	 * change any more.
	 */
	state = atomic_read(&uc->q.state);
	if (state & UC_ENDED) {
		ret = -ENOENT;
	} else {
		/* An event still queued is stale; one waiting is not re-armed. */
		atomic_set(&uc->q.count, 0);
		state &= ~UC_REARM;
		__uc_unstash(f, uc->handle);
	}
	if (state & UC_LINKED) {
		__uc_slot_free(f, s);
		state &= ~UC_LINKED;
	}
	atomic_set(&uc->q.state, state);
	__uc_done(f, uc);
	return ret;
}

int uc_check_times(u64 timeout_ns, u64 period_ns)
{
	u64 max = callout_max_timeout_ns();

	if (!timeout_ns || (period_ns && period_ns < callout_tick_ns_param))
		return -EINVAL;
	if (timeout_ns > max || period_ns > max)
		return -ERANGE;
	return 0;
}

/*
 * Arm @uc of __uc_get(), its slot @s, with its first arming, due at @expires_ns and
 * computed from the clock read @now_ns, and enter it in the table under
 * its handle. The file lock is held.
 * Return: 0, or -errno with @uc out of the table again, for the caller to
 * put. On success @uc may fire, be read and be freed as soon as the lock
 * is dropped: the caller must not touch it again.
 */
static int __uc_arm_new(struct uc_file *f, struct uc_slot *s,
			struct ucallout *uc, u64 now_ns, u64 expires_ns,
			u64 period_ns, struct callout_batch *b)
{
	u64 *word = uc_due_word(f, s->idx);
	int ret;

	lockdep_assert_held(&f->lock);
	uc->due_ns = expires_ns;
	uc->period_ns = period_ns;
	s->uc = uc;
	/* Not armed yet: no one else looks at its state. */
	atomic_set(&uc->q.state, UC_LINKED);
	/* Before the arming: its expiry reads it. */
	if (word)
		WRITE_ONCE(*word, uc_due_entry(uc, expires_ns));
	ret = callout_batch_set_from(b, &uc->c, now_ns, expires_ns, uc_fire,
				     uc);
	if (ret < 0) {
		__uc_slot_free(f, s);
		atomic_set(&uc->q.state, 0);
		return ret;
	}
	return 0;
}

int uc_ioc_set(struct uc_file *f, struct callout_set __user *argp)
{
	struct callout_set req;
	struct ucallout *uc;
	struct uc_slot *s;
	u64 now;
	int ret;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	ret = uc_check_times(req.timeout_ns, req.period_ns);
	if (ret)
		return ret;
	uc = uc_get(f, &s);
	if (IS_ERR(uc))
		return PTR_ERR(uc);
	uc->cookie = req.cookie;
	/*
	 * Hand out the handle before arming: a callout whose handle cannot
	 * be written back is never armed, so no event can come for a handle
	 * the caller never learnt.
	 */
	if (put_user(uc->handle, &argp->handle)) {
		uc_abort(f, s, uc);
		return -EFAULT;
	}
	now = callout_now_ns();
	spin_lock_bh(&f->lock);
	ret = __uc_arm_new(f, s, uc, now, now + req.timeout_ns, req.period_ns,
			   NULL);
	if (ret)
		__uc_put(f, uc);
	spin_unlock_bh(&f->lock);
	return ret;
}

int uc_ioc_unset(struct uc_file *f, u64 __user *argp)
{
	struct uc_slot *s;
	u64 handle;
	int ret = -ENOENT;

	if (get_user(handle, argp))
		return -EFAULT;
	spin_lock_bh(&f->lock);
	s = __uc_lookup(f, handle);
	if (s)
		ret = __uc_cancel(f, s, NULL);
	spin_unlock_bh(&f->lock);
	return ret;
}

/* A RESET's new arming, which the core commits (uc_commit()) */
struct uc_commit {
	struct callout_commit cm;
	u64 due_ns;
	u64 period_ns;
};

/*
 * The new arming is sure: write it, and the due-time entry its expiry
 * reads; an unread event of the arming it replaces is stale from here.
 * Context: the core's commit, @c's base locked, interrupts off, and the
 * RESET's file lock held.
 */
static void uc_commit(struct callout *c, const struct callout_commit *cm)
{
	const struct uc_commit *r = container_of(cm, struct uc_commit, cm);
	struct ucallout *uc = container_of(c, struct ucallout, c);
	u64 *word = uc_due_word(uc->file, lower_32_bits(uc->handle));
	u32 state = atomic_read(&uc->q.state);

	uc->due_ns = r->due_ns;
	uc->period_ns = r->period_ns;
	atomic_set(&uc->q.count, 0);
	/* Its func does not run, and the readers wait for the file lock. */
	if (state & UC_REARM)
		atomic_set(&uc->q.state, state & ~UC_REARM);
	if (word)
		WRITE_ONCE(*word, uc_due_entry(uc, r->due_ns));
}

/*
 * Re-arm @uc in place with a new arming. The core refuses while @uc's func
 * runs; then wait that out and try again. It refuses too once the arming
 * has ended (its last func ran, UC_ENDED), which the check here may not
 * see yet: never re-arm an ended one. A periodic one left to its reader
 * (UC_REARM) is not pending: it is armed anew. A refusal of the scheme
 * leaves the arming in force as it was. The file lock is held, and
 * dropped and taken again while waiting.
 * Return: 0, -ENOENT if @uc is cancelled or its arming ended meanwhile,
 * or the scheme's -ENOSPC/-ERANGE.
 */
static int __uc_reset(struct uc_file *f, struct ucallout *uc, u64 now,
		      u64 timeout_ns, u64 period_ns, struct callout_batch *b)
	__must_hold(&f->lock)
{
	struct uc_commit r = {
		.cm.commit = uc_commit,
		.due_ns = now + timeout_ns,
		.period_ns = period_ns,
	};
	unsigned int how;
	u32 state;
	int ret;

	lockdep_assert_held(&f->lock);
	for (;;) {
		state = atomic_read(&uc->q.state);
		if (!(state & UC_LINKED) || (state & UC_ENDED))
			return -ENOENT;
		how = ARM_IF_NOT_RUNNING;
		if (!(state & UC_REARM))
			how |= ARM_IF_PENDING;
		ret = callout_batch_rearm_from(b, &uc->c, now, r.due_ns, how,
					       &r.cm);
		/*
		 * Not pending: its expiry ended since the look above (the base
		 * lock orders that expiry's state before this): look again.
		 */
		if (ret == -ENOENT && (how & ARM_IF_PENDING) &&
		    (atomic_read(&uc->q.state) & (UC_REARM | UC_ENDED)))
			continue;
		if (ret != -EBUSY)
			break;
		atomic_add(UC_BUSY_ONE, &uc->q.state);
		callout_batch_end(b);
		spin_unlock_bh(&f->lock);
		callout_wait_idle(&uc->c);
		spin_lock_bh(&f->lock);
		atomic_sub(UC_BUSY_ONE, &uc->q.state);
	}
	if (ret < 0)
		return ret;
	__uc_unstash(f, uc->handle);
	return 0;
}

/* RESET of @handle from the clock read @now; the file lock is held. */
int __uc_reset_handle(struct uc_file *f, u64 handle, u64 now,
		      u64 timeout_ns, u64 period_ns,
			     struct callout_batch *b)
	__must_hold(&f->lock)
{
	struct uc_slot *s;
	struct ucallout *uc;
	int ret;

	lockdep_assert_held(&f->lock);
	this_cpu_inc(callout_op_counts.reset);
	s = __uc_lookup(f, handle);
	if (!s)
		return -ENOENT;
	uc = s->uc;
	ret = __uc_reset(f, uc, now, timeout_ns, period_ns, b);
	/* A cancel may have come while it waited. */
	__uc_done(f, uc);
	return ret;
}

int uc_ioc_reset(struct uc_file *f, struct callout_reset __user *argp)
{
	struct callout_reset req;
	u64 now;
	int ret;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	ret = uc_check_times(req.timeout_ns, req.period_ns);
	if (ret)
		return ret;
	now = callout_now_ns();
	spin_lock_bh(&f->lock);
	ret = __uc_reset_handle(f, req.handle, now, req.timeout_ns,
				req.period_ns, NULL);
	spin_unlock_bh(&f->lock);
	return ret;
}

/* SET from the clock read @now; the file lock is held. */
int __uc_set(struct uc_file *f, struct callout_op *op, u64 now,
	     struct callout_batch *b)
	__must_hold(&f->lock)
{
	struct ucallout *uc;
	struct uc_slot *s;
	int ret;

	lockdep_assert_held(&f->lock);
	uc = __uc_get(f, &s, b);
	if (IS_ERR(uc))
		return PTR_ERR(uc);
	uc->cookie = op->cookie;
	ret = __uc_arm_new(f, s, uc, now, now + op->timeout, op->period_ns, b);
	if (ret) {
		__uc_put(f, uc);
		return ret;
	}
	op->handle = uc->handle;
	return 0;
}

/*
 * An mmap() of the due-time table: mark it mapped, then write the entry of
 * every callout armed before the first, which SET and RESET skipped (a
 * file that never maps its table pays for no entry), unless one is there
 * already (a SET or RESET since the mark, or the user's own store). Every
 * mmap() walks, so none returns before the entries are there (another
 * process's may still be walking). One file-lock section every UC_RESCHED
 * slots.
 */
void uc_due_fill(struct uc_file *f)
{
	struct ucallout *uc;
	struct uc_slot *s;
	u64 *word, due;
	u32 idx;

	if (!IS_ENABLED(CONFIG_64BIT))
		return;
	spin_lock_bh(&f->lock);
	WRITE_ONCE(f->mapped, true);
	for (idx = 1; idx < f->nr_slots; idx++) {
		s = genradix_ptr(&f->slots, idx);
		uc = s->gen & UC_SLOT_FREE ? NULL : s->uc;
		word = uc_due_word(f, idx);
		/*
		 * A pending callout's due time may move on meanwhile (the tick
		 * defers it): an entry of an earlier tick than its due time
		 * is one the tick ignores.
		 */
		due = uc ? data_race(uc->due_ns) : 0;
		if (uc)
			cmpxchg64(word, 0, uc_due_entry(uc, due));
		if (!(idx % UC_RESCHED)) {
			spin_unlock_bh(&f->lock);
			cond_resched();
			spin_lock_bh(&f->lock);
		}
	}
	spin_unlock_bh(&f->lock);
}

/*
 * close(): cancel every callout of the table, so that no func of the file
 * runs after. One file-lock section a callout, so bottom halves are never
 * off for the whole table, rescheduling at least every UC_RESCHED.
 */
void uc_cancel_all(struct uc_file *f)
{
	struct uc_slot *s;
	u32 idx;

	for (idx = 1; idx < f->nr_slots; idx++) {
		s = genradix_ptr(&f->slots, idx);
		spin_lock_bh(&f->lock);
		if (s->uc && !(s->gen & UC_SLOT_FREE))
			__uc_cancel(f, s, NULL);
		spin_unlock_bh(&f->lock);
		if (!(idx % UC_RESCHED))
			cond_resched();
	}
}

/*
 * close(): free the spares, the handle table and the due-time table, once
 * every callout is put and no mapping of the table is left.
 */
void uc_table_free(struct uc_file *f)
{
	struct llist_node *spare;
	unsigned long pg;
	struct page *page;

	while ((spare = f->spares)) {
		f->spares = spare->next;
		kmem_cache_free(ucallout_cache,
				llist_entry(spare, struct ucallout, q.node));
	}
	genradix_free(&f->slots);
	xa_for_each(&f->due_pages, pg, page)
		__free_page(page);
	xa_destroy(&f->due_pages);
}

int uc_callout_init(void)
{
	if (percpu_counter_init(&callout_user_total, 0, GFP_KERNEL))
		return -ENOMEM;
	ucallout_cache = KMEM_CACHE(ucallout, SLAB_ACCOUNT);
	if (!ucallout_cache) {
		percpu_counter_destroy(&callout_user_total);
		return -ENOMEM;
	}
	return 0;
}

void uc_callout_exit(void)
{
	kmem_cache_destroy(ucallout_cache);
	percpu_counter_destroy(&callout_user_total);
}
