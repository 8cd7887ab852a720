// SPDX-License-Identifier: GPL-2.0
/*
 * libcallout_test - tools/libcallout against the real /dev/callout:
 * timeout() runs the right func with the right arg exactly once and never
 * early, untimeout() prevents it (also once its event is queued), the
 * setcallout/resetcallout/unsetcallout calls, and dispatch from epoll.
 */
#include <sys/epoll.h>
#include <time.h>

#include "kselftest_harness.h"
#include "callout_test.h"
#include "libcallout.h"

#define MS	1000000ull
#define MAX_CALLS	256

/* Every func(arg) the library ran, in order. */
static struct call {
	int func;		/* 1 for func_one, 2 for func_two */
	void *arg;
	unsigned long long at_ns;
} calls[MAX_CALLS];
static int ncalls;

static void record(int func, void *arg)
{
	if (ncalls < MAX_CALLS)
		calls[ncalls] = (struct call){ func, arg, now_ns() };
	ncalls++;
}

static void func_one(void *arg)
{
	record(1, arg);
}

static void func_two(void *arg)
{
	record(2, arg);
}

/* How many times func ran with arg. */
static int times_called(int func, void *arg)
{
	int i, n = 0;

	for (i = 0; i < ncalls && i < MAX_CALLS; i++)
		n += calls[i].func == func && calls[i].arg == arg;
	return n;
}

/* The events of setcallout() that dispatch handed over. */
struct seen {
	struct callout_event ev[MAX_CALLS];
	int n;
};

static void on_event(const struct callout_event *ev, void *data)
{
	struct seen *s = data;

	if (s->n < MAX_CALLS)
		s->ev[s->n] = *ev;
	s->n++;
}

/*
 * Wait and dispatch until @want funcs and events in all, or @ms passed;
 * with @want 0, for all of @ms. Returns what dispatch handled.
 */
static int pump(struct seen *s, int want, int ms)
{
	unsigned long long end = now_ns() + ms * MS, now;
	int handled = 0, ret;

	while ((now = now_ns()) < end && (!want || handled < want)) {
		ret = callout_wait((end - now) / MS + 1);
		if (ret < 0)
			return ret;
		ret = callout_dispatch(s ? on_event : NULL, s);
		if (ret < 0)
			return ret;
		handled += ret;
	}
	return handled;
}

FIXTURE(lib) {
	struct callout_info info;
	struct seen seen;
	/*
	 * A time a callout must not reach while a test runs, however slow
	 * the host: an hour, or the longest the scheme takes (16 s for simple
	 * with wheel_bits=14); and as many ticks as fit in it.
	 */
	__u64 never_ns;
	__u64 never_ticks;
};

FIXTURE_SETUP(lib)
{
	int ret;

	ncalls = 0;
	memset(&self->seen, 0, sizeof(self->seen));
	if (access(CALLOUT_DEV, F_OK))
		SKIP(return, CALLOUT_DEV " is missing: callout.ko not loaded");
	ret = callout_open();
	ASSERT_LE(0, ret) TH_LOG("callout_open: %s", strerror(-ret));
	ASSERT_EQ(ret, callout_fd());
	ASSERT_EQ(0, callout_getinfo(&self->info));
	ASSERT_LT(0, self->info.tick_ns);
	self->never_ns = self->info.max_timeout_ns;
	if (self->never_ns > 3600000 * MS)
		self->never_ns = 3600000 * MS;
	self->never_ticks = self->never_ns / self->info.tick_ns;
}

FIXTURE_TEARDOWN(lib)
{
	callout_close();
}

/* ticks for at least @ns */
static __u64 ticks_of(const struct callout_info *info, __u64 ns)
{
	return (ns + info->tick_ns - 1) / info->tick_ns;
}

