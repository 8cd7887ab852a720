// SPDX-License-Identifier: GPL-2.0
/*
 * callout-bench - /dev/callout against what user space has instead.
 *
 * Usage: callout-bench TEST [-n N] [-r REPS] [-b BATCH] [-t BUDGET_MS]
 *                           [-s SECONDS] [-m MIN_MS] [-M MAX_MS]
 *
 * Each run prints one line of key=value pairs (times in ns) that
 * scripts/bench.sh collects. The pair tests keep N of their own pending at
 * random times 500..1000 s ahead and restart one more at 1000..1500 s,
 * REPS times (default 20000) in batches of BATCH_REPS (about a millisecond,
 * shorter than a host scheduler slice): a figure is the mean of the fastest
 * batch (a batch the vCPU lost its CPU in is slower, never faster), with the
 * mean of all beside it (key_mean_ns). The first batch is one operation;
 * where the fastest so far says BATCH_REPS would take over 4 ms, a batch
 * is as many as take about 1 ms (at least one), and each timed loop stops
 * after 2 batches once the operations done would have taken BUDGET_MS
 * (default 500) at the fastest batch's pace, saying how many it timed
 * (key_ops) when that was fewer than REPS. The re-arm
 * tests also re-arm a uniformly chosen one of the N (rearm_random_ns; the
 * same choices, from the same seed, in every series) at a new time in
 * their window, in batches of at least 64 (what one costs depends on
 * which it is).
 *
 *   floor    CALLOUT_IOC_INFO: the cost of an ioctl on /dev/callout
 *   set      CALLOUT_IOC_SET + CALLOUT_IOC_UNSET (pair_ns); with N >= 100000
 *            also the kernel memory each pending callout costs (Slab: of
 *            /proc/meminfo; not the handle table, which takes pages)
 *   reset    CALLOUT_IOC_RESET of one pending callout (rearm_ns), and of a
 *            random one of the N (rearm_random_ns)
 *   submit   CALLOUT_IOC_SUBMIT in batches of BATCH (default 1): BATCH SETs
 *            then BATCH UNSETs of their handles (pair_ns, per pair), BATCH
 *            RESETs of the BATCH newest (rearm_ns, per RESET) and of random
 *            ones of the N (rearm_random_ns)
 *   timeout  CALLOUT_IOC_TIMEOUT + CALLOUT_IOC_UNTIMEOUT (pair_ns)
 *   defer    N callouts set through libcallout, and one more: a deferral of
 *            that one with callout_defer_by() (rearm_ns), and of a random
 *            one of the N (rearm_random_ns): what a program pays to push a
 *            timer back, its time source included (a CLOCK_MONOTONIC_COARSE
 *            read from the vDSO, a division by the tick and one store into
 *            the mapped due-time table; no system call)
 *   timerfd  timerfd_settime arm + disarm (pair_ns) and re-arm (rearm_ns),
 *            N armed timerfds
 *   posix    timer_settime arm + disarm and re-arm, N POSIX timers
 *   iouring  io_uring timeouts (liburing), BATCH (default 1, at most 128) a
 *            submission, N of their own outstanding on the ring: BATCH
 *            IORING_OP_TIMEOUTs then BATCH IORING_OP_TIMEOUT_REMOVEs
 *            (pair_ns), BATCH IORING_TIMEOUT_UPDATEs of the BATCH newest
 *            (rearm_ns) and of random ones of the N (rearm_random_ns)
 *   late     N one-shots with random timeouts of MIN_MS..MAX_MS (default
 *            10..300) through /dev/callout, then the same through N
 *            timerfds: lateness p50/p99/max and early count of each (callout:
 *            fired_ns from the event and the time read() returned it);
 *            then N more through /dev/callout, each set at its timeout and
 *            at once deferred by callout_defer() 10..100 ms further
 *            (callout_defer_*: lateness after the deferred deadline;
 *            callout_defer_unseen: deferrals that came after their callout
 *            was due, left out, as a stalled host can make them).
 *            With -b BATCH, only the callouts, set through
 *            CALLOUT_IOC_SUBMIT BATCH at a time (submit_*; submit_user_early:
 *            fired before the timeout counted from just before the call)
 *   idle     SECONDS (default 5) with nothing pending, then with one callout
 *            an hour ahead: runs of callout's tick per second (debugfs
 *            ticks_run) and its hrtimer expiries per second (the
 *            timer:hrtimer_expire_entry tracepoint filtered to callout_tick);
 *            then with a 10 ms periodic callout whose events a child
 *            process reads, the control (about 100/s)
 *   unread   N (default 1000; make bench: 32768) periodic callouts of one
 *            tick that nobody reads, over SECONDS (default 5) from 100 ms
 *            after they are set: the share of all CPUs' time spent in
 *            softirq (/proc/stat), the funcs run (debugfs expired: at most
 *            one each, a periodic callout waiting for its reader) and the
 *            owner's CPU time
 *   bytes    the memory the kernel reports used (MemFree, and the per-CPU
 *            free lists of /proc/zoneinfo)
 *            per pending SET, at N (default 1000; make bench: 1000000) of
 *            them in one file (per_set: object, handle slot, due word);
 *            per TIMEOUT, at N / 10 (per_timeout); per open /dev/callout
 *            with no callout, at N / 100 files (per_file), and per open
 *            timerfd, disarmed, the same way (timerfd_per_file): each the
 *            drop in MemFree from before the first to after the last,
 *            over the count (needs root for the files' rlimit)
 *   stall    the longest stall of a same-CPU real-time thread while N
 *            one-shots come due at one moment and their file is closed
 *            unread (needs root, to make that thread SCHED_FIFO and to drop
 *            to nobody for the rest): an unprivileged process pinned to the
 *            last online CPU sets N callouts due at one absolute time (all
 *            on that CPU's base), sleeps until 300 ms after it and closes
 *            the file (the time allowed to set them is 4x what 2000 SETs
 *            took just before, at least 40 us a SET: set_before_due says
 *            whether it sufficed); from its last SET to the return of its
 *            close(), a SCHED_FIFO priority-1 thread on the same CPU
 *            alternates 200 us
 *            of reading CLOCK_MONOTONIC in a loop with 200 us of sleep (so
 *            the other process gets the CPU without RT throttling) and
 *            keeps its longest gap: between two reads, or from the wake-up
 *            asked for to the first read after it. gap_ms, and the same
 *            split by when the gap ended: expire_gap_ms before close(),
 *            close_gap_ms during it; close_ms, how long close() took
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/callout.h>
#include <liburing.h>

#include "libcallout.h"

#define NS	1000000000ULL
#define NR_TIMES 1024
#define BATCH_REPS 200
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

typedef unsigned long long u64;

static u64 n = 1000, reps = 20000, seconds = 5, min_ms = 10, max_ms = 300;
static u64 budget_ms = 500, batch;	/* -b: 0 unless given */
static u64 pend_ns[NR_TIMES], restart_ns[NR_TIMES];
static const char *test;

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

/* The exit status when a peer is not in this kernel (kselftest's skip) */
#define EXIT_NO_PEER	4

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "callout-bench %s: ", test);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s%s\n", errno ? ": " : "", errno ? strerror(errno) : "");
	exit(1);
}

static void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size);

	if (!p)
		die("out of memory");
	return p;
}

/*
 * Random times: pending at 500..1000 s, restarts at 1000..1500 s; thirds
 * of the longest timeout instead when the scheme holds less (simple).
 */
static void make_times(void)
{
	struct callout_info info;
	u64 third = 500 * NS;
	unsigned int i;
	int fd = open("/dev/callout", O_RDONLY);

	if (fd >= 0 && !ioctl(fd, CALLOUT_IOC_INFO, &info) &&
	    info.max_timeout_ns < 1500 * NS)
		third = info.max_timeout_ns / 3 - 1000;
	if (fd >= 0)
		close(fd);
	srandom(1);
	for (i = 0; i < NR_TIMES; i++) {
		pend_ns[i] = third + (u64)random() % third;
		restart_ns[i] = 2 * third + (u64)random() % third;
	}
}

static u64 pend_time(u64 i)
{
	return pend_ns[(i * 7919) % NR_TIMES];
}

