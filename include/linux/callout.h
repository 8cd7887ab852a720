/* SPDX-License-Identifier: GPL-2.0 */
/*
 * callout.h - the in-kernel API of the callout facility.
 *
 * A callout is a one-shot timer measured in ticks of the module's tick_ns,
 * kept on a per-CPU timing wheel (Varghese & Lauck) that an hrtimer advances.
 * Setting and cancelling cost O(1) whatever the number pending. Symbols are
 * exported GPL in the CALLOUT namespace: a client says
 * MODULE_IMPORT_NS(CALLOUT_NS), which this header spells for the kernel it
 * is built against.
 *
 * This header stands alone: it includes only the kernel's headers, so an
 * out-of-tree client needs callout's include/ on its path and nothing else.
 */
#ifndef _LINUX_CALLOUT_H
#define _LINUX_CALLOUT_H

#include <linux/rbtree.h>
#include <linux/types.h>
#include <linux/version.h>

/*
 * The symbol namespace, for MODULE_IMPORT_NS(): a bare token, which the
 * kernel stringifies, before 6.13; a string literal from 6.13 on. A version
 * test, because a client's build runs no probe of callout's; callout.ko's
 * own build checks it against the kernel's headers (module/compat.h).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define CALLOUT_NS "CALLOUT"
#else
#define CALLOUT_NS CALLOUT
#endif

/**
 * struct tw_entry - the wheel linkage of one timer, embedded in its owner
 * @list:	slot, list or queue linkage; also the link on the expired list
 * @rb:		linkage of the tree scheme
 * @expires:	absolute tick at which the entry is due
 * @__dlist:	never used: the space of @list, so that @delta lies beside
 *		@list within the rb_node's space
 * @delta:	scheme-private (the bsd scheme's differential time); shares the
 *		rb_node's space, so an entry stays 40 bytes
 * @idx:	scheme-private (slot or queue index, for O(1) bitmap upkeep)
 * @flags:	TW_PENDING while the entry is in a wheel (TW_DUE too while it
 *		waits on the wheel's list of due entries); the other bits belong
 *		to the entry's owner, the scheme library never touches them
 *
 * The scheme library (schemes/tw.h) links and unlinks it. It is defined
 * here, not there, so that a client can embed a &struct callout with this
 * header alone. Opaque to clients.
 */
struct tw_entry {
	union {
		struct list_head list;
		struct rb_node rb;
		struct {
			struct list_head __dlist;
			u64 delta;
		};
	};
	u64 expires;
	u32 idx;
	u32 flags;
};

struct callout_base;

typedef void (*callout_func_t)(void *arg);

/**
 * struct callout - one callout, embedded in its owner
 * @entry:	wheel linkage and expiry tick
 * @func:	what to run at expiry, in softirq context
 * @arg:	its argument
 * @base:	the per-CPU base it was last armed on; NULL only while it moves
 *		between bases
 *
 * Initialise with callout_init() before first use. Opaque to its users.
 */
struct callout {
	struct tw_entry entry;
	callout_func_t func;
	void *arg;
	struct callout_base *base;
};

void callout_init(struct callout *c);
int callout_set(struct callout *c, unsigned long ticks, callout_func_t func,
		void *arg);
int callout_unset(struct callout *c);
int callout_unset_sync(struct callout *c);
bool callout_pending(const struct callout *c);
int callout_timeout(callout_func_t func, void *arg, unsigned long ticks);
int callout_untimeout(callout_func_t func, void *arg);
u64 callout_tick_ns(void);

#endif /* _LINUX_CALLOUT_H */
