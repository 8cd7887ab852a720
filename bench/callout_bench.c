// SPDX-License-Identifier: GPL-2.0
/*
 * callout_bench.c - callout_bench.ko, the in-kernel benchmark:
 * /sys/kernel/debug/callout/bench while it is loaded.
 *
 * A module of its own, so that callout.ko carries no benchmark: it uses the
 * facility's API (namespace CALLOUT) and, for the schemes alone, the scheme
 * library, the loaded scheme with its geometry and callout_set_ns(), which
 * callout.ko exports in a namespace for this module (CALLOUT_TW,
 * module/callout_tw.h). scripts/bench.sh loads it after callout.ko.
 *
 * Costello & Varghese's Fig. 9 plots the cost of restarting one callout at a
 * random time farther in the future than the others against the number of
 * callouts outstanding. This file measures that in the running kernel, for
 * the timer schemes, for the facility's two interfaces and for the two timer
 * facilities a Linux programmer would use instead. Write one command, then
 * read back one line of key=value pairs:
 *
 *   echo 'wheel scheme=bsd n=10000 reps=2000' > .../callout/bench
 *   cat .../callout/bench
 *   test=wheel scheme=bsd n=10000 reps=400 pair_ns=... tick_ns=... ...
 *
 * Commands (n= callouts outstanding, reps= timed repetitions, rounded down
 * to whole batches of BENCH_BATCH_REPS, seed=):
 *
 *   wheel scheme=S   a private tw_wheel of scheme S, no ticking: n entries
 *                    at random ticks, then reps x (tw_remove + tw_insert of
 *                    one more entry farther than the others): pair_ns; then
 *                    ticks= single-tick advances with nothing due: tick_ns
 *   burst scheme=S   a private wheel with n entries due within 64 ticks, and
 *                    one tw_advance() over them: expire_ns per entry
 *   tick_oneslot scheme=S
 *                    a private wheel with n entries all due at one tick an
 *                    hour ahead (one slot of a hashed wheel, holding them
 *                    for later rounds), then single-tick advances across
 *                    one whole round of the wheel (1 << wheel_bits ticks),
 *                    so the slot is visited exactly once with none of them
 *                    due: tick_ns, the mean tick of the round; slot_ns, the
 *                    visit of that slot alone; other_tick_ns, the mean of
 *                    the other ticks; the fastest of BENCH_ONESLOT_ROUNDS
 *                    rounds each
 *   handle           callout_set() + callout_unset() on the loaded scheme
 *   hash             callout_timeout() + callout_untimeout(): the func/arg
 *                    hash, on the loaded scheme (pair_ns); and, in batches
 *                    that alternate with those at the same times (each
 *                    first in every other round), callout_set() +
 *                    callout_unset() of one callout on the same wheel
 *                    (handle_pair_ns), and the ratio of the two fastest
 *                    batches (ratio): the host's state, which can make
 *                    every batch of a whole test 1.8x slower, is the same
 *                    for both
 *   timer_list       mod_timer() + timer_delete(), n timer_lists pending
 *   hrtimer          hrtimer_start() + hrtimer_cancel(), n hrtimers pending
 *   fburst           n callouts of the facility due at one tick: from the
 *                    first callback to the last, expire_ns per callout
 *   sizes            the bytes of the structures a pending timer costs
 *   schemes          every scheme by name, those whose cost is linear in n
 *                    (tw_ops.linear), and the n and burst those are held to:
 *                    scripts/bench.sh reads it to plan its runs
 *   clock            what reading the time costs: ktime_get_ns() (what
 *                    callout_set() and hrtimer_start() pay once) against
 *                    jiffies (what mod_timer() reads): read_ns, jiffies_ns;
 *                    and one spin_lock_irqsave() + spin_unlock_irqrestore()
 *                    of a free lock, which every set and every unset of
 *                    each facility pays: lock_ns
 *
 * Every pair test keeps n of its own pending, all at random times in the same
 * range, and restarts one more at a random time beyond them, as the paper
 * did; the test runs on one CPU (migrate_disable()). Every timed loop runs
 * in batches of BENCH_BATCH_REPS (well under a host scheduler slice), each
 * one ktime_get_ns() interval; a figure is the mean of the fastest batch
 * (pair_ns), with the mean of all beside it (pair_mean_ns): on a shared
 * host a batch in which the vCPU lost its CPU is slower, never faster, so
 * the fastest batch is the cost itself. A
 * figure includes the loop and a table lookup of the random time (a few
 * ns). The schemes whose insert or tick is linear in n (tw_ops.linear:
 * list, ordered, bsd) take at most BENCH_LINEAR_MAX_N and fewer
 * repetitions, BENCH_LINEAR_BUDGET / n, so a run stays bounded; the line
 * says how many it did. fburst, whose equal times make each set of a linear
 * scheme walk them all, takes at most BENCH_LINEAR_BURST_N of them.
 *
 * Times: the wheels with a range of at most 1 << wheel_bits ticks (simple)
 * or of lawn_ttls distinct timeouts (lawn) hold their n at [1100, 2600)
 * ticks and restart at [2600, 4000); every other scheme, and every facility
 * test, at [2^19, 2^20) ticks and [2^20, 2^20 + 2^19), so a hashed wheel of
 * 4096 slots holds n / 4096 entries a slot from later rounds, the paper's
 * n/M. The facility tests refuse simple and lawn: their callouts would fire
 * while the test runs (simple) or need more distinct timeouts than lawn has.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/callout.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sort.h>
#include <linux/timer.h>
#include <linux/uaccess.h>

#include "callout_tw.h"
#include "compat.h"

MODULE_IMPORT_NS(CALLOUT_NS);
MODULE_IMPORT_NS(CALLOUT_TW_NS);

#define BENCH_MAX_N		2000000ULL	/* fits BENCH_IDX_BITS */
#define BENCH_IDX_BITS		21
#define BENCH_LINEAR_MAX_N	100000ULL
#define BENCH_LINEAR_BUDGET	4000000ULL	/* list steps per timed loop */
#define BENCH_LINEAR_BURST_N	10000ULL
#define BENCH_MIN_REPS		32ULL
#define BENCH_NR_TIMES		1024		/* random restart times, cycled */
#define BENCH_BURST_TICKS	64
#define BENCH_DEFAULT_REPS	10000
#define BENCH_DEFAULT_TICKS	1024
#define BENCH_RESULT_LEN	768
#define BENCH_BATCH_REPS	100
#define BENCH_ONESLOT_ROUNDS	3
#define BENCH_ONESLOT_DUE_S	3600ULL	/* tick_oneslot: due in an hour */