/*
 * The random re-arms (rearm_random_ns): which of the N resident timers
 * each one re-arms, drawn uniformly by xorshift64* (a few ns; its cost is
 * in the figure) from the same seed in every series, so that every series
 * re-arms the same timers in the same order. The new time is pend_ns[r]:
 * the one re-armed stays in the window the N were set in.
 */
static u64 rng_state;

static void rng_seed(void)
{
	rng_state = 0x9e3779b97f4a7c15ULL;
}

static u64 rng_index(u64 bound)
{
	u64 x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return (u64)(((__uint128_t)(x * 0x2545f4914f6cdd1dULL) * bound) >> 64);
}

static void print_ns(const char *key, u64 total, u64 count)
{
	printf(" %s=%.1f", key, count ? (double)total / count : 0.0);
}

/*
 * A timed loop: @units units of @k operations each (a unit is one call
 * for the batched tests: a submission of k operations), in batches of
 * @min_per to @max_per units. The first batch is @min_per units (one,
 * but for the random re-arms); from then on a batch is @max_per units
 * unless the fastest unit so far says that would take more than
 * BATCH_NS_MAX, and then as many as take about BATCH_NS (at least
 * @min_per: an io_uring pair at N = 100000 takes milliseconds). The loop
 * stops after @units units, or after MIN_BATCHES batches once those done
 * would have taken budget_ms at the fastest batch's pace: a bound in time,
 * not in count, so that a slow peer cannot stretch the run.
 */
struct timing {
	u64 k, min_per, max_per, per, units, done, batches, total, start;
	double best;			/* ns per operation, fastest batch */
};

#define BATCH_NS	1000000ULL
#define BATCH_NS_MAX	4000000ULL
#define MIN_BATCHES	2
#define RANDOM_OPS	64		/* the least a random re-arm batch */

static u64 batch_reps(void)
{
	return reps < BATCH_REPS ? reps : BATCH_REPS;
}

/* @k operations a unit; reps operations in all (whole units). */
static void timing_init_k(struct timing *t, u64 k)
{
	t->k = k;
	if (k == 1) {
		t->max_per = batch_reps();
		t->units = reps / t->max_per * t->max_per;
	} else {
		t->max_per = BATCH_REPS / k ? BATCH_REPS / k : 1;
		t->units = reps / k ? reps / k : 1;
	}
	t->min_per = 1;
	t->per = 1;
	t->done = 0;
	t->batches = 0;
	t->total = 0;
	t->best = -1;
}

static void timing_init(struct timing *t)
{
	timing_init_k(t, 1);
}

/*
 * The random re-arms: what one costs depends on which timer it is (where
 * it lies in a list or a hash chain), so a batch is never shorter than
 * RANDOM_OPS operations: its mean is over that many random choices at
 * least, never one lucky one.
 */
static void timing_init_random(struct timing *t, u64 k)
{
	timing_init_k(t, k);
	t->min_per = (RANDOM_OPS + k - 1) / k;
	if (t->min_per > t->max_per)
		t->max_per = t->min_per;
	t->per = t->min_per;
}

/*
 * Whether to run another batch: not once the operations done would have
 * taken budget_ms at the fastest batch's pace. That bounds a slow peer by
 * its own cost, where the wall clock would also cut the cheap series
 * short whenever the host is busy (and leave their fastest batch fewer
 * batches to be found among).
 */
static int timing_more(struct timing *t)
{
	return t->done < t->units &&
	       (t->batches < MIN_BATCHES ||
		t->best * t->done * t->k < budget_ms * 1e6);
}

/* Start a batch: the number of units to run in it. */
static u64 batch_begin(struct timing *t)
{
	u64 left = t->units - t->done;

	t->start = now_ns();
	return t->per < left ? t->per : left;
}

/* End a batch of @m units. */
static void batch_end(struct timing *t, u64 m)
{
	u64 ns = now_ns() - t->start;
	double op = (double)ns / (m * t->k), unit;

	if (t->best < 0 || op < t->best)
		t->best = op;
	t->total += ns;
	t->done += m;
	t->batches++;
	unit = t->best * t->k;
	t->per = t->max_per;
	if (unit * t->max_per > BATCH_NS_MAX)
		t->per = unit < BATCH_NS ? (u64)(BATCH_NS / unit) : 1;
	if (t->per < t->min_per)
		t->per = t->min_per;
}

/*
 * "STEM_ns=" the fastest batch's mean, "STEM_mean_ns=" the mean of all, and
 * "STEM_ops=" the operations timed when the time budget cut the loop short.
 */
static void print_timing(const char *stem, const struct timing *t)
{
	printf(" %s_ns=%.1f %s_mean_ns=%.1f", stem, t->best < 0 ? 0.0 : t->best,
	       stem, t->done ? (double)t->total / (t->done * t->k) : 0.0);
	if (t->done < t->units)
		printf(" %s_ops=%llu", stem, t->done * t->k);
}

/*
 * The figures of a test with pair, re-arm and random re-arm loops (the
 * last only with N resident timers to choose from) and its setup's per
 * timer, ending its line.
 */
static void print_rearm_figures(const struct timing *pair,
				const struct timing *rearm,
				const struct timing *rnd, u64 setup)
{
	print_timing("pair", pair);
	print_timing("rearm", rearm);
	if (n)
		print_timing("rearm_random", rnd);
	print_ns("setup_ns", setup, n);
	printf("\n");
}

static void head(const char *iface)
{
	u64 done = reps / batch_reps() * batch_reps();

	printf("test=%s iface=%s n=%llu reps=%llu", test, iface, n, done);
}

static int open_dev(void)
{
	int fd = open("/dev/callout", O_RDWR | O_NONBLOCK);

	if (fd < 0)
		die("open /dev/callout");
	return fd;
}

static long meminfo_kb(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			v = strtol(line + len + 1, NULL, 10);
	fclose(f);
	return v;
}

static u64 set_one(int fd, u64 timeout_ns)
{
	struct callout_set s = { .timeout_ns = timeout_ns };

	if (ioctl(fd, CALLOUT_IOC_SET, &s))
		die("CALLOUT_IOC_SET");
	return s.handle;
}

static void run_floor(void)
{
	struct callout_info info;
	int fd = open_dev();
	struct timing t;
	u64 i, m;

	timing_init(&t);
	while (timing_more(&t)) {
		m = batch_begin(&t);
		for (i = 0; i < m; i++)
			if (ioctl(fd, CALLOUT_IOC_INFO, &info))
				die("CALLOUT_IOC_INFO");
		batch_end(&t, m);
	}
	head("ioctl_info");
	print_timing("op", &t);
	printf("\n");
	close(fd);
}

/*
 * set and reset: N pending through handles; reset re-arms the newest
 * (rearm_ns), then a uniformly chosen one of the N (rearm_random_ns).
 */
static void run_set(int reset)
{
	long slab0 = meminfo_kb("Slab"), slab1;
	int fd = open_dev();
	u64 i, m, r, t0, h, setup, *handles = xcalloc(n, sizeof(*handles));
	struct timing t, rnd;

	t0 = now_ns();
	for (i = 0; i < n; i++)
		handles[i] = set_one(fd, pend_time(i));
	setup = now_ns() - t0;
	slab1 = meminfo_kb("Slab");

	if (reset) {
		struct callout_reset rs = { .handle = set_one(fd, restart_ns[0]) };

		timing_init(&t);
		for (r = 0; timing_more(&t);) {
			m = batch_begin(&t);
			for (i = 0; i < m; i++, r++) {
				rs.timeout_ns = restart_ns[r % NR_TIMES];
				if (ioctl(fd, CALLOUT_IOC_RESET, &rs))
					die("CALLOUT_IOC_RESET");
			}
			batch_end(&t, m);
		}
		timing_init_random(&rnd, 1);
		rng_seed();
		for (r = 0; n && timing_more(&rnd);) {
			m = batch_begin(&rnd);
			for (i = 0; i < m; i++, r++) {
				rs.handle = handles[rng_index(n)];
				rs.timeout_ns = pend_ns[r % NR_TIMES];
				if (ioctl(fd, CALLOUT_IOC_RESET, &rs))
					die("CALLOUT_IOC_RESET");
			}
			batch_end(&rnd, m);
		}
		head("callout_reset");
		print_timing("rearm", &t);
		if (n)
			print_timing("rearm_random", &rnd);
	} else {
		timing_init(&t);
		for (r = 0; timing_more(&t);) {
			m = batch_begin(&t);
			for (i = 0; i < m; i++, r++) {
				h = set_one(fd, restart_ns[r % NR_TIMES]);
				if (ioctl(fd, CALLOUT_IOC_UNSET, &h))
					die("CALLOUT_IOC_UNSET");
			}
			batch_end(&t, m);
		}
		head("callout_set");
		print_timing("pair", &t);
	}
	print_ns("setup_ns", setup, n);
	if (!reset && n >= 100000 && slab0 >= 0 && slab1 >= 0)
		printf(" slab_bytes_per_callout=%.1f",
		       (slab1 - slab0) * 1024.0 / n);
	printf("\n");
	close(fd);	/* cancels and frees all of them */
	free(handles);
}

