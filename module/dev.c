// SPDX-License-Identifier: GPL-2.0
/*
 * dev.c - /dev/callout: setcallout/unsetcallout as ioctls, expiries as
 * struct callout_event records read from the file.
 *
 * Each open file owns its callouts (struct ucallout), found by handle in the
 * file's handle table. The file lock protects the table, the event queue,
 * the spare ucallouts and every ucallout's user-side state. Lock order (the
 * whole of it is at the top of core.c): the read mutex, then the file lock,
 * then a base lock (taken inside callout_set_from()); the file lock is
 * taken in the tick too (uc_fire()), so it is never held across
 * callout_unset_sync(). A __ helper is called with the file lock held.
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
 * Ownership of a ucallout is held by whoever removes it from the table: a
 * cancel (UNSET, UNTIMEOUT, close) or the expiry of a one-shot, which then
 * hands it to the event queue and the reader puts it back. A cancel puts it
 * back only once its expiry cannot run: callout_try_unset_sync() under the
 * file lock says so, or callout_unset_sync() waits for it outside the lock.
 * The expiry checks UC_DEAD under the file lock, so no event is queued for
 * a callout after its cancel returns.
 *
 * Each ucallout is queued at most once: a periodic callout that fires again
 * before its event is read counts the extra expiry in ->overrun, so memory is
 * bounded by the number of callouts, whatever the reader does.
 *
 * A read() takes only the events queued when it takes its first: a callout
 * it has taken that fires again (even while its record is being copied out)
 * is queued behind those, for the next read(). So one read() returns at most
 * one record of each callout.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/generic-radix-tree.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <uapi/linux/callout.h>

#include "internal.h"

/*
 * ucallout.uflags, under the file lock. Not in c.entry.flags: the core
 * changes those under a base lock, and the two writers would lose updates.
 */
#define UC_QUEUED	0x1000u	/* on file->events */
#define UC_DEAD		0x2000u	/* cancelled: its expiry must do nothing */
#define UC_TIMEOUT	0x4000u	/* from CALLOUT_IOC_TIMEOUT: a ucallout_to */
#define UC_FIRED	0x8000u	/* a fired one-shot: the queue owns it */
#define UC_EV_PERIODIC	0x10000u /* the queued expiry was of a periodic arming */

/* Spare ucallouts a file keeps for its next SETs */
#define UC_SPARES	64

/**
 * struct uc_slot - an entry of a file's handle table
 * @uc:		the callout armed with this slot's handle, or NULL
 * @next_free:	while free, the next free slot
 * @gen:	the high half of this slot's handle
 * @idx:	the low half: this slot's index
 */
struct uc_slot {
	struct ucallout *uc;
	struct uc_slot *next_free;
	u32 gen;
	u32 idx;
};

/* One open /dev/callout. "Locked" is under the file lock, ->lock. */
struct callout_file {
	spinlock_t lock;		/* the file lock, taken with BHs off */
	/* the handle table, locked */
	GENRADIX(struct uc_slot)
		slots;
	u32 nr_slots;			/* slots 1 .. nr_slots - 1 exist, locked */
	struct uc_slot *free_slot;	/* first free slot, locked */
	unsigned long nr_uc;		/* ucallouts owned, not spares, locked */
	struct list_head spares;	/* unused ucallouts, linked by ->ev, locked */
	unsigned int nr_spares;		/* locked */
	struct list_head events;	/* ucallouts with an unread event, locked */
	unsigned long nr_events;	/* on ->events, locked */
	wait_queue_head_t wq;		/* readers and pollers */
	struct mutex read_lock;		/* one reader takes events at a time */
	u64 events_taken;		/* events removed by cancels, locked */
	bool closing;			/* release() runs: expiries do nothing, locked */
};

/**
 * struct ucallout - a callout of a /dev/callout file
 * @c:		the callout
 * @file:	owner
 * @handle:	its handle: slot index and generation
 * @slot:	its slot in file->slots
 * @cookie:	returned in events (the func of a TIMEOUT)
 * @expires_ns:	due time of the current arming
 * @period_ns:	0 one-shot, else the period
 * @ev_expires_ns: due time of the latest expiry queued
 * @fired_ns:	when it fired
 * @overrun:	expiries not read before the one queued
 * @uflags:	UC_* bits, under the file lock
 * @ev:		link on file->events while UC_QUEUED, on file->spares while spare
 */