TEST_F(lib, timeout_runs_func_with_arg_once)
{
	int a, b, c;
	__u64 ta = ticks_of(&self->info, 20 * MS);
	__u64 tb = ticks_of(&self->info, 10 * MS);
	__u64 tc = ticks_of(&self->info, 30 * MS);
	unsigned long long start;
	int i;

	if (setup_skipped(_metadata))
		return;
	start = now_ns();
	ASSERT_EQ(0, timeout(func_one, &a, ta));
	ASSERT_EQ(0, timeout(func_two, &b, tb));
	ASSERT_EQ(0, timeout(func_one, &c, tc));
	ASSERT_EQ(3, pump(NULL, 3, 5000));
	ASSERT_EQ(3, ncalls);
	EXPECT_EQ(1, times_called(1, &a));
	EXPECT_EQ(1, times_called(2, &b));
	EXPECT_EQ(1, times_called(1, &c));
	/* Never early: each ran after its ticks from before the call. */
	for (i = 0; i < ncalls; i++) {
		__u64 t = calls[i].arg == &a ? ta :
			     calls[i].arg == &b ? tb : tc;

		EXPECT_LE(start + t * self->info.tick_ns, calls[i].at_ns)
			TH_LOG("call %d ran early", i);
	}
	/* Exactly once: nothing more comes. */
	EXPECT_EQ(0, pump(NULL, 0, 100));
	EXPECT_EQ(3, ncalls);
	EXPECT_EQ(-ENOENT, untimeout(func_one, &a));
}

TEST_F(lib, duplicates_each_run_once)
{
	int a;
	int i;

	if (setup_skipped(_metadata))
		return;
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, timeout(func_one, &a, 1 + i));
	ASSERT_EQ(3, pump(NULL, 3, 5000));
	EXPECT_EQ(0, pump(NULL, 0, 50));
	EXPECT_EQ(3, times_called(1, &a));
	EXPECT_EQ(0, times_called(2, &a));
}

TEST_F(lib, untimeout_prevents_it)
{
	int a, b;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, timeout(func_one, &a, ticks_of(&self->info, 30 * MS)));
	ASSERT_EQ(0, timeout(func_one, &b, ticks_of(&self->info, 30 * MS)));
	EXPECT_EQ(0, untimeout(func_one, &a));
	/* The wrong func or arg cancels nothing. */
	EXPECT_EQ(-ENOENT, untimeout(func_two, &b));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-ENOENT, untimeout(func_one, &a));
	EXPECT_EQ(1, pump(NULL, 1, 5000));
	EXPECT_EQ(0, pump(NULL, 0, 100));
	EXPECT_EQ(0, times_called(1, &a));
	EXPECT_EQ(1, times_called(1, &b));
}

/*
 * The timeout fired and its event waits in the file: the kernel can no
 * longer cancel it, the library must drop the event.
 */
TEST_F(lib, untimeout_after_expiry_drops_the_event)
{
	int a;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, timeout(func_one, &a, 1));
	ASSERT_EQ(0, timeout(func_one, &a, 1));
	/* Both fired: the fd is readable, nothing is dispatched yet. */
	ASSERT_EQ(1, callout_wait(5000));
	usleep(50000);
	EXPECT_EQ(0, ncalls);
	EXPECT_EQ(0, untimeout(func_one, &a));
	EXPECT_EQ(1, pump(NULL, 0, 100));
	EXPECT_EQ(1, times_called(1, &a));
	EXPECT_EQ(-ENOENT, untimeout(func_one, &a));
}

