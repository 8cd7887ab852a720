// SPDX-License-Identifier: GPL-2.0
/*
 * dev_timeout.c - a file's TIMEOUT and UNTIMEOUT.
 *
 * Timeouts. CALLOUT_IOC_TIMEOUT and UNTIMEOUT are timeout.c's
 * implementation, the one the kernel's callout_timeout() uses: the file
 * is an owner (struct callout_owner, key.owner in the func/arg hash, so a
 * file finds only its own pairs), its timeouts come from its owner's free
 * list, up to UC_SPARES, before the slab (ucallout_to_cache,
 * SLAB_TYPESAFE_BY_RCU, charged to the caller's memory cgroup with
 * UC_GFP), and UNTIMEOUT finds one under RCU and revalidates it (timeout.c
 * says how). A warm TIMEOUT+UNTIMEOUT allocates nothing. A timeout has no
 * handle, is one-shot and is never RESET, so none of the above is needed for
 * it: no table slot, no arming records, no stale events. Its expiry and an
 * UNTIMEOUT are decided by the core under its base lock: either the expire op,
 * uto_expire(), is called, or UNTIMEOUT returns 0, never both. The op (softirq,
 * no lock of the file, no allocation) notes when it fired (the due time is the
 * arming's, to.expires_ns) and queues the timeout on the same llist as
 * uc_fire(); from there the reader owns it, makes its record and gives it back
 * to the owner (callout_to_put()). So a timeout's event is read exactly once,
 * and an UNTIMEOUT that finds only fired ones says ENOENT even while their
 * events wait unread, as before.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dev.h"
#include "stats.h"

static struct kmem_cache *ucallout_to_cache;

/*
 * The expire op of a file's timeouts, in the tick (softirq, or the ktimers
 * thread of PREEMPT_RT), once the core has started the timeout's expiry, so
 * UNTIMEOUT can no longer cancel it (timeout.c): the reader owns it from the
 * llist_add() on. Like uc_fire(), it takes no lock of the file and allocates
 * nothing; a timeout is one-shot, so there is no earlier event of it to merge
 * with.
 */
static void uto_expire(struct callout_to *to)
{
	struct ucallout_to *uto = container_of(to, struct ucallout_to, to);
	struct uc_file *f = container_of(to->owner, struct uc_file,
					      owner);

	uto->fired_ns = callout_now_ns();
	atomic_set(&uto->q.state, UC_TIMEOUT);
	/* As in uc_fire(): @f is used inside a grace period, @uto not at all. */
	rcu_read_lock();
	uc_enqueue(f, &uto->q);
	rcu_read_unlock();
}

static const struct callout_owner_ops uto_ops = {
	.expire = uto_expire,
};

/* The file as an owner of timeouts, taking them from ucallout_to_cache */
void uto_file_init(struct uc_file *f)
{
	callout_owner_init(&f->owner, &uto_ops, ucallout_to_cache, UC_GFP,
			   UC_SPARES);
}

/* TIMEOUT of (@func, @arg) in @ticks ticks from the clock read @now */
int uc_timeout(struct uc_file *f, u64 func, u64 arg, u64 ticks,
	       u64 now)
{
	int ret;

	this_cpu_inc(callout_op_counts.timeout);
	if (!ticks)
		return -EINVAL;
	/* callout_to_arm() checks too: here ERANGE comes before ENOSPC. */
	if (ticks > div64_u64(callout_max_timeout_ns(), callout_tick_ns()))
		return -ERANGE;
	ret = uc_charge(f);
	if (ret)
		return uc_refused(ret);
	ret = callout_to_arm(&f->owner, func, arg, ticks, now);
	if (ret) {
		uc_uncharge(f, 1);
		/* Not the per-key cap's ENOSPC: that one is the caller's. */
		if (ret == -ENOMEM)
			uc_refused(ret);
	}
	return ret;
}

int uc_untimeout(struct uc_file *f, u64 func, u64 arg)
{
	this_cpu_inc(callout_op_counts.untimeout);
	/* Cancelled: never queued, so its charge ends here. */
	if (!callout_to_cancel(&f->owner, func, arg))
		return -ENOENT;
	uc_uncharge(f, 1);
	return 0;
}

int uc_ioc_timeout(struct uc_file *f,
		   struct callout_timeout __user *argp)
{
	struct callout_timeout req;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	return uc_timeout(f, req.func, req.arg, req.ticks, callout_now_ns());
}

int uc_ioc_untimeout(struct uc_file *f,
		     struct callout_untimeout __user *argp)
{
	struct callout_untimeout req;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	return uc_untimeout(f, req.func, req.arg);
}

/*
 * The record of a TIMEOUT's event: always fresh, since a cancelled timeout
 * is never queued. No lock: the reader owns @uto.
 */
void uto_record(const struct ucallout_to *uto, struct callout_event *ev)
{
	*ev = (struct callout_event) {
		.cookie = uto->to.h.key.func,
		.arg = uto->to.h.key.arg,
		.expires_ns = uto->to.expires_ns,
		.fired_ns = uto->fired_ns,
		.flags = CALLOUT_EV_TIMEOUT,
	};
}

/*
 * Done with the TIMEOUT event @uto, read or dropped: back to the owner,
 * and its charge ends. Outside the file lock (timeout.c's owner lock
 * nests inside nothing).
 */
void uto_done(struct uc_file *f, struct ucallout_to *uto)
{
	callout_to_put(&uto->to);
	uc_uncharge(f, 1);
}

int uto_init(void)
{
	/* SLAB_TYPESAFE_BY_RCU, and charged to each file's memory cgroup */
	ucallout_to_cache = callout_to_cache_create("ucallout_to",
						    sizeof(struct ucallout_to),
						    SLAB_ACCOUNT);
	return ucallout_to_cache ? 0 : -ENOMEM;
}

void uto_exit(void)
{
	/* It waits for RCU readers of its objects first (TYPESAFE_BY_RCU). */
	kmem_cache_destroy(ucallout_to_cache);
}
