// SPDX-License-Identifier: GPL-2.0
/*
 * dev_submit.c - CALLOUT_IOC_SUBMIT: SETs, UNSETs, RESETs, TIMEOUTs and
 * UNTIMEOUTs in one call, carried out in order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/uaccess.h>

#include "dev.h"

/*
 * Operations a CALLOUT_IOC_SUBMIT reads, carries out and writes back at a
 * time: at most one file-lock section each, and a buffer on the stack.
 */
#define UC_SUBMIT_CHUNK	16

/* The fields of struct callout_op that each operation reads */
#define OPF_HANDLE	BIT(0)
#define OPF_TIMEOUT	BIT(1)
#define OPF_PERIOD	BIT(2)
#define OPF_COOKIE	BIT(3)
#define OPF_ARG		BIT(4)

static const u8 uc_op_fields[] = {
	[CALLOUT_OP_SET]	= OPF_TIMEOUT | OPF_PERIOD | OPF_COOKIE,
	[CALLOUT_OP_UNSET]	= OPF_HANDLE,
	[CALLOUT_OP_RESET]	= OPF_HANDLE | OPF_TIMEOUT | OPF_PERIOD,
	[CALLOUT_OP_TIMEOUT]	= OPF_TIMEOUT | OPF_COOKIE | OPF_ARG,
	[CALLOUT_OP_UNTIMEOUT]	= OPF_COOKIE | OPF_ARG,
};

/*
 * Check @op: a known op, flags 0, and 0 in every field it does not read
 * (a SET's handle is its output). Return: 0, -EINVAL, or uc_check_times()'s
 * error for the times of a SET or RESET.
 */
static int uc_op_check(const struct callout_op *op)
{
	u8 fields;

	if (op->op >= ARRAY_SIZE(uc_op_fields) || !uc_op_fields[op->op] ||
	    op->flags)
		return -EINVAL;
	fields = uc_op_fields[op->op];
	if ((op->handle && !(fields & OPF_HANDLE) &&
	     op->op != CALLOUT_OP_SET) ||
	    (op->timeout && !(fields & OPF_TIMEOUT)) ||
	    (op->period_ns && !(fields & OPF_PERIOD)) ||
	    (op->cookie && !(fields & OPF_COOKIE)) ||
	    (op->arg && !(fields & OPF_ARG)))
		return -EINVAL;
	/* TIMEOUT's timeout counts ticks: uc_timeout() checks it. */
	if (fields & OPF_PERIOD)
		return uc_check_times(op->timeout, op->period_ns);
	return 0;
}

static bool uc_op_is_timeout(const struct callout_op *op)
{
	return op->op == CALLOUT_OP_TIMEOUT || op->op == CALLOUT_OP_UNTIMEOUT;
}

/* Check and carry out @op from the clock read @now, with @op->result */
static void __uc_submit_one(struct uc_file *f, struct callout_op *op,
			    u64 now, struct callout_batch *b)
	__must_hold(&f->lock)
{
	struct uc_slot *s;

	lockdep_assert_held(&f->lock);
	if (op->op == CALLOUT_OP_SET)
		op->handle = 0;
	op->result = uc_op_check(op);
	if (op->result)
		return;
	switch (op->op) {
	case CALLOUT_OP_SET:
		op->result = __uc_set(f, op, now, b);
		break;
	case CALLOUT_OP_UNSET:
		s = __uc_lookup(f, op->handle);
		op->result = s ? __uc_cancel(f, s, b) : -ENOENT;
		break;
	case CALLOUT_OP_RESET:
		op->result = __uc_reset_handle(f, op->handle, now, op->timeout,
					       op->period_ns, b);
		break;
	}
}

/*
 * Carry out the @n operations at @ops, in order, from the clock read @now:
 * each run of them on handles in one file-lock section, which __uc_get(),
 * __uc_cancel() and __uc_reset() drop only to allocate or to wait for a
 * func, and as a batch of the core (this CPU's base held from one to the
 * next, core.c says when); TIMEOUT and UNTIMEOUT outside it (timeout.c's
 * locks are never taken inside the file lock).
 */
static void uc_submit_chunk(struct uc_file *f, struct callout_op *ops,
			    unsigned int n, u64 now)
{
	struct callout_op *op = ops, *end = ops + n;
	struct callout_batch b = {};

	while (op < end) {
		if (uc_op_is_timeout(op)) {
			op->result = uc_op_check(op);
			if (!op->result)
				op->result = op->op == CALLOUT_OP_TIMEOUT ?
					uc_timeout(f, op->cookie, op->arg,
						   op->timeout, now) :
					uc_untimeout(f, op->cookie, op->arg);
			op++;
			continue;
		}
		spin_lock_bh(&f->lock);
		for (; op < end && !uc_op_is_timeout(op); op++)
			__uc_submit_one(f, op, now, &b);
		callout_batch_end(&b);
		spin_unlock_bh(&f->lock);
	}
}