struct ucallout {
	struct callout c;
	struct callout_file *file;
	u64 handle;
	struct uc_slot *slot;
	u64 cookie;
	u64 expires_ns;
	u64 period_ns;
	u64 ev_expires_ns;
	u64 fired_ns;
	u32 overrun;
	u32 uflags;
	struct list_head ev;
};

/* A TIMEOUT callout: found through the func/arg hash, freed after RCU. */
struct ucallout_to {
	struct ucallout uc;
	struct callout_hashed h;
	struct rcu_head rcu;
};

static struct kmem_cache *ucallout_cache, *ucallout_to_cache;
atomic_long_t callout_user_total;

/*
 * What a file allocates for its user: charged to the caller's memory cgroup
 * and, when that is full, refused with -ENOMEM after reclaim rather than
 * calling the cgroup's OOM killer from inside an ioctl.
 */
#define UC_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL)

static bool uc_has(const struct ucallout *uc, u32 flag)
{
	return uc->uflags & flag;
}

static struct ucallout_to *to_uto(struct ucallout *uc)
{
	return container_of(uc, struct ucallout_to, uc);
}

/* call_rcu(), not kfree_rcu(): rcu_barrier() at unload waits for these. */
static void uc_free_rcu(struct rcu_head *rcu)
{
	kmem_cache_free(ucallout_to_cache,
			container_of(rcu, struct ucallout_to, rcu));
}

/* The callout armed as @handle, or NULL; the file lock is held. */
static struct ucallout *__uc_lookup(struct callout_file *f, u64 handle)
{
	u32 idx = lower_32_bits(handle);
	struct uc_slot *s;

	lockdep_assert_held(&f->lock);
	if (!idx || idx >= f->nr_slots)
		return NULL;
	s = genradix_ptr(&f->slots, idx);
	return s->gen == upper_32_bits(handle) ? s->uc : NULL;
}

/*
 * Take a free slot for a new callout; the file lock is held.
 * Return: the slot; ERR_PTR(-EAGAIN), with the index of the slot whose page
 * must be allocated first in @*idx; ERR_PTR(-ENOSPC) if every index is used.
 */
static struct uc_slot *__uc_slot_take(struct callout_file *f, u32 *idx)
{
	struct uc_slot *s = f->free_slot;

	lockdep_assert_held(&f->lock);
	if (s) {
		f->free_slot = s->next_free;
		return s;
	}
	if (f->nr_slots == U32_MAX)
		return ERR_PTR(-ENOSPC);
	s = genradix_ptr(&f->slots, f->nr_slots);
	if (!s) {
		*idx = f->nr_slots;
		return ERR_PTR(-EAGAIN);
	}
	s->idx = f->nr_slots++;
	return s;
}

/* Free slot @s: its next handle is one never given. The file lock is held. */
static void __uc_slot_free(struct callout_file *f, struct uc_slot *s)
{
	lockdep_assert_held(&f->lock);
	s->uc = NULL;
	if (s->gen == U32_MAX)
		return;		/* retired: all its handles are spent */
	s->gen++;
	s->next_free = f->free_slot;
	f->free_slot = s;
}

static struct ucallout *uc_refused(int err)
{
	pr_warn_ratelimited("%s (pid %d): %s\n", current->comm,
			    task_pid_nr(current), err == -ENOSPC ?
			    "callout limit reached" : "out of memory");
	return ERR_PTR(err);
}

/*
 * A new ucallout with a slot reserved for it: uc->handle names it, but
 * lookups do not find it until uc_arm_new(). A spare if the file has one.
 */
static struct ucallout *uc_get(struct callout_file *f, bool timeout)
{
	struct ucallout *uc = NULL;
	struct uc_slot *s;
	u64 handle;
	u32 idx;

