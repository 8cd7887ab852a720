// SPDX-License-Identifier: GPL-2.0
/*
 * dev.c - /dev/callout: setcallout/unsetcallout as ioctls, expiries as
 * struct callout_event records read from the file.
 *
 * Each open file owns its callouts: those of SET (struct ucallout), found
 * by handle in the file's handle table, and those of TIMEOUT (struct
 * ucallout_to), found by func and arg through timeout.c. One file, one
 * job; dev.h holds the types they share:
 *
 *   dev.c		open, close, the ioctl dispatch, the device
 *   dev_callout.c	SET, UNSET, RESET: charging, the handle table, the
 *			armings and their expiry
 *   dev_due.c		the due-time table: a deferral or cancel by a store
 *   dev_timeout.c	TIMEOUT and UNTIMEOUT, the file as timeout.c's owner
 *   dev_submit.c	SUBMIT: batches of the above
 *   dev_events.c	the event queue, read() and poll()
 *
 * The file lock protects the table, the spare ucallouts and every
 * ucallout's user-side state (its armings, whether it is in the table).
 * Lock order (the whole of it is at the top of core.c): the read mutex,
 * then the file lock, then a base lock (taken inside callout_set_from(),
 * or held across the operations of a SUBMIT: a core batch).
 * timeout.c's owner lock is never taken with the file lock held. The
 * expiry takes no file lock. A __ helper is called with the file lock
 * held.
 *
 * Ownership of a ucallout is decided under the file lock, from its state
 * word: it is freed (or becomes a spare) by whoever leaves it in no table
 * (UC_LINKED clear), with no cancel or RESET waiting on it (the busy count
 * in the word's high bits), and not queued (UC_QUEUED): __uc_done(). The
 * tick sets UC_QUEUED with an atomic fetch-or and touches nothing of the
 * ucallout after its llist_add(); an arming that ended by itself (a
 * one-shot fired, a lazy cancel) sets UC_ENDED in the same fetch-or, and
 * the reader takes it out of the table when it has taken the event. The
 * reader takes an entry off the queue, clears UC_QUEUED and takes the
 * count in one file-lock section, so the reader side holds it throughout.
 * A cancelled callout whose stale event still waits in the queue stays
 * owned by the queue and counts toward max_per_file until the reader or
 * close() reaps it: memory stays bounded by the file's caps (each callout
 * is queued at most once), whatever the reader does.
 *
 * max_per_file and max_total count both kinds (uc_charge()): a timeout
 * from its TIMEOUT until it is cancelled or its event read, as a SET's
 * ucallout counts until it is put. close() cancels the ucallouts, drops
 * the queue, drains the owner (callout_owner_drain() cancels what is
 * pending), then waits for the file's count to reach 0: what is left is
 * timeouts whose expiry the core had started before the drain, which
 * their expire op queues at once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dev.h"
#include "stats.h"

static int uc_ioc_info(void __user *argp)
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

static long ucdev_ioctl(struct file *file, unsigned int cmd,
			unsigned long arg)
{
	struct uc_file *f = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case CALLOUT_IOC_INFO:
		return uc_ioc_info(argp);
	case CALLOUT_IOC_SET:
		return uc_ioc_set(f, argp);
	case CALLOUT_IOC_UNSET:
		return uc_ioc_unset(f, argp);
	case CALLOUT_IOC_RESET:
		return uc_ioc_reset(f, argp);
	case CALLOUT_IOC_TIMEOUT:
		return uc_ioc_timeout(f, argp);
	case CALLOUT_IOC_UNTIMEOUT:
		return uc_ioc_untimeout(f, argp);
	case CALLOUT_IOC_SUBMIT:
		return uc_ioc_submit(f, argp);
	default:
		return -ENOTTY;
	}
}

static int ucdev_open(struct inode *inode, struct file *file)
{
	struct uc_file *f;

	f = kzalloc(sizeof(*f), UC_GFP);
	if (!f) {
		callout_alloc_failed(CALLOUT_ALLOC_FILE);
		return -ENOMEM;
	}
	spin_lock_init(&f->lock);
	genradix_init(&f->slots);
	f->nr_slots = 1;	/* handles are never 0 */
	xa_init(&f->due_pages);
	uto_file_init(f);
	init_llist_head(&f->events);
	init_waitqueue_head(&f->wq);
	mutex_init(&f->read_lock);
	file->private_data = f;
	return nonseekable_open(inode, file);
}

/*
 * close(): cancel every callout, so that no func of the file runs after,
 * then free the events nobody read. Process context, rescheduling at
 * least every UC_RESCHED callouts.
 */
static int ucdev_release(struct inode *inode, struct file *file)
{
	struct uc_file *f = file->private_data;

	spin_lock_bh(&f->lock);
	f->closing = true;
	spin_unlock_bh(&f->lock);
	uc_cancel_all(f);
	/*
	 * No func of a ucallout runs now: the queue owns what is left. Drop
	 * it before the timeouts are drained, so that the drain's walk of the
	 * owner's callouts meets few that expired.
	 */
	uc_drop_events(f);
	uc_uncharge(f, callout_owner_drain(&f->owner, false));
	/*
	 * What is still charged is timeouts whose expiry claimed them before
	 * the drain: queued, or about to be (the expire op runs to its end in
	 * the tick). Wait for those.
	 */
	while (atomic_long_read(&f->nr_uc))
		if (!uc_drop_events(f))
			schedule_timeout_uninterruptible(1);
	callout_owner_destroy(&f->owner);
	uc_table_free(f);
	mutex_destroy(&f->read_lock);
	/* A func that queued its last event may still wake ->wq. */
	kfree_rcu(f, rcu);
	return 0;
}

static const struct file_operations ucdev_fops = {
	.owner		= THIS_MODULE,
	.open		= ucdev_open,
	.release	= ucdev_release,
	.read		= ucdev_read,
	.poll		= ucdev_poll,
	.mmap		= ucdev_mmap,
	.unlocked_ioctl	= ucdev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice callout_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "callout",
	.fops	= &ucdev_fops,
	.mode	= 0666,
};

int callout_dev_init(void)
{
	int ret = -ENOMEM;

	if (callout_clock_init())
		return -ENOMEM;
	if (uc_callout_init())
		goto err_clock;
	if (uto_init())
		goto err_callout;
	callout_defer_register(&uc_defer_ops);
	ret = misc_register(&callout_miscdev);
	if (ret) {
		pr_err("cannot register /dev/callout: %d\n", ret);
		goto err_uto;
	}
	return 0;
err_uto:
	uto_exit();
err_callout:
	uc_callout_exit();
err_clock:
	callout_clock_exit();
	return ret;
}

void callout_dev_exit(void)
{
	misc_deregister(&callout_miscdev);
	uto_exit();
	uc_callout_exit();
	callout_clock_exit();
}
