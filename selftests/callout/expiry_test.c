// SPDX-License-Identifier: GPL-2.0
/*
 * expiry_test - the way from an expiry to read(): what UNSET and RESET
 * promise about events still queued, nothing lost from either CPU, a
 * reader one record at a time, the order records come in, and the failures
 * the user is told of (a RESET the scheme refuses keeps the callout; a
 * periodic callout that cannot re-arm sends CALLOUT_EV_LAST).
 *
 * No case depends on the host's speed: periodic callouts stay pending
 * until cancelled, so a cancel cannot lose a race to them; where a
 * one-shot could fire first, the case accepts that and checks it.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "kselftest_harness.h"
#include "callout_test.h"
#include "handle_map.h"

#define MS		1000000ULL
#define SEC		(1000 * MS)

static int nr_online(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* Every record readable now, without waiting: their number or -errno. */
static int read_now(int fd, struct callout_event *ev, int max)
{
	ssize_t n = read(fd, ev, max * sizeof(*ev));

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	return n / sizeof(*ev);
}

FIXTURE(exp) {
	int fd;
	struct callout_info info;
};

FIXTURE_SETUP(exp)
{
	self->fd = -1;
	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	self->fd = open(CALLOUT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_INFO, &self->info));
}

FIXTURE_TEARDOWN(exp)
{
	if (self->fd >= 0)
		close(self->fd);
}

enum { NR_PERIODIC = 200 };

/* One thread's share of arm_periodic(): @n callouts from CPU @cpu. */
struct arm_job {
	int fd, cpu, n;
	__u64 period, cookie;
	__u64 *h;
	int ret;
};

static void *arm_thread(void *arg)
{
	struct arm_job *j = arg;
	int i;

	j->ret = pin(j->cpu);
	for (i = 0; !j->ret && i < j->n; i++)
		j->ret = set_callout(j->fd, j->period, j->period,
				     j->cookie + i, &j->h[i]);
	return NULL;
}

/* Arm @n periodic callouts, half from each of the first two CPUs. */
static int arm_periodic(int fd, __u64 period, __u64 *h, int n)
{
	struct arm_job j[2];
	pthread_t th[2];
	int cpus = nr_online() > 1 ? 2 : 1, i, ret = 0;

	for (i = 0; i < cpus; i++) {
		j[i] = (struct arm_job){
			.fd = fd, .cpu = i, .n = n / cpus, .period = period,
			.cookie = i * (n / cpus), .h = h + i * (n / cpus),
		};
		if (pthread_create(&th[i], NULL, arm_thread, &j[i]))
			return -errno;
	}
	for (i = 0; i < cpus; i++) {
		pthread_join(th[i], NULL);
		if (j[i].ret)
			ret = j[i].ret;
	}
	return ret;
}

static __u64 short_period(const struct callout_info *info)
{
	return info->tick_ns > MS ? info->tick_ns : MS;
}

/*
 * After UNSET returns 0 no event of that arming is read, also one the
 * callout queued before the cancel and nobody read: 200 periodic callouts
 * firing every millisecond on both CPUs, each with an event queued, are
 * cancelled; then nothing at all is readable, and poll() says so.
 */
TEST_F(exp, no_event_after_unset)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	static __u64 h[NR_PERIODIC];
	struct callout_event ev[64];
	int i, n, round, seen = 0;

	if (setup_skipped(_metadata))
		return;
	for (round = 0; round < 5; round++) {
		ASSERT_EQ(0, arm_periodic(self->fd, short_period(&self->info),
					  h, NR_PERIODIC));
		/* Let every one queue an event (and keep firing). */
		usleep(50000);
		for (i = 0; i < NR_PERIODIC; i++)
			ASSERT_EQ(0, unset_callout(self->fd, h[i])) {
				TH_LOG("UNSET of a live periodic callout: %s",
				       strerror(errno));
			}
		while ((n = read_now(self->fd, ev, 64)) > 0) {
			seen += n;
			for (i = 0; i < n; i++)
				TH_LOG("round %d: event of cancelled handle %llu",
				       round, ev[i].handle);
		}
		ASSERT_EQ(0, n) TH_LOG("read: %s", strerror(-n));
		EXPECT_EQ(0, poll(&p, 1, 0));
	}
	EXPECT_EQ(0, seen);
}

/*
 * After RESET returns 0 no event of the arming it replaced is read: the
 * same callouts are pushed an hour away instead; nothing is readable, and
 * they are all still pending after.
 */
