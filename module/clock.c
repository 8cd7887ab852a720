// SPDX-License-Identifier: GPL-2.0
/*
 * clock.c - the clock page: the time, in ticks, for a program to compute
 * deadlines with a load instead of a clock read.
 *
 * A program that defers a callout through the due-time table (dev_due.c)
 * needs "now" for each deadline it stores; a clock read would cost more
 * than the store (a system call where the clocksource is the HPET, and
 * tens of ns even through the vDSO). The facility's
 * own tick cannot publish it: the tick sleeps until the next callout is
 * due, for seconds. The kernel's timekeeping can: it is updated at every
 * tick of 1/HZ on a busy system, and before anything runs on a CPU that
 * leaves idle (what keeps CLOCK_MONOTONIC_COARSE fresh). The pvclock_gtod
 * notifier, which KVM uses for the same reason, calls us at each update;
 * we store there, in one read-only page that every /dev/callout file maps
 * at CALLOUT_MMAP_CLOCK, the earliest tick a deadline may name: a tick
 * that begins after every moment until the next update is due, one jiffy
 * on, so that a deadline of earliest_tick + n ticks is at least n ticks
 * from any read of it while the kernel's tick runs on time.
 *
 * The notifier runs with the timekeeper's seqcount held for writing and
 * interrupts off: it reads the clock through ktime_get_mono_fast_ns(),
 * the NMI-safe accessor that takes no seqcount of the timekeeper's, and
 * does a division and a store.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pvclock_gtod.h>
#include <linux/timekeeping.h>
#include <uapi/linux/callout.h>

#include "compat.h"
#include "core.h"
#include "dev.h"

static struct page *clock_page;
/* Mappings of the page: the notifier is registered while there are any. */
static DEFINE_MUTEX(clock_lock);
static unsigned long clock_maps;

static int callout_clock_update(struct notifier_block *nb,
				unsigned long was_set, void *tk)
{
	struct callout_clock *clk = page_address(clock_page);
	u64 ns = ktime_get_mono_fast_ns() + TICK_NSEC;

	WRITE_ONCE(clk->earliest_tick,
		   div64_u64(ns, callout_tick_ns_param) + 1);
	return NOTIFY_OK;
}

static struct notifier_block callout_clock_nb = {
	.notifier_call = callout_clock_update,
};

/*
 * Nothing calls the notifier while no program maps the page: the first
 * mapping registers it (which calls it at once), the last unmap
 * unregisters it. A vma copied by fork() or moved by mremap() counts.
 */
static void callout_clock_open(struct vm_area_struct *vma)
{
	mutex_lock(&clock_lock);
	if (!clock_maps++)
		pvclock_gtod_register_notifier(&callout_clock_nb);
	mutex_unlock(&clock_lock);
}

static void callout_clock_close(struct vm_area_struct *vma)
{
	mutex_lock(&clock_lock);
	if (!--clock_maps)
		pvclock_gtod_unregister_notifier(&callout_clock_nb);
	mutex_unlock(&clock_lock);
}

static const struct vm_operations_struct callout_clock_vm_ops = {
	.open	= callout_clock_open,
	.close	= callout_clock_close,
};

/*
 * mmap() of CALLOUT_MMAP_CLOCK: the one page, shared and read-only (never
 * to be made writable: no VM_MAYWRITE); it cannot grow by mremap().
 */
int callout_clock_mmap(struct vm_area_struct *vma)
{
	int ret;

	if (!(vma->vm_flags & VM_MAYSHARE) || vma_pages(vma) != 1)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vm_flags_clear(vma, VM_MAYWRITE);
	ret = remap_pfn_range(vma, vma->vm_start, page_to_pfn(clock_page),
			      PAGE_SIZE, vma->vm_page_prot);
	if (ret)
		return ret;
	vma->vm_ops = &callout_clock_vm_ops;
	callout_clock_open(vma);
	return 0;
}

int callout_clock_init(void)
{
	struct callout_clock *clk;

	clock_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!clock_page)
		return -ENOMEM;
	clk = page_address(clock_page);
	clk->tick_ns = callout_tick_ns_param;
	return 0;
}

/* After the last file is gone: each mapping holds its file. */
void callout_clock_exit(void)
{
	__free_page(clock_page);
}
