// SPDX-License-Identifier: GPL-2.0
/*
 * tw_hierarchical.c - Scheme 7: hierarchical timing wheels, with migration.
 *
 * G. Varghese and A. Lauck, "Hashed and Hierarchical Timing Wheels: Data
 * Structures for the Efficient Implementation of a Timer Facility" (SOSP
 * 1987; IEEE/ACM ToN 1997), section VI.B, "Exploiting Hierarchy".
 *
 * Time is written in a radix of HIER_SIZE = 1 << level_bits: digit k of a
 * tick t is (t >> (k * level_bits)) & HIER_MASK, and level k is a wheel of
 * HIER_SIZE slots, one per value of digit k, each slot HIER_SIZE^k ticks
 * wide, as the paper's seconds, minutes, hours and days arrays are. As in
 * the paper's Fig. 7, a timer goes to the level of the most significant
 * digit in which its absolute expiry differs from the current time, into
 * the slot of that digit of the expiry; the lower digits are the remainder
 * it carries. When the current time reaches that slot (its digit k and all
 * the digits above now equal the timer's), the timer migrates: it is
 * re-inserted by the same rule, which puts it at a lower level, into the
 * slot of its next digit, or it is collected if its remainder is zero. At
 * level 0 a slot is a tick and everything in it is due. So a timer migrates
 * at most levels - 1 times and expires at exactly its tick: "late over
 * early" never has to round anything here.
 *
 * The level is found in O(1), without the paper's search from the largest
 * units down: fls64(expires ^ now) is the most significant differing bit,
 * and a table built at init maps it to its level.
 *
 * The top level. With levels * level_bits >= 64 the digits cover every
 * tick and the top level needs nothing special. With fewer bits, an expiry
 * that differs from now above the top digit (beyond the span) still goes to
 * the top level, hashed by its top digit as Scheme 6 hashes by the low
 * digit: the top level is visited, slot by slot, once per round of
 * HIER_SIZE^levels ticks, and a visit re-checks each entry and migrates only
 * those whose time has come; the others are a later round's and stay. No
 * timer is ever expired early, whatever its distance, up to U64_MAX.
 *
 * There is no cursor: which slot an entry is in is a function of its
 * expiry and w->now, so an empty wheel is valid at any w->now. Advancing
 * from w->now to now visits, per level, the slots whose digit the clock
 * passes (from the digit of w->now, exclusive, to that of now, or to the
 * end of the level when a higher digit changes), stopping at the first
 * level whose higher digits do not change; the entries found are collected
 * or re-inserted relative to now, at a lower level, whose range the pass has
 * already visited. A jump of any length is one pass over the busy slots,
 * never a loop over ticks; with a budget (tw.h), a pass stops at an entry
 * and resumes there, its level, slot and the slot's cursor kept.
 *
 * Cost, for n pending timers, m levels, T the mean interval:
 *
 *   STARTTIMER   O(1): an xor, fls64(), a table lookup, a shift and mask,
 *                a list_add_tail(), a __set_bit()
 *   STOPTIMER    O(1): a list_del(), a __clear_bit() if the slot empties
 *   PERTICK      each timer migrates at most m - 1 times in its life, so
 *                the work is the paper's n * c(7) * m / T per tick
 *                (w->stats.migrations counts it); a tick that carries into
 *                level k visits one slot in each of levels 0..k
 *   a jump       at most HIER_SIZE / BITS_PER_LONG bitmap words per level
 *                plus the entries of the passed busy slots
 *   next         a bitmap scan per level to the first busy slot: exact at
 *                level 0, the migration tick above (the paper's Appendix
 *                A: the host is interrupted at most m times per timer)
 *
 * Geometry (w->geo.levels and w->geo.level_bits, default 6 x 11 bits: 66
 * bits, so the whole 64-bit tick range; 6 * 2048 slots, 192 KiB of list
 * heads and 1.5 KiB of bitmap on 64-bit). Level k holds the expiries that
 * first differ from now in digit k:
 *
 *   level  shift  slot width  slots used  differs from now in bits
 *       0      0      1 tick        2048   0..10      (< 2^11 ticks away)
 *       1     11  2^11 ticks        2048  11..21      (< 2^22: 70 min at 1 ms)
 *       2     22  2^22 ticks        2048  22..32      (< 2^33: 99 days)
 *       3     33  2^33 ticks        2048  33..43      (< 2^44: 557 years)
 *       4     44  2^44 ticks        2048  44..54
 *       5     55  2^55 ticks         512  55..63
 *
 * Limits (tw_hierarchical_ops.geometry): level_bits 1..HIER_MAX_BITS,
 * levels 1..HIER_MAX_LEVELS, (levels - 1) * level_bits < 64 (every level
 * can hold something), which keep it to at most HIER_MAX_SLOTS slots in
 * all. One level is Scheme 6 again.
 */
