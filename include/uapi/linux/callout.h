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

#include <linux/const.h>
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

/*
 * The due-time table: mmap(2) of a /dev/callout file, MAP_SHARED (the
 * mapping is refused otherwise), at any page offset, gives one __u64 entry
 * per handle slot: the entry of handle h is the (__u32)h-th __u64 from
 * offset 0, CALLOUT_DUE_INDEX(h). The kernel writes it at SET and RESET:
 * CALLOUT_DUE(h, tick), tick being the callout's due tick (its due time in
 * ticks of callout_info.tick_ns, rounded up). The program may store there,
 * with one 64-bit store, CALLOUT_DUE(h, t) for a later tick t (a deferral)
 * or CALLOUT_DUE(h, 0) | CALLOUT_DUE_CANCEL (a lazy cancel); the kernel
 * reads the entry when the callout comes due and re-files it at t, or ends
 * it without an event, instead of firing. An entry whose generation is not
 * h's (a store meant for an earlier handle of the slot) is ignored.
 * Documentation/callout.rst gives the whole promise.
 *
 *   bits 63..40  generation: the handle's high half (below 1 << 24)
 *   bit  39      CALLOUT_DUE_CANCEL
 *   bits 38..0   tick, modulo 1 << 39: taken as the tick at most
 *                (1 << 38) - 1 ticks after the due tick it is read at
 */
#define CALLOUT_DUE_GEN_SHIFT	40
#define CALLOUT_DUE_CANCEL	_BITULL(39)
#define CALLOUT_DUE_TICK_BITS	39
#define CALLOUT_DUE_TICK_MASK	(CALLOUT_DUE_CANCEL - 1)
#define CALLOUT_DUE_INDEX(handle)	((__u32)(handle))
#define CALLOUT_DUE(handle, tick)					\
	((((__u64)(handle) >> 32) << CALLOUT_DUE_GEN_SHIFT) |		\
	 ((__u64)(tick) & CALLOUT_DUE_TICK_MASK))

/*
 * The clock page: mmap(2) of one page at offset CALLOUT_MMAP_CLOCK of a
 * /dev/callout file, PROT_READ and MAP_SHARED only, gives a struct
 * callout_clock, the same page for every file. The kernel updates it with
 * its timekeeping (each tick of 1/HZ while a CPU is busy, and before a CPU
 * that leaves idle runs anything, as it does CLOCK_MONOTONIC_COARSE).
 * earliest_tick is the first tick (of tick_ns) that begins after every
 * moment until the next update is due: a deadline of earliest_tick + n is
 * at least n ticks after the load while the kernel's tick runs on time
 * (when the tick is late, as much earlier as it is late); it is at most a
 * jiffy and two ticks ahead. Documentation/callout.rst gives the whole
 * promise.
 */
#define CALLOUT_MMAP_CLOCK	_BITULL(35)	/* past the table's 2^32 entries */

struct callout_clock {
	__u64 earliest_tick;	/* a load of it is the program's "now" */
	__u64 tick_ns;		/* callout_info.tick_ns */
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
