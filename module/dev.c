// SPDX-License-Identifier: GPL-2.0
/*
 * dev.c - /dev/callout: setcallout/unsetcallout as ioctls, expiries as
 * struct callout_event records read from the file.
 *
 * Each open file owns its callouts: those of SET (struct ucallout), found
 * by handle in the file's handle table, and those of TIMEOUT (struct
 * ucallout_to), found by func and arg through timeout.c (see "Timeouts"
 * below). The file lock protects the table, the spare ucallouts and every
 * ucallout's user-side state (its armings, whether it is in the table).
 * Lock order (the whole of it is at the top of core.c): the read mutex,
 * then the file lock, then a base lock (taken inside callout_set_from(),
 * or held across the operations of a SUBMIT: a core batch).
 * timeout.c's owner lock is never taken with the file lock held. The
 * expiry takes no file lock. A __ helper is called with the file lock
 * held.
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
 * The due-time table lets a program put a callout back, or cancel it,
 * with a store instead of a system call, as tokio resets a timer and Netty
 * cancels one lazily. Each slot has a u64 entry in a page of the file's
 * (UC_DUE_PER_PAGE slots a page, allocated with the first slot of its
 * range, freed at close), which mmap() maps: shared only, a page the file
 * has not used yet faulting SIGBUS. A SET and a RESET write there, before
 * they arm, the handle's generation and the due tick; a freed slot's entry
 * reads 0. The program may store a later tick, or the cancel mark
 * (include/uapi/linux/callout.h gives the layout). uc_fire() reads the
 * entry once, with READ_ONCE() through the kernel's own mapping of the
 * page (no fault, no sleep), and trusts nothing in it:
 *
 * - an entry of another generation (a store meant for an earlier handle
 *   of the slot) is ignored;
 * - the cancel mark ends the arming as an UNSET would, lazily: no event of
 *   it is read (the record's sequence becomes 0, a stale one), and the
 *   reader reaps it from the queue like any ended arming;
 * - a later tick, less than half the 2^39-tick circle on from the due
 *   tick and within max_timeout_ns of now, re-files the callout there
 *   (callout_refile(), as a periodic one is forwarded), with its arming,
 *   sequence and period unchanged, and nothing is published; a later
 *   tick that has passed too (the tick ran late) is published as the due
 *   time, as if the callout had been re-filed there;
 * - anything else leaves the expiry as it is.
 *
 * Most deferrals do not reach uc_fire(): a ucallout is CALLOUT_LAZY, and
 * where the tick collects it due, the core asks callout_dev_due_tick() for
 * the later tick its entry holds and files it again there, with the base
 * lock held, without running the func (a func run is two clock reads, two
 * lock sections and the func, for every deferred callout once an RTO:
 * measured in Documentation/benchmarks.rst). uc_fire() handles what the
 * core leaves it: the cancel mark, and a tick the wheel's pass had reached
 * already or the scheme refused.
 *
 * A periodic callout forwarded writes its next due tick with a cmpxchg,
 * so that a store made meanwhile stands. Generations stay below 2^24, so
 * that an entry holds a handle's whole generation: a slot whose
 * generations are spent is retired (a slot index and 8 bytes of table per
 * 16.7M armings of one slot).
 *
 * The expiry only publishes. uc_fire() runs in the tick (softirq, a
 * ktimers thread on PREEMPT_RT): it writes the expiry into the ucallout's
 * event fields under a seqcount (the func of one callout never runs on two
 * CPUs at once: core.c keeps a callout whose func runs on that base),
 * counts it, and queues the ucallout on the file's lock-less list, an
 * llist, unless it is queued already; it wakes a reader only when that
 * list goes from empty to non-empty. It allocates nothing and takes no
 * lock of the file. A periodic callout is forwarded by the core
 * (callout_forward(), as hrtimer_forward()): the due times it skipped while
 * late are added to the count; one that cannot be re-armed any more sends
 * its last event with CALLOUT_EV_LAST. An llist rather than per-CPU queues:
 * one atomic exchange takes every CPU's events at once, and a file's
 * callouts are few enough per tick that the one cache line is no
 * bottleneck; the reader would otherwise merge per-CPU queues.
 *
 * Each arming has a sequence number, and each record carries the one it
 * was produced under. The reader returns a record only if its number is
 * that of the arming in force, checked under the file lock, which is
 * where every cancel and re-arm changes it: a cancel (UNSET, close) sets
 * it to 0 once the callout's func is known not to run
 * (callout_try_unset_sync() under the file lock, or callout_unset_sync()
 * outside it), and a RESET to a new one. So after UNSET returns 0 no event
 * of that arming is read, and after RESET returns 0 no event of the
 * arming it replaced: an event of it still queued is stale and dropped.
 * A RESET replaces the arming in place, keeping the old one if the scheme
 * refuses the new (ENOSPC, ERANGE), so it cannot cancel first: it re-arms
 * with callout_reset_from(), which the core refuses while the func runs
 * (the RESET waits that out), and each arming passes its own parameters
 * to the func as its argument: two records a ucallout, struct uc_arming,
 * one in force and one free, since the one replaced had no func running
 * at the moment it was replaced, nor can it have one after. The core also
 * refuses a callout that is no longer pending: a one-shot whose expiry
 * ran is never armed again by a RESET (ENOENT), whatever UC_ENDED said
 * when the RESET looked.
 *
 * read() takes the whole list with llist_del_all() and reverses it, so
 * records come in the order their callouts were queued: on each CPU the
 * order their funcs ran, which is expiry order (callouts that one late
 * tick collects together run in the order the scheme gives them); a
 * queued callout that fires again keeps its place, and its record
 * describes its latest expiry. It holds the read mutex and works in
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
 * Ownership of a ucallout is decided under the file lock, from its state
 * word and two fields: it is freed (or becomes a spare) by whoever leaves
 * it in no table (->linked), with no cancel or RESET waiting on it
 * (->busy), and neither queued (UC_QUEUED) nor held by a reader
 * (UC_READING): __uc_done(). The tick sets UC_QUEUED with an atomic
 * fetch-or and touches nothing of the ucallout after its llist_add(); an
 * arming that ended by itself (a one-shot fired, a periodic that could not
 * re-arm) sets UC_ENDED in the same fetch-or, and the reader takes it out
 * of the table when it has taken the event. The reader's UC_READING is set
 * before UC_QUEUED is cleared, so one of the two always says the reader
 * side holds it. A cancelled callout whose stale event still waits in the
 * queue stays owned by the queue and counts toward max_per_file until the
 * reader or close() reaps it: memory stays bounded by the file's caps
 * (each callout is queued at most once), whatever the reader does.
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
 *
 * One queue for both kinds keeps records in the order they were queued,
 * whatever their kind: each entry is a struct uc_node, whose ->timeout
 * tells the container. A timeout is queued once and never again, so the
 * UC_QUEUED/UC_READING hand-over of ucallouts does not apply to it.
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
#include <linux/generic-radix-tree.h>
#include <linux/llist.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu_counter.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <uapi/linux/callout.h>

#include "internal.h"

/* ucallout.state: atomic, changed by the tick, the reader and close() */
#define UC_QUEUED	BIT(0)	/* on the event queue: file->events or ->taken */
#define UC_READING	BIT(1)	/* held by the reader, between take and commit */
#define UC_ENDED	BIT(2)	/* the arming ended by itself; never cleared */

