// SPDX-License-Identifier: GPL-2.0
/*
 * submit_test - CALLOUT_IOC_SUBMIT: an array of operations in one call.
 *
 * Every operation through SUBMIT with its effect seen in the file (events
 * read back, handles that the single ioctls take and the other way round),
 * every errno of each operation in its own result, a batch that fails part
 * way (each later operation still carried out), the header's checks, counts
 * 0, 1, CALLOUT_SUBMIT_MAX and above it, an array that runs into a page that
 * cannot be read or cannot be written (EFAULT, and done says exactly which
 * operations were carried out), and batches that cancel and re-arm their
 * own callouts while those expire.
 *
 * An operation that is not carried out keeps the result and handle this test
 * wrote into it (NOT_WRITTEN, JUNK_HANDLE), and debugfs user_callouts, which
 * counts every callout an open file holds, does not move for it.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "kselftest_harness.h"
#include "callout_test.h"
#include "handle_map.h"

#define MS		1000000ULL
#define PAGE		4096
#define NOT_WRITTEN	0x5a5a5a5a		/* a result no call gives */
#define JUNK_HANDLE	0xbadc0ffee0ddf00dULL	/* SET's handle is out only */
#define FUNC		0xf00

static __u64 callout_tick;	/* INFO's tick_ns */

/*
 * CALLOUT_IOC_SUBMIT of @nr operations at @ops: 0, -errno, or what else the
 * ioctl returned (a test expecting 0 sees it); *@done as the call left it.
 */
static int submit_hdr(int fd, struct callout_submit *s, __u32 *done)
{
	int ret;

	s->done = NOT_WRITTEN;
	ret = ioctl(fd, CALLOUT_IOC_SUBMIT, s);
	if (ret == -1)
		ret = -errno;
	if (done)
		*done = s->done;
	return ret;
}

static int submit(int fd, struct callout_op *ops, __u32 nr, __u32 *done)
{
	struct callout_submit s = { .ops = (uintptr_t)ops, .nr = nr };

	return submit_hdr(fd, &s, done);
}

static struct callout_op op_set(__u64 timeout, __u64 period, __u64 cookie)
{
	return (struct callout_op){
		.op = CALLOUT_OP_SET, .result = NOT_WRITTEN,
		.handle = JUNK_HANDLE, .timeout = timeout,
		.period_ns = period, .cookie = cookie,
	};
}

static struct callout_op op_unset(__u64 handle)
{
	return (struct callout_op){
		.op = CALLOUT_OP_UNSET, .result = NOT_WRITTEN, .handle = handle,
	};
}

static struct callout_op op_reset(__u64 handle, __u64 timeout, __u64 period)
{
	return (struct callout_op){
		.op = CALLOUT_OP_RESET, .result = NOT_WRITTEN, .handle = handle,
		.timeout = timeout, .period_ns = period,
	};
}

static struct callout_op op_timeout(__u64 func, __u64 arg, __u64 ticks)
{
	return (struct callout_op){
		.op = CALLOUT_OP_TIMEOUT, .result = NOT_WRITTEN,
		.timeout = ticks, .cookie = func, .arg = arg,
	};
}

static struct callout_op op_untimeout(__u64 func, __u64 arg)
{
	return (struct callout_op){
		.op = CALLOUT_OP_UNTIMEOUT, .result = NOT_WRITTEN,
		.cookie = func, .arg = arg,
	};
}

static int reset_callout(int fd, __u64 handle, __u64 timeout, __u64 period)
{
	struct callout_reset r = {
		.handle = handle, .timeout_ns = timeout, .period_ns = period,
	};

	return ioctl(fd, CALLOUT_IOC_RESET, &r) ? -errno : 0;
}

FIXTURE(sub) {
	int fd;
	struct callout_info info;
	__u64 far;		/* a timeout no test waits for */
	__u64 far_ticks;
};

FIXTURE_SETUP(sub)
{
	self->fd = -1;
	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	self->fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_INFO, &self->info));
	self->far = 3600000 * MS;
	if (self->far > self->info.max_timeout_ns)
		self->far = self->info.max_timeout_ns;
	self->far_ticks = self->far / self->info.tick_ns;
	callout_tick = self->info.tick_ns;
}

FIXTURE_TEARDOWN(sub)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The header's flags and reserved must be 0: EINVAL, nothing done. */
TEST_F(sub, header_flags_reserved)
{
	struct callout_op op = op_set(MS, 0, 1);
	struct callout_submit s = { .ops = (uintptr_t)&op, .nr = 1 };
	struct callout_event ev;
	long long users = callout_stat("user_callouts");
	__u32 done;

	if (setup_skipped(_metadata))
		return;
	s.flags = 1;
	EXPECT_EQ(-EINVAL, submit_hdr(self->fd, &s, &done));
	EXPECT_EQ(0, done);
	s.flags = 0x80000000;
	EXPECT_EQ(-EINVAL, submit_hdr(self->fd, &s, &done));
	EXPECT_EQ(0, done);
	s.flags = 0;
	s.reserved = 1;
	EXPECT_EQ(-EINVAL, submit_hdr(self->fd, &s, &done));
	EXPECT_EQ(0, done);
	s.reserved = 0x80000000;
	EXPECT_EQ(-EINVAL, submit_hdr(self->fd, &s, &done));
	EXPECT_EQ(0, done);
	/* Not carried out: nothing written, nothing armed, nothing fires. */
	EXPECT_EQ(NOT_WRITTEN, op.result);
	EXPECT_EQ(JUNK_HANDLE, op.handle);
	EXPECT_EQ(users, callout_stat("user_callouts"));
	EXPECT_EQ(0, callout_read_events(self->fd, &ev, 1, 50));
	/* The same header with both 0 is carried out. */
	s.reserved = 0;
	EXPECT_EQ(0, submit_hdr(self->fd, &s, &done));
	EXPECT_EQ(1, done);
	EXPECT_EQ(0, op.result);
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(op.handle, ev.handle);
}

/* A header that cannot be read: EFAULT. */
TEST_F(sub, header_bad_pointer)
{
	if (setup_skipped(_metadata))
		return;
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_SUBMIT, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_SUBMIT, (void *)16));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_SUBMIT,
			    (void *)0xffffffff81000000ULL));
	EXPECT_EQ(EFAULT, errno);
}

