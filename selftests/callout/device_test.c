// SPDX-License-Identifier: GPL-2.0
/*
 * device_test - /dev/callout as the skeleton module provides it: a misc
 * character device anyone may open, ENOTTY for ioctls it does not know, and
 * files that leave nothing behind when they close, whatever their callouts
 * were doing.
 *
 * Tests SKIP only when callout.ko is not loaded; once it is, a missing or
 * wrong device node is a failure.
 */
#include <grp.h>
#include <linux/membarrier.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "callout_test.h"

#define MISC_MAJOR	10

/*
 * A smoke check: the node is the misc device callout.ko registered, as the
 * misc core made it. Its name and mode are callout's, and what they mean is
 * tested where it counts: every test opens it, open_unprivileged as nobody.
 */
TEST(smoke_node)
{
	unsigned int major, minor;
	struct stat st;
	FILE *f;

	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	if (!callout_first_boot())
		SKIP(return, "runs in the first boot only: no parameter changes it");

	ASSERT_EQ(0, stat(CALLOUT_DEV, &st)) {
		TH_LOG("stat %s: %s", CALLOUT_DEV, strerror(errno));
	}
	ASSERT_TRUE(S_ISCHR(st.st_mode)) {
		TH_LOG("%s is not a character device (mode %o)", CALLOUT_DEV,
		       st.st_mode);
	}
	EXPECT_EQ(0666, st.st_mode & 07777) {
		TH_LOG("%s has mode %o, want 0666", CALLOUT_DEV,
		       st.st_mode & 07777);
	}
	EXPECT_EQ(MISC_MAJOR, major(st.st_rdev));

	/* The node is the device the misc class registered. */
	f = fopen("/sys/class/misc/callout/dev", "re");
	ASSERT_NE(NULL, f) {
		TH_LOG("no /sys/class/misc/callout/dev: %s", strerror(errno));
	}
	ASSERT_EQ(2, fscanf(f, "%u:%u", &major, &minor));
	fclose(f);
	EXPECT_EQ(major, major(st.st_rdev));
	EXPECT_EQ(minor, minor(st.st_rdev));
}

/* Mode 0666 means what it says: nobody may open it read-write. */
TEST(open_unprivileged)
{
	int status, fd;
	pid_t pid;

	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	if (geteuid() != 0)
		SKIP(return, "needs root to become nobody");

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
		_exit(fd < 0 ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("%s", WEXITSTATUS(status) == 2 ?
		       "cannot become uid 65534" :
		       "uid 65534 cannot open " CALLOUT_DEV " read-write");
	}
}

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = -1;
	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	self->fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) {
		TH_LOG("open %s: %s", CALLOUT_DEV, strerror(errno));
	}
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Commands nobody defined: ENOTTY, never EINVAL or ENOSYS, and the file
 * works as before.
 */
TEST_F(dev, unknown_ioctl)
{
	static const struct {
		unsigned long cmd;
		const char *name;
	} cmds[] = {
		{ _IO(CALLOUT_IOC_MAGIC, 0x7f), "_IO(CALLOUT_IOC_MAGIC, 0x7f)" },
		{ _IOWR(CALLOUT_IOC_MAGIC, 0xff, struct callout_set),
		  "_IOWR(CALLOUT_IOC_MAGIC, 0xff, struct callout_set)" },
		{ _IOR(0xEE, 0x01, __u64), "_IOR(0xEE, 0x01, __u64)" },
		{ _IOW('Z', 0x42, int), "_IOW('Z', 0x42, int)" },
		{ 0, "0" },
	};
	__u64 buf[8] = { 0 }, h = 0;
	struct callout_info info;
	unsigned int i;

	if (setup_skipped(_metadata))
		return;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, cmds[i].cmd, buf)) {
			TH_LOG("ioctl %s succeeded", cmds[i].name);
		}
		EXPECT_EQ(ENOTTY, errno) {
			TH_LOG("ioctl %s: errno %d (%s), want ENOTTY",
			       cmds[i].name, errno, strerror(errno));
		}
	}
	ASSERT_EQ(0, ioctl(self->fd, CALLOUT_IOC_INFO, &info));
	ASSERT_EQ(0, set_callout(self->fd, info.max_timeout_ns, 0, 1, &h));
	EXPECT_EQ(0, unset_callout(self->fd, h));
}

/*
 * The leak test: files opened and closed, and the growth of the cgroup's
 * kernel memory it tolerates. Everything a file allocates for its user is
 * charged to the user's memory cgroup (GFP_KERNEL_ACCOUNT, SLAB_ACCOUNT
 * caches), slab objects to the byte, with less than a page per CPU held in
 * the per-CPU byte stocks: it moves by a page either way. A leak of the
 * smallest thing a file allocates, a 256-byte ucallout, adds 256 kB over
 * LEAK_FILES files; of the file itself, its handle table's page and its
 * callouts, well over 4 MB.
 */
#define LEAK_FILES		1000
#define LEAK_WARMUP		50
#define LEAK_SLACK		(64 << 10)

/*
 * One file through everything a close() can meet: a far one-shot and a
 * far TIMEOUT pending, a periodic callout firing every tick, a TIMEOUT
 * cancelled (kept on the file's free list), a one-shot and a TIMEOUT that
 * fire, one event read and the others left unread, a spare left by an
 * UNSET. Return: NULL, or what failed.
 */
