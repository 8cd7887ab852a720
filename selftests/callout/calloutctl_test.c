// SPDX-License-Identifier: GPL-2.0
/*
 * calloutctl_test - tools/calloutctl against the device, by what it
 * prints: info agrees with CALLOUT_IOC_INFO, stats has one column per CPU
 * and totals that add up, set/unset/watch report the events that really
 * came, submit carries out every operation and reports each result (a
 * failing one amid others, an untimeout after expiry). Smoke checks, run
 * in the first boot only: --help exits 0 and bad usage exits 2.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "callout_test.h"

#define OUT_MAX		65536
#define STATS_FILE	"/sys/kernel/debug/callout/stats"

/* Where calloutctl is: beside this program. */
static const char *ctl_path(void)
{
	static char path[PATH_MAX];
	char *slash;
	ssize_t n;

	if (path[0])
		return path;
	n = readlink("/proc/self/exe", path, sizeof(path) - 16);
	if (n < 0)
		return "calloutctl";
	path[n] = '\0';
	slash = strrchr(path, '/');
	/* readlink() left 16 bytes for it */
	memcpy(slash ? slash + 1 : path, "calloutctl", sizeof("calloutctl"));
	return path;
}

/*
 * Run "calloutctl ARGS" with stdout in @out (stderr dropped); its exit
 * status, or -1 if it did not exit.
 */
