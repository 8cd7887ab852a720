// SPDX-License-Identifier: GPL-2.0
/*
 * tw_test.c - the user-space tests of every timer scheme, in TAP.
 *
 * 1. Unit tests, one table run over every scheme: the contract of tw.h
 *    case by case (exact expiry tick, removal, the past, limits, drain,
 *    tw_next(), the ends of the 32- and 64-bit ranges).
 * 2. The randomized differential test (tw_diff.c) of every scheme against
 *    a sorted reference: the same seeded sequence for each scheme, in the
 *    default geometry and in a small one that makes the wheels wrap often
 *    and lawn run out of queues.
 *
 * Usage: tw_test [-s SEED] [-n OPS] [-p POOL] [-S SCHEME] [-u] [-d]
 *   -s, TW_SEED   the seed (default: from the clock; always printed)
 *   -n, TW_OPS    differential operations per scheme, default geometry
 *                 (default 1000000; the small geometry gets a quarter)
 *   -p, TW_POOL   entries per differential run (default 1024)
 *   -S            only this scheme (by name)
 *   -u / -d       only the unit tests / only the differential test
 */
#include <getopt.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>
#include "tw_diff.h"

unsigned long tw_user_warnings;
unsigned long tw_user_alloc_bytes;

/* The schemes' defaults: tw_geometry_defaults() fills it in main(). */
static struct tw_geometry geo_default;
/* Small: simple/hashed wrap every 16 ticks, lawn has 8 queues. */
static const struct tw_geometry geo_small = {
	.wheel_bits = 4,
	.levels = 8,
	.level_bits = 8,
	.lawn_ttls = 8,
};

static unsigned int tap_count, tap_failed;
static char tap_why[1024];

__printf(2, 3)
static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!ok) {
		tap_failed++;
		printf("# %s\n", tap_why);
	}
	printf("%sok %u - ", ok ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	tap_why[0] = 0;
}

#define EXPECT(cond, fmt, ...) do {					\
	if (!(cond)) {							\
		snprintf(tap_why, sizeof(tap_why), "%s:%d: %s: " fmt,	\
			 __FILE__, __LINE__, #cond, ##__VA_ARGS__);	\
		return false;						\
	}								\
} while (0)

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Advance to @now; the number collected, and all of them must be idle. */
static u64 advance_count(struct tw_wheel *w, u64 now)
{
	struct tw_entry *e;
	LIST_HEAD(out);
	u64 n = 0;

	tw_advance(w, now, &out, TW_UNBOUNDED);
	list_for_each_entry(e, &out, list) {
		if (tw_pending(e) || e->expires > now)
			return U64_MAX;
		n++;
	}
	return n;
}

/* A fresh wheel at @now with the default geometry. */
static bool setup(struct tw_wheel *w, const struct tw_ops *ops, u64 now)
{
	int ret = tw_init(w, ops, &geo_default, now);

	EXPECT(!ret, "tw_init() returned %d", ret);
	EXPECT(!tw_check(w), "check of an empty wheel");
	return true;
}

static bool t_empty(const struct tw_ops *ops)
{
	struct tw_wheel w;

	if (!setup(&w, ops, 0))
		return false;
	EXPECT(tw_next(&w) == TW_NEVER, "next %llu", (unsigned long long)tw_next(&w));
	EXPECT(advance_count(&w, 1) == 0, "");
	EXPECT(advance_count(&w, 1ULL << 40) == 0, "");
	EXPECT(w.now == 1ULL << 40, "");
	EXPECT(advance_count(&w, TW_NEVER - 1) == 0, "");
	EXPECT(w.now == TW_NEVER - 1 && !tw_check(&w), "");
	tw_destroy(&w);
	return true;
}

