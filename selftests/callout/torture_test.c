// SPDX-License-Identifier: GPL-2.0
/*
 * torture_test - every /dev/callout operation at once, from every vCPU, while
 * CPUs go offline and online and debugfs is read, with every callout
 * accounted for at the end (rcutorture and locktorture in spirit).
 *
 *	$TORTURE_SECONDS	how long the storm lasts (default 20)
 *	$TORTURE_THREADS	worker threads (default two per online CPU)
 *	$TORTURE_SEED		random seed (default the clock)
 *
 * Workers issue random SET (one-shot and periodic), UNSET, RESET, TIMEOUT,
 * UNTIMEOUT, read, and close-and-reopen on NFILES files, with timeouts from
 * one tick to TMAX_NS, and CALLOUT_IOC_SUBMIT batches of 1 to SUBMIT_BATCH
 * of those operations, one in 16 of them malformed (an unknown code, flags,
 * a field it does not read: EINVAL, and nothing may come of it). Each
 * operation of a batch is held to what its single ioctl promises, within
 * the window of the whole call. A hotplug thread takes CPUs offline and online (it
 * says so and stops if there is no hotplug), a debugfs thread reads every
 * file of /sys/kernel/debug/callout in a loop, and a reader thread keeps the
 * event queues short.
 *
 * The model of a file knows, for every handle it was given, each arming
 * ("epoch": SET, then every successful RESET) with the CLOCK_MONOTONIC
 * window [before, after] of its ioctl. An event is checked against the epoch
 * in force when it fired:
 *
 * - never early: fired_ns >= expires_ns >= before + timeout, and the read
 *   that returned it ended after fired_ns;
 * - on the epoch's grid: a one-shot's expires_ns is in [before, after] +
 *   timeout; a periodic one's successive events satisfy
 *   expires_ns == previous expires_ns + (1 + overrun) * period, so the
 *   events and overruns count exactly the periods elapsed;
 * - never twice for a one-shot; never fired after an UNSET that returned 0
 *   (a one-shot cancelled by UNSET has no event at all); never for a handle
 *   the file was not given.
 *
 * Events of a handle read while an UNSET or RESET of it is in flight wait
 * until its result is known; events of a handle whose SET has not returned
 * yet wait for the SET. At the end the storm stops, every live periodic
 * callout must UNSET with 0, every one-shot and TIMEOUT not cancelled must
 * deliver its one event, and TIMEOUT pairs must balance: events + UNTIMEOUTs
 * that returned 0 == TIMEOUTs armed. Callouts of a closed file are counted as
 * closed. Any discrepancy fails the test; the counts are printed either way.
 *
 * A table thread stores into the files' due-time tables (mmap) at random
 * times: into the entry of a live callout, a tick a little later (a
 * deferral), the cancel mark, an earlier tick or another generation's
 * value. A callout it stored for ("stored") is held to less: its events
 * are never early (fired_ns >= expires_ns >= the earliest due time of its
 * armings) and a one-shot's never twice, but they need not be on the grid
 * of an arming, and it may end without one (a lazy cancel, or a deferral
 * past the end): at the end it is UNSET, and 0 or ENOENT are both right.
 * Nothing after an UNSET that returned 0, as for every callout.
 *
 * Fault mode ($CALLOUT_FAULTS=1, scripts/check-faults.sh: callout's
 * allocations and user copies fail on purpose): ENOMEM is accepted where
 * callout allocates (open, mmap, SET, TIMEOUT) and EFAULT from every call
 * that copies to or from user memory, each a call that did nothing. An
 * open() or mmap() that gave ENOMEM, and an ioctl outside the storm (INFO,
 * the final UNSETs) that gave EFAULT, is tried again, RETRIES times at
 * most. Every other result and the accounting are
 * held to the ABI as ever. A SUBMIT whose done was not written back (it
 * reads the 0 written at the start) is told by its results, as the kernel
 * writes 0 to each op's result before it carries the op out; an op of it
 * whose result reads 0 may not have had its result written: its outcome
 * is unknown and its callout is held to less, as a stored-for one (a SET's
 * events are then for a handle the file was not given). The faults seen
 * are counted and printed, and a second case, faults_reached, which only
 * fault mode has, fails if there were none.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "kselftest_harness.h"
#include "callout_test.h"
#include "handle_map.h"

#define NFILES		4
#define LIVE_MAX	400		/* live callouts a file may hold here */
#define PICK_WINDOW	300		/* UNSET/RESET pick among the newest */
#define TMAX_NS		2000000000ULL	/* longest timeout or period */
#define EV_BATCH	64
#define DRAIN_SLACK_NS	10000000000ULL	/* the wait for the last events */
#define MAX_REPORTS	20
#define DEBUGFS_DIR	"/sys/kernel/debug/callout"
#define CPU_SYSFS	"/sys/devices/system/cpu"

typedef unsigned long long u64;

