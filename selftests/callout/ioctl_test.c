// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl_test - every command of /dev/callout and every error it documents,
 * expiry never early, events never lost or doubled, files isolated.
 *
 * Runs against whatever scheme the module was loaded with; make check loads
 * it once per scheme it tests.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "callout_test.h"
#include "handle_map.h"

#define MS		1000000ULL

/* A value of /sys/kernel/debug/callout/stats, or -1. */
static long long stat_value(const char *key)
{
	FILE *f = fopen("/sys/kernel/debug/callout/stats", "re");
	char line[256];
	size_t len = strlen(key);
	long long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/*
 * Counters of /sys/kernel/debug/callout/stats, all from one read of it: the
 * totals (@cpu < 0, users too) or those of CPU @cpu (users -1). 0, or -1 if
 * one is missing.
 */
struct stats_mark {
	long long pending, set, unset, expired, ticks_run, users;
};

static int stats_mark(int cpu, struct stats_mark *m)
{
	static const char *const keys[] = {
		"pending", "set", "unset", "expired", "ticks_run",
		"user_callouts",
	};
	long long *v[] = {
		&m->pending, &m->set, &m->unset, &m->expired, &m->ticks_run,
		&m->users,
	};
	FILE *f = fopen("/sys/kernel/debug/callout/stats", "re");
	char line[256], prefix[16] = "";
	size_t plen, klen;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		*v[i] = -1;
	if (!f)
		return -1;
	if (cpu >= 0)
		snprintf(prefix, sizeof(prefix), "cpu%d_", cpu);
	plen = strlen(prefix);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, prefix, plen))
			continue;
		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			klen = strlen(keys[i]);
			if (*v[i] < 0 && !strncmp(line + plen, keys[i], klen) &&
			    line[plen + klen] == ':')
				*v[i] = strtoll(line + plen + klen + 1, NULL, 10);
		}
	}
	fclose(f);
	for (i = 0; i < ARRAY_SIZE(v) - 1; i++)
		if (*v[i] < 0)
			return -1;
	return cpu < 0 && m->users < 0 ? -1 : 0;
}

/*
 * Between @a and @b, callouts were armed @set times, cancelled @unset times
 * and run @expired times, the test's own: nobody else armed or ended one (a
 * re-arming, a timeout and a reset count in set, an untimeout and a close
 * in unset).
 */
static bool stats_only(const struct stats_mark *a, const struct stats_mark *b,
		       long long set, long long unset, long long expired)
{
	return b->set - a->set == set && b->unset - a->unset == unset &&
	       b->expired - a->expired == expired;
}

static long long param(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), CALLOUT_SYSFS "/parameters/%s", name);
	return read_ull(path);
}

FIXTURE(dev) {
	int fd;
	struct callout_info info;
	__u64 far;	/* a timeout no test waits for: an hour, or the max */
};

FIXTURE_SETUP(dev)
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
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(dev, info)
{
	static const char *const names[] = {
		[CALLOUT_SCHEME_LIST] = "list",
		[CALLOUT_SCHEME_ORDERED] = "ordered",
		[CALLOUT_SCHEME_TREE] = "tree",
		[CALLOUT_SCHEME_SIMPLE] = "simple",
		[CALLOUT_SCHEME_HASHED_SORTED] = "hashed_sorted",
		[CALLOUT_SCHEME_HASHED] = "hashed",
		[CALLOUT_SCHEME_HIERARCHICAL] = "hierarchical",
		[CALLOUT_SCHEME_BSD] = "bsd",
		[CALLOUT_SCHEME_LAWN] = "lawn",
	};
	char want[64] = "", path[] = CALLOUT_SYSFS "/parameters/scheme";
	FILE *f;

	if (setup_skipped(_metadata))
		return;
	EXPECT_EQ(param("tick_ns"), (long long)self->info.tick_ns);
	EXPECT_EQ(param("max_per_file"), (long long)self->info.max_per_file);
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_CONF), self->info.nr_cpus);
	EXPECT_LE(self->info.tick_ns, self->info.max_timeout_ns);
	ASSERT_GT(ARRAY_SIZE(names), self->info.scheme);
	f = fopen(path, "re");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%63s", want));
	fclose(f);
	EXPECT_STREQ(want, names[self->info.scheme]);
}

TEST_F(dev, set_fires_once)
{
	struct callout_event ev[4];
	unsigned long long before = now_ns();
	__u64 h = 0;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, set_callout(self->fd, 20 * MS, 0, 0x1234, &h));
	EXPECT_NE(0, h);
	ASSERT_EQ(1, callout_read_events(self->fd, ev, 4, 5000));
	EXPECT_EQ(h, ev[0].handle);
	EXPECT_EQ(0x1234, ev[0].cookie);
	EXPECT_EQ(0, ev[0].arg);
	EXPECT_EQ(0, ev[0].flags);
	EXPECT_EQ(0, ev[0].overrun);
	EXPECT_LE(before + 20 * MS, ev[0].expires_ns);
	EXPECT_LE(ev[0].expires_ns, ev[0].fired_ns);
	EXPECT_LE(ev[0].fired_ns, now_ns());
	/* Once: nothing more, and it is no longer pending. */
	EXPECT_EQ(0, callout_read_events(self->fd, ev, 4, 60));
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, h));
}

TEST_F(dev, handles_unique)
{
	enum { N = 1000 };
	static __u64 h[N];
	struct handle_map given = { 0 };
	__u64 again = 0;
	int i, round;

	if (setup_skipped(_metadata))
		return;
	/* Slots are reused, handles never: each round gets N new ones. */
	for (round = 0; round < 3; round++) {
		for (i = 0; i < N; i++) {
			ASSERT_EQ(0, set_callout(self->fd, self->far, 0, i,
						 &h[i]));
			ASSERT_NE(0, h[i]);
			ASSERT_EQ(NULL, handle_map_get(&given, h[i]))
				TH_LOG("handle %llu given twice", h[i]);
			handle_map_put(&given, h[i], &given);
		}
		for (i = 0; i < N; i++)
			ASSERT_EQ(0, unset_callout(self->fd, h[i]));
		for (i = 0; i < N; i++)
			ASSERT_EQ(-ENOENT, unset_callout(self->fd, h[i]));
	}
	/* A stale handle names nothing, not the callout now in its slot. */
	ASSERT_EQ(0, set_callout(self->fd, self->far, 0, 0, &again));
	ASSERT_EQ(NULL, handle_map_get(&given, again));
	for (i = 0; i < N; i++)
		ASSERT_EQ(-ENOENT, unset_callout(self->fd, h[i]));
	EXPECT_EQ(0, unset_callout(self->fd, again));
	handle_map_free(&given);
}

