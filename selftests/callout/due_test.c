// SPDX-License-Identifier: GPL-2.0
/*
 * due_test - the due-time table of a /dev/callout file (mmap): deferral
 * fires at the stored tick and never earlier, the cancel mark, an earlier
 * tick, garbage, a store meant for an earlier handle of the slot, stores
 * racing the expiry, munmap() and close() while callouts fire, isolation
 * of files, fork(), MAP_PRIVATE refused.
 *
 * No case bounds how late an expiry may be: only that it is not early, that
 * it is the one the table asked for, and that it comes at all.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "callout_test.h"

#define MS		1000000ULL

FIXTURE(due) {
	int fd;
	struct callout_info info;
	__u64 *table;
	size_t len;
	__u64 far;	/* a timeout no case waits for: an hour, or the max */
};

/* One whole 64-bit load or store of the table, as the kernel reads it */
static __u64 load(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void store(__u64 *p, __u64 v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* Pages of table mapped: slots 0 .. 512 * TABLE_PAGES - 1 */
#define TABLE_PAGES	16

FIXTURE_SETUP(due)
{
	self->fd = -1;
	self->table = MAP_FAILED;
	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	self->fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_INFO, &self->info));
	self->far = 3600000 * MS;
	if (self->far > self->info.max_timeout_ns)
		self->far = self->info.max_timeout_ns;
	self->len = TABLE_PAGES * sysconf(_SC_PAGESIZE);
	self->table = mmap(NULL, self->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			   self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->table) TH_LOG("mmap: %s", strerror(errno));
}

FIXTURE_TEARDOWN(due)
{
	if (self->table != MAP_FAILED)
		munmap(self->table, self->len);
	if (self->fd >= 0)
		close(self->fd);
}

/* The tick of @ns, rounded up, as the kernel files a due time */
static __u64 tick_up(const struct callout_info *info, __u64 ns)
{
	return (ns + info->tick_ns - 1) / info->tick_ns;
}

static __u64 *entry(struct _test_data_due *self, __u64 h)
{
	return &self->table[CALLOUT_DUE_INDEX(h)];
}

/* A one-shot set: its handle and the bounds of its due time */
struct armed {
	__u64 h;
	__u64 lo_ns, hi_ns;	/* its due time is in [lo_ns, hi_ns] */
};

/* Set a one-shot @timeout from now. Return: 0 or -errno. */
static int set_at(struct _test_data_due *self, __u64 timeout, __u64 cookie,
		  struct armed *a)
{
	__u64 before = now_ns();
	int ret = set_callout(self->fd, timeout, 0, cookie, &a->h);

	a->lo_ns = before + timeout;
	a->hi_ns = now_ns() + timeout;
	return ret;
}

/*
 * Store @v in @a's entry. Return: whether the store was done before @a
 * could come due, so that its expiry must see it (a vCPU may lose its CPU
 * for tens of milliseconds anywhere: a case that needs the store seen
 * checks this, and tries again if not).
 */
static bool store_in_time(struct _test_data_due *self, const struct armed *a,
			  __u64 v)
{
	store(entry(self, a->h), v);
	return now_ns() < a->lo_ns;
}

/* Expires_ns of an expiry at its armed time */
static bool at_armed(const struct armed *a, const struct callout_event *ev)
{
	return ev->expires_ns >= a->lo_ns && ev->expires_ns <= a->hi_ns;
}

