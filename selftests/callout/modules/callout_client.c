// SPDX-License-Identifier: GPL-2.0
/*
 * callout_client - a kernel client of callout.ko for the unload and stall
 * tests (selftests/callout/kernel_client_test.sh).
 *
 * hold=N	arm N callouts that set themselves again every 1..8 ticks, and
 *		one far callout_timeout(), and keep them until unload. While
 *		loaded, callout.ko cannot be unloaded (this module uses its
 *		symbols). The exit cancels them all with callout_unset_sync()
 *		and checks that no func runs afterwards.
 * test=stall	arm n callouts due within 5 ticks on one CPU, then keep
 *		softirqs off there for stall_ms: every one must fire, none
 *		before its time, none before the stall ends, and all in the
 *		first softirq run after it.
 * test=backlog	arm n callouts on one CPU with softirqs off, all due before
 *		they come back on: every one must fire once, never early, and
 *		no softirq run may execute more than CALLOUT_RUN_BUDGET (1024)
 *		of them, so a backlog is worked off in several runs and the CPU
 *		gets to do something else in between.
 * test=rearm0	arm n callouts whose funcs set themselves again for 0 ticks
 *		for storm_ms: runs stay within the budget, the softirq comes
 *		back in separate runs, and callout_unset_sync() ends it.
 *
 * A test that fails makes the load fail (-EINVAL) with a "callout_client:"
 * line saying why; "cpu" tells the test which CPU the callouts used.
 *
 * Runs of the hrtimer softirq are told apart by the CPU's HRTIMER_SOFTIRQ
 * count (kstat), which __do_softirq() increments before each run of the
 * handler: funcs run by one handler invocation see one value.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/callout.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/kernel_stat.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

MODULE_IMPORT_NS(CALLOUT_NS);

#define RUN_BUDGET	1024	/* CALLOUT_RUN_BUDGET of core.c */

static unsigned int hold;
module_param(hold, uint, 0444);
MODULE_PARM_DESC(hold, "callouts to keep armed until unload");

static char *test = "";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "stall, backlog or rearm0: run that test at load");

static unsigned int n = 1000;
module_param(n, uint, 0444);
MODULE_PARM_DESC(n, "callouts of the stall or backlog test");

static unsigned int stall_ms = 50;
module_param(stall_ms, uint, 0444);
MODULE_PARM_DESC(stall_ms, "how long the stall test keeps softirqs off");

static unsigned int storm_ms = 5000;
module_param(storm_ms, uint, 0444);
MODULE_PARM_DESC(storm_ms, "how long the rearm0 funcs keep setting themselves");

static int cpu = -1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "out: the CPU the test's callouts were armed on");

struct probe {
	struct callout c;
	u64 due_ns;
	u64 fired_ns;
	atomic_t runs;
	unsigned int period;	/* hold: ticks between re-arms */
};

static struct probe *probes;
static atomic_t fired, runs_after_stop;
static bool stopping;

/* Runs of the hrtimer softirq, as the funcs see them (one CPU, serialised). */
static unsigned int run_id, run_len, max_run_len, nr_runs;

static unsigned int hrtimer_softirqs(void)
{
	return kstat_softirqs_cpu(HRTIMER_SOFTIRQ, smp_processor_id());
}

static void test_func(void *arg)
{
	struct probe *p = arg;
	unsigned int id = hrtimer_softirqs();

	p->fired_ns = ktime_get_ns();
	if (!nr_runs || id != run_id) {
		run_id = id;
		run_len = 0;
		nr_runs++;
	}
	max_run_len = max(max_run_len, ++run_len);
	atomic_inc(&p->runs);
	atomic_inc(&fired);
}

static u64 storm_end_ns;
static atomic_t storm_runs;

/* rearm0: a func that sets itself again for 0 ticks until storm_end_ns. */
static void rearm0_func(void *arg)
{
	struct probe *p = arg;

	test_func(p);
	atomic_inc(&storm_runs);
	if (ktime_get_ns() < READ_ONCE(storm_end_ns))
		callout_set(&p->c, 0, rearm0_func, p);
}