TEST_F(dev, set_errors)
{
	__u64 max, tick, h = 0;
	struct callout_set *ro;
	struct callout_event ev;

	if (setup_skipped(_metadata))
		return;
	max = self->info.max_timeout_ns;
	tick = self->info.tick_ns;
	EXPECT_EQ(-EINVAL, set_callout(self->fd, 0, 0, 0, &h));
	EXPECT_EQ(-EINVAL, set_callout(self->fd, MS, tick - 1, 0, &h));
	EXPECT_EQ(-EINVAL, set_callout(self->fd, MS, 1, 0, &h));
	EXPECT_EQ(-ERANGE, set_callout(self->fd, max + 1, 0, 0, &h));
	EXPECT_EQ(-ERANGE, set_callout(self->fd, MS, max + 1, 0, &h));
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_SET, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_SET, (void *)16));
	EXPECT_EQ(EFAULT, errno);

	/* The handle cannot be written back: nothing may stay armed. */
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro->timeout_ns = 10 * MS;
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_SET, ro));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, callout_read_events(self->fd, &ev, 1, 100));
	munmap(ro, 4096);
}

/*
 * The same, racing the expiry: a callout due at once may fire between its
 * arming and the failed write-back. Still no event, for a handle the
 * caller never learned (found by fuzz_test, about 1 in 500000 calls).
 */
TEST_F(dev, set_efault_races_expiry)
{
	enum { TRIES = 5000 };
	struct callout_event ev[8];
	struct callout_set *ro;
	int i, efault = 0, got;

	if (setup_skipped(_metadata))
		return;
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro->timeout_ns = 1;
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	for (i = 0; i < TRIES; i++)
		efault += ioctl(self->fd, CALLOUT_IOC_SET, ro) == -1 &&
			  errno == EFAULT;
	EXPECT_EQ(TRIES, efault);
	got = callout_read_events(self->fd, ev, 8, 100);
	EXPECT_EQ(0, got) {
		TH_LOG("an event of handle %llu, which SET never gave",
		       ev[0].handle);
	}
	munmap(ro, 4096);
}

/*
 * A callout due a few ticks after its SET is cancelled by the next ioctl on
 * a quiet host, but a busy one may hold the test that long: then it fires
 * first, and the UNSET or RESET finds it not pending (ENOENT) with its event
 * already queued, as fired callouts are. The tests check that and try again
 * with a new one; ten lost races in a row fail.
 */
#define TRIES_TO_BEAT_EXPIRY	10

TEST_F(dev, unset)
{
	struct callout_event ev;
	__u64 h = 0;
	int tries, ret;

	if (setup_skipped(_metadata))
		return;
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, 0));
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, 12345));
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_UNSET, NULL));
	EXPECT_EQ(EFAULT, errno);
	for (tries = 0; ; tries++) {
		ASSERT_GT(TRIES_TO_BEAT_EXPIRY, tries);
		ASSERT_EQ(0, set_callout(self->fd, 30 * MS, 0, 1, &h));
		ret = unset_callout(self->fd, h);
		if (!ret)
			break;
		ASSERT_EQ(-ENOENT, ret);
		ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 0));
		EXPECT_EQ(h, ev.handle);
	}
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, h));
	/* No event for a cancelled callout, ever. */
	EXPECT_EQ(0, callout_read_events(self->fd, &ev, 1, 150));
}

TEST_F(dev, reset)
{
	struct callout_reset r = { .timeout_ns = 200 * MS };
	struct callout_event ev;
	unsigned long long at;
	int tries, ret;

	if (setup_skipped(_metadata))
		return;
	for (tries = 0; ; tries++) {
		ASSERT_GT(TRIES_TO_BEAT_EXPIRY, tries);
		ASSERT_EQ(0, set_callout(self->fd, 50 * MS, 0, 7, &r.handle));
		at = now_ns();
		ret = ioctl(self->fd, CALLOUT_IOC_RESET, &r) ? -errno : 0;
		if (!ret)
			break;
		ASSERT_EQ(-ENOENT, ret);
		ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 0));
		EXPECT_EQ(r.handle, ev.handle);
	}
	/* Pushed back: its one event comes at the new time, not the old. */
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(r.handle, ev.handle);
	EXPECT_EQ(7, ev.cookie);
	EXPECT_LE(at + 200 * MS, ev.fired_ns);
	EXPECT_LE(at + 200 * MS, ev.expires_ns);
	/* Fired: not pending. */
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_RESET, &r));
	EXPECT_EQ(ENOENT, errno);
	r.handle = 999999;
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_RESET, &r));
	EXPECT_EQ(ENOENT, errno);
	r.timeout_ns = 0;
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_RESET, &r));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, timeout_untimeout)
{
	struct callout_timeout t = { .func = 0xf00, .arg = 0xa };
	struct callout_untimeout u = { .func = 0xf00, .arg = 0xa };
	struct callout_event ev;
	unsigned long long before;

	if (setup_skipped(_metadata))
		return;
	t.ticks = (20 * MS + self->info.tick_ns - 1) / self->info.tick_ns;
	before = now_ns();
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(CALLOUT_EV_TIMEOUT, ev.flags);
	EXPECT_EQ(0, ev.handle);
	EXPECT_EQ(0xf00, ev.cookie);
	EXPECT_EQ(0xa, ev.arg);
	EXPECT_LE(before + t.ticks * self->info.tick_ns, ev.fired_ns);
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));
	EXPECT_EQ(ENOENT, errno);

	/* Pairs need not be unique: each UNTIMEOUT cancels one. */
	t.ticks = self->far / self->info.tick_ns;
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	EXPECT_EQ(0, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));
	EXPECT_EQ(0, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));
	EXPECT_EQ(ENOENT, errno);

	/* The key is the exact pair. */
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	u.arg = 0xb;
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));
	EXPECT_EQ(ENOENT, errno);
	u.arg = 0xa;
	EXPECT_EQ(0, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));

	t.ticks = 0;
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	EXPECT_EQ(EINVAL, errno);
	t.ticks = self->info.max_timeout_ns / self->info.tick_ns + 1;
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(0, callout_read_events(self->fd, &ev, 1, 50));
}

