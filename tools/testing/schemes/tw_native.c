// SPDX-License-Identifier: GPL-2.0
/*
 * tw_native.c - one scheme's cost in wall-clock time on this machine's own
 * CPU, with n entries resident: what the cache and the TLB make of each
 * scheme, which neither callgrind (tw_bench.c) nor a QEMU TCG guest (make
 * bench) models. bench-native.sh runs it for each scheme and n.
 *
 * Usage: tw_native [-r RUNS] [-b BATCHES] [-w WHEEL_BITS] [-c CPU] [-t MS]
 *                  [-k PAIRS] [-T TICKS] [-4] [-s | -o] SCHEME N
 *   -r   timed runs (default 7)
 *   -b   batches a timed loop is cut into (default 16)
 *   -w   wheel_bits of simple, hashed and hashed_sorted (default: the
 *        scheme's default, 12)
 *   -c   the CPU to pin to (default: the last one allowed)
 *   -t   the length a timed loop aims at, in ms (default 40)
 *   -k, -T  pairs and ticks per run, instead of aiming at -t (the miss
 *        model under callgrind uses them)
 *   -4   the entries on 4 KiB pages (default: 2 MiB pages, see below)
 *   -s, -o  set up in order of expiry, or in random order (default: -s
 *        for hashed_sorted, -o for the others)
 *
 * The state, set up untimed: n entries at random ticks uniform in [base +
 * LO, base + HI), base the wheel's time at set-up, LO = 2^19 and HI = 2^20
 * (the in-kernel bench's range, so a 4096-slot hashed wheel holds n / 4096
 * entries a slot, of later rounds), in random order, the entries themselves
 * at random places in one array. lawn holds at most geo.lawn_ttls distinct
 * TTLs (TTL = expiry - now when inserted), so its entries are at now plus
 * one of that many distinct intervals in [LO, HI) (4096 by default), chosen
 * once. hashed_sorted is set up in order of expiry, which leaves the same
 * sorted slots a random order would, without the walk of half a slot per
 * insert that would take hours at n = 10^7; the tree is set up in random
 * order, as random arrivals would leave it (in order of expiry it takes
 * another shape).
 *
 * Each run then times, with CLOCK_MONOTONIC read once at each end of a
 * loop long enough (-t) that the two reads are noise:
 *
 *   pair   K times: tw_remove() an entry chosen uniformly among all n, and
 *          tw_insert() it again at a random tick of the same [base + LO,
 *          base + HI) (lawn: now + one of its TTLs); n stays constant, and
 *          so does the distribution of the resident entries: were the new
 *          expiries drawn from now + [LO, HI), the ticks would move that
 *          window along and the later runs would insert more and more into
 *          a corner of it that holds only recently inserted, cache-hot
 *          entries (the tree got 30% faster from run to run so). The
 *          victims and the expiries are drawn before
 *          the loop into two arrays the loop reads in order, so the random
 *          number generator is outside the time; "loop" times the same loop
 *          reading the same arrays without the scheme calls.
 *   tick   T single-tick tw_advance()s with none due: every entry is due
 *          at base + LO or later (lawn: now + LO) and the warm-up and runs
 *          together advance less than LO / 2 ticks, so every tick is one
 *          with none due and the program fails if one collected anything.
 *          hashed visits one slot a tick
 *          and examines its n / M entries of later rounds; the others look
 *          at a bit or a cached head.
 *
 * K and T aim at -t ms from a short untimed warm-up of the same loop (with
 * -k, a warm-up of at least K pairs: the simulated caches start cold). The
 * runs share one set-up (one at n = 10^7 takes seconds): what varies
 * between them is the victims, the intervals and the slots the ticks
 * visit. The process is pinned to one CPU (sched_setaffinity()).
 *
 * Bytes per entry: sizeof(struct tw_entry) plus what the scheme asked of
 * the allocators (tw_user.h counts it) divided by n; the scheme never
 * allocates per entry, so that is its slots, queues and hash.
 *
 * Pages: in the kernel, callouts live in slab memory, which the direct map
 * reaches through 1 GiB or 2 MiB pages; so by default the entries are on
 * 2 MiB pages here too (madvise(MADV_HUGEPAGE), "always" or "madvise" in
 * /sys/kernel/mm/transparent_hugepage/enabled), and the output says how
 * many of them the kernel gave (the mapping is aligned to 2 MiB, so all of
 * it can be). The scheme's own arrays come from malloc(),
 * as kvmalloc()'s large ones come from vmalloc() on 4 KiB pages.
 *
 * Output, one line of key=value pairs for the set-up and one per run:
 *   setup scheme= n= wheel_bits= slots= cpu= bytes_per_entry= ...
 *   run=R pair_ns= loop_ns= tick_ns= examined_per_tick= pairs= ticks=
 *
 * Under callgrind (--cache-sim=yes --instr-atstart=no), only the timed
 * loops are instrumented, each dumped apart ("pair", "tick", "loop"), so a
 * dump's totals are simulated misses of that loop alone.
 */