/* An entry fires at exactly its tick, advanced one tick at a time. */
static bool fire_exact(const struct tw_ops *ops, u64 start, u64 iv)
{
	struct tw_wheel w;
	struct tw_entry e;
	u64 t, exp = start + iv;

	if (!setup(&w, ops, start))
		return false;
	tw_entry_init(&e);
	EXPECT(!tw_insert(&w, &e, exp), "interval %llu", (unsigned long long)iv);
	/* Jump to a few ticks before, then tick. */
	if (iv > 64)
		EXPECT(advance_count(&w, exp - 64) == 0, "early, interval %llu",
		       (unsigned long long)iv);
	for (t = w.now + 1; t < exp; t++) {
		EXPECT(tw_next(&w) > w.now && tw_next(&w) <= exp, "next %llu",
		       (unsigned long long)tw_next(&w));
		EXPECT(advance_count(&w, t) == 0, "early at %llu, interval %llu",
		       (unsigned long long)t, (unsigned long long)iv);
		EXPECT(!tw_check(&w), "check at %llu", (unsigned long long)t);
	}
	EXPECT(advance_count(&w, exp) == 1, "not at its tick, interval %llu",
	       (unsigned long long)iv);
	EXPECT(!tw_pending(&e) && !w.nr_pending && !tw_check(&w), "");
	tw_destroy(&w);
	return true;
}

static bool t_fire_exact(const struct tw_ops *ops)
{
	const struct tw_geometry *g = &geo_default;
	u64 span = 1ULL << g->wheel_bits, lvl = 1ULL << g->level_bits;
	const u64 ivs[] = { 1, 2, 3, 63, 64, 65, span - 1, span, span + 1,
			    2 * span + 5, lvl - 1, lvl, lvl + 1, lvl * lvl - 1,
			    lvl * lvl, lvl * lvl + 1, 1ULL << 32, (1ULL << 32) + 1,
			    1ULL << 45, (1ULL << 62) + 3 };
	const u64 starts[] = { 0, 12345, (1ULL << 32) - 7, U64_MAX / 3 };
	unsigned int i, j;

	for (j = 0; j < ARRAY_SIZE(starts); j++)
		for (i = 0; i < ARRAY_SIZE(ivs); i++)
			if (ivs[i] <= tw_max_interval(ops, g) &&
			    !fire_exact(ops, starts[j], ivs[i]))
				return false;
	return true;
}

static bool t_remove(const struct tw_ops *ops)
{
	struct tw_entry a, b, c;
	struct tw_wheel w;

	if (!setup(&w, ops, 1000))
		return false;
	tw_entry_init(&a);
	tw_entry_init(&b);
	tw_entry_init(&c);
	EXPECT(!tw_remove(&w, &c), "remove of a never inserted entry");
	EXPECT(!tw_insert(&w, &a, 1010) && !tw_insert(&w, &b, 1010), "");
	EXPECT(!tw_insert(&w, &c, 1005), "");
	EXPECT(w.nr_pending == 3 && !tw_check(&w), "");
	EXPECT(tw_remove(&w, &a) && !tw_pending(&a), "remove of pending");
	EXPECT(!tw_remove(&w, &a), "second remove must be a no-op");
	EXPECT(tw_remove(&w, &c) && !tw_check(&w), "");
	EXPECT(advance_count(&w, 1009) == 0, "");
	EXPECT(advance_count(&w, 1010) == 1 && !tw_pending(&b), "");
	EXPECT(!tw_remove(&w, &b), "remove of an expired entry");
	/* Removed entries can go back in. */
	EXPECT(!tw_insert(&w, &a, 1011) && advance_count(&w, 1011) == 1, "");
	EXPECT(!w.nr_pending && !tw_check(&w), "");
	tw_destroy(&w);
	return true;
}

static bool t_busy(const struct tw_ops *ops)
{
	unsigned long warned = tw_user_warnings;
	struct tw_wheel w;
	struct tw_entry e;

	if (!setup(&w, ops, 7))
		return false;
	tw_entry_init(&e);
	EXPECT(!tw_insert(&w, &e, 20), "");
	EXPECT(tw_insert(&w, &e, 30) == -EBUSY, "insert of a pending entry");
	EXPECT(e.expires == 20 && w.nr_pending == 1 && !tw_check(&w), "");
	EXPECT(advance_count(&w, 20) == 1, "");
	tw_user_warnings = warned;	/* that warning was expected */
	tw_destroy(&w);
	return true;
}