/* nr 0: 0 and done 0, and the array is not looked at. */
TEST_F(sub, nr_zero)
{
	__u32 done;

	if (setup_skipped(_metadata))
		return;
	EXPECT_EQ(0, submit(self->fd, NULL, 0, &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(0, submit(self->fd, (void *)16, 0, &done));
	EXPECT_EQ(0, done);
}

/* More than CALLOUT_SUBMIT_MAX: E2BIG, done 0, nothing carried out. */
TEST_F(sub, nr_above_max)
{
	enum { N = CALLOUT_SUBMIT_MAX + 1 };
	static struct callout_op ops[N];
	long long users;
	__u32 done;
	int i, untouched = 0;

	if (setup_skipped(_metadata))
		return;
	users = callout_stat("user_callouts");
	for (i = 0; i < N; i++)
		ops[i] = op_set(self->far, 0, i);
	EXPECT_EQ(-E2BIG, submit(self->fd, ops, N, &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(-E2BIG, submit(self->fd, ops, 0xffffffff, &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(-E2BIG, submit(self->fd, NULL, N, &done));
	EXPECT_EQ(0, done);
	for (i = 0; i < N; i++)
		untouched += ops[i].result == NOT_WRITTEN &&
			     ops[i].handle == JUNK_HANDLE;
	EXPECT_EQ(N, untouched);
	EXPECT_EQ(users, callout_stat("user_callouts"));
}

/*
 * CALLOUT_SUBMIT_MAX SETs in one call: each gets its own handle, and all
 * count from one clock read, so every event is due at the same time. Then
 * as many UNSETs of far ones cancel every one.
 */
TEST_F_TIMEOUT(sub, nr_max, 120)
{
	enum { N = CALLOUT_SUBMIT_MAX };
	static struct callout_op ops[N];
	static struct callout_event ev[256];
	static int seen[N];
	struct handle_map given = { 0 };
	unsigned long long before, after;
	long long users;
	int i, n, total = 0, ok = 0;
	__u32 done;

	if (setup_skipped(_metadata))
		return;
	for (i = 0; i < N; i++)
		ops[i] = op_set(30 * MS, 0, i);
	before = now_ns();
	ASSERT_EQ(0, submit(self->fd, ops, N, &done));
	after = now_ns();
	ASSERT_EQ(N, done);
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, ops[i].result) TH_LOG("op %d", i);
		ASSERT_NE(0, ops[i].handle);
		ASSERT_EQ(NULL, handle_map_get(&given, ops[i].handle))
			TH_LOG("handle %llu given twice", ops[i].handle);
		handle_map_put(&given, ops[i].handle, &ops[i]);
	}
	while (total < N) {
		n = callout_read_events(self->fd, ev, ARRAY_SIZE(ev), 5000);
		ASSERT_LT(0, n) TH_LOG("%d of %d events came", total, N);
		for (i = 0; i < n; i++, total++) {
			ASSERT_GT(N, ev[i].cookie);
			EXPECT_EQ(ops[ev[i].cookie].handle, ev[i].handle);
			seen[ev[i].cookie]++;
			/* One clock read for the batch: one due time. */
			EXPECT_EQ(ev[0].expires_ns, ev[i].expires_ns) {
				TH_LOG("op %llu due %llu, op %llu due %llu",
				       ev[0].cookie, ev[0].expires_ns,
				       ev[i].cookie, ev[i].expires_ns);
			}
			EXPECT_LE(before + 30 * MS, ev[i].expires_ns);
			EXPECT_GE(after + 30 * MS + self->info.tick_ns,
				  ev[i].expires_ns);
			EXPECT_LE(ev[i].expires_ns, ev[i].fired_ns);
		}
	}
	for (i = 0; i < N; i++)
		ok += seen[i] == 1;
	EXPECT_EQ(N, ok);
	EXPECT_EQ(0, callout_read_events(self->fd, ev, 1, 50));

	/* As many far ones, then as many UNSETs: all cancelled. */
	users = callout_stat("user_callouts");
	for (i = 0; i < N; i++)
		ops[i] = op_set(self->far, 0, i);
	ASSERT_EQ(0, submit(self->fd, ops, N, &done));
	ASSERT_EQ(N, done);
	if (users >= 0)
		EXPECT_EQ(users + N, callout_stat("user_callouts"));
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, ops[i].result);
		ASSERT_EQ(NULL, handle_map_get(&given, ops[i].handle));
		ops[i] = op_unset(ops[i].handle);
	}
	ASSERT_EQ(0, submit(self->fd, ops, N, &done));
	ASSERT_EQ(N, done);
	for (i = 0, ok = 0; i < N; i++)
		ok += !ops[i].result;
	EXPECT_EQ(N, ok);
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, ops[0].handle));
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, ops[N - 1].handle));
	if (users >= 0)
		EXPECT_EQ(users, callout_stat("user_callouts"));
	handle_map_free(&given);
}

/* One SET: its handle, its one event, never early. */
TEST_F(sub, set_fires_once)
{
	struct callout_op op = op_set(20 * MS, 0, 0x1234);
	struct callout_event ev[4];
	unsigned long long before = now_ns();
	__u32 done;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, submit(self->fd, &op, 1, &done));
	EXPECT_EQ(1, done);
	EXPECT_EQ(0, op.result);
	ASSERT_NE(0, op.handle);
	ASSERT_NE(JUNK_HANDLE, op.handle);
	ASSERT_EQ(1, callout_read_events(self->fd, ev, 4, 5000));
	EXPECT_EQ(op.handle, ev[0].handle);
	EXPECT_EQ(0x1234, ev[0].cookie);
	EXPECT_EQ(0, ev[0].arg);
	EXPECT_EQ(0, ev[0].flags);
	EXPECT_EQ(0, ev[0].overrun);
	EXPECT_LE(before + 20 * MS, ev[0].expires_ns);
	EXPECT_LE(ev[0].expires_ns, ev[0].fired_ns);
	EXPECT_LE(ev[0].fired_ns, now_ns());
	EXPECT_EQ(0, callout_read_events(self->fd, ev, 4, 60));
	/* Fired: no longer pending, for either way of asking. */
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, op.handle));
	op = op_unset(op.handle);
	EXPECT_EQ(0, submit(self->fd, &op, 1, &done));
	EXPECT_EQ(-ENOENT, op.result);
}

/* Handles of SUBMIT work with the single ioctls, and the other way round. */
TEST_F(sub, handles_both_ways)
{
	struct callout_op op[2];
	struct callout_event ev;
	__u64 h = 0;
	__u32 done;

	if (setup_skipped(_metadata))
		return;
	/* SUBMIT's SET, the single UNSET and RESET. */
	op[0] = op_set(self->far, 0, 1);
	op[1] = op_set(self->far, 0, 2);
	ASSERT_EQ(0, submit(self->fd, op, 2, &done));
	ASSERT_EQ(2, done);
	ASSERT_EQ(0, op[0].result);
	ASSERT_EQ(0, op[1].result);
	EXPECT_NE(op[0].handle, op[1].handle);
	EXPECT_EQ(0, unset_callout(self->fd, op[0].handle));
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, op[0].handle));
	EXPECT_EQ(0, reset_callout(self->fd, op[1].handle, 10 * MS, 0));
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(op[1].handle, ev.handle);
	EXPECT_EQ(2, ev.cookie);

	/* The single SET, SUBMIT's UNSET: once, then ENOENT. */
	ASSERT_EQ(0, set_callout(self->fd, self->far, 0, 3, &h));
	op[0] = op_unset(h);
	op[1] = op_unset(h);
	ASSERT_EQ(0, submit(self->fd, op, 2, &done));
	EXPECT_EQ(2, done);
	EXPECT_EQ(0, op[0].result);
	EXPECT_EQ(-ENOENT, op[1].result);
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, h));

	/* The single SET, SUBMIT's RESET: it fires at the new time. */
	ASSERT_EQ(0, set_callout(self->fd, self->far, 0, 4, &h));
	op[0] = op_reset(h, 10 * MS, 0);
	ASSERT_EQ(0, submit(self->fd, op, 1, &done));
	EXPECT_EQ(0, op[0].result);
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(h, ev.handle);
	EXPECT_EQ(4, ev.cookie);
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, h));
	EXPECT_EQ(0, callout_read_events(self->fd, &ev, 1, 50));
}

/*
 * A RESET through SUBMIT re-arms: the callout fires once, at the new time.
 * A one-shot due soon may fire first on a busy host (ENOENT, its event
 * queued): then again with a new one.
 */
