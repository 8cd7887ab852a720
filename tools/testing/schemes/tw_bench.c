// SPDX-License-Identifier: GPL-2.0
/*
 * tw_bench.c - the work of one scheme with n callouts outstanding, for
 * callgrind to count in instructions (bench-schemes.sh runs it and divides).
 *
 * Usage: valgrind --tool=callgrind --instr-atstart=no \
 *		tw_bench SCHEME N        measure, print "K T" and stats
 *        tw_bench -o SCHEME N       one slot: N entries due at one tick an
 *                                   hour away (at 1 ms a tick), then T
 *                                   advances of one round each, every one
 *                                   visiting their slot with nothing due;
 *                                   phase "tick" as below, print "T"
 *        tw_bench -l                the schemes linked in
 *
 * Workload: intervals uniform in [1, R], R = 2^20 ticks (simple: R is its
 * MaxInterval; lawn: one of 64 TTLs drawn once from [1, R], its intended
 * use), in the default geometry. Not instrumented, the set-up of N entries
 * in a steady state: the entries arrive spread evenly over R ticks, and
 * what expires goes back in, so they were started at different times (it
 * matters to lawn, whose queues would otherwise hold one expiry each). The
 * linear schemes cannot afford R ticks at large n: they get the N entries
 * at one instant, in the order that is cheapest for them (so a 1M-entry
 * ordered list takes seconds, not hours), then a short warm-up. Then two
 * phases, each ended by a callgrind dump:
 *
 *   1 "ops"   K times: remove a random pending entry, insert it again at a
 *             random interval (n stays constant); bench-schemes.sh reads the
 *             inclusive cost of tw_remove() and tw_insert()
 *   2 "tick"  T times: advance by one tick, reinsert what expired at random
 *             intervals; bench-schemes.sh reads the inclusive cost of
 *             tw_advance()
 *
 * K, T and the warm-up shrink for the linear schemes (tw_ops.linear:
 * ordered and bsd insert, list tick) at large n to keep a run to seconds;
 * the cost of an operation of theirs hardly varies anyway.
 */
#include <valgrind/callgrind.h>
#include "tw.h"

unsigned long tw_user_warnings;
unsigned long tw_user_alloc_bytes;

#define BENCH_RANGE	BIT_ULL(20)
#define BENCH_LAWN_TTLS	64

static u64 rng = 0x2545f4914f6cdd1dULL;
static u64 lawn_ttl[BENCH_LAWN_TTLS];

static u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static u64 range(const struct tw_ops *ops, const struct tw_geometry *g)
{
	return min_t(u64, tw_max_interval(ops, g), BENCH_RANGE);
}