TEST_F(lib, timeout_errors)
{
	int a;

	if (setup_skipped(_metadata))
		return;
	EXPECT_EQ(-EINVAL, timeout(func_one, &a, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, timeout(NULL, &a, 1));
	EXPECT_EQ(-ERANGE, timeout(func_one, &a,
				   self->info.max_timeout_ns /
				   self->info.tick_ns + 1));
	EXPECT_EQ(-ENOENT, untimeout(func_one, &a));
	EXPECT_EQ(0, pump(NULL, 0, 50));
	EXPECT_EQ(0, ncalls);
}

/* A func may re-arm itself: the library holds no lock while it runs. */
static int rearms;

static void func_rearm(void *arg)
{
	record(3, arg);
	if (--rearms > 0 && timeout(func_rearm, arg, 1))
		record(-1, arg);
}

TEST_F(lib, func_may_call_timeout)
{
	int a;

	if (setup_skipped(_metadata))
		return;
	rearms = 5;
	ASSERT_EQ(0, timeout(func_rearm, &a, 1));
	EXPECT_EQ(5, pump(NULL, 5, 5000));
	EXPECT_EQ(0, pump(NULL, 0, 50));
	EXPECT_EQ(5, times_called(3, &a));
	EXPECT_EQ(0, times_called(-1, &a));
}

TEST_F(lib, setcallout_event)
{
	struct seen *s = &self->seen;
	__u64 h = 0;
	unsigned long long start;

	if (setup_skipped(_metadata))
		return;
	start = now_ns();
	ASSERT_EQ(0, setcallout(20 * MS, 0, 77, &h));
	ASSERT_NE(0, h);
	ASSERT_EQ(1, pump(s, 1, 5000));
	EXPECT_EQ(h, s->ev[0].handle);
	EXPECT_EQ(77, s->ev[0].cookie);
	EXPECT_EQ(0, s->ev[0].flags);
	EXPECT_LE(start + 20 * MS, s->ev[0].expires_ns);
	EXPECT_LE(s->ev[0].expires_ns, s->ev[0].fired_ns);
	EXPECT_EQ(0, ncalls);
	/* Fired and read: no longer pending. */
	EXPECT_EQ(-ENOENT, unsetcallout(h));
	EXPECT_EQ(-ENOENT, resetcallout(h, MS, 0));
	EXPECT_EQ(-EINVAL, setcallout(0, 0, 1, &h));
}

TEST_F(lib, resetcallout_moves_it)
{
	struct seen *s = &self->seen;
	unsigned long long start;
	__u64 h;

	if (setup_skipped(_metadata))
		return;
	start = now_ns();
	ASSERT_EQ(0, setcallout(10000 * MS, 0, 5, &h));
	/* Refused: it stays armed as it was, and can be moved after. */
	EXPECT_EQ(-ERANGE, resetcallout(h, self->info.max_timeout_ns + 1, 0));
	ASSERT_EQ(0, resetcallout(h, 20 * MS, 0));
	ASSERT_EQ(1, pump(s, 1, 5000));
	EXPECT_EQ(h, s->ev[0].handle);
	EXPECT_EQ(5, s->ev[0].cookie);
	/* Due at the new time, not the old. */
	EXPECT_LE(start + 20 * MS, s->ev[0].expires_ns);
	EXPECT_GT(start + 10000 * MS, s->ev[0].expires_ns);
	/* The next generation of h's slot: not given yet. */
	EXPECT_EQ(-EINVAL, resetcallout(h + (1ULL << 32), 0, 0));
	EXPECT_EQ(-ENOENT, resetcallout(h + (1ULL << 32), MS, 0));
}

TEST_F(lib, unsetcallout_cancels)
{
	struct seen *s = &self->seen;
	__u64 h1, h2;
	int tries, ret;

	if (setup_skipped(_metadata))
		return;
	/*
	 * Due 30 ms on: a busy host may hold the test that long, and then h1
	 * fires before the UNSET, which says ENOENT (its event is in the
	 * file, and h2's comes). Both are dispatched, and it tries again;
	 * ten lost races in a row fail.
	 */
	for (tries = 0; ; tries++) {
		ASSERT_GT(10, tries);
		ASSERT_EQ(0, setcallout(30 * MS, 0, 1, &h1));
		ASSERT_EQ(0, setcallout(30 * MS, 0, 2, &h2));
		ret = unsetcallout(h1);
		if (!ret)
			break;
		ASSERT_EQ(-ENOENT, ret);
		ASSERT_EQ(2, pump(s, 2, 5000));
		EXPECT_EQ(h1 + h2, s->ev[0].handle + s->ev[1].handle);
		s->n = 0;
	}
	EXPECT_EQ(-ENOENT, unsetcallout(h1));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(1, pump(s, 1, 5000));
	EXPECT_EQ(0, pump(s, 0, 100));
	ASSERT_EQ(1, s->n);
	EXPECT_EQ(2, s->ev[0].cookie);
	EXPECT_EQ(h2, s->ev[0].handle);
}

/* CLOCK_MONOTONIC_COARSE, and its resolution (a jiffy), in ns */
static unsigned long long coarse_ns(unsigned long long *jiffy)
{
	struct timespec ts;

	clock_getres(CLOCK_MONOTONIC_COARSE, &ts);
	*jiffy = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * callout_defer_by() pushes a callout back with a store, by the kernel's
 * clock page: to no earlier than the delay from the coarse clock read
 * before the call, less a jiffy (the two are updated together, the page
 * a moment after), and callout_deadline() is never later than the delay
 * plus a jiffy and two ticks after the call. A store that came after the
 * callout could be due (a stalled host) is tried again.
 */
TEST_F(lib, defer_by_pushes_it_back)
{
	struct seen *s = &self->seen;
	unsigned long long before, coarse, after, jiffy;
	__u64 h = 0, d;
	int tries;

	if (setup_skipped(_metadata))
		return;
	for (tries = 0; ; tries++) {
		ASSERT_GT(10, tries);
		before = now_ns();
		ASSERT_EQ(0, setcallout(300 * MS, 0, 9, &h));
		coarse = coarse_ns(&jiffy);
		ASSERT_EQ(0, callout_defer_by(h, 500 * MS));
		/* Stored before it could be due: its expiry sees it. */
		if (now_ns() < before + 300 * MS)
			break;
		/* Stalled past its due time: cancel it or take its event. */
		if (unsetcallout(h))
			ASSERT_EQ(1, pump(s, 1, 5000));
		s->n = 0;
	}
	ASSERT_EQ(1, pump(s, 1, 5000));
	EXPECT_EQ(h, s->ev[0].handle);
	EXPECT_LE(coarse + 500 * MS, s->ev[0].expires_ns + jiffy);
	EXPECT_LE(s->ev[0].expires_ns, s->ev[0].fired_ns);
	/* A deferred due time is the start of a tick. */
	EXPECT_EQ(0, s->ev[0].expires_ns % self->info.tick_ns);
	coarse = coarse_ns(&jiffy);
	d = callout_deadline(7 * MS);
	after = now_ns();
	EXPECT_EQ(0, d % self->info.tick_ns);
	EXPECT_LE(coarse + 7 * MS, d + jiffy);
	EXPECT_GE(after + 7 * MS + jiffy + 2 * self->info.tick_ns, d);
}

TEST_F(lib, cancel_lazy_drops_it)
{
	struct seen *s = &self->seen;
	unsigned long long before;
	__u64 h = 0;
	int tries, ret;

	if (setup_skipped(_metadata))
		return;
	for (tries = 0; ; tries++) {
		ASSERT_GT(10, tries);
		before = now_ns();
		ASSERT_EQ(0, setcallout(100 * MS, 0, 10, &h));
		ASSERT_EQ(0, callout_cancel_lazy(h));
		if (now_ns() < before + 100 * MS)
			break;
		/* Stalled past its due time: it may have fired. Again. */
		unsetcallout(h);
		pump(s, 0, 200);
		s->n = 0;
	}
	/* Past its due time, and dispatched: nothing of it comes. */
	EXPECT_EQ(0, pump(s, 0, 300));
	EXPECT_EQ(0, s->n);
	/* Ended at its due time, or, on a stalled host, still pending. */
	ret = unsetcallout(h);
	EXPECT_TRUE(ret == -ENOENT || ret == 0);
	EXPECT_EQ(0, pump(s, 0, 100));
}

TEST_F(lib, periodic_until_unset)
{
	struct seen *s = &self->seen;
	__u64 h;
	int i;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, setcallout(10 * MS, 10 * MS, 9, &h));
	ASSERT_EQ(3, pump(s, 3, 5000));
	ASSERT_EQ(0, unsetcallout(h));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(h, s->ev[i].handle);
		EXPECT_EQ(CALLOUT_EV_PERIODIC, s->ev[i].flags);
	}
	s->n = 0;
	EXPECT_EQ(0, pump(s, 0, 100));
}

