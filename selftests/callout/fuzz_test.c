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
 * pending. Afterwards valid traffic must still work and debugfs
 * user_callouts and pending must be back at their values from before.
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
	unsigned int events;
	__u64 cookie;
	__u64 earliest;	/* no event of it may be due before this */
};

struct file_model {
	int fd;
	struct handle_map hmap;	/* handle -> its handle_model */
	__u64 *given;		/* every handle SET gave, in order */
	size_t nr_given, cap_given;
	unsigned int timeouts[8][4];	/* TIMEOUTs armed per func/arg pair */
	unsigned long wild_timeouts;	/* armed with a random func or arg */
};

static struct file_model files[NFILES];
static struct callout_info info;
static __u64 rng_state;
static unsigned long calls, bad, events_read, reopens;
static char *valid_page, *ro_page, *gap_page;

/* errno histogram: [class][errno] */
enum {
	C_INFO, C_SET, C_UNSET, C_RESET, C_TIMEOUT, C_UNTIMEOUT, C_OTHER,
	C_READ, NR_CLASSES
};

static const char *const class_names[] = {
	"INFO", "SET", "UNSET", "RESET", "TIMEOUT", "UNTIMEOUT",
	"unknown-cmd", "read",
};

#define NR_ERRNO	134	/* the last bucket counts the rest */
static unsigned long hist[NR_CLASSES][NR_ERRNO + 1];

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

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long long stat_value(const char *key)
{
	FILE *f = fopen("/sys/kernel/debug/callout/stats", "re");
	size_t len = strlen(key);
	long long v = -1;
	char line[256];

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
	memset(m, 0, sizeof(*m));
}