/*
 * A RESET replaces the arming: an event of the arming it replaced that is
 * still unread is stale and never read, and the one of the new arming
 * carries that arming's kind.
 */
TEST_F(dev, reset_drops_event_of_old_arming)
{
	struct callout_reset r = { 0 };
	struct callout_event ev;
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	unsigned long long at;
	int fl;

	if (setup_skipped(_metadata))
		return;
	fl = fcntl(self->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, fl | O_NONBLOCK));
	ASSERT_EQ(0, set_callout(self->fd, 10 * MS, 10 * MS, 5, &r.handle));
	/* A periodic expiry is queued, unread. */
	ASSERT_EQ(1, poll(&p, 1, 5000));
	r.timeout_ns = self->far;
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_RESET, &r));
	/* Not readable, not even by poll: the queued event is stale. */
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev))) {
		TH_LOG("read the old arming's event, flags %#x", ev.flags);
	}
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, poll(&p, 1, 0));
	/* The new arming, one-shot, fires as such. */
	r.timeout_ns = 20 * MS;
	at = now_ns();
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_RESET, &r));
	ASSERT_EQ(1, poll(&p, 1, 5000));
	ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(r.handle, ev.handle);
	EXPECT_EQ(0, ev.flags);
	EXPECT_EQ(0, ev.overrun);
	EXPECT_LE(at + 20 * MS, ev.expires_ns);
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, r.handle));
}

/* One func/arg pair holds at most 64 pending: the 65th is ENOSPC. */
TEST_F(dev, timeout_duplicates_capped)
{
	struct callout_timeout t = { .func = 0xd0d, .arg = 0x1 };
	struct callout_untimeout u = { .func = 0xd0d, .arg = 0x1 };
	int i;

	if (setup_skipped(_metadata))
		return;
	t.ticks = self->far / self->info.tick_ns;
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	EXPECT_EQ(ENOSPC, errno);
	/* Another arg is another key; one cancel makes room again. */
	t.arg = 0x2;
	EXPECT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	t.arg = 0x1;
	EXPECT_EQ(0, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));
	EXPECT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	EXPECT_EQ(ENOSPC, errno);
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));
	EXPECT_EQ(-1, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));
	EXPECT_EQ(ENOENT, errno);
}

/*
 * A fired TIMEOUT leaves the func/arg hash at once, though its event waits
 * unread: otherwise a file that lets the timeouts of one key fire and never
 * reads would grow that key's bucket without end, and every TIMEOUT and
 * UNTIMEOUT of a key there would walk it. ROUNDS x 64 (the per-key cap)
 * fired and unread must leave no chain longer than the cap plus the file's
 * free list, and every one of their events must be there to read.
 */
TEST_F(dev, fired_timeouts_leave_the_hash)
{
	enum { ROUNDS = 20, CAP = 64, SPARES = 64, N = ROUNDS * CAP };
	struct callout_timeout t = { .func = 0xf1, .arg = 0xe, .ticks = 1 };
	struct callout_untimeout u = { .func = 0xf1, .arg = 0xe };
	struct callout_event ev[64];
	__u64 deadline = now_ns() + 120000 * MS;	/* a hung test's bound */
	long long chain;
	int armed = 0, got = 0, n;

	if (setup_skipped(_metadata))
		return;
	if (stat_value("hash_longest_chain") < 0)
		SKIP(return, "no hash_longest_chain: in debugfs stats");
	/* At the cap, wait for some to fire: they make room, unread. */
	while (armed < N) {
		ASSERT_GT(deadline, now_ns()) TH_LOG("%d of %d armed", armed, N);
		if (!ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t)) {
			armed++;
			continue;
		}
		ASSERT_EQ(ENOSPC, errno);
		usleep(1000);
	}
	/* Until none of the key is pending: all fired. */
	while (!ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u) || errno != ENOENT) {
		ASSERT_GT(deadline, now_ns());
		/* One the probe cancelled has no event to read. */
		got++;
		usleep(1000);
	}
	chain = stat_value("hash_longest_chain");
	EXPECT_GE(CAP + SPARES, chain) TH_LOG("%d fired unread", N - got);
	while (got < N) {
		n = callout_read_events(self->fd, ev, 64, 10000);
		ASSERT_LT(0, n) TH_LOG("%d of %d events", got, N);
		got += n;
	}
	EXPECT_EQ(N, got);
}

/*
 * UNTIMEOUT racing the expiry of its timeout: each pair either is cancelled
 * (UNTIMEOUT 0, and its event never comes) or has fired (ENOENT, and its
 * event comes exactly once), never both and never neither. The gap between
 * TIMEOUT and UNTIMEOUT sweeps 0 to 2 ticks so that both outcomes occur;
 * how many of each depends on the host and is only logged.
 */
TEST_F(dev, untimeout_races_expiry)
{
	enum { N = 1000, FUNC = 0x7ace };
	struct callout_timeout t = { .func = FUNC, .ticks = 1 };
	struct callout_untimeout u = { .func = FUNC };
	static char state[N];	/* 'c' cancelled, 'f' fired, 'r' read */
	struct callout_event ev[64];
	long long users;
	int i, j, n, fired = 0, got = 0;
	unsigned long long until;

	if (setup_skipped(_metadata))
		return;
	users = stat_value("user_callouts");
	for (i = 0; i < N; i++) {
		t.arg = i;
		u.arg = i;
		ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
		until = now_ns() + (i * 37 % 100) * self->info.tick_ns / 50;
		while (now_ns() < until)
			;
		if (!ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u)) {
			state[i] = 'c';
			continue;
		}
		ASSERT_EQ(ENOENT, errno);
		state[i] = 'f';
		fired++;
	}
	/* Every fired one's event comes, once; no cancelled one's does. */
	while (got < fired) {
		n = callout_read_events(self->fd, ev, ARRAY_SIZE(ev), 10000);
		ASSERT_LT(0, n) TH_LOG("%d of %d events came", got, fired);
		for (j = 0; j < n; j++) {
			ASSERT_EQ(CALLOUT_EV_TIMEOUT, ev[j].flags);
			ASSERT_EQ(FUNC, ev[j].cookie);
			ASSERT_GT(N, ev[j].arg);
			ASSERT_EQ('f', state[ev[j].arg]) {
				TH_LOG("timeout %llu: event after %s",
				       ev[j].arg, state[ev[j].arg] == 'c' ?
				       "UNTIMEOUT cancelled it" : "its event");
			}
			EXPECT_LE(ev[j].expires_ns, ev[j].fired_ns);
			state[ev[j].arg] = 'r';
			got++;
		}
	}
	EXPECT_EQ(0, callout_read_events(self->fd, ev, 1, 50));
	/* Cancelled or read: nothing of them is counted any more. */
	if (users >= 0)
		EXPECT_EQ(users, stat_value("user_callouts"));
	TH_LOG("%d of %d cancelled, %d fired first", N - fired, N, fired);
}