/* Expiry at or before now: due at now + 1, never earlier, never lost. */
static bool t_past(const struct tw_ops *ops)
{
	struct tw_entry e[3];
	struct tw_wheel w;
	int i;

	if (!setup(&w, ops, 100))
		return false;
	for (i = 0; i < 3; i++)
		tw_entry_init(&e[i]);
	EXPECT(!tw_insert(&w, &e[0], 50) && !tw_insert(&w, &e[1], 100), "");
	EXPECT(!tw_insert(&w, &e[2], 0), "");
	for (i = 0; i < 3; i++)
		EXPECT(e[i].expires == 101, "entry %d expires %llu", i,
		       (unsigned long long)e[i].expires);
	EXPECT(tw_next(&w) == 101, "next %llu", (unsigned long long)tw_next(&w));
	EXPECT(advance_count(&w, 100) == 0 && w.now == 100, "advance to now");
	EXPECT(advance_count(&w, 99) == 0 && w.now == 100, "advance backwards");
	EXPECT(advance_count(&w, 101) == 3 && !tw_check(&w), "");
	tw_destroy(&w);
	return true;
}

/* Many entries at one tick, and their neighbours. */
static bool t_same_tick(const struct tw_ops *ops)
{
	enum { N = 1000 };
	struct tw_entry *e = calloc(2 * N, sizeof(*e));
	struct tw_wheel w;
	int i;

	EXPECT(e, "");
	if (!setup(&w, ops, 5000)) {
		free(e);
		return false;
	}
	for (i = 0; i < 2 * N; i++) {
		tw_entry_init(&e[i]);
		EXPECT(!tw_insert(&w, &e[i], 5037 + i % 2), "");
	}
	EXPECT(!tw_check(&w), "");
	EXPECT(advance_count(&w, 5036) == 0, "");
	EXPECT(advance_count(&w, 5037) == N, "");
	EXPECT(!tw_check(&w), "");
	EXPECT(advance_count(&w, 5038) == N, "");
	EXPECT(!w.nr_pending && !tw_check(&w), "");
	tw_destroy(&w);
	free(e);
	return true;
}

/*
 * A burst with a budget (tw.h, "Budgets"): 2000 entries due at one tick
 * and 500 a tick later are collected 64 at a time, none looked at beyond
 * the budget, w->now unmoved until the pass is done, and an entry
 * inserted due by the target between two calls is collected by the pass.
 */
static bool t_budget_burst(const struct tw_ops *ops)
{
	enum { N = 2000, LATER = 500, BUDGET = 64 };
	struct tw_entry *e = calloc(N + LATER + 1, sizeof(*e)), *x;
	u64 examined, calls = 0, got = 0, n;
	struct tw_wheel w;
	LIST_HEAD(out);
	int i;

	EXPECT(e, "");
	if (!setup(&w, ops, 5000)) {
		free(e);
		return false;
	}
	for (i = 0; i < N + LATER + 1; i++)
		tw_entry_init(&e[i]);
	for (i = 0; i < N + LATER; i++)
		EXPECT(!tw_insert(&w, &e[i], i < N ? 5037 : 5038), "");
	do {
		examined = w.stats.examined;
		n = tw_advance(&w, 5037, &out, BUDGET);
		EXPECT(n <= BUDGET && w.stats.examined - examined <= BUDGET,
		       "call %llu: %llu collected, %llu looked at",
		       (unsigned long long)calls, (unsigned long long)n,
		       (unsigned long long)(w.stats.examined - examined));
		got += n;
		calls++;
		EXPECT(tw_advancing(&w) ? w.now == 5000 && w.target == 5037 &&
		       tw_next(&w) == 5001 : w.now == 5037, "");
		EXPECT(!tw_check(&w), "call %llu", (unsigned long long)calls);
		if (calls == 3) {
			/* Due by the target: w->due, handed out next. */
			EXPECT(!tw_insert(&w, &e[N + LATER], 5010), "");
			EXPECT(e[N + LATER].flags & TW_DUE, "");
		}
	} while (tw_advancing(&w));
	EXPECT(got == N + 1, "%llu collected", (unsigned long long)got);
	EXPECT(calls >= N / BUDGET && calls <= 4 * N / BUDGET + 4,
	       "%llu calls", (unsigned long long)calls);
	list_for_each_entry(x, &out, list)
		EXPECT(x->expires <= 5037 && !tw_pending(x), "");
	EXPECT(w.stats.stopped == calls - 1, "");
	EXPECT(advance_count(&w, 5038) == LATER, "");
	EXPECT(!w.nr_pending && !tw_check(&w), "");
	tw_destroy(&w);
	free(e);
	return true;
}