static void open_file(struct file_model *m)
{
	free_model(m);
	m->fd = open(CALLOUT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (m->fd < 0)
		ksft_exit_fail_msg("open %s: %s\n", CALLOUT_DEV, strerror(errno));
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
};

static unsigned int rnd_cmd(void)
{
	unsigned int cmd, c;

	for (;;) {
		c = valid_cmds[rnd_below(6)];
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

	for (i = 0; i < 6; i++)
		if (cmd == valid_cmds[i])
			return i;
	return C_OTHER;
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
			 !m->timeouts[ev->cookie][ev->arg])
			report("TIMEOUT event %llx/%llx/%llx not armed",
			       ev->handle, ev->cookie, ev->arg);
		else
			m->timeouts[ev->cookie][ev->arg]--;
		return;
	}
	if ((ev->flags & ~(CALLOUT_EV_PERIODIC | CALLOUT_EV_LAST)) || ev->arg ||
	    ev->flags == CALLOUT_EV_LAST) {
		report("event flags %#x arg %llx", ev->flags, ev->arg);
		return;
	}
	h = handle_of(m, ev->handle);
	if (!h || h->state == H_UNUSED || h->state == H_CANCELLED) {
		report("event for handle %llu, %s", ev->handle,
		       h && h->state == H_CANCELLED ? "cancelled" :
		       "never given");
		return;
	}
	if (ev->cookie != h->cookie || ev->expires_ns < h->earliest)
		report("event of %llu: cookie %llx want %llx, due %llu, earliest %llu",
		       ev->handle, ev->cookie, h->cookie, ev->expires_ns,
		       h->earliest);
	if (++h->events > 1 && !h->ever_periodic)
		report("second event of one-shot %llu", ev->handle);
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

static void do_ioctl(struct file_model *m)
{
	unsigned int cmd = rnd_cmd();
	int class = cmd_class(cmd), err, want = 0;
	enum ptr_kind k = rnd_below(3) ? P_VALID : rnd_below(NR_PTR);
	size_t size = class == C_OTHER ? 32 : _IOC_SIZE(cmd);
	bool may_alloc = false, may_enoent = false;
	unsigned long long before;
	struct handle_model *h = NULL;
	char *arg = rnd_ptr(k, size);
	char copy[64];
	long ret;

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
	calls++;
	ret = ioctl(m->fd, cmd, arg);
	err = ret ? errno : 0;
	hist[class][err < NR_ERRNO ? err : NR_ERRNO]++;
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

	switch (class) {
	case C_INFO:
		want = k == P_RO ? EFAULT : 0;
		if (!err && memcmp(arg, &info, sizeof(info)))
			report("INFO changed");
		break;
	case C_SET: {
		struct callout_set *s = (void *)copy;

		want = -times_errno(s->timeout_ns, s->period_ns);
		if (!want && k == P_RO)
			want = EFAULT;	/* and nothing stays armed */
		may_alloc = !want || want == EFAULT;
		if (err)
			break;
		s = (void *)arg;
		h = new_handle(m, s->handle);
		if (!h) {
			report("SET gave handle %llu, given before or 0",
			       s->handle);
			break;
		}
		h->state = H_ARMED;
		h->cookie = s->cookie;
		h->ever_periodic = !!s->period_ns;
		h->earliest = before + s->timeout_ns;
		break;
	}
	case C_UNSET:
		h = handle_of(m, *(__u64 *)copy);
		/* Armed: pending, or fired meanwhile. Else never pending. */
		may_enoent = true;
		want = h && h->state == H_ARMED ? 0 : ENOENT;
		if (!err && h)
			h->state = H_CANCELLED;
		break;
	case C_RESET: {
		struct callout_reset *r = (void *)copy;

		want = -times_errno(r->timeout_ns, r->period_ns);
		h = handle_of(m, r->handle);
		if (!want) {
			may_enoent = true;
			want = h && h->state == H_ARMED ? 0 : ENOENT;
			/* The scheme may refuse the time: then it is cancelled. */
			may_alloc = want == 0;
		}
		if (h && !err) {
			h->ever_periodic |= !!r->period_ns;
			if (before + r->timeout_ns < h->earliest)
				h->earliest = before + r->timeout_ns;
		}
		if (h && (err == ENOSPC || err == ERANGE) && !want)
			h->state = H_CANCELLED;
		break;
	}
	case C_TIMEOUT: {
		struct callout_timeout *t = (void *)copy;

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
		struct callout_untimeout *u = (void *)copy;
		bool armed = u->func < 8 && u->arg < 4 &&
			     m->timeouts[u->func][u->arg];

		may_enoent = true;
		want = armed ? 0 : ENOENT;
		if (!err && armed)
			m->timeouts[u->func][u->arg]--;
		break;
	}
	}
	if (!errno_ok(err, want, may_alloc, may_enoent))
		report("%s (ptr kind %d): %s, want %s", class_names[class], k,
		       err ? strerror(err) : "0", want ? strerror(want) : "0");
}

/* Cancel what the model says is armed, take every event left, close. */
static void drain_file(struct file_model *m)
{
	struct callout_event ev[64];
	struct handle_model *h;
	ssize_t n;
	size_t j;
	int i;

	for (j = 0; j < m->nr_given; j++) {
		__u64 handle = m->given[j];

		h = handle_of(m, handle);
		if (h->state != H_ARMED)
			continue;
		if (!ioctl(m->fd, CALLOUT_IOC_UNSET, &handle))
			h->state = H_CANCELLED;
		else if (errno != ENOENT)
			report("final UNSET %llu: %s", handle, strerror(errno));
	}
	while ((n = read(m->fd, ev, sizeof(ev))) > 0)
		for (i = 0; i < n / (ssize_t)sizeof(*ev); i++)
			check_event(m, &ev[i], now_ns());
	close(m->fd);
	free_model(m);
	m->fd = -1;
}

/* Plain use after the storm: callouts set, fired once, read back. */
static bool valid_traffic(void)
{
	struct callout_set s = { .timeout_ns = 5 * MS };
	struct callout_event ev[16];
	struct pollfd p;
	int fd, got = 0, i;
	bool ok = true;

	fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	for (i = 0; i < 16; i++) {
		s.cookie = i;
		if (ioctl(fd, CALLOUT_IOC_SET, &s))
			ok = false;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (ok && got < 16 && poll(&p, 1, 5000) == 1) {
		ssize_t n = read(fd, ev, sizeof(ev));

		if (n <= 0)
			break;
		got += n / sizeof(*ev);
	}
	close(fd);
	if (got != 16)
		printf("# valid traffic: %d of 16 events\n", got);
	return ok && got == 16;
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
	unsigned long long start, took;
	char *guard;
	int opt, i;

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
	ksft_set_plan(3);
	printf("# %lu calls, seed %#llx (-s to repeat)\n", n,
	       (unsigned long long)rng_state);

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

	base_users = stat_value("user_callouts");
	base_pending = stat_value("pending");

	for (i = 0; i < NFILES; i++)
		open_file(&files[i]);
	if (ioctl(files[0].fd, CALLOUT_IOC_INFO, &info))
		ksft_exit_fail_msg("INFO: %s\n", strerror(errno));

	start = now_ns();
	while (calls < n) {
		struct file_model *m = &files[rnd_below(NFILES)];
		unsigned int r = rnd_below(1000);

		if (r < 150) {
			do_read(m);
		} else if (r < 151) {
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

	printf("# %lu calls, %lu events read, %lu files closed with callouts pending\n",
	       calls, events_read, reopens);
	printf("# %lu calls in %llu ms: %llu calls/s\n", calls, took / 1000000,
	       calls * 1000000000ULL / (took ? took : 1));
	print_histogram();
	ksft_test_result(bad == 0, "%lu random calls: every result the ABI allows (%lu not)\n",
			 calls, bad);
	ksft_test_result(valid_traffic(), "valid traffic after the storm\n");

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
	ksft_finished();
}
