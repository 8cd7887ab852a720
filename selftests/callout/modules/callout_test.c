// SPDX-License-Identifier: GPL-2.0
/*
 * callout_test - the exported API of callout.ko, tested from the kernel.
 *
 * Loaded by kselftest's module.sh (selftests/callout/kernel_api_test.sh):
 * the tests run at load and the load fails if any of them does.
 *
 * test_untimeout_reuse_race() races untimeout() against the reuse of
 * timeout()'s callouts for race_ms milliseconds (0 skips it); its figures
 * go to dmesg as a "race:" line.
 *
 * Last comes a torture of torture_ms milliseconds (0 skips it): a kthread on
 * every online CPU races callout_set(), callout_unset(),
 * callout_unset_sync(), callout_timeout() and callout_untimeout() on a
 * shared pool of callouts whose funcs sometimes re-arm themselves and
 * sometimes dawdle; its figures go to dmesg as "torture:" lines.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/callout.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "kselftest_module.h"

MODULE_IMPORT_NS(CALLOUT_NS);

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
	/* Not checked pending here: a stalled vCPU may be past 5 ticks. */
	CHECK(callout_set(&p.c, 5, probe_func, &p) == 0);
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
	CHECK(callout_pending(&p.c));
	CHECK(callout_set(&p.c, 2000, probe_func, &p) == 1);
	CHECK(callout_unset(&p.c) == 1);
	CHECK(callout_unset(&p.c) == 0);
	CHECK(!callout_pending(&p.c));
	CHECK(callout_set(&p.c, ULONG_MAX, probe_func, &p) == -ERANGE);
	CHECK(!callout_pending(&p.c));
	msleep(20);
	CHECK(atomic_read(&p.runs) == 0);
}

/*
 * callout_unset_sync() returns only after a running func has returned. The
 * func runs on CPU a and the unset_sync on CPU b; the func sets its callout
 * again and runs until that arming is cancelled, which only the unset_sync
 * does, in the same section of the base lock in which it finds the func
 * running: so it is sure to wait. The func then runs SYNC_GRACE_MS longer,
 * time for an unset_sync that did not wait to return while it runs.
 */
#define SYNC_GRACE_MS	100
#define SYNC_WAIT_MS	10000	/* bound of each wait for the other side */

struct sync_probe {
	struct callout c;
	struct work_struct arm;		/* on CPU a */
	struct work_struct sync;	/* on CPU b */
	struct completion entered;	/* the func has set @c again */
	atomic_t runs;
	int set_ret, rearm_ret, sync_ret;
	bool cancelled;		/* the func saw its new arming cancelled */
	bool sync_returned;	/* the unset_sync has returned */
	bool early;		/* the func saw that */
	bool returned;		/* the func has returned */
	bool returned_first;	/* it had when the unset_sync returned */
};

static void sync_probe_func(void *arg)
{
	struct sync_probe *p = arg;
	u64 end;

	atomic_inc(&p->runs);
	p->rearm_ret = callout_set(&p->c, 1000, sync_probe_func, p);
	complete(&p->entered);
	/* The tick of this CPU runs this func: only a cancel ends that arming. */
	end = ktime_get_ns() + SYNC_WAIT_MS * NSEC_PER_MSEC;
	while (callout_pending(&p->c) && ktime_get_ns() < end)
		cpu_relax();
	p->cancelled = !p->rearm_ret && !callout_pending(&p->c);
	end = ktime_get_ns() + SYNC_GRACE_MS * NSEC_PER_MSEC;
	while (!READ_ONCE(p->sync_returned) && ktime_get_ns() < end)
		cpu_relax();
	p->early = READ_ONCE(p->sync_returned);
	WRITE_ONCE(p->returned, true);
}

static void sync_arm_work(struct work_struct *work)
{
	struct sync_probe *p = container_of(work, struct sync_probe, arm);

	/* Initialised here, so that @c is on this CPU's base and stays there. */
	callout_init(&p->c);
	p->set_ret = callout_set(&p->c, 1, sync_probe_func, p);
}

static void sync_unset_work(struct work_struct *work)
{
	struct sync_probe *p = container_of(work, struct sync_probe, sync);

	wait_for_completion_timeout(&p->entered,
				    msecs_to_jiffies(SYNC_WAIT_MS));
	p->sync_ret = callout_unset_sync(&p->c);
	p->returned_first = READ_ONCE(p->returned);
	WRITE_ONCE(p->sync_returned, true);
}

