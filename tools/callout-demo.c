// SPDX-License-Identifier: GPL-2.0
/*
 * callout-demo - set many callouts with random timeouts through /dev/callout,
 * read every expiry event, and report how late they fired.
 *
 * Usage: callout-demo [-c] [-n COUNT] [-m MIN_MS] [-M MAX_MS]
 *        (default: 100000 callouts, 100..2000 ms)
 *        callout-demo --rto N
 *
 * -c sets the callouts from every online CPU: one thread pinned to each,
 * each setting its share (every nr-th callout) on the same file, so the
 * file's callouts sit on every CPU's wheel and every CPU's tick delivers
 * to it. Reading stays in the main thread, as without -c.
 *
 * Exit status 0 when every callout fired exactly once and none early.
 *
 * --rto N runs a retransmit-timer workload instead (see rto_main()):
 * N connections whose timers are pushed back by every ACK, through
 * callout's due-time table, POSIX timers and timerfd; exit status 0 when
 * none fired early and each had timeouts to time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/callout.h>

#include "libcallout.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * --rto N: a retransmit-timer workload, the one the due-time table is for.
 * N connections, each with a retransmit timer of RTO_NS. One in
 * RTO_SILENT (100) is never acknowledged: its timer fires every RTO_NS, and the
 * program re-arms it (a retransmission). Every other is acknowledged once
 * a round, in another order each round, and each ACK pushes its timer
 * back to RTO_NS from then; a round takes N / rate, well under RTO_NS at
 * any rate here, so they do not time out. The same run, RTO_RUN_NS long,
 * through callout's due-time table (callout_defer_by(): a store), POSIX
 * timers (timer_settime(), expiries as a real-time signal) and timerfd
 * (timerfd_settime(), expiries through epoll), each in a child process of
 * its own, one after the other. Each checks for expiries whenever
 * CLOCK_MONOTONIC_COARSE has moved, as an event loop would between
 * batches of work. For each: ACKs per second; system calls per ACK, counted
 * by the kernel (a hist trigger on raw_syscalls:sys_enter for the child's
 * pid, over the timed phase only); timeouts handled, and their lateness
 * (when the program handled one, by CLOCK_MONOTONIC, less its deadline:
 * p50/p99/max) and early ones (before the deadline), which must be 0.
 * A deadline is the coarse clock at the ACK plus RTO, for all three:
 * callout's deferral names a later tick (the clock page's, up to a jiffy
 * and two ticks past it), the others' kernels count RTO from the true
 * clock (later too).
 */
#define RTO_NS		5000000000ULL
#define RTO_SETUP_NS	60000000000ULL	/* the timers' first timeout */
#define RTO_RUN_NS	12000000000ULL
#define RTO_SILENT	100
/* tracefs, or the same through debugfs where only that is mounted */
static const char *const rto_tracefs[] = {
	"/sys/kernel/tracing/",
	"/sys/kernel/debug/tracing/",
};
#define RTO_EVENT	"events/raw_syscalls/sys_enter/"

struct rto {
	unsigned long n;
	unsigned long long *deadline;	/* what each connection's timer asks */
	unsigned long long *late;	/* lateness of the timeouts handled */
	unsigned long nlate, cap;
	unsigned long early, timeouts, raced;
	unsigned long long acks;
	__u64 *h;			/* callout */
	timer_t *pt;			/* POSIX */
	int *tfd, ep;			/* timerfd */
	sigset_t sigs;
};

static unsigned long long coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void rto_die(const char *what)
{
	perror(what);
	exit(1);
}

/* A timeout of @c handled now: its lateness, or an early one. */
static void rto_timed_out(struct rto *r, unsigned long c)
{
	unsigned long long t = now_ns();

	r->timeouts++;
	if (t < r->deadline[c])
		r->early++;
	else if (r->nlate < r->cap)
		r->late[r->nlate++] = t - r->deadline[c];
}

/* callout: SET at setup and for each retransmission; ACK = one store. */
static void rto_callout_set(struct rto *r, unsigned long c, __u64 timeout)
{
	int ret = setcallout(timeout, 0, c, &r->h[c]);

	if (ret) {
		errno = -ret;
		rto_die("setcallout");
	}
}

static void rto_callout_arm(struct rto *r, unsigned long c)
{
	r->deadline[c] = coarse_ns() + RTO_NS;
	rto_callout_set(r, c, RTO_NS);
}