/* An event loop: epoll on callout_fd(), dispatch when it is readable. */
TEST_F(lib, dispatch_from_epoll)
{
	enum { N = 40 };
	struct epoll_event ee = { .events = EPOLLIN };
	struct seen *s = &self->seen;
	static int args[N];
	int ep, i, handled = 0, ret;

	if (setup_skipped(_metadata))
		return;
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, callout_fd(), &ee));
	EXPECT_EQ(0, epoll_wait(ep, &ee, 1, 0));
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, timeout(i & 1 ? func_one : func_two, &args[i],
				     ticks_of(&self->info, (5 + i % 7) * MS)));
		ASSERT_EQ(0, setcallout((5 + i % 11) * MS, 0, i, NULL));
	}
	while (handled < 2 * N) {
		ret = epoll_wait(ep, &ee, 1, 5000);
		ASSERT_EQ(1, ret) TH_LOG("%d of %d handled", handled, 2 * N);
		ret = callout_dispatch(on_event, s);
		ASSERT_LE(0, ret);
		handled += ret;
	}
	EXPECT_EQ(2 * N, handled);
	for (i = 0; i < N; i++)
		EXPECT_EQ(1, times_called(i & 1 ? 1 : 2, &args[i]))
			TH_LOG("timeout %d", i);
	EXPECT_EQ(N, s->n);
	/* All read: the fd is quiet, and dispatch finds nothing. */
	EXPECT_EQ(0, epoll_wait(ep, &ee, 1, 50));
	EXPECT_EQ(0, callout_dispatch(on_event, s));
	close(ep);
}