TEST_F(sub, reset_rearms)
{
	struct callout_event ev;
	struct callout_op op;
	unsigned long long at;
	int tries;
	__u64 h = 0;
	__u32 done;

	if (setup_skipped(_metadata))
		return;
	for (tries = 0; ; tries++) {
		ASSERT_GT(10, tries);
		ASSERT_EQ(0, set_callout(self->fd, 50 * MS, 0, 7, &h));
		op = op_reset(h, 200 * MS, 0);
		at = now_ns();
		ASSERT_EQ(0, submit(self->fd, &op, 1, &done));
		ASSERT_EQ(1, done);
		if (!op.result)
			break;
		ASSERT_EQ(-ENOENT, op.result);
		ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 0));
		EXPECT_EQ(h, ev.handle);
	}
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(h, ev.handle);
	EXPECT_EQ(7, ev.cookie);
	EXPECT_EQ(0, ev.flags);
	EXPECT_LE(at + 200 * MS, ev.expires_ns);
	EXPECT_LE(ev.expires_ns, ev.fired_ns);
	EXPECT_EQ(0, callout_read_events(self->fd, &ev, 1, 50));
	op = op_reset(h, 200 * MS, 0);
	EXPECT_EQ(0, submit(self->fd, &op, 1, &done));
	EXPECT_EQ(-ENOENT, op.result);
}

/*
 * A periodic SET through SUBMIT fires every period, flagged periodic; an
 * event queued when SUBMIT's RESET or UNSET returns 0 is stale and never
 * read, nor reported by poll.
 */
TEST_F(sub, periodic_reset_unset)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	unsigned long long period = 10 * MS;
	struct callout_event ev;
	struct callout_op op;
	__u32 done;
	int fl, i;

	if (setup_skipped(_metadata))
		return;
	if (period < self->info.tick_ns)
		period = self->info.tick_ns;
	fl = fcntl(self->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, fl | O_NONBLOCK));
	op = op_set(period, period, 5);
	ASSERT_EQ(0, submit(self->fd, &op, 1, &done));
	ASSERT_EQ(0, op.result);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, poll(&p, 1, 5000));
		ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
		EXPECT_EQ(op.handle, ev.handle);
		EXPECT_EQ(CALLOUT_EV_PERIODIC, ev.flags);
		EXPECT_EQ(5, ev.cookie);
	}
	/* An event queued, unread: RESET far makes it stale. */
	ASSERT_EQ(1, poll(&p, 1, 5000));
	op = op_reset(op.handle, self->far, period);
	ASSERT_EQ(0, submit(self->fd, &op, 1, &done));
	ASSERT_EQ(0, op.result);
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev))) {
		TH_LOG("read the old arming's event, flags %#x", ev.flags);
	}
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, poll(&p, 1, 0));
	/* Periodic again, an event queued: UNSET makes it stale. */
	op = op_reset(op.handle, period, period);
	ASSERT_EQ(0, submit(self->fd, &op, 1, &done));
	ASSERT_EQ(0, op.result);
	ASSERT_EQ(1, poll(&p, 1, 5000));
	op = op_unset(op.handle);
	ASSERT_EQ(0, submit(self->fd, &op, 1, &done));
	ASSERT_EQ(0, op.result);
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev))) {
		TH_LOG("read an event after UNSET -> 0, flags %#x", ev.flags);
	}
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, poll(&p, 1, 3 * period / MS));
}

/* TIMEOUT and UNTIMEOUT through SUBMIT, and mixed with the single ones. */
TEST_F(sub, timeout_untimeout)
{
	struct callout_event ev;
	struct callout_op op[3];
	unsigned long long before;
	__u64 ticks;
	__u32 done;

	if (setup_skipped(_metadata))
		return;
	ticks = (20 * MS + self->info.tick_ns - 1) / self->info.tick_ns;
	op[0] = op_timeout(FUNC, 0xa, ticks);
	before = now_ns();
	ASSERT_EQ(0, submit(self->fd, op, 1, &done));
	ASSERT_EQ(1, done);
	ASSERT_EQ(0, op[0].result);
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(CALLOUT_EV_TIMEOUT, ev.flags);
	EXPECT_EQ(0, ev.handle);
	EXPECT_EQ(FUNC, ev.cookie);
	EXPECT_EQ(0xa, ev.arg);
	EXPECT_LE(before + ticks * self->info.tick_ns, ev.expires_ns);
	EXPECT_LE(ev.expires_ns, ev.fired_ns);
	EXPECT_EQ(-ENOENT, untimeout_callout(self->fd, FUNC, 0xa));

	/* The single TIMEOUT, SUBMIT's UNTIMEOUT: one each, then ENOENT. */
	ASSERT_EQ(0, timeout_callout(self->fd, FUNC, 0xb, self->far_ticks));
	ASSERT_EQ(0, timeout_callout(self->fd, FUNC, 0xb, self->far_ticks));
	op[0] = op_untimeout(FUNC, 0xb);
	op[1] = op_untimeout(FUNC, 0xb);
	op[2] = op_untimeout(FUNC, 0xb);
	ASSERT_EQ(0, submit(self->fd, op, 3, &done));
	EXPECT_EQ(3, done);
	EXPECT_EQ(0, op[0].result);
	EXPECT_EQ(0, op[1].result);
	EXPECT_EQ(-ENOENT, op[2].result);

	/* SUBMIT's TIMEOUT, the single UNTIMEOUT; the key is the pair. */
	op[0] = op_timeout(FUNC, 0xc, self->far_ticks);
	ASSERT_EQ(0, submit(self->fd, op, 1, &done));
	ASSERT_EQ(0, op[0].result);
	EXPECT_EQ(-ENOENT, untimeout_callout(self->fd, FUNC, 0xd));
	EXPECT_EQ(-ENOENT, untimeout_callout(self->fd, FUNC + 1, 0xc));
	EXPECT_EQ(0, untimeout_callout(self->fd, FUNC, 0xc));
	EXPECT_EQ(0, callout_read_events(self->fd, &ev, 1, 50));
}

/*
 * Operations are carried out in array order: an UNSET before the RESET of
 * a callout leaves the RESET nothing, the other way round both succeed; an
 * UNTIMEOUT before its TIMEOUT finds nothing. A new file's first handle is
 * 1 (Documentation/callout.rst): a SET and the UNSET of its handle in one
 * batch.
 */
TEST_F(sub, array_order)
{
	struct callout_op op[6];
	__u64 a = 0, b = 0;
	__u32 done;
	int fd;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, set_callout(self->fd, self->far, 0, 1, &a));
	ASSERT_EQ(0, set_callout(self->fd, self->far, 0, 2, &b));
	op[0] = op_unset(a);
	op[1] = op_reset(a, self->far, 0);
	op[2] = op_reset(b, self->far, 0);
	op[3] = op_unset(b);
	op[4] = op_untimeout(FUNC, 1);
	op[5] = op_timeout(FUNC, 1, self->far_ticks);
	ASSERT_EQ(0, submit(self->fd, op, 6, &done));
	EXPECT_EQ(6, done);
	EXPECT_EQ(0, op[0].result);
	EXPECT_EQ(-ENOENT, op[1].result);
	EXPECT_EQ(0, op[2].result);
	EXPECT_EQ(0, op[3].result);
	EXPECT_EQ(-ENOENT, op[4].result);
	EXPECT_EQ(0, op[5].result);
	EXPECT_EQ(0, untimeout_callout(self->fd, FUNC, 1));

	fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	op[0] = op_unset(1);
	op[1] = op_set(self->far, 0, 1);
	op[2] = op_reset(1, self->far, 0);
	op[3] = op_unset(1);
	op[4] = op_unset(1);
	ASSERT_EQ(0, submit(fd, op, 5, &done));
	EXPECT_EQ(5, done);
	EXPECT_EQ(-ENOENT, op[0].result);
	EXPECT_EQ(0, op[1].result);
	EXPECT_EQ(1, op[1].handle);
	EXPECT_EQ(0, op[2].result);
	EXPECT_EQ(0, op[3].result);
	EXPECT_EQ(-ENOENT, op[4].result);
	close(fd);
}