/* xorshift64*, one state per thread */
static u64 rnd(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static u64 tick_ns;

/* From one tick to TMAX_NS, about log-uniform: as many short ones as long. */
static u64 rnd_time(u64 *s)
{
	int lo = 63 - __builtin_clzll(tick_ns), hi = 63 - __builtin_clzll(TMAX_NS);
	int e = lo + rnd(s) % (hi - lo + 1);
	u64 t = (1ULL << e) + rnd(s) % (1ULL << e);

	return t < tick_ns ? tick_ns : t > TMAX_NS ? TMAX_NS : t;
}

/* ---- counters ---- */

enum op {
	OP_SET1, OP_SETP, OP_UNSET_OK, OP_UNSET_ENOENT, OP_RESET_OK,
	OP_RESET_ENOENT, OP_TIMEOUT, OP_UNTIMEOUT_OK, OP_UNTIMEOUT_ENOENT,
	OP_READ, OP_CLOSE, OP_REFUSED, OP_CPU_OFF, OP_CPU_ON, OP_CPU_FAIL,
	OP_DEBUGFS, OP_SUBMIT, OP_SUBMIT_EINVAL, NR_OPS
};

static const char * const op_name[NR_OPS] = {
	"SET one-shot", "SET periodic", "UNSET -> 0", "UNSET -> ENOENT",
	"RESET -> 0", "RESET -> ENOENT", "TIMEOUT", "UNTIMEOUT -> 0",
	"UNTIMEOUT -> ENOENT", "read() calls", "close+reopen",
	"refused (ENOSPC/ERANGE)", "CPU offline", "CPU online",
	"CPU hotplug refused", "debugfs files read", "SUBMIT calls",
	"SUBMIT ops malformed (EINVAL)",
};

enum acct {
	A_EVENTS, A_OVERRUNS, A_ONESHOT_FIRED, A_ONESHOT_CANCELLED,
	A_PERIODIC_CANCELLED, A_TIMEOUT_FIRED, A_TIMEOUT_CANCELLED,
	A_CLOSED_CALLOUTS, A_CLOSED_TIMEOUTS, A_DEFERRED, A_ORPHANED,
	A_MULTI_EPOCH, A_STORES, A_STORED_ENDED, NR_ACCTS
};

static const char * const acct_name[NR_ACCTS] = {
	"events read", "overruns counted", "one-shots fired once",
	"one-shots cancelled", "periodic cancelled (still live)",
	"TIMEOUTs fired once", "TIMEOUTs cancelled by UNTIMEOUT",
	"callouts owned by a closed file", "TIMEOUTs owned by a closed file",
	"events held for an op in flight", "events held for a SET in flight",
	"callouts RESET at least once", "stores into the tables",
	"stored-for callouts ended without an event",
};

enum bad {
	B_EARLY, B_TWICE, B_CANCELLED, B_UNKNOWN, B_GRID, B_LOST,
	B_FUTURE, B_FLAGS, B_RESULT, B_ERRNO, B_TIMEOUT_BALANCE, NR_BADS
};

static const char * const bad_name[NR_BADS] = {
	"early", "twice", "after cancel", "unknown handle", "off the grid",
	"lost", "fired after read", "wrong flags", "impossible result",
	"unexpected errno", "TIMEOUT unbalanced",
};

static atomic_ullong ops[NR_OPS], accts[NR_ACCTS], bads[NR_BADS];
static atomic_int reports;

static void bad(enum bad b, const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(&bads[b], 1);
	if (atomic_fetch_add(&reports, 1) >= MAX_REPORTS)
		return;
	va_start(ap, fmt);
	printf("# BAD %s: ", bad_name[b]);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

/* ---- fault mode ---- */

/* How often fault mode tries an open(), mmap() or ioctl() again */
#define RETRIES		1000

static bool faults;		/* $CALLOUT_FAULTS=1 */

enum fop {
	F_OPEN, F_MMAP, F_INFO, F_SET, F_UNSET, F_RESET, F_TIMEOUT,
	F_UNTIMEOUT, F_SUBMIT, F_SUBMIT_OP, F_READ, NR_FOPS
};

static const char * const fop_name[NR_FOPS] = {
	"open", "mmap", "INFO", "SET", "UNSET", "RESET", "TIMEOUT",
	"UNTIMEOUT", "SUBMIT", "SUBMIT op", "read",
};

/*
 * What fault mode saw: ENOMEM and EFAULT results per operation, SUBMITs
 * whose done was not written back, their ops of unknown outcome, and the
 * events of handles such a SET may have armed. Shared, since the storm and
 * faults_reached run in children of the harness.
 */
static struct fault_counts {
	atomic_ullong enomem[NR_FOPS], efault[NR_FOPS];
	atomic_ullong done_lost, unknown_ops, unknown_events;
} *fc;

/* Count @err of @op if the injection gives it (fault mode). */
static void count_fault(enum fop op, int err)
{
	if (!faults)
		return;
	if (err == ENOMEM)
		atomic_fetch_add(&fc->enomem[op], 1);
	else if (err == EFAULT)
		atomic_fetch_add(&fc->efault[op], 1);
}

/* In fault mode an EFAULT is a copy that failed: the call did nothing. */
static bool copy_failed(int err)
{
	return faults && err == EFAULT;
}

/* The "errno" of a SUBMIT's op whose result may not have been written */
#define OUTCOME_UNKNOWN		(-1)

/* ---- the model of a file ---- */

struct epoch {
	u64 before, after;	/* the ioctl's window */
	u64 timeout, period;
};

struct held {			/* an event waiting for an op's result */
	struct callout_event ev;
	u64 read_end;
};

enum rstate { R_LIVE, R_FIRED, R_CANCELLED };

/* One handle of one file. */
struct rec {
	u64 handle;
	enum rstate state;
	struct epoch *ep;
	int nep, cap_ep;
	int inflight;		/* an UNSET/RESET of it runs now */
	struct held *held;
	int nheld, cap_held;
	int last_ep;		/* epoch of the last event, -1 */
	bool last_ambiguous;	/* another epoch fitted it too */
	bool fired_ambiguous;	/* R_FIRED by an event that fitted others */
	u64 last_expires;
	u64 cancelled_by;	/* an UNSET that returned 0 ended by then */
	u64 fired_seen;		/* its one-shot event was taken by then */
	u64 events;
	u64 events_at_stop;	/* events when the storm ended */
	/*
	 * The table thread stored for it, or (fault mode) an UNSET or RESET
	 * of it had an unknown outcome: held to less (see the top).
	 */
	bool stored;
};

/* One TIMEOUT func/arg pair of one file; arg is its index + 1. */
struct arming {
	u64 before, after, timeout;
	int pending;		/* its ioctl runs */
	int matched;
	u64 matched_due;	/* the due time of the event matched to it */
};

struct pair {
	u64 func, arg;
	struct arming *a;
	int na, cap_a;
	int inflight;
	int untimed;		/* UNTIMEOUTs that returned 0 */
	int unknown;		/* TIMEOUTs, UNTIMEOUTs of unknown outcome */
	int events;
	struct held *held;
	int nheld, cap_held;
};

struct tfile {
	pthread_rwlock_t fd_lock;	/* shared: ioctl, read; exclusive: close */
	pthread_mutex_t read_lock;	/* one reader: events in queue order */
	pthread_mutex_t lock;		/* the model below */
	int fd;
	struct rec **recs;		/* every SET's, in the order given */
	u64 nrecs, cap_recs;
	struct handle_map by_handle;	/* handle -> its rec */
	struct pair *pairs;
	int npairs, cap_pairs;
	struct held *orphans;		/* events of a handle not yet known */
	int norphans, cap_orphans;
	int live;
	int unknown_sets;		/* SETs of unknown outcome */
	u64 last_due;			/* latest one-shot or TIMEOUT due */
	u64 *table;			/* its due-time table, under fd_lock */
};

/* Mapped of each table: 2^20 slots, more than a file here ever uses */
#define TABLE_LEN	((size_t)8 << 20)

static struct tfile files[NFILES];
static atomic_bool stop;

/* Room for one more element in a growing array: *arr has *n of *cap. */
static void grow(void **arr, int n, int *cap, size_t size)
{
	if (n < *cap)
		return;
	*cap = *cap ? 2 * *cap : 8;
	*arr = realloc(*arr, *cap * size);
	if (!*arr) {
		perror("realloc");
		abort();
	}
}

static void hold(struct held **arr, int *n, int *cap,
		 const struct callout_event *ev, u64 read_end)
{
	grow((void **)arr, *n, cap, sizeof(**arr));
	(*arr)[*n].ev = *ev;
	(*arr)[*n].read_end = read_end;
	(*n)++;
}

static int open_dev(void)
{
	int fd, tries;

	/* In fault mode the file may not be allocated: then try again. */
	for (tries = 0;; tries++) {
		fd = open(CALLOUT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0 || !faults || errno != ENOMEM || tries == RETRIES)
			break;
		count_fault(F_OPEN, ENOMEM);
	}
	if (fd < 0) {
		perror("open " CALLOUT_DEV);
		abort();
	}
	return fd;
}

/* Open @f's file and map its table; fd_lock is held exclusive (or none). */
static void open_file(struct tfile *f)
{
	int tries;

	f->fd = open_dev();
	for (tries = 0;; tries++) {
		f->table = mmap(NULL, TABLE_LEN, PROT_READ | PROT_WRITE,
				MAP_SHARED, f->fd, 0);
		if (f->table != MAP_FAILED || !faults || errno != ENOMEM ||
		    tries == RETRIES)
			break;
		count_fault(F_MMAP, ENOMEM);
	}
	if (f->table == MAP_FAILED) {
		perror("mmap " CALLOUT_DEV);
		abort();
	}
}

static void close_file(struct tfile *f)
{
	munmap(f->table, TABLE_LEN);
	close(f->fd);
}

/*
 * ioctl() @cmd of operation @op outside the storm: 0 or -1 and errno. In
 * fault mode a copy that failed did nothing, and it is tried again.
 */
static int ioctl_retry(int fd, unsigned long cmd, void *arg, enum fop op)
{
	int ret, tries;

	for (tries = 0;; tries++) {
		ret = ioctl(fd, cmd, arg);
		if (!ret || !copy_failed(errno) || tries == RETRIES)
			return ret;
		count_fault(op, EFAULT);
	}
}

static void note_due(struct tfile *f, u64 due)
{
	if (due > f->last_due)
		f->last_due = due;
}

/*
 * Does epoch k explain event @ev of @r? An epoch is out if it began after
 * the event fired, or if another epoch surely began after it ended and
 * before the event fired.
 */
static bool epoch_possible(const struct rec *r, int k, u64 fired)
{
	int j;

	if (r->ep[k].before > fired)
		return false;
	for (j = 0; j < r->nep; j++)
		if (j != k && r->ep[j].before > r->ep[k].after &&
		    r->ep[j].after < fired)
			return false;
	return true;
}

/* Is @ev on epoch k's grid, given the events of @r so far? */
static bool epoch_fits(const struct rec *r, int k,
		       const struct callout_event *ev)
{
	const struct epoch *e = &r->ep[k];
	u64 lo = e->before + e->timeout, hi = e->after + e->timeout;
	u64 x = ev->expires_ns, j;

	if (x < lo)
		return false;
	/*
	 * The flag tells which kind of arming the due time is of (the ABI
	 * says so even after a RESET changed the kind); with one epoch a
	 * wrong flag is reported as such, not as an event off the grid.
	 */
	if (r->nep > 1 && !e->period != !(ev->flags & CALLOUT_EV_PERIODIC))
		return false;
	if (!e->period)
		return x <= hi && (r->nep > 1 || !ev->overrun);
	if (k == r->last_ep &&
	    x - r->last_expires == (1ULL + ev->overrun) * e->period)
		return true;
	if (k == r->last_ep && !r->last_ambiguous)
		return false;
	/*
	 * The last event fitted this epoch too (it was ambiguous, given to
	 * the oldest that fitted): it may have been this one's first, and
	 * this event its next.
	 */
	if (k != r->last_ep && r->last_ambiguous && r->last_expires >= lo &&
	    r->last_expires <= hi &&
	    x - r->last_expires == (1ULL + ev->overrun) * e->period)
		return true;
	/* The first event of this epoch: due = x - j * period, j <= overrun */
	j = x > hi ? (x - hi + e->period - 1) / e->period : 0;
	if (j > ev->overrun || x - j * e->period < lo)
		return false;
	/* With one epoch and no event before, the overrun is exactly j. */
	return r->nep > 1 || r->events || x - ev->overrun * e->period >= lo;
}

/* After a report about @r: its armings and its last event. */
static void dump_rec(const struct rec *r, const struct callout_event *ev)
{
	int k;

	if (atomic_load(&reports) > MAX_REPORTS)
		return;
	if (ev)
		printf("#   event: due %llu fired %llu overrun %u flags %#x\n",
		       ev->expires_ns, ev->fired_ns, ev->overrun, ev->flags);
	printf("#   %llu events before, the last due %llu (epoch %d%s)\n",
	       r->events, r->last_expires, r->last_ep,
	       r->last_ambiguous ? ", ambiguous" : "");
	for (k = 0; k < r->nep; k++)
		printf("#   epoch %d: armed %llu..%llu timeout %llu period %llu\n",
		       k, r->ep[k].before, r->ep[k].after, r->ep[k].timeout,
		       r->ep[k].period);
}

/*
 * An event of a callout the table thread stored for: never early, a
 * one-shot's once (the kind by the event's flag, which tells the arming's).
 */
static void check_stored_event(struct tfile *f, struct rec *r,
			       const struct callout_event *ev, u64 read_end)
{
	u64 lo = ~0ULL;
	int k;

	for (k = 0; k < r->nep; k++)
		if (r->ep[k].before + r->ep[k].timeout < lo)
			lo = r->ep[k].before + r->ep[k].timeout;
	if (ev->fired_ns < ev->expires_ns || ev->expires_ns < lo ||
	    read_end < ev->fired_ns)
		bad(B_EARLY, "stored-for %llu: due %llu fired %llu read by %llu, earliest %llu",
		    r->handle, ev->expires_ns, ev->fired_ns, read_end, lo);
	r->events++;
	r->last_expires = ev->expires_ns;
	atomic_fetch_add(&accts[A_OVERRUNS], ev->overrun);
	if (ev->flags & CALLOUT_EV_PERIODIC)
		return;
	if (r->state == R_CANCELLED) {
		bad(B_CANCELLED, "stored-for %llu: a one-shot event, and an UNSET -> 0",
		    r->handle);
	} else if (r->state == R_FIRED && r->fired_seen) {
		bad(B_TWICE, "stored-for %llu: a one-shot's second event",
		    r->handle);
	} else if (r->state == R_FIRED) {
		/* Ended at the end (UNSET said ENOENT): this was its event. */
		r->fired_seen = now_ns();
		atomic_fetch_sub(&accts[A_STORED_ENDED], 1);
		atomic_fetch_add(&accts[A_ONESHOT_FIRED], 1);
	} else {
		r->state = R_FIRED;
		r->fired_seen = now_ns();
		f->live--;
		atomic_fetch_add(&accts[A_ONESHOT_FIRED], 1);
	}
}

static void check_event(struct tfile *f, struct rec *r,
			const struct callout_event *ev, u64 read_end)
{
	int k, best = -1, fits = 0;

	if (ev->flags & CALLOUT_EV_TIMEOUT) {
		bad(B_FLAGS, "handle %llu: TIMEOUT flag on a SET callout",
		    r->handle);
		return;
	}
	if (r->state == R_FIRED && r->fired_ambiguous) {
		/*
		 * The event taken for the one-shot's fired during the RESET
		 * that armed it and fitted the epoch before as well: it was
		 * that one's, and this is the one-shot's.
		 */
		r->fired_ambiguous = false;
		r->state = R_LIVE;
		f->live++;
		atomic_fetch_sub(&accts[A_ONESHOT_FIRED], 1);
	}
	if (r->state == R_FIRED) {
		bad(B_TWICE, "handle %llu: a one-shot's second event", r->handle);
		dump_rec(r, ev);
		return;
	}
	if (r->state == R_CANCELLED && ev->fired_ns > r->cancelled_by) {
		bad(B_CANCELLED, "handle %llu fired %llu ns after its UNSET returned 0",
		    r->handle, ev->fired_ns - r->cancelled_by);
		return;
	}
	if (r->stored) {
		check_stored_event(f, r, ev, read_end);
		return;
	}
	/*
	 * An event fired while a RESET ran may be of the old epoch or the
	 * new: the old one if it continues the old one's grid exactly, else
	 * the newest that fits. The first event of all goes to the oldest
	 * that fits: an old epoch's first due time is known to within the
	 * SET's few microseconds, a RESET's only to within its whole call.
	 */
	for (k = r->nep - 1; k >= 0; k--) {
		if (!epoch_possible(r, k, ev->fired_ns) ||
		    !epoch_fits(r, k, ev))
			continue;
		fits++;
		if (best < 0 || r->last_ep < 0 ||
		    (k == r->last_ep && r->ep[k].period &&
		     ev->expires_ns - r->last_expires ==
		     (1ULL + ev->overrun) * r->ep[k].period))
			best = k;
	}
	if (best < 0) {
		const struct epoch *e = &r->ep[r->nep - 1];

		if (ev->expires_ns < r->ep[0].before + r->ep[0].timeout ||
		    ev->fired_ns < ev->expires_ns)
			bad(B_EARLY, "handle %llu: due %llu fired %llu, armed %llu..%llu + %llu",
			    r->handle, ev->expires_ns, ev->fired_ns, e->before,
			    e->after, e->timeout);
		else
			bad(B_GRID, "%llu: due %llu o %u last %llu, %d epochs %llu..%llu+%llu/%llu",
			    r->handle, ev->expires_ns, ev->overrun,
			    r->last_expires, r->nep, e->before, e->after,
			    e->timeout, e->period);
		dump_rec(r, ev);
		return;
	}
	if (ev->fired_ns < ev->expires_ns ||
	    read_end < r->ep[best].before + r->ep[best].timeout)
		bad(B_EARLY, "handle %llu: due %llu fired %llu read by %llu",
		    r->handle, ev->expires_ns, ev->fired_ns, read_end);
	if (r->nep == 1 && ev->flags != (r->ep[0].period ? CALLOUT_EV_PERIODIC : 0))
		bad(B_FLAGS, "handle %llu: flags %#x", r->handle, ev->flags);
	r->last_ep = best;
	r->last_ambiguous = fits > 1;
	r->last_expires = ev->expires_ns;
	r->events++;
	atomic_fetch_add(&accts[A_OVERRUNS], ev->overrun);
	if (!r->ep[best].period && r->state == R_CANCELLED) {
		/* A one-shot that fired was not pending for UNSET. */
		bad(B_CANCELLED, "handle %llu: a one-shot event, and an UNSET -> 0",
		    r->handle);
	} else if (!r->ep[best].period) {
		r->state = R_FIRED;
		r->fired_ambiguous = fits > 1;
		r->fired_seen = now_ns();
		f->live--;
		atomic_fetch_add(&accts[A_ONESHOT_FIRED], 1);
	}
}

static bool arming_fits(const struct arming *a, u64 due)
{
	return due >= a->before + a->timeout && due <= a->after + a->timeout;
}

/*
 * Match @due to an arming of @p whose event is still to come: the one that
 * ends first, or, if every arming it fits has an event already, one whose
 * event fits another arming still free (events need not come in the order
 * of their due times).
 */
static int match_arming(struct pair *p, u64 due)
{
	int i, j, best = -1;

	for (i = 0; i < p->na; i++) {
		if (p->a[i].matched || !arming_fits(&p->a[i], due))
			continue;
		if (best < 0 || p->a[i].after < p->a[best].after)
			best = i;
	}
	if (best >= 0)
		return best;
	for (i = 0; i < p->na; i++) {
		if (!p->a[i].matched || !arming_fits(&p->a[i], due))
			continue;
		for (j = 0; j < p->na; j++) {
			if (p->a[j].matched ||
			    !arming_fits(&p->a[j], p->a[i].matched_due))
				continue;
			p->a[j].matched = 1;
			p->a[j].matched_due = p->a[i].matched_due;
			p->a[i].matched = 0;
			return i;
		}
	}
	return -1;
}

static void check_timeout_event(struct pair *p, const struct callout_event *ev,
				u64 read_end)
{
	int i, best;

	if (ev->cookie != p->func) {
		bad(B_UNKNOWN, "TIMEOUT event func %#llx arg %llu, armed with func %#llx",
		    ev->cookie, ev->arg, p->func);
		return;
	}
	if (ev->fired_ns < ev->expires_ns || ev->fired_ns > read_end)
		bad(ev->fired_ns > read_end ? B_FUTURE : B_EARLY,
		    "TIMEOUT arg %llu due %llu fired %llu read by %llu",
		    p->arg, ev->expires_ns, ev->fired_ns, read_end);
	best = match_arming(p, ev->expires_ns);
	if (best < 0) {
		bad(B_EARLY, "TIMEOUT arg %llu: due %llu fired %llu matches none of %d armings",
		    p->arg, ev->expires_ns, ev->fired_ns, p->na);
		for (i = 0; i < p->na && atomic_load(&reports) <= MAX_REPORTS; i++)
			printf("#   arming %d: %llu..%llu + %llu%s\n", i,
			       p->a[i].before, p->a[i].after, p->a[i].timeout,
			       p->a[i].matched ? " (matched)" : "");
		return;
	}
	p->a[best].matched = 1;
	p->a[best].matched_due = ev->expires_ns;
	p->events++;
	atomic_fetch_add(&accts[A_TIMEOUT_FIRED], 1);
}

/* One event read from @f, with the file's model locked. */
static void take_event(struct tfile *f, const struct callout_event *ev,
		       u64 read_end, bool first)
{
	struct rec *r;

	if (!first)
		goto placed;
	atomic_fetch_add(&accts[A_EVENTS], 1);
	if (ev->fired_ns > read_end)
		bad(B_FUTURE, "handle %llu fired %llu, after the read ended at %llu",
		    ev->handle, ev->fired_ns, read_end);
placed:
	if (!ev->handle) {
		struct pair *p;

		if (!(ev->flags & CALLOUT_EV_TIMEOUT) || !ev->arg ||
		    ev->arg > (u64)f->npairs) {
			/* Its TIMEOUT may not be in the model yet. */
			atomic_fetch_add(&accts[A_ORPHANED], first);
			hold(&f->orphans, &f->norphans, &f->cap_orphans, ev,
			     read_end);
			return;
		}
		p = &f->pairs[ev->arg - 1];
		if (p->inflight) {
			atomic_fetch_add(&accts[A_DEFERRED], 1);
			hold(&p->held, &p->nheld, &p->cap_held, ev, read_end);
			return;
		}
		check_timeout_event(p, ev, read_end);
		return;
	}
	r = handle_map_get(&f->by_handle, ev->handle);
	if (!r) {
		atomic_fetch_add(&accts[A_ORPHANED], first);
		hold(&f->orphans, &f->norphans, &f->cap_orphans, ev, read_end);
		return;
	}
	if (r->inflight) {
		atomic_fetch_add(&accts[A_DEFERRED], 1);
		hold(&r->held, &r->nheld, &r->cap_held, ev, read_end);
		return;
	}
	check_event(f, r, ev, read_end);
}

/* Events held for @r's op or SET: check them now that it is known. */
static void release_held(struct tfile *f, struct rec *r)
{
	int i, n = r->nheld;

	r->nheld = 0;
	for (i = 0; i < n; i++)
		check_event(f, r, &r->held[i].ev, r->held[i].read_end);
}

static void release_pair(struct pair *p)
{
	int i, n = p->nheld;

	p->nheld = 0;
	for (i = 0; i < n; i++)
		check_timeout_event(p, &p->held[i].ev, p->held[i].read_end);
}

/* Orphans that the model can place now. */
static void release_orphans(struct tfile *f)
{
	struct held *o = f->orphans;
	int i, n = f->norphans;

	if (!n)
		return;
	f->orphans = NULL;
	f->norphans = 0;
	f->cap_orphans = 0;
	for (i = 0; i < n; i++)
		take_event(f, &o[i].ev, o[i].read_end, false);
	free(o);
}

/* Read what @f has; read_lock and a shared fd_lock are held. */
static int read_events(struct tfile *f)
{
	struct callout_event ev[EV_BATCH];
	ssize_t n;
	u64 end;
	int i;

	n = read(f->fd, ev, sizeof(ev));
	end = now_ns();
	atomic_fetch_add(&ops[OP_READ], 1);
	if (n < 0) {
		count_fault(F_READ, errno);
		/* A copy that failed took nothing: the events stay queued. */
		if (errno != EAGAIN && !copy_failed(errno))
			bad(B_ERRNO, "read: %s", strerror(errno));
		return 0;
	}
	if (n % sizeof(ev[0]))
		bad(B_RESULT, "read returned %zd bytes", n);
	n /= sizeof(ev[0]);
	pthread_mutex_lock(&f->lock);
	for (i = 0; i < n; i++)
		take_event(f, &ev[i], end, true);
	pthread_mutex_unlock(&f->lock);
	return n;
}

static int read_file(struct tfile *f)
{
	int n;

	pthread_mutex_lock(&f->read_lock);
	n = read_events(f);
	pthread_mutex_unlock(&f->read_lock);
	return n;
}

static void free_model(struct tfile *f)
{
	u64 h;
	int i;

	for (h = 0; h < f->nrecs; h++) {
		struct rec *r = f->recs[h];

		if (!r)
			continue;
		free(r->ep);
		free(r->held);
		free(r);
	}
	for (i = 0; i < f->npairs; i++) {
		free(f->pairs[i].a);
		free(f->pairs[i].held);
	}
	free(f->recs);
	handle_map_free(&f->by_handle);
	free(f->pairs);
	free(f->orphans);
	f->recs = NULL;
	f->pairs = NULL;
	f->orphans = NULL;
	f->nrecs = 0;
	f->cap_recs = 0;
	f->npairs = 0;
	f->cap_pairs = 0;
	f->norphans = 0;
	f->cap_orphans = 0;
	f->live = 0;
	f->unknown_sets = 0;
	f->last_due = 0;
}

/*
 * Events of @f that no handle of the model explains: each a discrepancy,
 * unless a SET of unknown outcome may have armed its handle.
 */
static void check_orphans(struct tfile *f)
{
	int i;

	for (i = 0; i < f->norphans; i++) {
		const struct callout_event *ev = &f->orphans[i].ev;

		if (ev->handle && f->unknown_sets)
			atomic_fetch_add(&fc->unknown_events, 1);
		else
			bad(B_UNKNOWN, "event of handle %llu (flags %#x arg %llu) not given",
			    ev->handle, ev->flags, ev->arg);
	}
}

/* Count what a closing file owns; its model is locked and nothing runs. */
static void account_closed(struct tfile *f)
{
	u64 h;
	int i, j;

	for (h = 0; h < f->nrecs; h++) {
		struct rec *r = f->recs[h];

		if (r && r->state == R_LIVE)
			atomic_fetch_add(&accts[A_CLOSED_CALLOUTS], 1);
	}
	for (i = 0; i < f->npairs; i++) {
		struct pair *p = &f->pairs[i];
		int open = 0;

		for (j = 0; j < p->na; j++)
			open += !p->a[j].matched;
		open -= p->untimed;
		if (open < 0)
			bad(B_TIMEOUT_BALANCE, "TIMEOUT arg %llu: %d armed, %d fired, %d untimed",
			    p->arg, p->na, p->events, p->untimed);
		else
			atomic_fetch_add(&accts[A_CLOSED_TIMEOUTS], open);
	}
	check_orphans(f);
}

/* close() with callouts in flight, then a fresh file in its place. */
static void close_reopen(struct tfile *f)
{
	pthread_rwlock_wrlock(&f->fd_lock);
	pthread_mutex_lock(&f->read_lock);
	pthread_mutex_lock(&f->lock);
	close_file(f);
	account_closed(f);
	free_model(f);
	open_file(f);
	pthread_mutex_unlock(&f->lock);
	pthread_mutex_unlock(&f->read_lock);
	pthread_rwlock_unlock(&f->fd_lock);
	atomic_fetch_add(&ops[OP_CLOSE], 1);
}

static struct rec *new_rec(struct tfile *f, u64 handle)
{
	struct rec *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	r->handle = handle;
	r->last_ep = -1;
	if (f->nrecs == f->cap_recs) {
		f->cap_recs = f->cap_recs ? 2 * f->cap_recs : 1024;
		f->recs = realloc(f->recs, f->cap_recs * sizeof(*f->recs));
		if (!f->recs)
			abort();
	}
	f->recs[f->nrecs++] = r;
	handle_map_put(&f->by_handle, handle, r);
	return r;
}

static void add_epoch(struct rec *r, u64 before, u64 after, u64 timeout,
		      u64 period)
{
	grow((void **)&r->ep, r->nep, &r->cap_ep, sizeof(*r->ep));
	r->ep[r->nep++] = (struct epoch){ before, after, timeout, period };
	if (r->nep == 2)
		atomic_fetch_add(&accts[A_MULTI_EPOCH], 1);
}

static bool refused(int err)
{
	if (err == ENOSPC || err == ERANGE || err == ENOMEM) {
		atomic_fetch_add(&ops[OP_REFUSED], 1);
		return true;
	}
	return false;
}

/* A SET (@req, as given and as written back) ended in @err: the model. */
static void set_done(struct tfile *f, const struct callout_set *req, int err,
		     u64 before, u64 after)
{
	struct rec *r;

	if (err == OUTCOME_UNKNOWN) {
		/* Armed or not, under a handle never learnt: see orphans. */
		pthread_mutex_lock(&f->lock);
		f->unknown_sets++;
		pthread_mutex_unlock(&f->lock);
		return;
	}
	if (err) {
		if (!refused(err) && !copy_failed(err))
			bad(B_ERRNO, "SET: %s", strerror(err));
		return;
	}
	atomic_fetch_add(&ops[req->period_ns ? OP_SETP : OP_SET1], 1);
	pthread_mutex_lock(&f->lock);
	if (!req->handle || handle_map_get(&f->by_handle, req->handle)) {
		bad(B_RESULT, "SET gave handle %llu twice", req->handle);
	} else {
		r = new_rec(f, req->handle);
		add_epoch(r, before, after, req->timeout_ns, req->period_ns);
		f->live++;
		if (!req->period_ns)
			note_due(f, after + req->timeout_ns);
		release_orphans(f);
	}
	pthread_mutex_unlock(&f->lock);
}

static void set_fill(struct callout_set *req, u64 *s)
{
	memset(req, 0, sizeof(*req));
	req->timeout_ns = rnd_time(s);
	req->period_ns = rnd(s) % 4 == 0 ? rnd_time(s) : 0;
	req->cookie = rnd(s);
}

static void op_set(struct tfile *f, u64 *s)
{
	struct callout_set req;
	u64 before, after;
	int ret;

	set_fill(&req, s);
	before = now_ns();
	ret = ioctl(f->fd, CALLOUT_IOC_SET, &req);
	after = now_ns();
	count_fault(F_SET, ret ? errno : 0);
	set_done(f, &req, ret ? errno : 0, before, after);
}

/*
 * One of the latest PICK_WINDOW SETs' records, or NULL (one time in 16)
 * for a handle that is not a callout.
 */
static struct rec *pick(struct tfile *f, u64 *s)
{
	u64 lo;

	if (!f->nrecs || rnd(s) % 16 == 0)
		return NULL;
	lo = f->nrecs > PICK_WINDOW ? f->nrecs - PICK_WINDOW : 0;
	return f->recs[lo + rnd(s) % (f->nrecs - lo)];
}

/*
 * The handle of a random record for an UNSET or RESET, marked in flight
 * (*@r), or one never given (*@r NULL). False if the record picked has an
 * op in flight already: one op at a time on a handle, so that its epochs
 * are in the order the kernel applied them (callout_test races concurrent
 * sets of one callout in the kernel).
 */
static bool unset_reset_pick(struct tfile *f, u64 *s, struct rec **r, u64 *h)
{
	pthread_mutex_lock(&f->lock);
	*r = pick(f, s);
	if (*r && (*r)->inflight) {
		pthread_mutex_unlock(&f->lock);
		return false;
	}
	if (*r)
		(*r)->inflight++;
	pthread_mutex_unlock(&f->lock);
	/* A generation no slot reaches: never given. */
	*h = *r ? (*r)->handle : (1ULL << 62) + rnd(s) % 1000;
	return true;
}

/*
 * An UNSET (@reset false) or RESET (@req) of handle @h, record @r (NULL:
 * never given), ended in @err: check it against the model and follow it.
 * Its events read meanwhile were held until now.
 */
static void unset_reset_done(struct tfile *f, struct rec *r, u64 h, bool reset,
			     const struct callout_reset *req, int err,
			     u64 before, u64 after)
{
	bool sure_live, cancelled = false;

	if (!r) {
		if (err != ENOENT && !copy_failed(err) &&
		    err != OUTCOME_UNKNOWN)
			bad(B_RESULT, "%s of handle %llu never given: %s",
			    reset ? "RESET" : "UNSET", h, strerror(err));
		return;
	}
	pthread_mutex_lock(&f->lock);
	r->inflight--;
	if (copy_failed(err))
		goto out;
	if (err == OUTCOME_UNKNOWN) {
		/*
		 * Cancelled, re-armed or neither: its events are held to
		 * what a stored-for callout's are, the RESET's arming among
		 * those they may be of.
		 */
		if (r->state == R_LIVE) {
			r->stored = true;
			if (reset)
				add_epoch(r, before, after, req->timeout_ns,
					  req->period_ns);
			if (reset && !req->period_ns)
				note_due(f, after + req->timeout_ns);
		}
		goto out;
	}
	/* A cancel mark the table thread stored may have ended it. */
	sure_live = r->state == R_LIVE && !r->stored &&
		    r->ep[r->nep - 1].period;
	if (!err && r->state == R_FIRED && r->fired_ambiguous) {
		/* It was pending: the event taken for it was the epoch before's. */
		r->fired_ambiguous = false;
		r->state = R_LIVE;
		f->live++;
		atomic_fetch_sub(&accts[A_ONESHOT_FIRED], 1);
	}
	if (!err) {
		/*
		 * Nothing succeeds once an UNSET has: a second UNSET never,
		 * a RESET only if it ran before the UNSET in the kernel.
		 */
		if (r->state == R_CANCELLED &&
		    (!reset || r->cancelled_by < before))
			bad(B_RESULT, "handle %llu: %s -> 0 after an UNSET -> 0",
			    h, reset ? "RESET" : "UNSET");
		else if (r->state == R_FIRED && r->fired_seen < before)
			bad(B_RESULT, "handle %llu: %s -> 0 after its one-shot event",
			    h, reset ? "RESET" : "UNSET");
	}
	if (reset) {
		if (!err) {
			atomic_fetch_add(&ops[OP_RESET_OK], 1);
			add_epoch(r, before, after, req->timeout_ns,
				  req->period_ns);
			if (!req->period_ns)
				note_due(f, after + req->timeout_ns);
		} else if (err == ENOENT) {
			atomic_fetch_add(&ops[OP_RESET_ENOENT], 1);
			if (sure_live)
				bad(B_LOST, "handle %llu: RESET of a live periodic -> ENOENT",
				    h);
		} else if (refused(err)) {
			/* The scheme refused the time: it is cancelled. */
			cancelled = true;
		} else {
			bad(B_ERRNO, "RESET: %s", strerror(err));
		}
	} else {
		if (!err) {
			atomic_fetch_add(&ops[OP_UNSET_OK], 1);
			cancelled = true;
		} else if (err == ENOENT) {
			atomic_fetch_add(&ops[OP_UNSET_ENOENT], 1);
			if (sure_live)
				bad(B_LOST, "handle %llu: UNSET of a live periodic -> ENOENT",
				    h);
		} else {
			bad(B_ERRNO, "UNSET: %s", strerror(err));
		}
	}
	if (cancelled && r->state == R_LIVE) {
		r->state = R_CANCELLED;
		r->cancelled_by = after;
		f->live--;
		atomic_fetch_add(&accts[r->ep[r->nep - 1].period ?
					A_PERIODIC_CANCELLED :
					A_ONESHOT_CANCELLED], 1);
	}
out:
	if (!r->inflight)
		release_held(f, r);
	pthread_mutex_unlock(&f->lock);
}

static void reset_fill(struct callout_reset *req, u64 h, u64 *s)
{
	req->handle = h;
	req->timeout_ns = rnd_time(s);
	req->period_ns = rnd(s) % 3 == 0 ? rnd_time(s) : 0;
}

/* UNSET (@reset false) or RESET of a random handle. */
static void op_unset_reset(struct tfile *f, u64 *s, bool reset)
{
	struct callout_reset req = { 0 };
	u64 before, after, h;
	struct rec *r;
	int ret;

	if (!unset_reset_pick(f, s, &r, &h))
		return;
	reset_fill(&req, h, s);
	before = now_ns();
	if (reset)
		ret = ioctl(f->fd, CALLOUT_IOC_RESET, &req);
	else
		ret = ioctl(f->fd, CALLOUT_IOC_UNSET, &h);
	after = now_ns();
	count_fault(reset ? F_RESET : F_UNSET, ret ? errno : 0);
	unset_reset_done(f, r, h, reset, &req, ret ? errno : 0, before, after);
}

/*
 * A TIMEOUT of a new func/arg pair or, one time in four, of one armed
 * before: its arming enters the model as pending, in flight. Return: the
 * pair's index; *@ia: the arming's.
 */
static int timeout_prepare(struct tfile *f, u64 *s, struct callout_timeout *req,
			   int *ia)
{
	struct arming *a;
	struct pair *p;
	int idx;

	pthread_mutex_lock(&f->lock);
	if (f->npairs && rnd(s) % 4 == 0) {
		idx = rnd(s) % f->npairs;	/* the same pair again */
	} else {
		grow((void **)&f->pairs, f->npairs, &f->cap_pairs, sizeof(*f->pairs));
		idx = f->npairs++;
		memset(&f->pairs[idx], 0, sizeof(f->pairs[idx]));
		f->pairs[idx].func = 0x1000 * (1 + rnd(s) % 4);
		f->pairs[idx].arg = idx + 1;
	}
	p = &f->pairs[idx];
	req->func = p->func;
	req->arg = p->arg;
	req->ticks = 1 + rnd(s) % (TMAX_NS / tick_ns);
	grow((void **)&p->a, p->na, &p->cap_a, sizeof(*p->a));
	*ia = p->na++;
	a = &p->a[*ia];
	memset(a, 0, sizeof(*a));
	a->timeout = req->ticks * tick_ns;
	a->before = now_ns();
	a->after = ~0ULL;
	a->pending = 1;
	p->inflight++;
	pthread_mutex_unlock(&f->lock);
	return idx;
}

static void timeout_done(struct tfile *f, int idx, int ia, int err, u64 after)
{
	struct arming *a;
	struct pair *p;

	pthread_mutex_lock(&f->lock);
	p = &f->pairs[idx];
	a = &p->a[ia];
	a->pending = 0;
	a->after = after;
	if (err == OUTCOME_UNKNOWN) {
		/* Armed or not: the balance allows either. */
		p->unknown++;
		note_due(f, after + a->timeout);
	} else if (err) {
		if (!refused(err) && !copy_failed(err))
			bad(B_ERRNO, "TIMEOUT: %s", strerror(err));
		a->matched = 1;		/* nothing was armed */
		a->before = a->after + 1;
	} else {
		atomic_fetch_add(&ops[OP_TIMEOUT], 1);
		note_due(f, after + a->timeout);
	}
	if (!--p->inflight)
		release_pair(p);
	release_orphans(f);
	pthread_mutex_unlock(&f->lock);
}

static void op_timeout(struct tfile *f, u64 *s)
{
	struct callout_timeout req = { 0 };
	int idx, ia, ret;

	idx = timeout_prepare(f, s, &req, &ia);
	ret = ioctl(f->fd, CALLOUT_IOC_TIMEOUT, &req);
	count_fault(F_TIMEOUT, ret ? errno : 0);
	timeout_done(f, idx, ia, ret ? errno : 0, now_ns());
}

/* The UNTIMEOUT of a random pair, in flight: its index, or -1 if none. */
static int untimeout_prepare(struct tfile *f, u64 *s,
			     struct callout_untimeout *req)
{
	struct pair *p;
	int idx;

	pthread_mutex_lock(&f->lock);
	if (!f->npairs) {
		pthread_mutex_unlock(&f->lock);
		return -1;
	}
	idx = rnd(s) % f->npairs;
	p = &f->pairs[idx];
	req->func = p->func;
	req->arg = p->arg;
	p->inflight++;
	pthread_mutex_unlock(&f->lock);
	return idx;
}

static void untimeout_done(struct tfile *f, int idx, int err)
{
	struct pair *p;

	pthread_mutex_lock(&f->lock);
	p = &f->pairs[idx];
	if (!err) {
		atomic_fetch_add(&ops[OP_UNTIMEOUT_OK], 1);
		atomic_fetch_add(&accts[A_TIMEOUT_CANCELLED], 1);
		p->untimed++;
	} else if (err == ENOENT) {
		atomic_fetch_add(&ops[OP_UNTIMEOUT_ENOENT], 1);
	} else if (err == OUTCOME_UNKNOWN) {
		p->unknown++;		/* cancelled one or none */
	} else if (!copy_failed(err)) {
		bad(B_ERRNO, "UNTIMEOUT: %s", strerror(err));
	}
	if (!--p->inflight)
		release_pair(p);
	pthread_mutex_unlock(&f->lock);
}

static void op_untimeout(struct tfile *f, u64 *s)
{
	struct callout_untimeout req = { 0 };
	int idx, ret;

	idx = untimeout_prepare(f, s, &req);
	if (idx < 0)
		return;
	ret = ioctl(f->fd, CALLOUT_IOC_UNTIMEOUT, &req);
	count_fault(F_UNTIMEOUT, ret ? errno : 0);
	untimeout_done(f, idx, ret ? errno : 0);
}

/*
 * CALLOUT_IOC_SUBMIT of 1 to SUBMIT_BATCH random operations, the same as
 * the single ones do, and now and then one that is not well formed (an
 * unknown code, flags, a field its operation does not read, on a handle or
 * pair of the file): EINVAL, and nothing may come of it. The SETs and
 * RESETs count from one clock read within the call's window.
 */
#define SUBMIT_BATCH	16

struct bop {
	int kind;		/* OP_SET1 (any SET), OP_UNSET_OK, ... */
	bool bad;		/* not well formed: EINVAL */
	struct rec *r;		/* UNSET, RESET */
	u64 h;
	int idx, ia;		/* TIMEOUT, UNTIMEOUT */
};

/* A malformed operation: wrong code, flags, or a field it does not read. */
static void malform(struct callout_op *o, u64 *s)
{
	switch (rnd(s) % 3) {
	case 0:
		o->op = rnd(s) % 2 ? 0 : CALLOUT_OP_UNTIMEOUT + 1 + rnd(s) % 100;
		break;
	case 1:
		o->flags = 1 + rnd(s) % 0xffff;
		break;
	default:
		switch (o->op) {
		case CALLOUT_OP_SET:
		case CALLOUT_OP_UNSET:
		case CALLOUT_OP_RESET:
			o->arg = 1 + rnd(s) % 1000;
			break;
		default:
			o->period_ns = 1 + rnd(s) % 1000;
		}
	}
}

static void op_submit(struct tfile *f, u64 *s)
{
	struct callout_op o[SUBMIT_BATCH];
	struct bop b[SUBMIT_BATCH];
	struct callout_submit req = { .ops = (uintptr_t)o };
	int n = 1 + rnd(s) % SUBMIT_BATCH, i, c, ret, err;
	bool lost = false;
	u64 before, after;
	__u32 done;

	memset(o, 0, sizeof(o));
	for (i = 0; i < n; i++) {
		unsigned int x = rnd(s) % 100;

		memset(&b[i], 0, sizeof(b[i]));
		b[i].bad = rnd(s) % 16 == 0;
		if (x < 35 && f->live >= LIVE_MAX && !b[i].bad)
			x = 35;
		if (x < 35) {
			struct callout_set req;

			set_fill(&req, s);
			b[i].kind = OP_SET1;
			o[i].op = CALLOUT_OP_SET;
			o[i].timeout = req.timeout_ns;
			o[i].period_ns = req.period_ns;
			o[i].cookie = req.cookie;
		} else if (x < 75) {
			struct callout_reset req = { 0 };
			bool reset = x >= 55;

			/* A malformed one names any handle, not in flight. */
			if (b[i].bad) {
				struct rec *r;

				pthread_mutex_lock(&f->lock);
				r = pick(f, s);
				b[i].h = r ? r->handle : 1;
				pthread_mutex_unlock(&f->lock);
			} else if (!unset_reset_pick(f, s, &b[i].r, &b[i].h)) {
				b[i].r = NULL;
				b[i].h = (1ULL << 62) + rnd(s) % 1000;
			}
			reset_fill(&req, b[i].h, s);
			b[i].kind = reset ? OP_RESET_OK : OP_UNSET_OK;
			o[i].op = reset ? CALLOUT_OP_RESET : CALLOUT_OP_UNSET;
			o[i].handle = b[i].h;
			if (reset) {
				o[i].timeout = req.timeout_ns;
				o[i].period_ns = req.period_ns;
			}
		} else if (x < 90) {
			struct callout_timeout req = {
				.func = 0x1000 * (1 + rnd(s) % 4),
				.arg = 1 + rnd(s) % 1000,
				.ticks = 1 + rnd(s) % 100,
			};

			/* A malformed one: any pair, not in the model. */
			if (!b[i].bad)
				b[i].idx = timeout_prepare(f, s, &req, &b[i].ia);
			b[i].kind = OP_TIMEOUT;
			o[i].op = CALLOUT_OP_TIMEOUT;
			o[i].cookie = req.func;
			o[i].arg = req.arg;
			o[i].timeout = req.ticks;
		} else {
			struct callout_untimeout req = { 0 };

			/* A malformed one may name a pair armed or not. */
			b[i].idx = b[i].bad ? -1 : untimeout_prepare(f, s, &req);
			if (b[i].bad) {
				req.func = 0x1000 * (1 + rnd(s) % 4);
				req.arg = 1 + rnd(s) % 1000;
			} else if (b[i].idx < 0) {
				req.func = 0x1000;
				req.arg = ~0ULL;	/* no such pair */
			}
			b[i].kind = OP_UNTIMEOUT_OK;
			o[i].op = CALLOUT_OP_UNTIMEOUT;
			o[i].cookie = req.func;
			o[i].arg = req.arg;
		}
		if (b[i].bad)
			malform(&o[i], s);
		o[i].result = 1;	/* no call gives 1: not written */
	}
	req.nr = n;
	before = now_ns();
	ret = ioctl(f->fd, CALLOUT_IOC_SUBMIT, &req);
	err = ret ? errno : 0;
	after = now_ns();
	atomic_fetch_add(&ops[OP_SUBMIT], 1);
	count_fault(F_SUBMIT, err);
	done = req.done;
	if (copy_failed(err)) {
		/*
		 * Carried out: the ops with a result, since the kernel writes
		 * 0 to an op's result before it carries it out. done says as
		 * many, or, not written back at the end, reads the 0 written
		 * at the start; then a result that reads 0 may be that 0
		 * still, as a batch here is one chunk of the kernel's, whose
		 * results may not all have been written either.
		 */
		for (c = 0; c < n && o[c].result != 1; c++)
			;
		if (!done && c) {
			lost = true;
			atomic_fetch_add(&fc->done_lost, 1);
		} else if (done != (__u32)c) {
			bad(B_RESULT, "SUBMIT of %d: EFAULT, done %u, %d with a result",
			    n, done, c);
		}
		done = c;
	} else if (ret || done != (__u32)n) {
		bad(B_RESULT, "SUBMIT of %d: %s, done %u", n,
		    err ? strerror(err) : "0", done);
	}
	for (i = 0; i < n; i++) {
		err = -o[i].result;
		if (i >= (int)done || o[i].result > 0 || err > 4095 ||
		    copy_failed(err)) {
			if (i < (int)done)
				bad(B_RESULT, "SUBMIT op %d: result %d", i,
				    o[i].result);
			else if (faults && b[i].bad)
				continue;	/* never in the model */
			/*
			 * For the model: not carried out, which in fault mode
			 * is an EFAULT before it: as its single ioctl's EFAULT.
			 */
			err = faults && i >= (int)done ? EFAULT : EIO;
		} else if (lost && !o[i].result &&
			   !(b[i].kind == OP_SET1 && o[i].handle)) {
			/* A malformed one did nothing, whatever it reads. */
			if (b[i].bad)
				continue;
			atomic_fetch_add(&fc->unknown_ops, 1);
			err = OUTCOME_UNKNOWN;
		} else if (b[i].bad) {
			atomic_fetch_add(&ops[OP_SUBMIT_EINVAL], 1);
			if (err != EINVAL)
				bad(B_RESULT, "SUBMIT op %d, code %u flags %#x: %s, want EINVAL",
				    i, o[i].op, o[i].flags, strerror(err));
			if (o[i].op == CALLOUT_OP_SET && !err)
				set_done(f, &(struct callout_set){
					 .timeout_ns = o[i].timeout,
					 .period_ns = o[i].period_ns,
					 .cookie = o[i].cookie,
					 .handle = o[i].handle }, 0, before, after);
			continue;
		}
		if (i < (int)done)
			count_fault(F_SUBMIT_OP, err);
		switch (b[i].kind) {
		case OP_SET1:
			set_done(f, &(struct callout_set){
				 .timeout_ns = o[i].timeout,
				 .period_ns = o[i].period_ns,
				 .cookie = o[i].cookie,
				 .handle = o[i].handle }, err, before, after);
			break;
		case OP_UNSET_OK:
		case OP_RESET_OK:
			unset_reset_done(f, b[i].r, b[i].h,
					 b[i].kind == OP_RESET_OK,
					 &(struct callout_reset){
					 .handle = b[i].h,
					 .timeout_ns = o[i].timeout,
					 .period_ns = o[i].period_ns },
					 err, before, after);
			break;
		case OP_TIMEOUT:
			timeout_done(f, b[i].idx, b[i].ia, err, after);
			break;
		default:
			if (b[i].idx >= 0)
				untimeout_done(f, b[i].idx, err);
			else if (err != ENOENT)
				bad(B_RESULT, "SUBMIT UNTIMEOUT of no pair: %s",
				    strerror(err));
		}
	}
}

static void *worker(void *arg)
{
	u64 s = (u64)(uintptr_t)arg;
	struct tfile *f;
	unsigned int x;

	while (!atomic_load(&stop)) {
		f = &files[rnd(&s) % NFILES];
		if (rnd(&s) % 5000 == 0) {
			close_reopen(f);
			continue;
		}
		x = rnd(&s) % 1000;
		pthread_rwlock_rdlock(&f->fd_lock);
		if (x < 300)
			f->live < LIVE_MAX ? op_set(f, &s) :
					     op_unset_reset(f, &s, false);
		else if (x < 450)
			op_unset_reset(f, &s, false);
		else if (x < 570)
			op_unset_reset(f, &s, true);
		else if (x < 680)
			op_timeout(f, &s);
		else if (x < 760)
			op_untimeout(f, &s);
		else if (x < 830)
			op_submit(f, &s);
		else
			read_file(f);
		pthread_rwlock_unlock(&f->fd_lock);
	}
	return NULL;
}

static void *reader(void *arg)
{
	int i, n;

	while (!atomic_load(&stop)) {
		n = 0;
		for (i = 0; i < NFILES; i++) {
			pthread_rwlock_rdlock(&files[i].fd_lock);
			n += read_file(&files[i]);
			pthread_rwlock_unlock(&files[i].fd_lock);
		}
		if (!n)
			usleep(1000);
	}
	return NULL;
}

/* Write "0" or "1" to cpuN/online; 0 or errno. */
static int cpu_online(int cpu, bool on)
{
	char path[64];
	int fd, ret = 0;

	snprintf(path, sizeof(path), CPU_SYSFS "/cpu%d/online", cpu);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, on ? "1" : "0", 1) != 1)
		ret = errno;
	close(fd);
	return ret;
}