#define pr_fmt(fmt) "callout: " fmt

#include <linux/kernel.h>

#include "tw.h"
#include "tw_slots.h"

#define HIER_TICK_BITS		64	/* bits in a tick, a u64 */
#define HIER_MAX_BITS		16
#define HIER_MAX_LEVELS		64
#define HIER_MAX_SLOTS_SHIFT	24
#define HIER_MAX_SLOTS		BIT(HIER_MAX_SLOTS_SHIFT)

/**
 * struct hier_wheel - the state of Scheme 7
 * @slots:	levels * HIER_SIZE lists, level k's at k * HIER_SIZE, and
 *		their busy bitmap
 * @levels:	number of levels
 * @bits:	level_bits, log2(HIER_SIZE)
 * @mask:	HIER_MASK = HIER_SIZE - 1
 * @level_of:	fls64(expires ^ now) -> level (0 for expires == now, never
 *		asked), capped at the top level
 * @passing:	a pass is in progress (tw.h, "Budgets")
 * @lvl:	the level the pass is at
 * @idx:	the next slot of that level the pass looks at, once
 *		@level_started
 * @level_started: the pass has begun its range of level @lvl
 *
 * Locked by the caller of the tw_ops.
 */
struct hier_wheel {
	struct tw_slots slots;
	u32 levels;
	u32 bits;
	u32 mask;
	u8 level_of[HIER_TICK_BITS + 1];
	bool passing;
	u32 lvl;
	u32 idx;
	bool level_started;
};

static inline u32 lvl_shift(const struct hier_wheel *hw, u32 lvl)
{
	return lvl * hw->bits;
}

/* Digit @lvl of tick @t: the slot @t has at that level. */
static inline u32 calc_digit(const struct hier_wheel *hw, u64 t, u32 lvl)
{
	return (t >> lvl_shift(hw, lvl)) & hw->mask;
}

/* The digits of @t above level @lvl (0 when there are none). */
static inline u64 calc_above(const struct hier_wheel *hw, u64 t, u32 lvl)
{
	u32 shift = lvl_shift(hw, lvl + 1);

	return shift < HIER_TICK_BITS ? t >> shift : 0;
}

/* The first tick of slot @digit of level @lvl, with @above above it. */
static inline u64 calc_tick(const struct hier_wheel *hw, u64 above, u32 lvl,
			    u32 digit)
{
	u32 shift = lvl_shift(hw, lvl + 1);
	u64 base = shift < HIER_TICK_BITS ? above << shift : 0;

	return base | (u64)digit << lvl_shift(hw, lvl);
}

/* The level of an entry due at @expires, seen from tick @now < @expires. */
static inline u32 calc_level(const struct hier_wheel *hw, u64 expires,
			     u64 now)
{
	return hw->level_of[fls64(expires ^ now)];
}

static inline u32 calc_index(const struct hier_wheel *hw, u32 lvl, u32 digit)
{
	return (lvl << hw->bits) | digit;
}

/* Link @e into the slot its expiry has seen from tick @now. */
static void enqueue(struct hier_wheel *hw, struct tw_entry *e, u64 now)
{
	u32 lvl = calc_level(hw, e->expires, now);

	tw_slots_enqueue(&hw->slots, e,
			 calc_index(hw, lvl, calc_digit(hw, e->expires, lvl)));
}

/*
 * Every level must be able to hold something: the lowest digit of the top
 * level, level levels - 1, must be below bit 64.
 */
static int hier_check_geometry(const struct tw_geometry *geo,
			       struct tw_geometry_error *err)
{
	u32 most = (HIER_TICK_BITS - 1) / geo->level_bits + 1;

	if (geo->levels <= most)
		return 0;
	err->field = "levels";
	scnprintf(err->why, sizeof(err->why),
		  "hierarchical takes at most %u levels of %u bits, not %u",
		  most, geo->level_bits, geo->levels);
	return -EINVAL;
}