/*
 * Check one batch whose operations must each fail with @want[i] (0: must
 * succeed), none stopping the batch: 0, done == @n, every result written.
 */
static void expect_results(struct __test_metadata *_metadata, int fd,
			   struct callout_op *op, const int *want, int n)
{
	__u32 done;
	int i;

	ASSERT_EQ(0, submit(fd, op, n, &done));
	ASSERT_EQ(n, done);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(want[i], op[i].result) {
			TH_LOG("op %d (code %u): result %d, want %d", i,
			       op[i].op, op[i].result, want[i]);
		}
		if (op[i].op == CALLOUT_OP_SET && op[i].result)
			EXPECT_EQ(0, op[i].handle) TH_LOG("op %d", i);
	}
}

/* Every errno of SET, each in its own result, nothing armed by them. */
TEST_F(sub, set_errors)
{
	__u64 max = self->info.max_timeout_ns, tick = self->info.tick_ns;
	struct callout_op op[9];
	const int want[9] = {
		-EINVAL, -EINVAL, -EINVAL, -ERANGE, -ERANGE, -EINVAL, -EINVAL,
		-EINVAL, 0,
	};
	struct callout_event ev;
	long long users;

	if (setup_skipped(_metadata))
		return;
	users = callout_stat("user_callouts");
	op[0] = op_set(0, 0, 1);
	op[1] = op_set(MS, tick - 1, 2);
	op[2] = op_set(MS, 1, 3);
	op[3] = op_set(max + 1, 0, 4);
	op[4] = op_set(MS, max + 1, 5);
	op[5] = op_set(MS, 0, 6);
	op[5].flags = 1;
	op[6] = op_set(MS, 0, 7);
	op[6].flags = 0x8000;
	op[7] = op_set(MS, 0, 8);
	op[7].arg = 1;			/* SET does not read arg */
	op[8] = op_set(self->far, 0, 9);	/* its handle's input is ignored */
	expect_results(_metadata, self->fd, op, want, 9);
	EXPECT_NE(0, op[8].handle);
	EXPECT_NE(JUNK_HANDLE, op[8].handle);
	/* One armed, by the last: none of the others fires. */
	if (users >= 0)
		EXPECT_EQ(users + 1, callout_stat("user_callouts"));
	EXPECT_EQ(0, unset_callout(self->fd, op[8].handle));
	EXPECT_EQ(0, callout_read_events(self->fd, &ev, 1, 100)) {
		TH_LOG("an event of cookie %llu", ev.cookie);
	}
}

/*
 * A SET carried out whatever its handle field held, and a periodic one at
 * the limits: max timeout and period, a period of one tick.
 */
TEST_F(sub, set_limits)
{
	__u64 max = self->info.max_timeout_ns, tick = self->info.tick_ns;
	struct callout_op op[3];
	const int want[3] = { 0, 0, 0 };

	if (setup_skipped(_metadata))
		return;
	op[0] = op_set(max, 0, 1);
	op[1] = op_set(max, max, 2);
	op[2] = op_set(max, tick, 3);
	op[2].handle = 0;
	expect_results(_metadata, self->fd, op, want, 3);
	EXPECT_EQ(0, unset_callout(self->fd, op[0].handle));
	EXPECT_EQ(0, unset_callout(self->fd, op[1].handle));
	EXPECT_EQ(0, unset_callout(self->fd, op[2].handle));
}

/*
 * UNSET: ENOENT for a handle that is not pending; EINVAL for flags or a
 * field it does not read, and then the callout is not cancelled (its event
 * still comes).
 */
TEST_F(sub, unset_errors)
{
	struct callout_op op[9];
	const int want[9] = {
		-ENOENT, -ENOENT, -ENOENT, -EINVAL, -EINVAL, -EINVAL, -EINVAL,
		-EINVAL, -EINVAL,
	};
	struct callout_event ev;
	__u64 h = 0, gone = 0;
	int i;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, set_callout(self->fd, self->far, 0, 1, &gone));
	ASSERT_EQ(0, unset_callout(self->fd, gone));
	ASSERT_EQ(0, set_callout(self->fd, 30 * MS, 0, 2, &h));
	op[0] = op_unset(0);
	op[1] = op_unset(gone);
	op[2] = op_unset(h + (1ULL << 40));	/* a generation not given */
	for (i = 3; i < 9; i++)
		op[i] = op_unset(h);
	op[3].flags = 1;
	op[4].timeout = 1;
	op[5].period_ns = 1;
	op[6].cookie = 1;
	op[7].arg = 1;
	op[8].flags = 0x8000;
	expect_results(_metadata, self->fd, op, want, 9);
	/* None of them cancelled it. */
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000)) {
		TH_LOG("an UNSET refused with EINVAL cancelled the callout");
	}
	EXPECT_EQ(h, ev.handle);
	/* A bad field wins over a handle that is not there. */
	op[0] = op_unset(12345);
	op[0].cookie = 1;
	expect_results(_metadata, self->fd, op, want + 3, 1);
}

/*
 * RESET: ENOENT for a handle not pending; EINVAL, ERANGE for its times as
 * the single RESET; EINVAL for flags or a field it does not read. None of
 * the failed ones re-arms: the callout still fires at its old time.
 */
TEST_F(sub, reset_errors)
{
	__u64 max = self->info.max_timeout_ns, tick = self->info.tick_ns;
	struct callout_op op[10];
	const int want[10] = {
		-ENOENT, -ENOENT, -EINVAL, -EINVAL, -ERANGE, -ERANGE, -EINVAL,
		-EINVAL, -EINVAL, -EINVAL,
	};
	struct callout_event ev;
	unsigned long long before, after;
	__u64 h = 0, gone = 0;
	int i;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, set_callout(self->fd, self->far, 0, 1, &gone));
	ASSERT_EQ(0, unset_callout(self->fd, gone));
	before = now_ns();
	ASSERT_EQ(0, set_callout(self->fd, 50 * MS, 0, 2, &h));
	after = now_ns();
	op[0] = op_reset(0, self->far, 0);
	op[1] = op_reset(gone, self->far, 0);
	for (i = 2; i < 10; i++)
		op[i] = op_reset(h, self->far, 0);
	op[2].timeout = 0;
	op[3].period_ns = tick - 1;
	op[4].timeout = max + 1;
	op[5].period_ns = max + 1;
	op[6].flags = 1;
	op[7].cookie = 1;
	op[8].arg = 1;
	op[9].flags = 0x8000;
	expect_results(_metadata, self->fd, op, want, 10);
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000)) {
		TH_LOG("a refused RESET moved the callout away");
	}
	EXPECT_EQ(h, ev.handle);
	EXPECT_EQ(0, ev.flags);
	EXPECT_LE(before + 50 * MS, ev.expires_ns);
	EXPECT_GE(after + 50 * MS + tick, ev.expires_ns);
}

/*
 * TIMEOUT: EINVAL for 0 ticks, ERANGE past max_timeout_ns, ENOSPC for the
 * 65th of one func/arg pair, EINVAL for flags or a field it does not read;
 * UNTIMEOUT: ENOENT, and EINVAL for flags or a field it does not read,
 * which then cancels nothing.
 */
