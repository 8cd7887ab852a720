// SPDX-License-Identifier: GPL-2.0
/*
 * unload_test - an open /dev/callout pins the module (its file_operations
 * have .owner = THIS_MODULE): rmmod is refused while a file is open and
 * accepted once it is closed (a smoke check). The module is loaded again
 * afterwards, with $CALLOUT_PARAMS, so the tests that follow still have it.
 *
 * reload_loop: $CALLOUT_UNLOAD_LOOPS (default 100) cycles of traffic on four
 * files (one-shots that fire and are read, far ones and periodic ones still
 * pending at close, TIMEOUTs, UNSETs), close, rmmod, insmod. Every rmmod
 * and insmod must succeed, and afterwards no slab cache may hold more
 * objects than one per cycle plus two slabs per CPU (every cache is shrunk
 * before it is counted, but the per-CPU slabs refill at once: a leak of one
 * object per cycle shows in caches of big objects, one of an object per
 * callout in all). Under the debug kernel, kmemleak (make check-debug) and
 * kmem_cache_destroy()'s check of the module's own caches see the rest.
 */
#include <poll.h>
#include <glob.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>

#include "kselftest_harness.h"
#include "callout_test.h"

FIXTURE(unload) {
	int fd;
};

FIXTURE_SETUP(unload)
{
	self->fd = -1;
	if (geteuid() != 0)
		SKIP(return, "needs root to unload modules");
	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	if (access(callout_ko_path(), R_OK))
		SKIP(return, "no %s to load again (set CALLOUT_KO)",
		     callout_ko_path());
}

/* Whatever happened, leave the module loaded for the next tests. */
FIXTURE_TEARDOWN(unload)
{
	int ret;

	if (self->fd >= 0)
		close(self->fd);
	if (!setup_skipped(_metadata) && !callout_loaded()) {
		ret = callout_load();
		EXPECT_EQ(0, ret) {
			TH_LOG("insmod %s %s: %s", callout_ko_path(),
			       getenv("CALLOUT_PARAMS") ?: "", strerror(-ret));
		}
	}
}

/*
 * A smoke check, counted apart by make check: the refusal is the kernel's
 * doing once the file_operations say .owner = THIS_MODULE, and no other
 * defect of callout makes it fail that reload_loop does not catch first.
 * It stays so that a lost .owner (rmmod under an open file, then a crash
 * at its close) is named at once.
 */
TEST_F(unload, smoke_refused_while_open)
{
	struct stat st;
	int ret;

	if (setup_skipped(_metadata))
		return;

	self->fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) {
		TH_LOG("open %s: %s", CALLOUT_DEV, strerror(errno));
	}

	ret = callout_unload();
	ASSERT_NE(0, ret) {
		TH_LOG("rmmod callout succeeded with %s open", CALLOUT_DEV);
	}
	EXPECT_TRUE(ret == -EAGAIN || ret == -EBUSY) {
		TH_LOG("rmmod callout: %s, want EAGAIN or EBUSY",
		       strerror(-ret));
	}
	EXPECT_TRUE(callout_loaded());
	EXPECT_EQ(0, stat(CALLOUT_DEV, &st));

	/* Closed, nothing holds it: it goes, and its node with it. */
	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;
	EXPECT_EQ(0, callout_refcnt());
	ret = callout_unload();
	ASSERT_EQ(0, ret) {
		TH_LOG("rmmod callout after close: %s (refcnt %lld)",
		       strerror(-ret), callout_refcnt());
	}
	EXPECT_FALSE(callout_loaded());
	EXPECT_NE(0, stat(CALLOUT_DEV, &st)) {
		TH_LOG("%s still exists after rmmod", CALLOUT_DEV);
	}

	/* And it comes back as it was. */
	ret = callout_load();
	ASSERT_EQ(0, ret) {
		TH_LOG("insmod %s: %s", callout_ko_path(), strerror(-ret));
	}
	ASSERT_EQ(0, stat(CALLOUT_DEV, &st)) {
		TH_LOG("no %s after insmod", CALLOUT_DEV);
	}
	EXPECT_EQ(0666, st.st_mode & 07777);
}

#define LOOP_FILES	4
#define LOOP_SETS	300	/* per cycle, over both files */
#define MAX_CACHES	512