static void run_timeout(void)
{
	struct callout_info info;
	struct callout_timeout to = { .func = 1 };
	struct callout_untimeout un = { .func = 1 };
	int fd = open_dev();
	u64 i, m, r, t0, setup;
	struct timing t;

	if (ioctl(fd, CALLOUT_IOC_INFO, &info))
		die("CALLOUT_IOC_INFO");
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		to.arg = i + 1;
		to.ticks = pend_time(i) / info.tick_ns;
		if (ioctl(fd, CALLOUT_IOC_TIMEOUT, &to))
			die("CALLOUT_IOC_TIMEOUT");
	}
	setup = now_ns() - t0;
	to.arg = n + 1;
	un.arg = n + 1;
	timing_init(&t);
	for (r = 0; timing_more(&t);) {
		m = batch_begin(&t);
		for (i = 0; i < m; i++, r++) {
			to.ticks = restart_ns[r % NR_TIMES] / info.tick_ns;
			if (ioctl(fd, CALLOUT_IOC_TIMEOUT, &to))
				die("CALLOUT_IOC_TIMEOUT");
			if (ioctl(fd, CALLOUT_IOC_UNTIMEOUT, &un))
				die("CALLOUT_IOC_UNTIMEOUT");
		}
		batch_end(&t, m);
	}
	head("callout_timeout");
	print_timing("pair", &t);
	print_ns("setup_ns", setup, n);
	printf("\n");
	close(fd);
}

/*
 * CALLOUT_IOC_SUBMIT of @nr operations; every one must be carried out and
 * succeed (the results are checked in the timed loops too: a program that
 * batches must look at them).
 */
static void submit(int fd, struct callout_op *ops, u64 nr)
{
	struct callout_submit s = { .ops = (uintptr_t)ops, .nr = nr };
	u64 i;

	if (ioctl(fd, CALLOUT_IOC_SUBMIT, &s))
		die("CALLOUT_IOC_SUBMIT of %llu (%u done)", nr, s.done);
	if (s.done != nr) {
		errno = 0;
		die("CALLOUT_IOC_SUBMIT: %u of %llu done", s.done, nr);
	}
	for (i = 0; i < nr; i++) {
		if (ops[i].result) {
			errno = -ops[i].result;
			die("CALLOUT_IOC_SUBMIT: operation %llu (op %u)", i,
			    ops[i].op);
		}
	}
}

/*
 * submit: the same through CALLOUT_IOC_SUBMIT in batches of K (-b):
 * the N set K at a time; pair_ns, a batch of K SETs then a batch of K
 * UNSETs of the handles they returned, per pair; rearm_ns, a batch of K
 * RESETs of the K newest callouts (set after the N), per RESET;
 * rearm_random_ns, a batch of K RESETs each of a uniformly chosen one of
 * the N.
 */
static void run_submit(void)
{
	struct callout_op *set = xcalloc(batch, sizeof(*set));
	struct callout_op *un = xcalloc(batch, sizeof(*un));
	struct callout_op *rs = xcalloc(batch, sizeof(*rs));
	u64 *handles = xcalloc(n, sizeof(*handles)), *newest;
	u64 i, j, m, k = batch, r, t0, setup;
	struct timing pair, rearm, rnd;
	int fd = open_dev();
	char iface[64];

	newest = xcalloc(batch, sizeof(*newest));
	for (j = 0; j < batch; j++) {
		set[j].op = CALLOUT_OP_SET;
		un[j].op = CALLOUT_OP_UNSET;
		rs[j].op = CALLOUT_OP_RESET;
	}
	t0 = now_ns();
	for (i = 0; i < n; i += k) {
		k = n - i < batch ? n - i : batch;
		for (j = 0; j < k; j++)
			set[j].timeout = pend_time(i + j);
		submit(fd, set, k);
		for (j = 0; j < k; j++)
			handles[i + j] = set[j].handle;
	}
	setup = now_ns() - t0;
	for (j = 0; j < batch; j++)
		set[j].timeout = restart_ns[j % NR_TIMES];
	submit(fd, set, batch);
	for (j = 0; j < batch; j++)
		newest[j] = set[j].handle;

	timing_init_k(&pair, batch);
	for (r = 0; timing_more(&pair);) {
		m = batch_begin(&pair);
		for (i = 0; i < m; i++) {
			for (j = 0; j < batch; j++, r++)
				set[j].timeout = restart_ns[r % NR_TIMES];
			submit(fd, set, batch);
			for (j = 0; j < batch; j++)
				un[j].handle = set[j].handle;
			submit(fd, un, batch);
		}
		batch_end(&pair, m);
	}
	timing_init_k(&rearm, batch);
	for (r = 0; timing_more(&rearm);) {
		m = batch_begin(&rearm);
		for (i = 0; i < m; i++) {
			for (j = 0; j < batch; j++, r++) {
				rs[j].handle = newest[j];
				rs[j].timeout = restart_ns[r % NR_TIMES];
			}
			submit(fd, rs, batch);
		}
		batch_end(&rearm, m);
	}
	timing_init_random(&rnd, batch);
	rng_seed();
	for (r = 0; n && timing_more(&rnd);) {
		m = batch_begin(&rnd);
		for (i = 0; i < m; i++) {
			for (j = 0; j < batch; j++, r++) {
				rs[j].handle = handles[rng_index(n)];
				rs[j].timeout = pend_ns[r % NR_TIMES];
			}
			submit(fd, rs, batch);
		}
		batch_end(&rnd, m);
	}
	snprintf(iface, sizeof(iface), "callout_submit_%llu", batch);
	printf("test=%s iface=%s n=%llu reps=%llu", test, iface, n,
	       pair.units * batch);
	print_rearm_figures(&pair, &rearm, &rnd, setup);
	close(fd);
	free(set);
	free(un);
	free(rs);
	free(handles);
	free(newest);
}

static struct itimerspec its_of(u64 ns)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = ns / NS, .tv_nsec = ns % NS },
	};

	return its;
}

static void raise_limit(int resource, u64 want)
{
	struct rlimit rl = { .rlim_cur = want, .rlim_max = want };
	struct rlimit old;

	if (getrlimit(resource, &old) == 0 && old.rlim_cur >= want)
		return;
	if (setrlimit(resource, &rl))
		die("setrlimit to %llu (run as root)", want);
}