static const char *leak_cycle(const struct callout_info *info, __u64 far)
{
	struct callout_timeout t = { .func = 4, .arg = 4 };
	struct callout_timeout t2 = { .func = 5, .arg = 5 };
	struct callout_timeout t3 = { .func = 6, .arg = 6, .ticks = 1 };
	struct callout_untimeout u = { .func = 5, .arg = 5 };
	struct callout_event ev;
	struct pollfd p;
	const char *why = NULL;
	__u64 h = 0;
	int fd;

	fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return "open";
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	t.ticks = far / info->tick_ns;
	t2.ticks = t.ticks;
	if (set_callout(fd, far, 0, 1, NULL))
		why = "SET far";
	else if (set_callout(fd, info->tick_ns, info->tick_ns, 2, NULL))
		why = "SET periodic";
	else if (ioctl(fd, CALLOUT_IOC_TIMEOUT, &t))
		why = "TIMEOUT far";
	else if (ioctl(fd, CALLOUT_IOC_TIMEOUT, &t2) ||
		 ioctl(fd, CALLOUT_IOC_UNTIMEOUT, &u))
		why = "TIMEOUT and UNTIMEOUT";
	else if (ioctl(fd, CALLOUT_IOC_TIMEOUT, &t3))
		why = "TIMEOUT one tick";
	else if (set_callout(fd, info->tick_ns, 0, 3, NULL))
		why = "SET one tick";
	else if (poll(&p, 1, 10000) != 1 ||
		 read(fd, &ev, sizeof(ev)) != sizeof(ev))
		why = "no event within 10 s";
	/* Last, so that no SET takes the spare it leaves. */
	else if (set_callout(fd, far, 0, 4, &h) || unset_callout(fd, h))
		why = "SET and UNSET";
	close(fd);
	return why;
}

/* The cgroup's kernel memory (memory.stat "kernel") in bytes, or -1. */
static long long cg_kernel(const char *cg)
{
	return cg_key(cg, "memory.stat", "kernel");
}

FIXTURE(leak) {
};

FIXTURE_SETUP(leak)
{
}

FIXTURE_TEARDOWN(leak)
{
}

/*
 * Files with callouts in every state, opened and closed by a child in a
 * memory cgroup of its own: once they are closed, the cgroup's kernel
 * memory is back within LEAK_SLACK of where it was after a few files (RCU
 * frees, such as a struct file's or a timeout slab's page, and the cgroup's
 * statistics get up to 20 s: far below the 120 s limit), and debugfs's
 * user_callouts and pending are exactly where they were.
 */
TEST_F_TIMEOUT(leak, open_close_leaks_nothing, 120)
{
	long long users, pending, kb0 = -1, kb = -1, grown = -1;
	struct callout_info info;
	int fd, status, ret, i, stops = 0;
	char cg[64];
	__u64 far;
	pid_t pid;

	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");
	if (geteuid() != 0)
		SKIP(return, "needs root for cgroups");
	ret = cgroup2_ready();
	if (ret)
		SKIP(return, "no cgroup2 memory controller: %s", strerror(-ret));
	users = callout_stat("user_callouts");
	pending = callout_stat("pending");
	ASSERT_LE(0, users) TH_LOG("no %s", CALLOUT_STATS);
	fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, CALLOUT_IOC_INFO, &info));
	close(fd);
	far = 60000000000ULL;
	if (far > info.max_timeout_ns)
		far = info.max_timeout_ns;
	snprintf(cg, sizeof(cg), CGROOT "/callout_leak.%d", getpid());
	ASSERT_EQ(0, mkdir(cg, 0755)) TH_LOG("mkdir %s: %s", cg, strerror(errno));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		const char *why = NULL;

		if (cg_write(cg, "cgroup.procs", "0"))
			_exit(100);
		for (i = 0; i < LEAK_WARMUP && !why; i++)
			why = leak_cycle(&info, far);
		if (!why) {
			/* Stopped while the parent takes the baseline. */
			raise(SIGSTOP);
			for (i = 0; i < LEAK_FILES && !why; i++)
				why = leak_cycle(&info, far);
		}
		if (why) {
			printf("# file %d: %s: %s\n", i, why, strerror(errno));
			fflush(stdout);
			_exit(101);
		}
		/* Every file closed: stopped while the parent looks. */
		raise(SIGSTOP);
		_exit(0);
	}

	for (;;) {
		ASSERT_EQ(pid, waitpid(pid, &status, WUNTRACED));
		if (!WIFSTOPPED(status))
			break;
		if (++stops == 1) {
			syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
			usleep(200000);
			kb0 = cg_kernel(cg);
		} else {
			EXPECT_EQ(users, callout_stat("user_callouts"));
			EXPECT_EQ(pending, callout_stat("pending"));
			/*
			 * RCU frees and the memcg statistics, flushed every
			 * 2 s, take a while; a leak stays.
			 */
			for (i = 0; i < 200; i++) {
				syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL,
					0, 0);
				usleep(100000);
				kb = cg_kernel(cg);
				grown = kb - kb0;
				if (grown < LEAK_SLACK)
					break;
			}
		}
		kill(pid, SIGCONT);
	}
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("the child %s %d (100: cannot join %s)",
		       WIFEXITED(status) ? "exited with" : "died of signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		       cg);
	}
	EXPECT_EQ(2, stops);
	EXPECT_EQ(0, rmdir(cg)) TH_LOG("rmdir %s: %s", cg, strerror(errno));
	if (stops < 2)
		return;
	TH_LOG("%d files: the cgroup's kernel memory %lld -> %lld bytes (%+lld)",
	       LEAK_FILES, kb0, kb, grown);
	ASSERT_LE(0, kb0) TH_LOG("no \"kernel\" in %s/memory.stat", cg);
	if (!slab_counts_meaningful()) {
		TH_LOG("memory not checked: KASAN quarantines freed objects");
		return;
	}
	EXPECT_GT(LEAK_SLACK, grown) {
		TH_LOG("%lld bytes more after %d files: %lld a file",
		       grown, LEAK_FILES, grown / LEAK_FILES);
	}
}

TEST_HARNESS_MAIN
