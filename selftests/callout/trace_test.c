// SPDX-License-Identifier: GPL-2.0
/*
 * trace_test - the callout tracepoints through /sys/kernel/tracing: armed
 * callouts show up as callout_set, cancelled ones as callout_unset, the rest
 * as callout_expire with their lateness, and each hrtimer run as
 * callout_tick; each event enabled alone records only itself, and with all
 * of them disabled nothing is recorded.
 *
 * The fields are checked against what the device says: every expiry read
 * from /dev/callout has one callout_expire, filed at the tick boundary at or
 * after the time asked for, no later than the expiry itself; the expired
 * counts of callout_tick add up to the callout_expire events.
 */
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <time.h>

#include "kselftest_harness.h"
#include "callout_test.h"

#define TRACING		"/sys/kernel/tracing"
#define EVENTS		TRACING "/events/callout"
#define NR_CALLOUTS	32	/* even ones expire, odd ones are cancelled */
/* A sane lateness under TCG on a busy host: far above any seen, far below a bug. */
#define LATE_MAX_NS	(5ULL * 1000 * 1000 * 1000)

/* What one of our callouts left in the trace. */
struct traced {
	unsigned long long expires_ns;	/* callout_set: the tick boundary */
	int sets, expires;
	unsigned long long late_ns;
};

/* The callout events, in the order of their enable files. */
enum { EV_SET, EV_UNSET, EV_EXPIRE, EV_TICK, NR_EVENTS };
static const char *const event_names[NR_EVENTS] = {
	"callout_set", "callout_unset", "callout_expire", "callout_tick",
};

/* The trace, parsed: our callouts in the order they were set, and totals. */
struct trace_summary {
	struct traced c[NR_CALLOUTS];
	int nr_set;			/* callout_set events of uc_fire */
	int unsets_pending;		/* callout_unset pending=1 of uc_fire */
	int expire_events;		/* callout_expire, every func */
	int our_expires;		/* callout_expire of uc_fire */
	unsigned long long expire_ns;	/* the last one's expires_ns */
	unsigned long long expire_late_ns; /* and its late_ns */
	int stray;			/* events of uc_fire we cannot place */
	int ticks;			/* callout_tick events */
	unsigned long long tick_expired, tick_examined, tick_migrations;
	unsigned int max_cpu;
	int lines;			/* every callout event */
	int of[NR_EVENTS];		/* every callout event, by event */
	int other;			/* any other line: not callout's events */
};

static struct traced *find_expires(struct trace_summary *s,
				   unsigned long long expires_ns)
{
	int i;

	for (i = 0; i < s->nr_set; i++)
		if (s->c[i].expires_ns == expires_ns)
			return &s->c[i];
	return NULL;
}

/* The value of " @key=" in @p, a number; false if there is none. */
static bool field(const char *p, const char *key, unsigned long long *val)
{
	char pat[32];
	const char *q;

	snprintf(pat, sizeof(pat), " %s=", key);
	q = strstr(p, pat);
	return q && sscanf(q + strlen(pat), "%llu", val) == 1;
}

/* Is @p's func= our device's expiry function (%ps may add " [callout]")? */
static bool ours(const char *p)
{
	const char *q = strstr(p, " func=");

	return q && !strncmp(q + 6, "uc_fire", 7) &&
	       (q[13] == ' ' || q[13] == '\n');
}