/* Operations of a batch. */
static struct callout_op op_set(__u64 timeout_ns, __u64 period_ns,
				__u64 cookie)
{
	return (struct callout_op){ .op = CALLOUT_OP_SET, .timeout = timeout_ns,
				    .period_ns = period_ns, .cookie = cookie };
}

static struct callout_op op_unset(__u64 handle)
{
	return (struct callout_op){ .op = CALLOUT_OP_UNSET, .handle = handle };
}

static struct callout_op op_reset(__u64 handle, __u64 timeout_ns)
{
	return (struct callout_op){ .op = CALLOUT_OP_RESET, .handle = handle,
				    .timeout = timeout_ns };
}

static struct callout_op op_timeout(callout_func_t func, void *arg,
				    __u64 ticks)
{
	return (struct callout_op){ .op = CALLOUT_OP_TIMEOUT,
				    .cookie = (uintptr_t)func,
				    .arg = (uintptr_t)arg, .timeout = ticks };
}

static struct callout_op op_untimeout(callout_func_t func, void *arg)
{
	return (struct callout_op){ .op = CALLOUT_OP_UNTIMEOUT,
				    .cookie = (uintptr_t)func,
				    .arg = (uintptr_t)arg };
}

/* A result no operation has: each one carried out must get its own. */
#define NO_RESULT	12345

static int submit(struct callout_op *ops, unsigned int nr, unsigned int *done)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		ops[i].result = NO_RESULT;
	*done = ~0u;
	return callout_submit(ops, nr, done);
}

/* How many events of @handle @s holds, and the last in *@ev. */
static int events_of(struct seen *s, __u64 handle,
		     const struct callout_event **ev)
{
	int i, n = 0;

	for (i = 0; i < s->n && i < MAX_CALLS; i++) {
		if (s->ev[i].handle == handle) {
			if (ev)
				*ev = &s->ev[i];
			n++;
		}
	}
	return n;
}

/*
 * Every operation, in two batches, the second on handles of the first:
 * each took effect (the events and calls that come, none that must not,
 * and the single calls after), none early.
 */