struct slab_count {
	char name[64];
	long long objs;
	long long per_slab;
};

/* Shrink every slab cache, so that the counts below are exact. */
static void shrink_slabs(void)
{
	glob_t g;
	size_t i;

	if (glob("/sys/kernel/slab/*/shrink", 0, NULL, &g))
		return;
	for (i = 0; i < g.gl_pathc; i++) {
		int fd = open(g.gl_pathv[i], O_WRONLY | O_CLOEXEC);

		/* a cache that cannot shrink is counted as it is */
		if (fd >= 0) {
			(void)!write(fd, "1", 1);
			close(fd);
		}
	}
	globfree(&g);
}

/* Active objects of every cache in /proc/slabinfo: how many, or -1. */
static int slab_counts(struct slab_count *c, int max)
{
	char line[512];
	FILE *f;
	int n = 0;

	shrink_slabs();
	f = fopen("/proc/slabinfo", "re");
	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		/*
		 * What callout.ko allocates outside its own caches (whose
		 * leaks kmem_cache_destroy() reports at unload, unless SLUB
		 * merged the cache) lands in the kmalloc caches, the 6.12
		 * genradix's nodes too (6.1's are pages: kmemleak in make
		 * check-debug follows those), and radix tree nodes; the VFS's
		 * caches (filp, dentry) free late by design and are not
		 * counted.
		 */
		if (strncmp(line, "kmalloc-", 8) &&
		    strncmp(line, "radix_tree_node", 15))
			continue;
		if (sscanf(line, "%63s %lld %*d %*d %lld", c[n].name,
			   &c[n].objs, &c[n].per_slab) == 3)
			n++;
	}
	fclose(f);
	return n;
}

/*
 * One cycle's traffic on LOOP_FILES fresh files: a third of the SETs are 1 ms
 * one-shots, read back before the files close; a third are 10 s one-shots
 * and a third 2 ms periodic ones, both still armed at close, as are the
 * TIMEOUTs; every tenth far one is UNSET (and must be cancelled).
 * Returns the one-shot events read, or -1 after logging why.
 */