static int hotplug_cpus[256], nr_hotplug;

static void *hotplug(void *arg)
{
	u64 s = (u64)(uintptr_t)arg;
	int cpu, err, tries;

	while (!atomic_load(&stop)) {
		cpu = hotplug_cpus[rnd(&s) % nr_hotplug];
		err = cpu_online(cpu, false);
		atomic_fetch_add(&ops[err ? OP_CPU_FAIL : OP_CPU_OFF], 1);
		usleep(20000 + rnd(&s) % 200000);
		if (!err) {
			for (tries = 0; tries < 10000; tries++) {
				err = cpu_online(cpu, true);
				if (err != EBUSY)
					break;
				usleep(1000);
			}
			if (err)
				bad(B_ERRNO, "cpu%d back online: %s", cpu,
				    strerror(err));
			else
				atomic_fetch_add(&ops[OP_CPU_ON], 1);
		}
		usleep(20000 + rnd(&s) % 200000);
	}
	return NULL;
}

static void *debugfs_reader(void *arg)
{
	char path[512], buf[4096];
	struct dirent *d;
	DIR *dir;
	int fd;

	while (!atomic_load(&stop)) {
		dir = opendir(DEBUGFS_DIR);
		if (!dir)
			return NULL;
		while ((d = readdir(dir))) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), DEBUGFS_DIR "/%s", d->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
			atomic_fetch_add(&ops[OP_DEBUGFS], 1);
		}
		closedir(dir);
		usleep(5000);
	}
	return NULL;
}