static void run_timerfd(void)
{
	static const struct itimerspec off;
	struct itimerspec its;
	struct timing pair, rearm, rnd;
	u64 i, m, r, t0, setup;
	int *fds, extra;

	raise_limit(RLIMIT_NOFILE, n + 64);
	fds = xcalloc(n, sizeof(*fds));
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		fds[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		if (fds[i] < 0)
			die("timerfd_create %llu", i);
		its = its_of(pend_time(i));
		if (timerfd_settime(fds[i], 0, &its, NULL))
			die("timerfd_settime");
	}
	setup = now_ns() - t0;
	extra = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	if (extra < 0)
		die("timerfd_create");
	timing_init(&pair);
	timing_init(&rearm);
	for (r = 0; timing_more(&pair);) {
		m = batch_begin(&pair);
		for (i = 0; i < m; i++, r++) {
			its = its_of(restart_ns[r % NR_TIMES]);
			if (timerfd_settime(extra, 0, &its, NULL) ||
			    timerfd_settime(extra, 0, &off, NULL))
				die("timerfd_settime");
		}
		batch_end(&pair, m);
	}
	for (r = 0; timing_more(&rearm);) {
		m = batch_begin(&rearm);
		for (i = 0; i < m; i++, r++) {
			its = its_of(restart_ns[r % NR_TIMES]);
			if (timerfd_settime(extra, 0, &its, NULL))
				die("timerfd_settime");
		}
		batch_end(&rearm, m);
	}
	timing_init_random(&rnd, 1);
	rng_seed();
	for (r = 0; n && timing_more(&rnd);) {
		m = batch_begin(&rnd);
		for (i = 0; i < m; i++, r++) {
			its = its_of(pend_ns[r % NR_TIMES]);
			if (timerfd_settime(fds[rng_index(n)], 0, &its, NULL))
				die("timerfd_settime");
		}
		batch_end(&rnd, m);
	}
	head("timerfd");
	print_rearm_figures(&pair, &rearm, &rnd, setup);
	close(extra);
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
}

static void run_posix(void)
{
	static const struct itimerspec off;
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec its;
	struct timing pair, rearm, rnd;
	u64 i, m, r, t0, setup;
	timer_t *ts, extra;

	raise_limit(RLIMIT_SIGPENDING, n + 64);
	ts = xcalloc(n, sizeof(*ts));
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (timer_create(CLOCK_MONOTONIC, &sev, &ts[i]))
			die("timer_create %llu", i);
		its = its_of(pend_time(i));
		if (timer_settime(ts[i], 0, &its, NULL))
			die("timer_settime");
	}
	setup = now_ns() - t0;
	if (timer_create(CLOCK_MONOTONIC, &sev, &extra))
		die("timer_create");
	timing_init(&pair);
	timing_init(&rearm);
	for (r = 0; timing_more(&pair);) {
		m = batch_begin(&pair);
		for (i = 0; i < m; i++, r++) {
			its = its_of(restart_ns[r % NR_TIMES]);
			if (timer_settime(extra, 0, &its, NULL) ||
			    timer_settime(extra, 0, &off, NULL))
				die("timer_settime");
		}
		batch_end(&pair, m);
	}
	for (r = 0; timing_more(&rearm);) {
		m = batch_begin(&rearm);
		for (i = 0; i < m; i++, r++) {
			its = its_of(restart_ns[r % NR_TIMES]);
			if (timer_settime(extra, 0, &its, NULL))
				die("timer_settime");
		}
		batch_end(&rearm, m);
	}
	timing_init_random(&rnd, 1);
	rng_seed();
	for (r = 0; n && timing_more(&rnd);) {
		m = batch_begin(&rnd);
		for (i = 0; i < m; i++, r++) {
			its = its_of(pend_ns[r % NR_TIMES]);
			if (timer_settime(ts[rng_index(n)], 0, &its, NULL))
				die("timer_settime");
		}
		batch_end(&rnd, m);
	}
	head("posix_timer");
	print_rearm_figures(&pair, &rearm, &rnd, setup);
	timer_delete(extra);
	for (i = 0; i < n; i++)
		timer_delete(ts[i]);
	free(ts);
}

/*
 * io_uring timeouts (liburing): N IORING_OP_TIMEOUTs of their own
 * outstanding on one ring, K operations a submission (-b). A timeout's
 * user_data is its number (1..N the N, then the K newest, then the K of
 * the pair); a remove's and an update's has URING_CTL set too. The CQEs
 * are reaped after every submission, in the timed loops too, and checked:
 * every remove and update must succeed, and every timeout end cancelled
 * (none may expire).
 */
#define URING_CTL	0x8000000000000000ULL	/* bit 63 */
#define URING_SQ	128
#define URING_CQ	4096

struct uring {
	struct io_uring ring;
	struct __kernel_timespec *ts;	/* one per operation of a submission */
	u64 ctl_sent, ctl_done;		/* removes and updates */
	u64 cancel_sent, cancelled;	/* timeouts they end */
	u64 kept, clock, *seq;		/* the N and the K newest: when each */
};					/* went to the end of the ring's list */

static void uring_die(const struct io_uring_cqe *cqe, const char *what)
{
	errno = cqe->res < 0 ? -cqe->res : 0;
	die("io_uring: %s (user_data %#llx) ended with %d", what,
	    (u64)cqe->user_data, cqe->res);
}

static void uring_reap(struct uring *u)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;

	io_uring_for_each_cqe(&u->ring, head, cqe) {
		seen++;
		if (cqe->user_data & URING_CTL) {
			if (cqe->res)
				uring_die(cqe, "a remove or update");
			u->ctl_done++;
		} else {
			if (cqe->res != -ECANCELED)
				uring_die(cqe, "a timeout");
			u->cancelled++;
		}
	}
	io_uring_cq_advance(&u->ring, seen);
}

/* Submit the @nr operations queued, and reap what has completed. */
static void uring_submit(struct uring *u, unsigned int nr)
{
	int ret = io_uring_submit(&u->ring);

	if (ret != (int)nr) {
		errno = ret < 0 ? -ret : 0;
		die("io_uring_submit: %d of %u", ret, nr);
	}
	uring_reap(u);
}

/* Wait until every remove and update sent has completed. */
static void uring_wait(struct uring *u)
{
	struct io_uring_cqe *cqe;
	int ret;

	while (u->ctl_done < u->ctl_sent || u->cancelled < u->cancel_sent) {
		ret = io_uring_wait_cqe(&u->ring, &cqe);
		if (ret) {
			errno = -ret;
			die("io_uring_wait_cqe");
		}
		uring_reap(u);
	}
}

static struct io_uring_sqe *uring_sqe(struct uring *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe) {
		errno = 0;
		die("io_uring: no free SQE");
	}
	return sqe;
}

/* The @j-th operation of a submission: timeout @id, @ns from now. */
static void uring_arm(struct uring *u, u64 j, u64 id, u64 ns)
{
	struct io_uring_sqe *sqe = uring_sqe(u);

	u->ts[j].tv_sec = ns / NS;
	u->ts[j].tv_nsec = ns % NS;
	io_uring_prep_timeout(sqe, &u->ts[j], 0, 0);
	sqe->user_data = id;
	if (id <= u->kept)
		u->seq[id - 1] = ++u->clock;
}

static void uring_remove(struct uring *u, u64 id)
{
	struct io_uring_sqe *sqe = uring_sqe(u);

	io_uring_prep_timeout_remove(sqe, id, 0);
	sqe->user_data = URING_CTL | id;
	u->ctl_sent++;
	u->cancel_sent++;
}

/* IORING_TIMEOUT_UPDATE: timeout @id due @ns from now instead. */
static void uring_update(struct uring *u, u64 j, u64 id, u64 ns)
{
	struct io_uring_sqe *sqe = uring_sqe(u);

	u->ts[j].tv_sec = ns / NS;
	u->ts[j].tv_nsec = ns % NS;
	io_uring_prep_timeout_update(sqe, &u->ts[j], id, 0);
	sqe->user_data = URING_CTL | id;
	u->ctl_sent++;
	u->seq[id - 1] = ++u->clock;	/* an update moves it to the end */
}

static const u64 *uring_seq;

static int uring_cmp(const void *a, const void *b)
{
	u64 x = uring_seq[*(const u64 *)a - 1], y = uring_seq[*(const u64 *)b - 1];

	return x < y ? -1 : x > y;
}

/*
 * Remove every timeout kept in the order of the ring's list, so that each
 * remove finds its timeout first: O(N) in all. (One ASYNC_CANCEL of them
 * all takes seconds at N = 100000 under TCG: for each timeout it ends it
 * also looks through every bucket of the ring's poll tables.)
 */
static void uring_drain(struct uring *u)
{
	u64 *ids = xcalloc(u->kept, sizeof(*ids)), i, j, k;

	for (i = 0; i < u->kept; i++)
		ids[i] = i + 1;
	uring_seq = u->seq;
	qsort(ids, u->kept, sizeof(*ids), uring_cmp);
	for (i = 0; i < u->kept; i += k) {
		k = u->kept - i < 64 ? u->kept - i : 64;
		for (j = 0; j < k; j++)
			uring_remove(u, ids[i + j]);
		uring_submit(u, k);
	}
	uring_wait(u);
	free(ids);
}