/* Simple's MaxInterval; the others take the whole 64-bit range. */
static bool t_range(const struct tw_ops *ops)
{
	const u64 max = tw_max_interval(ops, &geo_default), now = 1000;
	const u64 far[] = { 1ULL << 32, (1ULL << 32) + 1, 1ULL << 40,
			    1ULL << 63, U64_MAX - 1 - now };
	struct tw_entry e, f[ARRAY_SIZE(far)];
	struct tw_wheel w;
	unsigned int i;
	u64 n = 0;

	if (!setup(&w, ops, now))
		return false;
	tw_entry_init(&e);
	if (max != U64_MAX) {
		e.expires = 7;
		EXPECT(tw_insert(&w, &e, now + max + 1) == -ERANGE,
		       "beyond MaxInterval %llu", (unsigned long long)max);
		EXPECT(!tw_pending(&e) && !w.nr_pending && !tw_check(&w), "");
		EXPECT(e.expires == 7, "a refusal changed expires to %llu",
		       (unsigned long long)e.expires);
		EXPECT(tw_insert(&w, &e, U64_MAX - 1) == -ERANGE, "");
		EXPECT(!tw_insert(&w, &e, now + max), "at MaxInterval");
		EXPECT(advance_count(&w, now + max - 1) == 0, "");
		EXPECT(advance_count(&w, now + max) == 1, "");
		tw_destroy(&w);
		return true;
	}
	for (i = 0; i < ARRAY_SIZE(far); i++) {
		tw_entry_init(&f[i]);
		EXPECT(!tw_insert(&w, &f[i], now + far[i]), "interval %llu",
		       (unsigned long long)far[i]);
	}
	EXPECT(!tw_check(&w), "");
	/* Each one at its tick, reached by jumps. */
	for (i = 0; i < ARRAY_SIZE(far); i++) {
		EXPECT(advance_count(&w, now + far[i] - 1) == 0,
		       "early, interval %llu", (unsigned long long)far[i]);
		EXPECT(!tw_check(&w), "");
		n = advance_count(&w, now + far[i]);
		EXPECT(n == 1, "%llu collected at interval %llu",
		       (unsigned long long)n, (unsigned long long)far[i]);
	}
	EXPECT(w.now == U64_MAX - 1 && !w.nr_pending && !tw_check(&w), "");
	tw_destroy(&w);
	return true;
}

/* Lawn: geo.lawn_ttls queues, -ENOSPC for one more TTL, reuse when empty. */
static bool t_lawn_queues(const struct tw_ops *ops)
{
	struct tw_geometry g = geo_default;
	struct tw_entry e[4];
	struct tw_wheel w;
	int i;

	g.lawn_ttls = 2;
	EXPECT(ops->may_be_full, "lawn refuses for want of room");
	EXPECT(!tw_init(&w, ops, &g, 10), "");
	for (i = 0; i < 4; i++)
		tw_entry_init(&e[i]);
	EXPECT(!tw_insert(&w, &e[0], 15) && !tw_insert(&w, &e[1], 17), "");
	e[2].expires = 3;
	EXPECT(tw_insert(&w, &e[2], 19) == -ENOSPC, "a third TTL");
	EXPECT(!tw_pending(&e[2]) && w.nr_pending == 2, "");
	EXPECT(e[2].expires == 3, "a refusal changed expires to %llu",
	       (unsigned long long)e[2].expires);
	EXPECT(!tw_insert(&w, &e[3], 15), "a known TTL");
	EXPECT(advance_count(&w, 11) == 0, "");
	/* At now 11, TTL 9 is still new; TTL 5 joins the queue of 15, 15. */
	EXPECT(tw_insert(&w, &e[2], 20) == -ENOSPC, "TTL 9 at now 11");
	EXPECT(!tw_insert(&w, &e[2], 16), "TTL 5 at now 11");
	EXPECT(tw_remove(&w, &e[1]) && !tw_check(&w), "");
	EXPECT(!tw_insert(&w, &e[1], 20), "the freed queue takes TTL 9");
	EXPECT(!tw_check(&w), "");
	EXPECT(advance_count(&w, 14) == 0 && advance_count(&w, 15) == 2, "");
	EXPECT(advance_count(&w, 16) == 1 && advance_count(&w, 19) == 0, "");
	EXPECT(advance_count(&w, 20) == 1, "");
	EXPECT(!w.nr_pending && !tw_check(&w), "");
	tw_destroy(&w);
	g.lawn_ttls = 0;
	EXPECT(tw_init(&w, ops, &g, 0) == -EINVAL, "no queues");
	return true;
}