/* Tick ranges of the pending callouts, see the top of the file. */
#define BENCH_SHORT_LO		1100ULL
#define BENCH_SHORT_HI		2600ULL
#define BENCH_SHORT_END		4000ULL
#define BENCH_LONG_LO		BIT_ULL(19)
#define BENCH_LONG_HI		BIT_ULL(20)
#define BENCH_LONG_END		(BENCH_LONG_HI + BIT_ULL(19))

/**
 * struct bench_args - one command
 * @test:	the test's name
 * @ops:	scheme= (wheel, burst), else the loaded scheme
 * @loaded:	the scheme the facility runs on
 * @geo:	the facility's geometry, which the private wheels take too
 * @n:		callouts outstanding
 * @reps:	timed repetitions of the pair asked for
 * @ticks:	single-tick advances timed (wheel)
 * @rnd:	the random state, seeded by seed=
 * @lo:		first tick of the pending range
 * @hi:		first tick of the restart range, end of the pending one
 * @end:	end of the restart range
 * @times:	BENCH_NR_TIMES restart ticks in [@hi, @end)
 * @jtimes:	@times in jiffies, for timer_list
 * @keys:	@n pending ticks, each shifted left by BENCH_IDX_BITS and or-ed
 *		with its entry's index, in the order to insert them
 */
struct bench_args {
	const char *test;
	const struct tw_ops *ops;
	const struct tw_ops *loaded;
	struct tw_geometry geo;
	u64 n;
	u64 reps;
	u64 ticks;
	struct rnd_state rnd;
	u64 lo, hi, end;
	u64 times[BENCH_NR_TIMES];
	unsigned long jtimes[BENCH_NR_TIMES];
	u64 *keys;
};

static DEFINE_MUTEX(bench_mutex);
static char bench_result[BENCH_RESULT_LEN];	/* the last result, locked */

static bool bench_short(const struct tw_ops *ops)
{
	return ops->id == TW_SIMPLE || ops->id == TW_LAWN;
}

static u64 bench_tick_of(u64 key)
{
	return key >> BENCH_IDX_BITS;
}

static u32 bench_idx_of(u64 key)
{
	return key & ((1U << BENCH_IDX_BITS) - 1);
}

static u64 bench_rand(struct bench_args *a, u64 lo, u64 end)
{
	return lo + prandom_u32_state(&a->rnd) % (u32)(end - lo);
}

static int bench_cmp_up(const void *x, const void *y)
{
	u64 a = *(const u64 *)x, b = *(const u64 *)y;

	return a < b ? -1 : a > b;
}

static int bench_cmp_down(const void *x, const void *y)
{
	return bench_cmp_up(y, x);
}

/*
 * The pending ticks and the order to insert them in: random, except that
 * the sorted lists get the order that keeps the setup linear (ordered
 * searches from its tail: ascending; bsd from its head: descending).
 */
static int bench_make_keys(struct bench_args *a, u64 lo, u64 end)
{
	u64 i;

	a->keys = kvmalloc_array(a->n, sizeof(*a->keys), GFP_KERNEL);
	if (!a->keys)
		return -ENOMEM;
	for (i = 0; i < a->n; i++)
		a->keys[i] = bench_rand(a, lo, end) << BENCH_IDX_BITS | i;
	if (a->ops->id == TW_ORDERED)
		sort(a->keys, a->n, sizeof(*a->keys), bench_cmp_up, NULL);
	else if (a->ops->id == TW_BSD)
		sort(a->keys, a->n, sizeof(*a->keys), bench_cmp_down, NULL);
	return 0;
}

/* Fit reps to the scheme: a linear one does BENCH_LINEAR_BUDGET steps. */
static u64 bench_fit_reps(const struct bench_args *a, u64 reps)
{
	if (a->ops->linear && a->n)
		reps = min(reps, max(BENCH_MIN_REPS,
				     div64_u64(BENCH_LINEAR_BUDGET, a->n)));
	return reps;
}

static u64 bench_restart_tick(const struct bench_args *a, u64 r)
{
	return a->times[r % BENCH_NR_TIMES];
}

