// SPDX-License-Identifier: GPL-2.0
/*
 * dev_events.c - a file's event queue: read() and poll().
 *
 * read() takes the whole list with llist_del_all() and reverses it, so
 * records come in the order their callouts were queued: on each CPU the
 * order their funcs ran, which is expiry order (callouts that one late
 * tick collects together run in the order the scheme gives them); a
 * queued callout that fires again keeps its place, and its record
 * describes its latest expiry (a periodic one fires again only once its
 * reader has taken the count and re-armed it, __uc_rearm(), in the batch
 * that makes its record). It holds the read mutex and works in
 * process context, in batches of up to UC_READ_BATCH entries, each in one
 * file-lock section: per ucallout it clears UC_QUEUED, then takes the
 * count to 0 (an expiry after that queues it again, for the next read()),
 * makes the record, re-arms or unlinks, and lets go; then it copies the
 * batch's records out with page faults disabled, still in the section, so
 * that what it took and what the user got are one step, and reschedules
 * between batches. Records it made but could not copy (the buffer
 * faulted) stay in the file's stash, returned first, and alone, by the
 * next read() (or by this one once the page is faulted in); a cancel or
 * RESET that returns 0 takes its records out of it. Callouts it did not
 * take (the user's buffer is full) stay at the front of the queue, in
 * order, for the next read(). So one read() returns at most one record of
 * each callout. poll() reports the queue non-empty after dropping stale
 * records from its front (unless a reader is at work), so a blocking
 * read() after it does not block on a queue of stale records only.
 *
 * One queue for both kinds keeps records in the order they were queued,
 * whatever their kind: each entry is a struct uc_node, whose UC_TIMEOUT
 * tells the container. A timeout is queued once and never again, so the
 * UC_QUEUED hand-over of ucallouts does not apply to it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "dev.h"

/*
 * Move what the tick queued behind what the reader took before, in the
 * order it was queued. Under the read mutex, in process context: the
 * list comes newest first and turning it round walks all of it, so that
 * walk reschedules every UC_RESCHED entries (the list is the reader's
 * alone once taken off f->events).
 */
static void uc_collect(struct uc_file *f)
{
	struct llist_node *pos = llist_del_all(&f->events), *last = pos;
	struct llist_node *first = NULL, *next;
	unsigned int n = 0;

	if (!pos)
		return;
	while (pos) {
		next = pos->next;
		pos->next = first;
		first = pos;
		pos = next;
		if (!(++n % UC_RESCHED))
			cond_resched();
	}
	if (f->taken_tail)
		f->taken_tail->next = first;
	else
		WRITE_ONCE(f->taken, first);
	f->taken_tail = last;
}

/* The reader's next entry, or NULL. Under the read mutex. */
static struct uc_node *uc_pop(struct uc_file *f)
{
	struct llist_node *n = f->taken;

	if (!n)
		return NULL;
	WRITE_ONCE(f->taken, n->next);
	if (!n->next)
		f->taken_tail = NULL;
	return llist_entry(n, struct uc_node, node);
}

/* Give @q back to the front of the queue. Under the read mutex. */
static void uc_push_front(struct uc_file *f, struct uc_node *q)
{
	q->node.next = f->taken;
	if (!f->taken)
		f->taken_tail = &q->node;
	WRITE_ONCE(f->taken, &q->node);
}

/*
 * Let go of the entry of @uc, just popped, and make its record in *@ev if
 * it has an expiry not yet read: UC_QUEUED cleared (a full barrier) before
 * the count is taken, so an expiry this misses queues @uc again, and one
 * it does not miss may queue it too (that later entry then has a count of
 * 0 and is dropped). A periodic one waiting for its reader is re-armed, an
 * ended one taken out of the table. The file lock is held; *@now is the
 * batch's clock read, made at the first re-arm.
 * Return: whether *@ev is a record.
 */
static bool __uc_read_one(struct uc_file *f, struct ucallout *uc,
			  struct callout_event *ev, u64 *now)
{
	unsigned int n;
	bool rec;

	lockdep_assert_held(&f->lock);
	atomic_fetch_andnot(UC_QUEUED, &uc->q.state);
	n = atomic_xchg(&uc->q.count, 0);
	rec = n;
	if (rec)
		uc_record(uc, ev, n);
	/*
	 * Set after the count it goes with: one that is not set yet is the
	 * entry's that the expiry queues again, for the next read.
	 */
	if (atomic_read(&uc->q.state) & UC_REARM) {
		if (!*now)
			*now = callout_now_ns();
		rec = __uc_rearm(f, uc, ev, rec, *now);
	}
	if (atomic_read(&uc->q.state) & UC_ENDED)
		__uc_unlink(f, uc);
	__uc_done(f, uc);
	return rec;
}

/* One batch of read(): the records, and the TIMEOUTs to give back after */
struct uc_read {
	unsigned int nr_ev;
	unsigned int nr_to;
	struct callout_event ev[UC_READ_BATCH];
	struct ucallout_to *to[UC_READ_BATCH];
};