/* Drain takes everything, keeps w->now, and leaves a valid empty wheel. */
static bool t_drain(const struct tw_ops *ops)
{
	u64 max = tw_max_interval(ops, &geo_default), now = 777, n = 0;
	struct tw_entry e[100], *p;
	struct tw_stats stats;
	struct tw_wheel w;
	LIST_HEAD(out);
	int i;

	if (!setup(&w, ops, now))
		return false;
	for (i = 0; i < 100; i++) {
		tw_entry_init(&e[i]);
		EXPECT(!tw_insert(&w, &e[i], now + 1 + ((u64)i * i * i * 7919) % max), "");
	}
	EXPECT(advance_count(&w, now + 5) != U64_MAX, "");
	now = w.now;
	stats = w.stats;
	tw_drain(&w, &out, TW_UNBOUNDED);
	list_for_each_entry(p, &out, list) {
		EXPECT(!tw_pending(p) && p->expires > now, "");
		n++;
	}
	EXPECT(n + w.stats.expired == 100, "%llu drained", (unsigned long long)n);
	EXPECT(w.now == now && !w.nr_pending && !tw_check(&w), "");
	EXPECT(!memcmp(&stats, &w.stats, sizeof(stats)), "drain changed stats");
	EXPECT(tw_next(&w) == TW_NEVER, "");
	/* The wheel is valid at w->now: an insert fires at its tick. */
	EXPECT(!tw_insert(&w, &e[0], now + 3), "");
	EXPECT(advance_count(&w, now + 2) == 0 && advance_count(&w, now + 3) == 1, "");
	tw_destroy(&w);
	return true;
}

/* The hrtimer loop: sleep until tw_next(), advance there, repeat. */
static bool t_next(const struct tw_ops *ops)
{
	enum { N = 500 };
	u64 max = tw_max_interval(ops, &geo_default), x = 88172645463325252ULL;
	u64 now = (1ULL << 32) - 1000, left = N, next, first, loops = 0;
	struct tw_entry *e = calloc(N, sizeof(*e));
	struct tw_wheel w;
	int i;

	EXPECT(e, "");
	if (!setup(&w, ops, now)) {
		free(e);
		return false;
	}
	for (i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		tw_entry_init(&e[i]);
		/* Up to 2^20: a wheel may wake once per round per slot. */
		EXPECT(!tw_insert(&w, &e[i], now + 1 + x % min_t(u64, max, 1ULL << (i % 20 + 1))), "");
	}
	while (left) {
		first = TW_NEVER;
		for (i = 0; i < N; i++)
			if (tw_pending(&e[i]) && e[i].expires < first)
				first = e[i].expires;
		next = tw_next(&w);
		EXPECT(next > w.now && next <= first, "next %llu, first %llu, now %llu",
		       (unsigned long long)next, (unsigned long long)first,
		       (unsigned long long)w.now);
		if (next > w.now + 1)
			EXPECT(advance_count(&w, next - 1) == 0, "work before next");
		x = advance_count(&w, next);
		EXPECT(x <= left, "");
		left -= x;
		EXPECT(++loops % 256 || !tw_check(&w), "");
	}
	EXPECT(!tw_check(&w), "");
	EXPECT(tw_next(&w) == TW_NEVER, "");
	tw_destroy(&w);
	free(e);
	return true;
}

/* The top of the 64-bit range, and the 32-bit boundary tick by tick. */
static bool t_edges(const struct tw_ops *ops)
{
	u64 max = tw_max_interval(ops, &geo_default), now = U64_MAX - 100000, t;
	struct tw_entry e[40];
	struct tw_wheel w;
	int i;

	if (!setup(&w, ops, now))
		return false;
	for (i = 0; i < 3; i++)
		tw_entry_init(&e[i]);
	t = min_t(u64, max, 50000);
	EXPECT(!tw_insert(&w, &e[0], now + 1) && !tw_insert(&w, &e[1], now + t), "");
	EXPECT(tw_insert(&w, &e[2], U64_MAX - 1) == (U64_MAX - 1 - now > max ? -ERANGE : 0), "");
	EXPECT(advance_count(&w, now + t - 1) == 1, "");
	EXPECT(advance_count(&w, U64_MAX - 2) == 1, "");
	t = tw_pending(&e[2]);
	EXPECT(advance_count(&w, U64_MAX - 1) == t, "");
	EXPECT(!w.nr_pending && !tw_check(&w), "");
	tw_destroy(&w);

	now = (1ULL << 32) - 20;
	if (!setup(&w, ops, now))
		return false;
	for (i = 0; i < 40; i++) {
		tw_entry_init(&e[i]);
		EXPECT(!tw_insert(&w, &e[i], now + 1 + i), "");
	}
	for (t = now + 1; t <= now + 40; t++) {
		EXPECT(advance_count(&w, t) == 1, "not one at %llu", (unsigned long long)t);
		EXPECT(!tw_check(&w), "");
	}
	tw_destroy(&w);
	return true;
}

