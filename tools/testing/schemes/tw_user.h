/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tw_user.h - the few kernel facilities tw.h and the scheme files need in
 * user space that the kernel's own tools/include does not provide. The
 * Makefile force-includes it (-include) into every file of the tests: the
 * scheme library itself names only kernel headers.
 *
 * Everything else comes from linux-source/tools/include (list.h,
 * rbtree.h, bitmap.h, hash.h, ...) and tools/lib (rbtree.c, find_bit.c,
 * bitmap.c), so the module's .c files compile here unchanged. Keep this
 * file small: an addition here is a place where user space and the kernel
 * can differ.
 */
#ifndef CALLOUT_TW_USER_H
#define CALLOUT_TW_USER_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <asm/bug.h>
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/types.h>

/* tw.c exports its entry points from callout.ko in a namespace. */
#ifndef EXPORT_SYMBOL_NS_GPL
#define EXPORT_SYMBOL_NS_GPL(sym, ns)
#endif

/* linux/limits.h */
#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S64_MAX		((s64)(U64_MAX >> 1))

/* Warnings are counted, so a test can require that none fired. */
extern unsigned long tw_user_warnings;
#undef __WARN_printf
#define __WARN_printf(arg...)	do {				\
		tw_user_warnings++;				\
		fprintf(stderr, arg);				\
	} while (0)

/* No pr_fmt() prefix: a scheme file defines pr_fmt after this file. */
#define pr_err(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	fprintf(stdout, fmt, ##__VA_ARGS__)

/*
 * The allocators; gfp_t and GFP_KERNEL come from tools' linux/types.h.
 * They stand in for <linux/slab.h>, which tw.h includes: tools/include's
 * slab.h, whose kmalloc() and kfree() are tools/lib's and declared
 * otherwise, is kept out by its include guard.
 */
#define _TOOLS_SLAB_H
/*
 * Bytes asked of the allocators since the start, never decremented: what a
 * scheme allocates in init, read around tw_init() (tw_native.c).
 */
extern unsigned long tw_user_alloc_bytes;

static inline void *kmalloc(size_t size, gfp_t gfp)
{
	tw_user_alloc_bytes += size;
	return malloc(size ? size : 1);
}

static inline void *kzalloc(size_t size, gfp_t gfp)
{
	tw_user_alloc_bytes += size;
	return calloc(1, size ? size : 1);
}

static inline void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	tw_user_alloc_bytes += n * size;
	return calloc(n ? n : 1, size ? size : 1);
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	tw_user_alloc_bytes += n * size;
	return malloc(n && size ? n * size : 1);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

#define kvmalloc(size, gfp)		kmalloc(size, gfp)
#define kvzalloc(size, gfp)		kzalloc(size, gfp)
#define kvcalloc(n, size, gfp)		kcalloc(n, size, gfp)
#define kvmalloc_array(n, size, gfp)	kmalloc_array(n, size, gfp)
#define kvfree(p)			kfree(p)

/* The kernel's bitmap_zalloc() takes gfp flags; tools/include's does not. */
#define bitmap_zalloc(nbits, gfp) \
	kcalloc(BITS_TO_LONGS(nbits), sizeof(long), gfp)

#endif /* CALLOUT_TW_USER_H */