TEST_F(lib, submit_every_op)
{
	struct seen *s = &self->seen;
	const struct callout_event *ev = NULL;
	unsigned long long start1, start2, end;
	struct callout_op ops[5];
	unsigned int done;
	__u64 h[4];
	int a, b, c, i;

	if (setup_skipped(_metadata))
		return;
	start1 = now_ns();
	ops[0] = op_set(self->never_ns, 0, 1);
	ops[1] = op_set(self->never_ns, 0, 2);
	ops[2] = op_set(10 * MS, 10 * MS, 3);
	ops[3] = op_timeout(func_one, &a, ticks_of(&self->info, 20 * MS));
	ops[4] = op_timeout(func_two, &b, self->never_ticks);
	ASSERT_EQ(0, submit(ops, 5, &done));
	ASSERT_EQ(5, done);
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, ops[i].result) TH_LOG("op %d", i);
	for (i = 0; i < 3; i++) {
		h[i] = ops[i].handle;
		ASSERT_NE(0, h[i]);
	}
	ASSERT_NE(h[0], h[1]);
	ASSERT_NE(h[1], h[2]);
	ASSERT_NE(h[0], h[2]);

	start2 = now_ns();
	ops[0] = op_reset(h[0], 20 * MS);
	ops[1] = op_unset(h[1]);
	ops[2] = op_untimeout(func_two, &b);
	ops[3] = op_set(30 * MS, 0, 4);
	ops[4] = op_timeout(func_two, &c, 1);
	ASSERT_EQ(0, submit(ops, 5, &done));
	ASSERT_EQ(5, done);
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, ops[i].result) TH_LOG("op %d", i);
	h[3] = ops[3].handle;
	ASSERT_NE(0, h[3]);

	/* h[0] at its new time, h[3], two of h[2], func_one(&a), func_two(&c) */
	end = now_ns() + 5000 * MS;
	while (now_ns() < end &&
	       !(events_of(s, h[0], NULL) && events_of(s, h[3], NULL) &&
		 events_of(s, h[2], NULL) >= 2 && ncalls >= 2))
		ASSERT_LE(0, pump(s, 1, 10));
	/* Periodic, and still pending: the batch armed it so. */
	ASSERT_EQ(0, unsetcallout(h[2]));
	EXPECT_EQ(0, pump(s, 0, 100));
	ASSERT_EQ(1, events_of(s, h[0], &ev));
	EXPECT_EQ(1, ev->cookie);
	EXPECT_LE(start2 + 20 * MS, ev->expires_ns);
	EXPECT_GT(start1 + self->never_ns, ev->expires_ns);
	EXPECT_LE(ev->expires_ns, ev->fired_ns);
	ASSERT_EQ(1, events_of(s, h[3], &ev));
	EXPECT_EQ(4, ev->cookie);
	EXPECT_EQ(0, ev->flags);
	EXPECT_LE(start2 + 30 * MS, ev->expires_ns);
	EXPECT_LE(ev->expires_ns, ev->fired_ns);
	ASSERT_LE(2, events_of(s, h[2], &ev));
	EXPECT_EQ(3, ev->cookie);
	EXPECT_EQ(CALLOUT_EV_PERIODIC, ev->flags);
	EXPECT_LE(start1 + 20 * MS, ev->expires_ns);
	EXPECT_EQ(0, events_of(s, h[1], NULL));
	EXPECT_EQ(s->n, events_of(s, h[0], NULL) + events_of(s, h[2], NULL) +
		  events_of(s, h[3], NULL));
	ASSERT_EQ(2, ncalls);
	EXPECT_EQ(1, times_called(1, &a));
	EXPECT_EQ(1, times_called(2, &c));
	EXPECT_EQ(0, times_called(2, &b));
	for (i = 0; i < ncalls; i++)
		EXPECT_LE((calls[i].arg == &a ? start1 + 20 * MS :
			   start2 + self->info.tick_ns), calls[i].at_ns);
	/* What the batches cancelled, or what ran, is gone. */
	EXPECT_EQ(-ENOENT, unsetcallout(h[1]));
	EXPECT_EQ(-ENOENT, untimeout(func_two, &b));
	EXPECT_EQ(-ENOENT, untimeout(func_one, &a));
	EXPECT_EQ(-ENOENT, untimeout(func_two, &c));
}

/*
 * Operations that fail amid ones that work: each gets its own errno, the
 * batch goes on, and a failed TIMEOUT is counted as nothing armed (an
 * untimeout() of it would otherwise ask the kernel and say 0).
 */
TEST_F(lib, submit_failing_ops_mid_batch)
{
	struct seen *s = &self->seen;
	struct callout_op ops[12];
	unsigned int done;
	__u64 h;
	int a, b, c, d;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, setcallout(self->never_ns, 0, 0, &h));
	ops[0] = op_set(self->never_ns, 0, 1);
	ops[1] = op_set(0, 0, 2);				/* EINVAL */
	ops[2] = op_unset(h + (1ULL << 32));			/* ENOENT */
	ops[3] = op_timeout(func_one, &a, 0);			/* EINVAL */
	ops[4] = op_timeout(NULL, &b, 1);			/* EINVAL */
	ops[5] = op_timeout(func_one, &b, 1);
	ops[6] = op_untimeout(func_two, &b);			/* ENOENT */
	ops[7] = op_timeout(func_one, &c, self->info.max_timeout_ns /
			    self->info.tick_ns + 1);		/* ERANGE */
	ops[8] = op_set(20 * MS, 0, 3);
	ops[8].flags = 1;					/* EINVAL */
	ops[9] = op_reset(h, 20 * MS);
	ops[9].arg = 1;						/* EINVAL */
	ops[10] = op_set(20 * MS, 0, 4);
	ops[11] = op_timeout(func_two, &d, 1);
	ASSERT_EQ(0, submit(ops, 12, &done));
	ASSERT_EQ(12, done);
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(-EINVAL, ops[1].result);
	EXPECT_EQ(0, ops[1].handle);
	EXPECT_EQ(-ENOENT, ops[2].result);
	EXPECT_EQ(-EINVAL, ops[3].result);
	EXPECT_EQ(-EINVAL, ops[4].result);
	EXPECT_EQ(0, ops[4].flags);
	EXPECT_EQ(0, ops[5].result);
	EXPECT_EQ(-ENOENT, ops[6].result);
	EXPECT_EQ(-ERANGE, ops[7].result);
	EXPECT_EQ(-EINVAL, ops[8].result);
	EXPECT_EQ(-EINVAL, ops[9].result);
	EXPECT_EQ(0, ops[10].result);
	EXPECT_EQ(0, ops[11].result);
	/* What worked runs; what failed does not. */
	ASSERT_EQ(3, pump(s, 3, 5000));
	EXPECT_EQ(0, pump(s, 0, 100));
	ASSERT_EQ(1, s->n);
	EXPECT_EQ(ops[10].handle, s->ev[0].handle);
	EXPECT_EQ(4, s->ev[0].cookie);
	EXPECT_EQ(1, times_called(1, &b));
	EXPECT_EQ(1, times_called(2, &d));
	EXPECT_EQ(2, ncalls);
	/* Op 9 moved nothing, op 0 and h are pending. */
	EXPECT_EQ(0, unsetcallout(ops[0].handle));
	EXPECT_EQ(0, unsetcallout(h));
	EXPECT_EQ(-ENOENT, untimeout(func_one, &a));
	EXPECT_EQ(-ENOENT, untimeout(func_one, &c));
}