/*
 * iouring: pair_ns, K timeouts armed in one submission and removed
 * (IORING_OP_TIMEOUT_REMOVE) in the next, per pair; rearm_ns, K
 * IORING_TIMEOUT_UPDATEs of the K newest timeouts in one submission, per
 * update; rearm_random_ns, K updates each of a uniformly chosen one of the
 * N. A remove or an update finds its timeout by walking the ring's list of
 * every outstanding one (io_uring/timeout.c); an update puts it at the
 * end, so the random re-arms run last. At the end every timeout is
 * removed, each found first in the list (uring_drain()), before the ring
 * is closed, so that no work of this ring is left to the kernel when the
 * next measurement starts.
 */
static void run_iouring(void)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN |
			 IORING_SETUP_SINGLE_ISSUER,
		.cq_entries = URING_CQ,
	};
	u64 i, j, m, k = 64, r, t0, setup, pair_id = n + batch + 1;
	struct timing pair, rearm, rnd;
	struct uring u = { 0 };
	char iface[64];
	int ret;

	u.ts = xcalloc(batch < 64 ? 64 : batch, sizeof(*u.ts));
	u.kept = n + batch;
	u.seq = xcalloc(u.kept, sizeof(*u.seq));
	ret = io_uring_queue_init_params(URING_SQ, &u.ring, &p);
	if (ret == -EINVAL) {
		/* before 6.0: without COOP_TASKRUN and SINGLE_ISSUER */
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE;
		p.cq_entries = URING_CQ;
		ret = io_uring_queue_init_params(URING_SQ, &u.ring, &p);
	}
	if (ret == -ENOSYS || ret == -EPERM) {
		/* a kernel without io_uring, or with it disabled: no peer */
		fprintf(stderr, "callout-bench iouring: no io_uring here: %s\n",
			strerror(-ret));
		exit(EXIT_NO_PEER);
	}
	if (ret) {
		errno = -ret;
		die("io_uring_queue_init_params");
	}
	t0 = now_ns();
	for (i = 0; i < n; i += k) {
		k = n - i < 64 ? n - i : 64;
		for (j = 0; j < k; j++)
			uring_arm(&u, j, i + j + 1, pend_time(i + j));
		uring_submit(&u, k);
	}
	setup = now_ns() - t0;
	for (j = 0; j < batch; j++)
		uring_arm(&u, j, n + 1 + j, restart_ns[j % NR_TIMES]);
	uring_submit(&u, batch);

	timing_init_k(&pair, batch);
	for (r = 0; timing_more(&pair);) {
		m = batch_begin(&pair);
		for (i = 0; i < m; i++) {
			for (j = 0; j < batch; j++, r++)
				uring_arm(&u, j, pair_id + j, restart_ns[r % NR_TIMES]);
			uring_submit(&u, batch);
			for (j = 0; j < batch; j++)
				uring_remove(&u, pair_id + j);
			uring_submit(&u, batch);
		}
		batch_end(&pair, m);
	}
	timing_init_k(&rearm, batch);
	for (r = 0; timing_more(&rearm);) {
		m = batch_begin(&rearm);
		for (i = 0; i < m; i++) {
			for (j = 0; j < batch; j++, r++)
				uring_update(&u, j, n + 1 + j, restart_ns[r % NR_TIMES]);
			uring_submit(&u, batch);
		}
		batch_end(&rearm, m);
	}
	timing_init_random(&rnd, batch);
	rng_seed();
	for (r = 0; n && timing_more(&rnd);) {
		m = batch_begin(&rnd);
		for (i = 0; i < m; i++) {
			for (j = 0; j < batch; j++, r++)
				uring_update(&u, j, rng_index(n) + 1, pend_ns[r % NR_TIMES]);
			uring_submit(&u, batch);
		}
		batch_end(&rnd, m);
	}
	uring_wait(&u);

	uring_drain(&u);
	io_uring_queue_exit(&u.ring);

	if (batch == 1)
		snprintf(iface, sizeof(iface), "iouring");
	else
		snprintf(iface, sizeof(iface), "iouring_%llu", batch);
	printf("test=%s iface=%s n=%llu reps=%llu", test, iface, n,
	       pair.units * batch);
	print_rearm_figures(&pair, &rearm, &rnd, setup);
	free(u.ts);
	free(u.seq);
}

/*
 * defer: N callouts set through libcallout at the pair tests' pending
 * times, and one more at a restart time; callout_defer_by() of that one to
 * a restart time (rearm_ns) and of a random one of the N to a pending time
 * (rearm_random_ns). The times do not matter to the cost: a deferral is a
 * store the kernel reads when the callout comes due, and none does here.
 */