static void hold_func(void *arg)
{
	struct probe *p = arg;

	if (READ_ONCE(stopping))
		atomic_inc(&runs_after_stop);
	atomic_inc(&p->runs);
	callout_set(&p->c, p->period, hold_func, p);
}

static void timeout_func(void *arg)
{
	atomic_inc(&runs_after_stop);
}

/*
 * Arm n callouts due within @spread ticks on this CPU with softirqs off, and
 * keep them off until @delay_ms after the last is due.
 */
static u64 arm_with_bh_off(unsigned int spread, unsigned int delay_ms)
{
	unsigned int i, ticks;
	u64 stall_end, last_due = 0;

	local_bh_disable();
	cpu = smp_processor_id();
	for (i = 0; i < n; i++) {
		callout_init(&probes[i].c);
		ticks = 1 + i % spread;
		probes[i].due_ns = ktime_get_ns() + ticks * callout_tick_ns();
		last_due = max(last_due, probes[i].due_ns);
		callout_set(&probes[i].c, ticks, test_func, &probes[i]);
	}
	/*
	 * Stall by the clock the callouts are due by: mdelay() counts TSC
	 * cycles, which a loaded TCG guest may see pass faster than ktime.
	 */
	while (ktime_get_ns() < last_due + (u64)delay_ms * NSEC_PER_MSEC)
		cpu_relax();
	stall_end = ktime_get_ns();
	local_bh_enable();
	return stall_end;
}

/* Wait for all n, then check each fired once and not before @not_before. */
static int check_fired(const char *name, u64 not_before)
{
	unsigned long deadline = jiffies + 30 * HZ;
	unsigned int i, once = 0, early = 0, held = 0;
	u64 late_min = U64_MAX, late_max = 0, late;

	while (atomic_read(&fired) < n && time_before(jiffies, deadline))
		msleep(20);
	msleep(20);
	for (i = 0; i < n; i++) {
		callout_unset_sync(&probes[i].c);
		once += atomic_read(&probes[i].runs) == 1;
		early += probes[i].fired_ns < probes[i].due_ns;
		held += probes[i].fired_ns < not_before;
		late = probes[i].fired_ns - probes[i].due_ns;
		late_min = min(late_min, late);
		late_max = max(late_max, late);
	}
	pr_info("%s: cpu %d, %u callouts: %u fired once, %u early, %u during the stall, lateness %llu..%llu us, %u softirq runs, at most %u funcs a run\n",
		name, cpu, n, once, early, held, late_min / 1000,
		late_max / 1000, nr_runs, max_run_len);
	if (once != n || early || held) {
		pr_err("%s: FAIL: want every callout fired once, none early, none during the stall\n",
		       name);
		return -EINVAL;
	}
	return 0;
}

static int test_stall(void)
{
	u64 stall_end;

	if (n > RUN_BUDGET)
		return -EINVAL;
	stall_end = arm_with_bh_off(5, stall_ms);
	if (check_fired("stall", stall_end))
		return -EINVAL;
	/* All were due when softirqs came back: the first run takes them. */
	if (nr_runs != 1) {
		pr_err("stall: FAIL: %u softirq runs, want 1\n", nr_runs);
		return -EINVAL;
	}
	return 0;
}

static int test_backlog(void)
{
	unsigned int min_runs = DIV_ROUND_UP(n, RUN_BUDGET);
	u64 stall_end;

	stall_end = arm_with_bh_off(1, 5);
	if (check_fired("backlog", stall_end))
		return -EINVAL;
	if (max_run_len > RUN_BUDGET || nr_runs < min_runs) {
		pr_err("backlog: FAIL: %u runs of at most %u funcs, want >= %u runs of <= %u\n",
		       nr_runs, max_run_len, min_runs, RUN_BUDGET);
		return -EINVAL;
	}
	return 0;
}

/*
 * Funcs that set themselves again for 0 ticks must not keep the softirq: no
 * invocation of the softirq runs more than the budget of them (one that
 * looped on them would), they come back in further invocations, and
 * callout_unset_sync() stops them for good.
 *
 * How long a thread pinned to their CPU takes for 20 short sleeps meanwhile
 * is reported, not checked: it is the kernel's softirq policy and the host's
 * speed. 6.1 hands a busy softirq to ksoftirqd, which shares the CPU with the
 * thread; from 6.5 the softirq runs at every interrupt's exit, and under
 * KASAN on TCG, where a run of 1024 funcs takes longer than a tick, the
 * thread waits for the storm to end, as it would beside a timer_list that
 * re-arms itself every jiffy.
 */