#include <getopt.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include "tw.h"

unsigned long tw_user_warnings;
unsigned long tw_user_alloc_bytes;

#define NATIVE_LO		BIT_ULL(19)
#define NATIVE_HI		BIT_ULL(20)
#define NATIVE_TICK_BUDGET	(NATIVE_LO / 2)	/* ticks over all runs */
#define NATIVE_WARM_PAIRS	2048ULL
#define NATIVE_WARM_TICKS	16ULL
#define NATIVE_MIN_PAIRS	64ULL
#define NATIVE_MAX_PAIRS	BIT_ULL(21)
#define NATIVE_MIN_TICKS	16ULL
#define NATIVE_HUGE		(2UL << 20)

/**
 * struct native - one scheme, n entries, and the draws of one run
 * @w:		the wheel
 * @e:		the @n entries
 * @n:		entries resident
 * @bytes:	the size of the mapping of @e
 * @base:	the wheel's time at set-up: expiries are in [@base + LO, @base + HI)
 * @ttl:	lawn's distinct intervals, geo.lawn_ttls of them
 * @nr_ttl:	their number, 0 for the other schemes
 * @victim:	per pair, the index of the entry removed and re-inserted
 * @when:	per pair, its new expiry
 * @rng:	xorshift64 state
 */
struct native {
	struct tw_wheel w;
	struct tw_entry *e;
	u64 n;
	size_t bytes;
	u64 base;
	u64 *ttl;
	u64 nr_ttl;
	u32 *victim;
	u64 *when;
	u64 rng;
};

static u64 rnd(struct native *b)
{
	b->rng ^= b->rng << 13;
	b->rng ^= b->rng >> 7;
	b->rng ^= b->rng << 17;
	return b->rng;
}

/* Uniform in [0, @n), without the bias of a plain modulo to speak of. */
static u64 rnd_below(struct native *b, u64 n)
{
	return (u64)(((__uint128_t)rnd(b) * n) >> 64);
}

/* A random expiry in [base + LO, base + HI), or now + one of lawn's TTLs. */
static u64 expiry(struct native *b)
{
	if (b->nr_ttl)
		return b->w.now + b->ttl[rnd_below(b, b->nr_ttl)];
	return b->base + NATIVE_LO + rnd_below(b, NATIVE_HI - NATIVE_LO);
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "tw_native: %s: %s\n", what, strerror(err));
	exit(1);
}

/* Pin to @cpu, or to the last CPU allowed if @cpu < 0; the CPU. */
static int pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0) {
		if (sched_getaffinity(0, sizeof(set), &set))
			die("sched_getaffinity", errno);
		for (cpu = CPU_SETSIZE - 1; cpu > 0; cpu--)
			if (CPU_ISSET(cpu, &set))
				break;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity", errno);
	return cpu;
}

/* The huge pages of [@p, @p + @len), in kB, from /proc/self/smaps. */
static unsigned long huge_kb(const void *p, size_t len)
{
	unsigned long lo, hi, kb, total = 0;
	char *line = NULL, perms[5];
	size_t size = 0;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return 0;
	/*
	 * A mapping's first line is "lo-hi perms offset dev inode [path]", in
	 * hex, of any length (getline(): a long path is not cut into lines);
	 * its fields follow as "Name:   value kB", which never scan as that.
	 */
	while (getline(&line, &size, f) > 0) {
		if (sscanf(line, "%lx-%lx %4s ", &lo, &hi, perms) == 3)
			in = lo < (unsigned long)p + len && hi > (unsigned long)p;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			total += kb;
	}
	free(line);
	fclose(f);
	return total;
}

/* The entries, on 2 MiB pages unless @small_pages. */
static struct tw_entry *alloc_entries(struct native *b, bool small_pages)
{
	void *p;