	for (;;) {
		spin_lock_bh(&f->lock);
		s = ERR_PTR(-ENOSPC);
		if (f->nr_uc >= callout_max_per_file)
			break;
		s = __uc_slot_take(f, &idx);
		if (s != ERR_PTR(-EAGAIN))
			break;
		spin_unlock_bh(&f->lock);
		if (!genradix_ptr_alloc(&f->slots, idx, UC_GFP))
			return uc_refused(-ENOMEM);
	}
	if (!IS_ERR(s) && atomic_long_inc_return(&callout_user_total) >
			  callout_max_total) {
		atomic_long_dec(&callout_user_total);
		__uc_slot_free(f, s);
		s = ERR_PTR(-ENOSPC);
	}
	if (IS_ERR(s)) {
		spin_unlock_bh(&f->lock);
		return uc_refused(PTR_ERR(s));
	}
	f->nr_uc++;
	handle = (u64)s->gen << 32 | s->idx;
	if (!timeout && f->nr_spares) {
		uc = list_first_entry(&f->spares, struct ucallout, ev);
		list_del(&uc->ev);
		f->nr_spares--;
	}
	spin_unlock_bh(&f->lock);

	if (uc)
		memset(uc, 0, sizeof(*uc));
	else
		uc = kmem_cache_zalloc(timeout ? ucallout_to_cache :
				       ucallout_cache, UC_GFP);
	if (!uc) {
		spin_lock_bh(&f->lock);
		__uc_slot_free(f, s);
		f->nr_uc--;
		atomic_long_dec(&callout_user_total);
		spin_unlock_bh(&f->lock);
		return uc_refused(-ENOMEM);
	}
	callout_init(&uc->c);
	uc->file = f;
	uc->slot = s;
	uc->handle = handle;
	if (timeout)
		uc->uflags |= UC_TIMEOUT;
	return uc;
}

/*
 * Give back @uc, which is in no table, queue or hash and whose func does
 * not run: it becomes a spare, or is freed. The file lock is held.
 */
static void __uc_put(struct callout_file *f, struct ucallout *uc)
{
	lockdep_assert_held(&f->lock);
	f->nr_uc--;
	atomic_long_dec(&callout_user_total);
	if (uc_has(uc, UC_TIMEOUT)) {
		call_rcu(&to_uto(uc)->rcu, uc_free_rcu);
	} else if (f->nr_spares < UC_SPARES && !f->closing) {
		list_add(&uc->ev, &f->spares);
		f->nr_spares++;
	} else {
		kmem_cache_free(ucallout_cache, uc);
	}
}

static void uc_put(struct callout_file *f, struct ucallout *uc)
{
	spin_lock_bh(&f->lock);
	__uc_put(f, uc);
	spin_unlock_bh(&f->lock);
}

/* Give back @uc of uc_get() and the slot reserved for it, never armed. */
static void uc_abort(struct callout_file *f, struct ucallout *uc)
{
	spin_lock_bh(&f->lock);
	__uc_slot_free(f, uc->slot);
	__uc_put(f, uc);
	spin_unlock_bh(&f->lock);
}

/* The expiry of a ucallout, in softirq context. */
static void uc_fire(void *arg)
{
	struct ucallout *uc = arg;
	struct callout_file *f = uc->file;
	u64 now = callout_now_ns();

	spin_lock(&f->lock);
	/* Cancelled, closing, or set again while this expiry waited: stale. */
	if (f->closing || uc_has(uc, UC_DEAD) || callout_pending(&uc->c))
		goto unlock;

	uc->fired_ns = now;
	if (uc_has(uc, UC_QUEUED)) {
		uc->overrun++;
	} else {
		uc->uflags |= UC_QUEUED;
		uc->overrun = 0;
		list_add_tail(&uc->ev, &f->events);
		f->nr_events++;
		/*
		 * Under the file lock: once it is dropped, a reader may free
		 * a fired one-shot and a close() free the file.
		 */
		wake_up_interruptible_poll(&f->wq, EPOLLIN | EPOLLRDNORM);
	}
	uc->ev_expires_ns = uc->expires_ns;
	/*
	 * The record describes its latest expiry, kind included: a RESET
	 * may turn a periodic callout one-shot (or back) before it is read.
	 */
	if (uc->period_ns)
		uc->uflags |= UC_EV_PERIODIC;
	else
		uc->uflags &= ~UC_EV_PERIODIC;

	if (uc->period_ns) {
		u64 missed = 0;

		if (now >= uc->expires_ns + uc->period_ns)
			missed = div64_u64(now - uc->expires_ns, uc->period_ns);
		uc->overrun = min_t(u64, (u64)uc->overrun + missed, U32_MAX);
		uc->ev_expires_ns += missed * uc->period_ns;
		uc->expires_ns = uc->ev_expires_ns + uc->period_ns;
		if (callout_set_from(&uc->c, now, uc->expires_ns, uc_fire,
				     uc) >= 0)
			goto unlock;
		/* Beyond the scheme's reach now: this expiry is its last. */
		pr_warn_ratelimited("periodic callout %llu could not re-arm\n",
				    uc->handle);
	}
	/* Fired: no longer pending, the event queue owns it now. */
	__uc_slot_free(f, uc->slot);
	uc->uflags |= UC_FIRED;
	if (uc_has(uc, UC_TIMEOUT))
		callout_hash_remove(&to_uto(uc)->h);
unlock:
	spin_unlock(&f->lock);
}