/*
 * close() with timeouts pending and with timeouts whose events are queued
 * unread gives back every one: the count of user callouts is where it was
 * (a timeout left held would also WARN in callout_owner_destroy(), which
 * fails the VM run). The queued ones are counted until then: they hold
 * memory of the file.
 */
TEST_F(dev, close_frees_pending_and_unread_timeouts)
{
	enum { K = 200 };
	struct callout_timeout t = { .func = 0xc105e, .ticks = 1 };
	long long users, pending, left = 0;
	int fd, i;

	if (setup_skipped(_metadata))
		return;
	users = stat_value("user_callouts");
	pending = stat_value("pending");
	if (users < 0 || pending < 0)
		SKIP(return, "no %s", CALLOUT_STATS);
	fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	for (i = 0; i < K; i++) {
		t.arg = i;
		t.ticks = 1;
		ASSERT_EQ(0, ioctl(fd, CALLOUT_IOC_TIMEOUT, &t));
		t.ticks = self->far / self->info.tick_ns;
		ASSERT_EQ(0, ioctl(fd, CALLOUT_IOC_TIMEOUT, &t));
	}
	/* Wait until the near ones have fired: K left pending of 2K. */
	for (i = 0; i < 1000; i++) {
		left = stat_value("pending") - pending;
		if (left <= K)
			break;
		usleep(10000);
	}
	EXPECT_EQ(K, left);
	EXPECT_EQ(users + 2 * K, stat_value("user_callouts"));
	close(fd);
	EXPECT_EQ(users, stat_value("user_callouts"));
	EXPECT_EQ(pending, stat_value("pending"));
}

#define TRACING		"/sys/kernel/tracing"
#define KMEM		TRACING "/events/kmem"

/*
 * What the trace says of a file's timeouts: slab allocations made by
 * timeout.c (kmem_cache_alloc from a callout_to_ function) and frees to the
 * ucallout_to cache. Cleared after.
 */
static void trace_slab(int *allocs, int *frees)
{
	FILE *f = fopen(TRACING "/trace", "re");
	char line[512];

	*allocs = -1;
	*frees = -1;
	if (!f)
		return;
	*allocs = 0;
	*frees = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "kmem_cache_alloc:") &&
		    strstr(line, "call_site=callout_to_"))
			(*allocs)++;
		if (strstr(line, "kmem_cache_free:") &&
		    strstr(line, "name=ucallout_to"))
			(*frees)++;
	}
	fclose(f);
	tracefs_write(TRACING "/trace", "");
}

/*
 * A file's timeouts come from its free list once it is warm: TIMEOUT +
 * UNTIMEOUT, and TIMEOUT + expiry + read, allocate and free nothing, as
 * the slab's own tracepoints show. The free list holds 64: 100 at once
 * take the one idle callout and allocate 99, and cancelling them keeps 64
 * and frees 36. The first TIMEOUT of a file allocates: that shows the
 * trace sees what it should.
 */
TEST_F(dev, warm_timeouts_allocate_nothing)
{
	enum { PAIRS = 2000, FIRED = 20, MANY = 100, KEPT = 64 };
	struct callout_timeout t = { .func = 0x3a };
	struct callout_untimeout u = { .func = 0x3a };
	struct callout_event ev;
	int allocs, frees, i;
	char filter[64];
	long long size;

	if (setup_skipped(_metadata))
		return;
	if (geteuid() != 0)
		SKIP(return, "needs root for tracefs");
	if (access(KMEM "/kmem_cache_alloc/enable", W_OK) &&
	    (mount("tracefs", TRACING, "tracefs", 0, NULL) ||
	     access(KMEM "/kmem_cache_alloc/enable", W_OK)))
		SKIP(return, "no kmem tracepoints in %s", TRACING);
	/* No task names: see trace_test.c's setup. */
	ASSERT_EQ(0, tracefs_write(TRACING "/options/record-cmd", "0"));
	/* Only the cache's own object size: less of the rest of the system. */
	size = read_ull("/sys/kernel/slab/ucallout_to/slab_size");
	if (size > 0) {
		snprintf(filter, sizeof(filter), "bytes_alloc == %lld", size);
		ASSERT_EQ(0, tracefs_write(KMEM "/kmem_cache_alloc/filter",
					   filter));
	}
	ASSERT_EQ(0, tracefs_write(KMEM "/kmem_cache_free/filter",
				   "name == \"ucallout_to\""));
	ASSERT_EQ(0, tracefs_write(TRACING "/tracing_on", "1"));
	ASSERT_EQ(0, tracefs_write(TRACING "/trace", ""));
	ASSERT_EQ(0, tracefs_write(KMEM "/kmem_cache_alloc/enable", "1"));
	ASSERT_EQ(0, tracefs_write(KMEM "/kmem_cache_free/enable", "1"));

	t.ticks = self->far / self->info.tick_ns;
	t.arg = 1;
	u.arg = 1;
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));
	trace_slab(&allocs, &frees);
	EXPECT_EQ(1, allocs) TH_LOG("the first TIMEOUT of a file allocates");
	EXPECT_EQ(0, frees);

	for (i = 0; i < PAIRS; i++) {
		ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
		ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));
	}
	t.ticks = 1;
	for (i = 0; i < FIRED; i++) {
		ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
		ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 10000));
		ASSERT_EQ(CALLOUT_EV_TIMEOUT, ev.flags);
	}
	trace_slab(&allocs, &frees);
	EXPECT_EQ(0, allocs) TH_LOG("warm: %d allocations", allocs);
	EXPECT_EQ(0, frees) TH_LOG("warm: %d frees", frees);

	t.ticks = self->far / self->info.tick_ns;
	for (i = 0; i < MANY; i++) {
		t.arg = i;
		ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	}
	for (i = 0; i < MANY; i++) {
		u.arg = i;
		ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));
	}
	trace_slab(&allocs, &frees);
	EXPECT_EQ(MANY - 1, allocs);
	EXPECT_EQ(MANY - KEPT, frees) TH_LOG("the free list keeps %d", KEPT);

	tracefs_write(KMEM "/kmem_cache_alloc/enable", "0");
	tracefs_write(KMEM "/kmem_cache_free/enable", "0");
	tracefs_write(KMEM "/kmem_cache_alloc/filter", "0");
	tracefs_write(KMEM "/kmem_cache_free/filter", "0");
	tracefs_write(TRACING "/trace", "");
	tracefs_write(TRACING "/options/record-cmd", "1"); /* default */
}