/* Work is counted: examined entries, expiries, ticks. */
static bool t_stats(const struct tw_ops *ops)
{
	struct tw_entry e[10];
	struct tw_wheel w;
	int i;

	if (!setup(&w, ops, 0))
		return false;
	for (i = 0; i < 10; i++) {
		tw_entry_init(&e[i]);
		EXPECT(!tw_insert(&w, &e[i], 3 + i), "");
	}
	EXPECT(advance_count(&w, 20) == 10, "");
	EXPECT(w.stats.inserted == 10 && w.stats.expired == 10, "");
	EXPECT(w.stats.ticks == 20 && w.stats.advances == 1, "");
	EXPECT(w.stats.examined >= 10 && w.stats.max_examined >= 10,
	       "examined %llu", (unsigned long long)w.stats.examined);
	tw_destroy(&w);
	return true;
}

/* The fields of struct tw_geometry, by the names tw.c gives them. */
static const struct {
	const char *name;
	size_t offset;
} geo_fields[] = {
	{ "wheel_bits", offsetof(struct tw_geometry, wheel_bits) },
	{ "levels", offsetof(struct tw_geometry, levels) },
	{ "level_bits", offsetof(struct tw_geometry, level_bits) },
	{ "lawn_ttls", offsetof(struct tw_geometry, lawn_ttls) },
};

static u32 *geo_field(const struct tw_geometry *g, unsigned int i)
{
	return (u32 *)((char *)g + geo_fields[i].offset);
}

/*
 * A field the scheme uses is refused just outside its range, by name, and
 * taken at both ends (the scheme's other fields at their least, so that no
 * rule between fields gets in the way); one it does not use is not looked
 * at; the schemes that share a field give it the same limits.
 */
static bool t_geometry(const struct tw_ops *ops)
{
	const struct tw_geometry_limits *lim = &ops->geometry;
	const struct tw_ops *other;
	struct tw_geometry_error err = { 0 };
	struct tw_geometry g;
	struct tw_wheel w;
	u32 min, max, def;
	unsigned int i, j;
	int id;

	EXPECT(!tw_geometry_check(ops, &geo_default, &err), "defaults: %s: %s",
	       err.field, err.why);
	for (i = 0; i < ARRAY_SIZE(geo_fields); i++) {
		min = *geo_field(&lim->min, i);
		max = *geo_field(&lim->max, i);
		def = *geo_field(&lim->def, i);
		g = geo_default;
		if (!max) {
			*geo_field(&g, i) = U32_MAX;
			EXPECT(!tw_geometry_check(ops, &g, &err),
			       "%s is not a field of %s", geo_fields[i].name,
			       ops->name);
			continue;
		}
		EXPECT(min && min <= def && def <= max, "%s: %u <= %u <= %u",
		       geo_fields[i].name, min, def, max);
		EXPECT(*geo_field(&geo_default, i) == def, "%s default %u",
		       geo_fields[i].name, *geo_field(&geo_default, i));
		for (j = 0; j < ARRAY_SIZE(geo_fields); j++)
			if (*geo_field(&lim->max, j))
				*geo_field(&g, j) = *geo_field(&lim->min, j);
		*geo_field(&g, i) = min;
		EXPECT(!tw_geometry_check(ops, &g, &err), "%s = %u: %s",
		       geo_fields[i].name, min, err.why);
		*geo_field(&g, i) = max;
		EXPECT(!tw_geometry_check(ops, &g, &err), "%s = %u: %s",
		       geo_fields[i].name, max, err.why);
		*geo_field(&g, i) = min - 1;
		EXPECT(tw_geometry_check(ops, &g, &err) == -EINVAL &&
		       !strcmp(err.field, geo_fields[i].name),
		       "%s = %u", geo_fields[i].name, min - 1);
		EXPECT(tw_init(&w, ops, &g, 0) == -EINVAL, "");
		if (max < U32_MAX) {
			*geo_field(&g, i) = max + 1;
			EXPECT(tw_geometry_check(ops, &g, &err) == -EINVAL &&
			       !strcmp(err.field, geo_fields[i].name),
			       "%s = %u", geo_fields[i].name, max + 1);
			EXPECT(tw_init(&w, ops, &g, 0) == -EINVAL, "");
		}
		for (id = 1; id < TW_NR_SCHEMES; id++) {
			other = tw_ops_by_id(id);
			if (!*geo_field(&other->geometry.max, i))
				continue;
			EXPECT(*geo_field(&other->geometry.min, i) == min &&
			       *geo_field(&other->geometry.max, i) == max &&
			       *geo_field(&other->geometry.def, i) == def,
			       "%s and %s differ on %s", ops->name, other->name,
			       geo_fields[i].name);
		}
	}
	return true;
}