static int ctl(char *out, const char *args)
{
	char cmd[PATH_MAX + 256];
	size_t len = 0, n;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", ctl_path(), args);
	p = popen(cmd, "re");
	if (!p)
		return -1;
	while ((n = fread(out + len, 1, OUT_MAX - 1 - len, p)) > 0)
		len += n;
	out[len] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The value of "KEY: value" in @text as a number, or -1. */
static long long field(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, len) && p[len] == ':')
			return strtoll(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* How many lines of @text start with @prefix. */
static int lines_starting(const char *text, const char *prefix)
{
	size_t len = strlen(prefix);
	const char *p = text;
	int n = 0;

	while (p && *p) {
		n += !strncmp(p, prefix, len);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* The line of @text starting with @prefix, copied to @line, or NULL. */
static char *line_of(const char *text, const char *prefix, char *line,
		     size_t size)
{
	size_t len = strlen(prefix);
	const char *p = text, *end;

	while (p && *p) {
		if (!strncmp(p, prefix, len)) {
			end = strchrnul(p, '\n');
			snprintf(line, size, "%.*s", (int)(end - p), p);
			return line;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* The first line of @path, without its newline, in @buf: 0 or -1. */
static int read_first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	char *ok;

	if (!f)
		return -1;
	ok = fgets(buf, size, f);
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static char out[OUT_MAX];

FIXTURE(ctl) {
	struct callout_info info;
};

FIXTURE_SETUP(ctl)
{
	int fd;

	if (access(ctl_path(), X_OK))
		SKIP(return, "no %.200s", ctl_path());
	fd = open(CALLOUT_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		SKIP(return, CALLOUT_DEV " is missing: callout.ko not loaded");
	ASSERT_EQ(0, ioctl(fd, CALLOUT_IOC_INFO, &self->info));
	close(fd);
}

FIXTURE_TEARDOWN(ctl)
{
}

TEST_F(ctl, smoke_help_exits_0)
{
	static const char *const cmds[] = {
		"info", "stats", "watch", "set", "unset", "submit", NULL
	};
	char args[64], want[64], help[OUT_MAX];
	const char *const *c;

	if (setup_skipped(_metadata))
		return;
	if (!callout_first_boot())
		SKIP(return, "runs in the first boot only: no parameter changes it");
	ASSERT_EQ(0, ctl(help, "--help"));
	EXPECT_EQ(1, lines_starting(help, "Usage: calloutctl COMMAND"));
	for (c = cmds; *c; c++) {
		snprintf(want, sizeof(want), "  %s ", *c);
		EXPECT_EQ(1, lines_starting(help, want)) TH_LOG("%s", *c);
		snprintf(args, sizeof(args), "%s --help", *c);
		snprintf(want, sizeof(want), "Usage: calloutctl %s", *c);
		EXPECT_EQ(0, ctl(out, args)) TH_LOG("%s", args);
		EXPECT_EQ(1, lines_starting(out, want)) TH_LOG("%s", args);
	}
}

TEST_F(ctl, smoke_bad_usage_exits_2)
{
	static const char *const bad[] = {
		"", "nosuch", "info extra", "info --nosuch",
		"stats --nosuch", "stats extra", "set", "set 5",
		"set 10ms 20ms", "set -p fast 10ms", "set -c 3 10ms",
		"unset", "unset -a 1 10ms", "watch", "watch 10", "watch 10ms/x",
		"watch timeout:10ms/10ms", "watch 10ms/10ms",
		"watch -c x 10ms", "watch -d 5 10ms", NULL
	};
	const char *const *args;
	char cmd[64];

	if (setup_skipped(_metadata))
		return;
	if (!callout_first_boot())
		SKIP(return, "runs in the first boot only: no parameter changes it");
	for (args = bad; *args; args++) {
		snprintf(cmd, sizeof(cmd), "%s", *args);
		EXPECT_EQ(2, ctl(out, cmd)) TH_LOG("calloutctl %s", cmd);
	}
}

/* Every field of info is the ioctl's value. */
TEST_F(ctl, info_matches_ioctl)
{
	char line[128], want[128];

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, ctl(out, "info"));
	EXPECT_EQ(self->info.tick_ns, field(out, "tick_ns"));
	EXPECT_EQ(self->info.max_timeout_ns, field(out, "max_timeout_ns"));
	EXPECT_EQ(self->info.max_per_file, field(out, "max_per_file"));
	EXPECT_EQ(self->info.scheme, field(out, "scheme_id"));
	EXPECT_EQ(self->info.nr_cpus, field(out, "nr_cpus"));
	/* The scheme's name is the one debugfs gives (its first line). */
	ASSERT_NE(NULL, line_of(out, "scheme: ", line, sizeof(line)));
	if (read_first_line(STATS_FILE, want, sizeof(want)) == 0)
		EXPECT_STREQ(want, line);
}

/*
 * stats: a header "counter total cpu0 ... cpuN-1" with one column per CPU
 * of the facility, every counter row that wide, and the set row's total
 * the sum of its CPU columns.
 */
TEST_F(ctl, stats_one_column_per_cpu)
{
	char line[4096], *tok, *save;
	unsigned long long sum = 0, total = 0;
	int cols, rows = 0;
	const char *p;

	if (setup_skipped(_metadata))
		return;
	if (access(STATS_FILE, R_OK))
		SKIP(return, "no " STATS_FILE);
	/* Some callouts first, so the counters are not all 0. */
	ASSERT_EQ(0, ctl(out, "watch -q 1ms 2ms 3ms timeout:1ms"));
	ASSERT_EQ(0, ctl(out, "stats"));
	EXPECT_EQ(self->info.nr_cpus, field(out, "cpus"));
	ASSERT_NE(NULL, line_of(out, "counter ", line, sizeof(line)));
	cols = 0;
	for (tok = strtok_r(line, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char want[16];

		if (cols >= 2) {
			snprintf(want, sizeof(want), "cpu%d", cols - 2);
			EXPECT_STREQ(want, tok);
		}
		cols++;
	}
	EXPECT_EQ(self->info.nr_cpus + 2, cols);
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_CONF), cols - 2);
	/* Every row after the header has as many columns. */
	p = strstr(out, "\ncounter ");
	ASSERT_NE(NULL, p);
	for (p = strchr(p + 1, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		const char *end = strchrnul(p + 1, '\n');
		int n = 0;

		snprintf(line, sizeof(line), "%.*s", (int)(end - p - 1), p + 1);
		for (tok = strtok_r(line, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save))
			n++;
		EXPECT_EQ(cols, n) TH_LOG("row %d", rows);
		rows++;
	}
	EXPECT_LE(10, rows);
	ASSERT_NE(NULL, line_of(out, "set ", line, sizeof(line)));
	tok = strtok_r(line, " ", &save);
	total = strtoull(strtok_r(NULL, " ", &save), NULL, 10);
	while ((tok = strtok_r(NULL, " ", &save)))
		sum += strtoull(tok, NULL, 10);
	EXPECT_EQ(total, sum);
	EXPECT_LE(3, total);
}

TEST_F(ctl, set_prints_its_event)
{
	char line[256];

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, ctl(out, "set -k 42 20ms"));
	EXPECT_EQ(1, lines_starting(out, "set handle=1 timeout_ns=20000000 "));
	EXPECT_EQ(1, lines_starting(out, "oneshot cookie=42 handle=1 "));
	ASSERT_NE(NULL, line_of(out, "oneshot ", line, sizeof(line)));
	EXPECT_EQ(NULL, strstr(line, "late_us=-")) TH_LOG("early: %s", line);

	ASSERT_EQ(0, ctl(out, "set -p 10ms -c 3 -k 7 10ms"));
	EXPECT_EQ(3, lines_starting(out, "periodic cookie=7 handle=1 "));
	EXPECT_EQ(1, lines_starting(out, "unset handle=1"));

	ASSERT_EQ(0, ctl(out, "set -r 20ms 10s"));
	EXPECT_EQ(1, lines_starting(out, "reset handle=1 timeout_ns=20000000"));
	EXPECT_EQ(1, lines_starting(out, "oneshot cookie=0 handle=1 "));
}

TEST_F(ctl, unset_cancels)
{
	int tries;

	if (setup_skipped(_metadata))
		return;
	/*
	 * Due 100 ms after its SET, the callout is cancelled by the UNSET
	 * that follows, unless a busy host holds calloutctl that long: then
	 * it fires first, and calloutctl says so and shows its event. Try
	 * again; ten lost races in a row fail.
	 */
	for (tries = 0; ; tries++) {
		ASSERT_GT(10, tries);
		ASSERT_EQ(0, ctl(out, "unset 100ms"));
		if (lines_starting(out, "unset handle=1: cancelled"))
			break;
		EXPECT_EQ(1, lines_starting(out, "unset handle=1: not pending"));
		EXPECT_EQ(1, lines_starting(out, "oneshot cookie=0 handle=1 "));
		EXPECT_EQ(1, lines_starting(out, "events=1"));
	}
	EXPECT_EQ(1, lines_starting(out, "unset handle=1: cancelled"));
	EXPECT_EQ(1, lines_starting(out, "events=0"));
	EXPECT_EQ(0, lines_starting(out, "oneshot "));
	/* Too late to cancel: it fired, its event comes. */
	ASSERT_EQ(0, ctl(out, "unset -a 100ms 1ms"));
	EXPECT_EQ(1, lines_starting(out, "unset handle=1: not pending"));
	EXPECT_EQ(1, lines_starting(out, "oneshot cookie=0 handle=1 "));
	EXPECT_EQ(1, lines_starting(out, "events=1"));
}

TEST_F(ctl, watch_streams_events)
{
	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, ctl(out, "watch 10ms 30ms timeout:20ms"));
	EXPECT_EQ(3, lines_starting(out, "armed "));
	EXPECT_EQ(1, lines_starting(out, "oneshot cookie=0 handle=1 "));
	/*
	 * Slot 2, or slot 1 again (a new generation) if the first fired
	 * before the second was set: not 0, not 1.
	 */
	EXPECT_EQ(1, lines_starting(out, "oneshot cookie=1 handle="));
	EXPECT_EQ(0, lines_starting(out, "oneshot cookie=1 handle=0 "));
	EXPECT_EQ(0, lines_starting(out, "oneshot cookie=1 handle=1 "));
	EXPECT_EQ(1, lines_starting(out, "timeout cookie=2 handle=0 "));
	EXPECT_EQ(NULL, strstr(out, "late_us=-")) TH_LOG("early: %s", out);

	ASSERT_EQ(0, ctl(out, "watch -c 4 5ms/5ms"));
	EXPECT_EQ(4, lines_starting(out, "periodic cookie=0 handle=1 "));
	ASSERT_EQ(0, ctl(out, "watch -d 100ms -q 10ms/10ms"));
	EXPECT_EQ(0, lines_starting(out, "periodic "));
}

/*
 * How many of the NULL-terminated @want (line starts) @text does not have
 * exactly once; each is logged, and then @text, as TAP diagnostics.
 */
static int missing_lines(const char *text, const char *const *want)
{
	const char *p, *end;
	int n = 0;

	for (; *want; want++) {
		if (lines_starting(text, *want) == 1)
			continue;
		fprintf(stderr, "# not once: '%.*s'\n",
			(int)strcspn(*want, "\n"), *want);
		n++;
	}
	for (p = text; n && *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '\n');
		fprintf(stderr, "#   %.*s\n", (int)(end - p), p);
	}
	return n;
}

#define EXPECT_LINES(text, ...)						\
	do {								\
		static const char *const want_[] = { __VA_ARGS__, NULL };	\
									\
		EXPECT_EQ(0, missing_lines(text, want_));		\
	} while (0)

/*
 * Every operation, in two batches, the second on handles of the first
 * (@0, @1) and on a timeout of the first: each result as the kernel gave
 * it, and the events that follow from them, none early. The first batch's
 * 10 s callouts would keep calloutctl waiting if they were not cancelled.
 */
TEST_F(ctl, submit_every_op)
{
	static const char first[] = "set 10s set 10s cookie=7 timeout 10s timeout 20ms";
	static const char second[] = "unset @0 reset @1 20ms untimeout 2";
	char line[256], args[256];

	if (setup_skipped(_metadata))
		return;
	snprintf(args, sizeof(args), "submit %s wait 1ms %s", first, second);
	ASSERT_EQ(0, ctl(out, args));
	EXPECT_LINES(out, "op 0 set: handle=1\n", "op 1 set: handle=2\n",
		     "op 2 timeout: ok\n", "op 3 timeout: ok\n",
		     "submit: done=4 of 4\n", "op 4 unset handle=1: ok\n",
		     "op 5 reset handle=2: ok\n", "op 6 untimeout op=2: ok\n",
		     "submit: done=3 of 3\n", "oneshot cookie=7 handle=2 ",
		     "timeout cookie=3 handle=0 ", "events=2\n");
	EXPECT_EQ(2, lines_starting(out, "submit: "));
	EXPECT_EQ(7, lines_starting(out, "op "));
	EXPECT_EQ(NULL, strstr(out, "late_us=-")) TH_LOG("early: %s", out);
	/* Reset: due 20 ms after the second batch, not 10 s after the first. */
	ASSERT_NE(NULL, line_of(out, "oneshot ", line, sizeof(line)));
	EXPECT_LE(20.0, strtod(strstr(line, "t_ms=") + 5, NULL)) TH_LOG("%s", line);

	/* Periodic: set so, and re-armed so. */
	ASSERT_EQ(0, ctl(out, "submit -c 3 set 5ms/5ms cookie=9"));
	EXPECT_EQ(3, lines_starting(out, "periodic cookie=9 handle=1 "));
	ASSERT_EQ(0, ctl(out, "submit -c 3 set 10s wait 0ms reset @0 5ms/5ms"));
	EXPECT_LINES(out, "op 0 set: handle=1\n", "op 1 reset handle=1: ok\n",
		     "events=3\n");
	EXPECT_EQ(3, lines_starting(out, "periodic cookie=0 handle=1 "));
}

/*
 * Failing operations amid others: each gets its errno's name, the batch
 * goes on (the last op's event comes), and calloutctl exits 1.
 */
TEST_F(ctl, submit_failing_op_mid_batch)
{
	static const char ops[] = "set 30ms unset 99 set 0ms timeout 0ms reset 1 0ms";
	char args[256];

	if (setup_skipped(_metadata))
		return;
	snprintf(args, sizeof(args), "submit %s set 20ms cookie=5", ops);
	ASSERT_EQ(1, ctl(out, args));
	EXPECT_LINES(out, "op 0 set: handle=", "op 1 unset handle=99: ENOENT\n",
		     "op 2 set: EINVAL\n", "op 3 timeout: EINVAL\n",
		     "op 4 reset handle=1: EINVAL\n", "op 5 set: handle=",
		     "submit: done=6 of 6\n", "oneshot cookie=0 ",
		     "oneshot cookie=5 ", "events=2\n");
	EXPECT_EQ(2, lines_starting(out, "oneshot "));
}

/*
 * untimeout of a timeout that fired and whose event waits unread (wait
 * event: the only one armed made the file readable): ok, and its func
 * does not run; a second one has nothing left to cancel.
 */
TEST_F(ctl, submit_untimeout_after_expiry)
{
	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, ctl(out, "submit timeout 1ms wait event untimeout 0"));
	EXPECT_LINES(out, "op 0 timeout: ok\n", "op 1 untimeout op=0: ok\n",
		     "events=0\n");
	EXPECT_EQ(0, lines_starting(out, "timeout cookie="));
	ASSERT_EQ(1, ctl(out, "submit timeout 1ms wait event untimeout 0 untimeout 0"));
	EXPECT_LINES(out, "op 1 untimeout op=0: ok\n",
		     "op 2 untimeout op=0: ENOENT\n", "events=0\n");
	EXPECT_EQ(0, lines_starting(out, "timeout cookie="));
}

TEST_F(ctl, smoke_submit_bad_usage_exits_2)
{
	static const char *const bad[] = {
		"submit", "submit -q", "submit --nosuch set 1s", "submit frob",
		"submit frob 1s",
		"submit set", "submit set 5", "submit set 1s/x",
		"submit set 1s cookie=x", "submit set 1s/1s",
		"submit -c x set 1s", "submit reset 1", "submit reset 1 5",
		"submit reset x 1s", "submit unset", "submit unset @0",
		"submit set 1s unset @0", "submit set 1s wait 1ms unset @1",
		"submit timeout 1s wait 1ms unset @0", "submit timeout 5",
		"submit untimeout 0", "submit timeout 1s untimeout 1",
		"submit set 1s untimeout 0", "submit set 1s wait",
		"submit set 1s wait 5", "submit wait 1ms", NULL
	};
	const char *const *args;

	if (setup_skipped(_metadata))
		return;
	if (!callout_first_boot())
		SKIP(return, "runs in the first boot only: no parameter changes it");
	for (args = bad; *args; args++) {
		EXPECT_EQ(2, ctl(out, *args)) TH_LOG("calloutctl %s", *args);
		/* Nothing was submitted. */
		EXPECT_EQ(0, lines_starting(out, "op ")) TH_LOG("%s", *args);
	}
}

/*
 * table: the due-time table of another process's file, as that process
 * and the kernel wrote it: three callouts, one deferred, one cancelled
 * lazily, none due while the test runs.
 */
TEST_F(ctl, table_shows_another_process)
{
	int to_child[2], to_parent[2], fd, status;
	__u64 h[3] = { 0 }, *t;
	char args[64], line[256], go;
	struct callout_info info;
	pid_t pid;
	int i;

	if (setup_skipped(_metadata))
		return;
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		fd = open(CALLOUT_DEV, O_RDWR);
		if (fd < 0 || ioctl(fd, CALLOUT_IOC_INFO, &info))
			_exit(1);
		t = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		for (i = 0; i < 3; i++)
			if (set_callout(fd, info.max_timeout_ns / 2, 0, i, &h[i]))
				_exit(1);
		if (t == MAP_FAILED)
			_exit(1);
		t[CALLOUT_DUE_INDEX(h[1])] += 1000;	/* a deferral */
		t[CALLOUT_DUE_INDEX(h[2])] |= CALLOUT_DUE_CANCEL;
		dprintf(to_parent[1], "%d\n", fd);
		_exit(read(to_child[0], &go, 1) == 1 ? 0 : 1);
	}
	ASSERT_LT(0, read(to_parent[0], line, sizeof(line) - 1));
	fd = atoi(line);
	snprintf(args, sizeof(args), "table %d %d", (int)pid, fd);
	EXPECT_EQ(0, ctl(out, args)) TH_LOG("%s", out);
	ASSERT_EQ(1, write(to_child[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	/* Slots 1-3, handles 1-3 of a new file, generation 0 */
	EXPECT_EQ(1, lines_starting(out, "1        0x0000000000000001 "));
	EXPECT_EQ(1, lines_starting(out, "2        0x0000000000000002 "));
	EXPECT_EQ(1, lines_starting(out, "3        0x0000000000000003 "));
	EXPECT_NE(NULL, line_of(out, "3 ", line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, "cancel"));
	EXPECT_NE(NULL, line_of(out, "1 ", line, sizeof(line)));
	EXPECT_EQ(NULL, strstr(line, "cancel"));
	EXPECT_NE(NULL, strstr(out, "3 entries in 512 slots"));
	/* Not a /dev/callout file: its stdin */
	snprintf(args, sizeof(args), "table %d 0", (int)getpid());
	EXPECT_EQ(1, ctl(out, args));
	EXPECT_EQ(2, ctl(out, "table 1"));
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

TEST_HARNESS_MAIN