/*
 * Idle callouts a file keeps for its next SETs (spare ucallouts), and as
 * many for its next TIMEOUTs (its owner's free list): enough that a
 * program cycling through a few dozen callouts at once allocates nothing,
 * and a file that had many and now has few keeps at most 16 KiB of idle
 * ucallouts and 11 KiB of idle timeouts, charged to its memory cgroup.
 */
#define UC_SPARES	64

/*
 * Callouts a read() takes at a time: one file-lock section, one copy. The
 * buffer is the file's, so read() allocates nothing.
 */
#define UC_READ_BATCH	32

/*
 * Operations a CALLOUT_IOC_SUBMIT reads, carries out and writes back at a
 * time: at most one file-lock section each, and a buffer on the stack.
 */
#define UC_SUBMIT_CHUNK	16

/* A cancel reschedules at least this often while it frees */
#define UC_RESCHED	256

/**
 * struct uc_slot - an entry of a file's handle table
 * @uc:		the callout armed with this slot's handle, or NULL
 * @next_free:	while free, the next free slot
 * @due:	the slot's entry of the due-time table, in a page of the file's
 * @gen:	the high half of this slot's handle
 * @idx:	the low half: this slot's index
 */
struct uc_slot {
	struct ucallout *uc;
	struct uc_slot *next_free;
	u64 *due;
	u32 gen;
	u32 idx;
};

/*
 * The due-time table: a page of entries for every UC_DUE_PER_PAGE slots,
 * allocated with the first slot of its range, so for the slots a file has
 * used, never more; at most UC_DUE_PAGES of them (the 2^32 slot indices).
 * A slot's generation stays below UC_GEN_END, so that an entry carries a
 * handle's whole generation (include/uapi/linux/callout.h).
 */
#define UC_DUE_PER_PAGE	(PAGE_SIZE / sizeof(u64))
#define UC_DUE_PAGES	((1ULL << 32) / UC_DUE_PER_PAGE)
#define UC_GEN_END	(1U << (64 - CALLOUT_DUE_GEN_SHIFT))

/**
 * struct uc_node - an entry of a file's event queue
 * @node:	on file->events or file->taken
 * @timeout:	the entry of a struct ucallout_to (a TIMEOUT's event) rather
 *		than of a struct ucallout
 */
struct uc_node {
	struct llist_node node;
	bool timeout;
};

/* The event fields of a ucallout, as the reader took them */
struct uc_snap {
	u64 seq;
	u64 count;
	u64 expires_ns;
	u64 fired_ns;
	u32 flags;
};

/* What one batch of read() took, and the records it made of them */
struct uc_batch {
	unsigned int nr;		/* callouts taken */
	unsigned int nr_ev;		/* records in @ev */
	unsigned int nr_to;		/* of those, TIMEOUT events */
	struct {
		struct uc_node *q;
		bool timeout;		/* q->timeout, read while q is ours */
		struct uc_snap snap;	/* of a ucallout */
		u64 rd_seq, rd_count;	/* as before this batch */
	} item[UC_READ_BATCH];
	struct callout_event ev[UC_READ_BATCH];
};

/*
 * One open /dev/callout. "Locked" is under the file lock, ->lock; "read"
 * under the read mutex, ->read_lock.
 */
struct callout_file {
	spinlock_t lock;		/* the file lock, taken with BHs off */
	/* the handle table, locked */
	GENRADIX(struct uc_slot)
		slots;
	u32 nr_slots;			/* slots 1 .. nr_slots - 1 exist, locked */
	struct uc_slot *free_slot;	/* first free slot, locked */
	struct xarray due_pages;	/* the due-time table's pages */
	atomic_long_t nr_uc;		/* callouts charged, see uc_charge() */
	struct llist_node *spares;	/* unused ucallouts by ->q, locked */
	unsigned int nr_spares;		/* locked */
	struct callout_owner owner;	/* of its TIMEOUTs (timeout.c) */
	struct llist_head events;	/* uc_nodes queued by the tick, no lock */
	struct llist_node *taken;	/* taken from ->events, unread, read */
	struct llist_node *taken_tail;	/* read */
	wait_queue_head_t wq;		/* readers and pollers */
	struct mutex read_lock;		/* one reader takes events at a time */
	bool closing;			/* release() runs: no spares, locked */
	struct rcu_head rcu;		/* the tick may wake ->wq after close */
	/* Last: kfree_rcu() needs ->rcu in the first 4 KiB (lockdep, KASAN). */
	struct uc_batch batch;		/* the reader's, read */
};