TEST_F(due, kernel_writes_the_due_tick)
{
	struct callout_reset r = { 0 };
	struct armed a;
	__u64 v, before;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, set_at(self, self->far / 2, 1, &a));
	v = load(entry(self, a.h));
	EXPECT_EQ(a.h >> 32, v >> CALLOUT_DUE_GEN_SHIFT);
	EXPECT_EQ(0, v & CALLOUT_DUE_CANCEL);
	EXPECT_LE(tick_up(&self->info, a.lo_ns) & CALLOUT_DUE_TICK_MASK,
		  v & CALLOUT_DUE_TICK_MASK);
	EXPECT_GE(tick_up(&self->info, a.hi_ns) & CALLOUT_DUE_TICK_MASK,
		  v & CALLOUT_DUE_TICK_MASK);
	r.handle = a.h;
	r.timeout_ns = self->far;
	before = now_ns();
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_RESET, &r));
	v = load(entry(self, a.h)) & CALLOUT_DUE_TICK_MASK;
	EXPECT_LE(tick_up(&self->info, before + r.timeout_ns) &
		  CALLOUT_DUE_TICK_MASK, v);
	EXPECT_GE(tick_up(&self->info, now_ns() + r.timeout_ns) &
		  CALLOUT_DUE_TICK_MASK, v);
	ASSERT_EQ(0, unset_callout(self->fd, a.h));
	/* A free slot's entry reads 0. */
	EXPECT_EQ(0, load(entry(self, a.h)));
}

TEST_F(due, deferral_fires_at_the_stored_tick)
{
	enum { N = 64 };
	struct armed a[N];
	__u64 want[N];
	bool in_time[N];
	struct callout_event ev[N];
	int i, n, got = 0, seen[N] = { 0 }, late_stores = 0;
	long long requeued;

	if (setup_skipped(_metadata))
		return;
	requeued = callout_stat("refiled");
	ASSERT_LE(0, requeued) TH_LOG("no refiled in %s", CALLOUT_STATS);
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, set_at(self, 100 * MS, i, &a[i]));
		/* 100-163 ms later than asked at first */
		want[i] = tick_up(&self->info, a[i].hi_ns) + 1 +
			  (100 + i) * MS / self->info.tick_ns;
		in_time[i] = store_in_time(self, &a[i],
					   CALLOUT_DUE(a[i].h, want[i]));
		late_stores += !in_time[i];
	}
	while (got < N) {
		n = callout_read_events(self->fd, ev, N, 5000);
		ASSERT_LT(0, n) TH_LOG("%d of %d events arrived", got, N);
		for (i = 0; i < n; i++) {
			__u64 c = ev[i].cookie;

			ASSERT_GT(N, c);
			EXPECT_EQ(a[c].h, ev[i].handle);
			if (in_time[c]) {
				EXPECT_EQ(want[c] * self->info.tick_ns,
					  ev[i].expires_ns);
			} else {
				/* Seen in time or not: one or the other */
				EXPECT_TRUE(ev[i].expires_ns ==
					    want[c] * self->info.tick_ns ||
					    at_armed(&a[c], &ev[i]));
			}
			EXPECT_LE(ev[i].expires_ns, ev[i].fired_ns);
			seen[c]++;
			got++;
		}
	}
	for (i = 0; i < N; i++)
		EXPECT_EQ(1, seen[i]);
	/*
	 * Each store in time was taken where the tick collected its callout,
	 * without running its func (the core's requeue, counted in refiled).
	 */
	EXPECT_LE(requeued + N - late_stores, callout_stat("refiled"));
	/* One-shots that fired: no longer pending. */
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, a[0].h));
	if (late_stores)
		TH_LOG("%d stores came after their callout was due", late_stores);
}

TEST_F(due, deferred_again_and_again)
{
	struct callout_event ev;
	struct armed a;
	__u64 t = 0, prev = 0;
	bool in_time = false;
	int i, try;

	if (setup_skipped(_metadata))
		return;
	/*
	 * Pushed back ten times, each store later than the last, all before
	 * the first due time; each expiry re-files it at the latest.
	 */
	for (try = 0; try < 10 && !in_time; try++) {
		ASSERT_EQ(0, set_at(self, 300 * MS, 5, &a));
		for (i = 1, in_time = true; i <= 10; i++) {
			t = tick_up(&self->info, a.hi_ns) + i;
			in_time &= store_in_time(self, &a, CALLOUT_DUE(a.h, t));
		}
		if (!in_time) {
			/* Stalled past its due time: again. */
			unset_callout(self->fd, a.h);
			while (callout_read_events(self->fd, &ev, 1, 0) > 0)
				;
		}
		prev = t;
	}
	if (!in_time)
		SKIP(return, "no store came before its due time in 10 tries");
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(a.h, ev.handle);
	EXPECT_EQ(prev * self->info.tick_ns, ev.expires_ns);
	EXPECT_LE(ev.expires_ns, ev.fired_ns);
}

