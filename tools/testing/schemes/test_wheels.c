// SPDX-License-Identifier: GPL-2.0
/*
 * test_wheels.c - unit tests of the four wheels (simple, hashed_sorted,
 * hashed, hierarchical) beyond the contract that tw_test checks for every
 * scheme: their geometry limits, what each one's own mechanism promises
 * (MaxInterval, rounds, sorted slots, migration, the top level of a narrow
 * hierarchy, the busy bitmap), that their invariant checker can fail, and
 * the differential test of tw_diff.c over many geometries and starting
 * ticks. TAP; exit status 1 if a test point failed.
 *
 * Usage: test_wheels [-s SEED] [-n OPS]   (or TW_SEED, TW_OPS: the ops per
 * geometry of the sweep, default 100000)
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

#define LLU(x) ((unsigned long long)(x))

/* Advance @w to @now; the number of entries collected, each checked idle. */
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

static bool geo_ok(const struct tw_ops *ops, struct tw_geometry g)
{
	struct tw_wheel w;
	int ret = tw_init(&w, ops, &g, 0);

	if (!ret)
		tw_destroy(&w);
	return !ret;
}

/* Every wheel refuses a geometry it cannot hold, with -EINVAL. */
static bool t_geometry(void)
{
	static const char *const one_level[] = {
		"simple", "hashed_sorted", "hashed",
	};
	const struct tw_ops *h = tw_ops_by_name("hierarchical");
	struct tw_geometry g = geo_default;
	struct tw_geometry_error err;
	struct tw_wheel w;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(one_level); i++) {
		const struct tw_ops *ops = tw_ops_by_name(one_level[i]);

		g = geo_default;
		g.wheel_bits = 0;
		EXPECT(tw_init(&w, ops, &g, 0) == -EINVAL, "%s", ops->name);
		g.wheel_bits = 25;
		EXPECT(tw_init(&w, ops, &g, 0) == -EINVAL, "%s", ops->name);
		g.wheel_bits = 1;
		EXPECT(geo_ok(ops, g), "%s: 1 bit", ops->name);
		g.wheel_bits = 20;
		EXPECT(geo_ok(ops, g), "%s: 20 bits", ops->name);
	}
	g = geo_default;
	g.levels = 0;
	EXPECT(tw_init(&w, h, &g, 0) == -EINVAL, "no levels");
	g.levels = 6;
	g.level_bits = 0;
	EXPECT(tw_init(&w, h, &g, 0) == -EINVAL, "no bits");
	g.level_bits = 17;
	EXPECT(tw_init(&w, h, &g, 0) == -EINVAL, "17 bits");
	g.levels = 8;
	g.level_bits = 10;	/* level 7 would start at bit 70 */
	EXPECT(tw_init(&w, h, &g, 0) == -EINVAL, "8 x 10");
	EXPECT(tw_geometry_check(h, &g, &err) == -EINVAL &&
	       !strcmp(err.field, "levels") && strstr(err.why, "at most 7 levels"),
	       "8 x 10 refused as %s: %s", err.field, err.why);
	g.levels = 7;
	EXPECT(geo_ok(h, g), "7 x 10");
	g.levels = 64;
	g.level_bits = 1;
	EXPECT(geo_ok(h, g), "64 x 1");
	g.levels = 1;
	g.level_bits = 16;
	EXPECT(geo_ok(h, g), "1 x 16");
	g.levels = 4;
	g.level_bits = 16;
	EXPECT(geo_ok(h, g), "4 x 16");
	g.levels = 22;
	g.level_bits = 3;
	EXPECT(geo_ok(h, g), "22 x 3");
	return true;
}