TEST_F(exp, no_event_of_replaced_arming)
{
	struct callout_reset r = { .timeout_ns = 3600 * SEC };
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	static __u64 h[NR_PERIODIC];
	struct callout_event ev[64];
	int i, n, seen = 0;

	if (setup_skipped(_metadata))
		return;
	if (r.timeout_ns > self->info.max_timeout_ns)
		r.timeout_ns = self->info.max_timeout_ns;
	ASSERT_EQ(0, arm_periodic(self->fd, short_period(&self->info), h,
				  NR_PERIODIC));
	usleep(50000);
	for (i = 0; i < NR_PERIODIC; i++) {
		r.handle = h[i];
		ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_RESET, &r)) {
			TH_LOG("RESET of a live periodic callout: %s",
			       strerror(errno));
		}
	}
	while ((n = read_now(self->fd, ev, 64)) > 0) {
		seen += n;
		TH_LOG("event of handle %llu, flags %#x, after its RESET",
		       ev[0].handle, ev[0].flags);
	}
	ASSERT_EQ(0, n);
	EXPECT_EQ(0, seen);
	EXPECT_EQ(0, poll(&p, 1, 0));
	for (i = 0; i < NR_PERIODIC; i++)
		EXPECT_EQ(0, unset_callout(self->fd, h[i]));
}

enum { NR_RACE = 2000, RACE_BATCH = 16 };

/* The RESETs of reset_races_expiry(), from the CPU the SETs are not on */
struct race {
	int fd, cpu;
	__u64 far, tick;
	__u64 *h;
	int *res;
	pthread_barrier_t sets_done, resets_done;
};

static void *reset_thread(void *arg)
{
	struct race *r = arg;
	struct callout_reset rr = { .timeout_ns = r->far };
	unsigned long long end;
	int i;

	pin(r->cpu);
	for (i = 0; i < NR_RACE; i++) {
		if (!(i % RACE_BATCH)) {
			pthread_barrier_wait(&r->sets_done);
			/* 0 to 1.5 ticks after the batch's SETs. */
			end = now_ns() + (i / RACE_BATCH % 4) * r->tick / 2;
			while (now_ns() < end)
				;
		}
		rr.handle = r->h[i];
		r->res[i] = ioctl(r->fd, CALLOUT_IOC_RESET, &rr) ? -errno : 0;
		if (i % RACE_BATCH == RACE_BATCH - 1)
			pthread_barrier_wait(&r->resets_done);
	}
	return NULL;
}

/*
 * A RESET racing the one expiry of a one-shot has one of two outcomes: 0,
 * and the callout is pending at its new time (UNSET cancels it) with no
 * record of the old arming ever read; or ENOENT, and the record of the
 * expiry that won is read exactly once. Batches of 16 one-shots due one
 * tick after their SET on CPU 0 are RESET an hour away by a thread on
 * CPU 1 (there the file lock's BHs off do not hold their expiry off), 0
 * to 1.5 ticks after the batch's SETs: before, around and after the
 * expiries.
 */