	/*
	 * mmap() need not return a 2 MiB boundary: map one huge page more and
	 * start at the first boundary in it, so that no end of the entries is
	 * left on 4 KiB pages. Never unmapped.
	 */
	b->bytes = ALIGN(b->n * sizeof(*b->e), NATIVE_HUGE);
	p = mmap(NULL, b->bytes + NATIVE_HUGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap", errno);
	p = (void *)ALIGN((unsigned long)p, NATIVE_HUGE);
	if (!small_pages && madvise(p, b->bytes, MADV_HUGEPAGE))
		die("madvise", errno);
	if (small_pages && madvise(p, b->bytes, MADV_NOHUGEPAGE))
		die("madvise", errno);
	return p;
}

/* lawn: geo.lawn_ttls distinct intervals in [LO, HI). */
static void pick_ttls(struct native *b, u64 nr)
{
	unsigned long *used = calloc(BITS_TO_LONGS(NATIVE_HI - NATIVE_LO),
				     sizeof(long));
	u64 i, t;

	b->ttl = calloc(nr, sizeof(*b->ttl));
	if (!used || !b->ttl)
		die("calloc", ENOMEM);
	for (i = 0; i < nr; i++) {
		do {
			t = rnd_below(b, NATIVE_HI - NATIVE_LO);
		} while (test_bit(t, used));
		__set_bit(t, used);
		b->ttl[i] = NATIVE_LO + t;
	}
	b->nr_ttl = nr;
	free(used);
}

/*
 * The n entries at random ticks, in random order: a random permutation of
 * the entries, each given a random interval. hashed_sorted takes them in
 * order of expiry instead (a counting sort over the ticks of [LO, HI)).
 */
static void setup(struct native *b, bool sorted)
{
	u32 *order = malloc(b->n * sizeof(*order));
	u64 *exp = malloc(b->n * sizeof(*exp));
	u64 *count = NULL;
	u32 *by_time = NULL;
	u64 i, j, k, tmp;
	int ret;

	if (!order || !exp)
		die("malloc", ENOMEM);
	for (i = 0; i < b->n; i++)
		order[i] = i;
	for (i = b->n - 1; i > 0; i--) {
		j = rnd_below(b, i + 1);
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	b->base = b->w.now;
	for (i = 0; i < b->n; i++)
		exp[i] = expiry(b);
	if (sorted) {
		count = calloc(NATIVE_HI - NATIVE_LO + 1, sizeof(*count));
		by_time = malloc(b->n * sizeof(*by_time));
		if (!count || !by_time)
			die("calloc", ENOMEM);
		for (i = 0; i < b->n; i++)
			count[exp[i] - b->base - NATIVE_LO + 1]++;
		for (i = 1; i <= NATIVE_HI - NATIVE_LO; i++)
			count[i] += count[i - 1];
		for (i = 0; i < b->n; i++)
			by_time[count[exp[i] - b->base - NATIVE_LO]++] = i;
	}
	for (k = 0; k < b->n; k++) {
		i = sorted ? by_time[k] : k;
		tw_entry_init(&b->e[order[i]]);
		ret = tw_insert(&b->w, &b->e[order[i]], exp[i]);
		if (ret)
			die("tw_insert", -ret);
	}
	free(by_time);
	free(count);
	free(order);
	free(exp);
}

/* The victims and new expiries of @k pairs, before the loop that reads them. */
static void draw(struct native *b, u64 k)
{
	u64 i;

	for (i = 0; i < k; i++) {
		b->victim[i] = rnd_below(b, b->n);
		b->when[i] = expiry(b);
	}
}

/* Pairs [@from, @from + @k) of the drawn victims: ns for all of them. */
static u64 pairs(struct native *b, u64 from, u64 k)
{
	u64 i, t0 = now_ns();
	struct tw_entry *e;

	for (i = from; i < from + k; i++) {
		e = &b->e[b->victim[i]];
		tw_remove(&b->w, e);
		if (unlikely(tw_insert(&b->w, e, b->when[i])))
			die("tw_insert", EIO);
	}
	return now_ns() - t0;
}

/* The same loop over the same arrays, without the scheme: ns. */
static u64 loop_alone(struct native *b, u64 from, u64 k)
{
	u64 i, sum = 0, t0 = now_ns();

	for (i = from; i < from + k; i++) {
		sum += b->victim[i] ^ b->when[i];
		asm volatile("" : "+r" (sum));
	}
	return now_ns() - t0;
}

/* @t single ticks with none due: ns for all of them. */
static u64 ticks(struct native *b, u64 from, u64 t)
{
	u64 i, t0 = now_ns();
	LIST_HEAD(expired);

	for (i = 0; i < t; i++)
		tw_advance(&b->w, b->w.now + 1, &expired, TW_UNBOUNDED);
	t0 = now_ns() - t0;
	if (!list_empty(&expired)) {
		fprintf(stderr, "tw_native: %s collected an entry in a tick with none due\n",
			b->w.ops->name);
		exit(1);
	}
	return t0;
}

/**
 * struct timing - one timed loop of a run, in batches
 * @best:	ns per operation of the fastest batch
 * @mean:	ns per operation over all batches
 */
struct timing {
	double best;
	double mean;
};

/*
 * @batches batches of @per operations of @fn, each timed apart. On a shared
 * machine a batch in which this CPU was taken away is slower, never faster,
 * so the fastest batch is the cost (as make bench reads its own).
 */
static struct timing timed(struct native *b,
			   u64 (*fn)(struct native *, u64, u64),
			   u64 batches, u64 per)
{
	u64 i, ns, best = U64_MAX, total = 0;

	for (i = 0; i < batches; i++) {
		ns = fn(b, i * per, per);
		best = min(best, ns);
		total += ns;
	}
	return (struct timing){ (double)best / per,
				(double)total / (batches * per) };
}

/* @count that fills @target_ns at @per_ns each, within [@least, @most]. */
static u64 fit(u64 target_ns, double per_ns, u64 least, u64 most)
{
	double c = per_ns > 0 ? target_ns / per_ns : most;

	return c < least ? least : c > most ? most : (u64)c;
}

static void bad_usage(void)
{
	fputs("usage: tw_native [-r RUNS] [-b BATCHES] [-w WHEEL_BITS] [-c CPU] [-t MS]\n", stderr);
	fputs("                 [-k PAIRS] [-T TICKS] [-4] [-s | -o] SCHEME N\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long runs = 7, batches = 16, target_ms = 40, k = 0, t = 0;
	unsigned long long r, budget, warm;
	struct timing pair, loop, tick;
	u64 ns, alloc, examined, setup_ns;
	struct tw_geometry_error err;
	struct tw_geometry geo = { 0 };
	const struct tw_ops *ops;
	struct native b = { .rng = 0x2545f4914f6cdd1dULL };
	bool small_pages = false;
	int opt, cpu = -1, wheel_bits = -1, sorted = -1, ret;

	while ((opt = getopt(argc, argv, "r:b:w:c:t:k:T:4so")) != -1) {
		switch (opt) {
		case 'r':
			runs = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			batches = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			wheel_bits = atoi(optarg);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 't':
			target_ms = strtoull(optarg, NULL, 0);
			break;
		case 'k':
			k = strtoull(optarg, NULL, 0);
			break;
		case 'T':
			t = strtoull(optarg, NULL, 0);
			break;
		case '4':
			small_pages = true;
			break;
		case 's':
			sorted = 1;
			break;
		case 'o':
			sorted = 0;
			break;
		default:
			bad_usage();
		}
	}
	if (argc - optind != 2 || !runs || !batches ||
	    runs * batches > NATIVE_TICK_BUDGET - NATIVE_WARM_TICKS)
		bad_usage();
	ops = tw_ops_by_name(argv[optind]);
	b.n = strtoull(argv[optind + 1], NULL, 0);
	if (!ops || !b.n || b.n > U32_MAX)
		bad_usage();

	cpu = pin(cpu);
	tw_geometry_defaults(&geo);
	if (wheel_bits >= 0)
		geo.wheel_bits = wheel_bits;
	ret = tw_geometry_check(ops, &geo, &err);
	if (ret) {
		fprintf(stderr, "tw_native: %s: %s\n", err.field, err.why);
		return 2;
	}
	if (tw_max_interval(ops, &geo) < NATIVE_HI) {
		fprintf(stderr, "tw_native: %s holds intervals up to %llu ticks, not %llu\n",
			ops->name, (unsigned long long)tw_max_interval(ops, &geo),
			(unsigned long long)NATIVE_HI);
		return 2;
	}
	alloc = tw_user_alloc_bytes;
	ret = tw_init(&b.w, ops, &geo, 0);
	if (ret)
		die("tw_init", -ret);
	alloc = tw_user_alloc_bytes - alloc;
	if (ops->id == TW_LAWN)
		pick_ttls(&b, geo.lawn_ttls);
	b.e = alloc_entries(&b, small_pages);
	ns = now_ns();
	if (sorted < 0)
		sorted = ops->id == TW_HASHED_SORTED;
	setup(&b, sorted);
	setup_ns = now_ns() - ns;

	b.victim = malloc(NATIVE_MAX_PAIRS * sizeof(*b.victim));
	b.when = malloc(NATIVE_MAX_PAIRS * sizeof(*b.when));
	if (!b.victim || !b.when)
		die("malloc", ENOMEM);

	/*
	 * A warm-up of each loop, which sizes the batches: @k pairs and @t
	 * ticks a batch, so that a run's batches of each last -t ms in all.
	 * Under callgrind it warms the simulated caches, and is not counted:
	 * there, -k pairs at least, or the cache of the model would start
	 * nearly as cold as the set-up (not simulated) left it.
	 */
	CALLGRIND_START_INSTRUMENTATION;
	warm = clamp(k, NATIVE_WARM_PAIRS, NATIVE_MAX_PAIRS);
	draw(&b, warm);
	pair = timed(&b, pairs, 1, warm);
	tick = timed(&b, ticks, 1, NATIVE_WARM_TICKS);
	k = k ?: fit(target_ms * 1000000 / batches, pair.best,
		     NATIVE_MIN_PAIRS, NATIVE_MAX_PAIRS / batches);
	k = min(k, NATIVE_MAX_PAIRS / batches);
	budget = (NATIVE_TICK_BUDGET - NATIVE_WARM_TICKS) / (runs * batches);
	t = t ?: fit(target_ms * 1000000 / batches, tick.best, 1, budget);
	t = min(t, budget);

	/* One line, written in pieces: bench-native.sh reads it by key. */
	printf("setup scheme=%s n=%llu cpu=%d wheel_bits=%u levels=%u level_bits=%u",
	       ops->name, (unsigned long long)b.n, cpu, geo.wheel_bits,
	       geo.levels, geo.level_bits);
	printf(" lawn_ttls=%u slots=%u entries_per_slot=%.3f distinct_intervals=%llu",
	       geo.lawn_ttls, ops->nr_slots ? ops->nr_slots(&b.w) : 0,
	       ops->nr_slots ? (double)b.n / ops->nr_slots(&b.w) : 0.0,
	       (unsigned long long)(b.nr_ttl ?: NATIVE_HI - NATIVE_LO));
	printf(" entry_bytes=%zu scheme_bytes=%llu bytes_per_entry=%.2f huge_kb=%lu",
	       sizeof(*b.e), (unsigned long long)alloc,
	       sizeof(*b.e) + (double)alloc / b.n, huge_kb(b.e, b.bytes));
	printf(" entries_kb=%zu setup_s=%.2f setup_sorted=%d batches=%llu",
	       b.bytes >> 10, setup_ns / 1e9, sorted, batches);
	printf(" pairs=%llu ticks=%llu runs=%llu\n", k * batches, t * batches, runs);
	fflush(stdout);

	for (r = 1; r <= runs; r++) {
		draw(&b, k * batches);
		CALLGRIND_ZERO_STATS;
		pair = timed(&b, pairs, batches, k);
		CALLGRIND_DUMP_STATS_AT("pair");
		loop = timed(&b, loop_alone, batches, k);
		CALLGRIND_DUMP_STATS_AT("loop");
		examined = b.w.stats.examined;
		tick = timed(&b, ticks, batches, t);
		CALLGRIND_DUMP_STATS_AT("tick");
		examined = b.w.stats.examined - examined;
		printf("run=%llu pair_ns=%.2f pair_mean_ns=%.2f loop_ns=%.2f",
		       r, pair.best, pair.mean, loop.best);
		printf(" tick_ns=%.2f tick_mean_ns=%.2f examined_per_tick=%.2f",
		       tick.best, tick.mean, (double)examined / (t * batches));
		printf(" pairs=%llu ticks=%llu\n", k * batches, t * batches);
		fflush(stdout);
	}
	CALLGRIND_STOP_INSTRUMENTATION;

	if (b.w.nr_pending != b.n || tw_check(&b.w) || tw_user_warnings) {
		fprintf(stderr, "tw_native: %s: check failed after the runs\n",
			ops->name);
		return 1;
	}
	return 0;
}
