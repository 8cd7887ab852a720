// SPDX-License-Identifier: GPL-2.0
/*
 * security_test - the security model of /dev/callout (Documentation/callout.rst,
 * "Limits and security model"), tried by a hostile unprivileged process:
 *
 *  - nobody (uid 65534) may open the device and use its own file, but cannot
 *    cancel, re-arm, untimeout or read another file's callouts, whatever
 *    handles and func/arg pairs it tries, nor read debugfs;
 *  - handles are per-file slot numbers (1, 2, 3 in every new file), not
 *    pointers;
 *  - no kernel address appears in events or in the debugfs files;
 *  - max_per_file and max_total hold against a process that opens many
 *    files (the module is reloaded with small limits for that), and the
 *    system keeps working;
 *  - callouts are charged to the caller's memory cgroup: in a cgroup with a
 *    small memory.max, SET fails with ENOMEM, nobody is OOM-killed, and
 *    memory.current shows the charge while the callouts are held.
 *
 * Runs as root in the test VM; it drops to nobody where the test says so.
 */
#include <ctype.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/klog.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "callout_test.h"

#define MS		1000000ULL
#define NOBODY		65534
#define DEBUGFS		"/sys/kernel/debug/callout"

/* Drop to nobody, for good; false if that did not work. */
static bool become_nobody(void)
{
	return !setgroups(0, NULL) && !setgid(NOBODY) && !setuid(NOBODY) &&
	       geteuid() == NOBODY && getegid() == NOBODY && setuid(0) != 0;
}

/*
 * A timeout no test waits for: a minute, or the longest the scheme takes
 * (simple holds 2^wheel_bits ticks). Sets *@ticks to it in ticks.
 */
static __u64 far_ns(__u64 *ticks)
{
	struct callout_info info = { .max_timeout_ns = 60000 * MS, .tick_ns = MS };
	__u64 far = 60000 * MS;
	int fd;

	fd = open(CALLOUT_DEV, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ioctl(fd, CALLOUT_IOC_INFO, &info);
		close(fd);
	}
	if (far > info.max_timeout_ns)
		far = info.max_timeout_ns;
	if (ticks)
		*ticks = far / info.tick_ns;
	return far;
}

