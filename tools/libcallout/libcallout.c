// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libcallout.c - setcallout/unsetcallout and timeout/untimeout over the
 * ioctls of /dev/callout (include/uapi/linux/callout.h).
 *
 * The kernel returns a timeout's func and arg in its event (as cookie and
 * arg), so dispatching one is a cast and a call. What the kernel cannot do
 * is cancel a timeout whose event is already queued on the file: its
 * UNTIMEOUT says -ENOENT, and a plain reader would still run func(arg). So
 * the library counts, per (func, arg), the timeouts it armed and has not
 * dispatched yet ("armed") and the events it must drop ("dropped"):
 *
 *	timeout() ok                 armed++
 *	untimeout(): kernel cancels  armed--
 *	untimeout(): -ENOENT, armed  armed--, dropped++  (its event is queued)
 *	dispatch of an event         dropped ? dropped-- : (armed--, func(arg))
 *
 * All of it under one mutex, and each event's decision is taken under that
 * mutex after the event was read, so an untimeout() racing with another
 * thread's dispatch either cancels the event or lets it run, never both.
 * The counts live in a tsearch(3) tree keyed by (func, arg); a node goes
 * when both counts are 0.
 *
 * callout_submit() holds the mutex over each CALLOUT_IOC_SUBMIT and counts
 * the TIMEOUT and UNTIMEOUT operations the kernel carried out (done) from
 * their results, in array order, with the same rules: a batch is a row of
 * timeout() and untimeout() calls that no dispatch can come between. The
 * nodes its TIMEOUTs need are made before the call, so that a failed
 * allocation again arms nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libcallout.h"

#define CALLOUT_DEV	"/dev/callout"
#define BATCH		64	/* events per read(2) */
#define MAX_BATCHES	16	/* reads per callout_dispatch() */

struct to_count {
	__u64 func;
	__u64 arg;
	unsigned long armed;	/* armed in the kernel, not dispatched */
	unsigned long dropped;	/* untimeout() after expiry: drop the event */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int dev_fd = -1;		/* locked by lock */
static void *counts;		/* tsearch root of struct to_count, locked */

/*
 * The due-time table, mapped by the first deferral: the whole range of
 * slot indices, 2^32 entries (32 GiB of address space, no memory: the
 * kernel backs only the pages of slots the file has used), so it never has
 * to move and a deferral is a load of this pointer and a store. Written
 * locked, read without the lock; a pointer store is atomic.
 */
#define TABLE_LEN	((size_t)sizeof(__u64) << (sizeof(void *) == 8 ? 32 : 24))
static __u64 *table;
/*
 * Set before table: the kernel's clock page (a load of its earliest_tick
 * is "now" for a deadline), the tick, and ceil(2^64 / tick) with the
 * delays below which a multiply by it divides exactly.
 */
static const struct callout_clock *clock_page;
static __u64 table_tick_ns, tick_recip, tick_recip_max;

static int fail(int err)
{
	errno = err;
	return -err;
}

static int to_cmp(const void *a, const void *b)
{
	const struct to_count *x = a, *y = b;

	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	if (x->arg != y->arg)
		return x->arg < y->arg ? -1 : 1;
	return 0;
}

/* The node of (func, arg), or NULL; @create makes it. Called locked. */
static struct to_count *to_find(__u64 func, __u64 arg, int create)
{
	struct to_count key = { .func = func, .arg = arg }, *c, **p;

