/*
 * bk_part_target.c
 *	  A regressor's target as a part of the model (bk_part.h, bk_target.c),
 *	  the section of flag bit 6 (doc/format.md, "Target"): u32 mode, u32 n,
 *	  then f64 mean, sd, squared error, absolute error, the learned
 *	  targets' mean and their sum of squared deviations, then the learning
 *	  curve of the squared error: n f64, the squared error after 1, 2, 4,
 *	  ... rows (n = 0 for a merged regressor, as the mistakes' curve of
 *	  bk_part_curve.c).  Its flag makes the model a regressor: no classes,
 *	  one machine, the parameters of regression.
 */
#include "bk_part.h"
#include "bk_target.h"

#include <math.h>
#include <string.h>

#define TARGET_BYTES (8 + 6 * 8)

static bool
target_present(const BkModel *m)
{
	return m->target != NULL;
}

static bool
target_size(const BkModel *m, size_t *total)
{
	return BkAddSize(*total, TARGET_BYTES + 8 * (size_t) m->target->sq_curve_n, total);
}

static size_t
target_max_size(int n_classes)
{
	return TARGET_BYTES + 8 * BK_CURVE_MAX;
}

static void
target_write(Writer *w, const BkModel *m)
{
	const BkTarget *t = m->target;
	double		v[6] = {t->mean, t->sd, t->sq_error, t->abs_error,
	t->seen_mean, t->seen_m2};

	w_u32(w, (uint32_t) t->mode);
	w_u32(w, (uint32_t) t->sq_curve_n);
	w_f64s(w, v, 6);
	w_f64s(w, t->sq_curve, t->sq_curve_n);
}

/*
 * The curve of n points at r: none, or one per power of two of rows seen
 * (as the mistakes' curve), non-negative, non-decreasing and the last at
 * most the squared error (sq); into curve when not NULL.
 */
static bool
sq_curve_parse(Reader *r, const BkModel *hdr, uint32_t n, double sq, double *curve)
{
	int			want = 0;
	double		prev = 0.0;

	for (uint64_t v = hdr->rows_seen; v > 0; v >>= 1)
		want++;
	if (n != 0 && (int) n != want)
		return BkReadFail(r, "a squared-error curve of %u points after %llu rows, expected 0 or %d",
						  n, (unsigned long long) hdr->rows_seen, want);
	if (!need(r, 8 * (size_t) n, "squared-error curve"))
		return false;
	for (uint32_t i = 0; i < n; i++)
	{
		double		v = bits_to_double(get_u64(r->buf + r->pos + 8 * (size_t) i));

		if (!(v >= prev && v <= sq) &&
			!BkReadFailValue(r, "squared-error curve point %u (%g) is invalid", i, v))
			return false;
		prev = v;
	}
	return BkReadF64s(r, curve, n, "squared-error curve");
}

/*
 * A regressor: no classes (the framing checked the rest: parse_counters);
 * a known mode; without standardisation mean 0 and sd 1 exactly; the
 * values finite, sd positive, the sums non-negative; its curve.
 */
static bool
target_parse(Reader *r, const BkModel *hdr, BkModel *m)
{
	uint32_t	mode,
				n;
	double		v[6];
	double		curve[BK_CURVE_MAX];

	if (!need(r, TARGET_BYTES, "target"))
		return false;
	mode = r_u32(r);
	n = r_u32(r);
	if (mode != BK_TARGET_NONE && mode != BK_TARGET_STANDARD)
		return BkReadFail(r, "target mode %u is invalid", mode);
	for (int i = 0; i < 6; i++)
		v[i] = bits_to_double(get_u64(r->buf + r->pos + 8 * (size_t) i));
	if (mode == BK_TARGET_NONE && (v[0] != 0.0 || v[1] != 1.0))
		return BkReadFail(r, "a target not standardised has mean %g and sd %g, expected 0 and 1",
						  v[0], v[1]);
	if (!(v[1] > 0.0) && !BkReadFailValue(r, "the target's sd %g is not positive", v[1]))
		return false;
	for (int i = 2; i < 6; i++)
		if (i != 4 && !(v[i] >= 0.0) &&
			!BkReadFailValue(r, "target value %d (%g) is negative", i, v[i]))
			return false;
	if (!BkReadF64s(r, NULL, 6, "target") ||
		!sq_curve_parse(r, hdr, n, v[2], curve))
		return false;
	if (m)
	{
		BkTarget   *t = BkAllocArray(&m->env, 1, sizeof(BkTarget));

		t->mode = (int) mode;
		t->mean = v[0];
		t->sd = v[1];
		t->sq_error = v[2];
		t->abs_error = v[3];
		t->seen_mean = v[4];
		t->seen_m2 = v[5];
		memcpy(t->sq_curve, curve, 8 * (size_t) n);
		t->sq_curve_n = (int) n;
		m->target = t;
	}
	return true;
}

/* merging two regressors (the model refuses a classifier): standardised alike */
static void
target_merge_check(const BkModel *a, const BkModel *b)
{
	if (a->target && b->target && a->target->mode != b->target->mode)
		BkRaiseHint(&a->env, BK_ERR_PARAM, NULL,
					"Train both with the same \"target_scale\".",
					"cannot merge a regressor that standardises its target with one that does not");
}

/* the merged target, each side's coefficients rescaled to it (bk_target.c) */
static void
target_merge_early(BkModel *dst, BkModel *src)
{
	uint64_t	t = dst->rows_seen + src->rows_seen;

	if (dst->target == NULL)
		return;
	/* no single stream: no curve */
	dst->target->sq_curve_n = 0;
	BkTargetPool(dst, src,
				 t > 0 ? (double) dst->rows_seen / (double) t : 0.5,
				 t > 0 ? (double) src->rows_seen / (double) t : 0.5);
}

/* a point of the squared error's curve at every power of two of rows */
static void
target_on_counted(BkModel *m)
{
	BkTarget   *t = m->target;

	if (t != NULL && (m->rows_seen & (m->rows_seen - 1)) == 0 &&
		t->sq_curve_n < BK_CURVE_MAX && (UINT64_C(1) << t->sq_curve_n) == m->rows_seen)
		t->sq_curve[t->sq_curve_n++] = t->sq_error;
}

const BkPart BkPartTarget = {
	.name = "target",
	.flag = 0x40,
	.flag_name = "target",
	.since = 2,
	.present = target_present,
	.size = target_size,
	.max_size = target_max_size,
	.write = target_write,
	.parse = target_parse,
	.on_counted = target_on_counted,
	.merge_check = target_merge_check,
	.merge_early = target_merge_early,
	.free = BkTargetFree,
};