/* A callout armed before its file mapped the table is deferred all the same. */
TEST_F(due, deferral_of_a_callout_armed_before_the_mapping)
{
	size_t len = sysconf(_SC_PAGESIZE);
	struct callout_event ev;
	__u64 *table, want = 0;
	bool in_time = false;
	struct armed a;
	int fd, try;

	if (setup_skipped(_metadata))
		return;
	fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, fd);
	for (try = 0; try < 10 && !in_time; try++) {
		__u64 before = now_ns();

		ASSERT_EQ(0, set_callout(fd, 200 * MS, 0, 9, &a.h));
		a.lo_ns = before + 200 * MS;
		a.hi_ns = now_ns() + 200 * MS;
		table = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			     fd, 0);
		ASSERT_NE(MAP_FAILED, table);
		want = tick_up(&self->info, a.hi_ns) + 100 * MS /
		       self->info.tick_ns;
		store(&table[CALLOUT_DUE_INDEX(a.h)], CALLOUT_DUE(a.h, want));
		in_time = now_ns() < a.lo_ns;
		munmap(table, len);
		if (!in_time) {
			unset_callout(fd, a.h);
			while (callout_read_events(fd, &ev, 1, 0) > 0)
				;
		}
	}
	if (!in_time) {
		close(fd);
		SKIP(return, "no store came before its due time in 10 tries");
	}
	ASSERT_EQ(1, callout_read_events(fd, &ev, 1, 5000));
	EXPECT_EQ(a.h, ev.handle);
	EXPECT_EQ(want * self->info.tick_ns, ev.expires_ns);
	EXPECT_LE(ev.expires_ns, ev.fired_ns);
	close(fd);
}

/*
 * Set a one-shot @timeout from now and store the cancel mark before it
 * can be due, trying again if the host stalled us past that.
 * Return: whether it was stored in time.
 */
static bool set_cancelled(struct _test_data_due *self, __u64 timeout,
			  struct armed *a)
{
	struct callout_event ev;
	int try;

	for (try = 0; try < 10; try++) {
		if (set_at(self, timeout, 1, a))
			return false;
		if (store_in_time(self, a, CALLOUT_DUE(a->h, 0) |
					   CALLOUT_DUE_CANCEL))
			return true;
		unset_callout(self->fd, a->h);
		while (callout_read_events(self->fd, &ev, 1, 0) > 0)
			;
	}
	return false;
}

/*
 * Read the file until @h's slot is reaped (its entry reads 0), at most 5 s.
 * Return: the events read meanwhile.
 */
static int read_until_reaped(struct _test_data_due *self, __u64 h, __u64 *seen_h)
{
	struct callout_event ev[16];
	__u64 end = now_ns() + 5000 * MS;
	int i, n, got = 0;

	while (load(entry(self, h)) && now_ns() < end) {
		n = callout_read_events(self->fd, ev, 16, 10);
		for (i = 0; i < n; i++)
			*seen_h += ev[i].handle == h;
		got += n > 0 ? n : 0;
	}
	return got;
}

TEST_F(due, cancel_mark_ends_without_event)
{
	struct callout_event ev;
	struct armed a;
	__u64 h2 = 0, seen = 0;

	if (setup_skipped(_metadata))
		return;
	if (!set_cancelled(self, 50 * MS, &a))
		SKIP(return, "no store came before its due time in 10 tries");
	/* The reader reaps it once its due time has passed. */
	read_until_reaped(self, a.h, &seen);
	EXPECT_EQ(0, load(entry(self, a.h)));
	EXPECT_EQ(0, seen);
	EXPECT_EQ(0, callout_read_events(self->fd, &ev, 1, 100));
	/* Not pending: nothing to cancel. */
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, a.h));
	/* Its slot is free for the next SET. */
	ASSERT_EQ(0, set_callout(self->fd, self->far, 0, 2, &h2));
	EXPECT_EQ(CALLOUT_DUE_INDEX(a.h), CALLOUT_DUE_INDEX(h2));
	EXPECT_EQ((a.h >> 32) + 1, h2 >> 32);
}