/**
 * struct uc_arming - the parameters of one arming, the func's argument
 * @uc:		whose
 * @seq:	its sequence number, never 0
 * @expires_ns:	due time of its next expiry; the func forwards it
 * @period_ns:	0 one-shot, else the period
 *
 * Written under the file lock while no func uses it (see the essay), read
 * by the func.
 */
struct uc_arming {
	struct ucallout *uc;
	u64 seq;
	u64 expires_ns;
	u64 period_ns;
};

/**
 * struct ucallout - a callout of a /dev/callout file
 * @c:		the callout
 * @file:	owner
 * @handle:	its handle: slot index and generation
 * @slot:	its slot in file->slots
 * @cookie:	returned in events
 * @arm:	the arming in force, @arm[@cur], and the one before it
 * @cur_seq:	the seq of the arming in force; 0 once cancelled (locked)
 * @cur:	which of @arm is in force (locked)
 * @linked:	in the handle table (locked)
 * @busy:	cancels and RESETs waiting on it outside the lock (locked)
 * @due_seqc:	around a RESET's writes of the due-time entry and arming: an
 *		expiry that meets one does not act on the entry
 * @state:	UC_* bits
 * @q:		on the event queue while UC_QUEUED, on file->spares
 *		(by q.node) while spare
 * @ev_seqc:	the tick's writes of the ev_ fields
 * @ev_seq:	seq of the arming of the latest expiry
 * @ev_count:	expiries of that arming so far, skipped due times included
 * @ev_expires_ns: due time of the latest expiry
 * @ev_fired_ns: when it fired
 * @ev_flags:	CALLOUT_EV_* of its record
 * @rd_seq:	seq of the last record read (read)
 * @rd_count:	its ev_count (read)
 */
struct ucallout {
	struct callout c;
	struct callout_file *file;
	u64 handle;
	struct uc_slot *slot;
	u64 cookie;
	struct uc_arming arm[2];
	u64 cur_seq;
	u8 cur;
	bool linked;
	u16 busy;
	seqcount_t due_seqc;
	atomic_t state;
	struct uc_node q;
	seqcount_t ev_seqc;
	u64 ev_seq;
	u64 ev_count;
	u64 ev_expires_ns;
	u64 ev_fired_ns;
	u32 ev_flags;
	u64 rd_seq;
	u64 rd_count;
};

/**
 * struct ucallout_to - a TIMEOUT of a /dev/callout file
 * @to:		timeout.c's timeout; to.owner is the file's owner, its key
 *		the func and arg the event returns
 * @q:		on the event queue once expired
 * @fired_ns:	when it expired
 *
 * Written by the expire op before it queues @q, read by the reader after
 * it took @q; no one else touches a timeout between the two (see the top).
 */
struct ucallout_to {
	struct callout_to to;
	struct uc_node q;
	u64 fired_ns;
};

static struct kmem_cache *ucallout_cache, *ucallout_to_cache;

/*
 * Every file's callouts, against max_total: a per-CPU counter, so that a
 * SET and a cancel touch no cache line that every CPU's SETs share. It is
 * summed exactly only near the limit (__percpu_counter_compare()).
 */
struct percpu_counter callout_user_total;
#define UC_TOTAL_BATCH	64

/*
 * What a file allocates for its user: charged to the caller's memory cgroup
 * and, when that is full, refused with -ENOMEM after reclaim rather than
 * calling the cgroup's OOM killer from inside an ioctl.
 */
#define UC_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL)

static struct ucallout *q_uc(struct uc_node *q)
{
	return container_of(q, struct ucallout, q);
}

static struct ucallout_to *q_uto(struct uc_node *q)
{
	return container_of(q, struct ucallout_to, q);
}

/*
 * Count one more callout against @f's max_per_file and everyone's
 * max_total: a SET's from uc_get() until __uc_put(), a TIMEOUT's from the
 * ioctl until it is cancelled or its event read (or dropped at close).
 * One count for both kinds: a file can fill its cap with either.
 * Return: 0, or -ENOSPC with nothing counted.
 */
static int uc_charge(struct callout_file *f)
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

static void uc_uncharge(struct callout_file *f, unsigned long n)
{
	atomic_long_sub(n, &f->nr_uc);
	percpu_counter_add_batch(&callout_user_total, -(s64)n, UC_TOTAL_BATCH);
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
	struct page *due;

	lockdep_assert_held(&f->lock);
	if (s) {
		f->free_slot = s->next_free;
		return s;
	}
	if (f->nr_slots == U32_MAX)
		return ERR_PTR(-ENOSPC);
	s = genradix_ptr(&f->slots, f->nr_slots);
	due = xa_load(&f->due_pages, f->nr_slots / UC_DUE_PER_PAGE);
	if (!s || !due) {
		*idx = f->nr_slots;
		return ERR_PTR(-EAGAIN);
	}
	s->idx = f->nr_slots++;
	s->due = (u64 *)page_address(due) + s->idx % UC_DUE_PER_PAGE;
	return s;
}

/*
 * Allocate what slot @idx needs, its part of the handle table and its page
 * of the due-time table, without the file lock. Return: 0 or -ENOMEM.
 */
static int uc_slot_alloc(struct callout_file *f, u32 idx)
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
static void __uc_slot_free(struct callout_file *f, struct uc_slot *s)
{
	lockdep_assert_held(&f->lock);
	s->uc = NULL;
	WRITE_ONCE(*s->due, 0);
	if (s->gen == UC_GEN_END - 1)
		return;		/* retired: all its handles are spent */
	s->gen++;
	s->next_free = f->free_slot;
	f->free_slot = s;
}