/* A value of the debugfs stats, or -1. */
static long long stat_value(const char *key)
{
	FILE *f = fopen(DEBUGFS "/stats", "re");
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

/* Does @v look like a kernel address of x86-64 (the upper half)? */
static bool kernel_address(unsigned long long v)
{
	return v >= 0xffff800000000000ULL;
}

/*
 * The first word of @text that reads as a kernel address, in hex (with or
 * without 0x) or in decimal, or NULL.
 */
static const char *find_kernel_address(const char *text)
{
	const char *p = text, *word;
	unsigned long long v;
	char *end;

	while (*p) {
		while (*p && !isxdigit((unsigned char)*p))
			p++;
		word = p;
		if (!*p)
			break;
		errno = 0;
		v = strtoull(p, &end, 16);
		if (!errno && end - p >= 12 && kernel_address(v))
			return word;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (!errno && kernel_address(v))
			return word;
		while (*p && isxdigit((unsigned char)*p))
			p++;
		if (*p == 'x' || *p == 'X')
			p++;
	}
	return NULL;
}

static char *read_text(const char *path)
{
	size_t size = 1 << 20, len = 0;
	char *buf = malloc(size);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = 0;
	close(fd);
	return buf;
}

/*
 * nobody opens /dev/callout and tries everything on the callouts of a file
 * root opened: every handle and func/arg pair root used. Root's callouts
 * must be as they were, and their events root's alone.
 */
TEST(unprivileged_cannot_touch_other_files)
{
	enum { NA = 64, NT = 8, NSHORT = 8 };
	struct callout_event ev[NSHORT + 1];
	__u64 h[NA], ticks, far;
	int fd, i, got, status;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "needs root to become nobody");
	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	fd = open(CALLOUT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, fd);
	far = far_ns(&ticks);
	for (i = 0; i < NA; i++)
		ASSERT_EQ(0, set_callout(fd, far, i % 2 ? far : 0, i, &h[i]));
	for (i = 0; i < NT; i++)
		ASSERT_EQ(0, timeout_callout(fd, i, i, ticks));
	for (i = 0; i < NSHORT; i++)
		ASSERT_EQ(0, set_callout(fd, 30 * MS, 0, 0xa000 + i, NULL));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct callout_reset r = { .timeout_ns = MS };
		struct callout_event cev;
		struct pollfd p;
		int cfd, errs = 0;
		__u64 x;

		close(fd);	/* a file is shared by fork(): not this one */
		if (!become_nobody())
			_exit(100);
		cfd = open(CALLOUT_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (cfd < 0) {
			printf("# nobody: open %s: %s\n", CALLOUT_DEV,
			       strerror(errno));
			_exit(101);
		}
		/* Root's handles, and a few past them, from an empty file. */
		for (x = 0; x <= NA + NSHORT + 16; x++) {
			r.handle = x;
			if (unset_callout(cfd, x) != -ENOENT)
				errs++;
			if (!ioctl(cfd, CALLOUT_IOC_RESET, &r) || errno != ENOENT)
				errs++;
		}
		for (i = 0; i < NT; i++)
			if (untimeout_callout(cfd, i, i) != -ENOENT)
				errs++;
		if (errs) {
			printf("# nobody: %d UNSET/RESET/UNTIMEOUT of root's callouts %s\n",
			       errs, "did not fail with ENOENT");
			_exit(102);
		}
		/* Root's short callouts fire meanwhile: nothing comes here. */
		p = (struct pollfd){ .fd = cfd, .events = POLLIN };
		if (poll(&p, 1, 200) != 0 || read(cfd, &cev, sizeof(cev)) >= 0 ||
		    errno != EAGAIN) {
			printf("# nobody: its empty file has an event (handle %llu cookie %llx)\n",
			       cev.handle, cev.cookie);
			_exit(103);
		}
		/* Its own callouts work, with its own handles from 1. */
		if (set_callout(cfd, far, 0, 1, &x) || x != 1 ||
		    unset_callout(cfd, 1) || unset_callout(cfd, 1) != -ENOENT) {
			printf("# nobody: own SET gave handle %llu\n", x);
			_exit(104);
		}
		if (!access(DEBUGFS "/stats", R_OK) ||
		    open(DEBUGFS "/stats", O_RDONLY) >= 0) {
			printf("# nobody can read %s/stats\n", DEBUGFS);
			_exit(105);
		}
		close(cfd);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("nobody's checks failed: %d (100: could not become nobody)",
		       WEXITSTATUS(status));
	}

	/* Root's short ones fired for root, once each. */
	got = 0;
	for (i = 0; i < 100 && got < NSHORT; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		poll(&p, 1, 50);
		n = read(fd, ev + got, sizeof(ev) - got * sizeof(*ev));
		if (n > 0)
			got += n / sizeof(*ev);
	}
	EXPECT_EQ(NSHORT, got);
	for (i = 0; i < got; i++)
		EXPECT_EQ(0xa000, ev[i].cookie & ~0xfffULL);
	/* The long ones are all still pending: nobody cancelled one. */
	for (i = 0; i < NA; i++)
		EXPECT_EQ(0, unset_callout(fd, h[i]));
	for (i = 0; i < NT; i++)
		EXPECT_EQ(0, untimeout_callout(fd, i, i));
	close(fd);
}

/*
 * Handles are slot numbers of their file (and the slot's generation, 0 in a
 * new file): every new file gives 1, 2, 3..., so a handle says nothing
 * about the kernel, and events carry back only what the caller gave and the
 * times. The callouts are set far and brought near only once all are set:
 * a slot freed by an expiry would be given again, to a later SET.
 */