TEST_F(due, cancel_mark_ends_a_periodic)
{
	struct callout_event ev[8];
	__u64 h = 0, seen = 0;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, set_callout(self->fd, 10 * MS, 10 * MS, 3, &h));
	ASSERT_LT(0, callout_read_events(self->fd, ev, 8, 5000));
	store(entry(self, h), CALLOUT_DUE(h, 0) | CALLOUT_DUE_CANCEL);
	/* Its next expiry ends it; what fired before may still be read. */
	read_until_reaped(self, h, &seen);
	ASSERT_EQ(0, load(entry(self, h)));
	/* Ended and reaped: nothing more comes. */
	EXPECT_EQ(0, callout_read_events(self->fd, ev, 8, 200));
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, h));
}

/*
 * A periodic callout that fired and waits for its reader (unarmed) ends
 * at the read if its cancel mark was stored meanwhile: no event of it,
 * the one waiting included, and it is not pending any more.
 */
TEST_F(due, cancel_mark_ends_a_periodic_waiting_unread)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	struct callout_event ev[8];
	__u64 h = 0;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, set_callout(self->fd, 10 * MS, 10 * MS, 3, &h));
	/* Fired: its event waits, and so does it. */
	ASSERT_EQ(1, poll(&p, 1, 5000));
	store(entry(self, h), CALLOUT_DUE(h, 0) | CALLOUT_DUE_CANCEL);
	usleep(50000);
	EXPECT_EQ(0, callout_read_events(self->fd, ev, 8, 0));
	EXPECT_EQ(0, load(entry(self, h)));
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, h));
	EXPECT_EQ(0, callout_read_events(self->fd, ev, 8, 100));
}

TEST_F(due, periodic_deferred_keeps_its_period_from_there)
{
	struct callout_event ev[2];
	__u64 h = 0, t, d;
	int n;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, set_callout(self->fd, 10 * MS, 10 * MS, 4, &h));
	ASSERT_LT(0, callout_read_events(self->fd, ev, 1, 5000));
	/*
	 * Far enough ahead of every expiry this store can meet, however the
	 * host stalls: 10 s.
	 */
	t = tick_up(&self->info, now_ns() + 10000 * MS);
	store(entry(self, h), CALLOUT_DUE(h, t));
	/* Drain what fired before the kernel saw the store. */
	do {
		n = callout_read_events(self->fd, ev, 1, 15000);
		ASSERT_EQ(1, n);
	} while (ev[0].expires_ns < t * self->info.tick_ns);
	/*
	 * At the deferred tick, or a period or more on where the tick came
	 * that late: each period passed is an overrun.
	 */
	d = ev[0].expires_ns - t * self->info.tick_ns;
	EXPECT_EQ(0, d % (10 * MS));
	EXPECT_LE(d / (10 * MS), ev[0].overrun);
	EXPECT_LE(ev[0].expires_ns, ev[0].fired_ns);
	EXPECT_EQ(CALLOUT_EV_PERIODIC, ev[0].flags);
	/* The grid goes on from the deferred tick. */
	do {
		ASSERT_EQ(1, callout_read_events(self->fd, ev + 1, 1, 5000));
	} while (ev[1].expires_ns == ev[0].expires_ns);
	EXPECT_EQ(0, (ev[1].expires_ns - t * self->info.tick_ns) % (10 * MS));
	/* The table shows a due tick after the deferred one. */
	EXPECT_LT(t, load(entry(self, h)) & CALLOUT_DUE_TICK_MASK);
	EXPECT_EQ(0, unset_callout(self->fd, h));
}

