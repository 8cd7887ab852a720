// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_test - random ioctls and reads on /dev/callout, each result checked
 * against the ABI (Documentation/callout.rst).
 *
 *	fuzz_test [-n CALLS] [-s SEED]	(or $CALLOUT_FUZZ_CALLS, $CALLOUT_FUZZ_SEED)
 *
 * Commands are valid, neighbours of valid ones (the same type and number with
 * another size or direction, numbers just past the last one) or garbage;
 * arguments point to a valid buffer, NULL, an unmapped page, a read-only page,
 * a buffer running into an unmapped page, or kernel and non-canonical
 * addresses; fields are random, boundary or plausible values. A model of each
 * file (which handles it was given and which are still armed, which TIMEOUT
 * pairs it armed) predicts the errno of every call: exactly EFAULT for a bad
 * pointer, ENOTTY for an unknown command, the errno of the first bad field,
 * ENOENT for a handle the file was never given or cancelled; ENOSPC/ENOMEM
 * wherever something is allocated. Events read in between must be for a
 * handle the file holds, never early, never for a cancelled handle, never a
 * second one for a one-shot. Files are closed and reopened with callouts
 * pending.
 *
 * CALLOUT_IOC_SUBMIT gets random batches of every operation, valid ones and
 * ones with an unknown code, flags or a field the operation does not read,
 * behind a header whose flags, reserved and nr are sometimes wrong, in an
 * array that is whole, read-only, missing, or runs into an unmapped page
 * after k whole operations. The model predicts the return and done (EFAULT
 * and done == k for that last one), takes each carried-out operation's
 * result as the single ioctl's, in array order, and no result may be
 * written for one not carried out.
 *
 * Each file's due-time table is mapped, and stores go into the entries of
 * its handles between the calls: a later tick (a deferral), an earlier one,
 * the cancel mark, another generation's tick, or garbage. A deferral only
 * makes an event later, which the model allows; after a cancel mark of a
 * handle armed, no event of it may have fired after the store, unless a
 * RESET re-armed it since (which writes the entry).
 *
 * Afterwards valid traffic must still work and debugfs user_callouts and
 * pending must be back at their values from before.
 *
 * Fault mode ($CALLOUT_FAULTS=1, scripts/check-faults.sh: callout's
 * allocations and user copies fail on purpose): ENOMEM is accepted where
 * callout allocates (open, mmap, SET, TIMEOUT, a SUBMIT's SET and TIMEOUT),
 * as ENOSPC is, and EFAULT from every call that copies to or from user
 * memory, valid pointers too, each a call that did nothing: a single ioctl
 * copies its argument in before it acts, INFO only copies out, and a SET
 * whose handle cannot be written back is undone before it is armed; a
 * read() whose copy failed leaves its events queued (it returns the batches
 * copied before, if any). A SUBMIT that gave EFAULT is told by what it
 * wrote: the ops with a result were carried out, as the kernel writes 0 to
 * an op's result before it carries it out, and done says as many, or, not
 * written back at the end, reads the 0 written at the start (a header that
 * could not be read leaves done as it was, with nothing carried out). The
 * results are written back in order, so of the ops carried out those after
 * the last whose result or SET handle reads as written may have had theirs
 * left unwritten, reading 0: the outcome of each is unknown and it is held
 * to less. Such a SET may have armed under a handle the file was not given,
 * whose events are then taken as its by their cookie; such an UNSET may
 * have cancelled, so no event of its handle may have fired after it; such a
 * RESET may have re-armed; such a TIMEOUT may have armed one more of its
 * pair; such an UNTIMEOUT may have cancelled one. An open() or mmap() that
 * gave ENOMEM, a call outside the storm (INFO, the final UNSETs and reads,
 * the valid traffic) that gave ENOMEM or EFAULT, and an open of debugfs
 * stats that gave ENOMEM, is tried again, RETRIES times at most. Every
 * other result and every event is held to the ABI as above. The faults seen
 * are counted per command class and printed, and a fourth case, which only
 * fault mode has, fails if there were none.
 *
 * The default is 100000 calls (make check); -n 1000000 for the debug kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "callout_test.h"
#include "handle_map.h"

#define MS		1000000ULL
#define NFILES		4
#define PAGE		4096
#define MAX_REPORTS	20

/* What a handle of a file is, as far as the model knows. */
enum hstate { H_UNUSED, H_ARMED, H_CANCELLED, H_FIRED };

struct handle_model {
	unsigned char state;
	unsigned char ever_periodic;
	unsigned char unknown_set;	/* learnt from an event: see the top */
	unsigned int events;
	__u64 cookie;
	__u64 earliest;	/* no event of it may be due before this */
	__u64 lazy_at;	/* cancel mark stored, done by then; 0: none */
	__u64 gone_by;	/* UNSET of unknown outcome done by then; 0: none */
};

/* A SET of unknown outcome (fault mode): what it armed, if it did. */
struct unknown_set {
	__u64 cookie;
	__u64 earliest;
	bool periodic;
};

struct file_model {
	int fd;
	struct handle_map hmap;	/* handle -> its handle_model */
	__u64 *given;		/* every handle SET gave, in order */
	size_t nr_given, cap_given;
	unsigned int timeouts[8][4];	/* TIMEOUTs armed per func/arg pair */
	unsigned int unknown_timeouts[8][4];	/* of unknown outcome */
	unsigned long wild_timeouts;	/* armed with a random func or arg */
	struct unknown_set *unknown_sets;	/* SETs of unknown outcome */
	size_t nr_unknown_sets, cap_unknown_sets;
	__u64 *table;			/* its due-time table, TABLE_LEN */
};

/* Mapped of each table: 2^27 slots, far more than a file here uses */
#define TABLE_LEN	((size_t)1 << 30)

static struct file_model files[NFILES];
static struct callout_info info;
static __u64 rng_state;
static unsigned long calls, bad, events_read, reopens, stores;
static char *valid_page, *ro_page, *gap_page;

/* errno histogram: [class][errno] */
enum {
	C_INFO, C_SET, C_UNSET, C_RESET, C_TIMEOUT, C_UNTIMEOUT, C_SUBMIT,
	C_OTHER, C_READ, C_OP, NR_CLASSES
};

static const char *const class_names[] = {
	"INFO", "SET", "UNSET", "RESET", "TIMEOUT", "UNTIMEOUT", "SUBMIT",
	"unknown-cmd", "read", "SUBMIT op",
};

#define NR_ERRNO	134	/* the last bucket counts the rest */
static unsigned long hist[NR_CLASSES][NR_ERRNO + 1];

/* ---- fault mode ---- */

/* How often fault mode tries an open(), mmap() or ioctl() again */
#define RETRIES		1000

static bool faults;		/* $CALLOUT_FAULTS=1 */

/* The classes of faults: the command classes, open() and mmap() */
enum { F_OPEN = NR_CLASSES, F_MMAP, NR_FCLASSES };

/*
 * What fault mode saw: ENOMEM and EFAULT results per class (an EFAULT only
 * where the pointers were good), SUBMITs whose done was not written back,
 * ops of unknown outcome, and the events of handles such a SET may have
 * armed.
 */
static struct fault_counts {
	unsigned long enomem[NR_FCLASSES], efault[NR_FCLASSES];
	unsigned long done_lost, unknown_ops, unknown_events;
} fc;

/* Count @err of @fclass if the injection gives it (fault mode). */
static void count_fault(int fclass, int err)
{
	if (!faults)
		return;
	if (err == ENOMEM)
		fc.enomem[fclass]++;
	else if (err == EFAULT)
		fc.efault[fclass]++;
}

/* In fault mode an EFAULT is a copy that failed: the call did nothing. */
static bool copy_failed(int err)
{
	return faults && err == EFAULT;
}

/*
 * Whether a call outside the model that failed with @err is tried again:
 * in fault mode, after ENOMEM, or EFAULT if it copies (@copies), each
 * counted in @fclass, RETRIES times at most (*@tries so far).
 */
static bool try_again(int fclass, int err, bool copies, int *tries)
{
	if (!faults || *tries >= RETRIES ||
	    (err != ENOMEM && !(copies && err == EFAULT)))
		return false;
	count_fault(fclass, err);
	++*tries;
	return true;
}

static const char *fault_name(int fclass)
{
	return fclass == F_OPEN ? "open" : fclass == F_MMAP ? "mmap" :
	       class_names[fclass];
}

/* The "errno" of a SUBMIT's op whose result may not have been written */
#define OUTCOME_UNKNOWN		(-1)

static __u64 rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static __u64 rnd_below(__u64 n)
{
	return n ? rnd() % n : 0;
}

static long long stat_value(const char *key)
{
	size_t len = strlen(key);
	long long v = -1;
	char line[256];
	int tries = 0;
	FILE *f;

	/* Its open allocates in callout: in fault mode it may be refused. */
	while (!(f = fopen("/sys/kernel/debug/callout/stats", "re")) &&
	       faults && errno == ENOMEM && tries++ < RETRIES)
		;
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

static void report(const char *fmt, ...)
{
	va_list ap;

	if (++bad > MAX_REPORTS)
		return;
	va_start(ap, fmt);
	printf("# call %lu: ", calls);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

/* The model of a handle this file was given, or NULL. */
static struct handle_model *handle_of(struct file_model *m, __u64 handle)
{
	return handle_map_get(&m->hmap, handle);
}

/* A handle SET just gave: the model of it, or NULL if it was given before. */
static struct handle_model *new_handle(struct file_model *m, __u64 handle)
{
	struct handle_model *h;

	if (!handle || handle_of(m, handle))
		return NULL;
	h = calloc(1, sizeof(*h));
	if (m->nr_given == m->cap_given) {
		m->cap_given = m->cap_given ? 2 * m->cap_given : 1024;
		m->given = realloc(m->given, m->cap_given * sizeof(*m->given));
	}
	if (!h || !m->given)
		ksft_exit_fail_msg("out of memory\n");
	m->given[m->nr_given++] = handle;
	handle_map_put(&m->hmap, handle, h);
	return h;
}

static void free_model(struct file_model *m)
{
	size_t i;

	for (i = 0; i < m->nr_given; i++)
		free(handle_of(m, m->given[i]));
	handle_map_free(&m->hmap);
	free(m->given);
	free(m->unknown_sets);
	if (m->table)
		munmap(m->table, TABLE_LEN);
	memset(m, 0, sizeof(*m));
}

/* In fault mode the file may not be allocated: then try again. */
static int open_dev(int flags)
{
	int fd, tries = 0;

	do
		fd = open(CALLOUT_DEV, flags);
	while (fd < 0 && try_again(F_OPEN, errno, false, &tries));
	return fd;
}

static void open_file(struct file_model *m)
{
	int tries = 0;

	free_model(m);
	m->fd = open_dev(O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (m->fd < 0)
		ksft_exit_fail_msg("open %s: %s\n", CALLOUT_DEV, strerror(errno));
	do
		m->table = mmap(NULL, TABLE_LEN, PROT_READ | PROT_WRITE,
				MAP_SHARED, m->fd, 0);
	while (m->table == MAP_FAILED &&
	       try_again(F_MMAP, errno, false, &tries));
	if (m->table == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
}

/*
 * A store into the entry of a handle @m was given (so its page exists):
 * see the top. Not a call: calls counts system calls.
 */
static void do_store(struct file_model *m)
{
	__u64 handle, tick, v, idx;
	struct handle_model *h;
	size_t i;

	if (!m->nr_given)
		return;
	handle = m->given[rnd_below(m->nr_given)];
	idx = CALLOUT_DUE_INDEX(handle);
	if (idx >= TABLE_LEN / sizeof(__u64))
		return;
	tick = now_ns() / info.tick_ns;
	switch (rnd_below(6)) {
	case 0:
	case 1:
		v = CALLOUT_DUE(handle, tick + 1 + rnd_below(2000));
		break;
	case 2:
		v = CALLOUT_DUE(handle, 0) | CALLOUT_DUE_CANCEL;
		break;
	case 3:
		v = CALLOUT_DUE(handle, tick - rnd_below(2000));
		break;
	case 4:
		/* A generation 2^23 away, never this slot's next handle's */
		v = CALLOUT_DUE(handle ^ (1ULL << 63), tick + rnd_below(2000)) |
		    (rnd_below(2) ? CALLOUT_DUE_CANCEL : 0);
		break;
	default:
		v = rnd();
	}
	__atomic_store_n(&m->table[idx], v, __ATOMIC_RELAXED);
	stores++;
	/*
	 * Whatever the slot's handle had stored is replaced, also by a store
	 * of another generation's: a cancel mark stands only if this is one.
	 */
	for (i = 0; i < m->nr_given; i++) {
		if (CALLOUT_DUE_INDEX(m->given[i]) != idx)
			continue;
		h = handle_of(m, m->given[i]);
		if (h)
			h->lazy_at = 0;
	}
	h = handle_of(m, handle);
	if (h && h->state == H_ARMED && v >> CALLOUT_DUE_GEN_SHIFT ==
	    handle >> 32 && (v & CALLOUT_DUE_CANCEL))
		h->lazy_at = now_ns();
}

/* A timeout or period: mostly plausible, sometimes at or past the limits. */
static __u64 rnd_time(bool period)
{
	__u64 max = info.max_timeout_ns, tick = info.tick_ns;

	switch (rnd_below(16)) {
	case 0:
		return 0;
	case 1:
		return max;
	case 2:
		return max + 1 + rnd_below(3);
	case 3:
		return rnd();
	case 4:
		return ~0ULL - rnd_below(2);
	case 5:
		return rnd_below(tick + 1);
	case 6:
		return tick - 1;
	case 7:
		return max - rnd_below(tick);
	case 8: case 9:
		return period ? 0 : 1 + rnd_below(3 * tick);
	default:
		return period && rnd_below(2) ? 0 : tick + rnd_below(50 * MS);
	}
}

/* SET and RESET's check of timeout and period: 0 or -errno. */
static int times_errno(__u64 timeout, __u64 period)
{
	if (!timeout || (period && period < info.tick_ns))
		return -EINVAL;
	if (timeout > info.max_timeout_ns || period > info.max_timeout_ns)
		return -ERANGE;
	return 0;
}

/* A handle to name: mostly one this file was given, sometimes not. */
static __u64 rnd_handle(struct file_model *m)
{
	switch (rnd_below(8)) {
	case 0:
		return 0;
	case 1:
		return rnd();
	case 2:		/* the next slots: often never given */
		return m->nr_given ? m->given[m->nr_given - 1] + 1 + rnd_below(3) : 1;
	case 3: {
		struct file_model *o = &files[rnd_below(NFILES)];

		return o->nr_given ? o->given[o->nr_given - 1] : 0;
	}
	default:
		return m->nr_given ? m->given[rnd_below(m->nr_given)] : 0;
	}
}

enum ptr_kind { P_VALID, P_RO, P_NULL, P_UNMAPPED, P_GAP, P_KERNEL, P_NONCANON,
		NR_PTR };

static char *rnd_ptr(enum ptr_kind k, size_t size)
{
	switch (k) {
	case P_VALID:
		return valid_page + rnd_below(PAGE - size + 1);
	case P_RO:
		return ro_page + rnd_below(PAGE - size + 1);
	case P_NULL:
		return NULL;
	case P_UNMAPPED:
		return gap_page + rnd_below(PAGE);
	case P_GAP:	/* starts mapped, runs into the unmapped page */
		return gap_page - 1 - rnd_below(size - 1);
	case P_KERNEL:
		return (char *)(rnd_below(2) ? 0xffffffff81000000ULL :
				0xffff888000000000ULL) + rnd_below(PAGE);
	default:
		return (char *)(0x8000000000000000ULL + rnd_below(1ULL << 40));
	}
}

/* The commands the VFS answers for every file: not the driver's. */
static bool vfs_cmd(unsigned int cmd)
{
	unsigned int type = _IOC_TYPE(cmd);

	return type == 0 || type == 'T' || type == 'X' || type == 'f' ||
	       type == 0x94;
}

static const unsigned int valid_cmds[] = {
	CALLOUT_IOC_INFO, CALLOUT_IOC_SET, CALLOUT_IOC_UNSET,
	CALLOUT_IOC_RESET, CALLOUT_IOC_TIMEOUT, CALLOUT_IOC_UNTIMEOUT,
	CALLOUT_IOC_SUBMIT,
};

static unsigned int rnd_cmd(void)
{
	unsigned int cmd, c;

	for (;;) {
		c = valid_cmds[rnd_below(ARRAY_SIZE(valid_cmds))];
		switch (rnd_below(10)) {
		case 0:	/* same type and number, another size */
			cmd = _IOC(_IOC_DIR(c), CALLOUT_IOC_MAGIC, _IOC_NR(c),
				   rnd_below(2) ? rnd_below(_IOC_SIZEMASK + 1) :
				   _IOC_SIZE(c) + 8 - rnd_below(17));
			break;
		case 1:	/* another direction */
			cmd = _IOC(rnd_below(4), CALLOUT_IOC_MAGIC, _IOC_NR(c),
				   _IOC_SIZE(c));
			break;
		case 2:	/* the numbers around the defined ones */
			cmd = _IOC(_IOC_DIR(c), CALLOUT_IOC_MAGIC,
				   rnd_below(16), _IOC_SIZE(c));
			break;
		case 3:	/* garbage */
			cmd = (unsigned int)rnd();
			break;
		default:
			cmd = c;
		}
		if (!vfs_cmd(cmd))
			return cmd;
	}
}

static int cmd_class(unsigned int cmd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(valid_cmds); i++)
		if (cmd == valid_cmds[i])
			return i;
	return C_OTHER;
}

/*
 * The event @ev of a handle @m was not given: the handle of a SET of
 * unknown outcome with its cookie, from now on one the file was given, or
 * NULL if there is none.
 */
static struct handle_model *unknown_set_of(struct file_model *m,
					   const struct callout_event *ev)
{
	struct unknown_set *u;
	struct handle_model *h;
	size_t i;

	for (i = 0; i < m->nr_unknown_sets; i++)
		if (m->unknown_sets[i].cookie == ev->cookie)
			break;
	if (i == m->nr_unknown_sets)
		return NULL;
	h = new_handle(m, ev->handle);
	if (!h)
		return NULL;
	u = &m->unknown_sets[i];
	h->state = H_ARMED;
	h->cookie = u->cookie;
	h->ever_periodic = u->periodic;
	h->earliest = u->earliest;
	h->unknown_set = 1;
	*u = m->unknown_sets[--m->nr_unknown_sets];
	return h;
}

/* One event read back: is it one the model allows? */
static void check_event(struct file_model *m, const struct callout_event *ev,
			unsigned long long read_at)
{
	struct handle_model *h;

	events_read++;
	if (ev->fired_ns < ev->expires_ns || ev->fired_ns > read_at)
		report("event %llu fired at %llu, due %llu, read at %llu",
		       ev->handle, ev->fired_ns, ev->expires_ns, read_at);
	if (ev->flags == CALLOUT_EV_TIMEOUT) {
		if (!ev->handle && (ev->cookie >= 8 || ev->arg >= 4) &&
		    m->wild_timeouts)
			m->wild_timeouts--;
		else if (ev->handle || ev->cookie >= 8 || ev->arg >= 4 ||
			 (!m->timeouts[ev->cookie][ev->arg] &&
			  !m->unknown_timeouts[ev->cookie][ev->arg]))
			report("TIMEOUT event %llx/%llx/%llx not armed",
			       ev->handle, ev->cookie, ev->arg);
		else if (m->timeouts[ev->cookie][ev->arg])
			m->timeouts[ev->cookie][ev->arg]--;
		else
			m->unknown_timeouts[ev->cookie][ev->arg]--;
		return;
	}
	if ((ev->flags & ~(CALLOUT_EV_PERIODIC | CALLOUT_EV_LAST)) || ev->arg ||
	    ev->flags == CALLOUT_EV_LAST) {
		report("event flags %#x arg %llx", ev->flags, ev->arg);
		return;
	}
	h = handle_of(m, ev->handle);
	if (!h)
		h = unknown_set_of(m, ev);
	if (!h || h->state == H_UNUSED || h->state == H_CANCELLED) {
		report("event for handle %llu, %s", ev->handle,
		       h && h->state == H_CANCELLED ? "cancelled" :
		       "never given");
		return;
	}
	if (h->lazy_at && ev->fired_ns >= h->lazy_at)
		report("event of %llu fired at %llu, after its cancel mark at %llu",
		       ev->handle, ev->fired_ns, h->lazy_at);
	if (h->gone_by && ev->fired_ns >= h->gone_by)
		report("event of %llu fired at %llu, after its UNSET of unknown outcome by %llu",
		       ev->handle, ev->fired_ns, h->gone_by);
	if (ev->cookie != h->cookie || ev->expires_ns < h->earliest)
		report("event of %llu: cookie %llx want %llx, due %llu, earliest %llu",
		       ev->handle, ev->cookie, h->cookie, ev->expires_ns,
		       h->earliest);
	if (++h->events > 1 && !h->ever_periodic)
		report("second event of one-shot %llu", ev->handle);
	if (h->unknown_set)
		fc.unknown_events++;
	if (!h->ever_periodic)
		h->state = H_FIRED;
}

static void do_read(struct file_model *m)
{
	static struct callout_event evs[64];
	enum ptr_kind k = rnd_below(4) ? P_VALID : rnd_below(NR_PTR);
	size_t count, i;
	unsigned long long at;
	ssize_t n;
	void *buf;
	int want;

	switch (rnd_below(8)) {
	case 0:
		count = rnd_below(sizeof(*evs));
		break;
	case 1:
		count = rnd_below(sizeof(evs) + 1);
		break;
	default:
		count = sizeof(*evs) * (1 + rnd_below(64));
	}
	buf = k == P_VALID ? (void *)evs : rnd_ptr(k, sizeof(*evs));
	calls++;
	n = read(m->fd, buf, count);
	at = now_ns();
	hist[C_READ][n >= 0 ? 0 : errno < NR_ERRNO ? errno : NR_ERRNO]++;
	if (count < sizeof(*evs)) {
		/* The VFS refuses a kernel buffer before the driver looks. */
		if (n < 0 && errno == EFAULT && k >= P_KERNEL)
			return;
		if (n >= 0 || errno != EINVAL)
			report("read(%zu) = %zd (%s), want EINVAL", count, n,
			       n < 0 ? strerror(errno) : "");
		return;
	}
	if (n < 0) {
		/* A copy that failed took nothing: the events stay queued. */
		if (k == P_VALID && copy_failed(errno)) {
			count_fault(C_READ, EFAULT);
			return;
		}
		want = k == P_VALID ? EAGAIN : errno == EAGAIN ? EAGAIN : EFAULT;
		if (errno != want)
			report("read(%zu) to ptr kind %d: %s, want %s", count,
			       k, strerror(errno), strerror(want));
		return;
	}
	if (k != P_VALID || n % sizeof(*evs) || (size_t)n > count) {
		report("read(%zu) to ptr kind %d returned %zd", count, k, n);
		return;
	}
	for (i = 0; i < n / sizeof(*evs); i++)
		check_event(m, &evs[i], at);
}

/* Fill the argument with random values the model can predict from. */
static void fill_arg(int class, void *arg, struct file_model *m)
{
	switch (class) {
	case C_SET: {
		struct callout_set *s = arg;

		s->timeout_ns = rnd_time(false);
		s->period_ns = rnd_time(true);
		s->cookie = rnd();
		s->handle = rnd();	/* out only: what is in it is ignored */
		break;
	}
	case C_UNSET:
		*(__u64 *)arg = rnd_handle(m);
		break;
	case C_RESET: {
		struct callout_reset *r = arg;

		r->handle = rnd_handle(m);
		r->timeout_ns = rnd_time(false);
		r->period_ns = rnd_time(true);
		break;
	}
	case C_TIMEOUT: {
		struct callout_timeout *t = arg;

		t->func = rnd_below(16) ? rnd_below(8) : rnd();
		t->arg = rnd_below(16) ? rnd_below(4) : rnd();
		t->ticks = rnd_below(4) ? 1 + rnd_below(50) :
			   rnd_time(false) / info.tick_ns +
			   rnd_below(2) * rnd_below(3);
		break;
	}
	case C_UNTIMEOUT: {
		struct callout_untimeout *u = arg;

		u->func = rnd_below(16) ? rnd_below(8) : rnd();
		u->arg = rnd_below(16) ? rnd_below(4) : rnd();
		break;
	}
	default: {
		__u64 garbage[4] = { rnd(), rnd(), rnd(), rnd() };

		memcpy(arg, garbage, sizeof(garbage));
	}
	}
}

/* Is @err one the call may give, @want_fields being what its fields ask? */
static bool errno_ok(int err, int want_fields, bool may_alloc,
		     bool may_enoent)
{
	if (err == want_fields)
		return true;
	/* Allocation fails before a handle is written back. */
	if (may_alloc && (err == ENOSPC || err == ENOMEM))
		return true;
	return !want_fields && may_enoent && err == ENOENT;
}

/*
 * The model's side of a SUBMIT op of unknown outcome (fault mode): @class
 * and @copy as for model_call(). Every outcome its fields allow is held
 * possible (see the top).
 */
static void model_unknown(struct file_model *m, int class, const void *copy,
			  unsigned long long before)
{
	struct handle_model *h;

	fc.unknown_ops++;
	switch (class) {
	case C_SET: {
		const struct callout_set *s = copy;
		struct unknown_set *u;

		if (times_errno(s->timeout_ns, s->period_ns))
			break;		/* refused: nothing armed */
		if (m->nr_unknown_sets == m->cap_unknown_sets) {
			m->cap_unknown_sets = m->cap_unknown_sets ?
					      2 * m->cap_unknown_sets : 16;
			m->unknown_sets = realloc(m->unknown_sets,
						  m->cap_unknown_sets *
						  sizeof(*m->unknown_sets));
			if (!m->unknown_sets)
				ksft_exit_fail_msg("out of memory\n");
		}
		u = &m->unknown_sets[m->nr_unknown_sets++];
		u->cookie = s->cookie;
		u->earliest = before + s->timeout_ns;
		u->periodic = !!s->period_ns;
		break;
	}
	case C_UNSET:
		/*
		 * Cancelled, or ended first: either way its handle is gone,
		 * and no event of it fires from now on.
		 */
		h = handle_of(m, *(const __u64 *)copy);
		if (h && h->state == H_ARMED && !h->gone_by)
			h->gone_by = now_ns();
		break;
	case C_RESET: {
		const struct callout_reset *r = copy;

		h = handle_of(m, r->handle);
		if (times_errno(r->timeout_ns, r->period_ns) || !h ||
		    h->state != H_ARMED || h->gone_by)
			break;		/* refused, or ENOENT */
		/* Re-armed, cancelled or neither: its events as re-armed. */
		h->lazy_at = 0;
		h->ever_periodic |= !!r->period_ns;
		if (before + r->timeout_ns < h->earliest)
			h->earliest = before + r->timeout_ns;
		break;
	}
	case C_TIMEOUT: {
		const struct callout_timeout *t = copy;

		if (!t->ticks || t->ticks > info.max_timeout_ns / info.tick_ns)
			break;		/* refused: nothing armed */
		if (t->func < 8 && t->arg < 4)
			m->unknown_timeouts[t->func][t->arg]++;
		else
			m->wild_timeouts++;
		break;
	}
	default:
		/* UNTIMEOUT: one cancelled or none; events may only be fewer. */
		break;
	}
}

/*
 * The model's side of one SET, UNSET, RESET, TIMEOUT or UNTIMEOUT that the
 * kernel carried out: @copy is the argument it was given (a struct of the
 * single ioctl), @handle what a SET wrote back, @err its errno or
 * OUTCOME_UNKNOWN, @ro whether the argument could not be written back (a
 * single SET: EFAULT), @before the clock before the call, @fclass the
 * class its faults count in: the command's, or C_OP for a SUBMIT's op,
 * which copies nothing itself. Reports a result the ABI does not allow and
 * follows the one it got.
 */
static void model_call(struct file_model *m, int class, const void *copy,
		       __u64 handle, int err, bool ro, unsigned long long before,
		       const char *what, int fclass)
{
	bool may_alloc = false, may_enoent = false;
	struct handle_model *h = NULL;
	int want = 0;

	if (err == OUTCOME_UNKNOWN) {
		model_unknown(m, class, copy, before);
		return;
	}
	switch (class) {
	case C_SET: {
		const struct callout_set *s = copy;

		want = -times_errno(s->timeout_ns, s->period_ns);
		if (!want && ro)
			want = EFAULT;	/* and nothing stays armed */
		may_alloc = !want || want == EFAULT;
		if (err)
			break;
		h = new_handle(m, handle);
		if (!h) {
			report("%s: SET gave handle %llu, given before or 0",
			       what, handle);
			break;
		}
		h->state = H_ARMED;
		h->cookie = s->cookie;
		h->ever_periodic = !!s->period_ns;
		h->earliest = before + s->timeout_ns;
		break;
	}
	case C_UNSET:
		h = handle_of(m, *(const __u64 *)copy);
		/* Armed: pending, or fired meanwhile. Else never pending. */
		may_enoent = true;
		want = h && h->state == H_ARMED ? 0 : ENOENT;
		if (!err && h)
			h->state = H_CANCELLED;
		break;
	case C_RESET: {
		const struct callout_reset *r = copy;

		want = -times_errno(r->timeout_ns, r->period_ns);
		h = handle_of(m, r->handle);
		if (!want) {
			may_enoent = true;
			want = h && h->state == H_ARMED ? 0 : ENOENT;
			/* The scheme may refuse the time: then it is cancelled. */
			may_alloc = want == 0;
		}
		if (h && !err) {
			h->lazy_at = 0;		/* RESET wrote the entry */
			h->ever_periodic |= !!r->period_ns;
			if (before + r->timeout_ns < h->earliest)
				h->earliest = before + r->timeout_ns;
		}
		if (h && (err == ENOSPC || err == ERANGE) && !want)
			h->state = H_CANCELLED;
		break;
	}
	case C_TIMEOUT: {
		const struct callout_timeout *t = copy;

		if (!t->ticks)
			want = EINVAL;
		else if (t->ticks > info.max_timeout_ns / info.tick_ns)
			want = ERANGE;
		may_alloc = !want;
		if (!err && t->func < 8 && t->arg < 4)
			m->timeouts[t->func][t->arg]++;
		else if (!err)
			m->wild_timeouts++;
		break;
	}
	case C_UNTIMEOUT: {
		const struct callout_untimeout *u = copy;
		bool ours = u->func < 8 && u->arg < 4;
		bool armed = ours && m->timeouts[u->func][u->arg];
		bool maybe = ours && m->unknown_timeouts[u->func][u->arg];

		may_enoent = true;
		want = armed || maybe ? 0 : ENOENT;
		if (!err && armed)
			m->timeouts[u->func][u->arg]--;
		else if (!err && maybe)
			m->unknown_timeouts[u->func][u->arg]--;
		break;
	}
	}
	if (errno_ok(err, want, may_alloc, may_enoent) ||
	    (fclass != C_OP && copy_failed(err))) {
		if (err != want)
			count_fault(fclass, err);
		return;
	}
	report("%s %s: %s, want %s", what, class_names[class],
	       err ? strerror(err) : "0", want ? strerror(want) : "0");
}

/*
 * SUBMIT's operations: an area that holds CALLOUT_SUBMIT_MAX + 1 of them
 * and ends at an unmapped page, and a read-only page of them. A result no
 * call gives marks an operation not carried out.
 */
#define OPS_PAGES	14
#define NOT_WRITTEN	0x5a5a5a5a
static char *ops_area, *ops_gap, *ops_ro;
static unsigned long submit_ops, submit_short;

/* A random operation, mostly valid, sometimes not (code, flags, a field). */
static void fill_op(struct callout_op *o, struct file_model *m)
{
	static const int classes[] = {
		0, C_SET, C_UNSET, C_RESET, C_TIMEOUT, C_UNTIMEOUT,
	};
	unsigned int code = 1 + rnd_below(5);
	union {
		struct callout_set s;
		struct callout_reset r;
		struct callout_timeout t;
		struct callout_untimeout u;
		__u64 h;
	} a;

	memset(o, 0, sizeof(*o));
	fill_arg(classes[code], &a, m);
	o->op = code;
	o->result = NOT_WRITTEN;
	switch (code) {
	case CALLOUT_OP_SET:
		o->timeout = a.s.timeout_ns;
		o->period_ns = a.s.period_ns;
		o->cookie = a.s.cookie;
		o->handle = a.s.handle;	/* out only: what is in it is ignored */
		break;
	case CALLOUT_OP_UNSET:
		o->handle = a.h;
		break;
	case CALLOUT_OP_RESET:
		o->handle = a.r.handle;
		o->timeout = a.r.timeout_ns;
		o->period_ns = a.r.period_ns;
		break;
	case CALLOUT_OP_TIMEOUT:
		o->cookie = a.t.func;
		o->arg = a.t.arg;
		o->timeout = a.t.ticks;
		break;
	default:
		o->cookie = a.u.func;
		o->arg = a.u.arg;
	}
	switch (rnd_below(24)) {
	case 0:		/* an unknown code */
		o->op = rnd_below(2) ? 0 : 6 + rnd_below(0xfffa);
		break;
	case 1:
		o->flags = 1 + rnd_below(0xffff);
		break;
	case 2:		/* a field the operation does not read */
		switch (code) {
		case CALLOUT_OP_SET:
			o->arg = 1 + rnd_below(1000);
			break;
		case CALLOUT_OP_UNSET:
			o->arg = 1 + rnd_below(1000);
			break;
		case CALLOUT_OP_RESET:
			o->cookie = 1 + rnd_below(1000);
			break;
		case CALLOUT_OP_TIMEOUT:
			o->period_ns = 1 + rnd_below(1000);
			break;
		default:
			o->handle = 1 + rnd_below(1000);
		}
		break;
	}
}

/* Is @o well formed: a known code, no flags, no field it does not read? */
static bool op_well_formed(const struct callout_op *o)
{
	if (o->flags)
		return false;
	switch (o->op) {
	case CALLOUT_OP_SET:
		return !o->arg;
	case CALLOUT_OP_UNSET:
		return !o->timeout && !o->period_ns && !o->cookie && !o->arg;
	case CALLOUT_OP_RESET:
		return !o->cookie && !o->arg;
	case CALLOUT_OP_TIMEOUT:
		return !o->handle && !o->period_ns;
	case CALLOUT_OP_UNTIMEOUT:
		return !o->handle && !o->timeout && !o->period_ns;
	}
	return false;
}

/*
 * The model's side of operation @i (@o as given, @after as the kernel left
 * it), which the kernel carried out. In fault mode its result may not have
 * been written (@unknown), or, for the last op whose result was, the
 * handle of a SET, written after it (@handle_lost).
 */
static void model_op(struct file_model *m, int i, const struct callout_op *o,
		     const struct callout_op *after, unsigned long long before,
		     bool unknown, bool handle_lost)
{
	int err = unknown ? OUTCOME_UNKNOWN : -after->result;
	char what[32];
	union {
		struct callout_set s;
		struct callout_reset r;
		struct callout_timeout t;
		struct callout_untimeout u;
		__u64 h;
	} a;
	int class;

	submit_ops++;
	snprintf(what, sizeof(what), "SUBMIT op %d", i);
	if (unknown) {
		/* A malformed one did nothing, whatever it reads. */
		if (!op_well_formed(o))
			return;
		goto model;
	}
	hist[C_OP][err > 0 && err < NR_ERRNO ? err : err ? NR_ERRNO : 0]++;
	if (after->result > 0 || after->result < -4095) {
		report("%s (code %u): result %d", what, o->op, after->result);
		return;
	}
	if (!op_well_formed(o)) {
		if (err != EINVAL)
			report("%s: code %u flags %#x %llx %llx %llx %llx %llx: %s",
			       what, o->op, o->flags, o->handle, o->timeout,
			       o->period_ns, o->cookie, o->arg, strerror(err));
		return;
	}
	if (o->op == CALLOUT_OP_SET && after->result && after->handle &&
	    !(handle_lost && after->handle == o->handle))
		report("%s: SET failed (%d) and gave handle %llu", what,
		       after->result, after->handle);
model:
	memset(&a, 0, sizeof(a));
	switch (o->op) {
	case CALLOUT_OP_SET:
		class = C_SET;
		a.s.timeout_ns = o->timeout;
		a.s.period_ns = o->period_ns;
		a.s.cookie = o->cookie;
		break;
	case CALLOUT_OP_UNSET:
		class = C_UNSET;
		a.h = o->handle;
		break;
	case CALLOUT_OP_RESET:
		class = C_RESET;
		a.r.handle = o->handle;
		a.r.timeout_ns = o->timeout;
		a.r.period_ns = o->period_ns;
		break;
	case CALLOUT_OP_TIMEOUT:
		class = C_TIMEOUT;
		a.t.func = o->cookie;
		a.t.arg = o->arg;
		a.t.ticks = o->timeout;
		break;
	default:
		class = C_UNTIMEOUT;
		a.u.func = o->cookie;
		a.u.arg = o->arg;
	}
	model_call(m, class, &a, after->handle, err, false, before, what,
		   C_OP);
}

/*
 * The ioctl @cmd on @m's file, counted in calls and its errno (*@err, 0
 * for none) in @class's row of the histogram: what ioctl() returned.
 */
static long counted_ioctl(struct file_model *m, unsigned int cmd, int class,
			  void *arg, int *err)
{
	long ret;

	calls++;
	ret = ioctl(m->fd, cmd, arg);
	*err = ret ? errno : 0;
	hist[class][*err < NR_ERRNO ? *err : NR_ERRNO]++;
	return ret;
}

/*
 * CALLOUT_IOC_SUBMIT: a random header (flags, reserved and nr now and then
 * wrong) at a random pointer, pointing to a batch of random operations
 * that is whole, runs into an unmapped page after k whole ones, is
 * read-only, or is not there. The model predicts the return, done, and
 * each carried-out operation's result, in order.
 */
static void do_submit(struct file_model *m, unsigned int cmd)
{
	enum ptr_kind hk = rnd_below(8) ? P_VALID : rnd_below(NR_PTR);
	enum ptr_kind ok = rnd_below(8) ? P_VALID : rnd_below(3) ? P_GAP :
			   rnd_below(NR_PTR);
	static struct callout_op given[CALLOUT_SUBMIT_MAX + 1];
	struct callout_submit *hdr, copy;
	struct callout_op *ops = NULL;
	unsigned long long before;
	__u32 nr, k, done, i, c, p;
	bool nothing, faulted = false;
	int err, want;
	long ret;

	switch (rnd_below(100)) {
	case 0: case 1: case 2:
		nr = 0;
		break;
	case 3:
		nr = CALLOUT_SUBMIT_MAX;
		break;
	case 4:
		nr = CALLOUT_SUBMIT_MAX + 1 + rnd_below(2) * rnd_below(1 << 20);
		break;
	case 5:
		nr = rnd();
		break;
	default:
		nr = 1 + (rnd_below(4) ? rnd_below(16) : rnd_below(128));
	}
	if (ok == P_RO && nr > PAGE / sizeof(*ops))
		nr = PAGE / sizeof(*ops);
	k = nr;
	memset(&copy, 0, sizeof(copy));
	copy.nr = nr;
	copy.flags = rnd_below(24) ? 0 : 1 + rnd_below(0xffffffff);
	copy.reserved = rnd_below(24) ? 0 : 1 + rnd_below(0xffffffff);
	copy.done = NOT_WRITTEN;
	if (nr <= CALLOUT_SUBMIT_MAX + 1) {
		/* The ops, all in the area or the first k before its gap. */
		if (ok == P_GAP && nr) {
			size_t split = rnd_below(2) ? 0 : 8 * (1 + rnd_below(5));

			k = rnd_below(nr);
			ops = (struct callout_op *)(ops_gap - split) - k;
		} else if (ok == P_RO) {
			ops = (struct callout_op *)ops_ro;
			mprotect(ops_ro, PAGE, PROT_READ | PROT_WRITE);
		} else if (ok == P_VALID) {
			ops = (struct callout_op *)ops_gap - nr - rnd_below(64);
		}
		for (i = 0; ops && i < k; i++) {
			fill_op(&ops[i], m);
			given[i] = ops[i];
		}
		if (ok == P_RO)
			mprotect(ops_ro, PAGE, PROT_READ);
	}
	if (!ops && ok == P_VALID)
		ok = P_NULL;		/* nr is past any array */
	copy.ops = (uintptr_t)(ops ? (char *)ops : rnd_ptr(ok, 48));

	hdr = (void *)rnd_ptr(hk, sizeof(*hdr));
	if (hk == P_VALID || hk == P_RO) {
		if (hk == P_RO)
			mprotect(ro_page, PAGE, PROT_READ | PROT_WRITE);
		*hdr = copy;
		if (hk == P_RO)
			mprotect(ro_page, PAGE, PROT_READ);
	}
	before = now_ns();
	ret = counted_ioctl(m, cmd, C_SUBMIT, hdr, &err);
	if (ret && ret != -1) {
		report("SUBMIT returned %ld", ret);
		return;
	}
	if (hk != P_VALID && hk != P_RO) {
		if (err != EFAULT)
			report("SUBMIT, header ptr kind %d: %s, want EFAULT", hk,
			       strerror(err));
		return;
	}
	done = hdr->done;
	/*
	 * Fault mode, with nothing carried out: a header that could not be
	 * read leaves done as it was, and done 0 may not be written back at
	 * the end.
	 */
	nothing = hk == P_VALID && copy_failed(err) &&
		  (done == NOT_WRITTEN || !done);

	/* The header's own checks: nothing carried out. */
	want = 0;
	if (copy.flags || copy.reserved)
		want = EINVAL;
	else if (nr > CALLOUT_SUBMIT_MAX)
		want = E2BIG;
	if (want) {
		/* Both wrong: either may be said. */
		if (err != want && !(err == E2BIG && nr > CALLOUT_SUBMIT_MAX) &&
		    !(hk == P_RO && err == EFAULT) && !nothing)
			report("SUBMIT nr %u flags %#x reserved %#x: %s, want %s",
			       nr, copy.flags, copy.reserved, strerror(err),
			       strerror(want));
		if (hk == P_VALID && done && !nothing)
			report("SUBMIT refused (%s), done %u", strerror(err), done);
		if (nothing)
			count_fault(C_SUBMIT, EFAULT);
		c = 0;
		goto check_rest;
	}
	if (!nr) {
		/* A read-only header: done 0 cannot be written back. */
		if ((err && !(hk == P_RO && err == EFAULT) && !nothing) ||
		    (hk == P_VALID && done && !nothing))
			report("SUBMIT nr 0 (header kind %d): %s, done %u", hk,
			       strerror(err), done);
		if (nothing)
			count_fault(C_SUBMIT, EFAULT);
		return;
	}
	if (!ops || ok == P_RO) {
		/* Not there, or not writable: nothing carried out. */
		if (err != EFAULT || (hk == P_VALID && done && !nothing))
			report("SUBMIT, ops ptr kind %d: %s, done %u, want EFAULT and 0",
			       ok, strerror(err), done);
		if (nothing && done == NOT_WRITTEN)
			count_fault(C_SUBMIT, EFAULT);
		c = 0;
		goto check_rest;
	}
	/*
	 * How many were carried out: done, or with a header that cannot be
	 * written, the operations with a result. Those k before the gap can
	 * be read: all of them, and EFAULT exactly when k < nr.
	 */
	if (hk == P_RO) {
		for (c = 0; c < k && ops[c].result != NOT_WRITTEN; c++)
			;
		if (err != EFAULT)
			report("SUBMIT with a read-only header: %s, want EFAULT",
			       strerror(err));
	} else if (copy_failed(err)) {
		/*
		 * Fault mode: the ops with a result, since the kernel writes 0
		 * to an op's result before it carries it out, and maybe fewer
		 * than k. done says as many; or, not written back at the end,
		 * reads the 0 written at the start; or, the header not read,
		 * is as it was, with nothing carried out.
		 */
		faulted = true;
		for (c = 0; c < k && ops[c].result != NOT_WRITTEN; c++)
			;
		if (!done && c)
			fc.done_lost++;
		else if (done != c && !(done == NOT_WRITTEN && !c))
			report("SUBMIT of %u, %u readable: EFAULT, done %u, %u with a result",
			       nr, k, done, c);
		/* Not the gap's own EFAULT: one the injection gave. */
		if (k == nr || c < k || done != c)
			count_fault(C_SUBMIT, EFAULT);
	} else {
		c = done;
		if (c != k || err != (k < nr ? EFAULT : 0))
			report("SUBMIT of %u, %u readable: %s, done %u", nr, k,
			       err ? strerror(err) : "0", done);
		if (c > k)
			c = k;
	}
	/*
	 * The results are written back in order: in fault mode, those after
	 * the last that reads as written, by a result other than the 0 the
	 * kernel wrote first or by a SET's handle other than the one given,
	 * may not have been, and the outcome of each of them is unknown.
	 */
	for (p = c; faulted && p && !ops[p - 1].result &&
	     !(given[p - 1].op == CALLOUT_OP_SET &&
	       ops[p - 1].handle != given[p - 1].handle); p--)
		;
	for (i = 0; i < c; i++)
		model_op(m, i, &given[i], &ops[i], before, i >= p,
			 faulted && i + 1 == p);
	submit_short += c < nr;
check_rest:
	/* Not carried out: no result written. */
	for (i = c; ops && ok != P_RO && i < k; i++)
		if (ops[i].result != NOT_WRITTEN) {
			report("SUBMIT op %u of %u, done %u: result %d written",
			       i, nr, c, ops[i].result);
			break;
		}
}

static void do_ioctl(struct file_model *m)
{
	unsigned int cmd = rnd_cmd();
	int class = cmd_class(cmd), err;
	enum ptr_kind k = rnd_below(3) ? P_VALID : rnd_below(NR_PTR);
	size_t size = class == C_OTHER ? 32 : _IOC_SIZE(cmd);
	unsigned long long before;
	char *arg = rnd_ptr(k, size);
	char copy[64], what[32];
	long ret;

	if (class == C_SUBMIT) {
		do_submit(m, cmd);
		return;
	}
	/* What the call sees: random fields in the valid or read-only page. */
	if (k == P_VALID || k == P_RO) {
		if (k == P_RO)
			mprotect(ro_page, PAGE, PROT_READ | PROT_WRITE);
		fill_arg(class, arg, m);
		memcpy(copy, arg, size);
		if (k == P_RO)
			mprotect(ro_page, PAGE, PROT_READ);
	}
	before = now_ns();
	ret = counted_ioctl(m, cmd, class, arg, &err);
	if (ret && ret != -1) {
		report("ioctl %#x returned %ld", cmd, ret);
		return;
	}
	if (class == C_OTHER) {
		if (err != ENOTTY)
			report("unknown ioctl %#x: %s, want ENOTTY", cmd,
			       strerror(err));
		return;
	}
	if (k != P_VALID && k != P_RO) {
		if (err != EFAULT)
			report("ioctl %s with ptr kind %d: %s, want EFAULT",
			       class_names[class], k, strerror(err));
		return;
	}

	if (class == C_INFO) {
		if (k == P_VALID && copy_failed(err)) {
			count_fault(C_INFO, EFAULT);
			return;
		}
		if (err != (k == P_RO ? EFAULT : 0))
			report("INFO (ptr kind %d): %s", k, strerror(err));
		if (!err && memcmp(arg, &info, sizeof(info)))
			report("INFO changed");
		return;
	}
	snprintf(what, sizeof(what), "ptr kind %d", k);
	model_call(m, class, copy, class == C_SET ?
		   ((struct callout_set *)arg)->handle : 0, err, k == P_RO,
		   before, what, class);
}

/* Cancel what the model says is armed, take every event left, close. */
static void drain_file(struct file_model *m)
{
	struct callout_event ev[64];
	struct handle_model *h;
	int i, ret, tries;
	ssize_t n;
	size_t j;

	for (j = 0; j < m->nr_given; j++) {
		__u64 handle = m->given[j];

		h = handle_of(m, handle);
		if (h->state != H_ARMED)
			continue;
		tries = 0;
		while ((ret = ioctl(m->fd, CALLOUT_IOC_UNSET, &handle)) &&
		       try_again(C_UNSET, errno, true, &tries))
			;
		if (!ret)
			h->state = H_CANCELLED;
		else if (errno != ENOENT)
			report("final UNSET %llu: %s", handle, strerror(errno));
	}
	tries = 0;
	for (;;) {
		n = read(m->fd, ev, sizeof(ev));
		if (n < 0 && try_again(C_READ, errno, true, &tries))
			continue;
		if (n <= 0)
			break;
		for (i = 0; i < n / (ssize_t)sizeof(*ev); i++)
			check_event(m, &ev[i], now_ns());
		tries = 0;
	}
	if (n < 0 && errno != EAGAIN)
		report("final read: %s", strerror(errno));
	close(m->fd);
	free_model(m);
	m->fd = -1;
}

/* Plain use after the storm: callouts set, fired once, read back. */
static bool valid_traffic(void)
{
	struct callout_set s = { .timeout_ns = 5 * MS };
	struct callout_event ev[16];
	int fd, got = 0, i, ret, tries;
	struct pollfd p;
	bool ok = true;

	/* In fault mode each call is tried again after a fault. */
	fd = open_dev(O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	for (i = 0; i < 16; i++) {
		s.cookie = i;
		tries = 0;
		while ((ret = ioctl(fd, CALLOUT_IOC_SET, &s)) &&
		       try_again(C_SET, errno, true, &tries))
			;
		if (ret)
			ok = false;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	tries = 0;
	while (ok && got < 16 && poll(&p, 1, 5000) == 1) {
		ssize_t n = read(fd, ev, sizeof(ev));

		if (n < 0 && try_again(C_READ, errno, true, &tries))
			continue;
		if (n <= 0)
			break;
		got += n / sizeof(*ev);
		tries = 0;
	}
	close(fd);
	if (got != 16)
		printf("# valid traffic: %d of 16 events\n", got);
	return ok && got == 16;
}

/* The faults line: each ENOMEM and EFAULT seen, and the done lost. */
static void print_faults(void)
{
	static const int order[] = {
		F_OPEN, F_MMAP, C_INFO, C_SET, C_UNSET, C_RESET, C_TIMEOUT,
		C_UNTIMEOUT, C_SUBMIT, C_OP, C_READ,
	};
	unsigned int i;
	int c;

	printf("# faults:");
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		c = order[i];
		if (fc.enomem[c])
			printf(" %s ENOMEM %lu,", fault_name(c), fc.enomem[c]);
		if (fc.efault[c])
			printf(" %s EFAULT %lu,", fault_name(c), fc.efault[c]);
	}
	printf(" SUBMIT done not written back %lu", fc.done_lost);
	printf(" (ops of unknown outcome %lu, events of their SETs %lu)\n",
	       fc.unknown_ops, fc.unknown_events);
}

static void print_histogram(void)
{
	int c, e;

	printf("# errno histogram (calls per command class and result):\n");
	for (c = 0; c < NR_CLASSES; c++) {
		printf("#   %-11s", class_names[c]);
		for (e = 0; e <= NR_ERRNO; e++)
			if (hist[c][e])
				printf(" %s=%lu", !e ? "ok" : e == NR_ERRNO ?
				       "other" : strerrorname_np(e), hist[c][e]);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	unsigned long n = 100000;
	long long base_users, base_pending, users, pending;
	unsigned long long start, took, nr_faults = 0;
	const char *v = getenv("CALLOUT_FAULTS");
	int opt, i, ret, tries = 0;
	bool traffic;
	char *guard;

	faults = v && !strcmp(v, "1");
	if (getenv("CALLOUT_FUZZ_CALLS"))
		n = strtoul(getenv("CALLOUT_FUZZ_CALLS"), NULL, 0);
	rng_state = getenv("CALLOUT_FUZZ_SEED") ?
		    strtoull(getenv("CALLOUT_FUZZ_SEED"), NULL, 0) : now_ns();
	while ((opt = getopt(argc, argv, "n:s:")) != -1) {
		if (opt == 'n')
			n = strtoul(optarg, NULL, 0);
		else if (opt == 's')
			rng_state = strtoull(optarg, NULL, 0);
		else
			ksft_exit_fail_msg("usage: %s [-n CALLS] [-s SEED]\n",
					   argv[0]);
	}
	rng_state |= 1;

	ksft_print_header();
	if (!callout_loaded())
		ksft_exit_skip("callout.ko is not loaded\n");
	ksft_set_plan(faults ? 4 : 3);
	printf("# %lu calls, seed %#llx (-s to repeat)%s\n", n,
	       (unsigned long long)rng_state, faults ? ", fault mode" : "");

	/* valid page, read-only page, then a page that is never mapped */
	valid_page = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (valid_page == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	ro_page = valid_page + PAGE;
	guard = valid_page + 2 * PAGE;
	munmap(guard, PAGE);
	gap_page = guard;
	mprotect(ro_page, PAGE, PROT_READ);
	/* SUBMIT's: an area that ends at an unmapped page, a read-only page */
	ops_area = mmap(NULL, (OPS_PAGES + 2) * PAGE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ops_area == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	ops_gap = ops_area + OPS_PAGES * PAGE;
	ops_ro = ops_gap + PAGE;
	munmap(ops_gap, PAGE);
	mprotect(ops_ro, PAGE, PROT_READ);

	base_users = stat_value("user_callouts");
	base_pending = stat_value("pending");

	for (i = 0; i < NFILES; i++)
		open_file(&files[i]);
	while ((ret = ioctl(files[0].fd, CALLOUT_IOC_INFO, &info)) &&
	       try_again(C_INFO, errno, true, &tries))
		;
	if (ret)
		ksft_exit_fail_msg("INFO: %s\n", strerror(errno));

	start = now_ns();
	while (calls < n) {
		struct file_model *m = &files[rnd_below(NFILES)];
		unsigned int r = rnd_below(1000);

		if (r < 150) {
			do_read(m);
		} else if (r < 250) {
			do_store(m);
		} else if (r < 251) {
			/* close with whatever is pending and queued */
			close(m->fd);
			open_file(m);
			reopens++;
		} else {
			do_ioctl(m);
		}
	}
	took = now_ns() - start;
	for (i = 0; i < NFILES; i++)
		drain_file(&files[i]);
	traffic = valid_traffic();

	printf("# %lu calls, %lu events read, %lu files closed with callouts pending\n",
	       calls, events_read, reopens);
	printf("# %lu stores into the due-time tables\n", stores);
	printf("# %lu operations carried out by SUBMIT, %lu SUBMITs stopped short\n",
	       submit_ops, submit_short);
	printf("# %lu calls in %llu ms: %llu calls/s\n", calls, took / 1000000,
	       calls * 1000000000ULL / (took ? took : 1));
	print_histogram();
	if (faults)
		print_faults();
	ksft_test_result(bad == 0, "%lu random calls: every result the ABI allows (%lu not)\n",
			 calls, bad);
	ksft_test_result(traffic, "valid traffic after the storm\n");

	users = stat_value("user_callouts");
	pending = stat_value("pending");
	for (i = 0; i < 50 && (pending != base_pending || users != base_users); i++) {
		usleep(20000);
		users = stat_value("user_callouts");
		pending = stat_value("pending");
	}
	if (base_users < 0)
		ksft_test_result_skip("debugfs stats not readable\n");
	else
		ksft_test_result(users == base_users && pending == base_pending,
				 "after close: user_callouts %lld pending %lld, before %lld %lld\n",
				 users, pending, base_users, base_pending);
	if (faults) {
		for (i = 0; i < NR_FCLASSES; i++)
			nr_faults += fc.enomem[i] + fc.efault[i];
		ksft_test_result(nr_faults > 0, "faults reached callout\n");
	}
	ksft_finished();
}
