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
 *		its hrtimer softirq, which runs callout's tick, off for
 *		stall_ms (from a SCHED_FIFO kthread with BHs off: see struct
 *		stall): every one must fire once, none before its time, none
 *		before the stall ends, and all in the first softirq run after
 *		it.
 * test=backlog	arm n callouts on one CPU so held off, all due before the
 *		stall ends: every one must fire once, never early, none during
 *		the stall, and no softirq run may execute more than
 *		CALLOUT_RUN_BUDGET (1024) of them, so a backlog is worked off
 *		in several runs and the CPU gets to do something else in
 *		between.
 * test=burst	arm n callouts on one CPU due at one and the same tick
 *		(callout_set_ns()), 300 ms ahead: every one fires once,
 *		never early, in runs of at most CALLOUT_RUN_BUDGET; those
 *		filed in the wheel (the out parameter filed) are collected
 *		a chunk of CALLOUT_COLLECT_BUDGET at a time under the base
 *		lock, which the test script sees in debugfs
 *		(collect_stopped).
 * test=offline	arm n callouts on cpu, due in 3 s, then take that CPU
 *		offline (remove_cpu()) while they are pending and bring it
 *		back: every one fires once, never early, none lost; the test
 *		script sees them moved in chunks (moved_offline). With
 *		groups=G, armed in G groups two ticks apart for the same
 *		interval: under lawn with few queues, the wheel they move to
 *		refuses most (one interval a group) and parks them.
 * test=rearm0	arm n callouts whose funcs set themselves again for 0 ticks
 *		for storm_ms: runs stay within the budget, the softirq comes
 *		back in separate runs, and callout_unset_sync() ends it.
 * test=remote	for remote_ms, two threads on two CPUs set a shared handful of
 *		callouts at random, so each set often finds the callout on
 *		the other CPU's base and its own base lock busy (it stays
 *		there), and one callout is set from the second CPU while its
 *		func runs on the first (it stays there too): the two ways a
 *		callout stays on another CPU's base. The kernel's counters
 *		say how often each was taken (remote_test.sh), and the tick
 *		asserts that it runs on its own CPU.
 * test=leave	a client's bug: one far callout_timeout() of kfree(NULL)
 *		left pending at this module's exit, which callout.ko's
 *		unload must cancel with a warning naming kfree, and free
 *		(scripts/check-debug.sh boots once for this).
 * test=inversion	a planted bug, for a lockdep kernel only: a func takes
 *		a lock, and once it has run, callout_unset_sync() is called
 *		holding that lock. The load succeeds; lockdep must report the
 *		inversion at that call, though the func does not run then
 *		(scripts/check-debug.sh boots once for this alone).
 * test=race	a planted data race, for a KCSAN kernel only: a func and a
 *		reader on two CPUs touch a plain counter; KCSAN must report
 *		it (scripts/check-debug.sh --kcsan boots once for this).
 *
 * A test that fails makes the load fail (-EINVAL) with a "callout_client:"
 * line saying why; "cpu" tells the test which CPU the callouts used.
 *
 * Runs of the hrtimer softirq are told apart by the CPU's HRTIMER_SOFTIRQ
 * count (kstat), which the softirq core increments before each run of the
 * handler: funcs run by one handler invocation see one value.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/callout.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/kernel_stat.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "callout_tw.h"		/* callout_set_ns() */

MODULE_IMPORT_NS(CALLOUT_NS);
MODULE_IMPORT_NS(CALLOUT_TW_NS);

#define RUN_BUDGET	1024	/* CALLOUT_RUN_BUDGET of core.c */

static unsigned int hold;
module_param(hold, uint, 0444);
MODULE_PARM_DESC(hold, "callouts to keep armed until unload");

static char *test = "";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "stall, backlog, burst, offline, rearm0, remote, leave, inversion or race: run that test at load");

static unsigned int n = 1000;
module_param(n, uint, 0444);
MODULE_PARM_DESC(n, "callouts of the stall, backlog, burst or offline test");