/* Parse TRACING/trace. Return: 0, or -errno if it cannot be read. */
static int read_trace(struct trace_summary *s)
{
	unsigned long long cpu, a, b, c, d;
	struct traced *t;
	char line[512];
	FILE *fp;
	char *p;
	int i;

	memset(s, 0, sizeof(*s));
	fp = fopen(TRACING "/trace", "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		if (line[0] == '#')
			continue;
		p = strstr(line, ": callout_");
		if (!p) {
			s->other++;
			continue;
		}
		s->lines++;
		p += 2;
		for (i = 0; i < NR_EVENTS; i++) {
			size_t len = strlen(event_names[i]);

			if (!strncmp(p, event_names[i], len) && p[len] == ':')
				s->of[i]++;
		}
		if (!field(p, "cpu", &cpu)) {
			s->stray++;
			continue;
		}
		s->max_cpu = cpu > s->max_cpu ? cpu : s->max_cpu;
		if (!strncmp(p, "callout_set: ", 13) &&
		    field(p, "expires_ns", &a) && field(p, "timeout_ns", &b)) {
			if (!ours(p))
				continue;
			if (s->nr_set == NR_CALLOUTS) {
				s->stray++;
				continue;
			}
			s->c[s->nr_set].expires_ns = a;
			s->c[s->nr_set++].sets++;
		} else if (!strncmp(p, "callout_unset: ", 15) &&
			   field(p, "pending", &a)) {
			/* Which one is not in the event: counted, not placed. */
			if (ours(p) && a)
				s->unsets_pending++;
		} else if (!strncmp(p, "callout_expire: ", 16) &&
			   field(p, "expires_ns", &a) && field(p, "late_ns", &b)) {
			s->expire_events++;
			if (!ours(p))
				continue;
			s->our_expires++;
			s->expire_ns = a;
			s->expire_late_ns = b;
			/* Placed by the callout_set events, if they are on. */
			if (!s->nr_set)
				continue;
			t = find_expires(s, a);
			if (!t) {
				s->stray++;
				continue;
			}
			t->expires++;
			t->late_ns = b;
		} else if (!strncmp(p, "callout_tick: ", 14) &&
			   field(p, "tick", &a) && field(p, "examined", &b) &&
			   field(p, "migrations", &c) && field(p, "expired", &d)) {
			s->ticks++;
			s->tick_examined += b;
			s->tick_migrations += c;
			s->tick_expired += d;
		} else {
			s->stray++;
		}
	}
	fclose(fp);
	return 0;
}

FIXTURE(trace) {
	int fd;
	struct callout_info info;
	bool enabled;
};

FIXTURE_SETUP(trace)
{
	self->fd = -1;
	self->enabled = false;
	if (geteuid() != 0)
		SKIP(return, "needs root for tracefs");
	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	if (access(TRACING "/events", F_OK) &&
	    mount("tracefs", TRACING, "tracefs", 0, NULL))
		SKIP(return, "no tracefs at %s: %s", TRACING, strerror(errno));

	/* The module is loaded: from here on, a missing event is a bug. */
	ASSERT_EQ(0, access(EVENTS "/callout_set/enable", W_OK)) {
		TH_LOG("%s: %s", EVENTS "/callout_set/enable", strerror(errno));
	}
	ASSERT_EQ(0, tracefs_write(TRACING "/tracing_on", "1"));
	ASSERT_EQ(0, tracefs_write(TRACING "/trace", ""));
	/*
	 * No task names: with record-cmd on, enabling an event also hooks
	 * sched_switch, and each on/off patches __schedule(), which every CPU
	 * runs; under TCG one such patch ended in an int3 Oops there (6.12-rt).
	 * The test reads callout's fields, never the task's name.
	 */
	ASSERT_EQ(0, tracefs_write(TRACING "/options/record-cmd", "0"));
	ASSERT_EQ(0, tracefs_write(EVENTS "/enable", "1"));
	self->enabled = true;

	self->fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) {
		TH_LOG("open %s: %s", CALLOUT_DEV, strerror(errno));
	}
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_INFO, &self->info));
}

FIXTURE_TEARDOWN(trace)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->enabled) {
		tracefs_write(EVENTS "/enable", "0");
		tracefs_write(TRACING "/trace", "");
		tracefs_write(TRACING "/options/record-cmd", "1"); /* default */
	}
}