TEST_F(dev, read_errors)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	struct callout_event ev;
	char small[sizeof(ev) - 1];
	void *nowhere;
	int fl;

	if (setup_skipped(_metadata))
		return;
	EXPECT_EQ(-1, read(self->fd, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
	fl = fcntl(self->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, fl | O_NONBLOCK));
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);

	/*
	 * A bad buffer loses nothing: the event is still there after. The
	 * buffer is a page that cannot be written.
	 */
	nowhere = mmap(NULL, getpagesize(), PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, nowhere);
	ASSERT_EQ(0, set_callout(self->fd, 10 * MS, 0, 42, NULL));
	ASSERT_EQ(1, poll(&p, 1, 5000));
	EXPECT_EQ(-1, read(self->fd, nowhere, sizeof(ev)));
	EXPECT_EQ(EFAULT, errno);
	munmap(nowhere, getpagesize());
	ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(42, ev.cookie);
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
}

/*
 * Set @n one-shots in @fd due within a tick of each other, and wait until
 * they are all queued: a callout of a second file set from the same CPU
 * (so on the same wheel) 3 ticks after them has fired and been read.
 * Return: 0, or -1 if the sentinel never came.
 */
static int all_fired(int fd, int n, __u64 *h, const struct callout_info *info)
{
	struct pollfd p = { .events = POLLIN };
	struct callout_event ev;
	__u64 t = 5 * info->tick_ns;
	int i, ret = -1;

	p.fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	if (p.fd < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (set_callout(fd, t, i ? 0 : 1000 * MS, i, &h[i]))
			goto out;
	if (set_callout(p.fd, t + 3 * info->tick_ns, 0, 0, NULL) == 0 &&
	    poll(&p, 1, 5000) == 1 && read(p.fd, &ev, sizeof(ev)) == sizeof(ev))
		ret = 0;
out:
	close(p.fd);
	return ret;
}

/*
 * A read() whose buffer faults after some records returns those, and keeps
 * the ones it made but could not copy, in order, for the next read(), which
 * returns them alone, as many as fit each time: nothing is lost and nothing
 * comes twice.
 */
TEST_F(dev, read_fault_keeps_the_rest)
{
	enum { N = 4 };
	struct callout_event ev[N], more[8], *win;
	long page = getpagesize();
	int seen[N] = { 0 }, i, j, got = 0;
	__u64 h[N];
	ssize_t n;
	char *map;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, pin(sched_getcpu()));
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + page, page, PROT_NONE));
	/* Room for two records, then a page that faults. */
	win = (struct callout_event *)(map + page) - 2;
	ASSERT_EQ(0, all_fired(self->fd, N, h, &self->info));

	n = read(self->fd, win, N * sizeof(*win));
	ASSERT_EQ(2 * sizeof(*win), n) TH_LOG("read: %s", strerror(errno));
	memcpy(ev, win, n);
	got = 2;
	/* The other two: one fits the first read, the last comes alone. */
	ASSERT_EQ(sizeof(ev[0]), read(self->fd, &ev[2], sizeof(ev[0])));
	ASSERT_EQ(sizeof(ev[0]), read(self->fd, more, sizeof(more)));
	ev[3] = more[0];
	got = 4;
	for (i = 0; i < got; i++)
		for (j = 0; j < N; j++)
			if (ev[i].handle == h[j])
				seen[j]++;
	for (j = 0; j < N; j++) {
		EXPECT_EQ(1, seen[j]) {
			TH_LOG("callout %d: %d records", j, seen[j]);
		}
	}
	EXPECT_EQ(0, unset_callout(self->fd, h[0]));
	munmap(map, 2 * page);
}

/*
 * A record kept from a faulted read() is not read once an UNSET of its
 * callout has returned 0 (a periodic one, pending), and one of a one-shot
 * that fired stays (its UNSET says ENOENT).
 */
TEST_F(dev, read_fault_then_unset)
{
	struct callout_event ev[4];
	long page = getpagesize();
	__u64 h[2];
	char *nowhere;
	int fl;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, pin(sched_getcpu()));
	nowhere = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	ASSERT_NE(MAP_FAILED, nowhere);
	ASSERT_EQ(0, all_fired(self->fd, 2, h, &self->info));
	EXPECT_EQ(-1, read(self->fd, nowhere, 2 * sizeof(ev[0])));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, unset_callout(self->fd, h[0]));
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, h[1]));
	fl = fcntl(self->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, fl | O_NONBLOCK));
	ASSERT_EQ(sizeof(ev[0]), read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(h[1], ev[0].handle);
	EXPECT_EQ(-1, read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
	munmap(nowhere, page);
}

TEST_F(dev, read_many_epoll)
{
	enum { N = 100 };
	struct callout_event ev[64];
	struct epoll_event ee = { .events = EPOLLIN };
	int got[N] = { 0 }, total = 0, ep, i, n;
	__u64 h[N], start;

	if (setup_skipped(_metadata))
		return;
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &ee));
	start = now_ns();
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, set_callout(self->fd, (20 + i % 20) * MS, 0, i,
					 &h[i]));
	}
	/*
	 * Nothing readable before the first is due: if it is readable, the
	 * first was due (a slow or busy guest may be past it by now).
	 */
	if (epoll_wait(ep, &ee, 1, 0))
		EXPECT_LE(start + 20 * MS, now_ns());
	while (total < N) {
		ASSERT_EQ(1, epoll_wait(ep, &ee, 1, 5000));
		ASSERT_TRUE(ee.events & EPOLLIN);
		n = read(self->fd, ev, sizeof(ev));
		ASSERT_LT(0, n);
		ASSERT_EQ(0, n % sizeof(ev[0]));
		for (i = 0; i < n / (int)sizeof(ev[0]); i++) {
			ASSERT_GT(N, ev[i].cookie);
			EXPECT_EQ(h[ev[i].cookie], ev[i].handle);
			got[ev[i].cookie]++;
			total++;
		}
	}
	for (i = 0, n = 0; i < N; i++) {
		if (got[i] != 1)
			TH_LOG("cookie %d delivered %d times", i, got[i]);
		n += got[i] != 1;
	}
	EXPECT_EQ(0, n);
	EXPECT_EQ(0, epoll_wait(ep, &ee, 1, 50));
	close(ep);
}