static unsigned int stall_ms = 50;
module_param(stall_ms, uint, 0444);
MODULE_PARM_DESC(stall_ms, "how long the stall test keeps softirqs off");

static unsigned int storm_ms = 5000;
module_param(storm_ms, uint, 0444);
MODULE_PARM_DESC(storm_ms, "how long the rearm0 funcs keep setting themselves");

static unsigned int remote_ms = 2000;
module_param(remote_ms, uint, 0444);
MODULE_PARM_DESC(remote_ms, "how long the remote test sets callouts");

static int cpu = -1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "out: the CPU the test's callouts were armed on");

static unsigned int groups;
module_param(groups, uint, 0444);
MODULE_PARM_DESC(groups, "offline: arm in this many groups, two ticks apart, each for the same interval");

static unsigned int filed;
module_param(filed, uint, 0444);
MODULE_PARM_DESC(filed, "out: burst callouts set a tick before theirs (in the wheel)");

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
 * The stall: hold the callout tick off on one CPU while callouts fall due
 * there, to see what the tick does with a CPU that comes back late. The tick
 * is a soft hrtimer, run by HRTIMER_SOFTIRQ on its CPU, in one of two ways:
 *
 * - at interrupt exit, at local_bh_enable() or in ksoftirqd/N. Without
 *   PREEMPT_RT, local_bh_disable() holds all of them off: the CPU stays in
 *   the caller and the softirq waits for its local_bh_enable().
 * - with forced interrupt threading (PREEMPT_RT, or threadirqs), in the
 *   CPU's ktimers/N thread, SCHED_FIFO priority 1. On PREEMPT_RT a task
 *   with BHs off stays preemptible, and ktimers/N waits for it only if
 *   local_bh_disable() takes the per-CPU BH lock: always up to 6.12, later
 *   only with CONFIG_PREEMPT_RT_NEEDS_BH_LOCK, which Debian's 7.x-rt leaves
 *   off. There, ktimers/N preempts a SCHED_NORMAL thread with BHs off and
 *   runs the tick in the middle of the stall.
 *
 * So the stall runs in a kthread bound to the CPU, at sched_set_fifo()'s
 * priority 50 (above ktimers/N; threaded interrupt handlers have 50 too,
 * and an equal priority does not preempt a running SCHED_FIFO thread), with
 * BHs off all along: nothing that can run the hrtimer softirq gets the CPU
 * before the stall ends, on any kernel, with or without the BH lock, so
 * there is nothing to probe.
 *
 * That is the test's premise, not what it tests, and it is checked: the
 * CPU's HRTIMER_SOFTIRQ count must not move during the stall. If it does,
 * the kernel ran the softirq anyway, and the test says so rather than blame
 * callout for funcs that ran during the stall.
 */
struct stall {
	unsigned int spread;	/* callouts due within 1..spread ticks */
	unsigned int delay_ms;	/* kept off this long after the last is due */
	u64 end_ns;		/* out: when the stall ended */
	unsigned int softirqs;	/* out: hrtimer softirq runs during it */
	struct completion done;
};

static int stall_thread(void *arg)
{
	struct stall *s = arg;
	unsigned int i, ticks, softirqs;
	u64 last_due = 0;

	local_bh_disable();
	cpu = smp_processor_id();
	softirqs = hrtimer_softirqs();
	for (i = 0; i < n; i++) {
		callout_init(&probes[i].c);
		ticks = 1 + i % s->spread;
		probes[i].due_ns = ktime_get_ns() + ticks * callout_tick_ns();
		last_due = max(last_due, probes[i].due_ns);
		callout_set(&probes[i].c, ticks, test_func, &probes[i]);
	}
	/*
	 * Stall by the clock the callouts are due by: mdelay() counts TSC
	 * cycles, which a loaded TCG guest may see pass faster than ktime.
	 */
	while (ktime_get_ns() < last_due + (u64)s->delay_ms * NSEC_PER_MSEC)
		cpu_relax();
	s->end_ns = ktime_get_ns();
	s->softirqs = hrtimer_softirqs() - softirqs;
	local_bh_enable();
	/* Module code ends here: exit without returning into it. */
	kthread_complete_and_exit(&s->done, 0);
}

