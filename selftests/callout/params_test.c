// SPDX-License-Identifier: GPL-2.0
/*
 * params_test - a bad module parameter is refused by name. Loading
 * callout.ko with it fails with EINVAL and leaves no module behind, and the
 * kernel log gets one line that names it: "callout: bad parameter NAME:
 * why". Each geometry parameter is tried just outside the range of the
 * scheme that uses it (whichever scheme is loaded: the benchmark runs every
 * scheme in the module's geometry), and each is loaded at the edge inside,
 * or at the other edge where that one would take hundreds of MiB: the check
 * refuses what the scheme refuses, no more and no less. The module is loaded
 * again afterwards with $CALLOUT_PARAMS, so the tests that follow have it.
 */
#include <fcntl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "callout_test.h"

/* The kernel log lines of callout.ko. */
struct callout_lines {
	char line[64][256];
	int nr;
};

FIXTURE(params) {
	int kmsg;
	struct callout_lines log;
};

FIXTURE_VARIANT(params) {
	const char *bad;	/* refused, naming @name */
	const char *name;
	const char *good;	/* loads: the nearest good value */
};

FIXTURE_VARIANT_ADD(params, scheme) {
	.bad = "scheme=nosuch",
	.name = "scheme",
	.good = "scheme=lawn",
};

FIXTURE_VARIANT_ADD(params, tick_ns) {
	.bad = "tick_ns=999",
	.name = "tick_ns",
	.good = "tick_ns=1000",
};

/* 24 is the top, 256 MiB a CPU: the bottom is tried instead. */
FIXTURE_VARIANT_ADD(params, wheel_bits) {
	.bad = "scheme=simple wheel_bits=25",
	.name = "wheel_bits",
	.good = "scheme=simple wheel_bits=1",
};

FIXTURE_VARIANT_ADD(params, level_bits) {
	.bad = "scheme=hierarchical level_bits=20",
	.name = "level_bits",
	.good = "scheme=hierarchical levels=4 level_bits=16",
};

FIXTURE_VARIANT_ADD(params, level_bits_of_another_scheme) {
	.bad = "scheme=hashed level_bits=17",
	.name = "level_bits",
	.good = "scheme=hashed levels=4 level_bits=16",
};

FIXTURE_VARIANT_ADD(params, levels) {
	.bad = "scheme=hierarchical levels=65 level_bits=1",
	.name = "levels",
	.good = "scheme=hierarchical levels=64 level_bits=1",
};

/* Level 7 of 10 bits would start at bit 70. */
FIXTURE_VARIANT_ADD(params, levels_above_64_bits) {
	.bad = "scheme=hierarchical levels=8 level_bits=10",
	.name = "levels",
	.good = "scheme=hierarchical levels=7 level_bits=10",
};

FIXTURE_VARIANT_ADD(params, lawn_ttls) {
	.bad = "scheme=lawn lawn_ttls=1048577",
	.name = "lawn_ttls",
	.good = "scheme=lawn lawn_ttls=1048576",
};

FIXTURE_VARIANT_ADD(params, max_per_file) {
	.bad = "max_per_file=0",
	.name = "max_per_file",
	.good = "max_per_file=1",
};

FIXTURE_VARIANT_ADD(params, max_total) {
	.bad = "max_total=0",
	.name = "max_total",
	.good = "max_total=1",
};

FIXTURE_SETUP(params)
{
	const char *why;

	self->kmsg = -1;
	why = callout_reload_skip();
	if (why)
		SKIP(return, "%s", why);
	if (access(callout_ko_path(), R_OK))
		SKIP(return, "no %s to load (set CALLOUT_KO)",
		     callout_ko_path());
	self->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (self->kmsg < 0)
		SKIP(return, "/dev/kmsg: %s", strerror(errno));
}

/* Whatever happened, leave the module loaded as it was for the next tests. */
FIXTURE_TEARDOWN(params)
{
	int ret;

	if (self->kmsg >= 0)
		close(self->kmsg);
	if (!setup_skipped(_metadata) && !callout_loaded()) {
		ret = callout_load();
		EXPECT_EQ(0, ret) {
			TH_LOG("insmod %s %s: %s", callout_ko_path(),
			       getenv("CALLOUT_PARAMS") ?: "", strerror(-ret));
		}
	}
}

/* The lines of callout.ko in the kernel log records still to read. */
static void read_callout_lines(int kmsg, struct callout_lines *log)
{
	char rec[1024], *msg, *end;
	ssize_t len;

	log->nr = 0;
	for (;;) {
		len = read(kmsg, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EPIPE)
			continue;	/* overwritten: go on with the next */
		if (len <= 0)
			break;
		rec[len] = '\0';
		/* "prio,seq,time,flags;text\n" then " KEY=value" lines */
		msg = strchr(rec, ';');
		if (!msg || strncmp(++msg, "callout: ", 9))
			continue;
		end = strchr(msg, '\n');
		if (end)
			*end = '\0';
		if (log->nr < (int)ARRAY_SIZE(log->line))
			snprintf(log->line[log->nr++], sizeof(log->line[0]),
				 "%s", msg);
	}
}

TEST_F(params, refused_by_name)
{
	char want[64];
	int i, ret, named = 0, bad = 0;

	if (setup_skipped(_metadata))
		return;
	ret = callout_unload();
	ASSERT_EQ(0, ret) {
		TH_LOG("rmmod callout: %s (refcnt %lld)", strerror(-ret),
		       callout_refcnt());
	}
	lseek(self->kmsg, 0, SEEK_END);

	ret = callout_load_params(variant->bad);
	EXPECT_EQ(-EINVAL, ret) {
		TH_LOG("insmod callout.ko %s: %s, want EINVAL", variant->bad,
		       ret ? strerror(-ret) : "loaded");
	}
	if (!ret)
		EXPECT_EQ(0, callout_unload());
	EXPECT_FALSE(callout_loaded());

	read_callout_lines(self->kmsg, &self->log);
	snprintf(want, sizeof(want), "callout: bad parameter %s: ",
		 variant->name);
	for (i = 0; i < self->log.nr; i++) {
		TH_LOG("%s", self->log.line[i]);
		bad += !!strstr(self->log.line[i], "bad parameter");
		named += !strncmp(self->log.line[i], want, strlen(want));
	}
	EXPECT_EQ(1, named) {
		TH_LOG("insmod callout.ko %s: no line \"%s...\"",
		       variant->bad, want);
	}
	EXPECT_EQ(1, bad);

	ret = callout_load_params(variant->good);
	ASSERT_EQ(0, ret) {
		TH_LOG("insmod callout.ko %s: %s", variant->good,
		       strerror(-ret));
	}
	ret = callout_unload();
	EXPECT_EQ(0, ret) {
		TH_LOG("rmmod callout after %s: %s", variant->good,
		       strerror(-ret));
	}
}

TEST_HARNESS_MAIN
