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
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu_counter.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
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

/*
 * uc_node.state: atomic, changed by the tick, the reader and the ioctls
 * (those under the file lock). The low bits are flags; the high ones count
 * the cancels and RESETs waiting on a ucallout outside the file lock.
 */
#define UC_QUEUED	BIT(0)	/* on the event queue: file->events or ->taken */
#define UC_ENDED	BIT(1)	/* the arming ended by itself; never cleared */
#define UC_REARM	BIT(2)	/* a periodic one fired: its reader re-arms it */
#define UC_LINKED	BIT(3)	/* in the handle table (file lock) */
#define UC_CANCEL	BIT(4)	/* the tick found the cancel mark in its entry */
#define UC_TIMEOUT	BIT(5)	/* the node of a struct ucallout_to */
#define UC_BUSY_SHIFT	16
#define UC_BUSY_ONE	BIT(UC_BUSY_SHIFT)

/*
 * Idle callouts a file keeps for its next SETs (spare ucallouts), and as
 * many for its next TIMEOUTs (its owner's free list): enough that a
 * program cycling through a few dozen callouts at once allocates nothing,
 * and a file that had many and now has few keeps at most 8 KiB of idle
 * ucallouts and 11 KiB of idle timeouts, charged to its memory cgroup.
 */
#define UC_SPARES	64

/*
 * Records a read() makes in one file-lock section, on its stack (read()
 * allocates nothing), and the most a file keeps for its next read() when
 * a copy faults (uc_file.stash).
 */
#define UC_READ_BATCH	8

/* A cancel reschedules at least this often while it frees */
#define UC_RESCHED	256

/**
 * struct uc_slot - an entry of a file's handle table
 * @uc:		the callout armed with this slot's handle, or NULL
 * @next_free:	while free (UC_SLOT_FREE in @gen), the next free slot
 * @gen:	the high half of this slot's handle
 * @idx:	the low half: this slot's index, which finds its entry of the
 *		due-time table too (uc_due_word())
 */
struct uc_slot {
	union {
		struct ucallout *uc;
		struct uc_slot *next_free;
	};
	u32 gen;
	u32 idx;
};

/* In uc_slot.gen while the slot is free: no handle's generation has it. */
#define UC_SLOT_FREE	BIT(31)

static_assert(sizeof(struct uc_slot) == 16);

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
 * @state:	UC_* above; UC_TIMEOUT alone in the node of a TIMEOUT
 * @count:	a ucallout's expiries not yet read: 0, or 1 + the due times
 *		its latest expiry was late by (saturating); unused in a
 *		TIMEOUT's
 */
struct uc_node {
	struct llist_node node;
	atomic_t state;
	atomic_t count;
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
	unsigned int nr_stash;		/* records in ->stash, locked */
	/* made and taken, but the user's buffer faulted: the next read's */
	struct callout_event stash[UC_READ_BATCH];
	struct rcu_head rcu;		/* the tick may wake ->wq after close */
};

/**
 * struct ucallout - a callout of a /dev/callout file
 * @c:		the callout; its func is uc_fire(), its arg the ucallout
 * @file:	owner
 * @handle:	its handle: slot index and generation
 * @cookie:	returned in events
 * @due_ns:	while pending, the due time of its arming's next expiry; once
 *		fired, of its latest one (what its record says)
 * @period_ns:	0 one-shot, else the period
 * @fired_ns:	when its latest expiry fired
 * @q:		on the event queue while UC_QUEUED, on file->spares (by
 *		q.node) while spare; its state and unread count
 *
 * The arming (@due_ns, @period_ns) is written under the file lock while
 * the callout is neither pending nor running its func (SET, the reader's
 * re-arm), or by a RESET's commit under the base lock (uc_commit()); the
 * tick writes @due_ns and @fired_ns at an expiry, before it stores
 * @q.count, and nothing writes them while the count is not 0 but the
 * reader that takes it: a fired callout is not armed again but by its
 * reader or a RESET, which sets the count to 0 first.
 */
struct ucallout {
	struct callout c;
	struct uc_file *file;
	u64 handle;
	u64 cookie;
	u64 due_ns;
	u64 period_ns;
	u64 fired_ns;
	struct uc_node q;
};

/* Two cache lines; with its slot and due word a pending SET holds 152 B. */
static_assert(sizeof(struct ucallout) <= 128);

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
 * The due-time table's word of slot @idx, in a page allocated before the
 * slot was first given (uc_slot_alloc()) and kept until release(); NULL
 * while the file has not mapped its table, which then holds nothing but
 * zeroes (the first mmap() writes the entries of what is armed).
 */
static inline u64 *uc_due_word(struct uc_file *f, u32 idx)
{
	if (!IS_ENABLED(CONFIG_64BIT) || !READ_ONCE(f->mapped))
		return NULL;
	return (u64 *)page_address(xa_load(&f->due_pages,
					   idx / UC_DUE_PER_PAGE)) +
	       idx % UC_DUE_PER_PAGE;
}

/*
 * Whether @v, read from @uc's due-time entry, is @uc's own, once the file
 * has mapped its table: not a store meant for another handle of the slot
 * (an earlier one, or a later one if the slot was given again while this
 * expiry waited to run: then nothing here may write it either), not 0 (a
 * freed slot's). Its writers besides the user (SET, RESET's commit, the
 * reader's re-arm) hold the file lock or the base lock that its readers
 * hold. A 32-bit kernel could read it torn: it has no table.
 */
static inline bool uc_due_mine(const struct ucallout *uc, u64 v)
{
	return IS_ENABLED(CONFIG_64BIT) && READ_ONCE(uc->file->mapped) && v &&
	       v >> CALLOUT_DUE_GEN_SHIFT == upper_32_bits(uc->handle);
}

/* @uc's due-time entry into *@v, if it is its own; none read unless mapped */
static inline bool uc_entry_mine(const struct ucallout *uc, u64 *v)
{
	u64 *word = uc_due_word(uc->file, lower_32_bits(uc->handle));

	if (!word)
		return false;
	*v = READ_ONCE(*word);
	return uc_due_mine(uc, *v);
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
void uc_due_fill(struct uc_file *f);
int uc_callout_init(void);
void uc_callout_exit(void);
int uc_charge(struct uc_file *f);
void uc_uncharge(struct uc_file *f, unsigned long n);
int uc_refused(int err);
int uc_check_times(u64 timeout_ns, u64 period_ns);
struct uc_slot *__uc_lookup(struct uc_file *f, u64 handle);
void __uc_unlink(struct uc_file *f, struct ucallout *uc);
void __uc_done(struct uc_file *f, struct ucallout *uc);
void uc_record(const struct ucallout *uc, struct callout_event *ev,
	       u64 count);
bool __uc_rearm(struct uc_file *f, struct ucallout *uc,
		struct callout_event *ev, bool rec, u64 now);
int __uc_set(struct uc_file *f, struct callout_op *op, u64 now,
	     struct callout_batch *b);
int __uc_cancel(struct uc_file *f, struct uc_slot *s,
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
void __uc_unstash(struct uc_file *f, u64 handle);

#endif /* CALLOUT_DEV_H */