	p = tfind(&key, &counts, to_cmp);
	if (p || !create)
		return p ? *p : NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	*c = key;
	p = tsearch(c, &counts, to_cmp);
	if (!p) {
		free(c);
		return NULL;
	}
	return *p;
}

/* Free @c once it counts nothing. Called locked. */
static void to_put(struct to_count *c)
{
	if (c->armed || c->dropped)
		return;
	tdelete(c, &counts, to_cmp);
	free(c);
}

/* The fd, opened if need be. Called locked. */
static int __open(void)
{
	if (dev_fd < 0) {
		dev_fd = open(CALLOUT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (dev_fd < 0)
			return -errno;
	}
	return dev_fd;
}

int callout_open(void)
{
	int fd;

	pthread_mutex_lock(&lock);
	fd = __open();
	pthread_mutex_unlock(&lock);
	return fd < 0 ? fail(-fd) : fd;
}

int callout_fd(void)
{
	return callout_open();
}

void callout_close(void)
{
	pthread_mutex_lock(&lock);
	if (table)
		munmap(table, TABLE_LEN);
	__atomic_store_n(&table, NULL, __ATOMIC_RELEASE);
	if (dev_fd >= 0)
		close(dev_fd);
	dev_fd = -1;
	tdestroy(counts, free);
	counts = NULL;
	pthread_mutex_unlock(&lock);
}

/* ioctl(CMD, ARG) on the file, opening it if need be: 0 or -errno. */
static int dev_ioctl(unsigned long cmd, void *arg)
{
	int fd = callout_open();

	if (fd < 0)
		return fd;
	return ioctl(fd, cmd, arg) ? fail(errno) : 0;
}

int callout_getinfo(struct callout_info *info)
{
	return dev_ioctl(CALLOUT_IOC_INFO, info);
}

int setcallout(__u64 timeout_ns, __u64 period_ns, __u64 cookie,
	       __u64 *handle)
{
	struct callout_set req = {
		.timeout_ns = timeout_ns,
		.period_ns = period_ns,
		.cookie = cookie,
	};
	int ret = dev_ioctl(CALLOUT_IOC_SET, &req);

	if (!ret && handle)
		*handle = req.handle;
	return ret;
}

int resetcallout(__u64 handle, __u64 timeout_ns, __u64 period_ns)
{
	struct callout_reset req = {
		.handle = handle,
		.timeout_ns = timeout_ns,
		.period_ns = period_ns,
	};

	return dev_ioctl(CALLOUT_IOC_RESET, &req);
}

int unsetcallout(__u64 handle)
{
	return dev_ioctl(CALLOUT_IOC_UNSET, &handle);
}

int timeout(callout_func_t func, void *arg, __u64 ticks)
{
	struct callout_timeout req = {
		.func = (uintptr_t)func,
		.arg = (uintptr_t)arg,
		.ticks = ticks,
	};
	struct to_count *c;
	int fd, ret = 0;

	if (!func)
		return fail(EINVAL);
	pthread_mutex_lock(&lock);
	fd = __open();
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	/* Counted first, so that a failed allocation arms nothing. */
	c = to_find(req.func, req.arg, 1);
	if (!c) {
		ret = -ENOMEM;
		goto out;
	}
	c->armed++;
	if (ioctl(fd, CALLOUT_IOC_TIMEOUT, &req)) {
		ret = -errno;
		c->armed--;
		to_put(c);
	}
out:
	pthread_mutex_unlock(&lock);
	return ret ? fail(-ret) : 0;
}

int untimeout(callout_func_t func, void *arg)
{
	struct callout_untimeout req = {
		.func = (uintptr_t)func,
		.arg = (uintptr_t)arg,
	};
	struct to_count *c;
	int fd, ret = 0;

	pthread_mutex_lock(&lock);
	fd = __open();
	c = fd < 0 ? NULL : to_find(req.func, req.arg, 0);
	if (!c || !c->armed) {
		/* None armed through this library: nothing to cancel. */
		ret = fd < 0 ? fd : -ENOENT;
		goto out;
	}
	c->armed--;
	if (ioctl(fd, CALLOUT_IOC_UNTIMEOUT, &req)) {
		if (errno != ENOENT) {
			ret = -errno;
			c->armed++;
			goto out;
		}
		/* It fired: its event is in the file, not dispatched yet. */
		c->dropped++;
	}
	to_put(c);
out:
	pthread_mutex_unlock(&lock);
	return ret ? fail(-ret) : 0;
}

/*
 * One CALLOUT_IOC_SUBMIT of @ops[0 .. @nr - 1] or fewer, @nr at most
 * CALLOUT_SUBMIT_MAX, on @fd; *@done gets how many were carried out, at
 * least one when it returns 0. A TIMEOUT of a NULL func, which dispatch
 * could not call, is refused here as timeout() refuses it: it ends the
 * kernel call before it, and alone gets -EINVAL, carried out by no kernel.
 * Return: 0 or -errno, as the ioctl. Called locked.
 */
static int submit_locked(int fd, struct callout_op *ops, unsigned int nr,
			 unsigned int *done)
{
	struct callout_submit req = { .ops = (uintptr_t)ops };
	struct callout_op *op;
	struct to_count *c;
	unsigned int i;
	int ret = 0;

	/*
	 * Counted first, as in timeout(): a node for each TIMEOUT's pair, so
	 * that a failed allocation arms nothing.
	 */
	for (i = 0; i < nr && !ret; i++) {
		op = &ops[i];
		if (op->op != CALLOUT_OP_TIMEOUT)
			continue;
		if (!op->cookie)
			break;
		if (!to_find(op->cookie, op->arg, 1))
			ret = -ENOMEM;
	}
	nr = i;
	*done = 0;
	if (!nr) {
		/* ops[0] is a TIMEOUT of a NULL func. */
		ops[0].result = -EINVAL;
		*done = 1;
		return 0;
	}
	if (!ret) {
		req.nr = nr;
		if (ioctl(fd, CALLOUT_IOC_SUBMIT, &req))
			ret = -errno;
		/* The kernel says 0 only when it carried out all of them. */
		*done = ret ? (req.done < nr ? req.done : nr) : nr;
	}
	/* The counts, from the results of what was carried out, in order. */
	for (i = 0; i < *done; i++) {
		op = &ops[i];
		c = NULL;
		if (op->op == CALLOUT_OP_TIMEOUT ||
		    op->op == CALLOUT_OP_UNTIMEOUT)
			c = to_find(op->cookie, op->arg, 0);
		if (!c)
			continue;
		if (op->op == CALLOUT_OP_TIMEOUT) {
			if (!op->result)
				c->armed++;
		} else if (!c->armed) {
			/* None armed through this library: nothing to count. */
		} else if (!op->result) {
			c->armed--;
		} else if (op->result == -ENOENT) {
			/* It fired: drop its event, as untimeout() does. */
			c->armed--;
			c->dropped++;
			op->result = 0;
		}
	}
	/* Give back the nodes that count nothing. */
	for (i = 0; i < nr; i++) {
		op = &ops[i];
		if (op->op != CALLOUT_OP_TIMEOUT &&
		    op->op != CALLOUT_OP_UNTIMEOUT)
			continue;
		c = to_find(op->cookie, op->arg, 0);
		if (c)
			to_put(c);
	}
	return ret;
}

int callout_submit(struct callout_op *ops, unsigned int nr,
		   unsigned int *done)
{
	unsigned int n = 0, k, chunk_done;
	int fd, ret;

	do {
		k = nr - n < CALLOUT_SUBMIT_MAX ? nr - n : CALLOUT_SUBMIT_MAX;
		chunk_done = 0;
		pthread_mutex_lock(&lock);
		fd = __open();
		ret = fd < 0 ? fd : 0;
		if (fd >= 0 && k)
			ret = submit_locked(fd, ops + n, k, &chunk_done);
		pthread_mutex_unlock(&lock);
		n += chunk_done;
	} while (!ret && n < nr);
	if (done)
		*done = n;
	return ret ? fail(-ret) : 0;
}

/* Whether the timeout event of (func, arg) is to run; counts it. */
static int timeout_runs(__u64 func, __u64 arg)
{
	struct to_count *c;
	int run = 1;

	pthread_mutex_lock(&lock);
	c = to_find(func, arg, 0);
	if (c) {
		if (c->dropped) {
			c->dropped--;
			run = 0;
		} else if (c->armed) {
			c->armed--;
		}
		to_put(c);
	}
	pthread_mutex_unlock(&lock);
	return run;
}

int callout_dispatch(callout_handler_t handler, void *data)
{
	struct callout_event ev[BATCH];
	int fd, handled = 0, batch, i;
	ssize_t n;

	fd = callout_open();
	if (fd < 0)
		return fd;
	for (batch = 0; batch < MAX_BATCHES; batch++) {
		n = read(fd, ev, sizeof(ev));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || batch)
				break;
			return fail(errno);
		}
		for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++) {
			if (ev[i].flags & CALLOUT_EV_TIMEOUT) {
				callout_func_t func;

				if (!timeout_runs(ev[i].cookie, ev[i].arg))
					continue;
				func = (callout_func_t)(uintptr_t)ev[i].cookie;
				func((void *)(uintptr_t)ev[i].arg);
			} else if (handler) {
				handler(&ev[i], data);
			} else {
				continue;
			}
			handled++;
		}
		if (n < (ssize_t)sizeof(ev))
			break;
	}
	return handled;
}