/*
 * Read the @n ops at @uops into @ops, and write the fields they return
 * before any is carried out, so that an array that cannot be written is
 * found before anything is done. Field by field: a few moves an op, where
 * copy_from_user() would be a string copy.
 * Return: how many of them, from the first, could be read and written.
 */
static unsigned int uc_ops_fetch(struct callout_op *ops,
				 struct callout_op __user *uops,
				 unsigned int n)
{
	struct callout_op *op = ops;
	struct callout_op __user *u = uops;

	if (!user_access_begin(uops, n * sizeof(*uops)))
		return 0;
	for (; u < uops + n; op++, u++) {
		unsafe_get_user(op->op, &u->op, out);
		unsafe_get_user(op->flags, &u->flags, out);
		unsafe_get_user(op->handle, &u->handle, out);
		unsafe_get_user(op->timeout, &u->timeout, out);
		unsafe_get_user(op->period_ns, &u->period_ns, out);
		unsafe_get_user(op->cookie, &u->cookie, out);
		unsafe_get_user(op->arg, &u->arg, out);
		/* The handle first: an op whose result says 0 was taken. */
		unsafe_put_user(op->handle, &u->handle, out);
		unsafe_put_user(0, &u->result, out);
	}
out:
	user_access_end();
	return op - ops;
}

/* Write the results of the @n ops at @ops to @uops. Return: 0 or -EFAULT. */
static int uc_ops_results(const struct callout_op *ops,
			  struct callout_op __user *uops, unsigned int n)
{
	const struct callout_op *op = ops;
	struct callout_op __user *u = uops;

	if (!user_access_begin(uops, n * sizeof(*uops)))
		return -EFAULT;
	for (; u < uops + n; op++, u++) {
		unsafe_put_user(op->result, &u->result, fault);
		if (op->op == CALLOUT_OP_SET)
			unsafe_put_user(op->handle, &u->handle, fault);
	}
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/*
 * CALLOUT_IOC_SUBMIT: the operations in chunks of UC_SUBMIT_CHUNK, each
 * read into the kernel, checked to be writable, carried out, and its
 * results written back: so an array that cannot be
 * read or written stops the batch before the first op it holds, and
 * ->done counts exactly the ops carried out. Only another thread changing
 * the mapping during the call can lose results of ops carried out.
 */
int uc_ioc_submit(struct uc_file *f,
		  struct callout_submit __user *argp)
{
	/*
	 * Not zeroed on entry (CONFIG_INIT_STACK_ALL_ZERO): 768 bytes a call,
	 * and every op is read in before it is used.
	 */
	struct callout_op ops[UC_SUBMIT_CHUNK] __uninitialized;
	struct callout_op __user *uops;
	struct callout_submit req;
	unsigned int done = 0, n, got;
	int ret = 0;
	u64 now;

	/*
	 * Field by field, as the ops (uc_ops_fetch()); done is written 0
	 * now, so that a header that cannot be written stops the call
	 * before any op is carried out.
	 */
	if (!user_access_begin(argp, sizeof(*argp)))
		return -EFAULT;
	unsafe_get_user(req.ops, &argp->ops, fault);
	unsafe_get_user(req.nr, &argp->nr, fault);
	unsafe_get_user(req.flags, &argp->flags, fault);
	unsafe_get_user(req.reserved, &argp->reserved, fault);
	unsafe_put_user(0, &argp->done, fault);
	user_access_end();
	if (req.flags || req.reserved)
		ret = -EINVAL;
	else if (req.nr > CALLOUT_SUBMIT_MAX)
		ret = -E2BIG;
	uops = u64_to_user_ptr(req.ops);
	now = req.nr ? callout_now_ns() : 0;
	while (!ret && done < req.nr) {
		n = min_t(unsigned int, req.nr - done, UC_SUBMIT_CHUNK);
		got = uc_ops_fetch(ops, uops + done, n);
		uc_submit_chunk(f, ops, got, now);
		if (uc_ops_results(ops, uops + done, got) || got < n)
			ret = -EFAULT;
		done += got;
		cond_resched();
	}
	if (put_user(done, &argp->done))
		return -EFAULT;
	return ret;
fault:
	user_access_end();
	return -EFAULT;
}