TEST_F_TIMEOUT(exp, reset_races_expiry, 120)
{
	static __u64 h[NR_RACE];
	static int res[NR_RACE], got[NR_RACE];
	struct race r = { .fd = self->fd, .far = 3600 * SEC,
			  .tick = self->info.tick_ns, .h = h, .res = res };
	struct callout_event ev[64];
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	int i, n, won = 0, lost = 0, bad = 0, fired = 0;
	pthread_t th;

	if (setup_skipped(_metadata))
		return;
	if (r.far > self->info.max_timeout_ns)
		r.far = self->info.max_timeout_ns;
	r.cpu = nr_online() > 1 ? 1 : 0;
	ASSERT_EQ(0, pthread_barrier_init(&r.sets_done, NULL, 2));
	ASSERT_EQ(0, pthread_barrier_init(&r.resets_done, NULL, 2));
	ASSERT_EQ(0, pin(0));
	ASSERT_EQ(0, pthread_create(&th, NULL, reset_thread, &r));
	for (i = 0; i < NR_RACE; i++) {
		ASSERT_EQ(0, set_callout(self->fd, self->info.tick_ns, 0, i,
					 &h[i]));
		if (i % RACE_BATCH == RACE_BATCH - 1) {
			pthread_barrier_wait(&r.sets_done);
			pthread_barrier_wait(&r.resets_done);
		}
	}
	pthread_join(th, NULL);
	for (i = 0; i < NR_RACE; i++) {
		ASSERT_TRUE(res[i] == 0 || res[i] == -ENOENT)
			TH_LOG("RESET: %s", strerror(-res[i]));
		won += !res[i];
		lost += !!res[i];
	}
	/* Every ENOENT's record, and no other, within 10 s. */
	while (fired < lost && poll(&p, 1, 10000) == 1) {
		n = read_now(self->fd, ev, 64);
		ASSERT_LE(0, n);
		for (i = 0; i < n; i++, fired++) {
			ASSERT_GT(NR_RACE, ev[i].cookie);
			got[ev[i].cookie]++;
		}
	}
	/* And nothing more: no second record, none of a RESET that won. */
	usleep(50000);
	while ((n = read_now(self->fd, ev, 64)) > 0)
		for (i = 0; i < n; i++)
			if (ev[i].cookie < NR_RACE)
				got[ev[i].cookie]++;
	for (i = 0; i < NR_RACE; i++) {
		if (!res[i])
			EXPECT_EQ(0, unset_callout(self->fd, h[i]))
				TH_LOG("RESET %d returned 0, then not pending", i);
		if (got[i] != !!res[i]) {
			TH_LOG("callout %d: RESET %s, %d records", i,
			       res[i] ? "ENOENT" : "0", got[i]);
			bad++;
		}
	}
	EXPECT_EQ(0, bad);
	TH_LOG("%d RESETs won, %d lost to the expiry", won, lost);
}

enum { NR_LOST = 2000 };

struct oneshot_job {
	int fd, cpu, first, n;
	__u64 *h;
	int ret;
};

static void *oneshot_thread(void *arg)
{
	struct oneshot_job *j = arg;
	unsigned int seed = j->cpu + 1;
	int i;

	j->ret = pin(j->cpu);
	for (i = 0; !j->ret && i < j->n; i++)
		j->ret = set_callout(j->fd, (1 + rand_r(&seed) % 50) * MS, 0,
				     j->first + i, &j->h[j->first + i]);
	return NULL;
}

/*
 * Nothing lost, nothing doubled: 2000 one-shots set from threads on both
 * CPUs, due within 50 ms, while the test reads; every one is read exactly
 * once, and then nothing more comes.
 */
TEST_F(exp, nothing_lost_from_both_cpus)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	static int got[NR_LOST];
	static __u64 h[NR_LOST];
	struct callout_event ev[64];
	struct oneshot_job j[2];
	int cpus = nr_online() > 1 ? 2 : 1, total = 0, bad = 0, i, n;
	pthread_t th[2];

	if (setup_skipped(_metadata))
		return;
	for (i = 0; i < cpus; i++) {
		j[i] = (struct oneshot_job){
			.fd = self->fd, .cpu = i, .first = i * NR_LOST / cpus,
			.n = NR_LOST / cpus, .h = h,
		};
		ASSERT_EQ(0, pthread_create(&th[i], NULL, oneshot_thread,
					    &j[i]));
	}
	/* Read while they are being set and fire. */
	while (total < NR_LOST) {
		if (poll(&p, 1, 10000) != 1)
			break;
		n = read_now(self->fd, ev, 64);
		ASSERT_LE(0, n);
		for (i = 0; i < n; i++, total++) {
			ASSERT_GT(NR_LOST, ev[i].cookie);
			got[ev[i].cookie]++;
		}
	}
	for (i = 0; i < cpus; i++) {
		pthread_join(th[i], NULL);
		ASSERT_EQ(0, j[i].ret) TH_LOG("SET: %s", strerror(-j[i].ret));
	}
	for (i = 0; i < NR_LOST; i++) {
		if (got[i] != 1)
			TH_LOG("cookie %d read %d times", i, got[i]);
		bad += got[i] != 1;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(NR_LOST, total);
	usleep(100000);
	EXPECT_EQ(0, read_now(self->fd, ev, 64));
}

enum { NR_TINY = 500 };

/*
 * A reader with room for one record a read() still gets every event
 * exactly once: 500 one-shots set from one CPU, all due before the first
 * read, come one by one, in the order they fired (records come in the
 * order their callouts were queued, and one base runs its funcs one after
 * another). A periodic callout firing meanwhile adds its records, each a
 * whole number of periods after the one before.
 */