TEST_F(sub, timeout_errors)
{
	enum { N = 72 };
	static struct callout_op op[N];
	static int want[N];
	__u64 toolong = self->info.max_timeout_ns / self->info.tick_ns + 1;
	struct callout_event ev;
	int i;

	if (setup_skipped(_metadata))
		return;
	op[0] = op_timeout(FUNC, 1, 0);
	want[0] = -EINVAL;
	op[1] = op_timeout(FUNC, 1, toolong);
	want[1] = -ERANGE;
	op[2] = op_timeout(FUNC, 1, 1);
	op[2].flags = 1;
	op[3] = op_timeout(FUNC, 1, 1);
	op[3].handle = 1;
	op[4] = op_timeout(FUNC, 1, 1);
	op[4].period_ns = 1;
	op[5] = op_timeout(FUNC, 1, 1);
	op[5].flags = 0x8000;
	for (i = 2; i < 6; i++)
		want[i] = -EINVAL;
	/* 64 of the pair FUNC/2, then ENOSPC; another pair is room. */
	for (i = 6; i < 6 + 64; i++)
		op[i] = op_timeout(FUNC, 2, self->far_ticks);
	op[70] = op_timeout(FUNC, 2, self->far_ticks);
	want[70] = -ENOSPC;
	op[71] = op_timeout(FUNC, 3, self->far_ticks);
	expect_results(_metadata, self->fd, op, want, N);
	EXPECT_EQ(-ENOSPC, timeout_callout(self->fd, FUNC, 2, self->far_ticks));
	EXPECT_EQ(0, untimeout_callout(self->fd, FUNC, 3));

	/* UNTIMEOUT's errors; FUNC/2 has 64 pending, FUNC/1 none. */
	memset(want, 0, sizeof(want));
	op[0] = op_untimeout(FUNC, 1);
	want[0] = -ENOENT;
	op[1] = op_untimeout(FUNC + 1, 2);
	want[1] = -ENOENT;
	for (i = 2; i < 7; i++) {
		op[i] = op_untimeout(FUNC, 2);
		want[i] = -EINVAL;
	}
	op[2].flags = 1;
	op[3].handle = 1;
	op[4].timeout = 1;
	op[5].period_ns = 1;
	op[6].flags = 0x8000;
	expect_results(_metadata, self->fd, op, want, 7);
	/* None cancelled one of the 64: 64 UNTIMEOUTs, then ENOENT. */
	memset(want, 0, sizeof(want));
	for (i = 0; i < 65; i++)
		op[i] = op_untimeout(FUNC, 2);
	want[64] = -ENOENT;
	expect_results(_metadata, self->fd, op, want, 65);
	EXPECT_EQ(0, callout_read_events(self->fd, &ev, 1, 50));
}

/* Unknown operation codes: EINVAL each, and the batch goes on. */
TEST_F(sub, unknown_op)
{
	static const __u16 codes[] = {
		0, CALLOUT_OP_UNTIMEOUT + 1, 0x100, 0xffff,
	};
	struct callout_op op[2 * ARRAY_SIZE(codes)];
	int want[2 * ARRAY_SIZE(codes)];
	long long users = callout_stat("user_callouts");
	unsigned int i;

	if (setup_skipped(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(codes); i++) {
		/* A SET's fields under an unknown code, then a SET. */
		op[2 * i] = op_set(self->far, 0, i);
		op[2 * i].op = codes[i];
		want[2 * i] = -EINVAL;
		op[2 * i + 1] = op_set(self->far, 0, 100 + i);
		want[2 * i + 1] = 0;
	}
	expect_results(_metadata, self->fd, op, want, ARRAY_SIZE(op));
	for (i = 0; i < ARRAY_SIZE(codes); i++)
		EXPECT_EQ(JUNK_HANDLE, op[2 * i].handle);
	if (users >= 0)
		EXPECT_EQ(users + (long long)ARRAY_SIZE(codes),
			  callout_stat("user_callouts"));
}

/*
 * A batch that fails part-way: failures in the middle, each with its
 * errno, and every operation after them carried out, with its effect.
 */
TEST_F(sub, partial_failure)
{
	enum { N = 14 };
	struct callout_op op[N];
	const int want[N] = {
		0, -EINVAL, -ENOENT, 0, -EINVAL, 0, -ERANGE, -ENOENT, 0,
		-EINVAL, 0, 0, -ENOENT, 0,
	};
	struct callout_event ev[16];
	unsigned long long before;
	int i, n, got = 0, seen[N] = { 0 };
	__u64 far = 0, gone = 0, soon = 0;
	__u64 ticks;

	if (setup_skipped(_metadata))
		return;
	ticks = (20 * MS + self->info.tick_ns - 1) / self->info.tick_ns;
	ASSERT_EQ(0, set_callout(self->fd, self->far, 0, 100, &far));
	ASSERT_EQ(0, set_callout(self->fd, self->far, 0, 101, &gone));
	ASSERT_EQ(0, unset_callout(self->fd, gone));
	ASSERT_EQ(0, set_callout(self->fd, self->far, 0, 102, &soon));
	ASSERT_EQ(0, timeout_callout(self->fd, FUNC, 7, self->far_ticks));
	op[0] = op_set(20 * MS, 0, 0);
	op[1] = op_set(0, 0, 1);
	op[2] = op_unset(gone);
	op[3] = op_set(20 * MS, 0, 3);
	op[4] = op_set(20 * MS, 0, 4);
	op[4].op = 0x77;
	op[5] = op_timeout(FUNC, 5, ticks);
	op[6] = op_reset(far, self->info.max_timeout_ns + 1, 0);
	op[7] = op_untimeout(FUNC, 8);
	op[8] = op_unset(far);
	op[9] = op_set(20 * MS, 0, 9);
	op[9].flags = 1;
	op[10] = op_reset(soon, 20 * MS, 0);
	op[11] = op_untimeout(FUNC, 7);
	op[12] = op_reset(gone, 20 * MS, 0);
	op[13] = op_set(20 * MS, 0, 13);
	before = now_ns();
	expect_results(_metadata, self->fd, op, want, N);
	/* The five that arm fire: SETs 0, 3, 13, TIMEOUT 5, RESET 10. */
	while (got < 5) {
		n = callout_read_events(self->fd, ev, ARRAY_SIZE(ev), 5000);
		ASSERT_LT(0, n) TH_LOG("%d of 5 events came", got);
		for (i = 0; i < n; i++, got++) {
			int k = ev[i].flags & CALLOUT_EV_TIMEOUT ? ev[i].arg :
				ev[i].cookie == 102 ? 10 : ev[i].cookie;

			ASSERT_GT(N, k) TH_LOG("event of cookie %llu arg %llu",
					       ev[i].cookie, ev[i].arg);
			ASSERT_EQ(0, want[k]) TH_LOG("an event of op %d", k);
			seen[k]++;
			if (op[k].op == CALLOUT_OP_SET)
				EXPECT_EQ(op[k].handle, ev[i].handle);
			EXPECT_LE(before + 20 * MS, ev[i].expires_ns);
		}
	}
	EXPECT_EQ(1, seen[0]);
	EXPECT_EQ(1, seen[3]);
	EXPECT_EQ(1, seen[5]);
	EXPECT_EQ(1, seen[10]);
	EXPECT_EQ(1, seen[13]);
	EXPECT_EQ(0, callout_read_events(self->fd, ev, 1, 50));
	/* UNSET 8 and UNTIMEOUT 11 took their callouts away. */
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, far));
	EXPECT_EQ(-ENOENT, untimeout_callout(self->fd, FUNC, 7));
}

/*
 * An array that runs into a page that cannot be read (PROT_NONE), @k whole
 * operations before it, the one after starting @split bytes before the
 * page: EFAULT, done == k, those k carried out (their results and handles
 * written, their callouts armed or cancelled) and none after.
 */