/* Print "key=x.y" of @total_ns / @count, in ns with one decimal. */
static int bench_ns(char *buf, size_t len, const char *key, u64 total_ns,
		    u64 count)
{
	u64 x10 = count ? div64_u64(total_ns * 10, count) : 0;

	return scnprintf(buf, len, " %s=%llu.%llu", key, div_u64(x10, 10),
			 x10 % 10);
}

static void bench_out(const char *fmt, ...) __printf(1, 2);

/* Append to the result line. */
static void bench_out(const char *fmt, ...)
{
	size_t used = strlen(bench_result);
	va_list args;

	va_start(args, fmt);
	vscnprintf(bench_result + used, sizeof(bench_result) - used, fmt,
		   args);
	va_end(args);
}

static void bench_out_ns(const char *key, u64 total_ns, u64 count)
{
	size_t used = strlen(bench_result);

	bench_ns(bench_result + used, sizeof(bench_result) - used, key,
		 total_ns, count);
}

/**
 * struct bench_timing - a timed loop in batches
 * @per:	repetitions per batch
 * @batches:	batches
 * @best:	ns of the fastest batch
 * @total:	ns of all batches
 * @start:	when the current batch started
 */
struct bench_timing {
	u64 per;
	u64 batches;
	u64 best;
	u64 total;
	u64 start;
};

/* Return: the repetitions the loop does, @reps rounded to whole batches. */
static u64 bench_timing_init(struct bench_timing *t, u64 reps)
{
	t->per = clamp_t(u64, reps, 1, BENCH_BATCH_REPS);
	t->batches = max_t(u64, div64_u64(reps, t->per), 1);
	t->best = U64_MAX;
	t->total = 0;
	return t->per * t->batches;
}

static void bench_batch_begin(struct bench_timing *t)
{
	t->start = ktime_get_ns();
}

/*
 * Between batches, untimed, a scheduling point: deferred work the pairs
 * queue runs as it would on a kernel whose tasks ever yield, instead of
 * waiting out the whole loop on a kernel without preemption.
 */
static void bench_batch_end(struct bench_timing *t)
{
	u64 ns = ktime_get_ns() - t->start;

	t->best = min(t->best, ns);
	t->total += ns;
	cond_resched();
}

/* Print @key= the fastest batch's mean and @mean_key= the mean of all. */
static void bench_out_timing(const char *key, const char *mean_key,
			     const struct bench_timing *t)
{
	bench_out_ns(key, t->best, t->per);
	bench_out_ns(mean_key, t->total, t->per * t->batches);
}

/*
 * The one call of tw_advance() in this file: every test advances its
 * private wheel through here.
 */
static u64 bench_advance(struct tw_wheel *w, u64 now, struct list_head *list)
{
	return tw_advance(w, now, list, TW_UNBOUNDED);
}

static void bench_head(struct bench_args *a, u64 reps)
{
	bench_out("test=%s scheme=%s n=%llu reps=%llu", a->test,
		  a->ops->name, a->n, reps);
}

/* wheel: the scheme alone, n pending, restart one farther; idle ticks. */
static int bench_wheel(struct bench_args *a)
{
	u64 reps = bench_fit_reps(a, a->reps), ticks = a->ticks;
	u64 i, b, r, start, setup_ns, examined;
	struct bench_timing pair, tick;
	struct tw_entry *entries, *extra;
	struct tw_wheel w;
	LIST_HEAD(list);
	int ret;

	if (a->ops->linear & TW_LINEAR_TICK)
		ticks = min(ticks, max(BENCH_MIN_REPS,
				       div64_u64(BENCH_LINEAR_BUDGET, a->n + 1)));
	ret = bench_make_keys(a, a->lo, a->hi);
	if (ret)
		return ret;
	ret = -ENOMEM;
	entries = kvmalloc_array(a->n + 1, sizeof(*entries), GFP_KERNEL);
	if (!entries)
		goto free_keys;
	ret = tw_init(&w, a->ops, &a->geo, 0);
	if (ret)
		goto free_entries;

	start = ktime_get_ns();
	for (i = 0; i < a->n; i++) {
		struct tw_entry *e = &entries[bench_idx_of(a->keys[i])];

		tw_entry_init(e);
		ret = tw_insert(&w, e, bench_tick_of(a->keys[i]));
		if (ret)
			goto drain;
		if (!(i % 1024))
			cond_resched();
	}
	setup_ns = ktime_get_ns() - start;

	extra = &entries[a->n];
	tw_entry_init(extra);
	ret = tw_insert(&w, extra, bench_restart_tick(a, 0));
	if (ret)
		goto drain;
	reps = bench_timing_init(&pair, reps);
	for (b = 0, r = 1; b < pair.batches; b++) {
		bench_batch_begin(&pair);
		for (i = 0; i < pair.per; i++, r++) {
			tw_remove(&w, extra);
			ret = tw_insert(&w, extra, bench_restart_tick(a, r));
			if (unlikely(ret))
				goto drain;
		}
		bench_batch_end(&pair);
	}
	tw_remove(&w, extra);

	examined = w.stats.examined;
	ticks = bench_timing_init(&tick, ticks);
	for (b = 0; b < tick.batches; b++) {
		bench_batch_begin(&tick);
		for (i = 0; i < tick.per; i++)
			bench_advance(&w, w.now + 1, &list);
		bench_batch_end(&tick);
	}
	examined = w.stats.examined - examined;
	if (!list_empty(&list)) {
		pr_err("%s collected entries that were not due\n",
		       a->ops->name);
		ret = -EIO;
		goto drain;
	}
	ret = tw_check(&w);

	bench_head(a, reps);
	bench_out_timing("pair_ns", "pair_mean_ns", &pair);
	bench_out_timing("tick_ns", "tick_mean_ns", &tick);
	bench_out(" ticks=%llu", ticks);
	bench_out_ns("examined_per_tick", examined, ticks);
	bench_out_ns("setup_ns", setup_ns, a->n);
	bench_out(" pending=%llu", w.nr_pending);
drain:
	tw_drain(&w, &list, TW_UNBOUNDED);
	tw_destroy(&w);
free_entries:
	kvfree(entries);
free_keys:
	kvfree(a->keys);
	return ret;
}

