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

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

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

TEST_HARNESS_MAIN
