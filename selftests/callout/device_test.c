// SPDX-License-Identifier: GPL-2.0
/*
 * device_test - /dev/callout as the skeleton module provides it: a misc
 * character device anyone may open, ENOTTY for ioctls it does not know, and
 * open/close that leaves nothing behind.
 *
 * Tests SKIP only when callout.ko is not loaded; once it is, a missing or
 * wrong device node is a failure.
 */
#include <grp.h>
#include <linux/membarrier.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "callout_test.h"

#define MISC_MAJOR	10

/* Iterations of the leak test, and the growth it tolerates. */
#define OPEN_CLOSE_LOOPS	10000
#define OPEN_CLOSE_WARMUP	1000
/*
 * Settled, SUnreclaim moves by less than 100 kB over 10000 open/close of the
 * skeleton under TCG; a leak of 32 bytes an open() would be 312 kB.
 */
#define SLAB_SLACK_KB		192
#define OPEN_AT_ONCE		100

TEST(node)
{
	unsigned int major, minor;
	struct stat st;
	FILE *f;

	if (!callout_loaded())
		SKIP(return, "callout.ko is not loaded");

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

/* Commands nobody defined: ENOTTY, never EINVAL or ENOSYS, fd intact. */
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
	__u64 buf[8] = { 0 };
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
	EXPECT_LE(0, fcntl(self->fd, F_GETFD));
}

/* Every open file holds the module, and gives it back on close. */
TEST_F(dev, refcnt_follows_open_files)
{
	long long base = callout_refcnt();
	int fds[OPEN_AT_ONCE];
	int i;

	if (setup_skipped(_metadata))
		return;

	ASSERT_LE(1, base) {
		TH_LOG("refcnt %lld with " CALLOUT_DEV " open", base);
	}
	for (i = 0; i < OPEN_AT_ONCE; i++) {
		fds[i] = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fds[i]) {
			TH_LOG("open #%d: %s", i, strerror(errno));
		}
	}
	EXPECT_EQ(base + OPEN_AT_ONCE, callout_refcnt());
	for (i = 0; i < OPEN_AT_ONCE; i++)
		ASSERT_EQ(0, close(fds[i]));
	EXPECT_EQ(base, callout_refcnt());
}

/*
 * SUnreclaim once the files just closed are gone: a struct file is freed
 * after an RCU grace period, which membarrier(GLOBAL) waits for.
 */
static long long settled_unreclaimable_kb(void)
{
	syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
	usleep(200 * 1000);
	return meminfo_kb("SUnreclaim");
}

/*
 * open/close many times: the module's reference count and this process's
 * open files come back exactly, unreclaimable slab stays within a slack
 * smaller than a leak of 32 bytes per open.
 */
TEST_F(dev, open_close_leaks_nothing)
{
	long long refcnt, slab, grown;
	int fds, fd, i;

	if (setup_skipped(_metadata))
		return;

	/* Warm up slab caches and the dentry/inode of the node. */
	for (i = 0; i < OPEN_CLOSE_WARMUP; i++) {
		fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, close(fd));
	}
	refcnt = callout_refcnt();
	fds = count_open_fds();
	slab = settled_unreclaimable_kb();
	ASSERT_LE(0, slab) TH_LOG("no SUnreclaim in /proc/meminfo");

	for (i = 0; i < OPEN_CLOSE_LOOPS; i++) {
		fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd) {
			TH_LOG("open #%d: %s", i, strerror(errno));
		}
		ASSERT_EQ(0, close(fd));
	}

	grown = settled_unreclaimable_kb() - slab;
	TH_LOG("%d open/close: SUnreclaim %+lld kB, refcnt %lld -> %lld",
	       OPEN_CLOSE_LOOPS, grown, refcnt, callout_refcnt());
	EXPECT_EQ(refcnt, callout_refcnt());
	EXPECT_EQ(fds, count_open_fds());
	if (!slab_counts_meaningful()) {
		TH_LOG("slab growth not checked: KASAN quarantines freed objects");
		return;
	}
	EXPECT_GT(SLAB_SLACK_KB, grown) {
		TH_LOG("unreclaimable slab grew by %lld kB over %d open/close",
		       grown, OPEN_CLOSE_LOOPS);
	}
}

TEST_HARNESS_MAIN