/* The warm-up's re-arm at RTO: a deferral cannot bring a timer nearer. */
static void rto_callout_rearm(struct rto *r, unsigned long c)
{
	r->deadline[c] = coarse_ns() + RTO_NS;
	if (resetcallout(r->h[c], RTO_NS, 0))
		rto_die("resetcallout");
}

/*
 * Its lateness is counted from the coarse clock + RTO, as the others':
 * the clock page's deadline is up to a jiffy and two ticks past that, and
 * that is lateness the program pays.
 */
static void rto_callout_ack(struct rto *r, unsigned long c)
{
	r->deadline[c] = coarse_ns() + RTO_NS;
	callout_defer_by(r->h[c], RTO_NS);
}

static void rto_callout_event(const struct callout_event *ev, void *data)
{
	struct rto *r = data;
	unsigned long c = ev->cookie;
	unsigned long long t;

	if (ev->fired_ns < ev->expires_ns) {
		r->early++;
	} else if (ev->expires_ns < r->deadline[c]) {
		/*
		 * An ACK's deferral met the expiry, which did not see it
		 * (the promise allows it, and expires_ns tells): not a
		 * timeout. Armed again to the deadline asked.
		 */
		r->raced++;
		t = now_ns();
		rto_callout_set(r, c, r->deadline[c] > t ?
				r->deadline[c] - t : 1);
		return;
	}
	rto_timed_out(r, c);
	rto_callout_arm(r, c);
}

static void rto_callout_poll(struct rto *r)
{
	if (callout_dispatch(rto_callout_event, r) < 0)
		rto_die("callout_dispatch");
}

static void rto_callout_setup(struct rto *r)
{
	unsigned long c;

	r->h = calloc(r->n, sizeof(*r->h));
	if (!r->h)
		rto_die("calloc");
	for (c = 0; c < r->n; c++) {
		r->deadline[c] = coarse_ns() + RTO_SETUP_NS;
		rto_callout_set(r, c, RTO_SETUP_NS);
	}
	/* Map the table now, not in the timed phase. */
	rto_callout_ack(r, 1);
}

static const struct itimerspec rto_its = {
	.it_value = { RTO_NS / 1000000000ULL, RTO_NS % 1000000000ULL },
}, rto_setup_its = {
	.it_value = { RTO_SETUP_NS / 1000000000ULL },
};

/* POSIX timers: one each, expiring as SIGRTMIN with the connection. */
static void rto_posix_arm(struct rto *r, unsigned long c)
{
	if (timer_settime(r->pt[c], 0, &rto_its, NULL))
		rto_die("timer_settime");
	r->deadline[c] = coarse_ns() + RTO_NS;
}

static void rto_posix_ack(struct rto *r, unsigned long c)
{
	rto_posix_arm(r, c);
}

/* Expiries one poll handles at most, as an event loop's batch */
#define RTO_POLL_MAX	4096

static void rto_posix_poll(struct rto *r)
{
	static const struct timespec zero;
	struct itimerspec its;
	siginfo_t si;
	int i, c;

	for (i = 0; i < RTO_POLL_MAX &&
		    sigtimedwait(&r->sigs, &si, &zero) == SIGRTMIN; i++) {
		c = si.si_value.sival_int;
		/*
		 * Armed again since it fired (an ACK came between the
		 * expiry and this): the signal is stale, not a timeout.
		 */
		if (timer_gettime(r->pt[c], &its))
			rto_die("timer_gettime");
		if (its.it_value.tv_sec || its.it_value.tv_nsec) {
			r->raced++;
			continue;
		}
		rto_timed_out(r, c);
		rto_posix_arm(r, c);
	}
}

static void rto_limit(int resource, unsigned long want)
{
	struct rlimit rl = { .rlim_cur = want, .rlim_max = want };

	if (setrlimit(resource, &rl))
		rto_die("setrlimit (run as root)");
}

static void rto_posix_setup(struct rto *r)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
				.sigev_signo = SIGRTMIN };
	unsigned long c;

	sigemptyset(&r->sigs);
	sigaddset(&r->sigs, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &r->sigs, NULL);
	/* Each timer holds a preallocated signal, counted as pending. */
	rto_limit(RLIMIT_SIGPENDING, r->n + 64);
	r->pt = calloc(r->n, sizeof(*r->pt));
	if (!r->pt)
		rto_die("calloc");
	for (c = 0; c < r->n; c++) {
		sev.sigev_value.sival_int = c;
		if (timer_create(CLOCK_MONOTONIC, &sev, &r->pt[c]) ||
		    timer_settime(r->pt[c], 0, &rto_setup_its, NULL))
			rto_die("timer_create");
	}
}