/* burst: n entries due within BENCH_BURST_TICKS, one advance over them. */
static int bench_burst(struct bench_args *a)
{
	u64 i, start, expire_ns, got = 0;
	struct tw_entry *entries, *e;
	struct tw_wheel w;
	LIST_HEAD(list);
	int ret;

	ret = bench_make_keys(a, 1, BENCH_BURST_TICKS + 1);
	if (ret)
		return ret;
	ret = -ENOMEM;
	entries = kvmalloc_array(a->n, sizeof(*entries), GFP_KERNEL);
	if (!entries)
		goto free_keys;
	ret = tw_init(&w, a->ops, &a->geo, 0);
	if (ret)
		goto free_entries;
	for (i = 0; i < a->n; i++) {
		e = &entries[bench_idx_of(a->keys[i])];
		tw_entry_init(e);
		ret = tw_insert(&w, e, bench_tick_of(a->keys[i]));
		if (ret)
			goto drain;
		if (!(i % 1024))
			cond_resched();
	}
	start = ktime_get_ns();
	bench_advance(&w, BENCH_BURST_TICKS, &list);
	expire_ns = ktime_get_ns() - start;
	list_for_each_entry(e, &list, list)
		got++;
	if (got != a->n) {
		pr_err("%s expired %llu of %llu\n", a->ops->name, got,
		       a->n);
		ret = -EIO;
		goto drain;
	}
	bench_head(a, 1);
	bench_out_ns("expire_ns", expire_ns, a->n);
	bench_out(" expired=%llu burst_ticks=%u", got, BENCH_BURST_TICKS);
drain:
	INIT_LIST_HEAD(&list);	/* the entries are dropped with the array */
	tw_drain(&w, &list, TW_UNBOUNDED);
	tw_destroy(&w);
free_entries:
	kvfree(entries);
free_keys:
	kvfree(a->keys);
	return ret;
}

/*
 * tick_oneslot: n entries due at one tick an hour ahead, which a hashed
 * wheel files in one slot for a later round; then one round of the wheel,
 * one tick at a time, nothing due. Each tick of the round visits its slot
 * once, so the round holds exactly one visit of the full slot: timed alone
 * (one clock pair around one tick) and apart from the ticks before and
 * after it (one clock pair around each run of them, not one a tick, as a
 * clock read under TCG costs more than an idle tick). A slot that knows
 * its earliest expiry makes that visit O(1); without it the visit is O(n).
 */
static int bench_tick_oneslot(struct bench_args *a)
{
	u64 round = BIT_ULL(a->geo.wheel_bits), due, slot_tick, i, t0, t1, t2;
	u64 best_slot = U64_MAX, best_other = U64_MAX, best_total = U64_MAX;
	u64 examined, visit_examined = 0;
	struct tw_entry *entries;
	struct tw_wheel w;
	LIST_HEAD(list);
	unsigned int r;
	int ret;

	if (!a->n)
		return -EINVAL;
	entries = kvmalloc_array(a->n, sizeof(*entries), GFP_KERNEL);
	if (!entries)
		return -ENOMEM;
	ret = tw_init(&w, a->ops, &a->geo, 0);
	if (ret)
		goto free_entries;
	due = div64_u64(BENCH_ONESLOT_DUE_S * NSEC_PER_SEC, callout_tick_ns());
	for (i = 0; i < a->n; i++) {
		tw_entry_init(&entries[i]);
		ret = tw_insert(&w, &entries[i], due);
		if (ret)
			goto drain;
		if (!(i % 1024))
			cond_resched();
	}
	for (r = 0; r < BENCH_ONESLOT_ROUNDS; r++) {
		/* The tick of this round that visits the slot of @due. */
		slot_tick = w.now + 1 + ((due - (w.now + 1)) & (round - 1));
		examined = w.stats.examined;
		t0 = ktime_get_ns();
		while (w.now + 1 < slot_tick)
			bench_advance(&w, w.now + 1, &list);
		t1 = ktime_get_ns();
		bench_advance(&w, w.now + 1, &list);
		t2 = ktime_get_ns();
		visit_examined = w.stats.examined - examined;
		best_slot = min(best_slot, t2 - t1);
		t2 = t2 - t1;
		t1 = t1 - t0;
		t0 = ktime_get_ns();
		while (w.now < slot_tick + round - 1)
			bench_advance(&w, w.now + 1, &list);
		t1 += ktime_get_ns() - t0;
		best_other = min(best_other, t1);
		best_total = min(best_total, t1 + t2);
		cond_resched();
	}
	if (!list_empty(&list) || w.now >= due) {
		pr_err("%s collected entries that were not due\n",
		       a->ops->name);
		ret = -EIO;
		goto drain;
	}
	ret = tw_check(&w);
	bench_head(a, BENCH_ONESLOT_ROUNDS);
	bench_out_ns("tick_ns", best_total, round);
	bench_out_ns("slot_ns", best_slot, 1);
	bench_out_ns("other_tick_ns", best_other, round - 1);
	bench_out(" round_ticks=%llu slot_visits=1 slot_examined=%llu due_tick=%llu",
		  round, visit_examined, due);
drain:
	INIT_LIST_HEAD(&list);	/* the entries are dropped with the array */
	tw_drain(&w, &list, TW_UNBOUNDED);
	tw_destroy(&w);
free_entries:
	kvfree(entries);
	return ret;
}

