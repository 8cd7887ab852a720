// SPDX-License-Identifier: GPL-2.0
/*
 * calloutctl - look at and try out the callout facility from a shell
 *
 *	calloutctl info                 the facility's geometry (ioctl INFO)
 *	calloutctl stats [-f FILE]      debugfs stats, one column per CPU
 *	calloutctl watch [opts] SPEC... arm callouts and stream their events
 *	calloutctl set [opts] TIME      arm one callout, print its events
 *	calloutctl unset [opts] TIME    arm one, cancel it, show nothing fires
 *	calloutctl submit [opts] OP...  operations in batches (ioctl SUBMIT)
 *	calloutctl table PID FD         another process's due-time table
 *
 * A callout belongs to the /dev/callout file that set it and dies with it,
 * so every command that arms callouts stays to watch them. Exit status: 0
 * success, 1 failure, 2 bad usage. Documentation/calloutctl.rst is the man
 * page.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <sys/ioctl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "libcallout.h"

#define EXIT_USAGE	2
#define STATS_FILE	"/sys/kernel/debug/callout/stats"
#define MAX_CPUS	1024
#define MAX_ROWS	128
#define MAX_SPECS	64
#define MAX_OPS		CALLOUT_SUBMIT_MAX	/* of one submit command */

static const char *const scheme_names[] = {
	[CALLOUT_SCHEME_LIST] = "list",
	[CALLOUT_SCHEME_ORDERED] = "ordered",
	[CALLOUT_SCHEME_TREE] = "tree",
	[CALLOUT_SCHEME_SIMPLE] = "simple",
	[CALLOUT_SCHEME_HASHED_SORTED] = "hashed_sorted",
	[CALLOUT_SCHEME_HASHED] = "hashed",
	[CALLOUT_SCHEME_HIERARCHICAL] = "hierarchical",
	[CALLOUT_SCHEME_BSD] = "bsd",
	[CALLOUT_SCHEME_LAWN] = "lawn",
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *usage;
};

static const struct command *cmd;

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "calloutctl %s: ", cmd ? cmd->name : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'calloutctl %s%s--help'.\n",
		cmd ? cmd->name : "", cmd ? " " : "");
	return EXIT_USAGE;
}

static int fail_errno(const char *what, int err)
{
	fprintf(stderr, "calloutctl: %s: %s\n", what, strerror(err));
	return EXIT_FAILURE;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * A duration with its unit: 250ns, 100us, 20ms, 2s. A bare number is
 * refused: the ABI counts nanoseconds, people think in milliseconds.
 */
static bool parse_duration(const char *s, __u64 *ns)
{
	static const struct { const char *unit; __u64 ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].unit)) {
			if (v > UINT64_MAX / units[i].ns)
				return false;
			*ns = v * units[i].ns;
			return true;
		}
	}
	return false;
}

static bool parse_count(const char *s, unsigned long *n)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*n = strtoul(s, &end, 10);
	return !errno && !*end;
}

/* A number as calloutctl prints one: decimal digits only. */
static bool parse_u64(const char *s, __u64 *v)
{
	unsigned long long n;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*v = n;
	return true;
}

/* TIME or TIME/PERIOD: *@period_ns is 0 without a PERIOD. */
static bool parse_times(const char *s, __u64 *timeout_ns, __u64 *period_ns)
{
	size_t len = strlen(s);
	char buf[64], *p;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, s, len + 1);
	*period_ns = 0;
	p = strchr(buf, '/');
	if (p) {
		*p++ = '\0';
		if (!parse_duration(p, period_ns))
			return false;
	}
	return parse_duration(buf, timeout_ns);
}

static const char *scheme_name(__u32 scheme)
{
	if (scheme < ARRAY_SIZE(scheme_names) && scheme_names[scheme])
		return scheme_names[scheme];
	return "unknown";
}

/* Handle -h/--help for commands without options; 0, or an exit status. */
static int no_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cmd->usage, stdout);
			return -1;
		}
		return usage_error("unknown option");
	}
	return 0;
}

static int cmd_info(int argc, char **argv)
{
	struct callout_info info;
	int ret = no_options(argc, argv);

	if (ret)
		return ret < 0 ? EXIT_SUCCESS : ret;
	if (optind != argc)
		return usage_error("takes no arguments");
	ret = callout_getinfo(&info);
	if (ret)
		return fail_errno("/dev/callout", -ret);
	printf("scheme: %s\n", scheme_name(info.scheme));
	printf("scheme_id: %u\n", info.scheme);
	printf("tick_ns: %llu\n", (unsigned long long)info.tick_ns);
	printf("max_timeout_ns: %llu\n",
	       (unsigned long long)info.max_timeout_ns);
	printf("max_per_file: %llu\n", (unsigned long long)info.max_per_file);
	printf("nr_cpus: %u\n", info.nr_cpus);
	return EXIT_SUCCESS;
}