/*
 * Take up to @max entries and make records, in queue order, of the fresh
 * ones: every TIMEOUT's, and a ucallout's if it has an expiry not yet
 * read. The file lock is held.
 */
static void __uc_read_batch(struct uc_file *f, struct uc_read *r,
			    unsigned int max)
{
	struct uc_node *q;
	unsigned int taken;
	u64 now = 0;

	lockdep_assert_held(&f->lock);
	r->nr_ev = 0;
	r->nr_to = 0;
	for (taken = 0; taken < max && (q = uc_pop(f)); taken++) {
		if (atomic_read(&q->state) & UC_TIMEOUT) {
			uto_record(q_uto(q), &r->ev[r->nr_ev++]);
			r->to[r->nr_to++] = q_uto(q);
		} else if (__uc_read_one(f, q_uc(q), &r->ev[r->nr_ev], &now)) {
			r->nr_ev++;
		}
	}
}

/*
 * Copy @nr records of @ev, a batch or the front of the stash, to @buf,
 * which access_ok() has passed, with the file lock held: no fault is
 * taken, and what does not fit before one is kept in the file's stash,
 * first for the next copy (the stash is empty when it is called with a
 * batch). Return: records copied whole.
 */
static unsigned int __uc_copy(struct uc_file *f, char __user *buf,
			      const struct callout_event *ev, unsigned int nr)
{
	unsigned long left;
	unsigned int done;

	lockdep_assert_held(&f->lock);
	pagefault_disable();
	left = __copy_to_user_inatomic(buf, ev, nr * sizeof(*ev));
	pagefault_enable();
	done = nr - DIV_ROUND_UP(left, sizeof(*ev));
	if (ev == f->stash) {
		f->nr_stash -= done;
		memmove(f->stash, f->stash + done,
			f->nr_stash * sizeof(*ev));
	} else {
		f->nr_stash = nr - done;
		memcpy(f->stash, ev + done, f->nr_stash * sizeof(*ev));
	}
	return done;
}

/*
 * Copy the stash to @buf, up to @want records, faulting the buffer in
 * where a copy stopped; *@left says whether any stays stashed. Under the
 * read mutex.
 * Return: records copied, or -EFAULT if none could be (they stay stashed).
 * 0 if the stash is empty (cancels and RESETs take records out of it).
 */
static ssize_t uc_read_stash(struct uc_file *f, char __user *buf,
			     size_t want, unsigned int *left)
{
	size_t done = 0, sz = sizeof(struct callout_event);
	bool faulted_in = false;
	unsigned int n;

	for (;;) {
		spin_lock_bh(&f->lock);
		n = min_t(size_t, f->nr_stash, want - done);
		n = n ? __uc_copy(f, buf + done * sz, f->stash, n) : 0;
		*left = f->nr_stash;
		spin_unlock_bh(&f->lock);
		done += n;
		if (!*left || done == want)
			break;
		/* Stopped at a fault: fault the page in, once a record. */
		if ((faulted_in && !n) ||
		    fault_in_writeable(buf + done * sz, sz))
			break;
		faulted_in = true;
	}
	return done || !*left ? done : -EFAULT;
}

/*
 * A cancel or RESET that returns 0: no record of the arming it ends is
 * read, stashed ones included. The file lock is held.
 */
void __uc_unstash(struct uc_file *f, u64 handle)
{
	unsigned int i, j = 0;

	lockdep_assert_held(&f->lock);
	if (likely(!f->nr_stash))
		return;
	for (i = 0; i < f->nr_stash; i++)
		if (f->stash[i].handle != handle ||
		    (f->stash[i].flags & CALLOUT_EV_TIMEOUT))
			f->stash[j++] = f->stash[i];
	f->nr_stash = j;
}

