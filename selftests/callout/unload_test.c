// SPDX-License-Identifier: GPL-2.0
/*
 * unload_test - an open /dev/callout pins the module (its file_operations
 * have .owner = THIS_MODULE): rmmod is refused while a file is open and
 * accepted once it is closed. The module is loaded again afterwards, with
 * $CALLOUT_PARAMS, so the tests that follow still have it.
 */
#include <sys/stat.h>

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
	if (!_metadata->skip && !callout_loaded()) {
		ret = callout_load();
		EXPECT_EQ(0, ret) {
			TH_LOG("insmod %s %s: %s", callout_ko_path(),
			       getenv("CALLOUT_PARAMS") ?: "", strerror(-ret));
		}
	}
}

TEST_F(unload, refused_while_open)
{
	struct stat st;
	int ret;

	if (_metadata->skip)
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

TEST_HARNESS_MAIN