/* One counter of the stats file: the total and a value per CPU. */
struct stat_row {
	char name[64];
	char total[24];
	char cpu[MAX_CPUS][24];
	bool has_total;
};

static struct stat_row rows[MAX_ROWS];

static struct stat_row *row_of(const char *name, unsigned int *nrows)
{
	unsigned int i;

	for (i = 0; i < *nrows; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	if (*nrows == MAX_ROWS)
		return NULL;
	snprintf(rows[*nrows].name, sizeof(rows[0].name), "%s", name);
	return &rows[(*nrows)++];
}

/*
 * The stats file is "key: value" lines: the facility's own keys, the totals
 * of the counters, then each counter again as cpuN_<counter>. The counters
 * are printed as a table, one column per CPU; the other keys as they are.
 */
static int cmd_stats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *path = STATS_FILE;
	char line[256], key[sizeof(rows[0].name)], value[24];
	unsigned int nrows = 0, ncpus = 0, cpu, i;
	struct stat_row *r;
	FILE *f;
	int c;

	while ((c = getopt_long(argc, argv, "+f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			path = optarg;
			break;
		case 'h':
			fputs(cmd->usage, stdout);
			return EXIT_SUCCESS;
		default:
			return usage_error("unknown option");
		}
	}
	if (optind != argc)
		return usage_error("takes no arguments");
	f = fopen(path, "re");
	if (!f)
		return fail_errno(path, errno);
	memset(rows, 0, sizeof(rows));
	while (fgets(line, sizeof(line), f)) {
		/* A longer key than a row holds is no line of ours: skip it. */
		if (sscanf(line, "%63[^:]: %23s", key, value) != 2)
			continue;
		if (sscanf(key, "cpu%u_%n", &cpu, &c) == 1 && c > 0 &&
		    strchr(key, '_') == key + c - 1) {
			if (cpu >= MAX_CPUS)
				continue;
			r = row_of(key + c, &nrows);
			if (!r)
				continue;
			snprintf(r->cpu[cpu], sizeof(r->cpu[0]), "%s", value);
			if (cpu + 1 > ncpus)
				ncpus = cpu + 1;
			continue;
		}
		r = row_of(key, &nrows);
		if (r) {
			snprintf(r->total, sizeof(r->total), "%s", value);
			r->has_total = true;
		}
	}
	fclose(f);
	if (!nrows) {
		fprintf(stderr, "calloutctl: %s: no stats in it\n", path);
		return EXIT_FAILURE;
	}
	/* The keys without a per-CPU value describe the facility. */
	for (i = 0; i < nrows; i++) {
		r = &rows[i];
		for (cpu = 0; cpu < ncpus && !r->cpu[cpu][0]; cpu++)
			;
		if (cpu == ncpus)
			printf("%s: %s\n", r->name, r->total);
	}
	printf("\n%-34s %14s", "counter", "total");
	for (cpu = 0; cpu < ncpus; cpu++) {
		char head[16];

		snprintf(head, sizeof(head), "cpu%u", cpu);
		printf(" %14s", head);
	}
	putchar('\n');
	for (i = 0; i < nrows; i++) {
		r = &rows[i];
		for (cpu = 0; cpu < ncpus && !r->cpu[cpu][0]; cpu++)
			;
		if (cpu == ncpus)
			continue;
		printf("%-34s %14s", r->name, r->has_total ? r->total : "-");
		for (cpu = 0; cpu < ncpus; cpu++)
			printf(" %14s", r->cpu[cpu][0] ? r->cpu[cpu] : "-");
		putchar('\n');
	}
	return EXIT_SUCCESS;
}

/* What watch, set and unset arm, and what they have seen. */
struct watch {
	__u64 start_ns;
	unsigned long events;	/* events printed */
	long oneshots;		/* one-shots (and timeouts) not yet fired */
	bool quiet;
};

static void print_event(struct watch *w, const char *kind, __u64 cookie,
			__u64 handle, __u64 expires, __u64 fired,
			__u32 overrun)
{
	w->events++;
	if (w->quiet)
		return;
	printf("%s cookie=%llu handle=%llu t_ms=%.3f late_us=%.1f overrun=%u\n",
	       kind, (unsigned long long)cookie, (unsigned long long)handle,
	       (fired - w->start_ns) / 1e6,
	       fired >= expires ? (fired - expires) / 1e3 :
				  -((expires - fired) / 1e3),
	       overrun);
	fflush(stdout);
}

static void on_event(const struct callout_event *ev, void *data)
{
	struct watch *w = data;

	if (!(ev->flags & CALLOUT_EV_PERIODIC))
		w->oneshots--;
	print_event(w, ev->flags & CALLOUT_EV_LAST ? "periodic-last" :
		    ev->flags & CALLOUT_EV_PERIODIC ? "periodic" : "oneshot",
		    ev->cookie, ev->handle, ev->expires_ns, ev->fired_ns,
		    ev->overrun);
}

/* A timeout()'s func: the library calls it with its arg. */
struct timeout_arg {
	struct watch *w;
	__u64 cookie;
	__u64 due_ns;
};

static void on_timeout(void *arg)
{
	struct timeout_arg *t = arg;
	__u64 now = now_ns();

	t->w->oneshots--;
	print_event(t->w, "timeout", t->cookie, 0, t->due_ns, now, 0);
}

/*
 * Dispatch events until @count have been printed (0: no limit), @until_ns
 * has passed (0: never), or nothing is left to fire. 0 or an exit status.
 */
static int watch_loop(struct watch *w, unsigned long count, bool periodic,
		      __u64 until_ns)
{
	int ret, wait_ms;
	__u64 now;

	for (;;) {
		/* What is queued already counts, even past @until_ns. */
		ret = callout_dispatch(on_event, w);
		if (ret < 0)
			return fail_errno("read", -ret);
		if (count && w->events >= count)
			return EXIT_SUCCESS;
		if (!periodic && w->oneshots <= 0)
			return EXIT_SUCCESS;
		wait_ms = -1;
		if (until_ns) {
			now = now_ns();
			if (now >= until_ns)
				return EXIT_SUCCESS;
			wait_ms = (until_ns - now + 999999) / 1000000;
		}
		ret = callout_wait(wait_ms);
		if (ret < 0 && ret != -EINTR)
			return fail_errno("poll", -ret);
	}
}

/*
 * The options watch and submit share: -c N, -d DURATION, -q and -h.
 * -1 to go on with the operands at optind, else the exit status to return.
 */
static int parse_watch_opts(int argc, char **argv, unsigned long *count,
			    __u64 *duration, struct watch *w)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "+c:d:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (!parse_count(optarg, count))
				return usage_error("bad count '%s'", optarg);
			break;
		case 'd':
			if (!parse_duration(optarg, duration))
				return usage_error("bad duration '%s'", optarg);
			break;
		case 'q':
			w->quiet = true;
			break;
		case 'h':
			fputs(cmd->usage, stdout);
			return EXIT_SUCCESS;
		default:
			return usage_error("unknown option");
		}
	}
	return -1;
}