struct unit_test {
	const char *name;
	bool (*fn)(const struct tw_ops *ops);
	enum tw_scheme_id only;		/* 0: every scheme */
};

static const struct unit_test unit_tests[] = {
	{ "geometry: limits, refused by name, defaults", t_geometry },
	{ "empty wheel, jumps to TW_NEVER - 1", t_empty },
	{ "fires at exactly its tick", t_fire_exact },
	{ "remove of pending and not pending", t_remove },
	{ "insert of a pending entry is -EBUSY", t_busy },
	{ "expiry <= now fires on the next tick", t_past },
	{ "2000 entries on two ticks", t_same_tick },
	{ "a burst, 64 at a time: budgets", t_budget_burst },
	{ "range: MaxInterval or the 64-bit range", t_range },
	{ "lawn queues: -ENOSPC and reuse", t_lawn_queues, TW_LAWN },
	{ "drain", t_drain },
	{ "next() is a lower bound: the hrtimer loop", t_next },
	{ "top of the 64-bit range, 32-bit boundary", t_edges },
	{ "stats count the work", t_stats },
};

struct options {
	u64 seed;
	u64 ops;
	u32 pool;
	const char *only;
	bool unit, diff;
};

static void run_diff(const struct tw_ops *ops, const char *gname,
		     const struct tw_geometry *g, const struct options *o,
		     u64 nops)
{
	/*
	 * Where w->now starts, how many entries each segment juggles, and
	 * whether time only creeps (dense: the wheel fills to the pool).
	 */
	static const u64 starts[] = { 0, (1ULL << 32) - 5000, 1ULL << 47,
				      U64_MAX - (1ULL << 60), 1ULL << 40 };
	static const unsigned int pool_x16[] = { 16, 1, 64, 4, 64 };
	/* 0: unbounded advances only, as before budgets; else the most. */
	static const u32 budgets[] = { 0, 3, 64, 16, 8 };
	const unsigned int nseg = ARRAY_SIZE(starts);
	struct tw_diff_stats sum = { 0 };
	struct tw_diff_src src;
	struct tw_diff d = { .ops = ops, .geo = *g, .pool = o->pool };
	double t0 = seconds();
	unsigned int s;
	int ret = 0;

	/* Segments at each start, the same seeded sequence for each scheme. */
	for (s = 0; s < nseg && !ret; s++) {
		src.state = o->seed + s;
		src.data = NULL;
		d.src = &src;
		d.start = starts[s];
		d.pool = max(o->pool * pool_x16[s] / 16, 8U);
		d.dense = s == 4;
		d.budget = budgets[s];
		d.nr_ops = nops / nseg;
		ret = tw_diff_run(&d);
		sum.ops += d.stats.ops;
		sum.inserted += d.stats.inserted;
		sum.refused += d.stats.refused;
		sum.removed += d.stats.removed;
		sum.idle_removes += d.stats.idle_removes;
		sum.advances += d.stats.advances;
		sum.expired += d.stats.expired;
		sum.checks += d.stats.checks;
		sum.drains += d.stats.drains;
		sum.stopped += d.stats.stopped;
		sum.interleaved += d.stats.interleaved;
		sum.restarts += d.stats.restarts;
		sum.max_pending = max(sum.max_pending, d.stats.max_pending);
	}
	printf("# %s/%s: %llu ops (%llu inserts, %llu refused, %llu removes, %llu idle removes, %llu advances, %llu expired, %llu checks, %llu drains, %llu stopped by a budget, %llu ops amid a pass, %llu restarts, <= %llu pending) in %.2f s\n",
	       ops->name, gname, (unsigned long long)sum.ops,
	       (unsigned long long)sum.inserted, (unsigned long long)sum.refused,
	       (unsigned long long)sum.removed,
	       (unsigned long long)sum.idle_removes,
	       (unsigned long long)sum.advances, (unsigned long long)sum.expired,
	       (unsigned long long)sum.checks, (unsigned long long)sum.drains,
	       (unsigned long long)sum.stopped,
	       (unsigned long long)sum.interleaved,
	       (unsigned long long)sum.restarts,
	       (unsigned long long)sum.max_pending, seconds() - t0);
	if (ret)
		snprintf(tap_why, sizeof(tap_why),
			 "segment %u (start %llu, pool %u, seed %llu): %s", s,
			 (unsigned long long)starts[s - 1], d.pool,
			 (unsigned long long)(o->seed + s - 1), d.why);
	tap(!ret, "%s: differential, %s geometry, %llu ops", ops->name, gname,
	    (unsigned long long)sum.ops);
}

