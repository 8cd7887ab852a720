/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - kernel API drift from 6.1 to 6.18, in one place.
 *
 * The code is written against the newest API; this header supplies it on
 * older kernels. Each choice is a feature probe: #ifdef for what the kernel
 * defines as a macro; for the rest a grep of the kernel's headers done by
 * Kbuild, which passes -DCALLOUT_<NAME>. No LINUX_VERSION_CODE: a probe
 * also gets stable backports right (timer_delete() is in 6.1.y).
 *
 *   API                      6.1      6.12     mainline          here
 *   hrtimer_setup()          -        -        6.13              probed
 *   hrtimer_init()           yes      yes      gone in 6.15      not used
 *   timer_delete[_sync]()    6.1.y    yes      del_timer* gone   probed
 *   from_timer()             yes      yes      gone in 6.16      not used
 *   symbol namespace         token    token    string in 6.13    see below
 *   debugfs_create_file()    a call   a call   _Generic in 6.13  see below
 *   no_llseek                NULL     gone     gone              not used
 *   local_lock_nested_bh()   -        yes      yes (6.11)        #ifdef
 *   vm_flags_set()           -        yes      yes (6.3)         probed
 *   vm_flags_clear()         -        yes      yes (6.3)         with it
 *
 * debugfs_create_file() needs nothing here as long as it is called with a
 * const struct file_operations * (never a bare NULL, never through a
 * function pointer): from 6.13 it is a _Generic macro on that argument.
 * .llseek is noop_llseek or default_llseek, never no_llseek.
 */
#ifndef CALLOUT_COMPAT_H
#define CALLOUT_COMPAT_H

#include <linux/build_bug.h>
#include <linux/callout.h>
#include <linux/hrtimer.h>
#include <linux/spinlock.h>
/* After spinlock.h: 6.12-rt's local_lock_internal.h needs spinlock_t. */
#include <linux/local_lock.h>
#include <linux/stringify.h>
#include <linux/timer.h>

#ifndef CALLOUT_HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

#ifndef CALLOUT_HAVE_TIMER_DELETE
static inline int timer_delete(struct timer_list *timer)
{
	return del_timer(timer);
}

static inline int timer_delete_sync(struct timer_list *timer)
{
	return del_timer_sync(timer);
}
#endif

#ifndef CALLOUT_HAVE_VM_FLAGS_SET
#include <linux/mm_types.h>

static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma,
				  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * Per-CPU data taken with bottom halves off: before 6.11 there is no
 * PREEMPT_RT kernel to build for here, and bottom halves off alone keep
 * out everything else of the CPU.
 */
#ifndef local_lock_nested_bh
#define local_lock_nested_bh(lock)	((void)(lock))
#define local_unlock_nested_bh(lock)	((void)(lock))
#endif

/*
 * include/linux/callout.h spells the API's symbol namespace, CALLOUT_NS, by
 * kernel version (a bare token before 6.13, a string from 6.13), since a
 * client's build runs no probe of ours. This build probes the kernel's
 * MODULE_IMPORT_NS() and stops if the two disagree (a backport of the
 * string form to an older kernel), rather than export under a namespace
 * that a client spelling it the header's way cannot import.
 */
#ifdef CALLOUT_NS_STRINGIFIED
#define CALLOUT_NS_PROBED	CALLOUT
#else
#define CALLOUT_NS_PROBED	"CALLOUT"
#endif
static_assert(sizeof(__stringify(CALLOUT_NS)) ==
	      sizeof(__stringify(CALLOUT_NS_PROBED)),
	      "include/linux/callout.h spells CALLOUT_NS wrong for this kernel");

#endif /* CALLOUT_COMPAT_H */