static void fault_mid_array(struct __test_metadata *_metadata, int fd,
			    __u64 far, int k, int split)
{
	__u64 far_ticks = far / callout_tick;
	struct callout_op *ops;
	long long users;
	__u64 pre[3] = { 0 };
	int i, nr = k + 8;
	char *map;
	__u32 done;

	map = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + PAGE, PAGE, PROT_NONE));
	ops = (struct callout_op *)(map + PAGE - split) - k;
	/* Far callouts the batch cancels, re-arms and cancels the pair of. */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, set_callout(fd, far, 0, 1000 + i,
					 &pre[i]));
	ASSERT_EQ(0, timeout_callout(fd, FUNC, 9, far_ticks));
	for (i = 0; i < k; i++) {
		switch (i % 8) {
		case 1:
			ops[i] = op_unset(i / 8 < 1 ? pre[0] : 1ULL << 50);
			break;
		case 3:
			ops[i] = op_reset(i / 8 < 1 ? pre[1] : 1ULL << 50,
					  far, 0);
			break;
		case 5:
			ops[i] = op_untimeout(FUNC, i / 8 < 1 ? 9 : 10);
			break;
		case 7:
			ops[i] = op_timeout(FUNC, 100 + i, far_ticks);
			break;
		default:
			ops[i] = op_set(far, 0, i);
		}
	}
	if (split) {
		/* The op that straddles the pages: its first part there. */
		struct callout_op o = op_unset(pre[2]);

		memcpy(ops + k, &o, split);
	}
	users = callout_stat("user_callouts");
	EXPECT_EQ(-EFAULT, submit(fd, ops, nr, &done));
	EXPECT_EQ(k, done) {
		TH_LOG("%d whole operations before the unreadable page, done %u",
		       k, done);
	}
	/* Each of the k carried out, with its result written. */
	for (i = 0; i < k && i < (int)done; i++) {
		int want = (i % 8 == 1 || i % 8 == 3 || i % 8 == 5) && i / 8 ?
			   -ENOENT : 0;

		EXPECT_EQ(want, ops[i].result) TH_LOG("op %d of %d", i, k);
		if (ops[i].op == CALLOUT_OP_SET) {
			EXPECT_NE(JUNK_HANDLE, ops[i].handle);
			EXPECT_EQ(0, unset_callout(fd, ops[i].handle))
				TH_LOG("op %d's SET not pending", i);
		} else if (ops[i].op == CALLOUT_OP_TIMEOUT) {
			EXPECT_EQ(0, untimeout_callout(fd, FUNC, 100 + i));
		}
	}
	/* Cancelled by the batch if it got that far, else still pending. */
	EXPECT_EQ(k > 1 ? -ENOENT : 0, unset_callout(fd, pre[0]));
	EXPECT_EQ(0, unset_callout(fd, pre[1]));
	EXPECT_EQ(k > 5 ? -ENOENT : 0, untimeout_callout(fd, FUNC, 9));
	/* The straddling UNSET was not carried out. */
	EXPECT_EQ(0, unset_callout(fd, pre[2]));
	/*
	 * What the batch armed was cancelled since, and so were the four
	 * set before it: a callout armed and not reported shows here.
	 */
	if (users >= 0)
		EXPECT_EQ(users - 4, callout_stat("user_callouts"));
	munmap(map, 2 * PAGE);
}

TEST_F(sub, efault_first_op)
{
	if (setup_skipped(_metadata))
		return;
	fault_mid_array(_metadata, self->fd, self->far, 0, 0);
	fault_mid_array(_metadata, self->fd, self->far, 0, 24);
}