TEST_F(exp, one_record_per_read)
{
	static int got[NR_TINY];
	struct callout_event ev;
	unsigned long long last_fired = 0;
	__u64 h, period = short_period(&self->info) * 3, per = 0;
	__u64 last_per = 0, per_expiries = 0;
	int i, n, total = 0, bad = 0, backwards = 0;
	unsigned int seed = 7;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, pin(0));
	for (i = 0; i < NR_TINY; i++)
		ASSERT_EQ(0, set_callout(self->fd, (1 + rand_r(&seed) % 30) * MS,
					 0, i, &h));
	ASSERT_EQ(0, set_callout(self->fd, period, period, NR_TINY, &per));
	usleep(100000);
	while (total < NR_TINY) {
		n = read_now(self->fd, &ev, 1);
		if (!n) {
			struct pollfd p = { .fd = self->fd, .events = POLLIN };

			ASSERT_EQ(1, poll(&p, 1, 10000))
				TH_LOG("%d of %d events", total, NR_TINY);
			continue;
		}
		ASSERT_EQ(1, n);
		if (ev.cookie == NR_TINY) {
			ASSERT_EQ(per, ev.handle);
			if (last_per)
				EXPECT_EQ((ev.expires_ns - last_per) / period,
					  1 + ev.overrun);
			per_expiries += 1 + ev.overrun;
			last_per = ev.expires_ns;
			continue;
		}
		ASSERT_GT(NR_TINY, ev.cookie);
		got[ev.cookie]++;
		total++;
		/* One CPU's one-shots come in the order they fired. */
		if (ev.fired_ns < last_fired)
			backwards++;
		last_fired = ev.fired_ns;
	}
	for (i = 0; i < NR_TINY; i++)
		bad += got[i] != 1;
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, backwards) TH_LOG("records out of firing order");
	/* A host that held the guest up may not have run it yet: wait. */
	while (!per_expiries) {
		struct pollfd p = { .fd = self->fd, .events = POLLIN };

		ASSERT_EQ(1, poll(&p, 1, 10000))
			TH_LOG("the periodic callout never fired");
		if (read_now(self->fd, &ev, 1) == 1 && ev.handle == per)
			per_expiries += 1 + ev.overrun;
	}
	EXPECT_EQ(0, unset_callout(self->fd, per));
	while (read_now(self->fd, &ev, 1) == 1)
		EXPECT_EQ(per, ev.handle);
}

/*
 * The failures of the lawn scheme, which refuses a timeout whose TTL needs
 * a queue when all lawn_ttls of them are in use: the module is loaded with
 * scheme=lawn lawn_ttls=4 for these, and as it was after. Everything runs
 * on CPU 0, whose base has its own four queues.
 */
/*
 * A periodic callout whose event nobody reads does no work a period: 32768
 * of one tick each, left unread for 200 ticks, run at most one func each
 * (debugfs expired counts every func run, and nothing else runs one
 * meanwhile); their reader then finds every one of them, periodic.
 */
TEST_F_TIMEOUT(exp, unread_periodic_runs_once, 200)
{
	enum { N = 32768, CHUNK = 512, BATCH = 1024 };
	static struct callout_event ev[BATCH];
	static struct callout_op ops[CHUNK];
	static unsigned char seen[N];
	__u64 tick = self->info.tick_ns;
	struct callout_submit sub;
	long long before, after;
	int i, j, n, got = 0;

	if (setup_skipped(_metadata))
		return;
	before = callout_stat("expired");
	ASSERT_LE(0, before) TH_LOG("no expired in %s", CALLOUT_STATS);
	for (i = 0; i < N; i += CHUNK) {
		for (j = 0; j < CHUNK; j++)
			ops[j] = (struct callout_op){
				.op = CALLOUT_OP_SET, .timeout = tick,
				.period_ns = tick, .cookie = i + j,
			};
		sub = (struct callout_submit){
			.ops = (uintptr_t)ops, .nr = CHUNK,
		};
		ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_SUBMIT, &sub));
		ASSERT_EQ(CHUNK, sub.done);
		for (j = 0; j < CHUNK; j++)
			ASSERT_EQ(0, ops[j].result);
	}
	usleep(200 * tick / 1000);
	after = callout_stat("expired");
	EXPECT_GE(before + N, after) {
		TH_LOG("%lld funcs ran for %d callouts nobody read",
		       after - before, N);
	}
	/* Read again and again: those read first have come round again. */
	while (got < N) {
		n = callout_read_events(self->fd, ev, BATCH, 10000);
		ASSERT_LT(0, n) TH_LOG("%d of %d callouts read", got, N);
		for (i = 0; i < n; i++) {
			ASSERT_GT(N, ev[i].cookie);
			EXPECT_EQ(CALLOUT_EV_PERIODIC, ev[i].flags);
			EXPECT_LE(ev[i].expires_ns, ev[i].fired_ns);
			if (!seen[ev[i].cookie]++)
				got++;
		}
	}
}

