// SPDX-License-Identifier: GPL-2.0
/*
 * fault_sites - drive every allocation site of a SET, for
 * scripts/check-faults.sh, which runs it with callout's allocations failing
 * on purpose.
 *
 *	fault_sites FILES SETS
 *
 * FILES times: open a file, SET (through SUBMIT, 64 to a call) until SETS
 * of them armed, UNSET every handle given, close. SETS above 512 makes each
 * file allocate its handle table's parts, two pages or more of its due
 * table and, for the second page, a node of the table's index: the random
 * mix of torture_test and fuzz_test reaches that last site a few times a
 * run, this about once a file. Every SET must arm (0 and a handle) or be
 * refused with ENOMEM (and no handle), SETS in at most 4 x SETS tries;
 * every handle given must cancel with 0, once (nothing was due: the
 * timeout is an hour); the file must have no event to read. An open()
 * refused with ENOMEM is tried again.
 * Prints the refusals seen; exits 0 if every result was one of those, 1
 * otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/callout.h>

#define BATCH		64
#define HOUR_NS		(3600ULL * 1000000000ULL)
#define RETRIES		1000

static unsigned long bad;

static void report(const char *what, unsigned int file, int err)
{
	if (bad++ < 20)
		printf("# file %u: %s: %s\n", file, what, strerror(err));
}

static int submit(int fd, struct callout_op *ops, unsigned int n)
{
	struct callout_submit s = { .ops = (__u64)(unsigned long)ops, .nr = n };

	if (ioctl(fd, CALLOUT_IOC_SUBMIT, &s))
		return -errno;
	return s.done == n ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	unsigned long enomem_open = 0, enomem_set = 0, sets = 0;
	unsigned int files, want, f, i, j, n, armed, tries;
	struct callout_op ops[BATCH];
	struct callout_event ev;
	unsigned long tried;
	__u64 *handles;
	int fd, err;

	files = argc == 3 ? atoi(argv[1]) : 0;
	want = argc == 3 ? atoi(argv[2]) : 0;
	if (!files || !want) {
		fprintf(stderr, "usage: %s FILES SETS\n", argv[0]);
		return 2;
	}
	handles = calloc(want, sizeof(*handles));
	if (!handles)
		return 2;
	for (f = 0; f < files; f++) {
		for (tries = 0;; tries++) {
			fd = open("/dev/callout", O_RDWR | O_NONBLOCK | O_CLOEXEC);
			if (fd >= 0 || errno != ENOMEM || tries == RETRIES)
				break;
			enomem_open++;
		}
		if (fd < 0) {
			report("open", f, errno);
			break;
		}
		armed = 0;
		for (tried = 0; armed < want; tried += n) {
			if (tried >= 4UL * want) {
				report("SETs refused", f, ENOMEM);
				break;
			}
			n = want - armed < BATCH ? want - armed : BATCH;
			memset(ops, 0, sizeof(ops));
			for (i = 0; i < n; i++) {
				ops[i].op = CALLOUT_OP_SET;
				ops[i].timeout = HOUR_NS;
				ops[i].cookie = armed + i;
			}
			err = submit(fd, ops, n);
			if (err) {
				report("SUBMIT of SETs", f, -err);
				goto next;
			}
			for (i = 0; i < n; i++) {
				sets++;
				if (ops[i].result == -ENOMEM && !ops[i].handle) {
					enomem_set++;
				} else if (ops[i].result || !ops[i].handle) {
					report("SET", f, ops[i].result ?
					       -ops[i].result : EINVAL);
				} else {
					handles[armed++] = ops[i].handle;
				}
			}
		}
next:
		for (i = 0; i < armed; i += n) {
			n = armed - i < BATCH ? armed - i : BATCH;
			memset(ops, 0, sizeof(ops));
			for (j = 0; j < n; j++) {
				ops[j].op = CALLOUT_OP_UNSET;
				ops[j].handle = handles[i + j];
			}
			err = submit(fd, ops, n);
			if (err) {
				report("SUBMIT of UNSETs", f, -err);
				break;
			}
			for (j = 0; j < n; j++)
				if (ops[j].result)
					report("UNSET", f, -ops[j].result);
		}
		if (read(fd, &ev, sizeof(ev)) != -1 || errno != EAGAIN)
			report("read after the UNSETs", f, errno ? errno : EIO);
		close(fd);
	}
	printf("# fault_sites: %u files, %lu SETs: %lu refused ENOMEM,", f,
	       sets, enomem_set);
	printf(" %lu opens refused ENOMEM; %lu wrong\n", enomem_open, bad);
	free(handles);
	return bad ? 1 : 0;
}