/* timerfd: one each, in one epoll set. */
static void rto_timerfd_arm(struct rto *r, unsigned long c)
{
	if (timerfd_settime(r->tfd[c], 0, &rto_its, NULL))
		rto_die("timerfd_settime");
	r->deadline[c] = coarse_ns() + RTO_NS;
}

static void rto_timerfd_ack(struct rto *r, unsigned long c)
{
	rto_timerfd_arm(r, c);
}

static void rto_timerfd_poll(struct rto *r)
{
	static struct epoll_event ev[RTO_POLL_MAX];
	unsigned long long exp;
	int i, k;

	k = epoll_wait(r->ep, ev, RTO_POLL_MAX, 0);
	if (k > 0) {
		for (i = 0; i < k; i++) {
			unsigned long c = ev[i].data.u64;

			if (read(r->tfd[c], &exp, sizeof(exp)) != sizeof(exp))
				continue;
			rto_timed_out(r, c);
			rto_timerfd_arm(r, c);
		}
	}
}

static void rto_timerfd_setup(struct rto *r)
{
	unsigned long c;

	rto_limit(RLIMIT_NOFILE, r->n + 64);
	r->tfd = calloc(r->n, sizeof(*r->tfd));
	r->ep = epoll_create1(EPOLL_CLOEXEC);
	if (!r->tfd || r->ep < 0)
		rto_die("timerfd setup");
	for (c = 0; c < r->n; c++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u64 = c };

		r->tfd[c] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK |
					   TFD_CLOEXEC);
		if (r->tfd[c] < 0 ||
		    epoll_ctl(r->ep, EPOLL_CTL_ADD, r->tfd[c], &e) ||
		    timerfd_settime(r->tfd[c], 0, &rto_setup_its, NULL))
			rto_die("timerfd_create");
	}
}

/*
 * An implementation: @setup arms every timer RTO_SETUP_NS ahead (however
 * long that takes, none comes due); @arm re-arms one at RTO (the warm-up
 * round, untimed, and a retransmission); @ack pushes one back to RTO from
 * now; @poll handles the expiries there are, RTO_POLL_MAX at most.
 */
static const struct rto_impl {
	const char *name;
	void (*setup)(struct rto *r);
	void (*arm)(struct rto *r, unsigned long c);
	void (*ack)(struct rto *r, unsigned long c);
	void (*poll)(struct rto *r);
} rto_impls[] = {
	{ "callout", rto_callout_setup, rto_callout_rearm, rto_callout_ack,
	  rto_callout_poll },
	{ "posix", rto_posix_setup, rto_posix_arm, rto_posix_ack,
	  rto_posix_poll },
	{ "timerfd", rto_timerfd_setup, rto_timerfd_arm, rto_timerfd_ack,
	  rto_timerfd_poll },
};

static unsigned long gcd(unsigned long a, unsigned long b)
{
	while (b) {
		unsigned long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * ACK round after round for @run_ns, polling as time moves; with @run_ns
 * 0, one round. Return: the ns it took.
 */
static unsigned long long rto_run(const struct rto_impl *im, struct rto *r,
				  unsigned long long run_ns)
{
	unsigned long long start = now_ns(), last = coarse_ns(), now;
	unsigned long long end = last + run_ns;
	unsigned long i, c, a, b;
	unsigned int seed = 1;

	for (;;) {
		/* A round: every connection once, in an order of its own */
		do
			a = rand_r(&seed) % r->n;
		while (r->n > 1 && (!a || gcd(a, r->n) != 1));
		b = rand_r(&seed) % r->n;
		for (i = 0; i < r->n; i++) {
			c = (a * i + b) % r->n;
			if (c % RTO_SILENT == 0)
				continue;
			im->ack(r, c);
			if (++r->acks % 64)
				continue;
			now = coarse_ns();
			if (now == last)
				continue;
			last = now;
			im->poll(r);
			if (run_ns && now >= end)
				return now_ns() - start;
		}
		if (!run_ns)
			return now_ns() - start;
	}
}

/* The file @file of tracefs (RTO_EVENT "hist", say), in @path. */
static void rto_trace_path(char *path, size_t len, const char *file)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rto_tracefs); i++) {
		snprintf(path, len, "%s%s", rto_tracefs[i], file);
		if (!access(path, F_OK))
			return;
	}
}