static void __init test_unset_sync_waits(void)
{
	struct sync_probe p = { };
	unsigned int a, b;

	cpus_read_lock();
	a = cpumask_first(cpu_online_mask);
	b = cpumask_next(a, cpu_online_mask);
	if (b >= nr_cpu_ids) {
		cpus_read_unlock();
		pr_info("unset_sync_waits: needs two online CPUs\n");
		skipped_tests++;
		return;
	}
	init_completion(&p.entered);
	INIT_WORK_ONSTACK(&p.arm, sync_arm_work);
	INIT_WORK_ONSTACK(&p.sync, sync_unset_work);
	queue_work_on(b, system_highpri_wq, &p.sync);
	queue_work_on(a, system_highpri_wq, &p.arm);
	cpus_read_unlock();
	flush_work(&p.arm);
	flush_work(&p.sync);
	destroy_work_on_stack(&p.arm);
	destroy_work_on_stack(&p.sync);
	CHECK(p.set_ret == 0);
	CHECK(p.rearm_ret == 0);
	CHECK(atomic_read(&p.runs) == 1);
	/* The unset_sync found the func running, and it cancelled its arming. */
	CHECK(p.cancelled);
	CHECK(p.sync_ret == 1);
	/* ... and it returned after the func, which did not see it return. */
	CHECK(p.returned_first);
	CHECK(!p.early);
	CHECK(!callout_pending(&p.c));
}