TEST_F(due, earlier_tick_is_no_earlier_than_armed)
{
	struct callout_event ev;
	struct armed a;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, set_at(self, 100 * MS, 1, &a));
	store(entry(self, a.h),
	      CALLOUT_DUE(a.h, tick_up(&self->info, now_ns())));
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_TRUE(at_armed(&a, &ev));
	EXPECT_LE(ev.expires_ns, ev.fired_ns);
}

/*
 * Any 64-bit value is a time or a mark: each of these fires once, at its
 * armed time, never earlier.
 */
TEST_F(due, garbage_fires_at_the_armed_time)
{
	enum { N = 7 };
	struct armed a[N];
	__u64 v[N], now_tick, max_ticks;
	struct callout_event ev[N];
	int i, n, got = 0, seen[N] = { 0 };

	if (setup_skipped(_metadata))
		return;
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, set_at(self, 50 * MS, i, &a[i]));
	now_tick = tick_up(&self->info, now_ns());
	max_ticks = self->info.max_timeout_ns / self->info.tick_ns;
	v[0] = 0;
	v[1] = ~0ULL;					/* another generation */
	v[2] = CALLOUT_DUE(a[2].h, now_tick - 1000);	/* the past */
	v[3] = CALLOUT_DUE(a[3].h, 0);
	/* Beyond max_timeout_ns from now, where the tick field reaches it */
	v[4] = CALLOUT_DUE(a[4].h, max_ticks < CALLOUT_DUE_TICK_MASK / 4 ?
			   now_tick + max_ticks + 1000 : now_tick - 1);
	/* Half the tick circle on: an earlier tick */
	v[5] = CALLOUT_DUE(a[5].h, tick_up(&self->info, a[5].hi_ns) +
			   CALLOUT_DUE_TICK_MASK / 2 + 1);
	v[6] = CALLOUT_DUE(a[6].h, now_tick + 1000) ^ (1ULL << 63);
	for (i = 0; i < N; i++)
		store(entry(self, a[i].h), v[i]);
	while (got < N) {
		n = callout_read_events(self->fd, ev, N, 5000);
		ASSERT_LT(0, n) TH_LOG("%d of %d events arrived", got, N);
		for (i = 0; i < n; i++) {
			__u64 c = ev[i].cookie;

			ASSERT_GT(N, c);
			EXPECT_TRUE(at_armed(&a[c], &ev[i]))
				TH_LOG("value %d", (int)c);
			EXPECT_LE(ev[i].expires_ns, ev[i].fired_ns);
			seen[c]++;
			got++;
		}
	}
	for (i = 0; i < N; i++)
		EXPECT_EQ(1, seen[i]) TH_LOG("value %d", i);
}

TEST_F(due, store_for_an_earlier_handle_is_ignored)
{
	struct callout_event ev;
	struct armed a;
	__u64 h1 = 0;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, set_callout(self->fd, self->far, 0, 1, &h1));
	ASSERT_EQ(0, unset_callout(self->fd, h1));
	ASSERT_EQ(0, set_at(self, 30 * MS, 2, &a));
	ASSERT_EQ(CALLOUT_DUE_INDEX(h1), CALLOUT_DUE_INDEX(a.h));
	ASSERT_NE(h1, a.h);
	/* A deferral meant for h1, then a cancel meant for it */
	store(entry(self, h1),
	      CALLOUT_DUE(h1, tick_up(&self->info, a.hi_ns) + 1000));
	store(entry(self, h1), CALLOUT_DUE(h1, 0) | CALLOUT_DUE_CANCEL);
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(a.h, ev.handle);
	EXPECT_TRUE(at_armed(&a, &ev));
}

struct racer {
	__u64 *table;
	struct armed *a;
	int n;
	__u64 tick_ns;
	int stop;		/* __atomic */
	__u64 *stored;		/* per callout: the latest tick stored */
	int *times;		/* per callout: stores made */
};

/* Stores a callout gets at most: after them it is left to fire. */
#define RACE_STORES	3

/*
 * Push random callouts back by one to three ticks from now, each at most
 * RACE_STORES times (however fast this thread runs against the tick,
 * every callout then comes due), until all had theirs or told to stop.
 */
