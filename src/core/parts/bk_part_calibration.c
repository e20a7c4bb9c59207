/*
 * bk_part_calibration.c
 *	  The calibration as a part of the model (bk_part.h): Platt's (A, B) of
 *	  each class (bk_calibrate.c), the section of flag bit 3
 *	  (doc/format.md, "Calibration"): f64 (A, B) per class, in class order.
 *	  Learning a row, a new class or a merge changes the scores, so each
 *	  drops it.
 */
#include "bk_part.h"

#include <math.h>

static bool
calibration_present(const BkModel *m)
{
	return m->platt != NULL;
}

static bool
calibration_size(const BkModel *m, size_t *total)
{
	return BkAddSize(*total, 16 * (size_t) m->n_classes, total);
}

/* two doubles per class */
static size_t
calibration_max_size(int n_classes)
{
	return 16 * (size_t) (n_classes > 0 ? n_classes : 1);
}

static void
calibration_write(Writer *w, const BkModel *m)
{
	w_f64s(w, m->platt, 2 * (size_t) m->n_classes);
}

/* Platt's (A, B) of each class: finite, for two classes or more */
static bool
calibration_parse(Reader *r, const BkModel *hdr, BkModel *m)
{
	size_t		n = 2 * (size_t) hdr->n_classes;

	if (hdr->n_classes < 2)
		return BkReadFail(r, "a calibration of %d class", hdr->n_classes);
	if (!need(r, 8 * n, "calibration"))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(bits_to_double(get_u64(r->buf + r->pos + 8 * i))) &&
			!BkReadFailValue(r, "calibration value %zu is not finite", i))
			return false;
	if (m)
		m->platt = BkAllocArray(&m->env, n, sizeof(double));
	return BkReadF64s(r, m ? m->platt : NULL, n, "calibration");
}

/* trained further, with a new class, or merged: the scores change */
static void
calibration_clear(BkModel *m)
{
	BkModelClearCalibration(m);
}

static void
calibration_merge_early(BkModel *dst, BkModel *src)
{
	/* the merged scores are new: a calibration of either side no longer holds */
	BkModelClearCalibration(dst);
}

static void
calibration_permute(BkModel *m, const int *perm)
{
	int			n = m->n_classes;
	double	   *pl;

	if (m->platt == NULL)
		return;
	pl = BkAllocArray(&m->env, 2 * (size_t) n, sizeof(double));
	for (int i = 0; i < n; i++)
	{
		pl[2 * i] = m->platt[2 * perm[i]];
		pl[2 * i + 1] = m->platt[2 * perm[i] + 1];
	}
	memcpy(m->platt, pl, sizeof(double) * 2 * (size_t) n);
	BkFree(&m->env, pl);
}

const BkPart BkPartCalibration = {
	.name = "calibration",
	.flag = 0x8,
	.flag_name = "calibration",
	.since = 2,
	.present = calibration_present,
	.size = calibration_size,
	.max_size = calibration_max_size,
	.write = calibration_write,
	.parse = calibration_parse,
	.on_learn = calibration_clear,
	.on_new_class = calibration_clear,
	.permute = calibration_permute,
	.merge_early = calibration_merge_early,
	.free = calibration_clear,
};
