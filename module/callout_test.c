// SPDX-License-Identifier: GPL-2.0
/*
 * callout_test - the exported API of callout.ko, tested from the kernel.
 *
 * Loaded by kselftest's module.sh (selftests/callout/kernel_api_test.sh):
 * the tests run at load and the load fails if any of them does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/callout.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "kselftest_module.h"

MODULE_IMPORT_NS(CALLOUT);

KSTM_MODULE_GLOBALS();

#define CHECK(cond) do {						\
	total_tests++;							\
	if (!(cond)) {							\
		pr_warn("%s:%d: check failed: %s\n", __func__, __LINE__, #cond); \
		failed_tests++;						\
	}								\
} while (0)

struct probe {
	struct callout c;
	struct completion done;
	atomic_t runs;
	u64 fired_ns;
	unsigned int delay_ms;		/* busy time in the func */
	int rearm;			/* times the func sets itself again */
};

static void probe_func(void *arg)
{
	struct probe *p = arg;

	p->fired_ns = ktime_get_ns();
	atomic_inc(&p->runs);
	if (p->delay_ms)
		mdelay(p->delay_ms);
	if (p->rearm > 0) {
		p->rearm--;
		callout_set(&p->c, 1, probe_func, p);
		return;
	}
	complete(&p->done);
}

static void probe_init(struct probe *p)
{
	memset(p, 0, sizeof(*p));
	callout_init(&p->c);
	init_completion(&p->done);
}

static void __init test_set_fires_once(void)
{
	struct probe p;
	u64 before;

	probe_init(&p);
	before = ktime_get_ns();
	CHECK(callout_set(&p.c, 5, probe_func, &p) == 0);
	CHECK(callout_pending(&p.c));
	CHECK(wait_for_completion_timeout(&p.done, HZ * 5));
	CHECK(p.fired_ns >= before + 5 * callout_tick_ns());
	CHECK(!callout_pending(&p.c));
	msleep(30);
	CHECK(atomic_read(&p.runs) == 1);
	CHECK(callout_unset_sync(&p.c) == 0);
}

static void __init test_set_unset_results(void)
{
	struct probe p;

	probe_init(&p);
	CHECK(callout_unset(&p.c) == 0);
	CHECK(callout_set(&p.c, 1000, probe_func, &p) == 0);
	CHECK(callout_set(&p.c, 2000, probe_func, &p) == 1);
	CHECK(callout_unset(&p.c) == 1);
	CHECK(callout_unset(&p.c) == 0);
	CHECK(!callout_pending(&p.c));
	CHECK(callout_set(&p.c, ULONG_MAX, probe_func, &p) == -ERANGE);
	CHECK(!callout_pending(&p.c));
	msleep(20);
	CHECK(atomic_read(&p.runs) == 0);
}

/* callout_unset_sync() returns only after a running func has returned. */
static void __init test_unset_sync_waits(void)
{
	struct probe p;
	int i;

	probe_init(&p);
	p.delay_ms = 50;
	CHECK(callout_set(&p.c, 1, probe_func, &p) == 0);
	for (i = 0; i < 5000 && !atomic_read(&p.runs); i++)
		usleep_range(100, 200);
	CHECK(atomic_read(&p.runs) == 1);
	/* The func is in its mdelay(): not pending, but running. */
	CHECK(callout_unset_sync(&p.c) == 0);
	CHECK(completion_done(&p.done));
	callout_unset_sync(&p.c);
}

/* A func that sets itself again is stopped for good by unset_sync. */
static void __init test_unset_sync_rearming(void)
{
	struct probe p;
	int runs;

	probe_init(&p);
	p.rearm = INT_MAX;
	CHECK(callout_set(&p.c, 1, probe_func, &p) == 0);
	msleep(50);
	callout_unset_sync(&p.c);
	runs = atomic_read(&p.runs);
	CHECK(runs > 0);
	CHECK(!callout_pending(&p.c));
	msleep(30);
	CHECK(atomic_read(&p.runs) == runs);
}

static atomic_t timeout_runs;
static void *timeout_last_arg;

static void timeout_func(void *arg)
{
	timeout_last_arg = arg;
	atomic_inc(&timeout_runs);
}

static void __init test_timeout_untimeout(void)
{
	int i;

	atomic_set(&timeout_runs, 0);
	CHECK(callout_timeout(NULL, NULL, 1) == -EINVAL);
	CHECK(callout_untimeout(timeout_func, (void *)1) == 0);
	CHECK(callout_timeout(timeout_func, (void *)1, 10000) == 0);
	CHECK(callout_timeout(timeout_func, (void *)1, 10000) == 0);
	CHECK(callout_timeout(timeout_func, (void *)2, 10000) == 0);
	CHECK(callout_untimeout(timeout_func, (void *)1) == 1);
	CHECK(callout_untimeout(timeout_func, (void *)1) == 1);
	CHECK(callout_untimeout(timeout_func, (void *)1) == 0);
	CHECK(callout_untimeout(timeout_func, (void *)2) == 1);

	CHECK(callout_timeout(timeout_func, (void *)3, 2) == 0);
	for (i = 0; i < 250 && !atomic_read(&timeout_runs); i++)
		msleep(20);
	CHECK(atomic_read(&timeout_runs) == 1);
	CHECK(timeout_last_arg == (void *)3);
	/* Fired: nothing left to cancel. */
	CHECK(callout_untimeout(timeout_func, (void *)3) == 0);

	/* At most 64 pending of one pair. */
	for (i = 0; i < 64; i++)
		CHECK(callout_timeout(timeout_func, (void *)4, 10000) == 0);
	CHECK(callout_timeout(timeout_func, (void *)4, 10000) == -ENOSPC);
	for (i = 0; i < 64; i++)
		CHECK(callout_untimeout(timeout_func, (void *)4) == 1);
	CHECK(callout_untimeout(timeout_func, (void *)4) == 0);
	CHECK(atomic_read(&timeout_runs) == 1);
}

/* Many callouts at random times: each fires once, none early. */
static void __init test_many_never_early(void)
{
	enum { N = 5000 };
	struct probe *p = kvcalloc(N, sizeof(*p), GFP_KERNEL);
	u64 *due = kvcalloc(N, sizeof(*due), GFP_KERNEL);
	unsigned int i, early = 0, runs = 0, ticks;

	if (!p || !due) {
		skipped_tests++;
		goto out;
	}
	for (i = 0; i < N; i++) {
		probe_init(&p[i]);
		ticks = 1 + get_random_u32() % 50;
		due[i] = ktime_get_ns() + ticks * callout_tick_ns();
		CHECK(callout_set(&p[i].c, ticks, probe_func, &p[i]) == 0);
	}
	for (i = 0; i < N; i++) {
		CHECK(wait_for_completion_timeout(&p[i].done, HZ * 10));
		early += p[i].fired_ns < due[i];
		runs += atomic_read(&p[i].runs);
	}
	CHECK(early == 0);
	CHECK(runs == N);
	for (i = 0; i < N; i++)
		callout_unset_sync(&p[i].c);
out:
	kvfree(due);
	kvfree(p);
}

static void __init selftest(void)
{
	test_set_fires_once();
	test_set_unset_results();
	test_unset_sync_waits();
	test_unset_sync_rearming();
	test_timeout_untimeout();
	test_many_never_early();
}

KSTM_MODULE_LOADERS(callout_test);
MODULE_DESCRIPTION("Tests of the callout in-kernel API");
MODULE_LICENSE("GPL");
