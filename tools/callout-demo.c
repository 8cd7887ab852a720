// SPDX-License-Identifier: GPL-2.0
/*
 * callout-demo - set many callouts with random timeouts through /dev/callout,
 * read every expiry event, and report how late they fired.
 *
 * Usage: callout-demo [-n COUNT] [-m MIN_MS] [-M MAX_MS]
 *        (default: 100000 callouts, 100..2000 ms)
 *
 * Exit status 0 when every callout fired exactly once and none early.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
		"Usage: %s [-n COUNT] [-m MIN_MS] [-M MAX_MS]\n"
		"Set COUNT callouts (default 100000) with random timeouts of\n"
		"MIN_MS..MAX_MS (default 100..2000) through /dev/callout, read\n"
		"every event and print count, lateness p50/p99/max and early.\n",
		prog);
	exit(status);
}

int main(int argc, char **argv)
{
	unsigned long n = 100000, min_ms = 100, max_ms = 2000, i, got = 0;
	unsigned long long *want, *late, t, before, t0, t1, t2;
	unsigned long early = 0, twice = 0;
	struct callout_event ev[1024];
	struct callout_info info;
	unsigned char *seen;
	int fd, opt;

	while ((opt = getopt(argc, argv, "n:m:M:h")) != -1) {
		switch (opt) {
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
	printf("callout-demo: scheme %u, tick %llu ns, %u CPUs: setting %lu callouts of %lu..%lu ms\n",
	       info.scheme, (unsigned long long)info.tick_ns, info.nr_cpus,
	       n, min_ms, max_ms);

	srandom(time(NULL));
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		struct callout_set s = { .cookie = i };

		t = min_ms * 1000000ULL +
		    (unsigned long long)random() * random() %
		    ((max_ms - min_ms) * 1000000ULL + 1);
		s.timeout_ns = t;
		before = now_ns();
		if (ioctl(fd, CALLOUT_IOC_SET, &s)) {
			perror("CALLOUT_IOC_SET");
			return 1;
		}
		want[i] = before + t;
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