TEST_F(sub, efault_mid_array)
{
	static const int ks[] = { 1, 2, 5, 8, 13, 31, 64, 84 };
	unsigned int i;

	if (setup_skipped(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(ks); i++) {
		fault_mid_array(_metadata, self->fd, self->far, ks[i], 0);
		fault_mid_array(_metadata, self->fd, self->far, ks[i], 8);
		fault_mid_array(_metadata, self->fd, self->far, ks[i], 40);
	}
}

/* An array in a read-only page: EFAULT, done 0, nothing carried out. */
TEST_F(sub, efault_read_only)
{
	struct callout_op *ops;
	struct callout_event ev;
	long long users;
	__u64 h = 0;
	__u32 done;
	char *map;
	int i;

	if (setup_skipped(_metadata))
		return;
	map = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, set_callout(self->fd, 30 * MS, 0, 1, &h));
	ASSERT_EQ(0, timeout_callout(self->fd, FUNC, 1, self->far_ticks));
	ops = (struct callout_op *)map;
	ops[0] = op_set(1, 0, 2);		/* due at once */
	ops[1] = op_unset(h);
	ops[2] = op_timeout(FUNC, 2, 1);
	ops[3] = op_untimeout(FUNC, 1);
	ops[4] = op_reset(h, self->far, 0);
	ASSERT_EQ(0, mprotect(map, PAGE, PROT_READ));
	users = callout_stat("user_callouts");
	EXPECT_EQ(-EFAULT, submit(self->fd, ops, 5, &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(-EFAULT, submit(self->fd, ops + 1, 1, &done));
	EXPECT_EQ(0, done);
	for (i = 0; i < 5; i++)
		EXPECT_EQ(NOT_WRITTEN, ops[i].result);
	if (users >= 0)
		EXPECT_EQ(users, callout_stat("user_callouts"));
	/* The callout was neither cancelled nor moved: its event comes. */
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(h, ev.handle) {
		TH_LOG("event of cookie %llu flags %#x", ev.cookie, ev.flags);
	}
	EXPECT_EQ(0, untimeout_callout(self->fd, FUNC, 1));
	EXPECT_EQ(0, callout_read_events(self->fd, &ev, 1, 50));
	munmap(map, PAGE);
}

/*
 * An array whose second part is read-only: whatever done is, the operations
 * before it were carried out with their results written, and none from it
 * on (the kernel checks a chunk can be written before it carries it out).
 */
TEST_F(sub, efault_read_only_tail)
{
	enum { K = 40, N = 100 };
	struct callout_op *ops;
	long long users;
	__u32 done;
	char *map;
	int i;

	if (setup_skipped(_metadata))
		return;
	map = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ops = (struct callout_op *)(map + PAGE) - K;
	for (i = 0; i < N; i++)
		ops[i] = op_set(self->far, 0, i);
	ASSERT_EQ(0, mprotect(map + PAGE, PAGE, PROT_READ));
	users = callout_stat("user_callouts");
	EXPECT_EQ(-EFAULT, submit(self->fd, ops, N, &done));
	EXPECT_GE(K, done);
	for (i = 0; i < N; i++) {
		if (i < (int)done) {
			EXPECT_EQ(0, ops[i].result) TH_LOG("op %d, done %u", i, done);
			EXPECT_EQ(0, unset_callout(self->fd, ops[i].handle));
		} else {
			EXPECT_EQ(NOT_WRITTEN, ops[i].result)
				TH_LOG("op %d, done %u", i, done);
		}
	}
	TH_LOG("%u of the %d operations before the read-only page done", done, K);
	if (users >= 0)
		EXPECT_EQ(users, callout_stat("user_callouts"));
	munmap(map, 2 * PAGE);
}

/* An array at a kernel or non-canonical address: EFAULT, done 0. */
TEST_F(sub, efault_kernel_pointer)
{
	__u32 done;

	if (setup_skipped(_metadata))
		return;
	EXPECT_EQ(-EFAULT, submit(self->fd, (void *)0xffffffff81000000ULL, 4,
				  &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(-EFAULT, submit(self->fd, (void *)0x8000000000000000ULL, 4,
				  &done));
	EXPECT_EQ(0, done);
	EXPECT_EQ(-EFAULT, submit(self->fd, NULL, 1, &done));
	EXPECT_EQ(0, done);
}

/*
 * Batches racing the expiries of their own callouts. Each round sets a
 * batch of one-shots and TIMEOUTs due 1 to 3 ticks on from CPU 0, then,
 * from CPU 1 (on CPU 0 the tick could not run inside the call), 0 to 2.5
 * ticks later, a batch that cancels or re-arms each: UNSET, RESET an hour
 * away, RESET 20 ticks away, UNTIMEOUT. For each result:
 *
 * - UNSET 0: no event of it is ever read; ENOENT: exactly one;
 * - RESET 0: no event of the old arming, exactly one of the new (none for
 *   the far one, which a final UNSET cancels, unless the host held the
 *   test past the far time: ENOENT, and its one event); ENOENT: the old
 *   arming's, exactly once, and no new one;
 * - UNTIMEOUT 0: no event; ENOENT: exactly one.
 *
 * The new arming's due time is at least reset-start + 20 ticks, past any
 * due time of the old (set-end + 3 ticks + a tick of rounding): each event
 * says which arming it is of. None may be early. Events are read after the
 * rounds, or all along by a thread of their own (the reader then takes
 * events while the batches cancel their callouts). How many of each
 * outcome depends on the host and is only logged.
 */
struct racer {
	char kind;		/* 'u', 'r' (far), 's' (short), 't' */
	int result;		/* of the cancel batch */
	int unset;		/* of the final UNSET of a far one */
	__u64 handle, timeout;
	unsigned long long set_before, reset_before;
	int old_events, new_events;
};

#define RACE_ROUNDS	250
#define RACE_BATCH	32
#define RACE_N		(RACE_ROUNDS * RACE_BATCH)
#define RACE_EVENTS	(2 * RACE_N + 1024)	/* more than may come */

struct race_events {
	int fd;
	atomic_bool stop;
	atomic_int n;
	struct callout_event ev[RACE_EVENTS];
};

/* Read what is there into @re, waiting up to @ms: how many came. */
static int race_read(struct race_events *re, int ms)
{
	int n = atomic_load(&re->n), got;

	got = callout_read_events(re->fd, re->ev + n, RACE_EVENTS - n > 128 ? 128 :
			  RACE_EVENTS - n, ms);
	if (got > 0)
		atomic_store(&re->n, n + got);
	return got;
}

static void *race_reader(void *arg)
{
	struct race_events *re = arg;

	while (!atomic_load(&re->stop))
		race_read(re, 10);
	return NULL;
}

static void race_batches(struct __test_metadata *_metadata,
			 FIXTURE_DATA(sub) * self, bool reader)
{
	enum { B = RACE_BATCH, N = RACE_N, FN = 0x7ace };
	static struct racer rc[N];
	static struct race_events re;
	struct callout_op ops[B];
	int idx[B];
	__u64 tick = self->info.tick_ns, later = 20 * tick;
	unsigned long long before, until, last_due = 0;
	int round, i, j, n, other_cpu, bad = 0, owed = 0;
	int outcome[4][2] = { { 0 } };	/* kind, result 0 / ENOENT */
	const char *kinds = "urst";
	pthread_t th;
	__u32 done;

	memset(rc, 0, sizeof(rc));
	re.fd = self->fd;
	atomic_store(&re.n, 0);
	atomic_store(&re.stop, false);
	other_cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1;
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	if (reader)
		ASSERT_EQ(0, pthread_create(&th, NULL, race_reader, &re));
	for (round = 0; round < RACE_ROUNDS; round++) {
		struct racer *r = &rc[round * B];

		ASSERT_EQ(0, pin(0));
		for (j = 0; j < B; j++) {
			r[j].kind = kinds[(round + j) % 4];
			r[j].timeout = (1 + (round * 7 + j) % 3) * tick;
			ops[j] = r[j].kind == 't' ?
				 op_timeout(FN, round * B + j, r[j].timeout / tick) :
				 op_set(r[j].timeout, 0, round * B + j);
		}
		before = now_ns();
		ASSERT_EQ(0, submit(self->fd, ops, B, &done));
		ASSERT_EQ(B, done);
		for (j = 0; j < B; j++) {
			ASSERT_EQ(0, ops[j].result) TH_LOG("set %d", j);
			r[j].handle = ops[j].handle;
			r[j].set_before = before;
		}
		ASSERT_EQ(0, pin(other_cpu));
		until = now_ns() + (round * 37 % 100) * tick / 40;
		while (now_ns() < until)
			;
		for (j = 0; j < B; j++) {
			switch (r[j].kind) {
			case 'u':
				ops[j] = op_unset(r[j].handle);
				break;
			case 'r':
				ops[j] = op_reset(r[j].handle, self->far, 0);
				break;
			case 's':
				ops[j] = op_reset(r[j].handle, later, 0);
				break;
			default:
				ops[j] = op_untimeout(FN, round * B + j);
			}
		}
		before = now_ns();
		ASSERT_EQ(0, submit(self->fd, ops, B, &done));
		ASSERT_EQ(B, done);
		for (j = 0; j < B; j++) {
			ASSERT_TRUE(!ops[j].result || ops[j].result == -ENOENT)
				TH_LOG("%c: %d", r[j].kind, ops[j].result);
			r[j].result = ops[j].result;
			r[j].reset_before = before;
			owed += !!r[j].result + (r[j].kind == 's' && !r[j].result);
			outcome[strchr(kinds, r[j].kind) - kinds][!!r[j].result]++;
		}
		last_due = now_ns() + later;
	}

	/*
	 * The far RESETs left their callouts pending: UNSET them. A host
	 * that held the test past their new due time (only simple's wheel
	 * holds less than an hour) makes it ENOENT: then their one event of
	 * the new arming must come.
	 */
	for (i = 0, n = 0; i < N; i++) {
		if (rc[i].kind == 'r' && !rc[i].result) {
			idx[n] = i;
			ops[n++] = op_unset(rc[i].handle);
		}
		if (n == B || (n && i == N - 1)) {
			ASSERT_EQ(0, submit(self->fd, ops, n, &done));
			ASSERT_EQ(n, done);
			for (j = 0; j < n; j++) {
				ASSERT_TRUE(!ops[j].result ||
					    ops[j].result == -ENOENT);
				rc[idx[j]].unset = ops[j].result;
				owed += !!ops[j].result;
			}
			n = 0;
		}
	}

	/*
	 * Read until every owed event came, or 10 s after the last is due;
	 * then 100 ms more, for any event that should not come.
	 */
	until = last_due + 10000 * MS;
	while (atomic_load(&re.n) < owed && now_ns() < until)
		if (reader)
			usleep(10000);
		else
			race_read(&re, 100);
	until = now_ns() + 100 * MS;
	while (now_ns() < until)
		if (reader)
			usleep(10000);
		else
			race_read(&re, 10);
	if (reader) {
		atomic_store(&re.stop, true);
		pthread_join(th, NULL);
	}

	for (i = 0, n = atomic_load(&re.n); i < n; i++) {
		const struct callout_event *ev = &re.ev[i];
		bool timeout = ev->flags & CALLOUT_EV_TIMEOUT;
		__u64 id = timeout ? ev->arg : ev->cookie;
		struct racer *r = &rc[id];
		bool new;

		ASSERT_GT(N, id) TH_LOG("an event of cookie %llu", id);
		ASSERT_EQ(timeout, r->kind == 't');
		new = (r->kind == 's' &&
		       ev->expires_ns >= r->reset_before + later) ||
		      (r->kind == 'r' &&
		       ev->expires_ns >= r->reset_before + self->far);
		EXPECT_LE(ev->expires_ns, ev->fired_ns);
		if (new) {
			r->new_events++;
		} else {
			r->old_events++;
			/* Never early. */
			EXPECT_LE(r->set_before + r->timeout, ev->expires_ns);
		}
		if (!timeout)
			EXPECT_EQ(r->handle, ev->handle);
	}
	for (i = 0; i < N; i++) {
		int want_old = !!rc[i].result;
		int want_new = (rc[i].kind == 's' && !rc[i].result) ||
			       (rc[i].kind == 'r' && rc[i].unset);

		if (rc[i].old_events == want_old && rc[i].new_events == want_new)
			continue;
		if (++bad <= 20)
			TH_LOG("%c %d: result %d (%d), %d events of the old arming, %d of the new",
			       rc[i].kind, i, rc[i].result, rc[i].unset,
			       rc[i].old_events, rc[i].new_events);
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(owed, n);
	for (i = 0; i < 4; i++)
		TH_LOG("%c: %d cancelled or re-armed first, %d found fired",
		       kinds[i], outcome[i][0], outcome[i][1]);
}

TEST_F_TIMEOUT(sub, races_expiry, 180)
{
	if (setup_skipped(_metadata))
		return;
	race_batches(_metadata, self, false);
}

/* The same, with a thread reading the events all along. */
TEST_F_TIMEOUT(sub, races_expiry_reading, 180)
{
	if (setup_skipped(_metadata))
		return;
	race_batches(_metadata, self, true);
}

/*
 * The limits need the module reloaded with small ones: first boot only
 * (the outcome does not depend on the scheme), and as it was after.
 */
FIXTURE(limit) {
	int fd;
	struct callout_info info;
};

#define PER_FILE	100

static int reload(const char *extra)
{
	const char *params = getenv("CALLOUT_PARAMS") ?: "";
	char all[512];
	int i, ret = 0;

	for (i = 0; i < 100 && callout_loaded(); i++) {
		ret = callout_unload();
		if (!ret)
			break;
		usleep(20000);
	}
	if (callout_loaded())
		return ret ? ret : -EBUSY;
	snprintf(all, sizeof(all), "%s %s", params, extra);
	return callout_load_params(all);
}

/*
 * The teardown of a fixture that reloaded the module: close its file and
 * reload callout.ko with $CALLOUT_PARAMS alone, as it was.
 */
static void reload_teardown(struct __test_metadata *_metadata, int fd)
{
	int ret;

	if (fd >= 0)
		close(fd);
	if (setup_skipped(_metadata))
		return;
	ret = reload("");
	EXPECT_EQ(0, ret) TH_LOG("reload with $CALLOUT_PARAMS: %s", strerror(-ret));
}

FIXTURE_SETUP(limit)
{
	const char *why;
	char extra[64];
	int ret;

	self->fd = -1;
	why = callout_reload_skip();
	if (why)
		SKIP(return, "%s", why);
	snprintf(extra, sizeof(extra), "max_per_file=%d", PER_FILE);
	ret = reload(extra);
	ASSERT_EQ(0, ret) TH_LOG("reload with %s: %s", extra, strerror(-ret));
	self->fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_INFO, &self->info));
	ASSERT_EQ(PER_FILE, self->info.max_per_file);
}

FIXTURE_TEARDOWN(limit)
{
	reload_teardown(_metadata, self->fd);
}

/*
 * SET and TIMEOUT past max_per_file: ENOSPC each, the batch goes on, and
 * UNSET, RESET and UNTIMEOUT work at the limit, an UNSET early in a batch
 * making room for a SET later in it.
 */
TEST_F(limit, enospc_per_file)
{
	enum { N = PER_FILE + 10 };
	__u64 far = 3600000 * MS, far_ticks;
	static struct callout_op op[N];
	static int want[N];
	__u64 h0, h2;
	int i;

	if (setup_skipped(_metadata))
		return;
	if (far > self->info.max_timeout_ns)
		far = self->info.max_timeout_ns;
	far_ticks = far / self->info.tick_ns;
	/* 90 SETs and 10 TIMEOUTs fill it; then each kind is refused. */
	for (i = 0; i < N; i++) {
		op[i] = i % 10 == 9 ? op_timeout(FUNC, i, far_ticks) :
			op_set(far, 0, i);
		want[i] = i < PER_FILE ? 0 : -ENOSPC;
	}
	expect_results(_metadata, self->fd, op, want, N);
	EXPECT_EQ(-ENOSPC, set_callout(self->fd, far, 0, 0, NULL));
	EXPECT_EQ(-ENOSPC, timeout_callout(self->fd, FUNC, 0, far_ticks));

	/* At the limit: RESET works, an UNSET makes room for one SET. */
	h0 = op[0].handle;
	h2 = op[2].handle;
	op[0] = op_reset(h0, far / 2, 0);
	op[1] = op_set(far, 0, 1000);
	op[2] = op_unset(h2);
	op[3] = op_set(far, 0, 1001);
	op[4] = op_set(far, 0, 1002);
	op[5] = op_untimeout(FUNC, 9);
	op[6] = op_timeout(FUNC, 1003, far_ticks);
	op[7] = op_timeout(FUNC, 1004, far_ticks);
	memcpy(want, (const int[]){ 0, -ENOSPC, 0, 0, -ENOSPC, 0, 0, -ENOSPC },
	       8 * sizeof(int));
	expect_results(_metadata, self->fd, op, want, 8);
	EXPECT_EQ(-ENOSPC, set_callout(self->fd, far, 0, 0, NULL));
}

/*
 * The scheme refusing a time: lawn with four queues a CPU (one a distinct
 * timeout), everything on CPU 0. Once the queues are in use a SET of a
 * new timeout gets ENOSPC, and so does a RESET to one, which leaves the
 * callout armed as it was; the batch goes on after both. First boot only,
 * the module reloaded as it was after.
 */
FIXTURE(lawn) {
	int fd;
};

FIXTURE_SETUP(lawn)
{
	const char *why;
	int ret;

	self->fd = -1;
	why = callout_reload_skip();
	if (why)
		SKIP(return, "%s", why);
	ret = reload("scheme=lawn lawn_ttls=4");
	ASSERT_EQ(0, ret) TH_LOG("reload with scheme=lawn: %s", strerror(-ret));
	ASSERT_EQ(0, pin(0));
	self->fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
}

FIXTURE_TEARDOWN(lawn)
{
	reload_teardown(_metadata, self->fd);
}

TEST_F(lawn, scheme_refuses)
{
	const __u64 sec = 1000 * MS;
	struct callout_op op[3];
	const int want[3] = { -ENOSPC, -ENOSPC, 0 };
	__u64 h = 0, last = 0;
	int i, ret = 0;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, set_callout(self->fd, 30 * sec, 0, 1, &h));
	/* Distinct timeouts until every queue is in use. */
	for (i = 1; i < 64; i++) {
		ret = set_callout(self->fd, 30 * sec + i * 10 * MS, 0, 1 + i,
				  &last);
		if (ret)
			break;
	}
	ASSERT_EQ(-ENOSPC, ret) TH_LOG("%d timeouts and no ENOSPC", i);
	ASSERT_LT(1, i);
	op[0] = op_set(40 * sec, 0, 100);
	op[1] = op_reset(h, 60 * sec + 5 * MS, 0);
	op[2] = op_unset(h);
	expect_results(_metadata, self->fd, op, want, 3);
	/* The refused RESET left it armed: the UNSET after it found it. */
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, h));
	EXPECT_EQ(0, unset_callout(self->fd, last));
}

TEST_HARNESS_MAIN