/* Write @s to the tracefs file @file: 0 or -1. */
static int rto_trace(const char *file, const char *s)
{
	char path[256];
	int fd, ok;

	rto_trace_path(path, sizeof(path), file);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* The hitcount of @pid in sys_enter's hist, or -1. */
static long long rto_syscalls(pid_t pid)
{
	char line[512], path[256];
	long long n = -1;
	FILE *f;

	rto_trace_path(path, sizeof(path), RTO_EVENT "hist");
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* "{ common_pid:        104 } hitcount:         23" */
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "common_pid:"), *h;

		if (p && strtol(p + 11, NULL, 10) == pid &&
		    (h = strstr(p, "hitcount:")))
			n = strtoll(h + 9, NULL, 10);
	}
	fclose(f);
	return n;
}

struct rto_result {
	unsigned long long acks, ns, p50, p99, max;
	unsigned long timeouts, early, nlate, raced;
};

/*
 * One implementation in a child: set up, tell the parent (which arms the
 * syscall count for this pid), run when told, send the result.
 */
static void rto_child(const struct rto_impl *im, unsigned long n, int up,
		      int down)
{
	struct rto r = { .n = n };
	struct rto_result res = { 0 };
	unsigned long long t;
	unsigned long c;
	char go;

	r.deadline = calloc(n, sizeof(*r.deadline));
	r.cap = 4 * (n / RTO_SILENT + 1) * (RTO_RUN_NS / RTO_NS + 2) + 1024;
	r.late = calloc(r.cap, sizeof(*r.late));
	if (!r.deadline || !r.late)
		rto_die("calloc");
	t = now_ns();
	im->setup(&r);
	/* Every timer at RTO from about now, untimed: the warm-up round */
	for (c = 0; c < n; c++)
		im->arm(&r, c);
	printf("%-8s %lu timers set up in %llu ms\n", im->name, n,
	       (now_ns() - t) / 1000000);
	fflush(stdout);
	if (write(up, "s", 1) != 1 || read(down, &go, 1) != 1)
		exit(1);
	res.ns = rto_run(im, &r, RTO_RUN_NS);
	if (write(up, "r", 1) != 1 || read(down, &go, 1) != 1)
		exit(1);
	res.acks = r.acks;
	res.timeouts = r.timeouts;
	res.early = r.early;
	res.raced = r.raced;
	res.nlate = r.nlate;
	qsort(r.late, r.nlate, sizeof(*r.late), cmp_ull);
	if (r.nlate) {
		res.p50 = r.late[r.nlate / 2];
		res.p99 = r.late[r.nlate * 99 / 100];
		res.max = r.late[r.nlate - 1];
	}
	if (write(up, &res, sizeof(res)) != sizeof(res))
		exit(1);
	exit(0);
}

/*
 * options/record-cmd as found ("0" or "1"), after turning it off. With it
 * on, adding and removing the trigger also hooks and unhooks sched_switch,
 * which patches that static key's site in __schedule(), run by every CPU
 * all the time: under TCG (QEMU 7.2) such a patch has left both vCPUs
 * taking an int3 there that memory no longer held, in a loop (see
 * Documentation/benchmarks.rst). The count needs no task names.
 */
static const char *rto_names_off(void)
{
	char path[256];
	const char *was = "1";
	FILE *f;

	rto_trace_path(path, sizeof(path), "options/record-cmd");
	f = fopen(path, "re");
	if (f) {
		if (fgetc(f) == '0')
			was = "0";
		fclose(f);
	}
	rto_trace("options/record-cmd", "0");
	return was;
}