static void bench_nop(void *arg)
{
}

/* The facility's tests need a scheme that holds the long range. */
static int bench_facility_keys(struct bench_args *a)
{
	if (bench_short(a->loaded)) {
		pr_err("%s needs a loaded scheme other than simple and lawn\n",
		       a->test);
		return -EOPNOTSUPP;
	}
	return bench_make_keys(a, a->lo, a->hi);
}

/* handle: callout_set() + callout_unset() through the loaded scheme. */
static int bench_handle(struct bench_args *a)
{
	u64 reps = bench_fit_reps(a, a->reps), i, b, r, start, setup_ns;
	struct bench_timing pair;
	struct callout *cs, *extra;
	int ret;

	ret = bench_facility_keys(a);
	if (ret)
		return ret;
	ret = -ENOMEM;
	cs = kvmalloc_array(a->n + 1, sizeof(*cs), GFP_KERNEL);
	if (!cs)
		goto free_keys;
	for (i = 0; i <= a->n; i++)
		callout_init(&cs[i]);

	start = ktime_get_ns();
	for (i = 0; i < a->n; i++) {
		ret = callout_set(&cs[bench_idx_of(a->keys[i])],
				  bench_tick_of(a->keys[i]), bench_nop, NULL);
		if (ret < 0)
			goto unset;
		if (!(i % 1024))
			cond_resched();
	}
	setup_ns = ktime_get_ns() - start;

	extra = &cs[a->n];
	reps = bench_timing_init(&pair, reps);
	for (b = 0, r = 0; b < pair.batches; b++) {
		bench_batch_begin(&pair);
		for (i = 0; i < pair.per; i++, r++) {
			ret = callout_set(extra, bench_restart_tick(a, r),
					  bench_nop, NULL);
			if (unlikely(ret < 0))
				goto unset;
			callout_unset(extra);
		}
		bench_batch_end(&pair);
	}
	ret = 0;
	bench_head(a, reps);
	bench_out_timing("pair_ns", "pair_mean_ns", &pair);
	bench_out_ns("setup_ns", setup_ns, a->n);
unset:
	for (i = 0; i <= a->n; i++) {
		callout_unset_sync(&cs[i]);
		if (!(i % 1024))
			cond_resched();
	}
	kvfree(cs);
free_keys:
	kvfree(a->keys);
	return ret;
}

/* Argument of the i-th callout of the hash test: its key with bench_nop. */
static void *bench_hash_arg(u64 i)
{
	return (void *)(uintptr_t)(i + 1);
}

/* Print "key=x.yy", @x / @y with two decimals. */
static void bench_out_ratio(const char *key, u64 x, u64 y)
{
	u64 x100 = y ? div64_u64(x * 100, y) : 0;

	bench_out(" %s=%llu.%02llu", key, div_u64(x100, 100), x100 % 100);
}

/* One batch of the hash test's timeout() + untimeout(), from time @r. */
static int bench_hash_batch(struct bench_args *a, struct bench_timing *t,
			    u64 r)
{
	u64 i;
	int ret;

	bench_batch_begin(t);
	for (i = 0; i < t->per; i++) {
		ret = callout_timeout(bench_nop, bench_hash_arg(a->n),
				      bench_restart_tick(a, r + i));
		if (unlikely(ret))
			return ret;
		callout_untimeout(bench_nop, bench_hash_arg(a->n));
	}
	bench_batch_end(t);
	return 0;
}

/* One batch of the hash test's callout_set() + callout_unset() of @c. */
static int bench_handle_batch(struct bench_args *a, struct bench_timing *t,
			      struct callout *c, u64 r)
{
	u64 i;
	int ret;

	bench_batch_begin(t);
	for (i = 0; i < t->per; i++) {
		ret = callout_set(c, bench_restart_tick(a, r + i), bench_nop,
				  NULL);
		if (unlikely(ret < 0))
			return ret;
		callout_unset(c);
	}
	bench_batch_end(t);
	return 0;
}

/*
 * hash: callout_timeout() + callout_untimeout() by func/arg, and the handle
 * pair in batches between (see the top of the file).
 */
