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

/*
 * CALLOUT_IOC_SUBMIT: an array of operations in one call. Each is carried
 * out as its single ioctl would be, in array order, and gets its own
 * result; an operation that fails does not stop the ones after it. The
 * times of SET and RESET count from one clock read at the start of the
 * call. Fields an operation does not read, and flags, must be 0 (its
 * result is then -EINVAL and it is not carried out).
 */
#define CALLOUT_OP_SET		1	/* timeout, period_ns, cookie; out: handle */
#define CALLOUT_OP_UNSET	2	/* handle */
#define CALLOUT_OP_RESET	3	/* handle, timeout, period_ns */
#define CALLOUT_OP_TIMEOUT	4	/* func, arg, timeout (in ticks) */
#define CALLOUT_OP_UNTIMEOUT	5	/* func, arg */

struct callout_op {
	__u16 op;		/* in: CALLOUT_OP_* */
	__u16 flags;		/* in: 0 */
	__s32 result;		/* out: 0 or -errno, as the single ioctl's */
	__u64 handle;		/* SET: out, 0 unless result is 0; UNSET, RESET: in */
	__u64 timeout;		/* SET, RESET: timeout_ns; TIMEOUT: ticks */
	__u64 period_ns;	/* SET, RESET */
	__u64 cookie;		/* SET: cookie; TIMEOUT, UNTIMEOUT: func */
	__u64 arg;		/* TIMEOUT, UNTIMEOUT */
};

/* The most operations one CALLOUT_IOC_SUBMIT takes */
#define CALLOUT_SUBMIT_MAX	1024

struct callout_submit {
	__u64 ops;		/* in: user pointer to struct callout_op[nr] */
	__u32 nr;		/* in: 0 .. CALLOUT_SUBMIT_MAX */
	__u32 flags;		/* in: 0 */
	__u32 done;		/* out: operations carried out, ops[0 .. done - 1] */
	__u32 reserved;		/* in: 0 */
};

/* 0xC1: free in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define CALLOUT_IOC_MAGIC	0xC1

#define CALLOUT_IOC_INFO	_IOR(CALLOUT_IOC_MAGIC, 0x00, struct callout_info)
#define CALLOUT_IOC_SET		_IOWR(CALLOUT_IOC_MAGIC, 0x01, struct callout_set)
#define CALLOUT_IOC_UNSET	_IOW(CALLOUT_IOC_MAGIC, 0x02, __u64)
#define CALLOUT_IOC_RESET	_IOW(CALLOUT_IOC_MAGIC, 0x03, struct callout_reset)
#define CALLOUT_IOC_TIMEOUT	_IOW(CALLOUT_IOC_MAGIC, 0x04, struct callout_timeout)
#define CALLOUT_IOC_UNTIMEOUT	_IOW(CALLOUT_IOC_MAGIC, 0x05, struct callout_untimeout)
#define CALLOUT_IOC_SUBMIT	_IOWR(CALLOUT_IOC_MAGIC, 0x06, struct callout_submit)

#endif /* _UAPI_LINUX_CALLOUT_H */