/*
 * Arm n callouts due within s->spread ticks on one CPU and keep its hrtimer
 * softirq off until s->delay_ms after the last is due (see struct stall).
 * Return: 0 when the stall is over, or an errno and nothing armed.
 */
static int arm_and_stall(struct stall *s)
{
	struct task_struct *t;
	int on = raw_smp_processor_id();

	init_completion(&s->done);
	t = kthread_create(stall_thread, s, "callout_stall/%d", on);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, on);
	sched_set_fifo(t);
	wake_up_process(t);
	wait_for_completion(&s->done);
	return 0;
}

/*
 * Wait for all n, then check each fired once, not before it was due and not
 * during the stall @s.
 */
static int check_fired(const char *name, const struct stall *s)
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
		held += probes[i].fired_ns < s->end_ns;
		late = probes[i].fired_ns - probes[i].due_ns;
		late_min = min(late_min, late);
		late_max = max(late_max, late);
	}
	pr_info("%s: cpu %d, %u callouts: %u fired once, %u early, %u during the stall, lateness %llu..%llu us, %u softirq runs, at most %u funcs a run\n",
		name, cpu, n, once, early, held, late_min / 1000,
		late_max / 1000, nr_runs, max_run_len);
	if (s->softirqs) {
		pr_err("%s: FAIL: cpu %d ran its hrtimer softirq %u times during the stall, under a SCHED_FIFO thread with BHs off: this kernel defeats the test's premise\n",
		       name, cpu, s->softirqs);
		return -EINVAL;
	}
	if (once != n || early || held) {
		pr_err("%s: FAIL: want every callout fired once, none early, none during the stall\n",
		       name);
		return -EINVAL;
	}
	return 0;
}

static int test_stall(void)
{
	struct stall s = { .spread = 5, .delay_ms = stall_ms };
	int ret;

	if (n > RUN_BUDGET)
		return -EINVAL;
	ret = arm_and_stall(&s);
	if (ret)
		return ret;
	if (check_fired("stall", &s))
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
	struct stall s = { .spread = 1, .delay_ms = 5 };
	int ret;

	ret = arm_and_stall(&s);
	if (ret)
		return ret;
	if (check_fired("backlog", &s))
		return -EINVAL;
	if (max_run_len > RUN_BUDGET || nr_runs < min_runs) {
		pr_err("backlog: FAIL: %u runs of at most %u funcs, want >= %u runs of <= %u\n",
		       nr_runs, max_run_len, min_runs, RUN_BUDGET);
		return -EINVAL;
	}
	return 0;
}

/*
 * Arm the n callouts, on the CPU this runs on (work_on_cpu()), all due at
 * *@arg, and count in filed those set a tick or more before their tick: a
 * set then finds the clock before it, and files the callout in the wheel.
 */
static long arm_at(void *arg)
{
	u64 due_ns = *(u64 *)arg, tick_ns = callout_tick_ns(), due_tick_ns;
	unsigned int i;
	long ret;

	cpu = smp_processor_id();
	due_tick_ns = DIV_ROUND_UP_ULL(due_ns, tick_ns) * tick_ns;
	for (i = 0; i < n; i++) {
		callout_init(&probes[i].c);
		probes[i].due_ns = due_ns;
		ret = callout_set_ns(&probes[i].c, due_ns, test_func,
				     &probes[i]);
		if (ret)
			return ret;
		filed += ktime_get_ns() + tick_ns < due_tick_ns;
	}
	return 0;
}

/*
 * offline with groups: arm the n callouts on this CPU in @groups groups two
 * ticks apart, each for the same interval, to *@arg from now. Lawn keys its
 * queues by interval, so here they take a queue or two; moved to a wheel at
 * a later tick, their expiries make one interval a group.
 */