static int bench_hash(struct bench_args *a)
{
	u64 reps = bench_fit_reps(a, a->reps), i, b, r, start, setup_ns;
	u64 armed = 0, missing = 0;
	struct bench_timing pair, handle;
	struct callout c;
	int ret;

	ret = bench_facility_keys(a);
	if (ret)
		return ret;
	callout_init(&c);
	start = ktime_get_ns();
	for (armed = 0; armed < a->n; armed++) {
		ret = callout_timeout(bench_nop,
				      bench_hash_arg(bench_idx_of(a->keys[armed])),
				      bench_tick_of(a->keys[armed]));
		if (ret)
			goto untimeout;
		if (!(armed % 1024))
			cond_resched();
	}
	setup_ns = ktime_get_ns() - start;

	reps = bench_timing_init(&pair, reps);
	bench_timing_init(&handle, reps);
	/*
	 * The same times, so that only the interface differs; and each goes
	 * first in every other round, as the first brings the wheel's slots
	 * at those times into the caches (and QEMU's TLB) for the second.
	 */
	for (b = 0, r = 0; b < pair.batches; b++, r += pair.per) {
		if (b & 1)
			ret = bench_handle_batch(a, &handle, &c, r);
		if (!ret)
			ret = bench_hash_batch(a, &pair, r);
		if (!ret && !(b & 1))
			ret = bench_handle_batch(a, &handle, &c, r);
		if (unlikely(ret))
			goto untimeout;
	}
	bench_head(a, reps);
	bench_out_timing("pair_ns", "pair_mean_ns", &pair);
	bench_out_timing("handle_pair_ns", "handle_pair_mean_ns", &handle);
	bench_out_ratio("ratio", pair.best, handle.best);
	bench_out_ns("setup_ns", setup_ns, a->n);
untimeout:
	callout_unset_sync(&c);
	for (i = 0; i < armed; i++) {
		if (callout_untimeout(bench_nop,
				      bench_hash_arg(bench_idx_of(a->keys[i]))) != 1)
			missing++;
		if (!(i % 1024))
			cond_resched();
	}
	if (missing) {
		pr_err("hash: %llu timeouts were not pending\n", missing);
		ret = ret ?: -EIO;
	}
	kvfree(a->keys);
	return ret;
}

/* A peer's timeout for @tick ticks of the facility, in ns. */
static u64 bench_tick_ns(u64 tick)
{
	return tick * callout_tick_ns();
}

static void bench_timer_fn(struct timer_list *t)
{
}

/* timer_list: mod_timer() + timer_delete(), n timer_lists pending. */
static int bench_timer_list(struct bench_args *a)
{
	u64 reps = a->reps, i, b, r, start, setup_ns;
	struct timer_list *ts, *extra;
	struct bench_timing pair;
	int ret;

	ret = bench_make_keys(a, a->lo, a->hi);
	if (ret)
		return ret;
	ret = -ENOMEM;
	ts = kvmalloc_array(a->n + 1, sizeof(*ts), GFP_KERNEL);
	if (!ts)
		goto free_keys;
	for (i = 0; i <= a->n; i++)
		timer_setup(&ts[i], bench_timer_fn, 0);
	for (i = 0; i < BENCH_NR_TIMES; i++)
		a->jtimes[i] = nsecs_to_jiffies(bench_tick_ns(a->times[i]));

	start = ktime_get_ns();
	for (i = 0; i < a->n; i++) {
		mod_timer(&ts[bench_idx_of(a->keys[i])], jiffies +
			  nsecs_to_jiffies(bench_tick_ns(bench_tick_of(a->keys[i]))));
		if (!(i % 1024))
			cond_resched();
	}
	setup_ns = ktime_get_ns() - start;

	extra = &ts[a->n];
	reps = bench_timing_init(&pair, reps);
	for (b = 0, r = 0; b < pair.batches; b++) {
		bench_batch_begin(&pair);
		for (i = 0; i < pair.per; i++, r++) {
			mod_timer(extra, jiffies + a->jtimes[r % BENCH_NR_TIMES]);
			timer_delete(extra);
		}
		bench_batch_end(&pair);
	}
	ret = 0;
	bench_out("test=%s scheme=linux n=%llu reps=%llu", a->test, a->n,
		  reps);
	bench_out_timing("pair_ns", "pair_mean_ns", &pair);
	bench_out_ns("setup_ns", setup_ns, a->n);
	for (i = 0; i <= a->n; i++) {
		timer_delete_sync(&ts[i]);
		if (!(i % 1024))
			cond_resched();
	}
	kvfree(ts);
free_keys:
	kvfree(a->keys);
	return ret;
}

static enum hrtimer_restart bench_hrtimer_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

/* hrtimer: hrtimer_start() + hrtimer_cancel(), n hrtimers pending. */
static int bench_hrtimer(struct bench_args *a)
{
	u64 reps = a->reps, i, b, r, start, setup_ns;
	struct hrtimer *hs, *extra;
	struct bench_timing pair;
	int ret;

	ret = bench_make_keys(a, a->lo, a->hi);
	if (ret)
		return ret;
	ret = -ENOMEM;
	hs = kvmalloc_array(a->n + 1, sizeof(*hs), GFP_KERNEL);
	if (!hs)
		goto free_keys;
	for (i = 0; i <= a->n; i++) {
		hrtimer_setup(&hs[i], bench_hrtimer_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL);
	}

	start = ktime_get_ns();
	for (i = 0; i < a->n; i++) {
		hrtimer_start(&hs[bench_idx_of(a->keys[i])],
			      ns_to_ktime(bench_tick_ns(bench_tick_of(a->keys[i]))),
			      HRTIMER_MODE_REL);
		if (!(i % 1024))
			cond_resched();
	}
	setup_ns = ktime_get_ns() - start;

	extra = &hs[a->n];
	reps = bench_timing_init(&pair, reps);
	for (b = 0, r = 0; b < pair.batches; b++) {
		bench_batch_begin(&pair);
		for (i = 0; i < pair.per; i++, r++) {
			hrtimer_start(extra,
				      ns_to_ktime(bench_tick_ns(bench_restart_tick(a, r))),
				      HRTIMER_MODE_REL);
			hrtimer_cancel(extra);
		}
		bench_batch_end(&pair);
	}
	ret = 0;
	bench_out("test=%s scheme=linux n=%llu reps=%llu", a->test, a->n,
		  reps);
	bench_out_timing("pair_ns", "pair_mean_ns", &pair);
	bench_out_ns("setup_ns", setup_ns, a->n);
	for (i = 0; i <= a->n; i++) {
		hrtimer_cancel(&hs[i]);
		if (!(i % 1024))
			cond_resched();
	}
	kvfree(hs);
free_keys:
	kvfree(a->keys);
	return ret;
}

