// SPDX-License-Identifier: GPL-2.0
/*
 * tw_fuzz.c - libFuzzer drives the differential test (tw_diff.c): the
 * input bytes are the random choices, fed to every scheme in turn, and any
 * difference from the reference aborts with the reason.
 *
 * Byte 0 picks the geometry (bit 0: small or default) and where w->now
 * starts (bits 1-2); the rest are the choices, 8 bytes each, zeros once the
 * input runs out, which ends the run.
 *
 * Build and run: make -C tools/testing/schemes fuzz [FUZZ_TIME=seconds]
 */
#include "tw_diff.h"

unsigned long tw_user_warnings;
unsigned long tw_user_alloc_bytes;

static const struct tw_geometry geo_small = {
	.wheel_bits = 4,
	.levels = 8,
	.level_bits = 8,
	.lawn_ttls = 8,
};

static const u64 starts[] = { 0, (1ULL << 32) - 100, 1ULL << 47,
			      U64_MAX - (1ULL << 60) };

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct tw_geometry geo_default = { 0 };
	const struct tw_ops *ops;
	struct tw_diff_src src;
	struct tw_diff d;
	int id;

	if (!size)
		return 0;
	tw_geometry_defaults(&geo_default);
	for (id = 1; id < TW_NR_SCHEMES; id++) {
		ops = tw_ops_by_id(id);
		memset(&d, 0, sizeof(d));
		src = (struct tw_diff_src){ .data = data + 1, .len = size - 1 };
		d.ops = ops;
		d.geo = data[0] & 1 ? geo_small : geo_default;
		d.start = starts[(data[0] >> 1) & 3];
		/* 0: unbounded; else budgets of 1..n (tw.h, "Budgets"). */
		d.budget = (data[0] >> 3) & 31;
		d.nr_ops = U64_MAX;
		d.pool = 64;
		d.src = &src;
		if (tw_diff_run(&d)) {
			fprintf(stderr, "%s: %s\n", ops->name, d.why);
			abort();
		}
	}
	if (tw_user_warnings) {
		fprintf(stderr, "%lu unexpected warnings\n", tw_user_warnings);
		abort();
	}
	return 0;
}