/* How many one-shots and TIMEOUTs of @f still owe their event. */
static int owed(struct tfile *f)
{
	int i, j, n = 0, open;
	u64 h;

	for (h = 0; h < f->nrecs; h++) {
		struct rec *r = f->recs[h];

		n += r && r->state == R_LIVE && !r->stored &&
		     !r->ep[r->nep - 1].period;
	}
	for (i = 0; i < f->npairs; i++) {
		open = -f->pairs[i].untimed - f->pairs[i].unknown;
		for (j = 0; j < f->pairs[i].na; j++)
			open += !f->pairs[i].a[j].matched;
		n += open > 0 ? open : 0;
	}
	return n;
}

static void read_all(void)
{
	int i;

	for (i = 0; i < NFILES; i++)
		read_file(&files[i]);
}

static bool live_periodic(const struct rec *r)
{
	return r && r->state == R_LIVE && !r->stored &&
	       r->ep[r->nep - 1].period;
}

/*
 * The table thread: into the entry of a live callout of a random file, a
 * deferral of 1-20 ms past now, the cancel mark, an earlier tick, or
 * another generation's value, every few hundred microseconds.
 */
static void *table_thread(void *arg)
{
	u64 seed = (uintptr_t)arg, h, v, tick;
	struct tfile *f;
	struct rec *r;

	while (!atomic_load(&stop)) {
		f = &files[rnd(&seed) % NFILES];
		pthread_rwlock_rdlock(&f->fd_lock);
		pthread_mutex_lock(&f->lock);
		r = pick(f, &seed);
		if (r && r->state == R_LIVE && !r->inflight &&
		    CALLOUT_DUE_INDEX(r->handle) < TABLE_LEN / sizeof(u64)) {
			h = r->handle;
			tick = (now_ns() + 1000000 + rnd(&seed) % 19000000) /
			       tick_ns;
			switch (rnd(&seed) % 8) {
			case 0:
				v = CALLOUT_DUE(h, 0) | CALLOUT_DUE_CANCEL;
				break;
			case 1:
				v = CALLOUT_DUE(h, tick - 1000000000 / tick_ns);
				break;
			case 2:
				/*
				 * A generation 2^23 away: never this slot's
				 * next handle (h + 2^32 would be a store for
				 * it, not a foreign one).
				 */
				v = CALLOUT_DUE(h ^ (1ULL << 63), tick);
				break;
			default:
				v = CALLOUT_DUE(h, tick);
			}
			r->stored = true;
			__atomic_store_n(&f->table[CALLOUT_DUE_INDEX(h)], v,
					 __ATOMIC_RELAXED);
			atomic_fetch_add(&accts[A_STORES], 1);
		}
		pthread_mutex_unlock(&f->lock);
		pthread_rwlock_unlock(&f->fd_lock);
		usleep(rnd(&seed) % 500);
	}
	return NULL;
}

