/* SPDX-License-Identifier: GPL-2.0 */
/*
 * callout.h - the in-kernel API of the callout facility.
 *
 * A callout is a one-shot timer measured in ticks of the module's tick_ns,
 * kept on a per-CPU timing wheel (Varghese & Lauck) that an hrtimer advances.
 * Setting and cancelling cost O(1) whatever the number pending. Symbols are
 * exported GPL in the CALLOUT namespace: MODULE_IMPORT_NS(CALLOUT) before
 * 6.13, MODULE_IMPORT_NS("CALLOUT") from 6.13 (module/compat.h's CALLOUT_NS
 * picks the spelling).
 */
#ifndef _LINUX_CALLOUT_H
#define _LINUX_CALLOUT_H

#include <linux/types.h>
#include "tw.h"

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