static u64 interval(const struct tw_ops *ops, const struct tw_geometry *g)
{
	if (ops->id == TW_LAWN)
		return lawn_ttl[rnd() % BENCH_LAWN_TTLS];
	return 1 + rnd() % range(ops, g);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* @count, shrunk to about @visits element visits when each one walks @n. */
static u64 budget(bool linear, u64 n, u64 count, u64 visits, u64 least)
{
	if (!linear)
		return count;
	return max(least, min(count, visits / n));
}

/* One tick; what expired goes back in at random intervals. */
static void tick(struct tw_wheel *w, const struct tw_ops *ops)
{
	struct tw_entry *e, *tmp;
	LIST_HEAD(expired);

	tw_advance(w, w->now + 1, &expired, TW_UNBOUNDED);
	list_for_each_entry_safe(e, tmp, &expired, list)
		tw_insert(w, e, w->now + interval(ops, &w->geo));
}

/* Arrivals spread evenly over R ticks, with expired entries going back in. */
static int setup_spread(struct tw_wheel *w, struct tw_entry *e, u64 n)
{
	u64 r = range(w->ops, &w->geo), t, i = 0;
	int ret;

	for (t = 0; t < r; t++) {
		for (; i < n * (t + 1) / r; i++) {
			tw_entry_init(&e[i]);
			ret = tw_insert(w, &e[i], w->now + interval(w->ops, &w->geo));
			if (ret)
				return ret;
		}
		tick(w, w->ops);
	}
	return 0;
}

/* All at once, sorted: bsd searches from the head, ordered from the tail. */
static int setup_instant(struct tw_wheel *w, struct tw_entry *e, u64 n,
			 u64 warm)
{
	u64 *exp = calloc(n, sizeof(*exp)), i;
	int ret = 0;

	if (!exp)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		exp[i] = w->now + interval(w->ops, &w->geo);
	qsort(exp, n, sizeof(*exp), cmp_u64);
	for (i = 0; i < n && !ret; i++) {
		tw_entry_init(&e[i]);
		ret = tw_insert(w, &e[i],
				exp[w->ops->id == TW_BSD ? n - 1 - i : i]);
	}
	free(exp);
	for (i = 0; i < warm && !ret; i++)
		tick(w, w->ops);
	return ret;
}

static int bench(const struct tw_ops *ops, u64 n)
{
	struct tw_geometry geo = { 0 };
	bool linear = ops->linear;
	struct tw_stats before;
	struct tw_entry *e;
	struct tw_wheel w;
	u64 i, x, k, t, warm;
	int ret;

	tw_geometry_defaults(&geo);
	k = budget(ops->linear & TW_LINEAR_INSERT, n, 4096, 1 << 24, 16);
	t = budget(linear, n, 4096, 1 << 24, 16);
	warm = budget(linear, n, range(ops, &geo), 1 << 26, 16);
	for (i = 0; i < BENCH_LAWN_TTLS; i++)
		lawn_ttl[i] = 1 + rnd() % BENCH_RANGE;
	e = calloc(n, sizeof(*e));
	if (!e)
		return 1;
	ret = tw_init(&w, ops, &geo, 1ULL << 32);
	if (!ret)
		ret = linear ? setup_instant(&w, e, n, warm) :
			       setup_spread(&w, e, n);
	if (ret) {
		fprintf(stderr, "%s: set-up failed: %d\n", ops->name, ret);
		return 1;
	}

	CALLGRIND_START_INSTRUMENTATION;
	CALLGRIND_ZERO_STATS;
	for (i = 0; i < k; i++) {
		x = rnd() % n;
		tw_remove(&w, &e[x]);
		tw_insert(&w, &e[x], w.now + interval(ops, &geo));
	}
	CALLGRIND_DUMP_STATS_AT("ops");
	before = w.stats;
	for (i = 0; i < t; i++)
		tick(&w, ops);
	CALLGRIND_DUMP_STATS_AT("tick");
	CALLGRIND_STOP_INSTRUMENTATION;

	/* K T, then what the scheme counted per tick: examined, expired. */
	printf("%llu %llu %.2f %.2f\n", (unsigned long long)k,
	       (unsigned long long)t,
	       (double)(w.stats.examined - before.examined) / t,
	       (double)(w.stats.expired - before.expired) / t);
	if (tw_check(&w) || w.nr_pending != n) {
		fprintf(stderr, "%s: check failed after the benchmark\n",
			ops->name);
		return 1;
	}
	for (i = 0; i < n; i++)
		tw_remove(&w, &e[i]);
	tw_destroy(&w);
	free(e);
	return 0;
}

/* tw_bench -o: the rounds of one far slot (the hashed hint's case). */
static int bench_oneslot(const struct tw_ops *ops, u64 n)
{
	const u64 start = 1ULL << 32, far = start + 3600 * 1000, t = 64;
	struct tw_geometry geo = { 0 };
	struct tw_entry *e, *x, *tmp;
	u64 i, round, got = 0;
	struct tw_wheel w;
	LIST_HEAD(out);

	tw_geometry_defaults(&geo);
	round = 1ULL << geo.wheel_bits;
	e = calloc(n, sizeof(*e));
	if (!e || tw_init(&w, ops, &geo, start))
		return 1;
	for (i = 0; i < n; i++) {
		tw_entry_init(&e[i]);
		if (tw_insert(&w, &e[i], far))
			return 1;
	}
	/* Up to the first visit of their slot, then one round at a time. */
	tw_advance(&w, far - t * round - 1, &out, TW_UNBOUNDED);
	CALLGRIND_START_INSTRUMENTATION;
	CALLGRIND_ZERO_STATS;
	CALLGRIND_DUMP_STATS_AT("ops");
	for (i = t; i > 0; i--)
		tw_advance(&w, far - (i - 1) * round - 1, &out, TW_UNBOUNDED);
	CALLGRIND_DUMP_STATS_AT("tick");
	CALLGRIND_STOP_INSTRUMENTATION;
	tw_advance(&w, far, &out, TW_UNBOUNDED);
	list_for_each_entry_safe(x, tmp, &out, list)
		got++;
	printf("%llu\n", (unsigned long long)t);
	tw_destroy(&w);
	free(e);
	return got == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	int id;

	if (argc == 4 && !strcmp(argv[1], "-o") && tw_ops_by_name(argv[2]))
		return bench_oneslot(tw_ops_by_name(argv[2]),
				     strtoull(argv[3], NULL, 0));
	if (argc == 2 && !strcmp(argv[1], "-l")) {
		for (id = 1; id < TW_NR_SCHEMES; id++)
			printf("%s\n", tw_ops_by_id(id)->name);
		return 0;
	}
	if (argc != 3 || !tw_ops_by_name(argv[1]) || !strtoull(argv[2], NULL, 0)) {
		fprintf(stderr, "usage: %s SCHEME N | -l\n", argv[0]);
		return 2;
	}
	return bench(tw_ops_by_name(argv[1]), strtoull(argv[2], NULL, 0));
}