static int cmd_watch(int argc, char **argv)
{
	static struct timeout_arg targs[MAX_SPECS];
	struct watch w = { 0 };
	unsigned long count = 0;
	__u64 duration = 0, timeout_ns, period_ns, handle;
	struct callout_info info;
	bool periodic = false;
	int i, ret;

	ret = parse_watch_opts(argc, argv, &count, &duration, &w);
	if (ret >= 0)
		return ret;
	if (optind == argc)
		return usage_error("which callouts? give at least one SPEC");
	if (argc - optind > MAX_SPECS)
		return usage_error("at most %d SPECs", MAX_SPECS);
	ret = callout_getinfo(&info);
	if (ret)
		return fail_errno("/dev/callout", -ret);
	w.start_ns = now_ns();
	for (i = optind; i < argc; i++) {
		char spec[64], *p;
		bool old_style = false;

		snprintf(spec, sizeof(spec), "%s", argv[i]);
		if (!strncmp(spec, "timeout:", 8)) {
			old_style = true;
			memmove(spec, spec + 8, strlen(spec + 8) + 1);
		}
		period_ns = 0;
		p = strchr(spec, '/');
		if (p) {
			*p++ = '\0';
			if (old_style || !parse_duration(p, &period_ns))
				return usage_error("bad SPEC '%s'", argv[i]);
		}
		if (!parse_duration(spec, &timeout_ns))
			return usage_error("bad SPEC '%s'", argv[i]);
		if (old_style) {
			struct timeout_arg *t = &targs[i - optind];
			__u64 ticks = (timeout_ns + info.tick_ns - 1) /
					 info.tick_ns;

			t->w = &w;
			t->cookie = i - optind;
			t->due_ns = now_ns() + ticks * info.tick_ns;
			ret = timeout(on_timeout, t, ticks ? ticks : 1);
			handle = 0;
		} else {
			ret = setcallout(timeout_ns, period_ns, i - optind,
					 &handle);
		}
		if (ret)
			return fail_errno(argv[i], -ret);
		if (!w.quiet)
			printf("armed cookie=%d handle=%llu %s\n", i - optind,
			       (unsigned long long)handle, argv[i]);
		if (period_ns)
			periodic = true;
		else
			w.oneshots++;
	}
	if (periodic && !count && !duration)
		return usage_error("a periodic SPEC needs --count or --duration");
	fflush(stdout);
	return watch_loop(&w, count, periodic,
			  duration ? w.start_ns + duration : 0);
}