/* Take @uc, which is queued, off the event queue; the file lock is held. */
static void __uc_unqueue(struct callout_file *f, struct ucallout *uc)
{
	lockdep_assert_held(&f->lock);
	list_del(&uc->ev);
	uc->uflags &= ~UC_QUEUED;
	f->nr_events--;
}

/* A cancel withdraws @uc's event if one is queued; the file lock is held. */
static void __uc_dequeue(struct callout_file *f, struct ucallout *uc)
{
	lockdep_assert_held(&f->lock);
	if (uc_has(uc, UC_QUEUED)) {
		__uc_unqueue(f, uc);
		f->events_taken++;
	}
}

/*
 * Claim @uc for cancelling: it must still be in the file's table. The file
 * lock is held. After this its expiry does nothing and no event of it is
 * queued.
 */
static bool __uc_claim(struct callout_file *f, struct ucallout *uc)
{
	lockdep_assert_held(&f->lock);
	if (uc->slot->uc != uc)
		return false;
	__uc_slot_free(f, uc->slot);
	uc->uflags |= UC_DEAD;
	__uc_dequeue(f, uc);
	return true;
}

/* Finish the cancel of a claimed @uc: wait out its expiry and put it. */
static void uc_cancel_claimed(struct callout_file *f, struct ucallout *uc)
{
	if (uc_has(uc, UC_TIMEOUT))
		callout_hash_remove(&to_uto(uc)->h);
	callout_unset_sync(&uc->c);
	uc_put(f, uc);
}

static int check_times(u64 timeout_ns, u64 period_ns)
{
	u64 max = callout_max_timeout_ns();

	if (!timeout_ns || (period_ns && period_ns < callout_tick_ns()))
		return -EINVAL;
	if (timeout_ns > max || period_ns > max)
		return -ERANGE;
	return 0;
}

static int ioc_info(void __user *argp)
{
	struct callout_info info = {
		.tick_ns = callout_tick_ns(),
		.max_timeout_ns = callout_max_timeout_ns(),
		.max_per_file = callout_max_per_file,
		.scheme = callout_ops->id,
		.nr_cpus = num_possible_cpus(),
	};

	return copy_to_user(argp, &info, sizeof(info)) ? -EFAULT : 0;
}

/*
 * Arm @uc of uc_get() at uc->expires_ns, computed from the clock read
 * @now_ns, and enter it in the table under its handle.
 * Return: 0, or -errno with @uc out of the table again, for the caller to
 * put. On success @uc may fire, be read and be freed at any moment: the
 * caller must not touch it again.
 */
static int uc_arm_new(struct callout_file *f, struct ucallout *uc, u64 now_ns)
{
	int ret;

	spin_lock_bh(&f->lock);
	uc->slot->uc = uc;
	ret = callout_set_from(&uc->c, now_ns, uc->expires_ns, uc_fire, uc);
	if (ret < 0)
		__uc_slot_free(f, uc->slot);
	spin_unlock_bh(&f->lock);
	return ret < 0 ? ret : 0;
}

/*
 * Cancel the callout of @handle; 0, or -ENOENT if it is not pending. Its
 * func, uc_fire(), takes the file lock: unless it runs now, the callout
 * is done with at once and goes back to the spares in the same section.
 */
static int uc_cancel_handle(struct callout_file *f, u64 handle)
{
	struct ucallout *uc;
	int ret = -ENOENT;

	spin_lock_bh(&f->lock);
	uc = __uc_lookup(f, handle);
	if (uc && !uc_has(uc, UC_TIMEOUT)) {
		__uc_claim(f, uc);
		ret = callout_try_unset_sync(&uc->c);
		if (ret != -EBUSY) {
			__uc_put(f, uc);
			ret = 0;
		}
	}
	spin_unlock_bh(&f->lock);
	if (ret != -EBUSY)
		return ret;
	callout_unset_sync(&uc->c);
	uc_put(f, uc);
	return 0;
}