/* Say why a SET or TIMEOUT was refused, rate-limited. Return: @err. */
static int uc_refused(int err)
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
static struct ucallout *__uc_get(struct callout_file *f,
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
	/*
	 * Field by field, not a memset of all 256 bytes: the arming records
	 * and the event times are written before they are read.
	 */
	__callout_init(&uc->c);
	/* Its due-time entry may put it back: the tick asks dev.c first. */
	uc->c.entry.flags |= CALLOUT_LAZY;
	uc->file = f;
	uc->handle = (u64)s->gen << 32 | s->idx;
	uc->slot = s;
	uc->cookie = 0;
	uc->cur_seq = 0;
	uc->cur = 0;
	uc->linked = false;
	uc->busy = 0;
	atomic_set(&uc->state, 0);
	uc->q.timeout = false;
	seqcount_init(&uc->ev_seqc);
	seqcount_init(&uc->due_seqc);
	uc->ev_seq = 0;
	uc->ev_count = 0;
	uc->rd_seq = 0;
	uc->rd_count = 0;
	return uc;
uncharge:
	uc_uncharge(f, 1);
	return ERR_PTR(uc_refused(err));
}

static struct ucallout *uc_get(struct callout_file *f)
{
	struct ucallout *uc;

	spin_lock_bh(&f->lock);
	uc = __uc_get(f, NULL);
	spin_unlock_bh(&f->lock);
	return uc;
}

/*
 * Give back @uc, which is in no table, queue or hash and whose func does
 * not run: it becomes a spare, or is freed. The file lock is held.
 */
static void __uc_put(struct callout_file *f, struct ucallout *uc)
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

/* Give back @uc of uc_get() and the slot reserved for it, never armed. */
static void uc_abort(struct callout_file *f, struct ucallout *uc)
{
	spin_lock_bh(&f->lock);
	__uc_slot_free(f, uc->slot);
	__uc_put(f, uc);
	spin_unlock_bh(&f->lock);
}

/* Take @uc out of the table; the file lock is held. */
static void __uc_unlink(struct callout_file *f, struct ucallout *uc)
{
	lockdep_assert_held(&f->lock);
	if (!uc->linked)
		return;
	__uc_slot_free(f, uc->slot);
	uc->linked = false;
}

/*
 * Put @uc if no one holds it any more: out of the table, no cancel or
 * RESET waiting on it, neither queued nor in a reader's hands. Only a func
 * can queue it again, and none runs: a callout leaves the table only once
 * cancelled with its func waited out, or once its arming ended. The file
 * lock is held.
 */
static void __uc_done(struct callout_file *f, struct ucallout *uc)
{
	lockdep_assert_held(&f->lock);
	if (!uc->linked && !uc->busy &&
	    !(atomic_read(&uc->state) & (UC_QUEUED | UC_READING)))
		__uc_put(f, uc);
}

/* The due-time entry of @uc for an arming due at @expires_ns */
static u64 uc_due_entry(const struct ucallout *uc, u64 expires_ns)
{
	return CALLOUT_DUE(uc->handle, callout_ns_to_tick_up(expires_ns));
}

/*
 * Queue @uc's expiry on its file's event list, unless it is queued already,
 * with @end (UC_ENDED or 0), and wake a reader if the list was empty. In the
 * tick. Once queued, a reader may free @uc, and a close() free @f after a
 * grace period: @f is used inside one, @uc not at all.
 */
static void uc_publish(struct ucallout *uc, struct callout_file *f, u32 end)
{
	rcu_read_lock();
	if (!(atomic_fetch_or(UC_QUEUED | end, &uc->state) & UC_QUEUED) &&
	    llist_add(&uc->q.node, &f->events) && wq_has_sleeper(&f->wq))
		wake_up_interruptible_poll(&f->wq, EPOLLIN | EPOLLRDNORM);
	rcu_read_unlock();
}

/*
 * @uc's due-time entry into *@v, and whether it is @uc's own: not a store
 * meant for another handle of the slot (an earlier one, or a later one if
 * the slot was given again while this func waited to run: then nothing
 * here may write it either), not 0 (a freed slot's), not one a RESET
 * under way wrote for the arming that replaces this one, or is putting
 * back (the reader does not wait for the RESET: on PREEMPT_RT it could be
 * preempted). A 32-bit kernel could read it torn: it has no table.
 */
static bool uc_entry_mine(const struct ucallout *uc, u64 *v)
{
	unsigned int seq = raw_read_seqcount(&uc->due_seqc);

	*v = READ_ONCE(*uc->slot->due);
	return IS_ENABLED(CONFIG_64BIT) && *v && !(seq & 1) &&
	       !read_seqcount_retry(&uc->due_seqc, seq) &&
	       *v >> CALLOUT_DUE_GEN_SHIFT == upper_32_bits(uc->handle);
}

/*
 * The ticks after due tick @at that entry @v puts a callout back by, or 0:
 * the tick modulo 2^39 taken as the one less than 2^38 ticks after @at;
 * one not later, or further than any SET may ask (so that a product with
 * the tick cannot overflow), is none.
 */
static u64 uc_later(u64 v, u64 at)
{
	u64 later = (v - at) & CALLOUT_DUE_TICK_MASK;

	if (later > CALLOUT_DUE_TICK_MASK / 2 || later > callout_max_ticks + 1)
		return 0;
	return later;
}

