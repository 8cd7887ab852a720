// SPDX-License-Identifier: GPL-2.0
/*
 * callout-demo - set many callouts with random timeouts through /dev/callout,
 * read every expiry event, and report how late they fired.
 *
 * Usage: callout-demo [-c] [-n COUNT] [-m MIN_MS] [-M MAX_MS]
 *        (default: 100000 callouts, 100..2000 ms)
 *
 * -c sets the callouts from every online CPU: one thread pinned to each,
 * each setting its share (every nr-th callout) on the same file, so the
 * file's callouts sit on every CPU's wheel and every CPU's tick delivers
 * to it. Reading stays in the main thread, as without -c.
 *
 * Exit status 0 when every callout fired exactly once and none early.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/callout.h>

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

static void usage(const char *prog, int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [-c] [-n COUNT] [-m MIN_MS] [-M MAX_MS]\n"
		"Set COUNT callouts (default 100000) with random timeouts of\n"
		"MIN_MS..MAX_MS (default 100..2000) through /dev/callout, read\n"
		"every event and print count, lateness p50/p99/max and early.\n"
		"-c: set them from every online CPU, a thread pinned to each\n"
		"setting its share on the same file (reading stays in one).\n",
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

	while ((opt = getopt(argc, argv, "cn:m:M:h")) != -1) {
		switch (opt) {
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
