/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - what callout.ko counts outside the base lock, and debugfs
 * (stats.c).
 */
#ifndef CALLOUT_STATS_H
#define CALLOUT_STATS_H

#include "core.h"

/* Counted where no base lock is held: this_cpu_inc() */
struct callout_op_counts {
	u64 reset;
	u64 timeout;
	u64 untimeout;
};
DECLARE_PER_CPU(struct callout_op_counts, callout_op_counts);

/*
 * Where an allocation for a caller can fail, each failure counted once
 * (debugfs alloc_failures): the caller sees -ENOMEM for every one.
 */
enum callout_alloc_site {
	CALLOUT_ALLOC_FILE,		/* open(): the file */
	CALLOUT_ALLOC_HANDLES,		/* SET: the handle table's part */
	CALLOUT_ALLOC_DUE_PAGE,		/* SET: a page of the due table */
	CALLOUT_ALLOC_DUE_INDEX,	/* SET: the due table's index */
	CALLOUT_ALLOC_CALLOUT,		/* SET: the user callout */
	CALLOUT_ALLOC_TIMEOUT,		/* TIMEOUT, timeout(): the callout */
	CALLOUT_ALLOC_NR
};

extern atomic_long_t callout_alloc_failures[CALLOUT_ALLOC_NR];

static inline void callout_alloc_failed(enum callout_alloc_site site)
{
	atomic_long_inc(&callout_alloc_failures[site]);
}

/* stats.c */
void callout_stats_sum(struct callout_cpu_stats *total);
void callout_debugfs_init(void);
void callout_debugfs_exit(void);

#endif /* CALLOUT_STATS_H */