#define LAWN_PARAMS	"scheme=lawn lawn_ttls=4"

/*
 * One read() takes both kinds of event in one batch and lets its
 * ucallouts go: beyond the file's 64 spares they are freed, and nothing
 * may look at them after (KASAN, under make check-debug, saw the reader
 * read a freed one's kind). Every event comes once.
 */
enum { NR_MIXED = 300, MIXED_TO_EVERY = 10 };

TEST_F(exp, mixed_batch_lets_callouts_go)
{
	static int got[NR_MIXED];
	struct callout_event ev[32];
	struct callout_timeout to = { .ticks = 1 };
	int i, k, n, total = 0, tos = 0, bad = 0;
	__u64 h;

	if (setup_skipped(_metadata))
		return;
	for (i = 0; i < NR_MIXED; i++) {
		ASSERT_EQ(0, set_callout(self->fd, MS, 0, i, &h));
		if (!(i % MIXED_TO_EVERY)) {
			to.func = 0x100 + i;
			ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &to));
		}
	}
	/* All due by now, so that reads take both kinds at once. */
	usleep(200000);
	while (total + tos < NR_MIXED + NR_MIXED / MIXED_TO_EVERY) {
		struct pollfd p = { .fd = self->fd, .events = POLLIN };

		n = read_now(self->fd, ev, 32);
		ASSERT_LE(0, n);
		if (!n) {
			ASSERT_EQ(1, poll(&p, 1, 10000))
				TH_LOG("%d + %d events", total, tos);
			continue;
		}
		for (k = 0; k < n; k++) {
			if (ev[k].flags & CALLOUT_EV_TIMEOUT) {
				tos++;
				continue;
			}
			ASSERT_GT(NR_MIXED, ev[k].cookie);
			got[ev[k].cookie]++;
			total++;
		}
	}
	for (i = 0; i < NR_MIXED; i++)
		bad += got[i] != 1;
	EXPECT_EQ(0, bad);
	EXPECT_EQ(NR_MIXED / MIXED_TO_EVERY, tos);
	EXPECT_EQ(0, read_now(self->fd, ev, 32));
}

FIXTURE(lawn) {
	int fd;
	struct callout_info info;
};

FIXTURE_SETUP(lawn)
{
	const char *why;
	int ret;

	self->fd = -1;
	why = callout_reload_skip();
	if (why)
		SKIP(return, "%s", why);
	ret = callout_unload();
	ASSERT_EQ(0, ret) TH_LOG("rmmod callout: %s", strerror(-ret));
	ret = callout_load_params(LAWN_PARAMS);
	ASSERT_EQ(0, ret) TH_LOG("insmod " LAWN_PARAMS ": %s", strerror(-ret));
	ASSERT_EQ(0, pin(0));
	self->fd = open(CALLOUT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_INFO, &self->info));
	ASSERT_EQ(CALLOUT_SCHEME_LAWN, self->info.scheme);
}

FIXTURE_TEARDOWN(lawn)
{
	int ret;

	if (self->fd >= 0)
		close(self->fd);
	if (setup_skipped(_metadata))
		return;
	if (callout_loaded())
		EXPECT_EQ(0, callout_unload());
	ret = callout_load();
	EXPECT_EQ(0, ret) TH_LOG("insmod $CALLOUT_PARAMS: %s", strerror(-ret));
}

/*
 * Fill every queue left with far callouts of distinct timeouts, until the
 * scheme refuses one: ENOSPC. Return: how many it took, or -errno.
 */
static int lawn_fill(int fd, __u64 far)
{
	int i, ret;

	for (i = 0; i < 64; i++) {
		ret = set_callout(fd, far + i * 10 * MS, 0, 1000 + i, NULL);
		if (ret == -ENOSPC)
			return i;
		if (ret)
			return ret;
	}
	return -EEXIST;
}