static int ioc_set(struct callout_file *f, struct callout_set __user *argp)
{
	struct callout_set req;
	struct ucallout *uc;
	u64 now;
	int ret;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	ret = check_times(req.timeout_ns, req.period_ns);
	if (ret)
		return ret;
	uc = uc_get(f, false);
	if (IS_ERR(uc))
		return PTR_ERR(uc);
	uc->cookie = req.cookie;
	uc->period_ns = req.period_ns;
	/*
	 * Hand out the handle before arming: a callout whose handle cannot
	 * be written back is never armed, so no event can come for a handle
	 * the caller never learnt.
	 */
	if (put_user(uc->handle, &argp->handle)) {
		uc_abort(f, uc);
		return -EFAULT;
	}
	now = callout_now_ns();
	uc->expires_ns = now + req.timeout_ns;
	ret = uc_arm_new(f, uc, now);
	if (ret)
		uc_put(f, uc);
	return ret;
}

static int ioc_unset(struct callout_file *f, u64 __user *argp)
{
	u64 handle;

	if (get_user(handle, argp))
		return -EFAULT;
	return uc_cancel_handle(f, handle);
}

static int ioc_reset(struct callout_file *f, struct callout_reset __user *argp)
{
	struct callout_reset req;
	struct ucallout *uc;
	bool refused = false;
	u64 now;
	int ret;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	ret = check_times(req.timeout_ns, req.period_ns);
	if (ret)
		return ret;
	this_cpu_inc(callout_op_counts.reset);
	spin_lock_bh(&f->lock);
	uc = __uc_lookup(f, req.handle);
	if (!uc || uc_has(uc, UC_TIMEOUT)) {
		ret = -ENOENT;
	} else {
		uc->period_ns = req.period_ns;
		now = callout_now_ns();
		uc->expires_ns = now + req.timeout_ns;
		ret = callout_set_from(&uc->c, now, uc->expires_ns, uc_fire,
				       uc);
		/* The scheme refused the new time: it is no longer pending. */
		if (ret < 0)
			refused = __uc_claim(f, uc);
	}
	spin_unlock_bh(&f->lock);
	if (refused)
		uc_cancel_claimed(f, uc);
	return ret < 0 ? ret : 0;
}

static int ioc_timeout(struct callout_file *f,
		       struct callout_timeout __user *argp)
{
	struct callout_timeout req;
	struct ucallout_to *uto;
	struct ucallout *uc;
	u64 now;
	int ret;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	this_cpu_inc(callout_op_counts.timeout);
	if (!req.ticks)
		return -EINVAL;
	if (req.ticks > div64_u64(callout_max_timeout_ns(), callout_tick_ns()))
		return -ERANGE;
	uc = uc_get(f, true);
	if (IS_ERR(uc))
		return PTR_ERR(uc);
	uto = to_uto(uc);
	uto->h.key.owner = f;
	uto->h.key.func = req.func;
	uto->h.key.arg = req.arg;
	uc->cookie = req.func;
	now = callout_now_ns();
	uc->expires_ns = now + req.ticks * callout_tick_ns();
	ret = callout_hash_insert(&uto->h);
	if (ret) {
		uc_abort(f, uc);
		return ret;
	}
	ret = uc_arm_new(f, uc, now);
	if (ret) {
		callout_hash_remove(&uto->h);
		uc_put(f, uc);
	}
	return ret;
}

static int ioc_untimeout(struct callout_file *f,
			 struct callout_untimeout __user *argp)
{
	struct callout_untimeout req;
	struct callout_key key = { .owner = f };
	struct ucallout *found = NULL;
	struct callout_hashed *h;
	struct rhlist_head *pos, *list;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	key.func = req.func;
	key.arg = req.arg;
	this_cpu_inc(callout_op_counts.untimeout);