TEST(handles_are_per_file_slots)
{
	enum { NF = 3, NH = 4 };
	struct callout_reset r = { 0 };
	struct callout_event ev[NH];
	int fd[NF], i, j, got;
	__u64 h = 0, far;

	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	far = far_ns(NULL);
	for (i = 0; i < NF; i++) {
		fd[i] = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd[i]);
	}
	for (j = 0; j < NH; j++)
		for (i = 0; i < NF; i++) {
			ASSERT_EQ(0, set_callout(fd[i], far, 0, i * 100 + j,
						 &h));
			EXPECT_EQ(j + 1, h);
		}
	for (j = 0; j < NH; j++)
		for (i = 0; i < NF; i++) {
			r.handle = j + 1;
			r.timeout_ns = (100 + j) * MS;
			EXPECT_EQ(0, ioctl(fd[i], CALLOUT_IOC_RESET, &r));
		}
	for (i = 0; i < NF; i++) {
		struct pollfd p = { .fd = fd[i], .events = POLLIN };
		ssize_t n;

		for (got = 0, j = 0; j < 100 && got < NH; j++) {
			if (poll(&p, 1, 50) != 1)
				continue;
			n = read(fd[i], ev + got, sizeof(ev) - got * sizeof(*ev));
			if (n > 0)
				got += n / sizeof(*ev);
		}
		ASSERT_EQ(NH, got);
		for (j = 0; j < got; j++) {
			EXPECT_EQ(i * 100 + ev[j].handle - 1, ev[j].cookie);
			EXPECT_EQ(0, ev[j].arg);
			EXPECT_FALSE(kernel_address(ev[j].expires_ns));
			EXPECT_FALSE(kernel_address(ev[j].fired_ns));
		}
		close(fd[i]);
	}
}

/*
 * Every debugfs file of the module, read while callouts of every kind are
 * pending and a benchmark result is there, holds no kernel address.
 */
TEST(debugfs_has_no_kernel_address)
{
	static const char *const files[] = { "stats", "wheel", "bench" };
	const char *addr;
	unsigned int i, nr = 0;
	int fd, bench;
	char *text;

	if (geteuid() != 0)
		SKIP(return, "needs root to read debugfs");
	if (access(DEBUGFS "/stats", R_OK))
		SKIP(return, "no %s/stats", DEBUGFS);
	fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, set_callout(fd, (1 + i) * 10 * MS,
					 i % 2 ? 10 * MS : 0, i, NULL));
		ASSERT_EQ(0, timeout_callout(fd, i, i, 1000 + i));
	}
	/* "sizes" is the benchmark command that prints at once. */
	bench = open(DEBUGFS "/bench", O_WRONLY | O_CLOEXEC);
	if (bench >= 0) {
		EXPECT_EQ(5, write(bench, "sizes", 5));
		close(bench);
	}
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char path[128];

		snprintf(path, sizeof(path), DEBUGFS "/%s", files[i]);
		text = read_text(path);
		if (!text)
			continue;
		nr++;
		addr = find_kernel_address(text);
		EXPECT_EQ(NULL, addr) {
			TH_LOG("%s: a kernel address: %.40s", path, addr);
		}
		free(text);
	}
	EXPECT_LE(2, nr);
	close(fd);
}

/* How many lines of the kernel log hold @what, or -1. */
static int klog_count(const char *what)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *p;
	int n = 0, len;

	if (size <= 0)
		return -1;
	buf = malloc(size + 1);
	if (!buf)
		return -1;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (len < 0) {
		free(buf);
		return -1;
	}
	buf[len] = 0;
	for (p = buf; (p = strstr(p, what)); p++)
		n++;
	free(buf);
	return n;
}