/* Scheme 4: MaxInterval = 1 << wheel_bits ticks from w->now, no more. */
static bool t_simple_max_interval(void)
{
	const struct tw_ops *ops = tw_ops_by_name("simple");
	u64 now = (1ULL << 32) - 7, max = 1ULL << geo_default.wheel_bits;
	struct tw_entry a, b, c;
	struct tw_wheel w;

	EXPECT(!tw_init(&w, ops, &geo_default, now), "");
	tw_entry_init(&a);
	tw_entry_init(&b);
	tw_entry_init(&c);
	EXPECT(tw_insert(&w, &a, now + max) == 0, "MaxInterval itself");
	EXPECT(tw_insert(&w, &b, now + max + 1) == -ERANGE, "one more");
	EXPECT(!tw_pending(&b) && w.nr_pending == 1, "");
	EXPECT(tw_insert(&w, &c, now + 1) == 0, "");
	EXPECT(tw_next(&w) == now + 1, "next is exact");
	EXPECT(advance_count(&w, now + 1) == 1, "");
	/* The bound moves with w->now. */
	EXPECT(tw_insert(&w, &b, now + max + 1) == 0, "");
	EXPECT(tw_next(&w) == now + max, "next is exact");
	EXPECT(advance_count(&w, now + max - 1) == 0, "");
	EXPECT(advance_count(&w, now + max) == 1, "a at its tick");
	EXPECT(advance_count(&w, now + max + 1) == 1, "b at its tick");
	EXPECT(!tw_check(&w), "");
	/* Nothing in a visited slot is examined in vain. */
	EXPECT(w.stats.examined == 3, "examined %llu", LLU(w.stats.examined));
	tw_destroy(&w);
	return true;
}

/* Scheme 6: entries of several rounds share a slot; each fires in its own. */
static bool t_hashed_rounds(void)
{
	const struct tw_ops *ops = tw_ops_by_name("hashed");
	u64 size = 1ULL << geo_default.wheel_bits, now = 1000, t, round;
	struct tw_entry e[4];
	struct tw_wheel w;
	int i;

	EXPECT(!tw_init(&w, ops, &geo_default, now), "");
	for (i = 0; i < 4; i++) {
		tw_entry_init(&e[i]);
		EXPECT(!tw_insert(&w, &e[i], now + 5 + (3 - i) * size), "");
	}
	EXPECT(ops->slot_len(&w, (now + 5) & (size - 1)) == 4, "one slot");
	for (round = 0; round < 4; round++) {
		t = now + 5 + round * size;
		EXPECT(tw_next(&w) == t, "round %llu: next %llu", LLU(round),
		       LLU(tw_next(&w)));
		EXPECT(advance_count(&w, t - 1) == 0, "");
		EXPECT(advance_count(&w, t) == 1, "round %llu", LLU(round));
		EXPECT(!tw_pending(&e[3 - round]), "the one of this round");
		EXPECT(!tw_check(&w), "");
	}
	/* Each visit looked at every entry still there: 4 + 3 + 2 + 1. */
	EXPECT(w.stats.examined == 10, "examined %llu", LLU(w.stats.examined));
	EXPECT(w.stats.max_chain == 4, "");
	tw_destroy(&w);
	return true;
}

/*
 * Scheme 6: the jumps around a round (size - 1, size, size + 1 ticks) visit
 * each slot at most once and collect exactly what is due.
 */
static bool t_hashed_jumps(void)
{
	const struct tw_ops *ops = tw_ops_by_name("hashed");
	u64 size = 1ULL << geo_default.wheel_bits, now = 77, d, i;
	struct tw_entry e[8];
	struct tw_wheel w;

	for (d = size - 1; d <= size + 1; d++) {
		EXPECT(!tw_init(&w, ops, &geo_default, now), "");
		for (i = 0; i < 8; i++) {
			tw_entry_init(&e[i]);
			EXPECT(!tw_insert(&w, &e[i], now + d - 3 + i), "");
		}
		/*
		 * d - 3 .. d are due. A jump short of a round does not visit
		 * the slot of now + size, which holds now + d + 1 for
		 * d = size - 1; a round or more visits every slot once. Each
		 * slot holds one entry, so its earliest-due hint is exact: the
		 * slots of the entries not due are skipped without a look.
		 */
		EXPECT(advance_count(&w, now + d) == 4, "jump %llu", LLU(d));
		EXPECT(w.stats.examined == 4,
		       "jump %llu: examined %llu", LLU(d),
		       LLU(w.stats.examined));
		EXPECT(!tw_check(&w), "");
		EXPECT(advance_count(&w, TW_NEVER - 1) == 4, "");
		tw_destroy(&w);
	}
	return true;
}

