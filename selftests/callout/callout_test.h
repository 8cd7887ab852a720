/* SPDX-License-Identifier: GPL-2.0 */
/*
 * callout_test.h - helpers shared by the callout kselftests.
 *
 * Include after kselftest_harness.h. The module is at $CALLOUT_KO and was
 * loaded with $CALLOUT_PARAMS (both set by scripts/vm.sh in the test VM).
 *
 * The 6.1 harness runs a TEST_F body even after FIXTURE_SETUP called SKIP()
 * (fixed upstream by 372b304c1e51), so every TEST_F body of a fixture that
 * may skip starts with:
 *
 *	if (setup_skipped(_metadata))
 *		return;
 */
#ifndef CALLOUT_TEST_H
#define CALLOUT_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/callout.h>

/*
 * Whether SKIP() was called: the 6.1 harness has a skip flag; later ones
 * (those with XFAIL_ADD, as in Debian 13's 6.12 and in 7.x) record it as the
 * exit code and no longer have the flag.
 */
#ifdef XFAIL_ADD
#define setup_skipped(m)	((m)->exit_code == KSFT_SKIP)
#else
#define setup_skipped(m)	((m)->skip)
#endif

/* Write @val to the tracefs file @path: 0 or -errno. */
static inline int tracefs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -EIO;
}

/*
 * make check boots the VM once per set of module parameters and runs every
 * suite in each boot, telling the suites which boot it is in CALLOUT_BOOT
 * (1, 2, ...). A case whose outcome does not depend on the loaded module's
 * parameters runs in the first boot only, or when run by hand (no
 * CALLOUT_BOOT), so that it counts once:
 *
 *	if (!callout_first_boot())
 *		SKIP(return, "runs in the first boot only");
 */
static inline bool callout_first_boot(void)
{
	const char *boot = getenv("CALLOUT_BOOT");

	return !boot || !strcmp(boot, "1");
}

#define CALLOUT_DEV		"/dev/callout"

/*
 * Read up to @max events of @fd, waiting at most @ms for the first.
 * Return: how many, 0 if none came (or only stale ones, which read()
 * drops: EAGAIN), or -errno.
 */
static inline int callout_read_events(int fd, struct callout_event *ev,
				      int max, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return 0;
	n = read(fd, ev, max * sizeof(*ev));
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	return n / sizeof(*ev);
}

#define CALLOUT_MODULE		"callout"
#define CALLOUT_SYSFS		"/sys/module/" CALLOUT_MODULE
#define CALLOUT_STATS		"/sys/kernel/debug/callout/stats"
#define CGROOT			"/sys/fs/cgroup"

static inline bool callout_loaded(void)
{
	return access(CALLOUT_SYSFS "/refcnt", F_OK) == 0;
}

/* The first unsigned number in @path, or -1 with errno set. */
static inline long long read_ull(const char *path)
{
	unsigned long long val;
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%llu", &val);
	fclose(f);
	if (n != 1) {
		errno = EINVAL;
		return -1;
	}
	return val;
}

/* How many users hold the module: open files, mostly. -1 if not loaded. */
static inline long long callout_refcnt(void)
{
	return read_ull(CALLOUT_SYSFS "/refcnt");
}

