// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - /sys/kernel/debug/callout/: "stats" (key: value lines, units in
 * the key names, totals then per CPU) and "wheel" (slot occupancy).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "dev.h"
#include "stats.h"
#include "timeout.h"

DEFINE_PER_CPU(struct callout_op_counts, callout_op_counts);
atomic_long_t callout_alloc_failures[CALLOUT_ALLOC_NR];

static struct dentry *callout_debugfs;

/* What one CPU's base says, copied under its lock. */
struct callout_snapshot {
	struct callout_cpu_stats cpu;
	struct tw_stats wheel;
	struct callout_op_counts ops;
	u64 pending;
};

static void snapshot_cpu(unsigned int cpu, struct callout_snapshot *s)
{
	struct callout_base *base = per_cpu_ptr(callout_bases, cpu);

	spin_lock_irq(&base->lock);
	s->cpu = base->stats;
	s->wheel = base->wheel.stats;
	s->pending = base->wheel.nr_pending;
	spin_unlock_irq(&base->lock);
	/*
	 * Each counter is a word its CPU increments with this_cpu_inc(),
	 * under no lock: a copy racing an increment reads the old or the new
	 * value of each, which is all a statistic promises.
	 */
	s->ops = data_race(*per_cpu_ptr(&callout_op_counts, cpu));
}

static void snapshot_add(struct callout_snapshot *t,
			 const struct callout_snapshot *s)
{
	unsigned int i;

	t->pending += s->pending;
	t->cpu.set += s->cpu.set;
	t->cpu.unset += s->cpu.unset;
	t->cpu.expired += s->cpu.expired;
	t->cpu.ticks_run += s->cpu.ticks_run;
	t->cpu.deferred += s->cpu.deferred;
	t->cpu.refiled += s->cpu.refiled;
	t->cpu.collect_stopped += s->cpu.collect_stopped;
	t->cpu.collect_max_ns = max(t->cpu.collect_max_ns,
				    s->cpu.collect_max_ns);
	t->cpu.full_catch_ups += s->cpu.full_catch_ups;
	t->cpu.moved += s->cpu.moved;
	t->cpu.parked += s->cpu.parked;
	t->cpu.stayed_busy += s->cpu.stayed_busy;
	t->cpu.stayed_running += s->cpu.stayed_running;
	t->cpu.kicks += s->cpu.kicks;
	t->cpu.ticks_off_cpu += s->cpu.ticks_off_cpu;
	t->cpu.max_late_ns = max(t->cpu.max_late_ns, s->cpu.max_late_ns);
	t->cpu.slowest_ns = max(t->cpu.slowest_ns, s->cpu.slowest_ns);
	for (i = 0; i < CALLOUT_LATE_BUCKETS; i++)
		t->cpu.late[i] += s->cpu.late[i];
	t->wheel.ticks += s->wheel.ticks;
	t->wheel.advances += s->wheel.advances;
	t->wheel.examined += s->wheel.examined;
	t->wheel.max_examined = max(t->wheel.max_examined,
				    s->wheel.max_examined);
	t->wheel.stopped += s->wheel.stopped;
	t->wheel.migrations += s->wheel.migrations;
	t->wheel.max_chain = max(t->wheel.max_chain, s->wheel.max_chain);
	t->ops.reset += s->ops.reset;
	t->ops.timeout += s->ops.timeout;
	t->ops.untimeout += s->ops.untimeout;
}

void callout_stats_sum(struct callout_cpu_stats *total)
{
	struct callout_snapshot t = {}, s;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		snapshot_cpu(cpu, &s);
		snapshot_add(&t, &s);
	}
	*total = t.cpu;
}

static void show_snapshot(struct seq_file *m, const char *p,
			  const struct callout_snapshot *s)
{
	unsigned int i;

	seq_printf(m, "%spending: %llu\n", p, s->pending);
	seq_printf(m, "%sset: %llu\n", p, s->cpu.set);
	seq_printf(m, "%sunset: %llu\n", p, s->cpu.unset);
	seq_printf(m, "%sreset: %llu\n", p, s->ops.reset);
	seq_printf(m, "%sexpired: %llu\n", p, s->cpu.expired);
	seq_printf(m, "%stimeout: %llu\n", p, s->ops.timeout);
	seq_printf(m, "%suntimeout: %llu\n", p, s->ops.untimeout);
	seq_printf(m, "%sticks_run: %llu\n", p, s->cpu.ticks_run);
	seq_printf(m, "%sticks_skipped: %llu\n", p,
		   s->wheel.ticks > s->cpu.ticks_run ?
		   s->wheel.ticks - s->cpu.ticks_run : 0);
	seq_printf(m, "%sexamined_per_advance_avg_x1000: %llu\n", p,
		   s->wheel.advances ?
		   div64_u64(s->wheel.examined * 1000, s->wheel.advances) : 0);
	seq_printf(m, "%sexamined_per_advance_max: %llu\n", p,
		   s->wheel.max_examined);
	seq_printf(m, "%smigrations: %llu\n", p, s->wheel.migrations);
	seq_printf(m, "%slongest_chain: %llu\n", p, s->wheel.max_chain);
	seq_printf(m, "%sdeferred_runs: %llu\n", p, s->cpu.deferred);
	seq_printf(m, "%srefiled: %llu\n", p, s->cpu.refiled);
	seq_printf(m, "%sadvance_stopped: %llu\n", p, s->wheel.stopped);
	seq_printf(m, "%scollect_stopped: %llu\n", p, s->cpu.collect_stopped);
	seq_printf(m, "%scollect_max_ns: %llu\n", p, s->cpu.collect_max_ns);
	seq_printf(m, "%sfull_catch_ups: %llu\n", p, s->cpu.full_catch_ups);
	seq_printf(m, "%smoved_offline: %llu\n", p, s->cpu.moved);
	seq_printf(m, "%sparked: %llu\n", p, s->cpu.parked);
	seq_printf(m, "%sremote_stays_lock_busy: %llu\n", p, s->cpu.stayed_busy);
	seq_printf(m, "%sremote_stays_func_running: %llu\n", p,
		   s->cpu.stayed_running);
	seq_printf(m, "%skicks: %llu\n", p, s->cpu.kicks);
	seq_printf(m, "%sticks_off_cpu: %llu\n", p, s->cpu.ticks_off_cpu);
	seq_printf(m, "%sslowest_callback_ns: %llu\n", p, s->cpu.slowest_ns);
	seq_printf(m, "%slateness_max_ns: %llu\n", p, s->cpu.max_late_ns);
	seq_printf(m, "%slateness_us_lt_1: %llu\n", p, s->cpu.late[0]);
	for (i = 1; i < CALLOUT_LATE_BUCKETS - 1; i++)
		seq_printf(m, "%slateness_us_lt_%u: %llu\n", p, 1U << i,
			   s->cpu.late[i]);
	seq_printf(m, "%slateness_us_ge_%u: %llu\n", p,
		   1U << (CALLOUT_LATE_BUCKETS - 2),
		   s->cpu.late[CALLOUT_LATE_BUCKETS - 1]);
}