/*
 * Scheme 6's earliest-due hint: 100000 entries due in the same far round
 * share a slot, and the visits of that slot in the rounds before cost no
 * entry examined; the visit of their round takes them all, and one behind
 * them, in a later round, stays.
 */
static bool t_hashed_hint(void)
{
	enum { N = 100000 };
	const struct tw_ops *ops = tw_ops_by_name("hashed");
	u64 size = 1ULL << geo_default.wheel_bits, now = 10, far, r;
	struct tw_entry *e = calloc(N + 1, sizeof(*e));
	struct tw_wheel w;
	int i;

	EXPECT(e, "");
	EXPECT(!tw_init(&w, ops, &geo_default, now), "");
	far = now + 7 + 16 * size;
	for (i = 0; i <= N; i++) {
		tw_entry_init(&e[i]);
		EXPECT(!tw_insert(&w, &e[i], i < N ? far : far + size), "");
	}
	for (r = 0; r < 16; r++) {
		EXPECT(advance_count(&w, now + 7 + r * size) == 0, "");
		EXPECT(w.stats.examined == 0, "round %llu: examined %llu",
		       LLU(r), LLU(w.stats.examined));
	}
	EXPECT(advance_count(&w, far) == N, "");
	EXPECT(w.stats.examined == N + 1, "examined %llu",
	       LLU(w.stats.examined));
	EXPECT(!tw_check(&w), "");
	EXPECT(advance_count(&w, far + size) == 1, "");
	tw_destroy(&w);
	free(e);
	return true;
}

/* Scheme 5: sorted slots, FIFO among equals, a visit stops at the head. */
static bool t_sorted_slots(void)
{
	const struct tw_ops *ops = tw_ops_by_name("hashed_sorted");
	u64 size = 1ULL << geo_default.wheel_bits, now = 0;
	struct tw_entry e[5], *x;
	struct tw_wheel w;
	LIST_HEAD(out);
	int i;

	EXPECT(!tw_init(&w, ops, &geo_default, now), "");
	/* Latest first: each insert walks past all the earlier ones. */
	for (i = 0; i < 4; i++) {
		tw_entry_init(&e[i]);
		EXPECT(!tw_insert(&w, &e[i], 10 + (3 - i) * size), "");
	}
	EXPECT(w.stats.insert_steps == 0 + 1 + 2 + 3, "insert_steps %llu",
	       LLU(w.stats.insert_steps));
	/* An equal expiry goes after its equal. */
	tw_entry_init(&e[4]);
	EXPECT(!tw_insert(&w, &e[4], 10), "");
	EXPECT(!tw_check(&w), "");
	tw_advance(&w, 10, &out, TW_UNBOUNDED);
	i = 0;
	list_for_each_entry(x, &out, list)
		EXPECT(x == (i++ ? &e[4] : &e[3]), "FIFO at %d", i);
	EXPECT(i == 2, "");
	/* Two due, and one look at the head that is not. */
	EXPECT(w.stats.examined == 3, "examined %llu", LLU(w.stats.examined));
	EXPECT(advance_count(&w, 10 + size) == 1, "");
	EXPECT(w.stats.examined == 5, "examined %llu", LLU(w.stats.examined));
	EXPECT(advance_count(&w, TW_NEVER - 1) == 2, "");
	tw_destroy(&w);
	return true;
}

/*
 * Scheme 7: an entry three digits away migrates twice, at the ticks where
 * the clock reaches its slot at each level, which tw_next() announces, and
 * expires at exactly its tick.
 */