static int cycle_traffic(struct __test_metadata *_metadata)
{
	struct callout_event ev[64];
	int fd[LOOP_FILES], want = 0, got = 0, i, f;
	struct timespec t0, t;

	for (f = 0; f < LOOP_FILES; f++) {
		fd[f] = open(CALLOUT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd[f] < 0) {
			TH_LOG("open %s: %s", CALLOUT_DEV, strerror(errno));
			while (f--)
				close(fd[f]);
			return -1;
		}
	}
	for (i = 0; i < LOOP_SETS; i++) {
		struct callout_set set = { .cookie = i };
		struct callout_timeout to = { .func = 0x1000 + i, .arg = i,
					      .ticks = 5000 };
		__u64 handle;

		f = i % LOOP_FILES;
		switch (i % 3) {
		case 0:
			set.timeout_ns = 1000000;
			want++;
			break;
		case 1:
			set.timeout_ns = 10000000000ULL;
			break;
		default:
			set.timeout_ns = 2000000;
			set.period_ns = 2000000;
			break;
		}
		if (ioctl(fd[f], CALLOUT_IOC_SET, &set)) {
			TH_LOG("SET %d: %s", i, strerror(errno));
			goto fail;
		}
		handle = set.handle;
		if (i % 30 == 1 && ioctl(fd[f], CALLOUT_IOC_UNSET, &handle)) {
			TH_LOG("UNSET of a far callout: %s", strerror(errno));
			goto fail;
		}
		if (i % 50 == 0 && ioctl(fd[f], CALLOUT_IOC_TIMEOUT, &to)) {
			TH_LOG("TIMEOUT %d: %s", i, strerror(errno));
			goto fail;
		}
	}

	/* Every 1 ms one-shot fires and is read, within 10 s even under KASAN. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < want) {
		struct pollfd p[LOOP_FILES];
		ssize_t n;
		int k;

		for (f = 0; f < LOOP_FILES; f++)
			p[f] = (struct pollfd){ .fd = fd[f], .events = POLLIN };
		poll(p, LOOP_FILES, 100);
		for (f = 0; f < LOOP_FILES; f++) {
			n = read(fd[f], ev, sizeof(ev));
			if (n < 0 && errno != EAGAIN) {
				TH_LOG("read: %s", strerror(errno));
				goto fail;
			}
			for (k = 0; n > 0 && k < n / (ssize_t)sizeof(ev[0]); k++)
				got += !ev[k].flags && ev[k].cookie % 3 == 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 10) {
			TH_LOG("%d of %d one-shot events in 10 s", got, want);
			goto fail;
		}
	}
	for (f = 0; f < LOOP_FILES; f++)
		close(fd[f]);
	return got;
fail:
	for (f = 0; f < LOOP_FILES; f++)
		close(fd[f]);
	return -1;
}

/*
 * The caches that grew by more than one object a cycle plus two slabs a
 * CPU (per-CPU slabs refill at once) from @before to @after; each logged
 * (to stderr, as TH_LOG does) when @log. The largest growth goes to
 * @max_name and @max_growth.
 */
static int slab_growth(const struct slab_count *before, int nb,
		       const struct slab_count *after, int na, int loops,
		       int ncpu, const char **max_name, long long *max_growth,
		       bool log)
{
	int i, j, grown = 0;

	*max_growth = 0;
	*max_name = "none";
	for (j = 0; j < na; j++) {
		long long was = 0, slack;

		for (i = 0; i < nb; i++) {
			if (!strcmp(before[i].name, after[j].name)) {
				was = before[i].objs;
				break;
			}
		}
		if (after[j].objs - was > *max_growth) {
			*max_growth = after[j].objs - was;
			*max_name = after[j].name;
		}
		slack = 2LL * ncpu * after[j].per_slab;
		if (after[j].objs - was > loops + slack) {
			if (log)
				fprintf(stderr, "# slab %s: %lld, was %lld\n",
					after[j].name, after[j].objs, was);
			grown++;
		}
	}
	return grown;
}

TEST_F_TIMEOUT(unload, reload_loop, 600)
{
	static struct slab_count before[MAX_CACHES], after[MAX_CACHES];
	const char *env = getenv("CALLOUT_UNLOAD_LOOPS");
	int loops = env ? atoi(env) : 100;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int i, nb = -1, na, ret, grown = 0, attempt;
	long long events = 0, max_growth = 0;
	const char *max_name = "none";

	if (setup_skipped(_metadata))
		return;

	/* One cycle first: what the first load and unload allocate for good. */
	for (i = -1; i < loops; i++) {
		ret = cycle_traffic(_metadata);
		ASSERT_LE(0, ret) {
			TH_LOG("cycle %d: the traffic failed", i);
		}
		events += ret;
		ret = callout_unload();
		ASSERT_EQ(0, ret) {
			TH_LOG("cycle %d: rmmod callout: %s (refcnt %lld)", i,
			       strerror(-ret), callout_refcnt());
		}
		ret = callout_load();
		ASSERT_EQ(0, ret) {
			TH_LOG("cycle %d: insmod %s: %s", i, callout_ko_path(),
			       strerror(-ret));
		}
		if (i == -1) {
			nb = slab_counts(before, MAX_CACHES);
			if (nb < 0)
				TH_LOG("no /proc/slabinfo: slab counts not checked");
		}
	}
	TH_LOG("%d cycles, %lld one-shot events read", loops + 1, events);
	if (nb < 0)
		return;
	if (!slab_counts_meaningful()) {
		TH_LOG("slab counts not checked: KASAN quarantines freed objects");
		return;
	}

	/*
	 * Objects freed late (RCU, delayed fput) settle within moments; a
	 * leak stays. Count again a few times before calling growth a leak.
	 */
	for (attempt = 0; attempt < 5; attempt++) {
		usleep(attempt ? 1000000 : 100000);
		na = slab_counts(after, MAX_CACHES);
		ASSERT_LT(0, na);
		grown = slab_growth(before, nb, after, na, loops, ncpu, &max_name,
				    &max_growth, attempt == 4);
		if (!grown)
			break;
	}
	TH_LOG("largest growth over %d cycles: %s, %lld objects", loops,
	       max_name, max_growth);
	EXPECT_EQ(0, grown);
}

TEST_HARNESS_MAIN