static int rto_main(unsigned long n)
{
	struct rto_result res[ARRAY_SIZE(rto_impls)];
	long long calls[ARRAY_SIZE(rto_impls)];
	const char *names;
	unsigned int k;
	int bad = 0;

	if (n < 2) {
		fprintf(stderr, "--rto: at least 2 connections\n");
		return 2;
	}
	printf("callout-demo --rto: %lu connections, RTO %llu ms, one in %d silent, %llu s each\n",
	       n, RTO_NS / 1000000, RTO_SILENT, RTO_RUN_NS / 1000000000ULL);
	names = rto_names_off();
	for (k = 0; k < ARRAY_SIZE(rto_impls); k++) {
		int up[2], down[2], status;
		char trig[128], c;
		pid_t pid;

		if (pipe(up) || pipe(down))
			rto_die("pipe");
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			rto_die("fork");
		if (!pid) {
			close(up[0]);
			close(down[1]);
			rto_child(&rto_impls[k], n, up[1], down[0]);
		}
		close(up[1]);
		close(down[0]);
		if (read(up[0], &c, 1) != 1)
			rto_die("child setup");
		/* Count the child's system calls from here to its end. */
		snprintf(trig, sizeof(trig), "hist:keys=common_pid if common_pid == %d",
			 (int)pid);
		calls[k] = rto_trace(RTO_EVENT "trigger", trig) ? -1 : 0;
		if (write(down[1], "g", 1) != 1 || read(up[0], &c, 1) != 1)
			rto_die("child run");
		if (!calls[k])
			calls[k] = rto_syscalls(pid);
		snprintf(trig, sizeof(trig), "!hist:keys=common_pid if common_pid == %d",
			 (int)pid);
		rto_trace(RTO_EVENT "trigger", trig);
		if (write(down[1], "g", 1) != 1 ||
		    read(up[0], &res[k], sizeof(res[k])) != sizeof(res[k]))
			rto_die("child result");
		waitpid(pid, &status, 0);
		close(up[0]);
		close(down[1]);
		printf("%-8s %9.0f ACKs/s, %s%.4f syscalls/ACK, %lu timeouts, lateness p50 %.3f p99 %.3f max %.3f ms, early %lu\n",
		       rto_impls[k].name, res[k].acks * 1e9 / res[k].ns,
		       calls[k] < 0 ? "(no count) " : "",
		       calls[k] < 0 ? 0 : (double)calls[k] / res[k].acks,
		       res[k].timeouts, res[k].p50 / 1e6, res[k].p99 / 1e6,
		       res[k].max / 1e6, res[k].early);
		printf("RTO impl=%s n=%lu acks=%llu ns=%llu acks_per_s=%.0f syscalls=%lld timeouts=%lu raced=%lu late_p50_ns=%llu late_p99_ns=%llu late_max_ns=%llu early=%lu\n",
		       rto_impls[k].name, n, res[k].acks, res[k].ns,
		       res[k].acks * 1e9 / res[k].ns, calls[k], res[k].timeouts,
		       res[k].raced, res[k].p50, res[k].p99, res[k].max,
		       res[k].early);
		bad |= res[k].early != 0 || !res[k].timeouts;
	}
	rto_trace("options/record-cmd", names);
	for (k = 1; k < ARRAY_SIZE(rto_impls); k++)
		printf("callout vs %s: %.1fx the ACKs per second; p99 lateness %.2fx\n",
		       rto_impls[k].name,
		       ((double)res[0].acks / res[0].ns) /
		       ((double)res[k].acks / res[k].ns),
		       res[k].p99 ? (double)res[0].p99 / res[k].p99 : 0);
	return bad;
}

static void usage(const char *prog, int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [-c] [-n COUNT] [-m MIN_MS] [-M MAX_MS]\n"
		"Set COUNT callouts (default 100000) with random timeouts of\n"
		"MIN_MS..MAX_MS (default 100..2000) through /dev/callout, read\n"
		"every event and print count, lateness p50/p99/max and early.\n"
		"-c: set them from every online CPU, a thread pinned to each\n"
		"setting its share on the same file (reading stays in one).\n"
		"--rto N: the retransmit-timer workload of N connections through\n"
		"callout's due-time table, POSIX timers and timerfd.\n",
		prog);
	exit(status);
}

/* What each setter is given: its CPU and its share of the callouts. */
struct setter {
	pthread_t thread;
	int fd;
	int cpu;		/* -1: not pinned (without -c) */
	unsigned long first;	/* callouts first, first + step, ... < n */
	unsigned long step;
	unsigned long n, min_ms, max_ms;
	unsigned int seed;
	unsigned long long *want;
	int err;		/* errno of a failed pin or SET, else 0 */
};