static void *race_stores(void *arg)
{
	struct racer *r = arg;
	unsigned int seed = 1;
	int i, left = r->n * RACE_STORES;
	__u64 t;

	while (left && !__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		i = rand_r(&seed) % r->n;
		if (r->times[i] == RACE_STORES)
			continue;
		t = (now_ns() + r->tick_ns - 1) / r->tick_ns + 1 +
		    rand_r(&seed) % 3;
		if (t > __atomic_load_n(&r->stored[i], __ATOMIC_RELAXED)) {
			__atomic_store_n(&r->stored[i], t, __ATOMIC_RELAXED);
			store(&r->table[CALLOUT_DUE_INDEX(r->a[i].h)],
			      CALLOUT_DUE(r->a[i].h, t));
		}
		r->times[i]++;
		left--;
	}
	return NULL;
}

/*
 * Stores racing the expiry: each callout fires exactly once, at its armed
 * time or at a tick stored for it, never before.
 */
TEST_F(due, stores_race_the_expiry)
{
	enum { N = 200 };
	static struct armed a[N];
	static __u64 stored[N];
	static int times[N];
	struct callout_event ev[N];
	struct racer r = { .table = self->table, .a = a, .n = N,
			   .tick_ns = self->info.tick_ns, .stored = stored,
			   .times = times };
	int i, n, got = 0, seen[N] = { 0 };
	pthread_t th;

	if (setup_skipped(_metadata))
		return;
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, set_at(self, (10 + i % 20) * MS, i, &a[i]));
		stored[i] = tick_up(&self->info, a[i].hi_ns);
	}
	ASSERT_EQ(0, pthread_create(&th, NULL, race_stores, &r));
	while (got < N) {
		n = callout_read_events(self->fd, ev, N, 5000);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			__u64 c = ev[i].cookie, t;

			ASSERT_GT(N, c);
			t = ev[i].expires_ns / self->info.tick_ns;
			if (!at_armed(&a[c], &ev[i])) {
				/* A stored tick: on the grid, not beyond */
				EXPECT_EQ(0, ev[i].expires_ns % self->info.tick_ns);
				EXPECT_LT(tick_up(&self->info, a[c].lo_ns), t);
				EXPECT_GE(__atomic_load_n(&stored[c],
							  __ATOMIC_RELAXED), t);
			}
			EXPECT_LE(ev[i].expires_ns, ev[i].fired_ns);
			seen[c]++;
			got++;
		}
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	ASSERT_EQ(N, got);
	for (i = 0; i < N; i++)
		EXPECT_EQ(1, seen[i]);
}

TEST_F(due, munmap_and_close_while_firing)
{
	enum { N = 2000 };
	struct callout_event ev[64];
	struct armed a;
	__u64 t;
	int i, n, got = 0;

	if (setup_skipped(_metadata))
		return;
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, set_at(self, (1 + i % 50) * MS, i, &a));
		t = tick_up(&self->info, a.hi_ns) + i % 7;
		store(entry(self, a.h), CALLOUT_DUE(a.h, t));
	}
	/* The file's pages outlive the mapping: the stores stand. */
	ASSERT_EQ(0, munmap(self->table, self->len));
	self->table = MAP_FAILED;
	while (got < N) {
		n = callout_read_events(self->fd, ev, 64, 5000);
		ASSERT_LT(0, n) TH_LOG("%d of %d events arrived", got, N);
		for (i = 0; i < n; i++)
			EXPECT_LE(ev[i].expires_ns, ev[i].fired_ns);
		got += n;
	}
	/* Map again, arm many, close while they fire and are deferred. */
	self->table = mmap(NULL, self->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			   self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->table);
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, set_at(self, (1 + i % 5) * MS, i, &a));
		store(entry(self, a.h), i % 2 ?
		      CALLOUT_DUE(a.h, tick_up(&self->info, a.hi_ns) + 1) :
		      CALLOUT_DUE(a.h, 0) | CALLOUT_DUE_CANCEL);
	}
	usleep(2000);
	/* The mapping holds the file: closing the fd is not its end. */
	close(self->fd);
	self->fd = -1;
	usleep(2000);
	EXPECT_EQ(0, munmap(self->table, self->len));
	self->table = MAP_FAILED;
}