/**
 * callout_dev_due_tick() - where the tick collects a due ucallout
 * (CALLOUT_LAZY): the later tick its user stored, or 0
 * @c:		the ucallout's callout, due, its func not started
 * @now:	the current tick
 *
 * For the core to file it again there without running its func, as
 * uc_deferred() would have it do (the func sees a cancel mark, and
 * anything the core leaves to it). A read of the entry and arithmetic.
 *
 * Context: the tick, @c's base locked, interrupts off.
 * Return: a tick after @now within max_timeout_ns of it, or 0.
 */
u64 callout_dev_due_tick(struct callout *c, u64 now)
{
	struct ucallout *uc = container_of(c, struct ucallout, c);
	const struct uc_arming *a = c->arg;
	u64 v, at, later;

	if (!uc_entry_mine(uc, &v) || (v & CALLOUT_DUE_CANCEL))
		return 0;
	at = callout_ns_to_tick_up(a->expires_ns);
	later = uc_later(v, at);
	if (!later || at + later <= now ||
	    (at + later - now) * callout_tick_ns_param > callout_max_timeout_ns())
		return 0;
	return at + later;
}

/**
 * callout_dev_refiled() - the core filed due @c again at @tick
 * @c:		as callout_dev_due_tick()
 * @tick:	what callout_dev_due_tick() returned
 *
 * Its arming's due time is that tick's now: what its expiry reports.
 * Context: as callout_dev_due_tick(); no func of @c runs.
 */
void callout_dev_refiled(struct callout *c, u64 tick)
{
	struct uc_arming *a = c->arg;

	a->expires_ns = tick * callout_tick_ns_param;
}

/*
 * A later tick in @uc's due-time entry @v, read at the expiry of arming @a
 * (due at @a->expires_ns): re-file @uc there, with the arming unchanged.
 * Ticks are modulo 2^39: @v's is the one less than 2^38 ticks after the
 * due tick. One that has passed too (a late tick) is published as the
 * due time; one not later, beyond what a SET may ask now, or that the
 * scheme refuses leaves the expiry to be published as it is.
 * Return: true if @uc was re-filed (or armed anew since its expiry began:
 * that arming stands, as in callout_forward()).
 */
static bool uc_deferred(struct ucallout *uc, struct uc_arming *a, u64 now,
			u64 v)
{
	u64 at = callout_ns_to_tick_up(a->expires_ns), due = a->expires_ns;
	u64 later = uc_later(v, at);
	int ret;

	if (!later)
		return false;
	a->expires_ns = (at + later) * callout_tick_ns_param;
	/*
	 * Passed already (the tick ran late): due now, and at the stored
	 * tick, which its event tells, so that the program sees its store
	 * was not too late.
	 */
	if (a->expires_ns <= now)
		return false;
	if (a->expires_ns - now > callout_max_timeout_ns()) {
		a->expires_ns = due;
		return false;
	}
	ret = callout_refile(&uc->c, now, a->expires_ns);
	if (ret == -EALREADY)
		a->expires_ns = due;	/* not this arming's any more */
	if (ret && ret != -EALREADY) {
		a->expires_ns = due;
		return false;
	}
	return true;
}

/*
 * The expiry of a ucallout, in the tick (softirq, or the ktimers thread of
 * PREEMPT_RT). It takes no lock of the file and allocates nothing.
 */
static void uc_fire(void *arg)
{
	struct uc_arming *a = arg;
	struct ucallout *uc = a->uc;
	struct callout_file *f = uc->file;
	u64 now = callout_now_ns(), due = a->expires_ns, missed = 0;
	u64 *entry = uc->slot->due, v;
	bool mine = uc_entry_mine(uc, &v);
	u32 flags = 0, end = UC_ENDED;
	s64 ret;

	/* What the user stored for this handle; the core took most deferrals. */
	if (mine) {
		if (v & CALLOUT_DUE_CANCEL) {
			/*
			 * A lazy cancel: the arming ends, and no event of it
			 * is read, as after an UNSET; the reader reaps it.
			 */
			preempt_disable();
			write_seqcount_begin(&uc->ev_seqc);
			uc->ev_seq = 0;
			write_seqcount_end(&uc->ev_seqc);
			preempt_enable();
			uc_publish(uc, f, UC_ENDED);
			return;
		}
		if (uc_deferred(uc, a, now, v))
			return;
		due = a->expires_ns;
	}

	if (a->period_ns) {
		flags |= CALLOUT_EV_PERIODIC;
		ret = callout_forward(&uc->c, now, a->period_ns,
				      &a->expires_ns);
		/* Armed anew since this expiry began: not this arming's. */
		if (ret == -EALREADY)
			return;
		due = a->expires_ns - a->period_ns;
		if (ret >= 0) {
			missed = ret;
			end = 0;
			/* The next due tick, unless the user stored since. */
			if (mine)
				cmpxchg64(entry, v,
					  uc_due_entry(uc, a->expires_ns));
		} else {
			/* Beyond the scheme's reach now: its last event. */
			flags |= CALLOUT_EV_LAST;
		}
	}

	/* One writer: a callout's func never runs on two CPUs at once. */
	preempt_disable();
	write_seqcount_begin(&uc->ev_seqc);
	if (uc->ev_seq != a->seq) {
		uc->ev_seq = a->seq;
		uc->ev_count = 0;
	}
	uc->ev_count += 1 + missed;
	uc->ev_expires_ns = due;
	uc->ev_fired_ns = now;
	uc->ev_flags = flags;
	write_seqcount_end(&uc->ev_seqc);
	preempt_enable();
	uc_publish(uc, f, end);
}

/*
 * Cancel @uc, which is in the table; the file lock is held, and dropped
 * and taken again if its func runs now. Its handle is gone at once.
 * Return: 0 if its arming is cancelled (no event of it will be read), or
 * -ENOENT if that arming had ended by itself first (a one-shot that fired,
 * whose event stands).
 */