/*
 * A periodic callout still pending must still fire: each live one gives
 * one more event after the storm. Judged by that event, not by the age of
 * the last one, so a host that stalls the guest for seconds cannot pass
 * for a lost callout: the wait ends when every one has fired, and gives up
 * DRAIN_SLACK_NS after the latest of their next due times.
 */
static void await_periodics(void)
{
	u64 deadline = 0, next, h;
	int i, n;

	read_all();
	for (i = 0; i < NFILES; i++) {
		for (h = 0; h < files[i].nrecs; h++) {
			struct rec *r = files[i].recs[h];
			const struct epoch *e;

			if (!live_periodic(r))
				continue;
			e = &r->ep[r->nep - 1];
			r->events_at_stop = r->events;
			next = e->after + e->timeout;
			if (r->last_ep == r->nep - 1)
				next = r->last_expires + e->period;
			if (next > deadline)
				deadline = next;
		}
	}
	deadline += DRAIN_SLACK_NS;
	do {
		usleep(2000);
		read_all();
		for (n = 0, i = 0; i < NFILES; i++)
			for (h = 0; h < files[i].nrecs; h++)
				n += live_periodic(files[i].recs[h]) &&
				     files[i].recs[h]->events ==
				     files[i].recs[h]->events_at_stop;
	} while (n && now_ns() < deadline);

	for (i = 0; i < NFILES; i++) {
		for (h = 0; h < files[i].nrecs; h++) {
			struct rec *r = files[i].recs[h];

			if (!live_periodic(r) || r->events != r->events_at_stop)
				continue;
			bad(B_LOST, "periodic %llu stopped: no event by %llu, last due %llu",
			    r->handle, now_ns(), r->last_expires);
			dump_rec(r, NULL);
		}
	}
}