static long arm_groups(void *arg)
{
	u64 tick_ns = callout_tick_ns(), ticks = *(u64 *)arg / tick_ns;
	unsigned int i, per = DIV_ROUND_UP(n, groups);
	long ret;

	cpu = smp_processor_id();
	for (i = 0; i < n; i++) {
		if (i && !(i % per))
			usleep_range(2 * tick_ns / NSEC_PER_USEC,
				     3 * tick_ns / NSEC_PER_USEC);
		callout_init(&probes[i].c);
		probes[i].due_ns = ktime_get_ns() + ticks * tick_ns;
		ret = callout_set(&probes[i].c, ticks, test_func, &probes[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A burst due at one tick on one CPU, 2 s from now: the tick collects those
 * in the wheel (filed) a chunk of CALLOUT_COLLECT_BUDGET at a time, and runs
 * at most CALLOUT_RUN_BUDGET funcs a softirq run. A slow host only lowers
 * filed, which the script's bound follows (and a host too slow to file
 * four chunks makes it skip, not pass).
 */
static int test_burst(void)
{
	unsigned int min_runs = DIV_ROUND_UP(n, RUN_BUDGET);
	struct stall none = { 0 };
	u64 due_ns = ktime_get_ns() + 2ULL * NSEC_PER_SEC;
	long ret;

	ret = work_on_cpu(cpumask_first(cpu_online_mask), arm_at, &due_ns);
	if (ret) {
		pr_err("burst: FAIL: arming: %ld\n", ret);
		return ret;
	}
	if (check_fired("burst", &none))
		return -EINVAL;
	pr_info("burst: %u of %u filed in the wheel before their tick\n",
		filed, n);
	if (max_run_len > RUN_BUDGET || nr_runs < min_runs) {
		pr_err("burst: FAIL: %u runs of at most %u funcs, want >= %u runs of <= %u\n",
		       nr_runs, max_run_len, min_runs, RUN_BUDGET);
		return -EINVAL;
	}
	return 0;
}

/*
 * A CPU goes offline with n callouts pending on it and comes back: the
 * dead CPU's callouts move to the CPU that runs the offline, in chunks, and
 * each fires once, never early. Needs a second CPU that can go offline:
 * ENODEV otherwise, which the script reports as a skip.
 */
static int test_offline(void)
{
	unsigned int i, once = 0, early = 0, pending = 0, still = 0;
	unsigned long deadline;
	u64 due_ns;
	int ret, secs;

	/* The last online CPU but the first, which may not go offline. */
	cpus_read_lock();
	for_each_online_cpu(i)
		if (i != cpumask_first(cpu_online_mask))
			cpu = i;
	cpus_read_unlock();
	if (cpu < 0)
		return -ENODEV;
	/*
	 * Due once the sets and the offline are over: 10 s, or 3 s for a
	 * scheme that holds less (simple with 4096 slots of 1 ms refuses the
	 * first set, so nothing is armed yet). If they are not all pending
	 * at the offline anyway, the host was too slow: EAGAIN, a skip.
	 */
	for (secs = 10, ret = -ERANGE; ret == -ERANGE && secs > 0; secs -= 7) {
		if (groups) {
			due_ns = (u64)secs * NSEC_PER_SEC;
			ret = work_on_cpu(cpu, arm_groups, &due_ns);
		} else {
			due_ns = ktime_get_ns() + (u64)secs * NSEC_PER_SEC;
			ret = work_on_cpu(cpu, arm_at, &due_ns);
		}
	}
	if (ret) {
		pr_err("offline: FAIL: arming on cpu %d: %d\n", cpu, ret);
		goto out;
	}
	for (i = 0; i < n; i++)
		pending += callout_pending(&probes[i].c);
	ret = remove_cpu(cpu);
	if (ret) {
		pr_info("offline: cpu %d cannot go offline: %d\n", cpu, ret);
		ret = -ENODEV;
		goto out;
	}
	/* Pending before and after: pending through the offline, moved. */
	for (i = 0; i < n; i++)
		still += callout_pending(&probes[i].c);
	pending = min(pending, still);
	deadline = jiffies + 30 * HZ;
	while (atomic_read(&fired) < n && time_before(jiffies, deadline))
		msleep(20);
	msleep(20);
	ret = add_cpu(cpu);
	if (ret)
		pr_err("offline: FAIL: cpu %d back online: %d\n", cpu, ret);
	for (i = 0; i < n; i++) {
		once += atomic_read(&probes[i].runs) == 1;
		early += probes[i].fired_ns < probes[i].due_ns;
	}
	pr_info("offline: cpu %d, %u callouts, %u pending through the offline: %u fired once, %u early\n",
		cpu, n, pending, once, early);
	if (once != n || early) {
		pr_err("offline: FAIL: want every callout fired once, none early\n");
		ret = -EINVAL;
	} else if (pending != n) {
		pr_info("offline: host too slow: %u of %u pending through the offline\n",
			pending, n);
		ret = -EAGAIN;
	}
out:
	for (i = 0; i < n; i++)
		callout_unset_sync(&probes[i].c);
	return ret;
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

/*
 * test=remote. The busy way: threads on CPUs a and b set the same
 * REMOTE_SHARED callouts at random, for 1..64 ticks. A set moves the
 * callout to its own CPU's base if it can take that base's lock at once;
 * the other thread, setting a callout that lives there, often holds it,
 * and then the callout stays on the other base, due perhaps earlier than
 * that base's hrtimer. The running way: a handshake. The func of one
 * callout on CPU a waits (at most 2 ms) for the thread on b to set the
 * callout again while it runs; that set must leave it on a's base.
 * Neither way depends on timing to be correct, only to be reached: the
 * counters say how often it was (remote_test.sh checks they moved).
 */
#define REMOTE_SHARED	16

struct remote {
	unsigned int cpu_a, cpu_b;
	u64 end_busy_ns, end_ns;
	atomic_t ready;
	struct completion done[2];
};

static struct remote remote;
static int hand_running;	/* the handshake func runs, waiting for b */
static int hand_acked;		/* b has set it again meanwhile */
static int hand_lost;		/* it ran off cpu a: a must set it again */
static atomic_t hand_hits, hand_misses, busy_sets;

static void busy_func(void *arg)
{
	atomic_inc(&fired);
}

static void hand_func(void *arg)
{
	struct probe *p = arg;
	u64 until = ktime_get_ns() + 2 * NSEC_PER_MSEC;

	/* b set it while it was not running, and took it: a takes it back. */
	if (smp_processor_id() != remote.cpu_a) {
		WRITE_ONCE(hand_lost, 1);
		return;
	}
	WRITE_ONCE(hand_acked, 0);
	/* b sees acked cleared once it sees running set */
	smp_store_release(&hand_running, 1);
	/* and what b's set did before it acked, once this sees it */
	while (!smp_load_acquire(&hand_acked) && ktime_get_ns() < until)
		cpu_relax();
	WRITE_ONCE(hand_running, 0);
	if (READ_ONCE(hand_acked)) {
		atomic_inc(&hand_hits);		/* b set it again: pending */
	} else {
		atomic_inc(&hand_misses);
		if (ktime_get_ns() < remote.end_ns)
			callout_set(&p->c, 1, hand_func, p);
	}
}

static u32 xorshift(u32 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static int remote_thread(void *arg)
{
	unsigned int me = (uintptr_t)arg, i = 0;
	struct probe *hand = &probes[REMOTE_SHARED];
	u32 rnd = get_random_u32() | 1;
	struct probe *p;

	/* Both threads start together, or the first has the field alone. */
	atomic_inc(&remote.ready);
	while (atomic_read(&remote.ready) < 2)
		cpu_relax();
	while (ktime_get_ns() < remote.end_busy_ns) {
		p = &probes[xorshift(&rnd) % REMOTE_SHARED];
		callout_set(&p->c, 1 + xorshift(&rnd) % 64, busy_func, p);
		atomic_inc(&busy_sets);
		if (!(++i % 256))
			cond_resched();
	}
	if (me == 0)
		callout_set(&hand->c, 1, hand_func, hand);
	while (me == 0 && ktime_get_ns() < remote.end_ns) {
		if (READ_ONCE(hand_lost)) {
			WRITE_ONCE(hand_lost, 0);
			callout_set(&hand->c, 1, hand_func, hand);
		}
		usleep_range(200, 500);
	}
	while (me == 1 && ktime_get_ns() < remote.end_ns) {
		/* pairs with hand_func()'s release: acked is cleared */
		if (smp_load_acquire(&hand_running) && !READ_ONCE(hand_acked)) {
			callout_set(&hand->c, 1, hand_func, hand);
			/* pairs with hand_func()'s acquire */
			smp_store_release(&hand_acked, 1);
		}
		cpu_relax();
		if (!(++i % 4096))
			cond_resched();
	}
	/* Module code ends here: exit without returning into it. */
	kthread_complete_and_exit(&remote.done[me], 0);
}

static int test_remote(void)
{
	struct task_struct *t[2];
	unsigned int i;
	u64 now;

	if (n <= REMOTE_SHARED)
		return -EINVAL;
	remote.cpu_a = cpumask_first(cpu_online_mask);
	remote.cpu_b = cpumask_next(remote.cpu_a, cpu_online_mask);
	if (remote.cpu_b >= nr_cpu_ids) {
		pr_err("remote: needs two online CPUs\n");
		return -ENODEV;
	}
	for (i = 0; i <= REMOTE_SHARED; i++)
		callout_init(&probes[i].c);
	now = ktime_get_ns();
	remote.end_busy_ns = now + remote_ms / 2 * NSEC_PER_MSEC;
	remote.end_ns = now + remote_ms * (u64)NSEC_PER_MSEC;
	for (i = 0; i < 2; i++) {
		init_completion(&remote.done[i]);
		t[i] = kthread_create(remote_thread, (void *)(uintptr_t)i,
				      "callout_remote/%u", i);
		if (IS_ERR(t[i])) {
			/* The first, if any, waits for the second forever. */
			if (i)
				kthread_stop(t[0]);
			return PTR_ERR(t[i]);
		}
		kthread_bind(t[i], i ? remote.cpu_b : remote.cpu_a);
	}
	wake_up_process(t[0]);
	wake_up_process(t[1]);
	wait_for_completion(&remote.done[0]);
	wait_for_completion(&remote.done[1]);
	/* hand_func sets itself again only before end_ns. */
	for (i = 0; i <= REMOTE_SHARED; i++)
		callout_unset_sync(&probes[i].c);
	pr_info("remote: cpus %u and %u: %d sets of %d shared callouts, %d funcs run; the func run on cpu %u was set again from cpu %u %d times (%d times it waited 2 ms in vain)\n",
		remote.cpu_a, remote.cpu_b, atomic_read(&busy_sets),
		REMOTE_SHARED, atomic_read(&fired), remote.cpu_a,
		remote.cpu_b, atomic_read(&hand_hits),
		atomic_read(&hand_misses));
	return 0;
}

/*
 * test=leave: a timeout left pending when this module goes. Its func is
 * kfree(), of NULL, so that even if it fired after this module is gone it
 * would run no code of ours and do nothing. As far as the scheme reaches,
 * up to an hour: it must still be pending when callout.ko unloads.
 */
static int test_leave(void)
{
	unsigned long ticks = 3600 * NSEC_PER_SEC / callout_tick_ns();
	int ret;

	do {
		ret = callout_timeout((callout_func_t)(void *)kfree, NULL,
				      ticks);
	} while (ret == -ERANGE && (ticks /= 2));
	if (ret)
		pr_err("leave: callout_timeout(): %d\n", ret);
	return ret;
}

/*
 * test=inversion: the bug callout_unset_sync()'s kernel-doc forbids,
 * planted. A func takes a lock, and a caller holds that lock across
 * callout_unset_sync(). It deadlocks only if the func runs at that moment
 * (the caller waits for the func, the func for the lock); here the func ran
 * and returned before the call, so nothing hangs, and only lockdep can
 * tell: through callout_func_map, on this first call.
 *
 * The lock is a spinlock, so might_sleep() in callout_unset_sync() reports
 * the call too, and the boot expects both reports. No lock can plant the
 * inversion for lockdep alone here: a func runs in softirq, so its lock is
 * either held with BHs off across a call that may sleep (might_sleep()), or
 * held with BHs on, which lockdep's irq-state checks report first (lockdep
 * reports once a boot).
 */
static DEFINE_SPINLOCK(inversion_lock);

static void inversion_func(void *arg)
{
	spin_lock(&inversion_lock);
	atomic_inc(&fired);
	spin_unlock(&inversion_lock);
}

static int test_inversion(void)
{
	unsigned long deadline = jiffies + 30 * HZ;
	struct probe *p = &probes[0];

	if (!IS_ENABLED(CONFIG_PROVE_LOCKING)) {
		pr_err("inversion: needs a kernel with lockdep (PROVE_LOCKING)\n");
		return -EOPNOTSUPP;
	}
	callout_init(&p->c);
	callout_set(&p->c, 1, inversion_func, p);
	/* 30 s: a stalled vCPU may take a while; the func does run. */
	while (!atomic_read(&fired) && time_before(jiffies, deadline))
		msleep(20);
	if (!atomic_read(&fired)) {
		callout_unset_sync(&p->c);
		pr_err("inversion: FAIL: the func did not run in 30 s\n");
		return -EINVAL;
	}
	/* It has returned: not pending, not running; this call cannot wait. */
	pr_info("inversion: callout_unset_sync() under the lock its func takes\n");
	spin_lock_bh(&inversion_lock);
	callout_unset_sync(&p->c);
	spin_unlock_bh(&inversion_lock);
	pr_info("inversion: done\n");
	return 0;
}

/*
 * test=race: a data race planted, for a KCSAN kernel only. A func that sets
 * itself again every tick on the last CPU increments a plain counter, and a
 * reader on the first CPU reads it plainly for 3 s: KCSAN must report the
 * pair, naming race_func and race_read (scripts/check-debug.sh --kcsan
 * boots once for this, to prove its reports reach the judge). The func
 * stops at callout_unset_sync(); nothing of it runs after the load.
 */
static unsigned long race_val;

static void race_func(void *arg)
{
	struct probe *p = arg;

	race_val++;
	callout_set(&p->c, 1, race_func, p);
}

static noinline unsigned long race_read(void)
{
	return race_val;
}

static long race_arm(void *arg)
{
	struct probe *p = arg;

	callout_init(&p->c);
	return callout_set(&p->c, 1, race_func, p);
}

static long race_reader(void *arg)
{
	unsigned long end = jiffies + 3 * HZ, last = 0, v;
	long changes = 0;

	while (time_before(jiffies, end)) {
		v = race_read();
		changes += v != last;
		last = v;
		cpu_relax();
		cond_resched();
	}
	return changes;
}

static int test_race(void)
{
	unsigned int first = cpumask_first(cpu_online_mask);
	unsigned int last = cpumask_last(cpu_online_mask);
	struct probe *p = &probes[0];
	long ret, seen;

	if (!IS_ENABLED(CONFIG_KCSAN)) {
		pr_err("race: needs a kernel with KCSAN\n");
		return -EOPNOTSUPP;
	}
	if (first == last) {
		pr_err("race: needs two CPUs\n");
		return -EINVAL;
	}
	ret = work_on_cpu(last, race_arm, p);
	if (ret)
		return ret;
	seen = work_on_cpu(first, race_reader, NULL);
	callout_unset_sync(&p->c);
	pr_info("race: the reader saw the counter change %ld times\n", seen);
	return 0;
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
	else if (!strcmp(test, "burst"))
		ret = test_burst();
	else if (!strcmp(test, "offline"))
		ret = test_offline();
	else if (!strcmp(test, "rearm0"))
		ret = test_rearm0();
	else if (!strcmp(test, "remote"))
		ret = test_remote();
	else if (!strcmp(test, "inversion"))
		ret = test_inversion();
	else if (!strcmp(test, "leave"))
		ret = test_leave();
	else if (!strcmp(test, "race"))
		ret = test_race();
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