static void *set_share(void *arg)
{
	struct setter *st = arg;
	unsigned long long t, before;
	unsigned long i;

	if (st->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(st->cpu, &set);
		st->err = pthread_setaffinity_np(pthread_self(), sizeof(set),
						 &set);
		if (st->err)
			return NULL;
	}
	for (i = st->first; i < st->n; i += st->step) {
		struct callout_set s = { .cookie = i };

		t = st->min_ms * 1000000ULL +
		    (unsigned long long)rand_r(&st->seed) * rand_r(&st->seed) %
		    ((st->max_ms - st->min_ms) * 1000000ULL + 1);
		s.timeout_ns = t;
		before = now_ns();
		if (ioctl(st->fd, CALLOUT_IOC_SET, &s)) {
			st->err = errno;
			return NULL;
		}
		st->want[i] = before + t;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = 100000, min_ms = 100, max_ms = 2000, i, got = 0;
	unsigned long long *want, *late, t0, t1, t2;
	unsigned long early = 0, twice = 0, nr = 1, k;
	struct callout_event ev[1024];
	struct callout_info info;
	struct setter *st;
	unsigned char *seen;
	int fd, opt, all_cpus = 0, cpu;
	cpu_set_t online;

	static const struct option longopts[] = {
		{ "rto", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};

	while ((opt = getopt_long(argc, argv, "cn:m:M:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r': return rto_main(strtoul(optarg, NULL, 0));
		case 'c': all_cpus = 1; break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'm': min_ms = strtoul(optarg, NULL, 0); break;
		case 'M': max_ms = strtoul(optarg, NULL, 0); break;
		case 'h': usage(argv[0], 0); break;
		default: usage(argv[0], 2);
		}
	}
	if (!n || !min_ms || max_ms < min_ms)
		usage(argv[0], 2);

	fd = open("/dev/callout", O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, CALLOUT_IOC_INFO, &info)) {
		perror("/dev/callout");
		return 1;
	}
	want = calloc(n, sizeof(*want));
	late = calloc(n, sizeof(*late));
	seen = calloc(n, 1);
	if (!want || !late || !seen) {
		perror("calloc");
		return 1;
	}
	/* The setters: one unpinned, or one pinned to each online CPU. */
	CPU_ZERO(&online);
	if (all_cpus) {
		if (sched_getaffinity(0, sizeof(online), &online)) {
			perror("sched_getaffinity");
			return 1;
		}
		nr = CPU_COUNT(&online);
	}
	st = calloc(nr, sizeof(*st));
	if (!st) {
		perror("calloc");
		return 1;
	}
	printf("callout-demo: scheme %u, tick %llu ns, %u CPUs: setting %lu callouts of %lu..%lu ms from %s\n",
	       info.scheme, (unsigned long long)info.tick_ns, info.nr_cpus,
	       n, min_ms, max_ms, all_cpus ? "every online CPU" : "one thread");

	for (k = 0, cpu = 0; k < nr; k++, cpu++) {
		while (all_cpus && !CPU_ISSET(cpu, &online))
			cpu++;
		st[k] = (struct setter){ .fd = fd, .cpu = all_cpus ? cpu : -1,
			.first = k, .step = nr, .n = n, .min_ms = min_ms,
			.max_ms = max_ms, .seed = time(NULL) + k,
			.want = want };
	}
	t0 = now_ns();
	for (k = 0; k < nr; k++) {
		errno = pthread_create(&st[k].thread, NULL, set_share, &st[k]);
		if (errno) {
			perror("pthread_create");
			return 1;
		}
	}
	for (k = 0; k < nr; k++) {
		pthread_join(st[k].thread, NULL);
		if (st[k].err) {
			errno = st[k].err;
			fprintf(stderr, "setter on CPU %d: %s\n", st[k].cpu,
				strerror(errno));
			return 1;
		}
	}
	t1 = now_ns();
	printf("set %lu callouts in %llu ms (%llu ns per SET)\n", n,
	       (t1 - t0) / 1000000, (t1 - t0) / n);

	while (got < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, (max_ms + 5000)) <= 0) {
			fprintf(stderr, "timed out with %lu of %lu events\n",
				got, n);
			return 1;
		}
		r = read(fd, ev, sizeof(ev));
		if (r < 0) {
			perror("read");
			return 1;
		}
		for (i = 0; i < r / sizeof(ev[0]); i++) {
			unsigned long c = ev[i].cookie;

			if (c >= n || seen[c]++) {
				twice++;
				continue;
			}
			if (ev[i].fired_ns < want[c]) {
				early++;
				late[got++] = 0;
			} else {
				late[got++] = ev[i].fired_ns - want[c];
			}
		}
	}
	t2 = now_ns();
	qsort(late, got, sizeof(*late), cmp_ull);
	printf("events: %lu of %lu in %llu ms, duplicates or unknown: %lu\n",
	       got, n, (t2 - t0) / 1000000, twice);
	printf("lateness: p50 %.3f ms, p99 %.3f ms, max %.3f ms (tick %.3f ms)\n",
	       late[got / 2] / 1e6, late[got * 99 / 100] / 1e6,
	       late[got - 1] / 1e6, info.tick_ns / 1e6);
	printf("early: %lu\n", early);
	close(fd);
	return early || twice || got != n;
}
