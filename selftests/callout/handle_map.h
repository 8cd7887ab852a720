/* SPDX-License-Identifier: GPL-2.0 */
/*
 * handle_map.h - a map from a /dev/callout handle to a test's record of it.
 *
 * A handle is a slot index and that slot's generation (the low and the high
 * 32 bits), never 0 and never given twice by one file, but not a counter:
 * a test that models a file finds its record of a handle here. Open
 * addressing with linear probing; it grows at half full and never shrinks.
 */
#ifndef CALLOUT_HANDLE_MAP_H
#define CALLOUT_HANDLE_MAP_H

#include <stdlib.h>
#include <linux/types.h>

struct handle_map {
	__u64 *keys;		/* 0: an empty cell */
	void **vals;
	size_t cap, n;		/* cap: 0 or a power of two */
};

static inline size_t handle_map_cell(const struct handle_map *m, __u64 key)
{
	return (key * 0x9E3779B97F4A7C15ULL) >> 32 & (m->cap - 1);
}

/* The record of @key, or NULL if it has none. */
static inline void *handle_map_get(const struct handle_map *m, __u64 key)
{
	size_t i;

	if (!m->cap || !key)
		return NULL;
	for (i = handle_map_cell(m, key); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	return NULL;
}

/* Record @val for @key (not 0), replacing what it had. */
static inline void handle_map_put(struct handle_map *m, __u64 key, void *val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct handle_map big = { .cap = m->cap ? 2 * m->cap : 1024 };

		big.keys = calloc(big.cap, sizeof(*big.keys));
		big.vals = calloc(big.cap, sizeof(*big.vals));
		if (!big.keys || !big.vals)
			abort();
		for (i = 0; i < m->cap; i++)
			if (m->keys[i])
				handle_map_put(&big, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = big;
	}
	for (i = handle_map_cell(m, key); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			break;
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
}

/* Forget every record; the records themselves are the caller's. */
static inline void handle_map_free(struct handle_map *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct handle_map){ 0 };
}

#endif /* CALLOUT_HANDLE_MAP_H */