/*
 * The timeout fired and its event waits unread: the batch's UNTIMEOUT gets
 * the kernel's ENOENT, which the library makes 0 and the event dropped,
 * as untimeout() does; a timeout of a batch is cancelled by untimeout()
 * after expiry just as well. Only one timeout is armed each time, so a
 * readable fd says it fired.
 */
TEST_F(lib, submit_untimeout_after_expiry)
{
	struct callout_op ops[3];
	unsigned int done;
	int a, b;

	if (setup_skipped(_metadata))
		return;
	ops[0] = op_timeout(func_one, &a, 1);
	ASSERT_EQ(0, submit(ops, 1, &done));
	ASSERT_EQ(0, ops[0].result);
	ASSERT_EQ(1, callout_wait(5000));
	ops[0] = op_timeout(func_one, &b, self->never_ticks);
	ops[1] = op_untimeout(func_one, &a);
	ops[2] = op_untimeout(func_one, &a);
	ASSERT_EQ(0, submit(ops, 3, &done));
	ASSERT_EQ(3, done);
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(0, ops[1].result);
	EXPECT_EQ(-ENOENT, ops[2].result);
	EXPECT_EQ(0, pump(NULL, 0, 100));
	EXPECT_EQ(0, ncalls);

	/* Armed by a batch, cancelled by untimeout() once it fired. */
	ops[0] = op_timeout(func_two, &a, 1);
	ASSERT_EQ(0, submit(ops, 1, &done));
	ASSERT_EQ(0, ops[0].result);
	ASSERT_EQ(1, callout_wait(5000));
	EXPECT_EQ(0, untimeout(func_two, &a));
	EXPECT_EQ(-ENOENT, untimeout(func_two, &a));
	EXPECT_EQ(0, pump(NULL, 0, 100));
	EXPECT_EQ(0, ncalls);

	/* Armed by timeout(), cancelled by a batch once it fired. */
	ASSERT_EQ(0, timeout(func_two, &b, 1));
	ASSERT_EQ(1, callout_wait(5000));
	ops[0] = op_untimeout(func_two, &b);
	ops[1] = op_untimeout(func_one, &b);
	ASSERT_EQ(0, submit(ops, 2, &done));
	EXPECT_EQ(0, ops[0].result);
	EXPECT_EQ(0, ops[1].result);
	EXPECT_EQ(0, pump(NULL, 0, 100));
	EXPECT_EQ(0, ncalls);
	EXPECT_EQ(-ENOENT, untimeout(func_two, &b));
	EXPECT_EQ(-ENOENT, untimeout(func_one, &b));
}

/* Counts its calls in *arg: for more than calls[] holds. */
static void func_count(void *arg)
{
	++*(int *)arg;
}

/*
 * Counts: 0 (no array needed), and more than one kernel call takes: the
 * library splits them, and every one is carried out.
 */