static int cmd_set(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "period", required_argument, NULL, 'p' },
		{ "cookie", required_argument, NULL, 'k' },
		{ "count", required_argument, NULL, 'c' },
		{ "reset", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	__u64 timeout_ns, period_ns = 0, reset_ns = 0, handle;
	unsigned long cookie = 0, count = 0;
	struct watch w = { 0 };
	int c, ret;

	while ((c = getopt_long(argc, argv, "+p:k:c:r:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!parse_duration(optarg, &period_ns))
				return usage_error("bad period '%s'", optarg);
			break;
		case 'k':
			if (!parse_count(optarg, &cookie))
				return usage_error("bad cookie '%s'", optarg);
			break;
		case 'c':
			if (!parse_count(optarg, &count) || !count)
				return usage_error("bad count '%s'", optarg);
			break;
		case 'r':
			if (!parse_duration(optarg, &reset_ns))
				return usage_error("bad reset time '%s'", optarg);
			break;
		case 'h':
			fputs(cmd->usage, stdout);
			return EXIT_SUCCESS;
		default:
			return usage_error("unknown option");
		}
	}
	if (argc - optind != 1)
		return usage_error("give one TIME");
	if (!parse_duration(argv[optind], &timeout_ns))
		return usage_error("bad TIME '%s'", argv[optind]);
	if (!count)
		count = period_ns ? 5 : 1;
	else if (!period_ns && count > 1)
		return usage_error("a one-shot fires once: --count needs --period");
	w.start_ns = now_ns();
	ret = setcallout(timeout_ns, period_ns, cookie, &handle);
	if (ret)
		return fail_errno("setcallout", -ret);
	printf("set handle=%llu timeout_ns=%llu period_ns=%llu\n",
	       (unsigned long long)handle, (unsigned long long)timeout_ns,
	       (unsigned long long)period_ns);
	if (reset_ns) {
		ret = resetcallout(handle, reset_ns, period_ns);
		if (ret)
			return fail_errno("resetcallout", -ret);
		printf("reset handle=%llu timeout_ns=%llu\n",
		       (unsigned long long)handle, (unsigned long long)reset_ns);
	}
	fflush(stdout);
	w.oneshots = !period_ns;
	ret = watch_loop(&w, count, period_ns, 0);
	if (ret || !period_ns)
		return ret;
	ret = unsetcallout(handle);
	if (ret)
		return fail_errno("unsetcallout", -ret);
	printf("unset handle=%llu\n", (unsigned long long)handle);
	return EXIT_SUCCESS;
}

static int cmd_unset(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "after", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	__u64 timeout_ns, after_ns = 0, handle;
	struct watch w = { 0 };
	bool cancelled;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+a:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (!parse_duration(optarg, &after_ns))
				return usage_error("bad time '%s'", optarg);
			break;
		case 'h':
			fputs(cmd->usage, stdout);
			return EXIT_SUCCESS;
		default:
			return usage_error("unknown option");
		}
	}
	if (argc - optind != 1)
		return usage_error("give one TIME");
	if (!parse_duration(argv[optind], &timeout_ns))
		return usage_error("bad TIME '%s'", argv[optind]);
	w.start_ns = now_ns();
	ret = setcallout(timeout_ns, 0, 0, &handle);
	if (ret)
		return fail_errno("setcallout", -ret);
	printf("set handle=%llu timeout_ns=%llu\n", (unsigned long long)handle,
	       (unsigned long long)timeout_ns);
	if (after_ns) {
		struct timespec ts = {
			.tv_sec = after_ns / 1000000000,
			.tv_nsec = after_ns % 1000000000,
		};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	ret = unsetcallout(handle);
	if (ret && ret != -ENOENT)
		return fail_errno("unsetcallout", -ret);
	cancelled = !ret;
	printf("unset handle=%llu: %s\n", (unsigned long long)handle,
	       cancelled ? "cancelled" : "not pending (it fired)");
	fflush(stdout);
	/* Wait past its time: a cancelled callout must stay silent. */
	w.oneshots = 1;
	ret = watch_loop(&w, 1, false, w.start_ns + timeout_ns +
			 timeout_ns / 2 + after_ns + 100000000ull);
	if (ret)
		return ret;
	printf("events=%lu\n", w.events);
	return w.events == !cancelled ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * submit: the command line's operations, in batches that the word "wait"
 * separates, each batch one callout_submit(). A HANDLE is a number or @N,
 * the handle that op N (a set of an earlier batch) was given; untimeout N
 * cancels the pair of timeout op N. Each op's cookie (a timeout's: its
 * func's) is its number unless cookie= says otherwise.
 */
static struct callout_op sub_ops[MAX_OPS];
static int sub_ref[MAX_OPS];		/* op of @N or of untimeout N, or -1 */
static struct timeout_arg sub_targs[MAX_OPS];

struct sub_batch {
	int end;			/* ops [previous end, end) */
	__u64 wait_ns;			/* then sleep this long, */
	bool wait_event;		/* or until an event is queued */
};

static const char *const op_names[] = {
	[CALLOUT_OP_SET] = "set",
	[CALLOUT_OP_UNSET] = "unset",
	[CALLOUT_OP_RESET] = "reset",
	[CALLOUT_OP_TIMEOUT] = "timeout",
	[CALLOUT_OP_UNTIMEOUT] = "untimeout",
};

/* HANDLE of the op @i: a number, or @N of a set in a batch before @first. */
static bool parse_handle(const char *s, int i, int first)
{
	__u64 n;

	sub_ref[i] = -1;
	if (*s != '@')
		return parse_u64(s, &sub_ops[i].handle);
	if (!parse_u64(s + 1, &n) || n >= (__u64)first ||
	    sub_ops[n].op != CALLOUT_OP_SET)
		return false;
	sub_ref[i] = n;
	return true;
}

/*
 * Parse OP... into sub_ops and @b; the number of batches, or -1 after a
 * usage error (@status set). @periodic: whether an op arms a period.
 */
static int sub_parse(int argc, char **argv, struct sub_batch *b,
		     bool *periodic, int *status)
{
	int a = 0, i = 0, nb = 0, first = 0;
	const char *word, *arg;
	struct callout_op *op;
	__u64 n;

	*periodic = false;
	while (a < argc) {
		word = argv[a++];
		arg = a < argc ? argv[a] : NULL;
		op = &sub_ops[i];

		if (!strcmp(word, "wait")) {
			if (!arg) {
				*status = usage_error("wait how long?");
				return -1;
			}
			if (nb == MAX_OPS) {
				*status = usage_error("at most %d waits", MAX_OPS);
				return -1;
			}
			a++;
			b[nb] = (struct sub_batch){ .end = i };
			if (!strcmp(arg, "event")) {
				b[nb].wait_event = true;
			} else if (!parse_duration(arg, &b[nb].wait_ns)) {
				*status = usage_error("bad wait '%s'", arg);
				return -1;
			}
			nb++;
			first = i;
			continue;
		}
		if (i == MAX_OPS) {
			*status = usage_error("at most %d operations", MAX_OPS);
			return -1;
		}
		memset(op, 0, sizeof(*op));
		sub_ref[i] = -1;
		for (op->op = 1; op->op < ARRAY_SIZE(op_names); op->op++)
			if (!strcmp(word, op_names[op->op]))
				break;
		if (op->op == ARRAY_SIZE(op_names)) {
			*status = usage_error("unknown operation '%s'", word);
			return -1;
		}
		if (!arg) {
			*status = usage_error("%s of what?", word);
			return -1;
		}
		a++;
		switch (op->op) {
		case CALLOUT_OP_SET:
			op->cookie = i;
			if (!parse_times(arg, &op->timeout, &op->period_ns))
				goto bad;
			if (a < argc && !strncmp(argv[a], "cookie=", 7)) {
				if (!parse_u64(argv[a] + 7, &op->cookie)) {
					arg = argv[a];
					goto bad;
				}
				a++;
			}
			break;
		case CALLOUT_OP_UNSET:
			if (!parse_handle(arg, i, first))
				goto bad;
			break;
		case CALLOUT_OP_RESET:
			if (!parse_handle(arg, i, first))
				goto bad;
			arg = a < argc ? argv[a] : "";
			if (!parse_times(arg, &op->timeout, &op->period_ns))
				goto bad;
			a++;
			break;
		case CALLOUT_OP_TIMEOUT:
			/* in ticks when it is submitted */
			if (!parse_duration(arg, &op->timeout))
				goto bad;
			break;
		case CALLOUT_OP_UNTIMEOUT:
			if (!parse_u64(arg, &n) || n >= (__u64)i ||
			    sub_ops[n].op != CALLOUT_OP_TIMEOUT)
				goto bad;
			sub_ref[i] = n;
			break;
		}
		if (op->period_ns)
			*periodic = true;
		i++;
	}
	if (!i) {
		*status = usage_error("which operations? give at least one OP");
		return -1;
	}
	b[nb++] = (struct sub_batch){ .end = i };
	return nb;
bad:
	*status = usage_error("bad %s '%s'", word, arg);
	return -1;
}

/* Whether the op @j is a pending set, and the one-shots it counts for. */
struct sub_state {
	bool pending;
	bool periodic;
};

/*
 * Account for what the batch ops [@from, @to) did to the one-shots and
 * timeouts @w waits for, from their results.
 */
static void sub_count(struct watch *w, struct sub_state *st, int from, int to)
{
	struct callout_op *op;
	int i, j;

	for (i = from; i < to; i++) {
		op = &sub_ops[i];
		if (op->result)
			continue;
		switch (op->op) {
		case CALLOUT_OP_SET:
			st[i].pending = true;
			st[i].periodic = op->period_ns;
			w->oneshots += !op->period_ns;
			break;
		case CALLOUT_OP_TIMEOUT:
			w->oneshots++;
			break;
		case CALLOUT_OP_UNTIMEOUT:
			w->oneshots--;
			break;
		case CALLOUT_OP_UNSET:
		case CALLOUT_OP_RESET:
			/* The set of this handle, if it was one of ours. */
			for (j = 0; j < i; j++)
				if (sub_ops[j].op == CALLOUT_OP_SET &&
				    !sub_ops[j].result &&
				    sub_ops[j].handle == op->handle)
					break;
			if (j == i || !st[j].pending)
				break;
			w->oneshots -= !st[j].periodic;
			if (op->op == CALLOUT_OP_UNSET) {
				st[j].pending = false;
			} else {
				st[j].periodic = op->period_ns;
				w->oneshots += !op->period_ns;
			}
			break;
		}
	}
}

/* Print the results of ops [@from, @to) of which @done were carried out. */
static bool sub_print(int from, int to, unsigned int done)
{
	struct callout_op *op;
	bool ok = true;
	char what[64];
	int i;

	for (i = from; i < to; i++) {
		op = &sub_ops[i];
		what[0] = '\0';
		if (op->op == CALLOUT_OP_UNSET || op->op == CALLOUT_OP_RESET)
			snprintf(what, sizeof(what), " handle=%llu",
				 (unsigned long long)op->handle);
		else if (op->op == CALLOUT_OP_UNTIMEOUT)
			snprintf(what, sizeof(what), " op=%d", sub_ref[i]);
		printf("op %d %s%s: ", i, op_names[op->op], what);
		if ((unsigned int)(i - from) >= done) {
			printf("not done\n");
			ok = false;
		} else if (op->result) {
			const char *name = strerrorname_np(-op->result);

			if (name)
				printf("%s\n", name);
			else
				printf("errno %d\n", -op->result);
			ok = false;
		} else if (op->op == CALLOUT_OP_SET) {
			printf("handle=%llu\n", (unsigned long long)op->handle);
		} else {
			printf("ok\n");
		}
	}
	printf("submit: done=%u of %d\n", done, to - from);
	return ok;
}

static int cmd_submit(int argc, char **argv)
{
	static struct sub_batch batches[MAX_OPS + 1];
	static struct sub_state st[MAX_OPS];
	struct watch w = { 0 };
	struct callout_info info;
	unsigned long count = 0;
	__u64 duration = 0, now;
	int i, k, nb, from = 0, status = 0, ret;
	unsigned int done;
	bool periodic, ok = true;

	ret = parse_watch_opts(argc, argv, &count, &duration, &w);
	if (ret >= 0)
		return ret;
	nb = sub_parse(argc - optind, argv + optind, batches, &periodic,
		       &status);
	if (nb < 0)
		return status;
	if (periodic && !count && !duration)
		return usage_error("a periodic callout needs --count or --duration");
	ret = callout_getinfo(&info);
	if (ret)
		return fail_errno("/dev/callout", -ret);
	w.start_ns = now_ns();
	for (k = 0; k < nb; k++) {
		int to = batches[k].end;

		now = now_ns();
		for (i = from; i < to; i++) {
			struct callout_op *op = &sub_ops[i];
			struct timeout_arg *t = &sub_targs[i];

			if (op->op == CALLOUT_OP_TIMEOUT) {
				*t = (struct timeout_arg){ .w = &w, .cookie = i };
				op->timeout = (op->timeout + info.tick_ns - 1) /
					      info.tick_ns;
				t->due_ns = now + op->timeout * info.tick_ns;
				op->cookie = (uintptr_t)on_timeout;
				op->arg = (uintptr_t)t;
			} else if (op->op == CALLOUT_OP_UNTIMEOUT) {
				op->cookie = (uintptr_t)on_timeout;
				op->arg = (uintptr_t)&sub_targs[sub_ref[i]];
			} else if (sub_ref[i] >= 0) {
				op->handle = sub_ops[sub_ref[i]].handle;
			}
		}
		if (to > from) {
			done = 0;
			ret = callout_submit(sub_ops + from, to - from, &done);
			ok &= sub_print(from, to, done);
			if (ret)
				return fail_errno("callout_submit", -ret);
			sub_count(&w, st, from, to);
		}
		fflush(stdout);
		if (batches[k].wait_event) {
			while ((ret = callout_wait(-1)) != 1)
				if (ret < 0 && ret != -EINTR)
					return fail_errno("poll", -ret);
		} else if (batches[k].wait_ns) {
			struct timespec ts = {
				.tv_sec = batches[k].wait_ns / 1000000000,
				.tv_nsec = batches[k].wait_ns % 1000000000,
			};

			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
		}
		from = to;
	}
	ret = watch_loop(&w, count, periodic,
			 duration ? w.start_ns + duration : 0);
	if (ret)
		return ret;
	printf("events=%lu\n", w.events);
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * table: a process's file descriptor, duplicated here with pidfd_getfd()
 * (which needs ptrace access to it), mapped read-only; the pages of slots
 * the file has used, up to the first it has not (SIGBUS).
 */
static sigjmp_buf table_end;

static void table_sigbus(int sig)
{
	(void)sig;
	siglongjmp(table_end, 1);
}

#define TABLE_PAGES_MAX	((size_t)1 << 23)	/* 2^32 slots */

static int cmd_table(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = table_sigbus }, old;
	size_t page = sysconf(_SC_PAGESIZE), per = page / sizeof(__u64);
	/* Not automatic: they keep their values across the siglongjmp(). */
	static size_t i, shown;
	struct callout_info info;
	__u64 *t, v, tick, now;
	struct timespec ts;
	int ret, pidfd, fd;
	__s64 d;
	long pid, target;
	char *end;

	ret = no_options(argc, argv);
	if (ret)
		return ret < 0 ? EXIT_SUCCESS : ret;
	if (argc - optind != 2)
		return usage_error("takes a PID and an FD");
	pid = strtol(argv[optind], &end, 10);
	if (*end || pid <= 0)
		return usage_error("bad PID '%s'", argv[optind]);
	target = strtol(argv[optind + 1], &end, 10);
	if (*end || target < 0)
		return usage_error("bad FD '%s'", argv[optind + 1]);
	pidfd = syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (pidfd < 0)
		return fail_errno("pidfd_open", errno);
	fd = syscall(SYS_pidfd_getfd, pidfd, (int)target, 0);
	if (fd < 0)
		return fail_errno("pidfd_getfd", errno);
	close(pidfd);
	if (ioctl(fd, CALLOUT_IOC_INFO, &info))
		return fail_errno("not a /dev/callout file", errno);
	t = mmap(NULL, TABLE_PAGES_MAX * page, PROT_READ, MAP_SHARED, fd, 0);
	if (t == MAP_FAILED)
		return fail_errno("mmap", errno);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	tick = now / info.tick_ns;
	printf("%-8s %-20s %10s %14s %s\n", "slot", "handle", "gen",
	       "due_in_ms", "mark");
	sigaction(SIGBUS, &sa, &old);
	shown = 0;
	if (!sigsetjmp(table_end, 1)) {
		for (i = 0; i < TABLE_PAGES_MAX * per; i++) {
			v = t[i];
			if (!v)
				continue;
			/* Ticks from now, modulo 2^39 to the nearest */
			d = (__s64)(((v - tick) & CALLOUT_DUE_TICK_MASK) << 25) >> 25;

			printf("%-8zu 0x%016llx %10llu %14.3f %s\n", (size_t)i,
			       (unsigned long long)((v >> CALLOUT_DUE_GEN_SHIFT) << 32 | i),
			       (unsigned long long)(v >> CALLOUT_DUE_GEN_SHIFT),
			       ((double)d * info.tick_ns - (double)(now % info.tick_ns)) / 1e6,
			       v & CALLOUT_DUE_CANCEL ? "cancel" : "");
			shown++;
		}
	}
	sigaction(SIGBUS, &old, NULL);
	printf("%zu entries in %zu slots (tick %llu ns)\n", (size_t)shown,
	       (size_t)i, (unsigned long long)info.tick_ns);
	munmap(t, TABLE_PAGES_MAX * page);
	close(fd);
	return EXIT_SUCCESS;
}

static const struct command commands[] = {
	{ "info", cmd_info, "the facility's geometry (ioctl INFO)",
	  "Usage: calloutctl info\n"
	  "Print the facility's geometry from /dev/callout (CALLOUT_IOC_INFO):\n"
	  "scheme, scheme_id, tick_ns, max_timeout_ns, max_per_file, nr_cpus.\n" },
	{ "stats", cmd_stats, "debugfs statistics, one column per CPU",
	  "Usage: calloutctl stats [-f FILE]\n"
	  "Print " STATS_FILE ": the facility's keys, then\n"
	  "each counter as a row with its total and one column per CPU.\n"
	  "  -f, --file FILE   read FILE instead\n" },
	{ "watch", cmd_watch, "arm callouts and stream their events",
	  "Usage: calloutctl watch [-c N] [-d DURATION] [-q] SPEC...\n"
	  "Arm one callout per SPEC and print each event as it arrives, until\n"
	  "every one-shot has fired, N events, or DURATION.\n"
	  "SPEC is TIME (a one-shot), TIME/PERIOD (periodic), or timeout:TIME\n"
	  "(an old-style timeout(func, arg), run through libcallout).\n"
	  "Times have a unit: ns, us, ms or s (e.g. 20ms, 1s).\n"
	  "  -c, --count N          stop after N events\n"
	  "  -d, --duration TIME    stop after TIME\n"
	  "  -q, --quiet            count events, print nothing per event\n" },
	{ "set", cmd_set, "arm one callout and print its events",
	  "Usage: calloutctl set [-p PERIOD] [-k COOKIE] [-c N] [-r TIME] TIME\n"
	  "Arm one callout TIME from now, print its handle and its events\n"
	  "(one for a one-shot, N for a periodic one, then unset it).\n"
	  "  -p, --period PERIOD    re-arm every PERIOD\n"
	  "  -k, --cookie COOKIE    the cookie of its events (default 0)\n"
	  "  -c, --count N          events to wait for (periodic; default 5)\n"
	  "  -r, --reset TIME       re-arm it at once to TIME from now\n" },
	{ "unset", cmd_unset, "arm one callout, cancel it, check that it stays quiet",
	  "Usage: calloutctl unset [-a AFTER] TIME\n"
	  "Arm one callout TIME from now, unset it AFTER later (default at\n"
	  "once), print whether it was cancelled, and check that no event\n"
	  "comes for a cancelled one (exit 1 if one does).\n"
	  "  -a, --after AFTER      wait AFTER before the unset\n" },
	{ "submit", cmd_submit, "carry out operations in batches, one call each",
	  "Usage: calloutctl submit [-c N] [-d DURATION] [-q] OP...\n"
	  "Carry out the OPs with libcallout's callout_submit(), a batch per\n"
	  "call (the word wait ends one), print each OP's result and each\n"
	  "batch's done count, then the events until every one-shot has fired,\n"
	  "N events, or DURATION. Exit 1 if any OP failed.\n"
	  "OP is one of:\n"
	  "  set TIME[/PERIOD] [cookie=C]   arm a callout (cookie: its OP number)\n"
	  "  reset HANDLE TIME[/PERIOD]     re-arm one\n"
	  "  unset HANDLE                   cancel one\n"
	  "  timeout TIME                   an old-style timeout(func, arg)\n"
	  "  untimeout N                    cancel the timeout of OP N\n"
	  "  wait TIME | wait event         end the batch, then sleep TIME or\n"
	  "                                 until an event is queued (unread)\n"
	  "HANDLE is a number or @N, the handle of set OP N of an earlier batch.\n"
	  "OPs are numbered from 0; times have a unit: ns, us, ms or s.\n"
	  "  -c, --count N          stop after N events\n"
	  "  -d, --duration TIME    stop TIME after the first batch\n"
	  "  -q, --quiet            count events, print nothing per event\n" },
	{ "table", cmd_table, "another process's due-time table",
	  "Usage: calloutctl table PID FD\n"
	  "Print the due-time table of /dev/callout file FD of process PID\n"
	  "(duplicated with pidfd_getfd(2): ptrace access to PID is needed):\n"
	  "for each slot whose entry is not 0, the handle it is for, its\n"
	  "generation, its due tick as ms from now (later than the due time\n"
	  "the kernel holds if the program deferred it) and the cancel mark.\n" },
};

static void print_help(FILE *f)
{
	size_t i;

	fputs("Usage: calloutctl COMMAND [OPTION]... [ARG]...\n"
	      "Look at and try out the callout facility (/dev/callout).\n\n"
	      "Commands:\n", f);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-6s %s\n", commands[i].name,
			commands[i].summary);
	fputs("\n'calloutctl COMMAND --help' describes a command.\n"
	      "Exit status: 0 success, 1 failure, 2 bad usage.\n", f);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		print_help(stdout);
		return EXIT_SUCCESS;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			cmd = &commands[i];
			return cmd->run(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "calloutctl: unknown command '%s'\n", argv[1]);
	print_help(stderr);
	return EXIT_USAGE;
}