static int hier_init(struct tw_wheel *w)
{
	u32 levels = w->geo.levels, bits = w->geo.level_bits;
	struct hier_wheel *hw;
	u32 pos, lvl;
	int ret;

	/* A slot index must fit in tw_entry->idx; a level in level_of[]. */
	BUILD_BUG_ON(HIER_MAX_SLOTS_SHIFT >= 32);
	BUILD_BUG_ON(HIER_MAX_LEVELS << HIER_MAX_BITS > HIER_MAX_SLOTS);
	BUILD_BUG_ON(HIER_MAX_LEVELS > (u8)~0);
	BUILD_BUG_ON(sizeof(u64) * BITS_PER_BYTE != HIER_TICK_BITS);
	hw = kzalloc(sizeof(*hw), GFP_KERNEL);
	if (!hw)
		return -ENOMEM;
	ret = tw_slots_alloc(&hw->slots, levels << bits);
	if (ret) {
		kfree(hw);
		return ret;
	}
	hw->levels = levels;
	hw->bits = bits;
	hw->mask = (1U << bits) - 1;
	for (pos = 1; pos <= HIER_TICK_BITS; pos++) {
		lvl = (pos - 1) / bits;
		hw->level_of[pos] = min(lvl, levels - 1);
	}
	w->priv = hw;
	return 0;
}

static void hier_destroy(struct tw_wheel *w)
{
	struct hier_wheel *hw = w->priv;

	tw_slots_free(&hw->slots);
	kfree(hw);
}

/**
 * tw_hier_insert() - Scheme 7's insert op, called directly by tw_insert()
 * @w:	the wheel
 * @e:	the entry, with its due tick in @e->expires
 *
 * Filed as seen from w->target: the tick the pass in progress goes to, or
 * w->now when there is none. @e is due after it (tw_insert() keeps what is
 * due by it on w->due), and the pass leaves a slot so filed where it is.
 *
 * Return: 0.
 */
