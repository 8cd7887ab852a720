// SPDX-License-Identifier: GPL-2.0
/*
 * callout - a Costello & Varghese callout facility on timing wheels.
 *
 * main.c: the module parameters, load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "internal.h"

char *callout_scheme = "hashed";
module_param_named(scheme, callout_scheme, charp, 0444);
MODULE_PARM_DESC(scheme, "timer scheme: list, ordered, tree, simple, hashed_sorted, hashed (default), hierarchical, bsd, lawn");

unsigned long callout_tick_ns_param = 1000000;
module_param_named(tick_ns, callout_tick_ns_param, ulong, 0444);
MODULE_PARM_DESC(tick_ns, "length of one tick in ns, 1000..1000000000 (default 1000000)");

unsigned int callout_wheel_bits = 12;
module_param_named(wheel_bits, callout_wheel_bits, uint, 0444);
MODULE_PARM_DESC(wheel_bits, "log2 slots of simple, hashed_sorted and hashed, 1..24 (default 12)");

unsigned int callout_levels = 6;
module_param_named(levels, callout_levels, uint, 0444);
MODULE_PARM_DESC(levels, "levels of hierarchical (default 6)");

unsigned int callout_level_bits = 11;
module_param_named(level_bits, callout_level_bits, uint, 0444);
MODULE_PARM_DESC(level_bits, "log2 slots per level of hierarchical (default 11)");

unsigned int callout_lawn_ttls = 4096;
module_param_named(lawn_ttls, callout_lawn_ttls, uint, 0444);
MODULE_PARM_DESC(lawn_ttls, "most distinct timeouts (queues) of lawn per CPU (default 4096)");

unsigned long callout_max_per_file = 1UL << 21;
module_param_named(max_per_file, callout_max_per_file, ulong, 0444);
MODULE_PARM_DESC(max_per_file, "most callouts one open /dev/callout may hold (default 2097152)");

unsigned long callout_max_total = 1UL << 22;
module_param_named(max_total, callout_max_total, ulong, 0444);
MODULE_PARM_DESC(max_total, "most callouts all of /dev/callout may hold (default 4194304)");

#define BAD_PARAM(name, why) ({ pr_err("bad parameter %s: %s\n", name, why); -EINVAL; })

static int check_params(void)
{
	callout_ops = tw_ops_by_name(callout_scheme);
	if (!callout_ops)
		return BAD_PARAM("scheme", "unknown scheme name");
	if (callout_tick_ns_param < 1000 || callout_tick_ns_param > NSEC_PER_SEC)
		return BAD_PARAM("tick_ns", "must be 1000..1000000000");
	if (callout_wheel_bits < 1 || callout_wheel_bits > 24)
		return BAD_PARAM("wheel_bits", "must be 1..24");
	if (callout_levels < 1 || callout_levels > 16)
		return BAD_PARAM("levels", "must be 1..16");
	if (callout_level_bits < 1 || callout_level_bits > 24)
		return BAD_PARAM("level_bits", "must be 1..24");
	if (callout_lawn_ttls < 1 || callout_lawn_ttls > (1U << 24))
		return BAD_PARAM("lawn_ttls", "must be 1..16777216");
	if (!callout_max_per_file || !callout_max_total)
		return BAD_PARAM("max_per_file/max_total", "must be at least 1");
	return 0;
}

static int __init callout_module_init(void)
{
	int ret;

	ret = check_params();
	if (ret)
		return ret;
	ret = callout_core_init();
	if (ret)
		return ret;
	ret = callout_dev_init();
	if (ret) {
		callout_core_exit();
		return ret;
	}
	callout_debugfs_init();
	pr_info("loaded: scheme %s (wheel_bits %u, levels %u x %u bits, lawn_ttls %u), tick %lu ns, %u CPUs\n",
		callout_ops->name, callout_wheel_bits, callout_levels,
		callout_level_bits, callout_lawn_ttls, callout_tick_ns_param,
		num_possible_cpus());
	return 0;
}

static void __exit callout_module_exit(void)
{
	struct callout_cpu_stats total;

	callout_debugfs_exit();
	callout_dev_exit();
	callout_stats_sum(&total);
	callout_core_exit();
	pr_info("unloaded: %llu set, %llu cancelled, %llu expired, %llu tick runs\n",
		total.set, total.unset, total.expired, total.ticks_run);
}

module_init(callout_module_init);
module_exit(callout_module_exit);

MODULE_DESCRIPTION("Callout facility on hashed and hierarchical timing wheels");
MODULE_AUTHOR("The callout developers");
MODULE_LICENSE("GPL");