/* Reload callout.ko with $CALLOUT_PARAMS and @extra: 0 or -errno. */
static int reload(const char *extra)
{
	const char *params = getenv("CALLOUT_PARAMS") ?: "";
	char all[512];
	int fd, ret, i;

	for (i = 0; i < 100 && callout_loaded(); i++) {
		ret = callout_unload();
		if (!ret)
			break;
		usleep(20000);
	}
	if (callout_loaded())
		return -EBUSY;
	snprintf(all, sizeof(all), "%s %s", params, extra);
	fd = open(callout_ko_path(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, all, 0) ? -errno : 0;
	close(fd);
	return ret;
}

FIXTURE(limits) {
	bool reloaded;
};

FIXTURE_SETUP(limits)
{
	self->reloaded = false;
	if (geteuid() != 0)
		SKIP(return, "needs root to reload the module");
	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	if (access(callout_ko_path(), R_OK))
		SKIP(return, "no %s to reload", callout_ko_path());
}

FIXTURE_TEARDOWN(limits)
{
	int ret;

	if (self->reloaded || (!setup_skipped(_metadata) && !callout_loaded())) {
		ret = reload("");
		EXPECT_EQ(0, ret) {
			TH_LOG("reload with $CALLOUT_PARAMS: %s", strerror(-ret));
		}
	}
}

/*
 * A hostile nobody opens many files and fills each with SETs and TIMEOUTs:
 * each file stops at max_per_file, all together at max_total, with ENOSPC
 * and a rate-limited dmesg line. RESET and UNSET still work at the limit;
 * root's files get ENOSPC too while the total is held, and everything works
 * again once the hostile files are closed.
 */
TEST_F(limits, per_file_and_total_hold)
{
	enum { PER_FILE = 500, TOTAL = 1200, NFILES = 6, TRIES = 1000 };
	int fds[NFILES], root_fd, i, status, ret, lines;
	__u64 far, far_ticks;
	long long users0;
	int *shared;
	pid_t pid;

	if (setup_skipped(_metadata))
		return;
	self->reloaded = true;
	ret = reload("max_per_file=500 max_total=1200");
	ASSERT_EQ(0, ret) TH_LOG("reload: %s", strerror(-ret));
	far = far_ns(&far_ticks);
	users0 = stat_value("user_callouts");
	lines = klog_count("callout limit reached");
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shared);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct callout_reset r = { .timeout_ns = far };
		int f, n, total = 0, other = 0;
		__u64 h;

		if (!become_nobody())
			_exit(100);
		for (f = 0; f < NFILES; f++) {
			fds[f] = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
			if (fds[f] < 0)
				_exit(101);
			for (n = 0; n < PER_FILE + 10; n++) {
				ret = n % 3 ? set_callout(fds[f], far, 0, n, &h) :
				      timeout_callout(fds[f], n, n, far_ticks);
				if (ret == -ENOSPC)
					break;
				if (ret)
					other++;
			}
			shared[f] = n;
			total += n;
		}
		/* Hammer the limit: ENOSPC each time, a bounded dmesg. */
		for (n = 0; n < TRIES; n++)
			if (set_callout(fds[n % NFILES], MS, 0, 0, NULL) != -ENOSPC)
				other++;
		/* At the limit, RESET and UNSET need no memory. */
		r.handle = 2;
		if (ioctl(fds[0], CALLOUT_IOC_RESET, &r) || unset_callout(fds[0], 2))
			other++;
		if (set_callout(fds[0], far, 0, 0, NULL))
			other++;
		shared[NFILES] = total;
		shared[NFILES + 1] = other;
		/* Hold them while root looks. */
		kill(getpid(), SIGSTOP);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status)) {
		TH_LOG("the hostile child exited with %d", WEXITSTATUS(status));
		kill(pid, SIGKILL);
	}
	EXPECT_EQ(PER_FILE, shared[0]);
	EXPECT_EQ(PER_FILE, shared[1]);
	EXPECT_EQ(TOTAL - 2 * PER_FILE, shared[2]);
	for (i = 3; i < NFILES; i++)
		EXPECT_EQ(0, shared[i]);
	EXPECT_EQ(TOTAL, shared[NFILES]);
	EXPECT_EQ(0, shared[NFILES + 1]) {
		TH_LOG("%d calls did not answer as the limits say", shared[NFILES + 1]);
	}
	if (users0 >= 0)
		EXPECT_EQ(users0 + TOTAL, stat_value("user_callouts"));
	/* Over a thousand refusals, a rate-limited handful of lines. */
	if (lines >= 0) {
		lines = klog_count("callout limit reached") - lines;
		EXPECT_LT(0, lines);
		EXPECT_GE(20, lines);
	}
	/* The total is global: root is refused too while it is held. */
	root_fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, root_fd);
	EXPECT_EQ(-ENOSPC, set_callout(root_fd, MS, 0, 0, NULL));
	kill(pid, SIGCONT);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	/* Closed: the room is back, for anyone. */
	EXPECT_EQ(0, set_callout(root_fd, far, 0, 0, NULL));
	close(root_fd);
	if (users0 >= 0)
		EXPECT_EQ(users0, stat_value("user_callouts"));
	munmap(shared, 4096);
}

/*
 * A nobody in a memory cgroup of small memory.max sets callouts until it is
 * refused: with ENOMEM (its cgroup is full; max_per_file is far), without
 * an OOM kill, and memory.current holds at least the callouts' objects.
 * Closing the file gives the memory back.
 */