/*
 * The odd callouts are cancelled, but each is due a few ticks after its SET
 * and nothing says how soon the UNSET loop gets to it: on a slow or busy
 * host one may fire first. Either outcome is checked for what it is. An
 * UNSET that finds it gone (ENOENT) must come after it fired, and then it
 * is traced and read like an even one. An UNSET that cancels it (0) means
 * its event never comes, and the trace has a callout_unset pending=1 for
 * it and no callout_expire; or, if its func had begun (the expiry raced
 * the UNSET, which then waits for it), a callout_expire that began before
 * the UNSET returned and no callout_unset pending=1.
 */
TEST_F(trace, set_unset_expire_tick)
{
	unsigned long long tick = self->info.tick_ns, late_max = 0;
	unsigned long long unset_done[NR_CALLOUTS] = { 0 };
	bool cancelled[NR_CALLOUTS] = { 0 }, got[NR_CALLOUTS] = { 0 };
	struct callout_event ev, events[NR_CALLOUTS];
	struct callout_set set[NR_CALLOUTS];
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	int i, ret, n = 0, nr_cancelled = 0, raced = 0;
	struct trace_summary s;
	struct traced *t;

	if (setup_skipped(_metadata))
		return;

	/* Due 3 ticks apart, so each is filed at a tick of its own. */
	for (i = 0; i < NR_CALLOUTS; i++) {
		memset(&set[i], 0, sizeof(set[i]));
		set[i].timeout_ns = (unsigned long long)(i + 1) * 3 * tick +
				    tick / 2;
		set[i].cookie = i;
		ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_SET, &set[i])) {
			TH_LOG("CALLOUT_IOC_SET %d: %s", i, strerror(errno));
		}
	}
	for (i = 1; i < NR_CALLOUTS; i += 2) {
		ret = ioctl(self->fd, CALLOUT_IOC_UNSET, &set[i].handle) ?
		      errno : 0;
		unset_done[i] = now_ns();
		ASSERT_TRUE(!ret || ret == ENOENT) {
			TH_LOG("CALLOUT_IOC_UNSET %d: %s", i, strerror(ret));
		}
		cancelled[i] = !ret;
		nr_cancelled += !ret;
	}
	while (n < NR_CALLOUTS - nr_cancelled) {
		ASSERT_EQ(1, poll(&pfd, 1, 10000)) {
			TH_LOG("%d of %d expiries after 10 s", n,
			       NR_CALLOUTS - nr_cancelled);
		}
		ASSERT_EQ(sizeof(ev), read(self->fd, &ev, sizeof(ev)));
		ASSERT_GT(NR_CALLOUTS, ev.cookie);
		ASSERT_FALSE(cancelled[ev.cookie]) {
			TH_LOG("callout %llu: an event after UNSET cancelled it",
			       ev.cookie);
		}
		ASSERT_FALSE(got[ev.cookie]) {
			TH_LOG("callout %llu: two events", ev.cookie);
		}
		got[ev.cookie] = true;
		events[ev.cookie] = ev;
		n++;
	}
	/*
	 * The last run's callout_tick comes after its funcs: wait for it, as
	 * long as for an expiry.
	 */
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(0, read_trace(&s));
		if (s.tick_expired >= (unsigned long long)s.expire_events)
			break;
		usleep(10000);
	}
	ASSERT_EQ(0, tracefs_write(EVENTS "/enable", "0"));
	ASSERT_EQ(0, read_trace(&s));

	TH_LOG("%d events: %d set, %d unset pending, %d expire, %d ticks",
	       s.lines, s.nr_set, s.unsets_pending, s.expire_events, s.ticks);
	TH_LOG("tick: examined %llu, expired %llu, migrated %llu",
	       s.tick_examined, s.tick_expired, s.tick_migrations);
	TH_LOG("%d of %d odd callouts cancelled before they fired",
	       nr_cancelled, NR_CALLOUTS / 2);
	EXPECT_EQ(0, s.stray);
	ASSERT_EQ(NR_CALLOUTS, s.nr_set);
	for (i = 0; i < NR_CALLOUTS; i++) {
		t = &s.c[i];
		if (cancelled[i]) {
			if (!t->expires)
				continue;
			/* Its func had begun: it ran before UNSET returned. */
			raced++;
			EXPECT_EQ(1, t->expires) {
				TH_LOG("callout %d: %d callout_expire", i,
				       t->expires);
			}
			EXPECT_GE(unset_done[i], t->expires_ns + t->late_ns) {
				TH_LOG("callout %d was cancelled but expired", i);
			}
			continue;
		}
		ev = events[i];
		ASSERT_EQ(1, t->expires) {
			TH_LOG("callout %d: %d callout_expire", i, t->expires);
		}
		/* UNSET gave ENOENT: it had fired by then. */
		if (i % 2) {
			EXPECT_GE(unset_done[i], ev.fired_ns) {
				TH_LOG("callout %d: UNSET gave ENOENT before it fired",
				       i);
			}
		}
		/* Filed at the first tick boundary at or after the time asked. */
		EXPECT_LE(ev.expires_ns, t->expires_ns);
		EXPECT_GT(ev.expires_ns + tick, t->expires_ns);
		EXPECT_EQ(0, t->expires_ns % tick);
		/* Lateness: measured before the func, which took fired_ns. */
		EXPECT_LE(t->expires_ns + t->late_ns, ev.fired_ns) {
			TH_LOG("callout %d: due %llu + late %llu > fired %llu",
			       i, t->expires_ns, t->late_ns,
			       (unsigned long long)ev.fired_ns);
		}
		EXPECT_GT(LATE_MAX_NS, t->late_ns);
		late_max = t->late_ns > late_max ? t->late_ns : late_max;
	}
	TH_LOG("largest lateness %llu ns", late_max);
	/* One callout_unset pending=1 for each cancelled before its func. */
	EXPECT_EQ(nr_cancelled - raced, s.unsets_pending);

	/* Every func ran in a tick that counted it. */
	EXPECT_LE(1, s.ticks);
	EXPECT_EQ((unsigned long long)s.expire_events, s.tick_expired);
	EXPECT_GT(self->info.nr_cpus, s.max_cpu);
	if (self->info.scheme != CALLOUT_SCHEME_HIERARCHICAL)
		EXPECT_EQ(0, s.tick_migrations);
}