/* The value of "@key: N" in debugfs's stats, or -1. */
static inline long long callout_stat(const char *key)
{
	FILE *f = fopen(CALLOUT_STATS, "re");
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

/* "@key N" of a cgroup file such as memory.stat, or -1. */
static inline long long cg_key(const char *dir, const char *file,
			       const char *key)
{
	char path[256], line[256];
	size_t len = strlen(key);
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* The number in the cgroup file @dir/@file, or -1. */
static inline long long cg_value(const char *dir, const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return read_ull(path);
}

/* Write @val to the cgroup file @dir/@file: 0 or -errno. */
static inline int cg_write(const char *dir, const char *file, const char *val)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Mount cgroup2 on CGROOT unless it is there and enable the memory
 * controller for its children: 0 or -errno.
 */
static inline int cgroup2_ready(void)
{
	char line[256] = "";
	struct stat st;
	FILE *f;

	if (access(CGROOT "/cgroup.controllers", F_OK)) {
		if (stat(CGROOT, &st) && mkdir(CGROOT, 0755))
			return -errno;
		if (mount("cgroup2", CGROOT, "cgroup2", 0, NULL))
			return -errno;
	}
	f = fopen(CGROOT "/cgroup.controllers", "re");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	if (!strstr(line, "memory"))
		return -EOPNOTSUPP;
	return cg_write(CGROOT, "cgroup.subtree_control", "+memory");
}

/*
 * Under KASAN (make check-debug sets $CALLOUT_KASAN) freed objects wait in
 * a quarantine and still count as slab in use: slab counts say nothing
 * about leaks there; kmemleak checks instead.
 */
static inline bool slab_counts_meaningful(void)
{
	const char *v = getenv("CALLOUT_KASAN");

	return !v || !*v || !strcmp(v, "0");
}

/* Whether the kernel has KCSAN (make check-kcsan): its debugfs file. */
static inline bool kcsan_kernel(void)
{
	return !access("/sys/kernel/debug/kcsan", F_OK);
}

/* CALLOUT_IOC_SET: 0 and the handle in *@handle (if not NULL), or -errno. */
static inline int set_callout(int fd, __u64 timeout, __u64 period,
			      __u64 cookie, __u64 *handle)
{
	struct callout_set s = {
		.timeout_ns = timeout, .period_ns = period, .cookie = cookie,
	};

	if (ioctl(fd, CALLOUT_IOC_SET, &s))
		return -errno;
	if (handle)
		*handle = s.handle;
	return 0;
}

/* CALLOUT_IOC_UNSET: 0 or -errno. */
static inline int unset_callout(int fd, __u64 handle)
{
	return ioctl(fd, CALLOUT_IOC_UNSET, &handle) ? -errno : 0;
}

/* CALLOUT_IOC_TIMEOUT: 0 or -errno. */
static inline int timeout_callout(int fd, __u64 func, __u64 arg, __u64 ticks)
{
	struct callout_timeout t = { .func = func, .arg = arg, .ticks = ticks };

	return ioctl(fd, CALLOUT_IOC_TIMEOUT, &t) ? -errno : 0;
}

/* CALLOUT_IOC_UNTIMEOUT: 0 or -errno. */
static inline int untimeout_callout(int fd, __u64 func, __u64 arg)
{
	struct callout_untimeout u = { .func = func, .arg = arg };

	return ioctl(fd, CALLOUT_IOC_UNTIMEOUT, &u) ? -errno : 0;
}

/* CLOCK_MONOTONIC in ns. */
static inline unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Pin the calling thread to @cpu: its SETs arm callouts on that base. */
static inline int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* Where callout.ko is in the guest. */
static inline const char *callout_ko_path(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("CALLOUT_KO");
	struct utsname u;

	if (env && *env)
		return env;
	if (uname(&u))
		return NULL;
	snprintf(path, sizeof(path), "/lib/modules/%s/extra/callout.ko",
		 u.release);
	return path;
}

/*
 * Why a case that reloads the module with parameters of its own cannot run
 * here (it needs the first boot, root and the module loaded), or NULL.
 */
static inline const char *callout_reload_skip(void)
{
	if (!callout_first_boot())
		return "runs in the first boot only: it loads its own parameters";
	if (geteuid() != 0)
		return "needs root to load modules";
	if (!callout_loaded())
		return "callout.ko is not loaded";
	return NULL;
}

/* insmod callout.ko @params: 0 or -errno. */
static inline int callout_load_params(const char *params)
{
	const char *ko = callout_ko_path();
	int fd, ret;

	fd = ko ? open(ko, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

/* insmod callout.ko $CALLOUT_PARAMS: 0 or -errno. */
static inline int callout_load(void)
{
	const char *params = getenv("CALLOUT_PARAMS");

	return callout_load_params(params ? params : "");
}

/* rmmod callout, never waiting: 0 or -errno (-EAGAIN while in use). */
static inline int callout_unload(void)
{
	return syscall(SYS_delete_module, CALLOUT_MODULE, O_NONBLOCK) ? -errno : 0;
}

#endif /* CALLOUT_TEST_H */