static int stats_show(struct seq_file *m, void *v)
{
	struct callout_snapshot t = {}, s;
	unsigned int cpu;
	u64 entries, chain;
	char prefix[16];

	for_each_possible_cpu(cpu) {
		snapshot_cpu(cpu, &s);
		snapshot_add(&t, &s);
	}
	callout_hash_stats(&entries, &chain);
	seq_printf(m, "scheme: %s\n", callout_ops->name);
	seq_printf(m, "tick_ns: %lu\n", callout_tick_ns_param);
	seq_printf(m, "cpus: %u\n", num_possible_cpus());
	seq_printf(m, "user_callouts: %lld\n",
		   percpu_counter_sum(&callout_user_total));
	/* Each untimeout, the kernel's or a file's, is one lookup. */
	seq_printf(m, "hash_lookups: %llu\n", t.ops.untimeout);
	seq_printf(m, "hash_entries: %llu\n", entries);
	seq_printf(m, "hash_longest_chain: %llu\n", chain);
	show_snapshot(m, "", &t);
	for_each_possible_cpu(cpu) {
		snapshot_cpu(cpu, &s);
		snprintf(prefix, sizeof(prefix), "cpu%u_", cpu);
		show_snapshot(m, prefix, &s);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/* "cpuN slot S: entries" for every busy slot of a wheel scheme. */
static int wheel_show(struct seq_file *m, void *v)
{
	unsigned int cpu;
	u32 slot, nr;
	u64 len, busy;

	if (!callout_ops->nr_slots) {
		seq_printf(m, "scheme %s has no slots\n", callout_ops->name);
		return 0;
	}
	for_each_possible_cpu(cpu) {
		struct callout_base *base = per_cpu_ptr(callout_bases, cpu);

		spin_lock_irq(&base->lock);
		nr = callout_ops->nr_slots(&base->wheel);
		busy = 0;
		for (slot = 0; slot < nr; slot++) {
			len = callout_ops->slot_len(&base->wheel, slot);
			if (!len)
				continue;
			busy++;
			seq_printf(m, "cpu%u slot %u: %llu\n", cpu, slot, len);
		}
		seq_printf(m, "cpu%u busy_slots: %llu of %u, now: %llu\n", cpu,
			   busy, nr, base->wheel.now);
		spin_unlock_irq(&base->lock);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wheel);

static const char *const alloc_site_names[CALLOUT_ALLOC_NR] = {
	[CALLOUT_ALLOC_FILE]		= "file",
	[CALLOUT_ALLOC_HANDLES]		= "handle_table",
	[CALLOUT_ALLOC_DUE_PAGE]	= "due_page",
	[CALLOUT_ALLOC_DUE_INDEX]	= "due_index",
	[CALLOUT_ALLOC_CALLOUT]		= "callout",
	[CALLOUT_ALLOC_TIMEOUT]		= "timeout",
};

/* "site: failures" for every allocation site of callout_alloc_site. */
static int alloc_failures_show(struct seq_file *m, void *v)
{
	unsigned int i;

	for (i = 0; i < CALLOUT_ALLOC_NR; i++)
		seq_printf(m, "%s: %ld\n", alloc_site_names[i],
			   atomic_long_read(&callout_alloc_failures[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(alloc_failures);

void callout_debugfs_init(void)
{
	callout_debugfs = debugfs_create_dir("callout", NULL);
	debugfs_create_file("stats", 0400, callout_debugfs, NULL, &stats_fops);
	debugfs_create_file("wheel", 0400, callout_debugfs, NULL, &wheel_fops);
	debugfs_create_file("alloc_failures", 0400, callout_debugfs, NULL,
			    &alloc_failures_fops);
}

void callout_debugfs_exit(void)
{
	debugfs_remove_recursive(callout_debugfs);
}