static bool t_hier_migration(void)
{
	const struct tw_ops *ops = tw_ops_by_name("hierarchical");
	u32 b = geo_default.level_bits;
	u64 now = 5, at = (3ULL << 2 * b) + (2ULL << b) + 7;
	struct tw_entry e;
	struct tw_wheel w;

	EXPECT(!tw_init(&w, ops, &geo_default, now), "");
	tw_entry_init(&e);
	EXPECT(!tw_insert(&w, &e, at), "");
	EXPECT(e.idx == (2U << b) + 3, "level 2, slot 3: idx %u", e.idx);
	EXPECT(tw_next(&w) == 3ULL << 2 * b, "next %llu", LLU(tw_next(&w)));
	EXPECT(advance_count(&w, (3ULL << 2 * b) - 1) == 0, "");
	EXPECT(w.stats.migrations == 0, "");
	EXPECT(advance_count(&w, 3ULL << 2 * b) == 0, "");
	EXPECT(w.stats.migrations == 1 && e.idx == (1U << b) + 2,
	       "level 1, slot 2: idx %u", e.idx);
	EXPECT(tw_next(&w) == (3ULL << 2 * b) + (2ULL << b), "");
	EXPECT(advance_count(&w, (3ULL << 2 * b) + (2ULL << b)) == 0, "");
	EXPECT(w.stats.migrations == 2 && e.idx == 7, "level 0: idx %u",
	       e.idx);
	EXPECT(tw_next(&w) == at, "exact at level 0");
	EXPECT(advance_count(&w, at - 1) == 0, "");
	EXPECT(advance_count(&w, at) == 1, "at its tick");
	EXPECT(w.stats.migrations == 2, "");
	tw_destroy(&w);
	return true;
}

/*
 * Scheme 7: an entry whose remainder is zero is collected where it would
 * migrate; a jump past an entry's tick collects it without migrating it; a
 * jump into the last slot of an entry at the top migrates it to level 0.
 */
static bool t_hier_jump(void)
{
	const struct tw_ops *ops = tw_ops_by_name("hierarchical");
	u32 b = geo_default.level_bits;
	struct tw_entry e[3];
	struct tw_wheel w;
	int i;

	EXPECT(!tw_init(&w, ops, &geo_default, 0), "");
	for (i = 0; i < 3; i++)
		tw_entry_init(&e[i]);
	EXPECT(!tw_insert(&w, &e[0], (5ULL << 3 * b) + 1), "");
	EXPECT(!tw_insert(&w, &e[1], 5ULL << 3 * b), "remainder zero");
	EXPECT(!tw_insert(&w, &e[2], U64_MAX - 1), "the top level");
	EXPECT(advance_count(&w, 5ULL << 3 * b) == 1 && !tw_pending(&e[1]), "");
	EXPECT(w.stats.migrations == 1 && e[0].idx == 1, "e0 to level 0");
	EXPECT(advance_count(&w, U64_MAX - 2) == 1 && !tw_pending(&e[0]), "");
	EXPECT(w.stats.migrations == 2 && e[2].idx == (U64_MAX - 1) % (1U << b),
	       "e0 collected, e2 to level 0: migrations %llu, idx %u",
	       LLU(w.stats.migrations), e[2].idx);
	EXPECT(advance_count(&w, U64_MAX - 1) == 1, "");
	EXPECT(!tw_check(&w), "");
	tw_destroy(&w);
	return true;
}

/*
 * Scheme 7 narrower than 64 bits (2 x 4: a span of 256 ticks): an entry
 * many rounds away waits in the top level, re-checked each round, and is
 * never early, whether the clock ticks, jumps, or follows tw_next().
 */
static bool t_hier_narrow_top(void)
{
	const struct tw_ops *ops = tw_ops_by_name("hierarchical");
	struct tw_geometry g = { .levels = 2, .level_bits = 4 };
	u64 at = (1ULL << 20) + 0x35, now = 3, loops = 0;
	struct tw_entry e, f;
	struct tw_wheel w;

	EXPECT(!tw_init(&w, ops, &g, now), "");
	tw_entry_init(&e);
	tw_entry_init(&f);
	EXPECT(!tw_insert(&w, &e, at), "");
	EXPECT(!tw_insert(&w, &f, 1ULL << 40), "");
	EXPECT(e.idx == 16 + 3, "top level, slot of digit 3: idx %u", e.idx);
	while (w.now < at - 1) {
		u64 next = tw_next(&w);

		EXPECT(next > w.now && next <= at, "next %llu", LLU(next));
		EXPECT(advance_count(&w, min(next, at - 1)) == 0,
		       "early at %llu", LLU(w.now));
		EXPECT(++loops < (1 << 14), "too many wake-ups");
	}
	EXPECT(!tw_check(&w), "");
	EXPECT(advance_count(&w, at) == 1 && !tw_pending(&e), "");
	EXPECT(advance_count(&w, (1ULL << 40) - 1) == 0, "");
	EXPECT(tw_pending(&f) && !tw_check(&w), "");
	EXPECT(advance_count(&w, 1ULL << 40) == 1, "");
	tw_destroy(&w);
	return true;
}

