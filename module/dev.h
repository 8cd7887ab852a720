/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dev.h - what the files of /dev/callout share (dev.c says which does
 * what): the types of a file and of its callouts, and the few helpers the
 * expiry, the reader and the ioctls all use.
 */
#ifndef CALLOUT_DEV_H
#define CALLOUT_DEV_H

#include <linux/generic-radix-tree.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/percpu_counter.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <uapi/linux/callout.h>

#include "core.h"
#include "timeout.h"

/* Module parameters, read-only after load (main.c) */
extern unsigned long callout_max_per_file, callout_max_total;

int callout_dev_init(void);
void callout_dev_exit(void);
extern struct percpu_counter callout_user_total;

/* clock.c: the clock page, which the file's mmap() gives */
struct vm_area_struct;
int callout_clock_mmap(struct vm_area_struct *vma);
int callout_clock_init(void);
void callout_clock_exit(void);

/* ucallout.state: atomic, changed by the tick, the reader and close() */
#define UC_QUEUED	BIT(0)	/* on the event queue: file->events or ->taken */
#define UC_READING	BIT(1)	/* held by the reader, between take and commit */
#define UC_ENDED	BIT(2)	/* the arming ended by itself; never cleared */
#define UC_REARM	BIT(3)	/* a periodic one fired: its reader re-arms it */

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
struct uc_file {
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
	bool mapped;			/* the due table was mapped, once */
	struct rcu_head rcu;		/* the tick may wake ->wq after close */
	/* Last: kfree_rcu() needs ->rcu in the first 4 KiB (lockdep, KASAN). */
	struct uc_batch batch;		/* the reader's, read */
};

/**
 * struct uc_arming - the parameters of one arming, the func's argument
 * @uc:		whose
 * @seq:	its sequence number, never 0
 * @expires_ns:	due time of its next expiry; a deferral moves it on, the
 *		reader forwards a periodic one
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
 * @due_seen:	its due-time entry as the tick read it at this expiry
 *		(uc_due_tick()), 0 if not its own or not read; for uc_fire()
 * @fire_ns:	the tick's clock read before that: when this expiry fired
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
	struct uc_file *file;
	u64 handle;
	struct uc_slot *slot;
	u64 cookie;
	struct uc_arming arm[2];
	u64 cur_seq;
	u8 cur;
	bool linked;
	u16 busy;
	u64 due_seen;
	u64 fire_ns;
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

/*
 * What a file allocates for its user: charged to the caller's memory cgroup
 * and, when that is full, refused with -ENOMEM after reclaim rather than
 * calling the cgroup's OOM killer from inside an ioctl.
 */
#define UC_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL)

static inline struct ucallout *q_uc(struct uc_node *q)
{
	return container_of(q, struct ucallout, q);
}

static inline struct ucallout_to *q_uto(struct uc_node *q)
{
	return container_of(q, struct ucallout_to, q);
}

/* The due-time entry of @uc for an arming due at @expires_ns */
static inline u64 uc_due_entry(const struct ucallout *uc, u64 expires_ns)
{
	return CALLOUT_DUE(uc->handle, callout_ns_to_tick_up(expires_ns));
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
static inline bool uc_entry_mine(const struct ucallout *uc, u64 *v)
{
	unsigned int seq = raw_read_seqcount(&uc->due_seqc);

	*v = READ_ONCE(*uc->slot->due);
	return IS_ENABLED(CONFIG_64BIT) && *v && !(seq & 1) &&
	       !read_seqcount_retry(&uc->due_seqc, seq) &&
	       *v >> CALLOUT_DUE_GEN_SHIFT == upper_32_bits(uc->handle);
}

/*
 * Queue @q on @f's event list and wake a reader if the list was empty. In
 * the tick, inside an RCU read-side section: once queued, a reader may
 * free @q's callout and a close() free @f after a grace period.
 */
static inline void uc_enqueue(struct uc_file *f, struct uc_node *q)
{
	if (llist_add(&q->node, &f->events) && wq_has_sleeper(&f->wq))
		wake_up_interruptible_poll(&f->wq, EPOLLIN | EPOLLRDNORM);
}

/* dev_callout.c: SET, UNSET and RESET */
int uc_callout_init(void);
void uc_callout_exit(void);
int uc_charge(struct uc_file *f);
void uc_uncharge(struct uc_file *f, unsigned long n);
int uc_refused(int err);
int uc_check_times(u64 timeout_ns, u64 period_ns);
struct ucallout *__uc_lookup(struct uc_file *f, u64 handle);
void __uc_unlink(struct uc_file *f, struct ucallout *uc);
void __uc_done(struct uc_file *f, struct ucallout *uc);
void __uc_rearm(struct uc_file *f, struct ucallout *uc, struct uc_snap *s,
		u64 now);
int __uc_set(struct uc_file *f, struct callout_op *op, u64 now,
	     struct callout_batch *b);
int __uc_cancel(struct uc_file *f, struct ucallout *uc,
		struct callout_batch *b);
int __uc_reset_handle(struct uc_file *f, u64 handle, u64 now,
		      u64 timeout_ns, u64 period_ns, struct callout_batch *b);
int uc_ioc_set(struct uc_file *f, struct callout_set __user *argp);
int uc_ioc_unset(struct uc_file *f, u64 __user *argp);
int uc_ioc_reset(struct uc_file *f, struct callout_reset __user *argp);
void uc_cancel_all(struct uc_file *f);
void uc_table_free(struct uc_file *f);

/* dev_due.c: the due-time table */
extern const struct callout_defer_ops uc_defer_ops;
u64 uc_due_later(u64 v, u64 expires_ns, u64 now);
bool uc_deferred(struct ucallout *uc, struct uc_arming *a, u64 now, u64 v);
int ucdev_mmap(struct file *file, struct vm_area_struct *vma);

/* dev_timeout.c: TIMEOUT and UNTIMEOUT */
int uto_init(void);
void uto_exit(void);
void uto_file_init(struct uc_file *f);
int uc_timeout(struct uc_file *f, u64 func, u64 arg, u64 ticks,
	       u64 now);
int uc_untimeout(struct uc_file *f, u64 func, u64 arg);
int uc_ioc_timeout(struct uc_file *f, struct callout_timeout __user *argp);
int uc_ioc_untimeout(struct uc_file *f,
		     struct callout_untimeout __user *argp);
void uto_record(const struct ucallout_to *uto, struct callout_event *ev);
void uto_done(struct uc_file *f, struct ucallout_to *uto);

/* dev_submit.c: SUBMIT */
int uc_ioc_submit(struct uc_file *f, struct callout_submit __user *argp);

/* dev_events.c: the event queue */
ssize_t ucdev_read(struct file *file, char __user *buf, size_t count,
		   loff_t *ppos);
__poll_t ucdev_poll(struct file *file, poll_table *wait);
bool uc_drop_events(struct uc_file *f);

#endif /* CALLOUT_DEV_H */