/* A one-shot that owes its event: say what the kernel thinks of it. */
static void report_lost(struct tfile *f, struct rec *r)
{
	const struct epoch *e = &r->ep[r->nep - 1];
	u64 h = r->handle, now = now_ns();
	int ret;

	ret = ioctl_retry(f->fd, CALLOUT_IOC_UNSET, &h, F_UNSET);
	bad(B_LOST, "one-shot %llu never fired: due %llu now %llu, %d epochs %llu events, UNSET %s",
	    h, e->after + e->timeout, now, r->nep, r->events,
	    ret ? strerror(errno) : "0 (still pending)");
	dump_rec(r, NULL);
}

/*
 * After the storm: every live periodic callout is still armed; every one-shot
 * and TIMEOUT delivers its event. Single-threaded from here.
 */
static void final_accounting(void)
{
	u64 deadline = 0, h;
	int i, j, n;

	await_periodics();
	/*
	 * A callout the table thread stored for may have been put back past
	 * now or ended by a cancel mark: UNSET tells which (0: pending, so
	 * cancelled now; ENOENT: ended, its one event, if any, read below).
	 */
	for (i = 0; i < NFILES; i++) {
		struct tfile *f = &files[i];

		read_file(f);
		for (h = 0; h < f->nrecs; h++) {
			struct rec *r = f->recs[h];

			if (!r || r->state != R_LIVE || !r->stored)
				continue;
			if (!ioctl_retry(f->fd, CALLOUT_IOC_UNSET, &r->handle,
					 F_UNSET)) {
				r->state = R_CANCELLED;
				r->cancelled_by = now_ns();
			} else if (errno == ENOENT) {
				r->state = R_FIRED;
				r->fired_seen = 0;	/* its event may come */
				atomic_fetch_add(&accts[A_STORED_ENDED], 1);
			} else {
				bad(B_ERRNO, "stored-for %llu: UNSET: %s",
				    r->handle, strerror(errno));
				continue;
			}
			f->live--;
		}
	}
	for (i = 0; i < NFILES; i++) {
		struct tfile *f = &files[i];

		for (h = 0; h < f->nrecs; h++) {
			struct rec *r = f->recs[h];

			if (!live_periodic(r))
				continue;
			/* Read its events first: UNSET withdraws a queued one. */
			read_file(f);
			if (ioctl_retry(f->fd, CALLOUT_IOC_UNSET, &r->handle,
					F_UNSET)) {
				bad(B_LOST, "periodic handle %llu not pending at the end: %s",
				    r->handle, strerror(errno));
				continue;
			}
			atomic_fetch_add(&ops[OP_UNSET_OK], 1);
			atomic_fetch_add(&accts[A_PERIODIC_CANCELLED], 1);
			r->state = R_CANCELLED;
			r->cancelled_by = now_ns();
			f->live--;
		}
		if (f->last_due > deadline)
			deadline = f->last_due;
	}
	deadline += DRAIN_SLACK_NS;
	do {
		read_all();
		for (n = 0, i = 0; i < NFILES; i++)
			n += owed(&files[i]);
		if (n)
			usleep(2000);
	} while (n && now_ns() < deadline);
	usleep(100000);		/* anything twice shows now */
	read_all();

	for (i = 0; i < NFILES; i++) {
		struct tfile *f = &files[i];

		for (h = 0; h < f->nrecs; h++) {
			struct rec *r = f->recs[h];

			if (r && r->state == R_LIVE)
				report_lost(f, r);
		}
		for (j = 0; j < f->npairs; j++) {
			struct pair *p = &f->pairs[j];
			int armed = 0, k;

			for (k = 0; k < p->na; k++)
				armed += p->a[k].before <= p->a[k].after;
			/* Each of unknown outcome may have armed or cancelled. */
			if (p->events + p->untimed > armed ||
			    p->events + p->untimed + p->unknown < armed)
				bad(p->events + p->untimed < armed ?
				    B_LOST : B_TIMEOUT_BALANCE,
				    "TIMEOUT arg %llu: %d armed, %d fired, %d untimed",
				    p->arg, armed, p->events, p->untimed);
		}
		check_orphans(f);
		close_file(f);
		free_model(f);
	}
}