TEST_F(dev, periodic_overrun)
{
	struct callout_event ev[64];
	unsigned long long start, armed, stop, period = 10 * MS;
	unsigned long long expirations = 0;
	__u64 h = 0, last = 0;
	int i, n;

	if (setup_skipped(_metadata))
		return;
	if (period < self->info.tick_ns)
		period = self->info.tick_ns;
	start = now_ns();
	ASSERT_EQ(0, set_callout(self->fd, period, period, 5, &h));
	armed = now_ns();
	usleep(300000);
	/* Unread expiries pile up in one event's overrun, not in memory. */
	n = callout_read_events(self->fd, ev, 64, 1000);
	ASSERT_EQ(1, n);
	EXPECT_EQ(CALLOUT_EV_PERIODIC, ev[0].flags);
	EXPECT_EQ(h, ev[0].handle);
	EXPECT_LT(0, ev[0].overrun);
	expirations += 1 + ev[0].overrun;
	last = ev[0].expires_ns;
	/*
	 * Keep reading a little: each expiry's due time is a period later,
	 * one record a read() (read_once_per_callout).
	 */
	for (i = 0; i < 5; i++) {
		n = callout_read_events(self->fd, ev, 64, 1000);
		ASSERT_EQ(1, n);
		EXPECT_EQ(0, (ev[0].expires_ns - last) % period);
		EXPECT_EQ((ev[0].expires_ns - last) / period, 1 + ev[0].overrun);
		EXPECT_LE(ev[0].expires_ns, ev[0].fired_ns);
		expirations += 1 + ev[0].overrun;
		last = ev[0].expires_ns;
	}
	EXPECT_EQ(0, unset_callout(self->fd, h));
	stop = now_ns();
	/*
	 * Every due expiry counted, none early: at most what time allowed,
	 * and the k-th due no later than k periods after SET returned (not
	 * after start: a loaded host may hold the SET itself for periods).
	 */
	EXPECT_GE((stop - start) / period, expirations);
	EXPECT_LE(last, armed + expirations * period);
	EXPECT_EQ(0, callout_read_events(self->fd, ev, 64, 3 * period / MS));
	EXPECT_EQ(-ENOENT, unset_callout(self->fd, h));
}

/* A read() whose copy-out faults, held by a userfaultfd until callouts fired. */
struct stall {
	int uffd;
	int fd;			/* the /dev/callout file read from */
	long page;
	void *zero;		/* the page the fault is resolved with */
	long long fired;	/* 1 if a callout fired during the fault, or -1 */
};

/*
 * Resolve the fault once a callout of the file has fired since read() took
 * its events (poll() reports its queue non-empty again: the read took all
 * there was), or after 5 s. Without a fault in 5 s, nothing to do.
 */