static int test_rearm0(void)
{
	unsigned int i, runs_stopped;
	u64 progress_ns;
	int ret = 0;

	cpu = get_cpu();
	put_cpu();
	if (set_cpus_allowed_ptr(current, cpumask_of(cpu)))
		return -EINVAL;
	WRITE_ONCE(storm_end_ns, ktime_get_ns() + storm_ms * NSEC_PER_MSEC);
	for (i = 0; i < n; i++) {
		callout_init(&probes[i].c);
		callout_set(&probes[i].c, 0, rearm0_func, &probes[i]);
	}
	for (i = 0; i < 20; i++)
		usleep_range(1000, 2000);
	progress_ns = ktime_get_ns();
	/* Stop them while they still re-arm themselves. */
	for (i = 0; i < n; i++)
		callout_unset_sync(&probes[i].c);
	runs_stopped = atomic_read(&storm_runs);
	msleep(20);
	set_cpus_allowed_ptr(current, cpu_possible_mask);

	pr_info("rearm0: cpu %d, %u callouts re-arming for 0 ticks: %u funcs in %u softirq runs, at most %u a run; a thread on that cpu slept 20 times in %llu us\n",
		cpu, n, runs_stopped, nr_runs, max_run_len,
		(progress_ns - (storm_end_ns - storm_ms * NSEC_PER_MSEC)) / 1000);
	if (max_run_len > RUN_BUDGET || nr_runs < 2 || runs_stopped <= n) {
		pr_err("rearm0: FAIL: want several runs of <= %u funcs and re-armed funcs\n",
		       RUN_BUDGET);
		ret = -EINVAL;
	}
	if (atomic_read(&storm_runs) != runs_stopped) {
		pr_err("rearm0: FAIL: funcs ran after callout_unset_sync()\n");
		ret = -EINVAL;
	}
	return ret;
}

static int start_hold(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < hold; i++) {
		callout_init(&probes[i].c);
		probes[i].period = 1 + i % 8;
		ret = callout_set(&probes[i].c, probes[i].period, hold_func,
				  &probes[i]);
		if (ret < 0)
			goto unwind;
	}
	/* A far timeout(): cancelled by untimeout() at exit, never run. */
	ret = callout_timeout(timeout_func, probes, 10000);
	if (!ret)
		return 0;
unwind:
	while (i--)
		callout_unset_sync(&probes[i].c);
	return ret;
}

static void stop_hold(void)
{
	unsigned int i, after;

	WRITE_ONCE(stopping, true);
	for (i = 0; i < hold; i++)
		callout_unset_sync(&probes[i].c);
	if (callout_untimeout(timeout_func, probes) != 1)
		pr_err("hold: the far timeout was not pending at exit\n");
	/* Nothing of this module may run from here on. */
	after = atomic_read(&runs_after_stop);
	msleep(50);
	WARN(atomic_read(&runs_after_stop) != after,
	     "callout_client: a func ran after callout_unset_sync()\n");
}

static int __init callout_client_init(void)
{
	unsigned int nr = max(hold, n);
	int ret = 0;

	if (!nr || (hold && *test))
		return -EINVAL;
	probes = kvcalloc(nr, sizeof(*probes), GFP_KERNEL);
	if (!probes)
		return -ENOMEM;
	if (!strcmp(test, "stall"))
		ret = test_stall();
	else if (!strcmp(test, "backlog"))
		ret = test_backlog();
	else if (!strcmp(test, "rearm0"))
		ret = test_rearm0();
	else if (*test)
		ret = -EINVAL;
	if (!ret && hold)
		ret = start_hold();
	if (ret)
		kvfree(probes);
	return ret;
}

static void __exit callout_client_exit(void)
{
	if (hold)
		stop_hold();
	kvfree(probes);
}

module_init(callout_client_init);
module_exit(callout_client_exit);

MODULE_DESCRIPTION("A kernel client of callout for the unload and stall tests");
MODULE_LICENSE("GPL");
