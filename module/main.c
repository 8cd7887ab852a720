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
#include <uapi/linux/callout.h>

#include "core.h"
#include "dev.h"
#include "stats.h"
#include "timeout.h"

char *callout_scheme = "hashed";
module_param_named(scheme, callout_scheme, charp, 0444);
MODULE_PARM_DESC(scheme, "timer scheme: list, ordered, tree, simple, hashed_sorted, hashed (default), hierarchical, bsd, lawn");

unsigned long callout_tick_ns_param = 1000000;
module_param_named(tick_ns, callout_tick_ns_param, ulong, 0444);
MODULE_PARM_DESC(tick_ns, "length of one tick in ns, 1000..1000000000 (default 1000000)");

/*
 * The geometry of the wheels. Each scheme gives the range and the default
 * of the fields it uses (tw_ops.geometry): a parameter left at 0 takes the
 * default, and after load each shows the value in use.
 */
static unsigned int callout_wheel_bits;
module_param_named(wheel_bits, callout_wheel_bits, uint, 0444);
MODULE_PARM_DESC(wheel_bits, "log2 slots of simple, hashed_sorted and hashed (0: their default)");

static unsigned int callout_levels;
module_param_named(levels, callout_levels, uint, 0444);
MODULE_PARM_DESC(levels, "levels of hierarchical (0: its default)");

static unsigned int callout_level_bits;
module_param_named(level_bits, callout_level_bits, uint, 0444);
MODULE_PARM_DESC(level_bits, "log2 slots per level of hierarchical (0: its default)");

static unsigned int callout_lawn_ttls;
module_param_named(lawn_ttls, callout_lawn_ttls, uint, 0444);
MODULE_PARM_DESC(lawn_ttls, "most distinct timeouts (queues) of lawn per CPU (0: its default)");

unsigned long callout_max_per_file = 1UL << 21;
module_param_named(max_per_file, callout_max_per_file, ulong, 0444);
MODULE_PARM_DESC(max_per_file, "most callouts one open /dev/callout may hold (default 2097152)");

unsigned long callout_max_total = 1UL << 22;
module_param_named(max_total, callout_max_total, ulong, 0444);
MODULE_PARM_DESC(max_total, "most callouts all of /dev/callout may hold (default 4194304)");

/* The geometry of every wheel: the parameters above, checked. */
struct tw_geometry callout_geo;

#define BAD_PARAM(name, fmt, ...) ({					\
	pr_err("bad parameter %s: " fmt "\n", name, ##__VA_ARGS__);	\
	-EINVAL;							\
})

/* Refuse a geometry that @ops cannot take, naming the parameter. */
static int check_geometry(const struct tw_ops *ops)
{
	struct tw_geometry_error err;

	if (tw_geometry_check(ops, &callout_geo, &err))
		return BAD_PARAM(err.field, "%s", err.why);
	return 0;
}

static int check_params(void)
{
	int id, ret;

	/* CALLOUT_IOC_INFO reports the scheme's id as its CALLOUT_SCHEME_*. */
	BUILD_BUG_ON(CALLOUT_SCHEME_LIST != TW_LIST);
	BUILD_BUG_ON(CALLOUT_SCHEME_ORDERED != TW_ORDERED);
	BUILD_BUG_ON(CALLOUT_SCHEME_TREE != TW_TREE);
	BUILD_BUG_ON(CALLOUT_SCHEME_SIMPLE != TW_SIMPLE);
	BUILD_BUG_ON(CALLOUT_SCHEME_HASHED_SORTED != TW_HASHED_SORTED);
	BUILD_BUG_ON(CALLOUT_SCHEME_HASHED != TW_HASHED);
	BUILD_BUG_ON(CALLOUT_SCHEME_HIERARCHICAL != TW_HIERARCHICAL);
	BUILD_BUG_ON(CALLOUT_SCHEME_BSD != TW_BSD);
	BUILD_BUG_ON(CALLOUT_SCHEME_LAWN != TW_LAWN);
	BUILD_BUG_ON(TW_NR_SCHEMES - 1 != CALLOUT_SCHEME_LAWN);

	callout_ops = tw_ops_by_name(callout_scheme);
	if (!callout_ops)
		return BAD_PARAM("scheme", "there is no scheme \"%s\"",
				 callout_scheme);
	if (callout_tick_ns_param < 1000 || callout_tick_ns_param > NSEC_PER_SEC)
		return BAD_PARAM("tick_ns", "must be 1000..1000000000, not %lu",
				 callout_tick_ns_param);
	if (!callout_max_per_file)
		return BAD_PARAM("max_per_file", "must be at least 1");
	if (!callout_max_total)
		return BAD_PARAM("max_total", "must be at least 1");

	callout_geo = (struct tw_geometry) {
		.wheel_bits = callout_wheel_bits,
		.levels = callout_levels,
		.level_bits = callout_level_bits,
		.lawn_ttls = callout_lawn_ttls,
	};
	tw_geometry_defaults(&callout_geo);
	/*
	 * Each parameter against every scheme that uses it, the loaded one
	 * first: the benchmark runs every scheme in this geometry.
	 */
	ret = check_geometry(callout_ops);
	for (id = 1; !ret && id < TW_NR_SCHEMES; id++)
		ret = check_geometry(tw_ops_by_id(id));
	if (ret)
		return ret;
	callout_wheel_bits = callout_geo.wheel_bits;
	callout_levels = callout_geo.levels;
	callout_level_bits = callout_geo.level_bits;
	callout_lawn_ttls = callout_geo.lawn_ttls;
	return 0;
}

/*
 * Take down the core and the old interface: the ticks first, so that no
 * expiry runs while the timeouts kernel callers left are cancelled and the
 * func/arg hash goes, then the bases.
 */
static void callout_core_down(void)
{
	callout_core_stop();
	callout_timeout_exit();
	callout_core_exit();
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
	ret = callout_timeout_init();
	if (ret) {
		callout_core_stop();
		callout_core_exit();
		return ret;
	}
	ret = callout_dev_init();
	if (ret) {
		callout_core_down();
		return ret;
	}
	callout_debugfs_init();
	pr_info("loaded: scheme %s (wheel_bits %u, levels %u x %u bits, lawn_ttls %u), tick %lu ns, %u CPUs\n",
		callout_ops->name, callout_geo.wheel_bits, callout_geo.levels,
		callout_geo.level_bits, callout_geo.lawn_ttls, callout_tick_ns_param,
		num_possible_cpus());
	return 0;
}

static void __exit callout_module_exit(void)
{
	struct callout_cpu_stats total;

	callout_debugfs_exit();
	callout_dev_exit();
	callout_stats_sum(&total);
	callout_core_down();
	pr_info("unloaded: %llu set, %llu cancelled, %llu expired, %llu tick runs\n",
		total.set, total.unset, total.expired, total.ticks_run);
}

module_init(callout_module_init);
module_exit(callout_module_exit);

MODULE_DESCRIPTION("Callout facility on hashed and hierarchical timing wheels");
MODULE_AUTHOR("The callout developers");
MODULE_LICENSE("GPL");