static int __uc_cancel(struct callout_file *f, struct ucallout *uc,
		       struct callout_batch *b)
	__must_hold(&f->lock)
{
	int ret = 0;

	__uc_unlink(f, uc);
	uc->busy++;
	if (callout_batch_try_unset(b, &uc->c) == -EBUSY) {
		callout_batch_end(b);
		spin_unlock_bh(&f->lock);
		callout_unset_sync(&uc->c);
		spin_lock_bh(&f->lock);
	}
	uc->busy--;
	/* Its func is done with: UC_ENDED cannot change any more. */
	if (atomic_read(&uc->state) & UC_ENDED)
		ret = -ENOENT;
	else
		uc->cur_seq = 0;	/* an event still queued is stale */
	__uc_done(f, uc);
	return ret;
}

static int check_times(u64 timeout_ns, u64 period_ns)
{
	u64 max = callout_max_timeout_ns();

	if (!timeout_ns || (period_ns && period_ns < callout_tick_ns_param))
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
 * Arm @uc of __uc_get() with its first arming, due at @expires_ns and
 * computed from the clock read @now_ns, and enter it in the table under
 * its handle. The file lock is held.
 * Return: 0, or -errno with @uc out of the table again, for the caller to
 * put. On success @uc may fire, be read and be freed as soon as the lock
 * is dropped: the caller must not touch it again.
 */
static int __uc_arm_new(struct callout_file *f, struct ucallout *uc,
			u64 now_ns, u64 expires_ns, u64 period_ns,
			struct callout_batch *b)
{
	int ret;

	lockdep_assert_held(&f->lock);
	uc->arm[0] = (struct uc_arming) {
		.uc = uc,
		.seq = 1,
		.expires_ns = expires_ns,
		.period_ns = period_ns,
	};
	uc->cur_seq = 1;
	uc->slot->uc = uc;
	uc->linked = true;
	/* Before the arming: its expiry reads it. */
	WRITE_ONCE(*uc->slot->due, uc_due_entry(uc, expires_ns));
	ret = callout_batch_set_from(b, &uc->c, now_ns, expires_ns, uc_fire,
				     &uc->arm[0]);
	if (ret < 0) {
		__uc_slot_free(f, uc->slot);
		uc->linked = false;
		return ret;
	}
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
	uc = uc_get(f);
	if (IS_ERR(uc))
		return PTR_ERR(uc);
	uc->cookie = req.cookie;
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
	spin_lock_bh(&f->lock);
	ret = __uc_arm_new(f, uc, now, now + req.timeout_ns, req.period_ns,
			   NULL);
	if (ret)
		__uc_put(f, uc);
	spin_unlock_bh(&f->lock);
	return ret;
}

static int ioc_unset(struct callout_file *f, u64 __user *argp)
{
	struct ucallout *uc;
	u64 handle;
	int ret = -ENOENT;

	if (get_user(handle, argp))
		return -EFAULT;
	spin_lock_bh(&f->lock);
	uc = __uc_lookup(f, handle);
	if (uc)
		ret = __uc_cancel(f, uc, NULL);
	spin_unlock_bh(&f->lock);
	return ret;
}

/*
 * Re-arm @uc in place with a new arming in its free record. The core
 * refuses while @uc's func runs; then wait that out and try again. It
 * refuses too once the arming has ended (its last func ran, UC_ENDED),
 * which the check here may not see yet: never re-arm an ended one. A
 * refusal of the scheme leaves the arming in force as it was. The file
 * lock is held, and dropped and taken again while waiting.
 * Return: 0, -ENOENT if @uc is cancelled or its arming ended meanwhile,
 * or the scheme's -ENOSPC/-ERANGE.
 */
static int __uc_reset(struct callout_file *f, struct ucallout *uc, u64 now,
		      u64 timeout_ns, u64 period_ns, struct callout_batch *b)
	__must_hold(&f->lock)
{
	u64 *entry = uc->slot->due, old, new;
	struct uc_arming *a;
	int ret;

	for (;;) {
		if (!uc->linked || (atomic_read(&uc->state) & UC_ENDED))
			return -ENOENT;
		a = &uc->arm[!uc->cur];
		*a = (struct uc_arming) {
			.uc = uc,
			.seq = uc->cur_seq + 1,
			.expires_ns = now + timeout_ns,
			.period_ns = period_ns,
		};
		/*
		 * The new due tick before the new arming, whose expiry reads
		 * it, and the old one back if the arming is refused (unless
		 * the user stored since). An expiry of either arming that
		 * meets these writes does not act on the entry (uc_fire()),
		 * so a refused RESET leaves the old arming as it was.
		 */
		new = uc_due_entry(uc, a->expires_ns);
		raw_write_seqcount_begin(&uc->due_seqc);
		old = READ_ONCE(*entry);
		WRITE_ONCE(*entry, new);
		ret = callout_batch_reset_from(b, &uc->c, now, a->expires_ns,
					       uc_fire, a);
		if (ret < 0)
			cmpxchg64(entry, new, old);
		raw_write_seqcount_end(&uc->due_seqc);
		if (ret != -EBUSY)
			break;
		uc->busy++;
		callout_batch_end(b);
		spin_unlock_bh(&f->lock);
		callout_wait_idle(&uc->c);
		spin_lock_bh(&f->lock);
		uc->busy--;
	}
	if (ret < 0)
		return ret;
	/* Any event of the arming replaced is stale from here. */
	uc->cur ^= 1;
	uc->cur_seq = a->seq;
	return 0;
}

/* RESET of @handle from the clock read @now; the file lock is held. */
static int __uc_reset_handle(struct callout_file *f, u64 handle, u64 now,
			     u64 timeout_ns, u64 period_ns,
			     struct callout_batch *b)
	__must_hold(&f->lock)
{
	struct ucallout *uc;
	int ret;

	this_cpu_inc(callout_op_counts.reset);
	uc = __uc_lookup(f, handle);
	if (!uc)
		return -ENOENT;
	ret = __uc_reset(f, uc, now, timeout_ns, period_ns, b);
	/* A cancel may have come while it waited. */
	__uc_done(f, uc);
	return ret;
}

static int ioc_reset(struct callout_file *f, struct callout_reset __user *argp)
{
	struct callout_reset req;
	u64 now;
	int ret;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	ret = check_times(req.timeout_ns, req.period_ns);
	if (ret)
		return ret;
	now = callout_now_ns();
	spin_lock_bh(&f->lock);
	ret = __uc_reset_handle(f, req.handle, now, req.timeout_ns,
				req.period_ns, NULL);
	spin_unlock_bh(&f->lock);
	return ret;
}

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
	struct callout_file *f = container_of(to->owner, struct callout_file,
					      owner);

	uto->fired_ns = callout_now_ns();
	uto->q.timeout = true;
	/* As in uc_fire(): @f is used inside a grace period, @uto not at all. */
	rcu_read_lock();
	if (llist_add(&uto->q.node, &f->events) && wq_has_sleeper(&f->wq))
		wake_up_interruptible_poll(&f->wq, EPOLLIN | EPOLLRDNORM);
	rcu_read_unlock();
}