static void run_defer(void)
{
	u64 *h = xcalloc(n + 1, sizeof(*h)), i, m, r, t0, setup, extra;
	struct timing rearm, rnd;
	int ret;

	t0 = now_ns();
	for (i = 0; i <= n; i++) {
		ret = setcallout(i < n ? pend_time(i) : restart_ns[0], 0, i, &h[i]);
		if (ret)
			die("setcallout %llu: %s", i, strerror(-ret));
	}
	setup = now_ns() - t0;
	/* In a local, as posix's extra timer is. */
	extra = h[n];
	/* The first maps the table: not timed. */
	if (callout_defer_by(extra, restart_ns[0]))
		die("callout_defer_by");
	timing_init(&rearm);
	for (r = 0; timing_more(&rearm);) {
		m = batch_begin(&rearm);
		for (i = 0; i < m; i++, r++)
			callout_defer_by(extra, restart_ns[r % NR_TIMES]);
		batch_end(&rearm, m);
	}
	timing_init_random(&rnd, 1);
	rng_seed();
	for (r = 0; n && timing_more(&rnd);) {
		m = batch_begin(&rnd);
		for (i = 0; i < m; i++, r++)
			callout_defer_by(h[rng_index(n)], pend_ns[r % NR_TIMES]);
		batch_end(&rnd, m);
	}
	head("callout_defer");
	print_timing("rearm", &rearm);
	if (n)
		print_timing("rearm_random", &rnd);
	print_ns("setup_ns", setup, n);
	printf("\n");
	callout_close();
	free(h);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Sort @late (signed ns, early ones negative) and print its summary. */
static void print_late(const char *who, long long *late, u64 count)
{
	u64 early = 0, i, *l = xcalloc(count, sizeof(*l));

	for (i = 0; i < count; i++) {
		if (late[i] < 0)
			early++;
		l[i] = late[i] < 0 ? 0 : late[i];
	}
	qsort(l, count, sizeof(*l), cmp_u64);
	printf(" %s_p50_ns=%llu %s_p99_ns=%llu %s_max_ns=%llu %s_early=%llu",
	       who, count ? l[count / 2] : 0, who,
	       count ? l[count * 99 / 100] : 0, who,
	       count ? l[count - 1] : 0, who, early);
	free(l);
}

/* What late_deferred()'s dispatch fills in */
struct seen_late {
	const u64 *dl;		/* each callout's deferred deadline, or 0 */
	long long *late;
	u64 got;
};

static void on_late_event(const struct callout_event *ev, void *data)
{
	struct seen_late *sl = data;
	u64 d = sl->dl[ev->cookie];

	if (d)
		sl->late[sl->got++] = (long long)(ev->fired_ns - d);
}

/*
 * N one-shots through libcallout, each set at its timeout @timeout[i] (ns)
 * and at once deferred by callout_defer() to 10..100 ms after that. @late
 * gets, for each whose deferral was stored before the callout could be
 * due (so that its expiry must see it), fired_ns less the deferred
 * deadline; *@unseen counts the others. Return: how many went to @late.
 */
static u64 late_deferred(const u64 *timeout, long long *late, u64 *unseen)
{
	struct seen_late sl = { .late = late };
	u64 *dl = xcalloc(n, sizeof(*dl)), i, ended, lo;
	__u64 h;
	int ret;

	sl.dl = dl;
	*unseen = 0;
	srandom(3);
	for (i = 0; i < n; i++) {
		lo = now_ns() + timeout[i];
		ret = setcallout(timeout[i], 0, i, &h);
		if (ret)
			die("setcallout: %s", strerror(-ret));
		dl[i] = now_ns() + timeout[i] +
			(10 + (u64)random() % 91) * 1000000ULL;
		if (callout_defer(h, dl[i]))
			die("callout_defer");
		if (now_ns() >= lo) {
			dl[i] = 0;
			(*unseen)++;
		}
	}
	for (ended = 0; ended < n; ended += ret) {
		if (callout_wait(-1) < 0)
			die("callout_wait");
		ret = callout_dispatch(on_late_event, &sl);
		if (ret < 0)
			die("callout_dispatch: %s", strerror(-ret));
	}
	callout_close();
	free(dl);
	return sl.got;
}

static void run_late(void)
{
	long long *kl = xcalloc(n, sizeof(*kl)), *ul = xcalloc(n, sizeof(*ul));
	long long *tl = xcalloc(n, sizeof(*tl)), *dl = xcalloc(n, sizeof(*dl));
	u64 *due = xcalloc(n, sizeof(*due)), i, got = 0, t, dl_got, unseen;
	struct callout_event ev[256];
	struct epoll_event eev[256];
	int fd = open_dev(), ep, *fds;
	ssize_t len;

	srandom(2);
	for (i = 0; i < n; i++)
		due[i] = (min_ms + (u64)random() % (max_ms - min_ms + 1)) *
			 1000000ULL;
	/* callout: the events carry expires_ns and fired_ns */
	fcntl(fd, F_SETFL, 0);
	for (i = 0; i < n; i++) {
		struct callout_set s = { .timeout_ns = due[i], .cookie = i };

		if (ioctl(fd, CALLOUT_IOC_SET, &s))
			die("CALLOUT_IOC_SET");
	}
	while (got < n) {
		len = read(fd, ev, sizeof(ev));
		t = now_ns();
		if (len < 0)
			die("read");
		for (i = 0; i < (u64)len / sizeof(ev[0]) && got < n; i++, got++) {
			kl[got] = (long long)(ev[i].fired_ns - ev[i].expires_ns);
			ul[got] = (long long)(t - ev[i].expires_ns);
		}
	}
	close(fd);
	/* callout again, each deferred as it is set */
	dl_got = late_deferred(due, dl, &unseen);

	/* timerfd: the same timeouts, absolute, woken through epoll */
	raise_limit(RLIMIT_NOFILE, n + 64);
	fds = xcalloc(n, sizeof(*fds));
	ep = epoll_create1(0);
	if (ep < 0)
		die("epoll_create1");
	t = now_ns();
	for (i = 0; i < n; i++) {
		struct itimerspec its = its_of(t + due[i]);
		struct epoll_event e = { .events = EPOLLIN, .data.u64 = i };

		due[i] += t;
		fds[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		if (fds[i] < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e) ||
		    timerfd_settime(fds[i], TFD_TIMER_ABSTIME, &its, NULL))
			die("timerfd %llu", i);
	}
	for (got = 0; got < n;) {
		int k = epoll_wait(ep, eev, 256, -1), j;
		uint64_t exp;

		t = now_ns();
		if (k < 0)
			die("epoll_wait");
		for (j = 0; j < k; j++, got++) {
			i = eev[j].data.u64;
			tl[got] = (long long)(t - due[i]);
			if (read(fds[i], &exp, sizeof(exp)) != sizeof(exp))
				die("read timerfd");
			epoll_ctl(ep, EPOLL_CTL_DEL, fds[i], NULL);
		}
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	close(ep);

	printf("test=late iface=callout_vs_timerfd n=%llu min_ms=%llu max_ms=%llu",
	       n, min_ms, max_ms);
	print_late("callout", kl, n);
	print_late("callout_read", ul, n);
	print_late("timerfd", tl, n);
	print_late("callout_defer", dl, dl_got);
	printf(" callout_defer_unseen=%llu\n", unseen);
	free(dl);
	free(kl);
	free(ul);
	free(tl);
	free(due);
	free(fds);
}

/*
 * late -b K: N one-shots as in late, set through CALLOUT_IOC_SUBMIT in
 * batches of K. Lateness from the event's expires_ns as for callout; an
 * expiry is early if it fired before expires_ns or before the timeout
 * counted from a clock read just before the SUBMIT (the user's view: the
 * batch's one clock read must not make any of its callouts fire early).
 */
static void run_late_submit(void)
{
	long long *kl = xcalloc(n, sizeof(*kl));
	u64 *due = xcalloc(n, sizeof(*due)), i, j, k, got = 0, t, early = 0;
	struct callout_op *ops = xcalloc(batch, sizeof(*ops));
	struct callout_event ev[256];
	int fd = open_dev();
	ssize_t len;

	srandom(2);
	for (i = 0; i < n; i++)
		due[i] = (min_ms + (u64)random() % (max_ms - min_ms + 1)) *
			 1000000ULL;
	fcntl(fd, F_SETFL, 0);
	for (i = 0; i < n; i += k) {
		k = n - i < batch ? n - i : batch;
		t = now_ns();
		for (j = 0; j < k; j++) {
			ops[j].op = CALLOUT_OP_SET;
			ops[j].timeout = due[i + j];
			ops[j].cookie = i + j;
			due[i + j] += t;	/* the user's earliest */
		}
		submit(fd, ops, k);
	}
	while (got < n) {
		len = read(fd, ev, sizeof(ev));
		if (len < 0)
			die("read");
		for (i = 0; i < (u64)len / sizeof(ev[0]) && got < n; i++, got++) {
			kl[got] = (long long)(ev[i].fired_ns - ev[i].expires_ns);
			if (ev[i].cookie >= n) {
				errno = 0;
				die("an event of cookie %llu", (u64)ev[i].cookie);
			}
			if (ev[i].fired_ns < due[ev[i].cookie])
				early++;
		}
	}
	close(fd);
	printf("test=late iface=callout_submit_late n=%llu min_ms=%llu max_ms=%llu batch=%llu",
	       n, min_ms, max_ms, batch);
	print_late("submit", kl, n);
	/* early by the user's clock: before the timeout from before the call */
	printf(" submit_user_early=%llu\n", early);
	free(kl);
	free(due);
	free(ops);
}

/* The total of debugfs stats' "@key: N", or -1. */
static long long read_stat(const char *key)
{
	FILE *f = fopen("/sys/kernel/debug/callout/stats", "r");
	size_t len = strlen(key);
	long long v = -1;
	char line[256];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static long long read_ticks_run(void)
{
	return read_stat("ticks_run");
}

#define TRACING "/sys/kernel/tracing/"
#define EV TRACING "events/timer/hrtimer_expire_entry/"

/*
 * options/record-cmd as the idle test found it, "0" or "1". With it on,
 * each enable and disable of an event also hooks or unhooks sched_switch,
 * which patches that static key's site in __schedule(), run by every CPU
 * all the time. Under TCG (QEMU 7.2) such a patch has left both vCPUs
 * taking an int3 there that memory no longer held, in a loop, interrupts
 * off (make bench, 2026-11-29; trace_test.c's Oops on 6.12-rt was the
 * same). The test counts events and never names a task: it turns task
 * names off while it runs.
 */
static const char *record_cmd;

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * Filter hrtimer_expire_entry to callout_tick, with task names off (see
 * record_cmd); 0 or -1 (no tracing).
 */
static int trace_setup(void)
{
	char line[512], filter[128] = "";
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, "callout_tick") && addr)
			snprintf(filter, sizeof(filter), "function == 0x%llx\n",
				 addr);
	}
	fclose(f);
	if (!*filter)
		return -1;
	f = fopen(TRACING "options/record-cmd", "r");
	if (!f)
		return -1;
	record_cmd = fgetc(f) == '0' ? "0" : "1";
	fclose(f);
	if (write_file(TRACING "options/record-cmd", "0") ||
	    write_file(EV "filter", filter) || write_file(TRACING "trace", ""))
		return -1;
	return 0;
}