/*
 * The busy bitmap and the occupancy view: the slot lengths add up, a slot
 * that empties clears its bit, and the checker sees a corrupt entry.
 */
static bool t_occupancy(const struct tw_ops *ops)
{
	struct tw_entry e[64];
	struct tw_wheel w;
	u64 now = 12345, sum = 0, saved;
	u32 slot;
	int i;

	EXPECT(!tw_init(&w, ops, &geo_default, now), "");
	for (i = 0; i < 64; i++) {
		tw_entry_init(&e[i]);
		EXPECT(!tw_insert(&w, &e[i], now + 1 + (i * 97) % 4000), "");
	}
	for (slot = 0; slot < ops->nr_slots(&w); slot++)
		sum += ops->slot_len(&w, slot);
	EXPECT(sum == 64, "slot lengths add up to %llu", LLU(sum));
	EXPECT(ops->slot_len(&w, ops->nr_slots(&w)) == 0, "out of range");
	for (i = 0; i < 64; i += 2)
		tw_remove(&w, &e[i]);
	EXPECT(!tw_check(&w), "bits of emptied slots cleared");
	/* A wrong expiry for its slot is caught... */
	saved = e[1].expires;
	e[1].expires += 1;
	EXPECT(tw_check(&w) == -EUCLEAN, "moved expiry");
	e[1].expires = saved;
	/* ...and so is a count that does not add up. */
	w.nr_pending++;
	EXPECT(tw_check(&w) == -EUCLEAN, "count");
	w.nr_pending--;
	EXPECT(!tw_check(&w), "");
	EXPECT(advance_count(&w, TW_NEVER - 1) == 32, "");
	EXPECT(!tw_check(&w) && tw_next(&w) == TW_NEVER, "");
	tw_destroy(&w);
	return true;
}

/*
 * tw_drain() takes everything, up to an entry due at TW_NEVER itself, and
 * leaves a wheel that is valid at its old w->now.
 */
static bool t_drain_never(const struct tw_ops *ops)
{
	u64 now = ops->id == TW_SIMPLE ? U64_MAX - 100 : 1000, n = 0;
	struct tw_entry e[3], *x;
	struct tw_wheel w;
	LIST_HEAD(out);
	int i;

	EXPECT(!tw_init(&w, ops, &geo_default, now), "");
	for (i = 0; i < 3; i++)
		tw_entry_init(&e[i]);
	EXPECT(!tw_insert(&w, &e[0], TW_NEVER), "");
	EXPECT(!tw_insert(&w, &e[1], TW_NEVER - 1), "");
	EXPECT(!tw_insert(&w, &e[2], now + 5), "");
	EXPECT(!tw_check(&w), "");
	tw_drain(&w, &out, TW_UNBOUNDED);
	list_for_each_entry(x, &out, list)
		n++;
	EXPECT(n == 3 && !w.nr_pending && w.now == now, "drained %llu",
	       LLU(n));
	EXPECT(!tw_check(&w) && tw_next(&w) == TW_NEVER, "");
	tw_destroy(&w);
	return true;
}

