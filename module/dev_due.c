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
 * reads 0. The program may store a later tick, or the cancel mark
 * (include/uapi/linux/callout.h gives the layout). The tick reads the
 * entry once an expiry, once the file has mapped its table, with
 * READ_ONCE() through the kernel's own mapping of the page (no fault, no
 * sleep), and trusts nothing in it:
 *
 * - an entry of another generation (a store meant for an earlier handle
 *   of the slot) is ignored;
 * - the cancel mark ends the arming as an UNSET would, lazily: no event of
 *   it is read (the record's sequence becomes 0, a stale one), and the
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
 * for every deferred callout once an RTO). What the read found is kept in
 * the ucallout for uc_fire(), which does the rest: the cancel mark, and a
 * tick the wheel's pass had reached already or the scheme refused (then
 * uc_deferred(), through callout_requeue()).
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

/*
 * Where the tick collects a due ucallout (CALLOUT_DEFER): the later tick
 * its user stored, or 0, for the core to queue it again there without
 * running its func, as uc_deferred() would have it do. The one read of the
 * entry an expiry makes, and none while the file has not mapped its table:
 * what it read is kept in uc->due_seen for uc_fire(), which acts on the
 * rest (a cancel mark, and what the core leaves to it), and @now_ns, a
 * clock read made before it, in uc->fire_ns, the time uc_fire() reports:
 * a store that this read missed came after the callout fired.
 * Context: the tick, @c's base locked, interrupts off; @c's func not
 * started, and no other func of @c runs (core.c).
 * Return: a tick after @now within max_timeout_ns of it, or 0.
 */
/**
 * uc_due_later() - the deferral policy: where entry @v puts an expiry back
 * @v:		a due-time entry of the callout's own (uc_entry_mine())
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

static u64 uc_due_tick(struct callout *c, u64 now, u64 now_ns)
{
	struct ucallout *uc = container_of(c, struct ucallout, c);
	const struct uc_arming *a = c->arg;
	u64 v = 0;

	if (READ_ONCE(uc->file->mapped) && !uc_entry_mine(uc, &v))
		v = 0;
	uc->due_seen = v;
	uc->fire_ns = now_ns;
	return v ? uc_due_later(v, a->expires_ns, now) : 0;
}

/*
 * The core queued due @c again at @tick, what uc_due_tick() returned: its
 * arming's due time is that tick's now, what its expiry reports. Context:
 * as uc_due_tick().
 */
static void uc_requeued(struct callout *c, u64 tick)
{
	struct uc_arming *a = c->arg;

	a->expires_ns = tick * callout_tick_ns_param;
}

const struct callout_defer_ops uc_defer_ops = {
	.due_tick	= uc_due_tick,
	.requeued	= uc_requeued,
};

/*
 * A later tick in @uc's due-time entry @v, read at the expiry of arming @a
 * (due at @a->expires_ns): re-file @uc there, with the arming unchanged.
 * Ticks are modulo 2^39: @v's is the one less than 2^38 ticks after the
 * due tick. One that has passed too (a late tick) is published as the
 * due time; one not later, beyond what a SET may ask now, or that the
 * scheme refuses leaves the expiry to be published as it is.
 * Return: true if @uc was re-filed (or armed anew since its expiry began:
 * that arming stands).
 */
bool uc_deferred(struct ucallout *uc, struct uc_arming *a, u64 now,
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
	ret = callout_requeue(&uc->c, now, a->expires_ns);
	if (ret == -EALREADY)
		a->expires_ns = due;	/* not this arming's any more */
	if (ret && ret != -EALREADY) {
		a->expires_ns = due;
		return false;
	}
	return true;
}

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
	/* From now on the tick reads the entries (uc_due_tick()). */
	WRITE_ONCE(f->mapped, true);
	return 0;
}