ssize_t ucdev_read(struct file *file, char __user *buf, size_t count,
		   loff_t *ppos)
{
	struct uc_file *f = file->private_data;
	size_t want = count / sizeof(struct callout_event), done = 0;
	unsigned int i, n, left;
	struct uc_read r;
	ssize_t ret;

	if (!want)
		return -EINVAL;
	if (!access_ok(buf, want * sizeof(struct callout_event)))
		return -EFAULT;
	ret = mutex_lock_interruptible(&f->read_lock);
	if (ret)
		return ret;
	/*
	 * What a faulted copy left is read alone: a callout of it may have
	 * fired again since, and a read returns one record of each.
	 */
	/* Only this reader adds to the stash; a cancel may empty it. */
	if (data_race(f->nr_stash)) {
		ret = uc_read_stash(f, buf, want, &left);
		if (ret || left)
			goto out;
	}
	uc_collect(f);
	for (;;) {
		/* Batches of UC_READ_BATCH, rescheduling between them. */
		while (done < want && f->taken) {
			spin_lock_bh(&f->lock);
			__uc_read_batch(f, &r, min_t(size_t, want - done,
						     UC_READ_BATCH));
			n = __uc_copy(f, buf + done * sizeof(r.ev[0]), r.ev,
				      r.nr_ev);
			spin_unlock_bh(&f->lock);
			for (i = 0; i < r.nr_to; i++)
				uto_done(f, r.to[i]);
			done += n;
			/* A fault: the rest of the batch is in the stash. */
			if (n < r.nr_ev) {
				ret = uc_read_stash(f, buf + done *
						    sizeof(r.ev[0]),
						    want - done, &left);
				if (ret < 0 || left)
					goto out;
				done += ret;
				ret = 0;
			}
			cond_resched();
		}
		if (done)
			break;
		/* Nothing, or stale records only. */
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		mutex_unlock(&f->read_lock);
		/* ->taken too: a poll() may have moved events there. */
		ret = wait_event_interruptible(f->wq,
					       !llist_empty(&f->events) ||
					       READ_ONCE(f->taken));
		if (!ret)
			ret = mutex_lock_interruptible(&f->read_lock);
		if (ret)
			return ret;
		uc_collect(f);
	}
out:
	mutex_unlock(&f->read_lock);
	if (ret > 0) {
		done += ret;
		ret = 0;
	}
	return done ? done * sizeof(struct callout_event) : ret;
}

/*
 * Whether @uc, just popped, may have a record to read: then it goes back
 * to the front of the queue. Else its entry is let go, as read() would.
 * The file lock and the read mutex are held.
 */
static bool __uc_prune_one(struct uc_file *f, struct ucallout *uc)
{
	lockdep_assert_held(&f->lock);
	/*
	 * An expiry to read, or one whose re-arm may make a record: read()
	 * does it (still queued: no expiry can queue it twice).
	 */
	if (!atomic_read(&uc->q.count) &&
	    !(atomic_read(&uc->q.state) & UC_REARM)) {
		atomic_fetch_andnot(UC_QUEUED, &uc->q.state);
		/* Stale, unless an expiry came meanwhile (count first). */
		if (!atomic_read(&uc->q.count)) {
			if (atomic_read(&uc->q.state) & UC_ENDED)
				__uc_unlink(f, uc);
			__uc_done(f, uc);
			return false;
		}
		/* It may have queued itself again. */
		if (atomic_fetch_or(UC_QUEUED, &uc->q.state) & UC_QUEUED)
			return true;
	}
	uc_push_front(f, &uc->q);
	return true;
}

/*
 * Drop stale records from the front of the queue. Under the read mutex.
 * Return: whether a record is there to read.
 */
static bool uc_prune(struct uc_file *f)
{
	struct uc_node *q;
	unsigned int n = 0;
	bool fresh;

	/* Only the reader, who holds the read mutex, adds to the stash. */
	if (data_race(f->nr_stash))
		return true;
	uc_collect(f);
	while ((q = uc_pop(f))) {
		if (atomic_read(&q->state) & UC_TIMEOUT) {
			uc_push_front(f, q);
			return true;
		}
		spin_lock_bh(&f->lock);
		fresh = __uc_prune_one(f, q_uc(q));
		spin_unlock_bh(&f->lock);
		if (fresh)
			return true;
		if (!(++n % UC_RESCHED))
			cond_resched();
		if (!f->taken)
			uc_collect(f);
	}
	return false;
}

__poll_t ucdev_poll(struct file *file, poll_table *wait)
{
	struct uc_file *f = file->private_data;
	bool ready = true;
	unsigned int stashed;

	poll_wait(file, &f->wq, wait);
	/* Pairs with wq_has_sleeper() in uc_enqueue(). */
	smp_mb();
	/* The stash, as in uc_prune(): only the reader adds to it. */
	stashed = data_race(f->nr_stash);
	if (llist_empty(&f->events) && !READ_ONCE(f->taken) && !stashed)
		return 0;
	/* A reader at work will find out itself. */
	if (mutex_trylock(&f->read_lock)) {
		ready = uc_prune(f);
		mutex_unlock(&f->read_lock);
	}
	return ready ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * Drop every entry of the event queue unread: a ucallout goes to
 * __uc_done(), a TIMEOUT's event back to the owner. At close, rescheduling
 * at least every UC_RESCHED entries.
 * Return: whether there was any.
 */
bool uc_drop_events(struct uc_file *f)
{
	struct ucallout *uc;
	struct uc_node *q;
	unsigned int n = 0;

	uc_collect(f);
	while ((q = uc_pop(f))) {
		if (atomic_read(&q->state) & UC_TIMEOUT) {
			uto_done(f, q_uto(q));
		} else {
			uc = q_uc(q);
			spin_lock_bh(&f->lock);
			atomic_andnot(UC_QUEUED, &uc->q.state);
			__uc_done(f, uc);
			spin_unlock_bh(&f->lock);
		}
		if (!(++n % UC_RESCHED))
			cond_resched();
	}
	return n;
}