static void *stall_handler(void *arg)
{
	struct stall *s = arg;
	struct pollfd p = { .fd = s->uffd, .events = POLLIN };
	struct pollfd q = { .fd = s->fd, .events = POLLIN };
	struct uffdio_copy copy = { .len = s->page };
	struct uffd_msg msg;

	if (poll(&p, 1, 5000) != 1 ||
	    read(s->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return NULL;
	s->fired = poll(&q, 1, 5000) == 1;
	copy.dst = msg.arg.pagefault.address & ~(s->page - 1);
	copy.src = (unsigned long)s->zero;
	ioctl(s->uffd, UFFDIO_COPY, &copy);
	return NULL;
}

/*
 * read() up to @max events into @ev; the copy of record @at (and any after)
 * faults until callouts have fired (*@fired of them). Return: the number of
 * records, or -errno.
 */
/* Whether this kernel lets us have a userfaultfd at all. */
static bool have_userfaultfd(void)
{
	int uffd = syscall(__NR_userfaultfd, O_CLOEXEC);

	if (uffd < 0)
		return false;
	close(uffd);
	return true;
}

static int stalled_read(int fd, struct callout_event *ev, int max, int at,
			long long *fired)
{
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_api api = { .api = UFFD_API };
	struct stall s = { .fd = fd, .page = getpagesize(), .fired = -1 };
	struct callout_event *buf;
	int ret = 0, err = 0;
	pthread_t th;
	ssize_t n;
	char *map;

	s.uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (s.uffd < 0)
		return -errno;
	map = mmap(NULL, 2 * s.page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	s.zero = calloc(1, s.page);
	if (map == MAP_FAILED || !s.zero || ioctl(s.uffd, UFFDIO_API, &api)) {
		ret = -errno;
		goto out;
	}
	/* The first page is there; the second faults, into the handler. */
	memset(map, 0, s.page);
	reg.range.start = (unsigned long)map + s.page;
	reg.range.len = s.page;
	if (ioctl(s.uffd, UFFDIO_REGISTER, &reg) ||
	    pthread_create(&th, NULL, stall_handler, &s)) {
		ret = -errno;
		goto out;
	}
	buf = (struct callout_event *)(map + s.page) - at;
	n = read(fd, buf, max * sizeof(*buf));
	err = errno;
	pthread_join(th, NULL);
	if (n < 0) {
		ret = -err;
	} else {
		memcpy(ev, buf, n);
		ret = n / sizeof(*buf);
	}
out:
	*fired = s.fired;
	if (map != MAP_FAILED)
		munmap(map, 2 * s.page);
	free(s.zero);
	close(s.uffd);
	return ret;
}

/*
 * One read() returns at most one record of a callout, even when it fires
 * again while read() copies records out: during the copy of its own record
 * (its expiry is counted in the record being copied, too late) or of a later
 * one (it is queued again behind). Its later expiries come in the next
 * read(), a whole number of periods after the record before. A copy-out held
 * by userfaultfd until the callout has fired again (read() re-arms it as it
 * takes its record) makes the overlap certain.
 */
TEST_F(dev, read_once_per_callout)
{
	struct callout_reset b = { 0 };
	struct callout_event ev[4] = { 0 }, next;
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	unsigned long long period = 10 * MS;
	long long fired;
	__u64 a = 0;
	int n;

	if (setup_skipped(_metadata))
		return;
	if (!have_userfaultfd())
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	if (period < self->info.tick_ns)
		period = self->info.tick_ns;
	ASSERT_EQ(0, set_callout(self->fd, period, period, 1, &a));

	/* It fires during the copy of its own record. */
	ASSERT_EQ(1, poll(&p, 1, 5000));
	n = stalled_read(self->fd, ev, 4, 0, &fired);
	ASSERT_EQ(1, fired) TH_LOG("the callout did not fire during the copy");
	ASSERT_EQ(1, n) {
		TH_LOG("%d records, handles %llu %llu", n, ev[0].handle,
		       ev[1].handle);
	}
	EXPECT_EQ(a, ev[0].handle);
	ASSERT_EQ(1, callout_read_events(self->fd, &next, 1, 1000));
	EXPECT_EQ(a, next.handle);
	EXPECT_EQ(0, (next.expires_ns - ev[0].expires_ns) % period);
	EXPECT_EQ((next.expires_ns - ev[0].expires_ns) / period,
		  1 + next.overrun);

	/*
	 * It fires during the copy of the record after its own: a one-shot's,
	 * queued behind it (it has fired when RESET no longer finds it).
	 */
	ASSERT_EQ(1, poll(&p, 1, 5000));
	b.timeout_ns = self->info.tick_ns;
	ASSERT_EQ(0, set_callout(self->fd, b.timeout_ns, 0, 2, &b.handle));
	while (!ioctl(self->fd, CALLOUT_IOC_RESET, &b))
		usleep(2 * self->info.tick_ns / 1000);
	ASSERT_EQ(ENOENT, errno);
	n = stalled_read(self->fd, ev, 4, 1, &fired);
	ASSERT_EQ(1, fired) TH_LOG("the callout did not fire during the copy");
	ASSERT_EQ(2, n) {
		TH_LOG("%d records, handles %llu %llu %llu", n, ev[0].handle,
		       ev[1].handle, ev[2].handle);
	}
	EXPECT_EQ(a, ev[0].handle);
	EXPECT_EQ(b.handle, ev[1].handle);
	ASSERT_EQ(1, callout_read_events(self->fd, &next, 1, 1000));
	EXPECT_EQ(a, next.handle);
	EXPECT_EQ((next.expires_ns - ev[0].expires_ns) / period,
		  1 + next.overrun);
	EXPECT_EQ(0, unset_callout(self->fd, a));
}

/*
 * The longest timeout INFO allows is accepted at any moment, also after the
 * wheel slept over empty ticks with a callout pending far away (a wheel
 * that measured from the tick it last ran at would refuse it: Scheme 4).
 */
TEST_F(dev, max_timeout_after_idle)
{
	__u64 max = self->info.max_timeout_ns, far = 0, longest = 0;
	int i;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, set_callout(self->fd, max / 2 > 400 * MS ? max / 2 : max,
				 0, 1, &far));
	for (i = 0; i < 3; i++) {
		usleep(150000);
		ASSERT_EQ(0, set_callout(self->fd, max, 0, 2, &longest));
		EXPECT_EQ(0, unset_callout(self->fd, longest));
	}
	EXPECT_EQ(-ERANGE, set_callout(self->fd, max + 1, 0, 3, NULL));
	EXPECT_EQ(0, unset_callout(self->fd, far));
}

TEST_F(dev, never_early)
{
	enum { N = 3000 };
	static unsigned long long want[N];
	static __u64 h[N];
	static int seen[N];
	struct callout_event ev[256];
	unsigned long long before;
	int i, n, total = 0, early = 0;
	__u64 t;

	if (setup_skipped(_metadata))
		return;
	srandom(getpid());
	for (i = 0; i < N; i++) {
		t = (1 + random() % 100) * MS + random() % MS;
		before = now_ns();
		ASSERT_EQ(0, set_callout(self->fd, t, 0, i, &h[i]));
		want[i] = before + t;
	}
	while (total < N) {
		n = callout_read_events(self->fd, ev, 256, 5000);
		ASSERT_LT(0, n) TH_LOG("%d of %d events arrived", total, N);
		for (i = 0; i < n; i++) {
			ASSERT_GT(N, ev[i].cookie);
			EXPECT_EQ(h[ev[i].cookie], ev[i].handle);
			seen[ev[i].cookie]++;
			early += ev[i].fired_ns < want[ev[i].cookie] ||
				 ev[i].expires_ns < want[ev[i].cookie];
			total++;
		}
	}
	EXPECT_EQ(0, early);
	for (i = 0; i < N; i++)
		ASSERT_EQ(1, seen[i]);
}

TEST_F(dev, isolation)
{
	struct callout_reset r = { .timeout_ns = 10 * MS };
	struct callout_untimeout u = { .func = 1, .arg = 2 };
	struct callout_timeout t = { .func = 1, .arg = 2 };
	struct callout_event ev;
	int other;
	__u64 h = 0;

	if (setup_skipped(_metadata))
		return;
	t.ticks = self->far / self->info.tick_ns;
	other = open(CALLOUT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, set_callout(self->fd, 30 * MS, 0, 3, &h));
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_TIMEOUT, &t));
	EXPECT_EQ(-ENOENT, unset_callout(other, h));
	r.handle = h;
	EXPECT_EQ(-1, ioctl(other, CALLOUT_IOC_RESET, &r));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ioctl(other, CALLOUT_IOC_UNTIMEOUT, &u));
	EXPECT_EQ(ENOENT, errno);
	usleep(100000);
	EXPECT_EQ(-1, read(other, &ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 1000));
	EXPECT_EQ(h, ev.handle);
	EXPECT_EQ(0, ioctl(self->fd, CALLOUT_IOC_UNTIMEOUT, &u));
	close(other);
}

TEST_F(dev, fork_shares_file)
{
	struct callout_event ev;
	int status;
	pid_t pid;

	if (setup_skipped(_metadata))
		return;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(set_callout(self->fd, 20 * MS, 0, 0xc41d, NULL) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 5000));
	EXPECT_EQ(0xc41d, ev.cookie);
}

/*
 * "pending" counts the callouts armed: N more while this file holds N, as
 * many fewer once it is closed. Another client's callouts move it too: the
 * steps are taken again while set, unset and expired show anybody's but
 * this test's (its SETs are N in set, its close N in unset).
 */