	rcu_read_lock();
	list = callout_hash_lookup(&key);
	spin_lock_bh(&f->lock);
	rhl_for_each_entry_rcu(h, pos, list, node) {
		struct ucallout *uc = &container_of(h, struct ucallout_to, h)->uc;

		if (__uc_claim(f, uc)) {
			found = uc;
			break;
		}
	}
	spin_unlock_bh(&f->lock);
	rcu_read_unlock();
	if (!found)
		return -ENOENT;
	uc_cancel_claimed(f, found);
	return 0;
}

static long callout_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct callout_file *f = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case CALLOUT_IOC_INFO:
		return ioc_info(argp);
	case CALLOUT_IOC_SET:
		return ioc_set(f, argp);
	case CALLOUT_IOC_UNSET:
		return ioc_unset(f, argp);
	case CALLOUT_IOC_RESET:
		return ioc_reset(f, argp);
	case CALLOUT_IOC_TIMEOUT:
		return ioc_timeout(f, argp);
	case CALLOUT_IOC_UNTIMEOUT:
		return ioc_untimeout(f, argp);
	default:
		return -ENOTTY;
	}
}

/* Fill @ev from the head of the queue; the file lock is held. */
static struct ucallout *__peek_event(struct callout_file *f,
				     struct callout_event *ev)
{
	struct ucallout *uc;

	lockdep_assert_held(&f->lock);
	uc = list_first_entry_or_null(&f->events, struct ucallout, ev);
	if (!uc)
		return NULL;
	*ev = (struct callout_event) {
		.handle = uc_has(uc, UC_TIMEOUT) ? 0 : uc->handle,
		.cookie = uc->cookie,
		.arg = uc_has(uc, UC_TIMEOUT) ? to_uto(uc)->h.key.arg : 0,
		.expires_ns = uc->ev_expires_ns,
		.fired_ns = uc->fired_ns,
		.overrun = uc->overrun,
		.flags = uc_has(uc, UC_TIMEOUT) ? CALLOUT_EV_TIMEOUT :
			 uc_has(uc, UC_EV_PERIODIC) ? CALLOUT_EV_PERIODIC : 0,
	};
	return uc;
}

/*
 * Consume the event @ev just copied from @uc; the file lock is held.
 * Expiries counted after the copy stay queued as a new event, at the tail:
 * the next read() returns it.
 */
static void __take_event(struct callout_file *f, struct ucallout *uc,
			 const struct callout_event *ev)
{
	u32 more;

	lockdep_assert_held(&f->lock);
	more = uc->overrun - ev->overrun;
	if (more) {
		uc->overrun = more - 1;
		list_move_tail(&uc->ev, &f->events);
		/* A new event for whoever polls: this read() leaves it. */
		wake_up_interruptible_poll(&f->wq, EPOLLIN | EPOLLRDNORM);
		return;
	}
	__uc_unqueue(f, uc);
	/* A fired one-shot left the handle table at expiry: put it. */
	if (uc_has(uc, UC_FIRED))
		__uc_put(f, uc);
}

static ssize_t callout_read(struct file *file, char __user *buf, size_t count,
			    loff_t *ppos)
{
	struct callout_file *f = file->private_data;
	struct callout_event ev;
	struct ucallout *uc;
	size_t done = 0;
	unsigned long left = 0;
	u64 taken, cancels = 0;
	int ret;

	if (count < sizeof(ev))
		return -EINVAL;
	ret = mutex_lock_interruptible(&f->read_lock);
	if (ret)
		return ret;
	while (done + sizeof(ev) <= count) {
		spin_lock_bh(&f->lock);
		/*
		 * @left of the events queued at the first take are still ahead,
		 * less those cancelled since (cancels behind them only make
		 * this read stop sooner). Later ones, a callout taken here and
		 * queued again included, are for the next read().
		 */
		if (done && f->events_taken - cancels >= left) {
			spin_unlock_bh(&f->lock);
			break;
		}
		uc = __peek_event(f, &ev);
		taken = f->events_taken;
		spin_unlock_bh(&f->lock);
		if (!uc) {
			if (done)
				break;
			if (file->f_flags & O_NONBLOCK) {
				ret = -EAGAIN;
				goto out;
			}
			mutex_unlock(&f->read_lock);
			ret = wait_event_interruptible(f->wq,
						       !list_empty(&f->events));
			if (ret)
				return ret;
			ret = mutex_lock_interruptible(&f->read_lock);
			if (ret)
				return ret;
			continue;
		}
		if (copy_to_user(buf + done, &ev, sizeof(ev))) {
			ret = -EFAULT;
			break;
		}
		spin_lock_bh(&f->lock);
		/*
		 * Only readers take the head, under read_lock; a cancel may
		 * have taken it meanwhile, and then this copy does not count.
		 */
		if (f->events_taken == taken) {
			if (!done) {
				left = f->nr_events;
				cancels = taken;
			}
			__take_event(f, uc, &ev);
			left--;
			done += sizeof(ev);
		}
		spin_unlock_bh(&f->lock);
	}
out:
	mutex_unlock(&f->read_lock);
	return done ? done : ret;
}