TEST_F(due, files_do_not_share_tables)
{
	__u64 *other_table;
	struct callout_event ev;
	struct armed a;
	__u64 ho = 0;
	int other;

	if (setup_skipped(_metadata))
		return;
	other = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, other);
	other_table = mmap(NULL, self->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			   other, 0);
	ASSERT_NE(MAP_FAILED, other_table);
	ASSERT_EQ(0, set_at(self, 30 * MS, 1, &a));
	ASSERT_EQ(0, set_callout(other, self->far, 0, 2, &ho));
	/* The same handle in the other file: its own slot, its own entry */
	ASSERT_EQ(a.h, ho);
	EXPECT_NE(load(entry(self, a.h)),
		  load(&other_table[CALLOUT_DUE_INDEX(ho)]));
	store(&other_table[CALLOUT_DUE_INDEX(ho)],
	      CALLOUT_DUE(ho, 0) | CALLOUT_DUE_CANCEL);
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(a.h, ev.handle);
	EXPECT_TRUE(at_armed(&a, &ev));
	/* Its own callout, an hour away, is still pending. */
	EXPECT_EQ(0, unset_callout(other, ho));
	munmap(other_table, self->len);
	close(other);
}

TEST_F(due, fork_child_defers_the_parents_callout)
{
	struct callout_event ev;
	struct armed a;
	int status, try;
	bool in_time = false;
	__u64 t = 0;
	pid_t pid;

	if (setup_skipped(_metadata))
		return;
	for (try = 0; try < 10 && !in_time; try++) {
		ASSERT_EQ(0, set_at(self, 300 * MS, 1, &a));
		t = tick_up(&self->info, a.hi_ns) + 200 * MS / self->info.tick_ns + 1;
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			_exit(store_in_time(self, &a, CALLOUT_DUE(a.h, t)) ? 0 : 1);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		in_time = !WEXITSTATUS(status);
		if (!in_time) {
			unset_callout(self->fd, a.h);
			while (callout_read_events(self->fd, &ev, 1, 0) > 0)
				;
		}
	}
	if (!in_time)
		SKIP(return, "no store came before its due time in 10 tries");
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(t * self->info.tick_ns, ev.expires_ns);
}

TEST_F(due, map_private_refused)
{
	void *p;

	if (setup_skipped(_metadata))
		return;
	p = mmap(NULL, self->len, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, self->len, PROT_READ, MAP_PRIVATE, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* Nor can it grow. */
	p = mremap(self->table, self->len, 2 * self->len,
		   MREMAP_MAYMOVE);
	EXPECT_EQ(MAP_FAILED, p);
}

/* A page of slots the file never used is not there: SIGBUS. */
TEST_F(due, unused_page_is_sigbus)
{
	int status;
	pid_t pid;

	if (setup_skipped(_metadata))
		return;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		load(&self->table[(TABLE_PAGES - 1) * sysconf(_SC_PAGESIZE) /
				  sizeof(__u64)]);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGBUS, WTERMSIG(status));
}

/* The clock page, or MAP_FAILED */
static const struct callout_clock *map_clock(int fd, int prot, int flags)
{
	return mmap(NULL, sysconf(_SC_PAGESIZE), prot, flags, fd,
		    CALLOUT_MMAP_CLOCK);
}

/* CLOCK_MONOTONIC_COARSE, and its resolution (a jiffy), in ns */
static __u64 coarse_ns(__u64 *jiffy)
{
	struct timespec ts;

	if (jiffy) {
		clock_getres(CLOCK_MONOTONIC_COARSE, &ts);
		*jiffy = ts.tv_sec * 1000 * MS + ts.tv_nsec;
	}
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec * 1000 * MS + ts.tv_nsec;
}