int callout_wait(int timeout_ms)
{
	struct pollfd pfd = { .events = POLLIN };
	int ret;

	pfd.fd = callout_open();
	if (pfd.fd < 0)
		return pfd.fd;
	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return fail(errno);
	return ret > 0 && (pfd.revents & POLLIN);
}

/* The table and the clock page, mapped if need be: the table, or NULL. */
static __u64 *table_get(void)
{
	__u64 *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	struct callout_info info;
	void *p, *c = MAP_FAILED;
	int fd;

	if (t)
		return t;
	pthread_mutex_lock(&lock);
	t = table;
	fd = t ? dev_fd : __open();
	if (!t && fd >= 0 && !ioctl(fd, CALLOUT_IOC_INFO, &info)) {
		/*
		 * The table first: the clock page then lands below it, not
		 * right above, where a direct-mapped TLB (QEMU's TCG) had it
		 * share an entry with the table's first page, the one a small
		 * program uses (a deferral took 63 ns instead of 27).
		 */
		p = mmap(NULL, TABLE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, 0);
		c = p == MAP_FAILED ? MAP_FAILED :
		    mmap(NULL, sizeof(*clock_page), PROT_READ, MAP_SHARED, fd,
			 CALLOUT_MMAP_CLOCK);
		if (c != MAP_FAILED) {
			clock_page = c;
			table_tick_ns = info.tick_ns;
			tick_recip = ~0ULL / info.tick_ns + 1;
			tick_recip_max = ~0ULL / info.tick_ns - info.tick_ns;
			t = p;
			__atomic_store_n(&table, t, __ATOMIC_RELEASE);
		} else if (p != MAP_FAILED) {
			munmap(p, TABLE_LEN);
		}
	} else if (fd < 0) {
		errno = -fd;
	}
	pthread_mutex_unlock(&lock);
	return t;
}