/**
 * struct bench_fburst - what the callbacks of fburst record
 * @left:	callbacks still to run
 * @first_ns:	when the first ran
 * @last_ns:	when the last ran
 * @done:	completed by the last
 */
struct bench_fburst {
	atomic64_t left;
	atomic64_t first_ns;
	u64 last_ns;
	struct completion done;
};

static void bench_fburst_fn(void *arg)
{
	struct bench_fburst *b = arg;
	u64 now = ktime_get_ns();

	atomic64_cmpxchg(&b->first_ns, 0, now);
	if (atomic64_dec_and_test(&b->left)) {
		b->last_ns = now;
		complete(&b->done);
	}
}

/*
 * fburst: n callouts of the facility due at the same tick, far enough
 * ahead that all are set first (~10 us each under TCG, counted generously).
 */
static int bench_fburst(struct bench_args *a)
{
	struct bench_fburst b;
	u64 i, due_ns, set_end;
	struct callout *cs;
	int ret = 0;

	if (!a->n)
		return -EINVAL;
	if (a->loaded->linear && a->n > BENCH_LINEAR_BURST_N)
		return -E2BIG;	/* equal times: each set walks them all */
	cs = kvmalloc_array(a->n, sizeof(*cs), GFP_KERNEL);
	if (!cs)
		return -ENOMEM;
	atomic64_set(&b.left, a->n);
	atomic64_set(&b.first_ns, 0);
	init_completion(&b.done);
	due_ns = ktime_get_ns() + 100 * NSEC_PER_MSEC + a->n * 10 * NSEC_PER_USEC;
	for (i = 0; i < a->n; i++) {
		callout_init(&cs[i]);
		ret = callout_set_ns(&cs[i], due_ns, bench_fburst_fn, &b);
		if (ret < 0)
			goto unset;
		if (!(i % 1024))
			cond_resched();
	}
	set_end = ktime_get_ns();
	if (!wait_for_completion_timeout(&b.done, 120 * HZ)) {
		ret = -ETIMEDOUT;
		goto unset;
	}
	bench_head(a, 1);
	bench_out_ns("expire_ns", b.last_ns - atomic64_read(&b.first_ns),
		     a->n);
	bench_out(" first_late_ns=%lld set_before_due=%d",
		  (s64)(atomic64_read(&b.first_ns) - due_ns), set_end < due_ns);
	ret = 0;
unset:
	while (i--) {
		callout_unset_sync(&cs[i]);
		if (!(i % 1024))
			cond_resched();
	}
	kvfree(cs);
	return ret;
}

static int bench_sizes(struct bench_args *a)
{
	bench_out("test=sizes scheme=%s tw_entry=%zu callout=%zu timer_list=%zu hrtimer=%zu",
		  a->loaded->name, sizeof(struct tw_entry),
		  sizeof(struct callout), sizeof(struct timer_list),
		  sizeof(struct hrtimer));
	return 0;
}

/* schemes: what bench.sh plans its runs by, from the schemes themselves. */
static int bench_schemes(struct bench_args *a)
{
	const struct tw_ops *ops;
	const char *sep = "";
	int id;

	bench_out("test=schemes scheme=%s n=0 reps=0", a->loaded->name);
	bench_out(" linear_max_n=%llu linear_burst_n=%llu schemes=",
		  BENCH_LINEAR_MAX_N, BENCH_LINEAR_BURST_N);
	for (id = 1; id < TW_NR_SCHEMES; id++)
		bench_out("%s%s", id > 1 ? "," : "", tw_ops_by_id(id)->name);
	bench_out(" linear=");
	for (id = 1; id < TW_NR_SCHEMES; id++) {
		ops = tw_ops_by_id(id);
		if (ops->linear) {
			bench_out("%s%s", sep, ops->name);
			sep = ",";
		}
	}
	return 0;
}

/*
 * clock: the cost of one CLOCK_MONOTONIC read on this machine's clocksource
 * (an emulated HPET under QEMU TCG costs microseconds; a TSC tens of ns),
 * the one cost callout_set() has that mod_timer() has not.
 */
static int bench_clock(struct bench_args *a)
{
	static DEFINE_SPINLOCK(lock);
	struct bench_timing clock, jif, locked;
	u64 b, i, reps = bench_timing_init(&clock, a->reps);
	unsigned long flags;

	bench_timing_init(&jif, a->reps);
	bench_timing_init(&locked, a->reps);
	for (b = 0; b < clock.batches; b++) {
		bench_batch_begin(&clock);
		for (i = 0; i < clock.per; i++)
			ktime_get_ns();
		bench_batch_end(&clock);
		bench_batch_begin(&jif);
		for (i = 0; i < jif.per; i++)
			READ_ONCE(jiffies);
		bench_batch_end(&jif);
		bench_batch_begin(&locked);
		for (i = 0; i < locked.per; i++) {
			spin_lock_irqsave(&lock, flags);
			spin_unlock_irqrestore(&lock, flags);
		}
		bench_batch_end(&locked);
	}
	bench_out("test=clock scheme=linux n=0 reps=%llu", reps);
	bench_out_timing("read_ns", "read_mean_ns", &clock);
	bench_out_timing("jiffies_ns", "jiffies_mean_ns", &jif);
	bench_out_timing("lock_ns", "lock_mean_ns", &locked);
	return 0;
}