int tw_hier_insert(struct tw_wheel *w, struct tw_entry *e)
{
	enqueue(w->priv, e, w->target);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(tw_hier_insert, CALLOUT_TW_NS);

/**
 * tw_hier_remove() - Scheme 7's remove op, called directly by tw_remove()
 * @w:	the wheel
 * @e:	an entry the scheme holds
 */
void tw_hier_remove(struct tw_wheel *w, struct tw_entry *e)
{
	struct hier_wheel *hw = w->priv;

	tw_slots_detach(&hw->slots, e);
}
EXPORT_SYMBOL_NS_GPL(tw_hier_remove, CALLOUT_TW_NS);

/*
 * Visit slot @idx of level @lvl for the pass to @now: collect what is due,
 * re-file what must migrate, as seen from @now (a lower level, whose
 * range the pass has already visited), leave the later rounds of the top
 * level; one unit of *@budget per entry. A visit that runs out of budget
 * leaves the slot's cursor before the next entry. Return: true when the
 * visit is done, false when it stopped (*@budget is then 0).
 */
static bool collect_slot(struct tw_wheel *w, struct hier_wheel *hw, u32 lvl,
			 u32 idx, u64 now, struct list_head *expired,
			 u64 *budget)
{
	struct list_head *head = &hw->slots.head[idx], *pos, *next;
	u64 len = 0, left = *budget;
	struct tw_entry *e;
	bool done = true;

	for (pos = tw_slots_resume(&hw->slots, idx); pos != head; pos = next) {
		if (len == left) {
			tw_slots_stop(&hw->slots, idx, pos);
			done = false;
			break;
		}
		len++;
		next = pos->next;
		e = list_entry(pos, struct tw_entry, list);
		if (e->expires <= now) {
			list_move_tail(&e->list, expired);
		} else if (calc_level(hw, e->expires, now) != lvl) {
			list_del(&e->list);
			enqueue(hw, e, now);
			w->stats.migrations++;
		}
	}
	*budget -= len;
	w->stats.examined += len;
	tw_note_chain(w, len);
	tw_slots_settle(&hw->slots, idx);
	return done;
}

/*
 * PERTICK for every tick w->now + 1 .. @now. At each level, the slots the
 * clock passes are those after the digit of w->now, up to the digit of @now
 * if the digits above are unchanged, else to the end of the level (entries
 * there all have digits above the one of w->now). Once the digits above a
 * level are unchanged, the higher levels are not passed at all. The top
 * level of a wheel narrower than 64 bits re-checks all its slots when a
 * new round begins, since it may hold any later round.
 *
 * An entry that migrates goes to a lower level, whose range this pass has
 * visited already: it is re-filed at once, as seen from @now, and so is an
 * insert between two calls of a pass (hier_insert()). A pass that runs out
 * of budget keeps its level and slot, and resumes there.
 */
static bool hier_advance(struct tw_wheel *w, u64 now,
			 struct list_head *expired, u64 *budget)
{
	struct hier_wheel *hw = w->priv;
	u64 old = w->now;
	u32 first, last, end;
	bool same;

	if (!hw->passing) {
		hw->passing = true;
		hw->lvl = 0;
		hw->level_started = false;
	}
	for (; hw->lvl < hw->levels; hw->lvl++, hw->level_started = false) {
		same = calc_above(hw, old, hw->lvl) ==
		       calc_above(hw, now, hw->lvl);
		first = calc_digit(hw, old, hw->lvl) + 1;
		last = same ? calc_digit(hw, now, hw->lvl) : hw->mask;
		if (!same && hw->lvl == hw->levels - 1)
			first = 0;
		if (first <= last) {
			if (!hw->level_started) {
				hw->idx = calc_index(hw, hw->lvl, first);
				hw->level_started = true;
			}
			end = calc_index(hw, hw->lvl, last) + 1;
			for (hw->idx = tw_slots_find(&hw->slots, hw->idx, end);
			     hw->idx < end;
			     hw->idx = tw_slots_find(&hw->slots, hw->idx + 1,
						     end)) {
				if (!*budget ||
				    !collect_slot(w, hw, hw->lvl, hw->idx, now,
						  expired, budget))
					return false;
			}
		}
		if (same)
			break;
	}
	hw->passing = false;
	return true;
}

/*
 * The first tick that can hold work: at the lowest level with a busy slot
 * ahead of the clock, that slot's first tick (exact at level 0, the
 * migration tick above). Entries at level k are all later than any at a
 * level below, so the first level found gives the answer. The top level of
 * a wheel narrower than 64 bits may also hold later rounds in the slots at
 * or before the clock's digit: the next round's tick of those.
 */
static u64 hier_next(struct tw_wheel *w)
{
	struct hier_wheel *hw = w->priv;
	u32 lvl, digit, idx, base, top = hw->levels - 1;
	u64 above;

	for (lvl = 0; lvl <= top; lvl++) {
		base = calc_index(hw, lvl, 0);
		digit = calc_digit(hw, w->now, lvl);
		above = calc_above(hw, w->now, lvl);
		idx = tw_slots_find(&hw->slots, base + digit + 1,
				    base + hw->mask + 1);
		if (idx <= base + hw->mask)
			return calc_tick(hw, above, lvl, idx - base);
		if (lvl < top || lvl_shift(hw, lvl + 1) >= HIER_TICK_BITS)
			continue;
		/* No round after the last: such entries cannot exist. */
		idx = tw_slots_find(&hw->slots, base, base + digit + 1);
		if (idx <= base + digit && above + 1)
			return calc_tick(hw, above + 1, lvl, idx - base);
	}
	return TW_NEVER;
}

static bool hier_placed_from(struct hier_wheel *hw, const struct tw_entry *e,
			     u32 idx, u64 now)
{
	u32 lvl = calc_level(hw, e->expires, now);

	return calc_index(hw, lvl, calc_digit(hw, e->expires, lvl)) == idx;
}

/*
 * Filed as seen from w->now; during a pass, an entry the pass has moved or
 * that was inserted meanwhile is filed as seen from its target.
 */
static bool hier_placed(struct tw_wheel *w, const struct tw_entry *e,
			u32 idx)
{
	struct hier_wheel *hw = w->priv;

	return hier_placed_from(hw, e, idx, w->now) ||
	       (e->expires > w->target &&
		hier_placed_from(hw, e, idx, w->target));
}

static int hier_check(struct tw_wheel *w)
{
	struct hier_wheel *hw = w->priv;

	return tw_slots_check(&hw->slots, w, hier_placed);
}

const struct tw_ops tw_hierarchical_ops = {
	.name		= "hierarchical",
	.id		= TW_HIERARCHICAL,
	.geometry	= {
		.min = { .levels = 1, .level_bits = 1 },
		.max = { .levels = HIER_MAX_LEVELS,
			 .level_bits = HIER_MAX_BITS },
		.def = { .levels = 6, .level_bits = 11 },
	},
	.check_geometry	= hier_check_geometry,
	.init		= hier_init,
	.destroy	= hier_destroy,
	.insert		= tw_hier_insert,
	.remove		= tw_hier_remove,
	.advance	= hier_advance,
	.next		= hier_next,
	.check		= hier_check,
	.nr_slots	= tw_slots_nr_slots,
	.slot_len	= tw_slots_slot_len,
};