TEST(memcg_charged)
{
	enum { LIMIT = 4 << 20, MIN_OBJECT = 64 };
	long long cur0, cur_held, cur_after, ooms;
	char cg[64], buf[32];
	__u64 far, far_ticks;
	long *shared;
	int status, ret, i;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "needs root for cgroups");
	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	ret = cgroup2_ready();
	if (ret)
		SKIP(return, "no cgroup2 memory controller: %s", strerror(-ret));
	snprintf(cg, sizeof(cg), CGROOT "/callout_test.%d", getpid());
	ASSERT_EQ(0, mkdir(cg, 0755)) TH_LOG("mkdir %s: %s", cg, strerror(errno));
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shared);
	/* Its page is allocated here, outside the group. */
	memset(shared, 0, 4096);
	far = far_ns(&far_ticks);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fds[4], f = 0;
		long n = 0;

		/*
		 * Everything it will touch, mapped now: once the group is
		 * full, a fault that needs memory (a page-table page for
		 * the shared result page, not copied by fork(); a COW
		 * copy; a text page) is an OOM kill, not an ENOMEM.
		 */
		if (mlockall(MCL_CURRENT)) {
			fprintf(stderr, "# child: mlockall: %s\n",
				strerror(errno));
			_exit(99);
		}
		/* Stopped until root has moved it into the group. */
		kill(getpid(), SIGSTOP);
		if (!become_nobody())
			_exit(100);
		fds[0] = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
		if (fds[0] < 0)
			_exit(101);
		for (;;) {
			ret = n % 4 ? set_callout(fds[f], far, 0, n, NULL) :
			      timeout_callout(fds[f], n, n, far_ticks);
			if (!ret) {
				n++;
				continue;
			}
			/* Past max_per_file: another file, a few times. */
			if (ret == -ENOSPC && f < 3) {
				fds[++f] = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
				if (fds[f] >= 0)
					continue;
				ret = -errno;
			}
			break;
		}
		shared[0] = n;
		shared[1] = -ret;
		/* Hold them, allocating nothing, while root looks. */
		kill(getpid(), SIGSTOP);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status)) {
		TH_LOG("the child ended before the group was set up");
	}
	snprintf(buf, sizeof(buf), "%d", pid);
	ret = cg_write(cg, "cgroup.procs", buf);
	if (!ret) {
		cur0 = cg_value(cg, "memory.current");
		snprintf(buf, sizeof(buf), "%lld", cur0 + LIMIT);
		ret = cg_write(cg, "memory.max", buf);
	}
	EXPECT_EQ(0, ret) TH_LOG("cgroup setup: %s", strerror(-ret));
	if (ret) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		rmdir(cg);
		return;
	}
	kill(pid, SIGCONT);
	ASSERT_EQ(pid, waitpid(pid, &status, WUNTRACED));
	cur_held = cg_value(cg, "memory.current");
	ooms = cg_key(cg, "memory.events", "oom_kill");
	TH_LOG("%ld callouts set in %d MiB, then %s; memory.current %lld -> %lld, oom_kill %lld",
	       shared[0], LIMIT >> 20, strerror(shared[1]), cur0, cur_held, ooms);
	EXPECT_TRUE(WIFSTOPPED(status)) {
		TH_LOG("the child %s %d", WIFSIGNALED(status) ? "was killed by signal" :
		       "exited", WIFSIGNALED(status) ? WTERMSIG(status) :
		       WEXITSTATUS(status));
	}
	EXPECT_EQ(ENOMEM, shared[1]);
	EXPECT_EQ(0, ooms);
	EXPECT_LT(1000, shared[0]);
	EXPECT_LE(cur0 + shared[0] * MIN_OBJECT, cur_held);
	if (WIFSTOPPED(status)) {
		kill(pid, SIGCONT);
		waitpid(pid, &status, 0);
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	/* Freed at close (TIMEOUTs' slab pages after an RCU grace period). */
	for (i = 0; i < 100; i++) {
		cur_after = cg_value(cg, "memory.current");
		if (cur_after - cur0 < (cur_held - cur0) / 2)
			break;
		usleep(20000);
	}
	EXPECT_GT((cur_held - cur0) / 2, cur_after - cur0) {
		TH_LOG("memory.current %lld after close, %lld held, %lld before",
		       cur_after, cur_held, cur0);
	}
	EXPECT_EQ(0, rmdir(cg));
	munmap(shared, 4096);
}

TEST_HARNESS_MAIN