static u64 env_u64(const char *name, u64 def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

int main(int argc, char **argv)
{
	struct options o = { .unit = true, .diff = true };
	const struct tw_ops *ops;
	const char *name;
	unsigned int i;
	int id, c;

	tw_geometry_defaults(&geo_default);
	o.seed = env_u64("TW_SEED", (u64)time(NULL) ^ ((u64)getpid() << 32));
	o.ops = env_u64("TW_OPS", 1000000);
	o.pool = env_u64("TW_POOL", 1024);
	while ((c = getopt(argc, argv, "s:n:p:S:ud")) != -1) {
		switch (c) {
		case 's':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			o.ops = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			o.pool = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			o.only = optarg;
			break;
		case 'u':
			o.diff = false;
			break;
		case 'd':
			o.unit = false;
			break;
		default:
			fprintf(stderr, "usage: %s [-s seed] [-n ops] [-p pool] [-S scheme] [-u|-d]\n",
				argv[0]);
			return 2;
		}
	}
	if (!o.pool)
		o.pool = 1;
	printf("TAP version 13\n");
	printf("# seed %llu (reproduce: TW_SEED=%llu), %llu ops per scheme, pool %u\n",
	       (unsigned long long)o.seed, (unsigned long long)o.seed,
	       (unsigned long long)o.ops, o.pool);
	for (id = 1; id < TW_NR_SCHEMES; id++) {
		static const char *const names[TW_NR_SCHEMES] = {
			[TW_LIST] = "list", [TW_ORDERED] = "ordered",
			[TW_TREE] = "tree", [TW_SIMPLE] = "simple",
			[TW_HASHED_SORTED] = "hashed_sorted",
			[TW_HASHED] = "hashed",
			[TW_HIERARCHICAL] = "hierarchical", [TW_BSD] = "bsd",
			[TW_LAWN] = "lawn",
		};

		ops = tw_ops_by_id(id);
		name = names[id];
		if (o.only && strcmp(o.only, name))
			continue;
		if (!ops || strcmp(ops->name, name) || ops->id != id) {
			snprintf(tap_why, sizeof(tap_why), "name \"%s\", id %d",
				 ops ? ops->name : "(none)", ops ? ops->id : 0);
			tap(false, "%s: registered under its name and id", name);
			continue;
		}
		if (tw_ops_by_name(name) != ops) {
			tap(false, "%s: tw_ops_by_name()", name);
			continue;
		}
		for (i = 0; o.unit && i < ARRAY_SIZE(unit_tests); i++) {
			if (unit_tests[i].only && unit_tests[i].only != id)
				continue;
			tap(unit_tests[i].fn(ops), "%s: %s", name, unit_tests[i].name);
		}
		if (o.diff) {
			run_diff(ops, "default", &geo_default, &o, o.ops);
			run_diff(ops, "small", &geo_small, &o, o.ops / 4);
		}
	}
	tap(!tw_user_warnings, "no unexpected WARN (%lu)", tw_user_warnings);
	printf("1..%u\n", tap_count);
	printf("# %u passed, %u failed\n", tap_count - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}