static void print_table(double secs, int threads)
{
	int i;

	printf("# torture: %.1f s, %d workers, %d files, tick %llu ns\n",
	       secs, threads, NFILES, tick_ns);
	for (i = 0; i < NR_OPS; i++)
		printf("#   op   %-34s %10llu\n", op_name[i],
		       (u64)atomic_load(&ops[i]));
	for (i = 0; i < NR_ACCTS; i++)
		printf("#   acct %-34s %10llu\n", acct_name[i],
		       (u64)atomic_load(&accts[i]));
	for (i = 0; i < NR_BADS; i++)
		printf("#   bad  %-34s %10llu\n", bad_name[i],
		       (u64)atomic_load(&bads[i]));
	fflush(stdout);
}

/* The faults line: each ENOMEM and EFAULT seen, and the done lost. */
static void print_faults(void)
{
	u64 n;
	int i;

	printf("# faults:");
	for (i = 0; i < NR_FOPS; i++) {
		n = atomic_load(&fc->enomem[i]);
		if (n)
			printf(" %s ENOMEM %llu,", fop_name[i], n);
		n = atomic_load(&fc->efault[i]);
		if (n)
			printf(" %s EFAULT %llu,", fop_name[i], n);
	}
	printf(" SUBMIT done not written back %llu",
	       (u64)atomic_load(&fc->done_lost));
	printf(" (ops of unknown outcome %llu, events of their SETs %llu)\n",
	       (u64)atomic_load(&fc->unknown_ops),
	       (u64)atomic_load(&fc->unknown_events));
	fflush(stdout);
}

