// SPDX-License-Identifier: GPL-2.0
/*
 * dev_due.c - a file's due-time table: a deferral or a cancel of a
 * callout by a store into a mapped page instead of a system call.
 *
 * The due-time table lets a program put a callout back, or cancel it,
 * with a store instead of a system call, as tokio resets a timer and Netty
 * cancels one lazily. Each slot has a u64 entry in a page of the file's
 * (UC_DUE_PER_PAGE slots a page, allocated with the first slot of its
 * range, freed at close), which mmap() maps: shared only, a page the file
 * has not used yet faulting SIGBUS. A SET and a RESET write there, before
 * they arm, the handle's generation and the due tick; a freed slot's entry
 * reads 0. A file that never maps its table pays for none of it: until the
 * first mmap() the entries stay 0, and each mmap() writes those of the
 * callouts armed before the first that are still 0 (uc_due_fill()). The
 * program may store a later tick, or the cancel mark
 * (include/uapi/linux/callout.h gives the layout). The tick reads the
 * entry once an expiry, once the file has mapped its table, with
 * READ_ONCE() through the kernel's own mapping of the page (no fault, no
 * sleep), and trusts nothing in it:
 *
 * - an entry of another generation (a store meant for an earlier handle
 *   of the slot) is ignored;
 * - the cancel mark ends the arming as an UNSET would, lazily: no event of
 *   it is read (its count stays 0: its entry is stale), and the
 *   reader reaps it from the queue like any ended arming;
 * - a later tick, less than half the 2^39-tick circle on from the due
 *   tick and within max_timeout_ns of now, queues the callout there again,
 *   with its arming, sequence and period unchanged, and nothing is
 *   published; a later tick that has passed too (the tick ran late) is
 *   published as the due time, as if the callout had been queued there;
 * - anything else leaves the expiry as it is.
 *
 * The read is the core's question, not uc_fire()'s: a ucallout is
 * CALLOUT_DEFER, and where the tick collects it due, the core asks
 * uc_defer_ops (uc_due_tick()) for the later tick its entry holds and
 * queues it again there, with the base lock held, without running the
 * func (a func run is two clock reads, two lock sections and the func,
 * for every deferred callout once an RTO). The same read settles the rest
 * before the func runs: a tick that has passed becomes the due time, and
 * the cancel mark is left in the ucallout's state for uc_fire(). A tick
 * the scheme refuses is not taken: the callout fires at its due time.
 *
 * A periodic callout forwarded writes its next due tick with a cmpxchg,
 * so that a store made meanwhile stands. Generations stay below 2^24, so
 * that an entry holds a handle's whole generation: a slot whose
 * generations are spent is retired (a slot index and 8 bytes of table per
 * 16.7M armings of one slot).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/xarray.h>

#include "dev.h"

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
 * uc_due_later() - the deferral policy: where entry @v puts an expiry back
 * @v:		a due-time entry of the callout's own (uc_due_mine())
 * @expires_ns:	the due time of the expiry it may put back
 * @now:	the current tick
 *
 * Return: the later tick @v stores, if it is after @now and within
 * max_timeout_ns of it; else 0 (a cancel mark, an earlier or the same
 * tick, one too far).
 */
u64 uc_due_later(u64 v, u64 expires_ns, u64 now)
{
	u64 at = callout_ns_to_tick_up(expires_ns), later;

	if (v & CALLOUT_DUE_CANCEL)
		return 0;
	later = uc_later(v, at);
	if (!later || at + later <= now ||
	    (at + later - now) * callout_tick_ns_param > callout_max_timeout_ns())
		return 0;
	return at + later;
}

/*
 * Where the tick collects a due ucallout (CALLOUT_DEFER): the later tick
 * its user stored, or 0, for the core to queue it again there without
 * running its func. The one read of the entry an expiry makes, and none
 * while the file has not mapped its table. A stored tick that has passed
 * too (the tick ran late) becomes the due time its event tells, as if the
 * callout had been queued there, so that the program sees its store was
 * not too late; the cancel mark is left to uc_fire() (UC_CANCEL). @now_ns,
 * a clock read made before the read, is when the callout fired: a store
 * that this read missed came after it fired.
 * Context: the tick, @c's base locked, interrupts off; @c's func not
 * started, and no other func of @c runs (core.c).
 * Return: a tick after @now within max_timeout_ns of it, or 0.
 */
static u64 uc_due_tick(struct callout *c, u64 now, u64 now_ns)
{
	struct ucallout *uc = container_of(c, struct ucallout, c);
	u64 v, at, later;

	uc->fired_ns = now_ns;
	if (!uc_entry_mine(uc, &v))
		return 0;
	if (v & CALLOUT_DUE_CANCEL) {
		atomic_or(UC_CANCEL, &uc->q.state);
		return 0;
	}
	at = callout_ns_to_tick_up(uc->due_ns);
	later = uc_later(v, at);
	if (later && at + later <= now) {
		uc->due_ns = (at + later) * callout_tick_ns_param;
		return 0;
	}
	return uc_due_later(v, uc->due_ns, now);
}

/*
 * The core queued due @c again at @tick, what uc_due_tick() returned: its
 * arming's due time is that tick's now, what its expiry reports. Context:
 * as uc_due_tick().
 */
static void uc_requeued(struct callout *c, u64 tick)
{
	container_of(c, struct ucallout, c)->due_ns =
		tick * callout_tick_ns_param;
}

const struct callout_defer_ops uc_defer_ops = {
	.due_tick	= uc_due_tick,
	.requeued	= uc_requeued,
};

/*
 * A page of the due-time table, mapped at its first touch: one the file has
 * not used yet is SIGBUS. A page is the file's until release(), which comes
 * only once no mapping is left (each holds the file), so a mapping takes no
 * reference of it.
 */
static vm_fault_t uc_due_fault(struct vm_fault *vmf)
{
	struct uc_file *f = vmf->vma->vm_file->private_data;
	struct page *page = xa_load(&f->due_pages, vmf->pgoff);

	if (!page)
		return VM_FAULT_SIGBUS;
	return vmf_insert_pfn(vmf->vma, vmf->address, page_to_pfn(page));
}

static const struct vm_operations_struct uc_due_vm_ops = {
	.fault	= uc_due_fault,
};

/*
 * mmap(): the due-time table, shared only. It cannot grow by mremap(); a
 * fork()ed child shares it, as it shares the file.
 */
int ucdev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct uc_file *f = file->private_data;

	BUILD_BUG_ON(CALLOUT_MMAP_CLOCK >> PAGE_SHIFT != UC_DUE_PAGES);
	if (vma->vm_pgoff == UC_DUE_PAGES)
		return callout_clock_mmap(vma);
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_pgoff >= UC_DUE_PAGES ||
	    vma_pages(vma) > UC_DUE_PAGES - vma->vm_pgoff)
		return -EINVAL;
	vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &uc_due_vm_ops;
	/* From now on the entries are written, and the tick reads them. */
	uc_due_fill(f);
	return 0;
}

