/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tw_diff.h - the randomized differential test of one timer scheme against
 * a sorted reference, shared by tw_test (seeded) and tw_fuzz (libFuzzer).
 */
#ifndef CALLOUT_TW_DIFF_H
#define CALLOUT_TW_DIFF_H

#include "tw.h"

/**
 * struct tw_diff_src - where the random choices come from
 * @state:	splitmix64 state, when @data is NULL
 * @data:	fuzzer input, consumed 8 bytes (or what is left) per choice;
 *		zeros once it runs out
 * @len:	bytes in @data
 * @pos:	bytes consumed
 */
struct tw_diff_src {
	u64 state;
	const u8 *data;
	size_t len;
	size_t pos;
};

/**
 * struct tw_diff_stats - what one run did
 * @ops:	operations performed
 * @inserted:	inserts accepted
 * @refused:	inserts refused as the scheme's limits require
 *		(-ERANGE from simple, -ENOSPC from lawn)
 * @removed:	removes of pending entries
 * @idle_removes: removes of entries that were not pending
 * @advances:	advances that moved time
 * @expired:	entries collected by advances and drains
 * @checks:	tw_check() calls
 * @drains:	tw_drain() calls
 * @stopped:	tw_advance() and tw_drain() calls that stopped partway
 * @interleaved: operations done while a pass was partway
 * @restarts:	fresh wheels started lower after reaching the ceiling
 * @max_pending: most entries pending at once
 */
struct tw_diff_stats {
	u64 ops;
	u64 inserted;
	u64 refused;
	u64 removed;
	u64 idle_removes;
	u64 advances;
	u64 expired;
	u64 checks;
	u64 drains;
	u64 stopped;
	u64 interleaved;
	u64 restarts;
	u64 max_pending;
};

/**
 * struct tw_diff - one run
 * @ops:	the scheme under test
 * @geo:	its geometry
 * @start:	w->now at init
 * @nr_ops:	operations to perform (fuzzing: until the input runs out)
 * @pool:	entries to choose from (how many can be pending at once)
 * @dense:	advance by 1 to 3 ticks only, so entries pile up to @pool
 * @budget:	0: every advance unbounded; else most advances and drains
 *		get a random budget of 1..@budget (tw.h, "Budgets"), and a
 *		pass that stops is left partway for other operations, or
 *		driven to its end
 * @src:	the random choices
 * @stats:	filled in by the run
 * @why:	the first mismatch, when the run fails
 */
struct tw_diff {
	const struct tw_ops *ops;
	struct tw_geometry geo;
	u64 start;
	u64 nr_ops;
	u32 pool;
	bool dense;
	u32 budget;
	struct tw_diff_src *src;
	struct tw_diff_stats stats;
	char why[512];
};

u64 tw_diff_rand(struct tw_diff_src *src);
bool tw_diff_src_done(const struct tw_diff_src *src);

/* Run @d; 0 if the scheme matched the reference throughout, else -1. */
int tw_diff_run(struct tw_diff *d);

#endif /* CALLOUT_TW_DIFF_H */