/*
 * The clock page is read-only, shared only, one page, and never to be
 * made writable.
 */
TEST_F(due, clock_page_is_read_only)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	const struct callout_clock *c;
	void *p;

	if (setup_skipped(_metadata))
		return;
	c = map_clock(self->fd, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, c) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(self->info.tick_ns, c->tick_ns);
	EXPECT_NE(0, c->earliest_tick);
	EXPECT_EQ(-1, mprotect((void *)c, pg, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(MAP_FAILED, mremap((void *)c, pg, 2 * pg, MREMAP_MAYMOVE));
	munmap((void *)c, pg);
	EXPECT_EQ(MAP_FAILED, map_clock(self->fd, PROT_READ | PROT_WRITE,
					MAP_SHARED));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(MAP_FAILED, map_clock(self->fd, PROT_READ, MAP_PRIVATE));
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 2 * pg, PROT_READ, MAP_SHARED, self->fd,
		 CALLOUT_MMAP_CLOCK);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

/*
 * Check the clock page against the coarse clock, which the kernel updates
 * in the same place: a tick no earlier than the coarse time read before
 * less a jiffy (the page is written just after the vDSO's data, so a load
 * may meet the update before), and no later than the true time after plus
 * a jiffy and two ticks (its bound, which no late tick can break).
 */
static void check_clock(struct __test_metadata *_metadata,
			const struct callout_clock *c, __u64 tick_ns)
{
	__u64 jiffy, before = coarse_ns(&jiffy), t, after;

	t = c->earliest_tick * tick_ns;
	after = now_ns();
	EXPECT_LE(before, t + jiffy) TH_LOG("%llu ns behind the coarse clock",
					    before - t);
	EXPECT_GE(after + jiffy + 2 * tick_ns, t);
}

/*
 * It keeps time: now, after a sleep, and in a second mapping made after
 * the first is gone (the kernel updates it only while it is mapped).
 */
TEST_F(due, clock_page_keeps_time)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	const struct callout_clock *c;
	__u64 first;
	int i;

	if (setup_skipped(_metadata))
		return;
	for (i = 0; i < 2; i++) {
		c = map_clock(self->fd, PROT_READ, MAP_SHARED);
		ASSERT_NE(MAP_FAILED, c) TH_LOG("mmap: %s", strerror(errno));
		check_clock(_metadata, c, self->info.tick_ns);
		first = c->earliest_tick;
		usleep(100000);
		EXPECT_LT(first, c->earliest_tick);
		check_clock(_metadata, c, self->info.tick_ns);
		munmap((void *)c, pg);
		usleep(100000);
	}
}

/*
 * A deferral by the clock page's tick fires at that tick, no earlier than
 * its delay after the coarse time read before it (less a jiffy, as above).
 */
TEST_F(due, deferral_by_the_clock_page)
{
	const struct callout_clock *c;
	struct callout_event ev;
	__u64 jiffy, before, tick;
	struct armed a;
	bool in_time;

	if (setup_skipped(_metadata))
		return;
	c = map_clock(self->fd, PROT_READ, MAP_SHARED);
	ASSERT_NE(MAP_FAILED, c) TH_LOG("mmap: %s", strerror(errno));
	ASSERT_EQ(0, set_at(self, 100 * MS, 1, &a));
	before = coarse_ns(&jiffy);
	tick = c->earliest_tick + 200 * MS / self->info.tick_ns;
	in_time = store_in_time(self, &a, CALLOUT_DUE(a.h, tick));
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(a.h, ev.handle);
	if (in_time) {
		EXPECT_EQ(tick * self->info.tick_ns, ev.expires_ns);
		EXPECT_LE(before + 200 * MS, ev.expires_ns + jiffy);
	} else {
		EXPECT_TRUE(ev.expires_ns == tick * self->info.tick_ns ||
			    at_armed(&a, &ev));
	}
	EXPECT_LE(ev.expires_ns, ev.fired_ns);
	munmap((void *)c, sysconf(_SC_PAGESIZE));
}

TEST_HARNESS_MAIN