/*
 * @ns in ticks, rounded up: below tick_recip_max, (ns + tick - 1) times
 * the reciprocal, whose error stays under one (2^64 / tick > ns + tick),
 * is the quotient; a multiply instead of a division.
 */
static __u64 ticks_up(__u64 ns)
{
	if (__builtin_expect(ns < tick_recip_max, 1))
		return (__uint128_t)(ns + table_tick_ns - 1) *
		       tick_recip >> 64;
	return ns / table_tick_ns + (ns % table_tick_ns != 0);
}

/* The first tick at least @delay_ns after now, as the clock page says. */
static __u64 deadline_tick(__u64 delay_ns)
{
	return __atomic_load_n(&clock_page->earliest_tick, __ATOMIC_RELAXED) +
	       ticks_up(delay_ns);
}

static void due_store(__u64 *t, __u64 handle, __u64 tick)
{
	/* One 64-bit store, which the kernel reads whole */
	__atomic_store_n(&t[CALLOUT_DUE_INDEX(handle)],
			 CALLOUT_DUE(handle, tick), __ATOMIC_RELAXED);
}

int callout_defer(__u64 handle, __u64 deadline_ns)
{
	__u64 *t = table_get();

	if (!t)
		return -errno;
	due_store(t, handle, deadline_ns / table_tick_ns +
			     (deadline_ns % table_tick_ns != 0));
	return 0;
}

__u64 callout_deadline(__u64 delay_ns)
{
	if (!table_get())
		return 0;
	return deadline_tick(delay_ns) * table_tick_ns;
}

/*
 * The first call of a process: map, then defer. Never inlined (GCC's
 * noipa), so that callout_defer_by() saves no register.
 */
static __attribute__((noipa)) int defer_by_first(__u64 handle, __u64 delay_ns)
{
	if (!table_get())
		return -errno;
	return callout_defer_by(handle, delay_ns);
}

/*
 * The hot path of a program that pushes its timers back: a load of the
 * table pointer, of the clock page, a multiply and a store, in a straight
 * line (no register to save: the first call's mapping is a tail call).
 */
int callout_defer_by(__u64 handle, __u64 delay_ns)
{
	__u64 *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);

	if (__builtin_expect(!t, 0))
		return defer_by_first(handle, delay_ns);
	due_store(t, handle, deadline_tick(delay_ns));
	return 0;
}

int callout_cancel_lazy(__u64 handle)
{
	__u64 *t = table_get();

	if (!t)
		return -errno;
	__atomic_store_n(&t[CALLOUT_DUE_INDEX(handle)],
			 CALLOUT_DUE(handle, 0) | CALLOUT_DUE_CANCEL,
			 __ATOMIC_RELAXED);
	return 0;
}