/* Wait up to @ms for the one record of @handle; 1, or 0 if none came. */
static int wait_record(int fd, __u64 handle, struct callout_event *ev, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned long long end = now_ns() + ms * MS;

	while (now_ns() < end) {
		if (poll(&p, 1, 100) == 1 && read_now(fd, ev, 1) == 1) {
			if (ev->handle == handle)
				return 1;
		}
	}
	return 0;
}

/*
 * A RESET the scheme refuses (ENOSPC) leaves the callout armed as it was:
 * it still fires, once, at its old time.
 */
TEST_F(lawn, refused_reset_keeps_callout)
{
	struct callout_reset r = { .timeout_ns = 60 * SEC + 5 * MS };
	struct callout_event ev;
	unsigned long long before, after;
	int filled, ret, tries;

	if (setup_skipped(_metadata))
		return;
	for (tries = 0; ; tries++) {
		/* Two seconds: room for the fill and the RESET on any host. */
		ASSERT_GT(5, tries);
		before = now_ns();
		ASSERT_EQ(0, set_callout(self->fd, 2 * SEC, 0, 7, &r.handle));
		after = now_ns();
		filled = lawn_fill(self->fd, 30 * SEC);
		ASSERT_LT(0, filled) TH_LOG("fill: %d", filled);
		ret = ioctl(self->fd, CALLOUT_IOC_RESET, &r) ? -errno : 0;
		if (ret != -ENOENT)
			break;
		/* It fired first: its event is there; start again. */
		ASSERT_EQ(1, wait_record(self->fd, r.handle, &ev, 1000));
		close(self->fd);
		self->fd = open(CALLOUT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		ASSERT_LE(0, self->fd);
	}
	ASSERT_EQ(-ENOSPC, ret) TH_LOG("RESET to a TTL with no queue left");
	ASSERT_EQ(1, wait_record(self->fd, r.handle, &ev, 10000)) {
		TH_LOG("the callout whose RESET was refused never fired");
	}
	EXPECT_EQ(7, ev.cookie);
	EXPECT_EQ(0, ev.flags);
	/* At its old time: two seconds after its SET, not a minute. */
	EXPECT_LE(before + 2 * SEC, ev.expires_ns);
	EXPECT_GE(after + 2 * SEC + self->info.tick_ns, ev.expires_ns);
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, r.handle));
}

/*
 * A periodic callout that cannot re-arm sends its last event with
 * CALLOUT_EV_LAST (and no more). Its first arming's TTL is T/tick + 1 (a
 * SET rounds up from between two ticks), its re-arm's less. A one-shot of
 * the same first TTL, set half a period later, keeps that queue in use
 * when the periodic one fires, and the fill takes every other queue. A
 * test held up for most of the period (the fill done after the first
 * expiry) tries again.
 */
TEST_F(lawn, periodic_that_cannot_rearm_says_last)
{
	struct callout_event ev;
	unsigned long long t0;
	__u64 p = 0, q = 0, period = 2 * SEC;
	int filled, tries;

	if (setup_skipped(_metadata))
		return;
	for (tries = 0; ; tries++) {
		ASSERT_GT(3, tries) TH_LOG("held up past the first expiry");
		t0 = now_ns();
		ASSERT_EQ(0, set_callout(self->fd, period, period, 1, &p));
		usleep(period / 2 / 1000);
		ASSERT_EQ(0, set_callout(self->fd, period, 0, 2, &q));
		filled = lawn_fill(self->fd, 30 * SEC);
		ASSERT_LT(0, filled) TH_LOG("fill: %d", filled);
		if (now_ns() < t0 + period - 100 * MS)
			break;
		close(self->fd);
		self->fd = open(CALLOUT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		ASSERT_LE(0, self->fd);
	}
	ASSERT_EQ(1, wait_record(self->fd, p, &ev, 10000));
	EXPECT_EQ(CALLOUT_EV_PERIODIC | CALLOUT_EV_LAST, ev.flags) {
		TH_LOG("flags %#x: the periodic callout re-armed (or said nothing)",
		       ev.flags);
	}
	EXPECT_LE(t0 + period, ev.expires_ns);
	/* Its arming ended: not pending, and nothing more comes of it. */
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, p));
	EXPECT_EQ(0, wait_record(self->fd, p, &ev, 2 * period / MS));
}

TEST_HARNESS_MAIN