TEST_F(lib, submit_any_count)
{
	enum { N = 2 * CALLOUT_SUBMIT_MAX + 3 };
	static struct callout_op ops[N];
	static __u64 handles[N];
	static int runs[N];
	unsigned int done, i, j;

	if (setup_skipped(_metadata))
		return;
	done = ~0u;
	EXPECT_EQ(0, callout_submit(NULL, 0, &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(0, callout_submit(NULL, 0, NULL));

	for (i = 0; i < N; i++)
		ops[i] = i % 2 ? op_set(self->never_ns, 0, i) :
			 op_timeout(func_count, &runs[i], 1);
	ASSERT_EQ(0, submit(ops, N, &done));
	ASSERT_EQ(N, done);
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, ops[i].result) TH_LOG("op %u", i);
	/* Cancel the SETs, in one call of as many. */
	for (i = 0; i < N; i++) {
		handles[i] = ops[i].handle;
		ops[i] = op_unset(i % 2 ? handles[i] : 0);
	}
	ASSERT_EQ(0, submit(ops, N, &done));
	ASSERT_EQ(N, done);
	for (i = 0; i < N; i++)
		ASSERT_EQ(i % 2 ? 0 : -ENOENT, ops[i].result) TH_LOG("op %u", i);
	/* Every SET's handle was its own. */
	for (i = 1; i < N; i += 2) {
		ASSERT_NE(0, handles[i]);
		for (j = 1; j < i; j += 2)
			ASSERT_NE(handles[j], handles[i]);
	}
	/* Every TIMEOUT runs once. */
	ASSERT_EQ((N + 1) / 2, pump(NULL, (N + 1) / 2, 10000));
	EXPECT_EQ(0, pump(NULL, 0, 50));
	for (i = 0; i < N; i += 2)
		ASSERT_EQ(1, runs[i]) TH_LOG("op %u", i);
}

/*
 * The array runs into a page the kernel cannot write, from op W on: the
 * call fails with EFAULT and done says how far it got, exactly: those ops
 * have their results, the rest are untouched and not carried out (the
 * kernel has no timeout of theirs), and the library counted just the
 * TIMEOUTs that were.
 */
TEST_F(lib, submit_stops_at_efault)
{
	enum { W = 100, N = 150 };
	struct callout_untimeout req = { .func = (uintptr_t)func_one };
	size_t page = sysconf(_SC_PAGESIZE);
	struct callout_op *ops;
	static char args[N];
	unsigned int done, i;
	char *map;

	if (setup_skipped(_metadata))
		return;
	map = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ops = (struct callout_op *)(map + 2 * page) - W;
	ASSERT_LE((char *)map, (char *)ops);
	ASSERT_GE(map + 3 * page, (char *)(ops + N));
	for (i = 0; i < N; i++) {
		ops[i] = op_timeout(func_one, &args[i],
				    self->never_ticks);
		/* Some as if carried out: the kernel never reads a result. */
		ops[i].result = i % 2 ? 0 : NO_RESULT;
	}
	ASSERT_EQ(0, mprotect(map + 2 * page, page, PROT_READ));
	done = ~0u;
	EXPECT_EQ(-EFAULT, callout_submit(ops, N, &done));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_GE(W, done);
	TH_LOG("done %u of %u writable", done, W);
	for (i = 0; i < N; i++) {
		if (i < done) {
			EXPECT_EQ(0, ops[i].result) TH_LOG("op %u", i);
			/* Armed, and counted. */
			EXPECT_EQ(0, untimeout(func_one, &args[i]))
				TH_LOG("op %u of %u done", i, done);
			continue;
		}
		EXPECT_EQ(i % 2 ? 0 : NO_RESULT, ops[i].result)
			TH_LOG("op %u", i);
		/* Neither counted nor armed. */
		EXPECT_EQ(-ENOENT, untimeout(func_one, &args[i]))
			TH_LOG("op %u of %u done", i, done);
		req.arg = (uintptr_t)&args[i];
		EXPECT_EQ(-1, ioctl(callout_fd(), CALLOUT_IOC_UNTIMEOUT, &req));
		EXPECT_EQ(ENOENT, errno) TH_LOG("op %u of %u done", i, done);
	}
	EXPECT_EQ(0, pump(NULL, 0, 50));
	EXPECT_EQ(0, ncalls);
	munmap(map, 3 * page);
}

TEST_HARNESS_MAIN