static u64 env_u64(const char *name, u64 def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

FIXTURE(torture) {
	int dummy;
};

FIXTURE_SETUP(torture)
{
	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
}

FIXTURE_TEARDOWN(torture)
{
}

/* The harness's alarm is the runner's job: settings, or $TORTURE_SECONDS. */
TEST_F_TIMEOUT(torture, storm, 24 * 3600)
{
	u64 seconds = env_u64("TORTURE_SECONDS", 20);
	u64 seed = env_u64("TORTURE_SEED", now_ns());
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int threads = env_u64("TORTURE_THREADS", 2 * ncpu);
	pthread_t tid[256], hp, dbg, rd, tbl;
	struct callout_info info;
	bool have_hp = false, have_dbg;
	pthread_rwlockattr_t attr;
	u64 start, total = 0;
	char path[64];
	int i;

	if (setup_skipped(_metadata))
		return;
	ASSERT_LE(threads, 256);
	TH_LOG("seed %llu, %llu s, %d workers", seed, seconds, threads);
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
				      PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	for (i = 0; i < NFILES; i++) {
		pthread_rwlock_init(&files[i].fd_lock, &attr);
		pthread_mutex_init(&files[i].read_lock, NULL);
		pthread_mutex_init(&files[i].lock, NULL);
		open_file(&files[i]);
	}
	ASSERT_EQ(0, ioctl_retry(files[0].fd, CALLOUT_IOC_INFO, &info, F_INFO));
	tick_ns = info.tick_ns;
	ASSERT_LE(TMAX_NS, info.max_timeout_ns);

	for (i = 1; i < (int)ARRAY_SIZE(hotplug_cpus); i++) {
		snprintf(path, sizeof(path), CPU_SYSFS "/cpu%d/online", i);
		if (access(path, W_OK) == 0 && read_ull(path) == 1)
			hotplug_cpus[nr_hotplug++] = i;
	}
	if (nr_hotplug) {
		have_hp = true;
		ASSERT_EQ(0, pthread_create(&hp, NULL, hotplug,
					    (void *)(uintptr_t)(seed ^ 0x5a5a)));
	} else {
		printf("# hotplug: no CPU can go offline here, that part skipped\n");
	}
	have_dbg = access(DEBUGFS_DIR, R_OK) == 0;
	if (!have_dbg)
		printf("# debugfs: no %s, that part skipped\n", DEBUGFS_DIR);
	else
		ASSERT_EQ(0, pthread_create(&dbg, NULL, debugfs_reader, NULL));
	ASSERT_EQ(0, pthread_create(&rd, NULL, reader, NULL));
	ASSERT_EQ(0, pthread_create(&tbl, NULL, table_thread,
				    (void *)(uintptr_t)(seed ^ 0x7ab1e)));

	start = now_ns();
	for (i = 0; i < threads; i++)
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, worker,
					    (void *)(uintptr_t)(seed + 977 * (i + 1))));
	sleep(seconds);
	atomic_store(&stop, true);
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	pthread_join(rd, NULL);
	pthread_join(tbl, NULL);
	if (have_hp)
		pthread_join(hp, NULL);
	if (have_dbg)
		pthread_join(dbg, NULL);
	for (i = 0; i < nr_hotplug; i++)
		EXPECT_EQ(0, cpu_online(hotplug_cpus[i], true));

	final_accounting();
	print_table((now_ns() - start) / 1e9, threads);
	if (faults)
		print_faults();
	for (i = 0; i < NR_BADS; i++)
		total += atomic_load(&bads[i]);
	EXPECT_EQ(0, total) {
		TH_LOG("%llu discrepancies (seed %llu)", total, seed);
	}
	EXPECT_LT(0, atomic_load(&accts[A_EVENTS]));
	EXPECT_LT(0, atomic_load(&ops[OP_UNSET_OK]));
}

/*
 * Fault mode only (main() drops it otherwise): the storm saw an ENOMEM or
 * an EFAULT, so the injection reached callout.
 */
TEST_F(torture, faults_reached)
{
	u64 enomem = 0, efault = 0;
	int i;

	if (setup_skipped(_metadata))
		return;
	for (i = 0; i < NR_FOPS; i++) {
		enomem += atomic_load(&fc->enomem[i]);
		efault += atomic_load(&fc->efault[i]);
	}
	EXPECT_LT(0, enomem + efault) {
		TH_LOG("no ENOMEM and no EFAULT: the injection did not reach callout");
	}
}

/* The harness's main(), which ours calls once the list of cases is set. */
#define main harness_main
TEST_HARNESS_MAIN
#undef main

/*
 * Take @t off its fixture's list of cases: the harness's, linked by next
 * from the head, whose prev is the tail (each other's prev its previous).
 */
static void unregister_test(struct __test_metadata *t)
{
	struct __fixture_metadata *fx = t->fixture;

	if (fx->tests == t)
		fx->tests = t->next;
	else
		t->prev->next = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else if (fx->tests)
		fx->tests->prev = t->prev;
}

int main(int argc, char **argv)
{
	const char *v = getenv("CALLOUT_FAULTS");

	faults = v && !strcmp(v, "1");
	if (!faults) {
		unregister_test(&_torture_faults_reached_object);
	} else {
		fc = mmap(NULL, sizeof(*fc), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (fc == MAP_FAILED) {
			perror("mmap");
			return KSFT_FAIL;
		}
	}
	return harness_main(argc, argv);
}
