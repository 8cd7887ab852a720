/* SPDX-License-Identifier: GPL-2.0 */
/*
 * callout_tw.h - what callout.ko exports in the CALLOUT_TW namespace, for
 * the benchmark module (bench/callout_bench.c): the entry points of the
 * scheme library (schemes/tw.c, tw_hashed.c and tw_hierarchical.c,
 * declared in tw.h) and two of the facility's own below. Not an API for
 * clients, which import CALLOUT alone: this one follows the scheme library
 * and the module, with nothing promised.
 *
 * Kbuild spells the namespace for the kernel, CALLOUT_TW_NS: a token before
 * 6.13 and a string from 6.13, by the probe compat.h checks CALLOUT_NS with.
 */
#ifndef CALLOUT_TW_EXPORT_H
#define CALLOUT_TW_EXPORT_H

#include <linux/callout.h>

#include "tw.h"

const struct tw_ops *callout_loaded_scheme(struct tw_geometry *geo);
int callout_set_ns(struct callout *c, u64 expires_ns, callout_func_t func,
		   void *arg);

#endif /* CALLOUT_TW_EXPORT_H */