static __poll_t callout_poll(struct file *file, poll_table *wait)
{
	struct callout_file *f = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &f->wq, wait);
	spin_lock_bh(&f->lock);
	if (!list_empty(&f->events))
		mask = EPOLLIN | EPOLLRDNORM;
	spin_unlock_bh(&f->lock);
	return mask;
}

static int callout_open(struct inode *inode, struct file *file)
{
	struct callout_file *f;

	f = kzalloc(sizeof(*f), UC_GFP);
	if (!f)
		return -ENOMEM;
	spin_lock_init(&f->lock);
	genradix_init(&f->slots);
	f->nr_slots = 1;	/* handles are never 0 */
	INIT_LIST_HEAD(&f->spares);
	INIT_LIST_HEAD(&f->events);
	init_waitqueue_head(&f->wq);
	mutex_init(&f->read_lock);
	file->private_data = f;
	return nonseekable_open(inode, file);
}

/* close(): cancel and free everything the file owns. */
static int callout_release(struct inode *inode, struct file *file)
{
	struct callout_file *f = file->private_data;
	struct ucallout *uc, *tmp;
	struct uc_slot *s;
	LIST_HEAD(unread);
	u32 idx;

	spin_lock_bh(&f->lock);
	f->closing = true;
	list_splice_init(&f->events, &unread);
	f->nr_events = 0;
	spin_unlock_bh(&f->lock);

	/*
	 * Fired one-shots are only on the queue; periodic ones in the table.
	 * uflags change only under the file lock, as everywhere: one section
	 * an event, so BHs are never off for a whole queue.
	 */
	list_for_each_entry_safe(uc, tmp, &unread, ev) {
		spin_lock_bh(&f->lock);
		uc->uflags &= ~UC_QUEUED;
		if (uc_has(uc, UC_FIRED))
			__uc_put(f, uc);
		spin_unlock_bh(&f->lock);
		cond_resched();
	}
	/* Expiries see ->closing and leave the table alone from here on. */
	for (idx = 1; idx < f->nr_slots; idx++) {
		s = genradix_ptr(&f->slots, idx);
		if (s->uc)
			uc_cancel_claimed(f, s->uc);
		cond_resched();
	}
	list_for_each_entry_safe(uc, tmp, &f->spares, ev)
		kmem_cache_free(ucallout_cache, uc);
	genradix_free(&f->slots);
	mutex_destroy(&f->read_lock);
	kfree(f);
	return 0;
}

static const struct file_operations callout_fops = {
	.owner		= THIS_MODULE,
	.open		= callout_open,
	.release	= callout_release,
	.read		= callout_read,
	.poll		= callout_poll,
	.unlocked_ioctl	= callout_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice callout_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "callout",
	.fops	= &callout_fops,
	.mode	= 0666,
};

int callout_dev_init(void)
{
	int ret = -ENOMEM;

	ucallout_cache = KMEM_CACHE(ucallout, SLAB_ACCOUNT);
	ucallout_to_cache = KMEM_CACHE(ucallout_to, SLAB_ACCOUNT);
	if (!ucallout_cache || !ucallout_to_cache)
		goto err;
	ret = misc_register(&callout_miscdev);
	if (ret) {
		pr_err("cannot register /dev/callout: %d\n", ret);
		goto err;
	}
	return 0;
err:
	kmem_cache_destroy(ucallout_to_cache);
	kmem_cache_destroy(ucallout_cache);
	return ret;
}

void callout_dev_exit(void)
{
	misc_deregister(&callout_miscdev);
	rcu_barrier();
	kmem_cache_destroy(ucallout_to_cache);
	kmem_cache_destroy(ucallout_cache);
}