static const struct callout_owner_ops uto_ops = {
	.expire = uto_expire,
};

/* TIMEOUT of (@func, @arg) in @ticks ticks from the clock read @now */
static int uc_timeout(struct callout_file *f, u64 func, u64 arg, u64 ticks,
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

static int uc_untimeout(struct callout_file *f, u64 func, u64 arg)
{
	this_cpu_inc(callout_op_counts.untimeout);
	/* Cancelled: never queued, so its charge ends here. */
	if (!callout_to_cancel(&f->owner, func, arg))
		return -ENOENT;
	uc_uncharge(f, 1);
	return 0;
}

static int ioc_timeout(struct callout_file *f,
		       struct callout_timeout __user *argp)
{
	struct callout_timeout req;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	return uc_timeout(f, req.func, req.arg, req.ticks, callout_now_ns());
}

static int ioc_untimeout(struct callout_file *f,
			 struct callout_untimeout __user *argp)
{
	struct callout_untimeout req;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	return uc_untimeout(f, req.func, req.arg);
}

/* SET from the clock read @now; the file lock is held. */
static int __uc_set(struct callout_file *f, struct callout_op *op, u64 now,
		    struct callout_batch *b)
	__must_hold(&f->lock)
{
	struct ucallout *uc;
	int ret;

	uc = __uc_get(f, b);
	if (IS_ERR(uc))
		return PTR_ERR(uc);
	uc->cookie = op->cookie;
	ret = __uc_arm_new(f, uc, now, now + op->timeout, op->period_ns, b);
	if (ret) {
		__uc_put(f, uc);
		return ret;
	}
	op->handle = uc->handle;
	return 0;
}

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
 * (a SET's handle is its output). Return: 0, -EINVAL, or check_times()'s
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
		return check_times(op->timeout, op->period_ns);
	return 0;
}

static bool uc_op_is_timeout(const struct callout_op *op)
{
	return op->op == CALLOUT_OP_TIMEOUT || op->op == CALLOUT_OP_UNTIMEOUT;
}

/* Check and carry out @op from the clock read @now, with @op->result */
static void __uc_submit_one(struct callout_file *f, struct callout_op *op,
			    u64 now, struct callout_batch *b)
	__must_hold(&f->lock)
{
	struct ucallout *uc;

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
		uc = __uc_lookup(f, op->handle);
		op->result = uc ? __uc_cancel(f, uc, b) : -ENOENT;
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
static void uc_submit_chunk(struct callout_file *f, struct callout_op *ops,
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
static int ioc_submit(struct callout_file *f,
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
	case CALLOUT_IOC_SUBMIT:
		return ioc_submit(f, argp);
	default:
		return -ENOTTY;
	}
}

/*
 * Move what the tick queued behind what the reader took before, in the
 * order it was queued. Under the read mutex, in process context: the
 * list comes newest first and turning it round walks all of it, so that
 * walk reschedules every UC_RESCHED entries (the list is the reader's
 * alone once taken off f->events).
 */
static void uc_collect(struct callout_file *f)
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
static struct uc_node *uc_pop(struct callout_file *f)
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
static void uc_push_front(struct callout_file *f, struct uc_node *q)
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
static void uc_untake(struct callout_file *f, struct ucallout *uc)
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
 * The record of a TIMEOUT's event: always fresh, since a cancelled timeout
 * is never queued. No lock: the reader owns @uto.
 */
static void uto_record(const struct ucallout_to *uto, struct callout_event *ev)
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
 * The reader is done with @uc: let go, take an ended one out of the table,
 * and put it if no one holds it. The file lock is held.
 */
static void __uc_commit(struct callout_file *f, struct ucallout *uc)
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
static void uc_read_batch(struct callout_file *f, struct uc_batch *b,
			  unsigned int max)
{
	struct ucallout *uc;
	struct uc_node *q;
	unsigned int i;

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
		if (__uc_fresh(uc, &b->item[i].snap))
			__uc_record(uc, &b->item[i].snap, &b->ev[b->nr_ev++]);
	}
	spin_unlock_bh(&f->lock);
}

/*
 * Done with the TIMEOUT event @uto, read or dropped: back to the owner,
 * and its charge ends. Outside the file lock (timeout.c's owner lock
 * nests inside nothing).
 */
static void uto_done(struct callout_file *f, struct ucallout_to *uto)
{
	callout_to_put(&uto->to);
	uc_uncharge(f, 1);
}

/*
 * The batch's records are the user's: let its entries go. Once let go an
 * entry may be freed: its kind is the batch's copy, not q->timeout.
 */
static void uc_batch_commit(struct callout_file *f, struct uc_batch *b)
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
static void uc_batch_undo(struct callout_file *f, struct uc_batch *b)
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

static ssize_t callout_read(struct file *file, char __user *buf, size_t count,
			    loff_t *ppos)
{
	struct callout_file *f = file->private_data;
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
static bool uc_prune(struct callout_file *f)
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

static __poll_t callout_poll(struct file *file, poll_table *wait)
{
	struct callout_file *f = file->private_data;
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

static int callout_open(struct inode *inode, struct file *file)
{
	struct callout_file *f;

	f = kzalloc(sizeof(*f), UC_GFP);
	if (!f) {
		callout_alloc_failed(CALLOUT_ALLOC_FILE);
		return -ENOMEM;
	}
	spin_lock_init(&f->lock);
	genradix_init(&f->slots);
	f->nr_slots = 1;	/* handles are never 0 */
	xa_init(&f->due_pages);
	callout_owner_init(&f->owner, &uto_ops, ucallout_to_cache, UC_GFP,
			   UC_SPARES);
	init_llist_head(&f->events);
	init_waitqueue_head(&f->wq);
	mutex_init(&f->read_lock);
	file->private_data = f;
	return nonseekable_open(inode, file);
}

/*
 * Drop every entry of the event queue unread: a ucallout goes to
 * __uc_done(), a TIMEOUT's event back to the owner. At close, rescheduling
 * at least every UC_RESCHED entries.
 * Return: whether there was any.
 */
static bool uc_drop_events(struct callout_file *f)
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

/*
 * close(): cancel every callout, so that no func of the file runs after,
 * then free the events nobody read. Process context, rescheduling at
 * least every UC_RESCHED callouts.
 */
static int callout_release(struct inode *inode, struct file *file)
{
	struct callout_file *f = file->private_data;
	struct llist_node *spare;
	unsigned long pg;
	struct page *page;
	struct uc_slot *s;
	u32 idx;

	spin_lock_bh(&f->lock);
	f->closing = true;
	spin_unlock_bh(&f->lock);
	/* One section a callout: BHs are never off for the whole table. */
	for (idx = 1; idx < f->nr_slots; idx++) {
		s = genradix_ptr(&f->slots, idx);
		spin_lock_bh(&f->lock);
		if (s->uc)
			__uc_cancel(f, s->uc, NULL);
		spin_unlock_bh(&f->lock);
		if (!(idx % UC_RESCHED))
			cond_resched();
	}
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
	while ((spare = f->spares)) {
		f->spares = spare->next;
		kmem_cache_free(ucallout_cache,
				llist_entry(spare, struct ucallout, q.node));
	}
	genradix_free(&f->slots);
	/* No func reads the table any more, and no mapping is left. */
	xa_for_each(&f->due_pages, pg, page)
		__free_page(page);
	xa_destroy(&f->due_pages);
	mutex_destroy(&f->read_lock);
	/* A func that queued its last event may still wake ->wq. */
	kfree_rcu(f, rcu);
	return 0;
}

/*
 * A page of the due-time table, mapped at its first touch: one the file has
 * not used yet is SIGBUS. A page is the file's until release(), which comes
 * only once no mapping is left (each holds the file), so a mapping takes no
 * reference of it.
 */
static vm_fault_t callout_due_fault(struct vm_fault *vmf)
{
	struct callout_file *f = vmf->vma->vm_file->private_data;
	struct page *page = xa_load(&f->due_pages, vmf->pgoff);

	if (!page)
		return VM_FAULT_SIGBUS;
	return vmf_insert_pfn(vmf->vma, vmf->address, page_to_pfn(page));
}

static const struct vm_operations_struct callout_due_vm_ops = {
	.fault	= callout_due_fault,
};

/*
 * mmap(): the due-time table, shared only. It cannot grow by mremap(); a
 * fork()ed child shares it, as it shares the file.
 */
static int callout_mmap(struct file *file, struct vm_area_struct *vma)
{
	BUILD_BUG_ON(CALLOUT_MMAP_CLOCK >> PAGE_SHIFT != UC_DUE_PAGES);
	if (vma->vm_pgoff == UC_DUE_PAGES)
		return callout_clock_mmap(vma);
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_pgoff >= UC_DUE_PAGES ||
	    vma_pages(vma) > UC_DUE_PAGES - vma->vm_pgoff)
		return -EINVAL;
	vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &callout_due_vm_ops;
	return 0;
}

static const struct file_operations callout_fops = {
	.owner		= THIS_MODULE,
	.open		= callout_open,
	.release	= callout_release,
	.read		= callout_read,
	.poll		= callout_poll,
	.mmap		= callout_mmap,
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

	if (callout_clock_init())
		return -ENOMEM;
	if (percpu_counter_init(&callout_user_total, 0, GFP_KERNEL))
		goto err_clock;
	ucallout_cache = KMEM_CACHE(ucallout, SLAB_ACCOUNT);
	/* SLAB_TYPESAFE_BY_RCU, and charged to each file's memory cgroup */
	ucallout_to_cache = callout_to_cache_create("ucallout_to",
						    sizeof(struct ucallout_to),
						    SLAB_ACCOUNT);
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
	percpu_counter_destroy(&callout_user_total);
err_clock:
	callout_clock_exit();
	return ret;
}

void callout_dev_exit(void)
{
	misc_deregister(&callout_miscdev);
	/* It waits for RCU readers of its objects first (TYPESAFE_BY_RCU). */
	kmem_cache_destroy(ucallout_to_cache);
	kmem_cache_destroy(ucallout_cache);
	percpu_counter_destroy(&callout_user_total);
	callout_clock_exit();
}