/* Count the filtered events over @secs seconds, or -1. */
static long long trace_count(int ok, u64 secs)
{
	char line[1024];
	long long count = 0;
	FILE *f;

	if (ok || write_file(TRACING "trace", "") ||
	    write_file(EV "enable", "1")) {
		sleep(secs);
		return -1;
	}
	sleep(secs);
	write_file(EV "enable", "0");
	f = fopen(TRACING "trace", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "hrtimer_expire_entry"))
			count++;
	fclose(f);
	return count;
}

static void idle_phase(const char *who, int tracing)
{
	long long t0 = read_ticks_run(), hr, t1;
	u64 start = now_ns(), el;

	hr = trace_count(tracing, seconds);
	t1 = read_ticks_run();
	el = now_ns() - start;
	printf(" %s_ticks_per_s=%.2f %s_hrtimer_per_s=%.2f", who,
	       t0 < 0 || t1 < 0 ? -1.0 : (double)(t1 - t0) * NS / el, who,
	       hr < 0 ? -1.0 : (double)hr * NS / el);
}

static void run_idle(void)
{
	int tracing = trace_setup(), fd;

	printf("test=idle iface=callout seconds=%llu", seconds);
	idle_phase("none", tracing);
	fd = open_dev();
	set_one(fd, 3600 * NS);
	idle_phase("far", tracing);
	close(fd);
	/*
	 * The control: a 10 ms periodic callout must show about 100/s. A
	 * child reads its events: one nobody reads fires once and waits.
	 */
	fd = open_dev();
	{
		struct callout_set s = { .timeout_ns = 10000000,
					 .period_ns = 10000000 };
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct callout_event ev;
		pid_t child;

		if (ioctl(fd, CALLOUT_IOC_SET, &s))
			die("CALLOUT_IOC_SET");
		child = fork();
		if (child < 0)
			die("fork");
		if (!child)
			for (;;)
				if (poll(&p, 1, -1) == 1 &&
				    read(fd, &ev, sizeof(ev)) < 0 &&
				    errno != EAGAIN)
					_exit(1);
		idle_phase("periodic10ms", tracing);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	close(fd);
	printf("\n");
	write_file(EV "filter", "0\n");
	if (record_cmd)
		write_file(TRACING "options/record-cmd", record_cmd);
}

/* The softirq time of all CPUs in /proc/stat, in seconds, or -1. */
static double softirq_s(void)
{
	unsigned long long v[7];
	FILE *f = fopen("/proc/stat", "r");
	int got;

	if (!f)
		return -1;
	got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		     &v[2], &v[3], &v[4], &v[5], &v[6]);
	fclose(f);
	return got == 7 ? (double)v[6] / sysconf(_SC_CLK_TCK) : -1;
}

static double cpu_s(const struct rusage *r)
{
	return r->ru_utime.tv_sec + r->ru_stime.tv_sec +
	       (r->ru_utime.tv_usec + r->ru_stime.tv_usec) / 1e6;
}

static void run_unread(void)
{
	struct callout_op *ops = calloc(n, sizeof(*ops));
	long long e0, e1;
	struct callout_info info;
	struct rusage r0, r1;
	double s0, s1, el;
	int fd = open_dev();
	u64 i, t0;

	if (!ops)
		die("calloc");
	if (ioctl(fd, CALLOUT_IOC_INFO, &info))
		die("CALLOUT_IOC_INFO");
	for (i = 0; i < n; i++)
		ops[i] = (struct callout_op){
			.op = CALLOUT_OP_SET, .timeout = info.tick_ns,
			.period_ns = info.tick_ns, .cookie = i,
		};
	for (i = 0; i < n; i += CALLOUT_SUBMIT_MAX)
		submit(fd, ops + i, n - i < CALLOUT_SUBMIT_MAX ?
				    n - i : CALLOUT_SUBMIT_MAX);
	usleep(100000);
	e0 = read_stat("expired");
	s0 = softirq_s();
	getrusage(RUSAGE_SELF, &r0);
	t0 = now_ns();
	sleep(seconds);
	el = (now_ns() - t0) / 1e9;
	getrusage(RUSAGE_SELF, &r1);
	s1 = softirq_s();
	e1 = read_stat("expired");
	printf("test=unread iface=callout_unread n=%llu seconds=%llu softirq_share=%.4f funcs=%lld owner_cpu_ms=%.1f\n",
	       n, seconds, s0 < 0 || s1 < 0 ? -1.0 :
	       (s1 - s0) / el / sysconf(_SC_NPROCESSORS_ONLN),
	       e0 < 0 || e1 < 0 ? -1 : e1 - e0,
	       (cpu_s(&r1) - cpu_s(&r0)) * 1e3);
	close(fd);
	free(ops);
}

/*
 * Free memory in bytes, once pending frees have settled (RCU callbacks):
 * MemFree, and the pages on the per-CPU free lists (/proc/zoneinfo's
 * pageset counts), which MemFree leaves out and allocations take first.
 */
static long long mem_free(void)
{
	long long pages, pages_sum = 0;
	char line[256];
	FILE *f;

	usleep(200000);
	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		die("/proc/zoneinfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %lld", &pages) == 1)
			pages_sum += pages;
	fclose(f);
	return meminfo_kb("MemFree") * 1024LL + pages_sum * sysconf(_SC_PAGESIZE);
}

/* The drop in MemFree per unit while @nr units are held: one figure */
static double bytes_per(long long before, long long after, u64 nr)
{
	return nr ? (double)(before - after) / nr : 0;
}

/*
 * Nothing is freed until every figure is taken: pages freed go to per-CPU
 * lists MemFree does not count, and the next allocations take them from
 * there unseen.
 */
static void run_bytes(void)
{
	u64 n_to = n / 10, n_files = n / 100 ? n / 100 : 1, i, j;
	struct callout_op *ops = xcalloc(CALLOUT_SUBMIT_MAX, sizeof(*ops));
	double per_set, per_to, per_file, per_tfd;
	int *fds = xcalloc(2 * n_files, sizeof(*fds));
	long long m0, m1;
	int fd_to, fd_set;

	raise_limit(RLIMIT_NOFILE, 2 * n_files + 64);
	/* n / 100 files with nothing in them, then as many timerfds */
	m0 = mem_free();
	for (i = 0; i < n_files; i++)
		fds[i] = open_dev();
	m1 = mem_free();
	per_file = bytes_per(m0, m1, n_files);
	m0 = m1;
	for (i = n_files; i < 2 * n_files; i++) {
		fds[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (fds[i] < 0)
			die("timerfd_create");
	}
	m1 = mem_free();
	per_tfd = bytes_per(m0, m1, n_files);

	/* n / 10 TIMEOUTs, a million ticks ahead, in a file of their own */
	fd_to = open_dev();
	m0 = mem_free();
	for (i = 0; i < n_to; i++) {
		struct callout_timeout t = {
			.func = 1, .arg = i, .ticks = 1000000 + i % 1000,
		};

		if (ioctl(fd_to, CALLOUT_IOC_TIMEOUT, &t))
			die("CALLOUT_IOC_TIMEOUT");
	}
	m1 = mem_free();
	per_to = bytes_per(m0, m1, n_to);

	/* n SETs an hour ahead, in SUBMITs, in another */
	fd_set = open_dev();
	m0 = mem_free();
	for (i = 0; i < n; i += j) {
		for (j = 0; j < CALLOUT_SUBMIT_MAX && i + j < n; j++)
			ops[j] = (struct callout_op){
				.op = CALLOUT_OP_SET, .timeout = 3600 * NS,
			};
		submit(fd_set, ops, j);
	}
	m1 = mem_free();
	per_set = bytes_per(m0, m1, n);

	printf("test=bytes iface=bytes n=%llu timeouts=%llu files=%llu per_set=%.1f per_timeout=%.1f per_file=%.1f timerfd_per_file=%.1f\n",
	       n, n_to, n_files, per_set, per_to, per_file, per_tfd);
	close(fd_set);
	close(fd_to);
	for (i = 0; i < 2 * n_files; i++)
		close(fds[i]);
	free(fds);
	free(ops);
}

/*
 * What the two processes of the stall test share. phase: 0 setting, 1
 * waiting for the callouts to expire, 2 closing, 3 done (the setter
 * writes it, the spinner reads it).
 */
struct stall_shared {
	int phase;
	int ready;			/* the spinner runs as SCHED_FIFO */
	u64 gap_ns[3];			/* longest gap that ended in phase 1, 2 */
	u64 close_ns;
	u64 set_ns;			/* time allowed each SET */
	int set_before_due;
	int err;			/* errno of what failed in the setter */
};

/* The two processes share @phase and @ready: read and write them whole. */
#define STALL_GET(x)	__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STALL_PUT(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

#define STALL_SPIN_NS	200000ULL
#define STALL_SLEEP_NS	200000ULL
#define STALL_SET_NS	40000ULL	/* the least time allowed a SET */
#define STALL_CALIBRATE	2000ULL		/* SETs timed to plan the due time */
#define STALL_MARGIN	4ULL		/* times the SET time so timed */

static void stall_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static void stall_note(struct stall_shared *sh, int phase, u64 gap)
{
	if (phase >= 1 && phase <= 2 && gap > sh->gap_ns[phase])
		sh->gap_ns[phase] = gap;
}

/* The SCHED_FIFO thread: spin, sleep, keep the longest gap. */
static void stall_spinner(struct stall_shared *sh, int cpu)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct timespec ts;
	u64 t, last, wake;
	int phase;

	stall_pin(cpu);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		die("SCHED_FIFO (the stall test needs root)");
	STALL_PUT(sh->ready, 1);
	while (STALL_GET(sh->phase) == 0)
		usleep(1000);
	for (;;) {
		phase = STALL_GET(sh->phase);
		if (phase >= 3)
			break;
		last = now_ns();
		wake = last + STALL_SPIN_NS;
		do {
			t = now_ns();
			stall_note(sh, STALL_GET(sh->phase), t - last);
			last = t;
		} while (t < wake);
		wake = t + STALL_SLEEP_NS;
		ts.tv_sec = wake / NS;
		ts.tv_nsec = wake % NS;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		t = now_ns();
		stall_note(sh, STALL_GET(sh->phase), t - wake);
	}
}

