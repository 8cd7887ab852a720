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
 * reader has taken the event and re-armed it, __uc_rearm(), in the batch
 * that makes its record). It holds the read mutex and works in
 * process context, in batches of up to UC_READ_BATCH callouts, in a
 * buffer of the file's (read() allocates nothing). Per callout it sets
 * UC_READING and clears UC_QUEUED before it reads the fields (seqcount
 * retry), so a later expiry queues it again, for the next read(); then
 * one file-lock section a batch drops stale records and fills the rest
 * into the buffer, one copy_to_user() a batch, and one more section
 * reaps what the batch leaves unowned; it reschedules between batches.
 * Callouts it took but could not return (the user's buffer is full) stay
 * on a private list, at the front of the queue, in order, for the next
 * read(). So one read() returns at most one record of each callout, and
 * a read that faults gives back the batch it faulted on untouched. poll()
 * reports the queue non-empty after dropping stale records from its front
 * (unless a reader is at work), so a blocking read() after it does not
 * block on a queue of stale records only.
 *
 * One queue for both kinds keeps records in the order they were queued,
 * whatever their kind: each entry is a struct uc_node, whose ->timeout
 * tells the container. A timeout is queued once and never again, so the
 * UC_QUEUED/UC_READING hand-over of ucallouts does not apply to it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/fs.h>
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
 * Hold @uc, just popped, and read its event fields: UC_READING first, then
 * UC_QUEUED cleared (a full barrier) before the fields are read, so an
 * expiry the snapshot may miss queues it again. One it does not miss may
 * queue it too: that later entry then has nothing new and is dropped.
 */
static void uc_take(struct ucallout *uc, struct uc_snap *s)
{
	unsigned int seq;

	atomic_or(UC_READING, &uc->state);
	atomic_fetch_andnot(UC_QUEUED, &uc->state);
	do {
		seq = read_seqcount_begin(&uc->ev_seqc);
		s->seq = uc->ev_seq;
		s->count = uc->ev_count;
		s->expires_ns = uc->ev_expires_ns;
		s->fired_ns = uc->ev_fired_ns;
		s->flags = uc->ev_flags;
	} while (read_seqcount_retry(&uc->ev_seqc, seq));
}

/*
 * Give @uc, taken, back to the front of the queue, unless an expiry since
 * the take has queued it again. Under the read mutex.
 */
static void uc_untake(struct uc_file *f, struct ucallout *uc)
{
	if (!(atomic_fetch_or(UC_QUEUED, &uc->state) & UC_QUEUED))
		uc_push_front(f, &uc->q);
	atomic_andnot(UC_READING, &uc->state);
}

/*
 * Whether @s has an expiry not yet read of the arming in force; the file
 * lock is held (the cancels change uc->cur_seq under it).
 */
static bool __uc_fresh(const struct ucallout *uc, const struct uc_snap *s)
{
	lockdep_assert_held(&uc->file->lock);
	if (!s->seq || s->seq != uc->cur_seq)
		return false;
	return s->count > (uc->rd_seq == s->seq ? uc->rd_count : 0);
}

/* Make the record of fresh @s; the file lock is held. */
static void __uc_record(struct ucallout *uc, const struct uc_snap *s,
			struct callout_event *ev)
{
	u64 prev = uc->rd_seq == s->seq ? uc->rd_count : 0;

	lockdep_assert_held(&uc->file->lock);
	*ev = (struct callout_event) {
		.handle = uc->handle,
		.cookie = uc->cookie,
		.expires_ns = s->expires_ns,
		.fired_ns = s->fired_ns,
		/* Saturates: expiries beyond U32_MAX unread are not told. */
		.overrun = min_t(u64, s->count - prev - 1, U32_MAX),
		.flags = s->flags,
	};
	uc->rd_seq = s->seq;
	uc->rd_count = s->count;
}

/*
 * The reader is done with @uc: let go, take an ended one out of the table,
 * and put it if no one holds it. The file lock is held.
 */
static void __uc_commit(struct uc_file *f, struct ucallout *uc)
{
	lockdep_assert_held(&f->lock);
	atomic_andnot(UC_READING, &uc->state);
	if (atomic_read(&uc->state) & UC_ENDED)
		__uc_unlink(f, uc);
	__uc_done(f, uc);
}

/*
 * Take up to @max entries and make records, in queue order, of the fresh
 * ones: every TIMEOUT's, and a ucallout's if it has an expiry not yet read
 * of its arming in force. The file lock only if a ucallout was taken.
 */
static void uc_read_batch(struct uc_file *f, struct uc_batch *b,
			  unsigned int max)
{
	struct ucallout *uc;
	struct uc_node *q;
	unsigned int i;
	u64 now;

	b->nr = 0;
	b->nr_ev = 0;
	b->nr_to = 0;
	while (b->nr < max && (q = uc_pop(f))) {
		b->item[b->nr].q = q;
		b->item[b->nr].timeout = q->timeout;
		if (q->timeout)
			b->nr_to++;
		else
			uc_take(q_uc(q), &b->item[b->nr].snap);
		b->nr++;
	}
	if (b->nr_to == b->nr) {
		for (i = 0; i < b->nr; i++)
			uto_record(q_uto(b->item[i].q), &b->ev[b->nr_ev++]);
		return;
	}
	now = callout_now_ns();
	spin_lock_bh(&f->lock);
	for (i = 0; i < b->nr; i++) {
		q = b->item[i].q;
		if (b->item[i].timeout) {
			uto_record(q_uto(q), &b->ev[b->nr_ev++]);
			continue;
		}
		uc = q_uc(q);
		b->item[i].rd_seq = uc->rd_seq;
		b->item[i].rd_count = uc->rd_count;
		__uc_rearm(f, uc, &b->item[i].snap, now);
		if (__uc_fresh(uc, &b->item[i].snap))
			__uc_record(uc, &b->item[i].snap, &b->ev[b->nr_ev++]);
	}
	spin_unlock_bh(&f->lock);
}

/*
 * The batch's records are the user's: let its entries go. Once let go an
 * entry may be freed: its kind is the batch's copy, not q->timeout.
 */
static void uc_batch_commit(struct uc_file *f, struct uc_batch *b)
{
	unsigned int i;

	if (b->nr_to < b->nr) {
		spin_lock_bh(&f->lock);
		for (i = 0; i < b->nr; i++)
			if (!b->item[i].timeout)
				__uc_commit(f, q_uc(b->item[i].q));
		spin_unlock_bh(&f->lock);
	}
	for (i = 0; b->nr_to && i < b->nr; i++)
		if (b->item[i].timeout)
			uto_done(f, q_uto(b->item[i].q));
}

/* The copy faulted: the batch goes back to the front, as it was. */
static void uc_batch_undo(struct uc_file *f, struct uc_batch *b)
{
	struct ucallout *uc;
	unsigned int i = b->nr;

	while (i--) {
		if (b->item[i].timeout) {
			uc_push_front(f, b->item[i].q);
			continue;
		}
		uc = q_uc(b->item[i].q);
		uc->rd_seq = b->item[i].rd_seq;
		uc->rd_count = b->item[i].rd_count;
		uc_untake(f, uc);
	}
}

ssize_t ucdev_read(struct file *file, char __user *buf, size_t count,
		   loff_t *ppos)
{
	struct uc_file *f = file->private_data;
	size_t want = count / sizeof(struct callout_event), done = 0;
	struct uc_batch *b = &f->batch;
	int ret;

	if (!want)
		return -EINVAL;
	ret = mutex_lock_interruptible(&f->read_lock);
	if (ret)
		return ret;
	uc_collect(f);
	for (;;) {
		/* Batches of UC_READ_BATCH, rescheduling between them. */
		while (done < want && f->taken) {
			uc_read_batch(f, b, min_t(size_t, want - done,
						  UC_READ_BATCH));
			if (copy_to_user(buf + done * sizeof(b->ev[0]), b->ev,
					 b->nr_ev * sizeof(b->ev[0]))) {
				uc_batch_undo(f, b);
				ret = -EFAULT;
				goto out;
			}
			uc_batch_commit(f, b);
			done += b->nr_ev;
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
	return done ? done * sizeof(b->ev[0]) : ret;
}

/*
 * Drop stale records from the front of the queue. Under the read mutex.
 * Return: whether a record is there to read.
 */
static bool uc_prune(struct uc_file *f)
{
	struct ucallout *uc;
	struct uc_snap snap;
	struct uc_node *q;
	unsigned int n = 0;
	bool fresh;

	uc_collect(f);
	while ((q = uc_pop(f))) {
		if (q->timeout) {
			uc_push_front(f, q);
			return true;
		}
		uc = q_uc(q);
		uc_take(uc, &snap);
		spin_lock_bh(&f->lock);
		/* A periodic one waiting for this reader goes on, as read() has it. */
		if (atomic_read(&uc->state) & UC_REARM)
			__uc_rearm(f, uc, &snap, callout_now_ns());
		fresh = __uc_fresh(uc, &snap);
		if (!fresh)
			__uc_commit(f, uc);
		spin_unlock_bh(&f->lock);
		if (fresh) {
			uc_untake(f, uc);
			return true;
		}
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

	poll_wait(file, &f->wq, wait);
	/* Pairs with wq_has_sleeper() in uc_fire(). */
	smp_mb();
	if (llist_empty(&f->events) && !READ_ONCE(f->taken))
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
		if (q->timeout) {
			uto_done(f, q_uto(q));
		} else {
			uc = q_uc(q);
			spin_lock_bh(&f->lock);
			atomic_andnot(UC_QUEUED, &uc->state);
			__uc_done(f, uc);
			spin_unlock_bh(&f->lock);
		}
		if (!(++n % UC_RESCHED))
			cond_resched();
	}
	return n;
}

