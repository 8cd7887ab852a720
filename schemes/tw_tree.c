// SPDX-License-Identifier: GPL-2.0
/*
 * tw_tree.c - Scheme 3: a balanced search tree ordered by expiry.
 *
 * Varghese & Lauck, "Hashed and Hierarchical Timing Wheels", section IV-A:
 * a timer module is a priority queue, and "for large n, tree-based data
 * structures are better" than the ordered list of Scheme 2, bringing
 * START_TIMER from O(n) to O(log n). The paper warns that unbalanced trees
 * degenerate into a list when equal intervals arrive; this one is the
 * kernel's red-black tree, which cannot, with the leftmost node cached
 * (struct rb_root_cached) so that the earliest entry is found in O(1). That
 * is exactly how hrtimers keep their timers (lib/timerqueue.c).
 *
 * Cost, with n outstanding entries:
 *
 *   START_TIMER   O(log n)   descent of the tree, then recolouring with at
 *                            most two rotations
 *   STOP_TIMER    O(log n)   rb_erase_cached() (at most three rotations; the
 *                            leftmost cache may need an rb_next())
 *   PER_TICK      O(1)       compare the cached leftmost entry, plus an
 *                            erase per entry that expires
 *   next()        O(1)       the leftmost entry's expiry
 *
 * The descent is written out instead of using rb_add_cached() so that its
 * length can be counted in insert_steps. Equal expiries go to the right of
 * each other, so they leave the tree in insertion order. The entry's rb_node
 * shares a union with its list_head: an entry is unlinked from the tree
 * before it is put on the expired list, and its list_head is reinitialised
 * when it is removed.
 */
#define pr_fmt(fmt) "callout: " fmt

#include <linux/rbtree_augmented.h>
#include "tw.h"

/**
 * struct tw_tree - the state of Scheme 3
 * @root:	the pending entries keyed by ->expires, leftmost cached
 */
struct tw_tree {
	struct rb_root_cached root;
};

static struct rb_root_cached *tw_tree_root(struct tw_wheel *w)
{
	return &((struct tw_tree *)w->priv)->root;
}

static int tw_tree_init(struct tw_wheel *w)
{
	struct tw_tree *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return -ENOMEM;
	t->root = RB_ROOT_CACHED;
	w->priv = t;
	return 0;
}

static void tw_tree_destroy(struct tw_wheel *w)
{
	kfree(w->priv);
}

static int tw_tree_insert(struct tw_wheel *w, struct tw_entry *e)
{
	struct rb_root_cached *root = tw_tree_root(w);
	struct rb_node **link = &root->rb_root.rb_node, *parent = NULL;
	bool leftmost = true;
	u64 steps = 0;

	while (*link) {
		parent = *link;
		steps++;
		if (e->expires < rb_entry(parent, struct tw_entry, rb)->expires) {
			link = &parent->rb_left;
		} else {
			link = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(&e->rb, parent, link);
	rb_insert_color_cached(&e->rb, root, leftmost);
	w->stats.insert_steps += steps;
	tw_note_chain(w, steps);
	return 0;
}

static void tw_tree_remove(struct tw_wheel *w, struct tw_entry *e)
{
	rb_erase_cached(&e->rb, tw_tree_root(w));
	INIT_LIST_HEAD(&e->list);
}

/* The due entries lead: a pass that stops leaves the rest of them there. */
static bool tw_tree_advance(struct tw_wheel *w, u64 now,
			    struct list_head *expired, u64 *budget)
{
	struct rb_root_cached *root = tw_tree_root(w);
	struct rb_node *node;
	struct tw_entry *e;
	bool done = true;
	u64 seen = 0;

	while ((node = rb_first_cached(root))) {
		if (!*budget) {
			done = false;
			break;
		}
		(*budget)--;
		e = rb_entry(node, struct tw_entry, rb);
		seen++;
		if (e->expires > now)
			break;
		/* Off the tree first: ->rb and ->list share their storage. */
		rb_erase_cached(node, root);
		list_add_tail(&e->list, expired);
	}
	w->stats.examined += seen;
	return done;
}

static u64 tw_tree_next(struct tw_wheel *w)
{
	struct rb_node *node = rb_first_cached(tw_tree_root(w));

	if (!node)
		return TW_NEVER;
	return rb_entry(node, struct tw_entry, rb)->expires;
}

/* Red-black rules: no red node has a red parent; equal black heights. */
static int tw_tree_check_colours(struct rb_node *node, u64 *height)
{
	struct rb_node *up;
	u64 blacks = 0;

	if (rb_is_red(node) && (!rb_parent(node) || rb_is_red(rb_parent(node))))
		return -EUCLEAN;
	if (node->rb_left && node->rb_right)
		return 0;
	/* A node with an empty child: count the blacks up to the root. */
	for (up = node; up; up = rb_parent(up))
		blacks += rb_is_black(up);
	if (!*height)
		*height = blacks;
	return blacks == *height ? 0 : -EUCLEAN;
}

static int tw_tree_check(struct tw_wheel *w)
{
	struct rb_root_cached *root = tw_tree_root(w);
	struct rb_node *node;
	struct tw_entry *e;
	u64 n = 0, last = w->now + 1, height = 0;

	if (root->rb_leftmost != rb_first(&root->rb_root)) {
		pr_err("tree: the cached leftmost node is not the first\n");
		return -EUCLEAN;
	}
	for (node = rb_first(&root->rb_root); node; node = rb_next(node)) {
		e = rb_entry(node, struct tw_entry, rb);
		if (!tw_pending(e) || e->expires < last) {
			pr_err("tree: node %llu: flags %#x, expires %llu after %llu at now %llu\n",
			       (unsigned long long)n, e->flags,
			       (unsigned long long)e->expires,
			       (unsigned long long)last,
			       (unsigned long long)w->now);
			return -EUCLEAN;
		}
		if ((node->rb_left && rb_parent(node->rb_left) != node) ||
		    (node->rb_right && rb_parent(node->rb_right) != node) ||
		    tw_tree_check_colours(node, &height)) {
			pr_err("tree: node %llu: broken links or colours\n",
			       (unsigned long long)n);
			return -EUCLEAN;
		}
		last = e->expires;
		n++;
	}
	if (n != tw_nr_linked(w)) {
		pr_err("tree: %llu nodes, %llu linked\n",
		       (unsigned long long)n,
		       (unsigned long long)tw_nr_linked(w));
		return -EUCLEAN;
	}
	return 0;
}

const struct tw_ops tw_tree_ops = {
	.name		= "tree",
	.id		= TW_TREE,
	.init		= tw_tree_init,
	.destroy	= tw_tree_destroy,
	.insert		= tw_tree_insert,
	.remove		= tw_tree_remove,
	.advance	= tw_tree_advance,
	.next		= tw_tree_next,
	.check		= tw_tree_check,
};