/* The unprivileged process: N one-shots due at once, then close unread. */
static void stall_setter(struct stall_shared *sh, int cpu)
{
	struct callout_set s = { 0 };
	struct timespec ts;
	u64 i, due, t, t0;
	int fd, scratch;

	stall_pin(cpu);
	if (setgid(65534) || setuid(65534)) {
		sh->err = errno;
		return;
	}
	fd = open("/dev/callout", O_RDWR);
	if (fd < 0) {
		sh->err = errno;
		return;
	}
	/*
	 * The time a SET takes here and now (on a shared host it varies
	 * several-fold), from SETs an hour ahead on a scratch file: allow
	 * STALL_MARGIN times that, at least STALL_SET_NS, so that all N are
	 * set before the first is due (set_before_due says whether they were).
	 */
	scratch = open("/dev/callout", O_RDWR);
	if (scratch < 0) {
		sh->err = errno;
		return;
	}
	s.timeout_ns = 3600 * NS;
	t0 = now_ns();
	for (i = 0; i < STALL_CALIBRATE; i++) {
		if (ioctl(scratch, CALLOUT_IOC_SET, &s)) {
			sh->err = errno;
			return;
		}
	}
	sh->set_ns = (now_ns() - t0) / STALL_CALIBRATE * STALL_MARGIN;
	close(scratch);
	if (sh->set_ns < STALL_SET_NS)
		sh->set_ns = STALL_SET_NS;
	due = now_ns() + 500000000ULL + n * sh->set_ns;
	for (i = 0; i < n; i++) {
		t = now_ns();
		s.cookie = i;
		s.timeout_ns = due > t ? due - t : 1;
		if (ioctl(fd, CALLOUT_IOC_SET, &s)) {
			sh->err = errno;
			return;
		}
	}
	sh->set_before_due = now_ns() < due;
	STALL_PUT(sh->phase, 1);
	t = due + 300000000ULL;
	ts.tv_sec = t / NS;
	ts.tv_nsec = t % NS;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	STALL_PUT(sh->phase, 2);
	t0 = now_ns();
	close(fd);
	sh->close_ns = now_ns() - t0;
	STALL_PUT(sh->phase, 3);
}

static void run_stall(void)
{
	struct stall_shared *sh;
	char scheme[64] = "?";
	pid_t spinner, setter;
	long cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	int status;
	FILE *f;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	memset(sh, 0, sizeof(*sh));
	f = fopen("/sys/module/callout/parameters/scheme", "r");
	if (f) {
		if (fscanf(f, "%63s", scheme) != 1)
			strcpy(scheme, "?");
		fclose(f);
	}
	fflush(stdout);
	spinner = fork();
	if (spinner < 0)
		die("fork");
	if (!spinner) {
		stall_spinner(sh, cpu);
		_exit(0);
	}
	while (!STALL_GET(sh->ready)) {
		if (waitpid(spinner, &status, WNOHANG) == spinner)
			die("the SCHED_FIFO thread failed");
		usleep(1000);
	}
	setter = fork();
	if (setter < 0)
		die("fork");
	if (!setter) {
		stall_setter(sh, cpu);
		STALL_PUT(sh->phase, 3);
		_exit(0);
	}
	if (waitpid(setter, &status, 0) != setter || waitpid(spinner, NULL, 0) != spinner)
		die("waitpid");
	if (sh->err) {
		errno = sh->err;
		die("the unprivileged setter");
	}
	printf("test=burst_stall scheme=%s n=%llu cpu=%ld", scheme, n, cpu);
	printf(" gap_ms=%.3f expire_gap_ms=%.3f close_gap_ms=%.3f",
	       (sh->gap_ns[1] > sh->gap_ns[2] ? sh->gap_ns[1] : sh->gap_ns[2]) / 1e6,
	       sh->gap_ns[1] / 1e6, sh->gap_ns[2] / 1e6);
	printf(" close_ms=%.3f set_before_due=%d set_allowed_ns=%llu\n",
	       sh->close_ns / 1e6, sh->set_before_due, sh->set_ns);
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: callout-bench floor|set|reset|submit|timeout|timerfd|posix|iouring|\n"
		"                     late|idle|unread|bytes|stall\n"
		"       [-n N] [-r REPS] [-b BATCH] [-t BUDGET_MS] [-s SECONDS] [-m MIN_MS]\n"
		"       [-M MAX_MS]\n"
		"One line of key=value results; the top of the source says what each is.\n");
	exit(status);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} tests[] = {
		{ "floor", run_floor }, { "timeout", run_timeout },
		{ "timerfd", run_timerfd }, { "posix", run_posix },
		{ "late", run_late }, { "idle", run_idle },
		{ "unread", run_unread }, { "bytes", run_bytes },
		{ "defer", run_defer },
		{ "stall", run_stall }, { "submit", run_submit },
		{ "iouring", run_iouring },
	};
	unsigned int i;
	int opt;

	if (argc < 2 || !strcmp(argv[1], "-h"))
		usage(argc < 2 ? 2 : 0);
	test = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "n:r:b:t:s:m:M:h")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			reps = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			batch = strtoull(optarg, NULL, 0);
			break;
		case 't':
			budget_ms = strtoull(optarg, NULL, 0);
			break;
		case 's':
			seconds = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			min_ms = strtoull(optarg, NULL, 0);
			break;
		case 'M':
			max_ms = strtoull(optarg, NULL, 0);
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (!reps || max_ms < min_ms || (!n && !strcmp(test, "late")))
		usage(2);
	/* -b: 1 .. CALLOUT_SUBMIT_MAX, for io_uring up to its SQ's size */
	if (batch > CALLOUT_SUBMIT_MAX ||
	    (batch > URING_SQ && !strcmp(test, "iouring")))
		usage(2);
	make_times();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(test, "late") && batch) {
		run_late_submit();
		return 0;
	}
	if (!batch)
		batch = 1;
	if (!strcmp(test, "set") || !strcmp(test, "reset")) {
		run_set(!strcmp(test, "reset"));
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (!strcmp(test, tests[i].name)) {
			tests[i].run();
			return 0;
		}
	}
	usage(2);
	return 2;
}