/* Turn every callout event off but @only (NR_EVENTS: none): 0 or -errno. */
static int enable_only(int only)
{
	char path[128];
	int i, ret;

	for (i = 0; i < NR_EVENTS; i++) {
		snprintf(path, sizeof(path), EVENTS "/%s/enable", event_names[i]);
		ret = tracefs_write(path, i == only ? "1" : "0");
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The same work for every pass: a callout due in a tick, its event read
 * into @ev, and one as far as the scheme takes, cancelled while pending.
 */
static void one_pass(struct __test_metadata *_metadata, int fd,
		     const struct callout_info *info, struct callout_event *ev)
{
	struct callout_set set = { .timeout_ns = info->tick_ns, .cookie = 1 };

	ASSERT_EQ(0, ioctl(fd, CALLOUT_IOC_SET, &set));
	ASSERT_EQ(sizeof(*ev), read(fd, ev, sizeof(*ev)));
	set.timeout_ns = info->max_timeout_ns;
	set.cookie = 2;
	ASSERT_EQ(0, ioctl(fd, CALLOUT_IOC_SET, &set));
	ASSERT_EQ(0, ioctl(fd, CALLOUT_IOC_UNSET, &set.handle));
}

/* Has the trace all that a pass with only event @e enabled must leave? */
static bool pass_complete(const struct trace_summary *s, int e)
{
	switch (e) {
	case EV_SET:
		return s->nr_set >= 2;
	case EV_UNSET:
		return s->unsets_pending >= 1;
	case EV_EXPIRE:
		return s->our_expires >= 1;
	default:
		return s->tick_expired >= 1;
	}
}

/*
 * Each event enabled alone records itself and nothing else, through
 * callout's own call sites (callout_set's is guarded by its own
 * trace_callout_set_enabled()), with fields that agree with what the device
 * says; with all of them off, the same work records nothing at all, not
 * even a line that is not a callout event (a trace_printk() left behind).
 */
TEST_F(trace, each_event_alone)
{
	unsigned long long tick = self->info.tick_ns;
	struct callout_event ev;
	struct trace_summary s;
	int e, i;

	if (setup_skipped(_metadata))
		return;

	for (e = 0; e <= NR_EVENTS; e++) {
		ASSERT_EQ(0, enable_only(e));
		ASSERT_EQ(0, tracefs_write(TRACING "/trace", ""));
		one_pass(_metadata, self->fd, &self->info, &ev);
		/*
		 * The tick's event comes after its funcs: wait for what must
		 * come. Nothing can be waited for when all are off: a moment
		 * lets a wrong record show, and only a wrong one can.
		 */
		for (i = 0; i < 1000; i++) {
			ASSERT_EQ(0, read_trace(&s));
			if (e == NR_EVENTS ? i == 5 : pass_complete(&s, e))
				break;
			usleep(10000);
		}
		ASSERT_EQ(0, enable_only(NR_EVENTS));
		ASSERT_EQ(0, read_trace(&s));
		TH_LOG("%s%s: %d set, %d unset, %d expire, %d tick, %d other",
		       e < NR_EVENTS ? event_names[e] : "every event off",
		       e < NR_EVENTS ? " alone" : "", s.of[EV_SET],
		       s.of[EV_UNSET], s.of[EV_EXPIRE], s.of[EV_TICK], s.other);
		EXPECT_EQ(0, s.other);
		EXPECT_EQ(0, s.stray);
		for (i = 0; i < NR_EVENTS; i++) {
			if (i != e)
				EXPECT_EQ(0, s.of[i]) {
					TH_LOG("%s recorded with %s %s",
					       event_names[i],
					       e < NR_EVENTS ? event_names[e] :
					       "no event", "enabled");
				}
		}
		switch (e) {
		case EV_SET:
			/* Both SETs, filed at the tick at or after the time asked. */
			ASSERT_EQ(2, s.of[EV_SET]);
			ASSERT_EQ(2, s.nr_set);
			EXPECT_LE(ev.expires_ns, s.c[0].expires_ns);
			EXPECT_GT(ev.expires_ns + tick, s.c[0].expires_ns);
			EXPECT_EQ(0, s.c[0].expires_ns % tick);
			EXPECT_LT(s.c[0].expires_ns, s.c[1].expires_ns);
			break;
		case EV_UNSET:
			/* The far one's UNSET, which cancelled it. */
			EXPECT_EQ(1, s.of[EV_UNSET]);
			EXPECT_EQ(1, s.unsets_pending);
			break;
		case EV_EXPIRE:
			/* The near one: due at its tick, late by what it was. */
			ASSERT_EQ(1, s.of[EV_EXPIRE]);
			ASSERT_EQ(1, s.our_expires);
			EXPECT_LE(ev.expires_ns, s.expire_ns);
			EXPECT_GT(ev.expires_ns + tick, s.expire_ns);
			EXPECT_EQ(0, s.expire_ns % tick);
			EXPECT_LE(s.expire_ns + s.expire_late_ns, ev.fired_ns);
			break;
		case EV_TICK:
			/* The run that ran it counted it; nothing else ran. */
			EXPECT_LE(1, s.of[EV_TICK]);
			EXPECT_EQ(1, s.tick_expired);
			EXPECT_GT(self->info.nr_cpus, s.max_cpu);
			break;
		default:
			EXPECT_EQ(0, s.lines);
		}
	}
}

TEST_HARNESS_MAIN