TEST_F(dev, stats_count_pending)
{
	enum { N = 500, TRIES = 5 };
	struct stats_mark m0, m1, m2;
	int i, try;

	if (setup_skipped(_metadata))
		return;
	for (try = 0; try < TRIES; try++) {
		if (self->fd < 0)
			self->fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, self->fd);
		ASSERT_EQ(0, stats_mark(-1, &m0))
			TH_LOG("no pending/set/unset/expired in debugfs stats");
		for (i = 0; i < N; i++)
			ASSERT_EQ(0, set_callout(self->fd, self->far, 0, i,
						 NULL));
		ASSERT_EQ(0, stats_mark(-1, &m1));
		close(self->fd);
		self->fd = -1;
		ASSERT_EQ(0, stats_mark(-1, &m2));
		/* Others only add to them. */
		ASSERT_LE(m0.set + N, m1.set);
		ASSERT_LE(m1.unset + N, m2.unset);
		if (stats_only(&m0, &m1, N, 0, 0) &&
		    stats_only(&m1, &m2, 0, N, 0))
			break;
	}
	if (try == TRIES)
		SKIP(return, "other clients' callouts came and went each time");
	EXPECT_EQ(m0.pending + N, m1.pending);
	EXPECT_EQ(m0.pending, m2.pending);
	EXPECT_LE(N, m1.users);
}

/*
 * With nothing pending, a CPU takes no tick from callout. On the CPU the
 * test runs on, a callout of its own fires first: the tick that runs it
 * counts in ticks_run and leaves no hrtimer armed for a callout cancelled
 * before. The test is taken again while that CPU's set, unset or expired
 * show anybody's callout there but this one.
 */
TEST_F(dev, tickless_when_idle)
{
	enum { TRIES = 5 };
	struct stats_mark m0, m1, m2;
	struct callout_event ev;
	int cpu, try;

	if (setup_skipped(_metadata))
		return;
	cpu = sched_getcpu();
	ASSERT_LE(0, cpu);
	ASSERT_EQ(0, pin(cpu));
	for (try = 0; try < TRIES; try++) {
		ASSERT_EQ(0, stats_mark(cpu, &m0))
			TH_LOG("no cpu%d_ counters in debugfs stats", cpu);
		ASSERT_EQ(0, set_callout(self->fd, 20 * MS, 0, try, NULL));
		ASSERT_EQ(1, callout_read_events(self->fd, &ev, 1, 10000));
		ASSERT_EQ(0, stats_mark(cpu, &m1));
		usleep(300000);
		ASSERT_EQ(0, stats_mark(cpu, &m2));
		if (stats_only(&m0, &m2, 1, 0, 1) && !m1.pending &&
		    !m2.pending)
			break;
	}
	if (try == TRIES)
		SKIP(return, "other clients' callouts on cpu%d each time", cpu);
	EXPECT_LT(m0.ticks_run, m1.ticks_run);
	EXPECT_EQ(m1.ticks_run, m2.ticks_run);
}

TEST_F(dev, enospc_per_file)
{
	unsigned long long max = self->info.max_per_file, i;
	__u64 h = 0;

	if (setup_skipped(_metadata))
		return;
	if (max > 200000)
		SKIP(return, "max_per_file %llu is too many to fill here", max);
	for (i = 0; i < max; i++)
		ASSERT_EQ(0, set_callout(self->fd, self->far, 0, i, &h));
	EXPECT_EQ(-ENOSPC, set_callout(self->fd, self->far, 0, i, NULL));
	ASSERT_EQ(0, unset_callout(self->fd, h));
	EXPECT_EQ(0, set_callout(self->fd, self->far, 0, i, NULL));
}

/* close() with a million pending frees them all, and quickly. */
/* Long enough for a million SETs on a loaded TCG host (15-25 s seen). */
FIXTURE(million) {
};

FIXTURE_SETUP(million)
{
}

FIXTURE_TEARDOWN(million)
{
}

TEST_F_TIMEOUT(million, close_a_million, 150)
{
	unsigned long long n = 1000000, i, t0, t1, t2, span;
	struct callout_info info;
	long long users;
	int fd;

	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	/*
	 * KASAN and kmemleak make a SET about 50x dearer, and KCSAN's
	 * watchpoints more than 150 s for a million: a tenth will do.
	 */
	if (!slab_counts_meaningful() || kcsan_kernel())
		n /= 10;
	if ((unsigned long long)param("max_per_file") < n)
		SKIP(return, "max_per_file is below a million");
	fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, CALLOUT_IOC_INFO, &info));
	/* Spread over 1 s .. 101 s, or what the scheme holds. */
	span = 100000 * MS;
	if (span > info.max_timeout_ns - 1000 * MS)
		span = info.max_timeout_ns - 1000 * MS;
	users = stat_value("user_callouts");
	t0 = now_ns();
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, set_callout(fd, 1000 * MS + span / 100000 *
					 (i % 100000), 0, i, NULL));
	t1 = now_ns();
	EXPECT_EQ(users + n, stat_value("user_callouts"));
	close(fd);
	t2 = now_ns();
	EXPECT_EQ(users, stat_value("user_callouts"));
	TH_LOG("%llu SET in %llu ms (%llu ns each), close in %llu ms", n,
	       (t1 - t0) / MS, (t1 - t0) / n, (t2 - t1) / MS);
}

/* A CPU that goes offline hands its callouts to another; none is lost. */
TEST(cpu_offline_keeps_callouts)
{
	enum { N = 500 };
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	static unsigned long long want[N];
	struct callout_event ev[128];
	cpu_set_t set;
	int fd, ctl, i, n, total = 0, early = 0;

	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	ctl = open(online, O_WRONLY | O_CLOEXEC);
	if (ctl < 0)
		SKIP(return, "cpu1 cannot go offline here");
	fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	for (i = 0; i < N; i++) {
		want[i] = now_ns() + (200 + i % 300) * MS;
		ASSERT_EQ(0, set_callout(fd, (200 + i % 300) * MS, 0, i, NULL));
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	ASSERT_EQ(1, write(ctl, "0", 1)) TH_LOG("offline: %s", strerror(errno));
	while (total < N) {
		n = callout_read_events(fd, ev, 128, 5000);
		ASSERT_LT(0, n) TH_LOG("%d of %d events arrived", total, N);
		for (i = 0; i < n; i++) {
			ASSERT_GT(N, ev[i].cookie);
			early += ev[i].fired_ns < want[ev[i].cookie];
		}
		total += n;
	}
	EXPECT_EQ(1, write(ctl, "1", 1)) TH_LOG("online: %s", strerror(errno));
	EXPECT_EQ(0, early);
	close(ctl);
	close(fd);
}

TEST_HARNESS_MAIN