static const struct bench_test {
	const char *name;
	int (*run)(struct bench_args *a);
	bool scheme;		/* takes scheme= */
	bool callout;		/* runs on a callout scheme (not a peer) */
} bench_tests[] = {
	{ "wheel", bench_wheel, true, true },
	{ "burst", bench_burst, true, true },
	{ "tick_oneslot", bench_tick_oneslot, true, true },
	{ "handle", bench_handle, false, true },
	{ "hash", bench_hash, false, true },
	{ "timer_list", bench_timer_list, false, false },
	{ "hrtimer", bench_hrtimer, false, false },
	{ "fburst", bench_fburst, false, true },
	{ "sizes", bench_sizes, false, false },
	{ "clock", bench_clock, false, false },
	{ "schemes", bench_schemes, false, false },
};

static int bench_parse(char *cmd, struct bench_args *a,
		       const struct bench_test **test)
{
	const struct bench_test *t = NULL;
	char *tok, *val;
	u64 seed = 1;
	unsigned int i;
	int ret;

	tok = strsep(&cmd, " \t\n");
	for (i = 0; tok && i < ARRAY_SIZE(bench_tests); i++)
		if (!strcmp(tok, bench_tests[i].name))
			t = &bench_tests[i];
	if (!t)
		return -EINVAL;
	a->test = t->name;
	a->loaded = callout_loaded_scheme(&a->geo);
	a->ops = a->loaded;
	a->n = 1000;
	a->reps = BENCH_DEFAULT_REPS;
	a->ticks = BENCH_DEFAULT_TICKS;
	while ((tok = strsep(&cmd, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "scheme") && t->scheme) {
			a->ops = tw_ops_by_name(val);
			ret = a->ops ? 0 : -EINVAL;
		} else if (!strcmp(tok, "n")) {
			ret = kstrtou64(val, 0, &a->n);
		} else if (!strcmp(tok, "reps")) {
			ret = kstrtou64(val, 0, &a->reps);
		} else if (!strcmp(tok, "ticks")) {
			ret = kstrtou64(val, 0, &a->ticks);
		} else if (!strcmp(tok, "seed")) {
			ret = kstrtou64(val, 0, &seed);
		} else {
			ret = -EINVAL;
		}
		if (ret)
			return ret;
	}
	if (a->n > BENCH_MAX_N || !a->reps)
		return -EINVAL;
	if (t->callout && a->ops->linear && a->n > BENCH_LINEAR_MAX_N)
		return -E2BIG;
	/* A peer's pending times do not depend on the loaded scheme. */
	if (!t->callout)
		a->ops = tw_ops_by_name("hashed");
	prandom_seed_state(&a->rnd, seed);
	*test = t;
	return 0;
}

static void bench_ranges(struct bench_args *a)
{
	unsigned int i;

	if (bench_short(a->ops)) {
		a->lo = BENCH_SHORT_LO;
		a->hi = BENCH_SHORT_HI;
		a->end = BENCH_SHORT_END;
	} else {
		a->lo = BENCH_LONG_LO;
		a->hi = BENCH_LONG_HI;
		a->end = BENCH_LONG_END;
	}
	for (i = 0; i < BENCH_NR_TIMES; i++)
		a->times[i] = bench_rand(a, a->hi, a->end);
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	const struct bench_test *test;
	struct bench_args *a;
	char cmd[128];
	int ret;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	ret = bench_parse(cmd, a, &test);
	if (ret)
		goto free;
	bench_ranges(a);

	ret = mutex_lock_interruptible(&bench_mutex);
	if (ret)
		goto free;
	bench_result[0] = '\0';
	migrate_disable();
	ret = test->run(a);
	migrate_enable();
	if (ret)
		bench_result[0] = '\0';
	else
		bench_out("\n");
	mutex_unlock(&bench_mutex);
free:
	kfree(a);
	return ret ? ret : count;
}

static ssize_t bench_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&bench_mutex);
	ret = simple_read_from_buffer(ubuf, count, ppos, bench_result,
				      strlen(bench_result));
	mutex_unlock(&bench_mutex);
	return ret;
}

static const struct file_operations bench_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= bench_read,
	.write	= bench_write,
	.llseek	= default_llseek,
};

static struct dentry *bench_file;

/* The file goes into callout.ko's debugfs directory, which outlives it. */
static int __init bench_init(void)
{
	struct dentry *dir = debugfs_lookup("callout", NULL);

	if (IS_ERR_OR_NULL(dir)) {
		pr_err("no /sys/kernel/debug/callout: debugfs is not there\n");
		return -ENOENT;
	}
	bench_file = debugfs_create_file("bench", 0600, dir, NULL, &bench_fops);
	dput(dir);
	return 0;
}

static void __exit bench_exit(void)
{
	debugfs_remove(bench_file);
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_DESCRIPTION("The in-kernel benchmark of callout, its schemes and its peers");
MODULE_AUTHOR("The callout developers");
MODULE_LICENSE("GPL");