/* The differential test of tw_diff.c over geometries and starting ticks. */
static void sweep(const char *name, struct tw_geometry g, u64 seed, u64 nops)
{
	static const u64 starts[] = {
		0, (1ULL << 32) - 300, U64_MAX - (1ULL << 24),
		0x123456789abcdefULL,
	};
	struct tw_diff_src src = { .state = seed };
	struct tw_diff d = {
		.ops = tw_ops_by_name(name),
		.geo = g,
		.pool = 256,
		.src = &src,
	};
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(starts) && !ret; i++) {
		d.start = starts[i];
		/* Every other start with small budgets (tw.h, "Budgets"). */
		d.budget = i & 1 ? 1 + seed % 24 : 0;
		d.nr_ops = nops / ARRAY_SIZE(starts);
		ret = tw_diff_run(&d);
	}
	if (ret)
		snprintf(tap_why, sizeof(tap_why), "start %llu, seed %llu: %s",
			 LLU(d.start), LLU(seed), d.why);
	if (d.ops->id == TW_HIERARCHICAL)
		tap(!ret, "%s: differential, %u x %u bits, %llu ops", name,
		    g.levels, g.level_bits, LLU(nops));
	else
		tap(!ret, "%s: differential, wheel_bits %u, %llu ops", name,
		    g.wheel_bits, LLU(nops));
}

static u64 env_u64(const char *name, u64 def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

int main(int argc, char **argv)
{
	static const char *const wheels[] = {
		"simple", "hashed_sorted", "hashed", "hierarchical",
	};
	static const u32 wheel_bits[] = { 1, 2, 3, 7, 12, 16 };
	static const u32 hier[][2] = {
		{ 1, 1 }, { 1, 8 }, { 2, 2 }, { 3, 4 }, { 5, 3 }, { 3, 7 },
		{ 4, 16 }, { 8, 8 }, { 22, 3 }, { 64, 1 }, { 6, 11 },
	};
	u64 seed = env_u64("TW_SEED", (u64)time(NULL) ^ ((u64)getpid() << 32));
	u64 nops = env_u64("TW_OPS", 100000);
	struct tw_geometry g;
	unsigned int i, j;
	int c;

	tw_geometry_defaults(&geo_default);

	while ((c = getopt(argc, argv, "s:n:")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			nops = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-s seed] [-n ops]\n", argv[0]);
			return 2;
		}
	}
	printf("TAP version 13\n");
	printf("# seed %llu (reproduce: TW_SEED=%llu), %llu ops per geometry\n",
	       LLU(seed), LLU(seed), LLU(nops));
	for (i = 0; i < ARRAY_SIZE(wheels); i++) {
		if (!tw_ops_by_name(wheels[i])) {
			printf("Bail out! %s is not linked in\n", wheels[i]);
			return 1;
		}
	}
	tap(t_geometry(), "wheels refuse bad geometry with -EINVAL");
	tap(t_simple_max_interval(), "simple: MaxInterval, exact next");
	tap(t_hashed_rounds(), "hashed: rounds share a slot");
	tap(t_hashed_jumps(), "hashed: jumps of a round -1, 0, +1");
	tap(t_hashed_hint(), "hashed: a slot of 100000 far entries costs O(1)");
	tap(t_sorted_slots(), "hashed_sorted: sorted slots, FIFO, head stop");
	tap(t_hier_migration(), "hierarchical: migration down the levels");
	tap(t_hier_jump(), "hierarchical: a jump collects without migrating");
	tap(t_hier_narrow_top(), "hierarchical: narrow top level, many rounds");
	for (i = 0; i < ARRAY_SIZE(wheels); i++)
		tap(t_occupancy(tw_ops_by_name(wheels[i])),
		    "%s: busy bitmap, occupancy view, checker", wheels[i]);
	for (i = 0; i < ARRAY_SIZE(wheels); i++)
		tap(t_drain_never(tw_ops_by_name(wheels[i])),
		    "%s: drain takes an entry due at TW_NEVER", wheels[i]);
	for (i = 0; i < 3; i++) {
		for (j = 0; j < ARRAY_SIZE(wheel_bits); j++) {
			g = geo_default;
			g.wheel_bits = wheel_bits[j];
			sweep(wheels[i], g, seed + j, nops);
		}
	}
	for (j = 0; j < ARRAY_SIZE(hier); j++) {
		g = geo_default;
		g.levels = hier[j][0];
		g.level_bits = hier[j][1];
		sweep("hierarchical", g, seed + j, nops);
	}
	tap(!tw_user_warnings, "no unexpected WARN (%lu)", tw_user_warnings);
	printf("1..%u\n", tap_count);
	printf("# %u passed, %u failed\n", tap_count - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}
