/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * callout.h - the user-space ABI of /dev/callout
 *
 * setcallout/unsetcallout (Costello & Varghese) as ioctls on a misc device;
 * expiries are read from the file as struct callout_event records.
 * All times are nanoseconds of CLOCK_MONOTONIC.
 */
#ifndef _UAPI_LINUX_CALLOUT_H
#define _UAPI_LINUX_CALLOUT_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* callout_info.scheme: the paper's scheme numbers, and two more */
#define CALLOUT_SCHEME_LIST		1	/* Scheme 1: unordered list */
#define CALLOUT_SCHEME_ORDERED		2	/* Scheme 2: ordered list */
#define CALLOUT_SCHEME_TREE		3	/* Scheme 3: rbtree */
#define CALLOUT_SCHEME_SIMPLE		4	/* Scheme 4: one slot a tick */
#define CALLOUT_SCHEME_HASHED_SORTED	5	/* Scheme 5 */
#define CALLOUT_SCHEME_HASHED		6	/* Scheme 6 (the default) */
#define CALLOUT_SCHEME_HIERARCHICAL	7	/* Scheme 7 */
#define CALLOUT_SCHEME_BSD		8	/* BSD calltodo list */
#define CALLOUT_SCHEME_LAWN		9	/* Timer Lawn */

struct callout_info {
	__u64 tick_ns;		/* length of one tick */
	__u64 max_timeout_ns;	/* longest timeout_ns accepted */
	__u64 max_per_file;	/* most callouts one open file may hold */
	__u32 scheme;		/* CALLOUT_SCHEME_* */
	__u32 nr_cpus;		/* CPUs with a callout base */
};

struct callout_set {
	__u64 timeout_ns;	/* in: > 0, first expiry this far from now */
	__u64 period_ns;	/* in: 0 one-shot, else re-arm every period */
	__u64 cookie;		/* in: returned in each event */
	__u64 handle;		/* out: non-zero, never reused by this file */
};

struct callout_reset {
	__u64 handle;
	__u64 timeout_ns;
	__u64 period_ns;
};

struct callout_timeout {
	__u64 func;		/* opaque, returned as the event's cookie */
	__u64 arg;		/* opaque, returned as the event's arg */
	__u64 ticks;		/* > 0, in ticks of callout_info.tick_ns */
};

struct callout_untimeout {
	__u64 func;
	__u64 arg;
};

#define CALLOUT_EV_TIMEOUT	1	/* from CALLOUT_IOC_TIMEOUT: cookie = func, handle = 0 */
#define CALLOUT_EV_PERIODIC	2	/* from a periodic callout */
#define CALLOUT_EV_LAST		4	/* periodic: could not re-arm, no more come */

struct callout_event {
	__u64 handle;
	__u64 cookie;
	__u64 arg;
	__u64 expires_ns;	/* when it was due */
	__u64 fired_ns;		/* when it fired */
	__u32 overrun;		/* periodic: expirations not read before this one; saturates */
	__u32 flags;		/* CALLOUT_EV_* */
};

/* 0xC1: free in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define CALLOUT_IOC_MAGIC	0xC1

#define CALLOUT_IOC_INFO	_IOR(CALLOUT_IOC_MAGIC, 0x00, struct callout_info)
#define CALLOUT_IOC_SET		_IOWR(CALLOUT_IOC_MAGIC, 0x01, struct callout_set)
#define CALLOUT_IOC_UNSET	_IOW(CALLOUT_IOC_MAGIC, 0x02, __u64)
#define CALLOUT_IOC_RESET	_IOW(CALLOUT_IOC_MAGIC, 0x03, struct callout_reset)
#define CALLOUT_IOC_TIMEOUT	_IOW(CALLOUT_IOC_MAGIC, 0x04, struct callout_timeout)
#define CALLOUT_IOC_UNTIMEOUT	_IOW(CALLOUT_IOC_MAGIC, 0x05, struct callout_untimeout)

#endif /* _UAPI_LINUX_CALLOUT_H */