/* A func that sets itself again is stopped for good by unset_sync. */
static void __init test_unset_sync_rearming(void)
{
	struct probe p;
	int runs, i;

	probe_init(&p);
	p.rearm = INT_MAX;
	CHECK(callout_set(&p.c, 1, probe_func, &p) == 0);
	/* Until it has set itself again a few times (5 s: it does not). */
	for (i = 0; i < 250 && atomic_read(&p.runs) < 3; i++)
		msleep(20);
	callout_unset_sync(&p.c);
	runs = atomic_read(&p.runs);
	CHECK(runs >= 3);
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

/*
 * untimeout() against reuse. A callout of callout_timeout() is reused at
 * once from a free list, with no RCU grace period, so an untimeout() may
 * be looking at one that fired or was cancelled and is being armed again
 * for another key. On every online CPU two kthreads race for race_ms:
 *
 * - a shared one arms and cancels RACE_SHARED_KEYS keys that every CPU
 *   uses, due in 0..3 ticks, so expiries and reuse never stop;
 * - a private one owns a far key (due long after the test ends, it never
 *   fires) and a near key. Nobody else touches its far key, so it knows how
 *   many of it are pending: untimeout() of it must return 1 exactly when
 *   that is not 0. Another thread's untimeout() that cancelled one of them
 *   makes it return 0 too early.
 *
 * Every func run and every untimeout() that returns 1 is counted against
 * its key. At the end every key has armed == fired + cancelled: a func that
 * ran twice, ran after its cancel or never ran, or a cancel of another
 * key's callout, unbalances a key.
 */
static unsigned int race_ms = 1000;
module_param(race_ms, uint, 0444);
MODULE_PARM_DESC(race_ms, "length of the untimeout/reuse race at load, ms (0: none)");

#define RACE_SHARED_KEYS	4
#define RACE_ARG_BASE		0x1000UL	/* key i is arg RACE_ARG_BASE + i */
#define RACE_FAR_MAX		60		/* < 64, the cap of one key */

struct race_key {
	atomic_long_t arms, fires, cancels;
};

static struct race_key *race_keys;
static unsigned int race_nkeys;
static unsigned long race_far_ticks;
static bool race_strict;		/* far keys cannot fire during the race */
static atomic_long_t race_wrong, race_errors, race_bad_arg;

static void *race_arg(unsigned int key)
{
	return (void *)(RACE_ARG_BASE + key);
}

static void race_func(void *arg)
{
	unsigned long key = (unsigned long)arg - RACE_ARG_BASE;

	if (key >= race_nkeys) {
		atomic_long_inc(&race_bad_arg);
		return;
	}
	atomic_long_inc(&race_keys[key].fires);
}

/* timeout() of @key with its accounting; Return: its result. */
static int race_timeout(unsigned int key, unsigned long ticks)
{
	int ret = callout_timeout(race_func, race_arg(key), ticks);

	if (!ret)
		atomic_long_inc(&race_keys[key].arms);
	else if (ret != -ENOSPC)	/* 64 of one key pending: allowed */
		atomic_long_inc(&race_errors);
	return ret;
}

static int race_untimeout(unsigned int key)
{
	int ret = callout_untimeout(race_func, race_arg(key));

	if (ret)
		atomic_long_inc(&race_keys[key].cancels);
	return ret;
}

static int race_shared_thread(void *data)
{
	u32 r;

	while (!kthread_should_stop()) {
		r = get_random_u32();
		if (r & 1)
			race_timeout(r / 2 % RACE_SHARED_KEYS, r / 8 % 4);
		else
			race_untimeout(r / 2 % RACE_SHARED_KEYS);
		cond_resched();
	}
	return 0;
}

/* @data: its index; its far key is RACE_SHARED_KEYS + 2i, its near one + 1. */
static int race_private_thread(void *data)
{
	unsigned int far = RACE_SHARED_KEYS + 2 * (uintptr_t)data;
	unsigned int near = far + 1, mine = 0;
	u32 r;

	while (!kthread_should_stop()) {
		r = get_random_u32();
		switch (r % 4) {
		case 0:
			if (mine < RACE_FAR_MAX &&
			    !race_timeout(far, race_far_ticks))
				mine++;
			break;
		case 1:
			if (race_untimeout(far)) {
				if (!mine)
					atomic_long_inc(&race_wrong);
				else
					mine--;
			} else if (mine && race_strict) {
				atomic_long_inc(&race_wrong);
			}
			break;
		case 2:
			race_timeout(near, r / 4 % 3);
			break;
		default:
			race_untimeout(near);
			break;
		}
		cond_resched();
	}
	/* Its own far ones, each exactly once; then none is left. */
	while (mine && race_untimeout(far))
		mine--;
	if ((mine && race_strict) || race_untimeout(far))
		atomic_long_inc(&race_wrong);
	return 0;
}

static void __init test_untimeout_reuse_race(void)
{
	unsigned int cpu, i, nthreads = 0, unbalanced = 0;
	long arms = 0, fires = 0, cancels = 0, owed, far_fires = 0;
	struct task_struct **threads;
	unsigned long deadline;

	if (!race_ms)
		return;
	race_nkeys = RACE_SHARED_KEYS + 2 * nr_cpu_ids;
	race_keys = kvcalloc(race_nkeys, sizeof(*race_keys), GFP_KERNEL);
	threads = kcalloc(2 * nr_cpu_ids, sizeof(*threads), GFP_KERNEL);
	if (!race_keys || !threads) {
		skipped_tests++;
		goto free;
	}
	atomic_long_set(&race_wrong, 0);
	atomic_long_set(&race_errors, 0);
	atomic_long_set(&race_bad_arg, 0);
	/* The farthest the scheme takes, up to 60 s. */
	race_far_ticks = 60 * NSEC_PER_SEC / callout_tick_ns();
	while (race_far_ticks > 1 &&
	       callout_timeout(race_func, race_arg(RACE_SHARED_KEYS),
			       race_far_ticks) == -ERANGE)
		race_far_ticks /= 2;
	CHECK(callout_untimeout(race_func, race_arg(RACE_SHARED_KEYS)) == 1);
	/* Far enough that none fires before its thread cancels it. */
	race_strict = race_far_ticks * callout_tick_ns() / NSEC_PER_MSEC >=
		      4ULL * race_ms + 4000;
	if (!race_strict)
		pr_info("race: far timeouts only %lu ticks: no exact count\n",
			race_far_ticks);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		t = kthread_create_on_cpu(race_shared_thread, NULL, cpu,
					  "callout_race/%u");
		if (!IS_ERR(t)) {
			threads[nthreads++] = t;
			wake_up_process(t);
		}
		t = kthread_create_on_cpu(race_private_thread,
					  (void *)(uintptr_t)cpu, cpu,
					  "callout_race_own/%u");
		if (!IS_ERR(t)) {
			threads[nthreads++] = t;
			wake_up_process(t);
		}
	}
	cpus_read_unlock();
	CHECK(nthreads >= 2);
	msleep(race_ms);
	for (i = 0; i < nthreads; i++)
		kthread_stop(threads[i]);

	/* What is left is cancelled or fires within 3 ticks. */
	for (i = 0; i < race_nkeys; i++)
		while (race_untimeout(i))
			;
	deadline = jiffies + msecs_to_jiffies(10000);
	do {
		owed = 0;
		for (i = 0; i < race_nkeys; i++)
			owed += atomic_long_read(&race_keys[i].arms) -
				atomic_long_read(&race_keys[i].fires) -
				atomic_long_read(&race_keys[i].cancels);
		if (owed)
			msleep(20);
	} while (owed && time_before(jiffies, deadline));
	msleep(20);
	for (i = 0; i < race_nkeys; i++) {
		struct race_key *k = &race_keys[i];

		arms += atomic_long_read(&k->arms);
		fires += atomic_long_read(&k->fires);
		cancels += atomic_long_read(&k->cancels);
		if (i >= RACE_SHARED_KEYS && (i - RACE_SHARED_KEYS) % 2 == 0)
			far_fires += atomic_long_read(&k->fires);
		if (atomic_long_read(&k->arms) ==
		    atomic_long_read(&k->fires) + atomic_long_read(&k->cancels))
			continue;
		pr_warn("race: key %u: %ld armed, %ld fired, %ld cancelled\n",
			i, atomic_long_read(&k->arms),
			atomic_long_read(&k->fires),
			atomic_long_read(&k->cancels));
		unbalanced++;
	}
	pr_info("race: %u ms, %u threads: %ld timeouts, %ld fired, %ld cancelled; far ones fired %ld, wrong untimeout results %ld, errors %ld, bad args %ld, unbalanced keys %u\n",
		race_ms, nthreads, arms, fires, cancels, far_fires,
		atomic_long_read(&race_wrong), atomic_long_read(&race_errors),
		atomic_long_read(&race_bad_arg), unbalanced);
	CHECK(arms > 0 && fires > 0 && cancels > 0);
	CHECK(unbalanced == 0);
	CHECK(atomic_long_read(&race_wrong) == 0);
	CHECK(atomic_long_read(&race_errors) == 0);
	CHECK(atomic_long_read(&race_bad_arg) == 0);
	CHECK(!race_strict || far_fires == 0);
free:
	kfree(threads);
	kvfree(race_keys);
	race_keys = NULL;
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

/*
 * The torture. Accounting, per callout, with atomics: every arming (a
 * callout_set() by a thread or by the func itself) ends exactly once, by a
 * fire or by a cancel (callout_unset() or callout_unset_sync() returning 1,
 * or a callout_set() returning 1, which re-arms a pending callout and so
 * ends its previous arming). One cancel goes uncounted: callout_unset_sync()
 * returns 1 once even when it also cancels a set made while it waited for
 * the func (the func's own re-arm, or another thread's set). Such sets are
 * counted as "maybe hidden" (a set that overlapped a callout_unset_sync()),
 * and after the last callout_unset_sync() every callout must have
 * 0 <= arms - fires - cancels <= maybe hidden.
 *
 * Never early: the due time is carried in the func's arg, (due_ns >> 10) <<
 * 12 | index, computed before the set, so the func checks its own arming
 * without any shared state. Never concurrent: a func finding the callout's
 * running count already raised is a bug. Never after unset_sync: a thread
 * that holds the callout's rwsem for writing (no other thread sets it) calls
 * callout_unset_sync() and then checks that the func is not running, the
 * callout not pending, and sometimes that no fire happens two ticks later.
 */
static unsigned int torture_ms = 3000;
module_param(torture_ms, uint, 0444);
MODULE_PARM_DESC(torture_ms, "length of the torture at load, ms (0: none)");

#define TORTURE_POOL	256		/* callouts shared by all threads */
#define TORTURE_PAIRS	64		/* func/arg slots of callout_timeout() */
#define TORTURE_TICKS	200		/* longest interval, in ticks */
#define TORTURE_RING	32		/* timeouts a thread may untimeout */

struct tcallout {
	struct callout c;
	struct rw_semaphore sem;	/* write: no other thread touches c */
	atomic_t running;		/* funcs of c running now */
	atomic_long_t arms, fires, cancels;
	atomic_long_t syncs_started, syncs_done, maybe_hidden;
};

struct tpair {
	atomic_long_t arms, fires, cancels;
};

static struct tcallout *tpool;
static struct tpair tpairs[TORTURE_PAIRS];
static bool torture_stopping;

static struct {
	atomic_long_t sets, rearms, unsets, unset_syncs, excl_syncs;
	atomic_long_t timeouts, untimeouts, dawdles;
	atomic_long_t early, concurrent, running_after_sync;
	atomic_long_t pending_after_sync, fired_after_sync, errors;
} tstat;

static unsigned long torture_arg(u64 due_ns, unsigned int idx)
{
	return (unsigned long)(due_ns >> 10) << 12 | idx;
}

static u64 torture_arg_due(unsigned long arg)
{
	return (u64)(arg >> 12) << 10;
}

/* From 1 to TORTURE_TICKS ticks, many of them short. */
static unsigned long torture_ticks(void)
{
	return 1 + get_random_u32() % (get_random_u32() % 2 ? 4 : TORTURE_TICKS);
}

/* callout_set() of @tc with its accounting; Return: its result. */
static int torture_set(struct tcallout *tc, void (*func)(void *))
{
	unsigned long ticks = torture_ticks();
	u64 due = ktime_get_ns() + ticks * callout_tick_ns();
	long done = atomic_long_read(&tc->syncs_done);
	int ret;

	ret = callout_set(&tc->c, ticks, func,
			  (void *)torture_arg(due, tc - tpool));
	/* An unset_sync that overlapped this set may cancel it uncounted. */
	if (atomic_long_read(&tc->syncs_started) > done)
		atomic_long_inc(&tc->maybe_hidden);
	if (ret < 0) {
		atomic_long_inc(&tstat.errors);
		return ret;
	}
	atomic_long_inc(&tc->arms);
	if (ret)
		atomic_long_inc(&tc->cancels);
	return ret;
}

static void torture_func(void *arg)
{
	unsigned long v = (unsigned long)arg;
	struct tcallout *tc = &tpool[v & 0xfff];
	u64 now = ktime_get_ns();
	u32 r = get_random_u32();

	if (atomic_inc_return(&tc->running) != 1)
		atomic_long_inc(&tstat.concurrent);
	if (now < torture_arg_due(v))
		atomic_long_inc(&tstat.early);
	atomic_long_inc(&tc->fires);
	if (r % 16 == 0) {
		/* Dawdle: unset_sync on another CPU must wait for this. */
		udelay(50 + r % 200);
		atomic_long_inc(&tstat.dawdles);
	}
	if (r % 3 == 0 && !READ_ONCE(torture_stopping)) {
		torture_set(tc, torture_func);
		atomic_long_inc(&tstat.rearms);
	}
	atomic_dec(&tc->running);
}

static void torture_timeout_func(void *arg)
{
	unsigned long v = (unsigned long)arg;

	if (ktime_get_ns() < torture_arg_due(v))
		atomic_long_inc(&tstat.early);
	atomic_long_inc(&tpairs[v & 0xfff].fires);
}

static int torture_unset_sync(struct tcallout *tc)
{
	int ret;

	atomic_long_inc(&tc->syncs_started);
	ret = callout_unset_sync(&tc->c);
	atomic_long_inc(&tc->syncs_done);
	if (ret)
		atomic_long_inc(&tc->cancels);
	return ret;
}

/* callout_unset_sync() of a callout no other thread may set. */
static void torture_exclusive(struct tcallout *tc)
{
	long fires;

	down_write(&tc->sem);
	torture_unset_sync(tc);
	if (atomic_read(&tc->running))
		atomic_long_inc(&tstat.running_after_sync);
	if (callout_pending(&tc->c))
		atomic_long_inc(&tstat.pending_after_sync);
	if (get_random_u32() % 8 == 0) {
		fires = atomic_long_read(&tc->fires);
		usleep_range(2 * callout_tick_ns() / 1000,
			     3 * callout_tick_ns() / 1000);
		if (atomic_long_read(&tc->fires) != fires)
			atomic_long_inc(&tstat.fired_after_sync);
	}
	atomic_long_inc(&tstat.excl_syncs);
	up_write(&tc->sem);
}

static int torture_thread(void *data)
{
	unsigned long ring[TORTURE_RING] = { 0 };
	unsigned int n = 0, i, ticks;
	struct tcallout *tc;
	unsigned long arg;
	u32 r;

	while (!kthread_should_stop()) {
		r = get_random_u32();
		tc = &tpool[r % TORTURE_POOL];
		r /= TORTURE_POOL;
		switch (r % 20) {
		case 0 ... 7:
			if (!down_read_trylock(&tc->sem))
				break;
			torture_set(tc, torture_func);
			atomic_long_inc(&tstat.sets);
			up_read(&tc->sem);
			break;
		case 8 ... 11:
			if (!down_read_trylock(&tc->sem))
				break;
			if (callout_unset(&tc->c))
				atomic_long_inc(&tc->cancels);
			atomic_long_inc(&tstat.unsets);
			up_read(&tc->sem);
			break;
		case 12 ... 13:
			if (!down_read_trylock(&tc->sem))
				break;
			torture_unset_sync(tc);
			atomic_long_inc(&tstat.unset_syncs);
			up_read(&tc->sem);
			break;
		case 14 ... 15:
			torture_exclusive(tc);
			break;
		case 16 ... 17:
			i = r % TORTURE_PAIRS;
			ticks = torture_ticks();
			arg = torture_arg(ktime_get_ns() +
					  ticks * callout_tick_ns(), i);
			if (callout_timeout(torture_timeout_func, (void *)arg,
					    ticks)) {
				atomic_long_inc(&tstat.errors);
				break;
			}
			atomic_long_inc(&tpairs[i].arms);
			atomic_long_inc(&tstat.timeouts);
			ring[n++ % TORTURE_RING] = arg;
			break;
		default:
			arg = ring[r % TORTURE_RING];
			if (!arg)
				break;
			if (callout_untimeout(torture_timeout_func, (void *)arg))
				atomic_long_inc(&tpairs[arg & 0xfff].cancels);
			atomic_long_inc(&tstat.untimeouts);
			break;
		}
		cond_resched();
	}
	return 0;
}

static long torture_sum(atomic_long_t *first, size_t stride, unsigned int n)
{
	long sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += atomic_long_read((atomic_long_t *)((char *)first + i * stride));
	return sum;
}

static void __init test_torture(void)
{
	unsigned int cpu, i, nthreads = 0, unbalanced = 0, owed;
	long arms, fires, cancels, hidden = 0, maybe;
	struct task_struct **threads;
	unsigned long deadline;

	if (!torture_ms)
		return;
	tpool = kvcalloc(TORTURE_POOL, sizeof(*tpool), GFP_KERNEL);
	threads = kcalloc(nr_cpu_ids, sizeof(*threads), GFP_KERNEL);
	if (!tpool || !threads) {
		skipped_tests++;
		goto free;
	}
	for (i = 0; i < TORTURE_POOL; i++) {
		callout_init(&tpool[i].c);
		init_rwsem(&tpool[i].sem);
	}
	WRITE_ONCE(torture_stopping, false);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		t = kthread_create_on_cpu(torture_thread, NULL, cpu,
					  "callout_torture/%u");
		if (IS_ERR(t))
			continue;
		threads[nthreads++] = t;
		wake_up_process(t);
	}
	cpus_read_unlock();
	CHECK(nthreads > 0);
	msleep(torture_ms);
	WRITE_ONCE(torture_stopping, true);
	for (i = 0; i < nthreads; i++)
		kthread_stop(threads[i]);

	/* Whatever is still armed is cancelled now; nothing runs after. */
	for (i = 0; i < TORTURE_POOL; i++) {
		struct tcallout *tc = &tpool[i];

		long open;

		torture_unset_sync(tc);
		if (atomic_read(&tc->running))
			atomic_long_inc(&tstat.running_after_sync);
		open = atomic_long_read(&tc->arms) - atomic_long_read(&tc->fires) -
		       atomic_long_read(&tc->cancels);
		maybe = atomic_long_read(&tc->maybe_hidden);
		if (open < 0 || open > maybe) {
			pr_warn("torture: callout %u: %ld armed, %ld fired, %ld cancelled, %ld maybe hidden\n",
				i, atomic_long_read(&tc->arms),
				atomic_long_read(&tc->fires),
				atomic_long_read(&tc->cancels), maybe);
			unbalanced++;
		}
		hidden += open;
	}
	/* Timeouts cannot be waited for one by one: wait for them all. */
	deadline = jiffies + msecs_to_jiffies(TORTURE_TICKS *
					      callout_tick_ns() / NSEC_PER_MSEC +
					      10000);
	do {
		owed = 0;
		for (i = 0; i < TORTURE_PAIRS; i++)
			owed += atomic_long_read(&tpairs[i].arms) -
				atomic_long_read(&tpairs[i].fires) -
				atomic_long_read(&tpairs[i].cancels);
		if (owed)
			msleep(20);
	} while (owed && time_before(jiffies, deadline));
	msleep(20);
	for (i = 0; i < TORTURE_PAIRS; i++) {
		if (atomic_long_read(&tpairs[i].arms) !=
		    atomic_long_read(&tpairs[i].fires) +
		    atomic_long_read(&tpairs[i].cancels)) {
			pr_warn("torture: timeout arg %u: %ld armed, %ld fired, %ld untimed\n",
				i, atomic_long_read(&tpairs[i].arms),
				atomic_long_read(&tpairs[i].fires),
				atomic_long_read(&tpairs[i].cancels));
			unbalanced++;
		}
	}

	arms = torture_sum(&tpool[0].arms, sizeof(*tpool), TORTURE_POOL);
	fires = torture_sum(&tpool[0].fires, sizeof(*tpool), TORTURE_POOL);
	cancels = torture_sum(&tpool[0].cancels, sizeof(*tpool), TORTURE_POOL);
	maybe = torture_sum(&tpool[0].maybe_hidden, sizeof(*tpool), TORTURE_POOL);
	pr_info("torture: %u ms, %u threads, %u callouts: %ld armed (%ld set, %ld by their func), %ld fired, %ld cancelled, %ld cancelled by an unset_sync that returned 1 once (<= %ld sets that overlapped one)\n",
		torture_ms, nthreads, TORTURE_POOL, arms,
		atomic_long_read(&tstat.sets), atomic_long_read(&tstat.rearms),
		fires, cancels, hidden, maybe);
	pr_info("torture: %ld unset, %ld unset_sync, %ld exclusive unset_sync, %ld dawdling funcs\n",
		atomic_long_read(&tstat.unsets),
		atomic_long_read(&tstat.unset_syncs),
		atomic_long_read(&tstat.excl_syncs),
		atomic_long_read(&tstat.dawdles));
	pr_info("torture: %ld timeouts: %ld fired, %ld untimeout (%ld calls)\n",
		torture_sum(&tpairs[0].arms, sizeof(*tpairs), TORTURE_PAIRS),
		torture_sum(&tpairs[0].fires, sizeof(*tpairs), TORTURE_PAIRS),
		torture_sum(&tpairs[0].cancels, sizeof(*tpairs), TORTURE_PAIRS),
		atomic_long_read(&tstat.untimeouts));
	pr_info("torture: early %ld, concurrent %ld, running after sync %ld, pending after sync %ld, fired after sync %ld, unbalanced %u, errors %ld\n",
		atomic_long_read(&tstat.early),
		atomic_long_read(&tstat.concurrent),
		atomic_long_read(&tstat.running_after_sync),
		atomic_long_read(&tstat.pending_after_sync),
		atomic_long_read(&tstat.fired_after_sync), unbalanced,
		atomic_long_read(&tstat.errors));
	CHECK(arms > 0 && fires > 0 && cancels > 0);
	CHECK(atomic_long_read(&tstat.early) == 0);
	CHECK(atomic_long_read(&tstat.concurrent) == 0);
	CHECK(atomic_long_read(&tstat.running_after_sync) == 0);
	CHECK(atomic_long_read(&tstat.pending_after_sync) == 0);
	CHECK(atomic_long_read(&tstat.fired_after_sync) == 0);
	CHECK(atomic_long_read(&tstat.errors) == 0);
	CHECK(unbalanced == 0);
free:
	kfree(threads);
	kvfree(tpool);
}

static void __init selftest(void)
{
	test_set_fires_once();
	test_set_unset_results();
	test_unset_sync_waits();
	test_unset_sync_rearming();
	test_timeout_untimeout();
	test_untimeout_reuse_race();
	test_many_never_early();
	test_torture();
}

KSTM_MODULE_LOADERS(callout_test);
MODULE_DESCRIPTION("Tests of the callout in-kernel API");
MODULE_LICENSE("GPL");
