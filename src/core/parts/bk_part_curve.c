/*
 * bk_part_curve.c
 *	  The learning curve as a part of the model (bk_part.h): the online
 *	  mistakes after 1, 2, 4, ... rows (BkModel.curve), present in every
 *	  version 2 model (doc/format.md, "Learning curve"): u32 n, then n
 *	  u64.  A merged model has none (its history is not one stream).
 */
#include "bk_part.h"

static bool
curve_present(const BkModel *m)
{
	return true;
}

static bool
curve_size(const BkModel *m, size_t *total)
{
	return BkAddSize(*total, 4 + 8 * (size_t) m->curve_n, total);
}

static size_t
curve_max_size(int n_classes)
{
	return 4 + 8 * BK_CURVE_MAX;
}

static void
curve_write(Writer *w, const BkModel *m)
{
	w_u32(w, (uint32_t) m->curve_n);
	for (int i = 0; i < m->curve_n; i++)
		w_u64(w, m->curve[i]);
}

/*
 * None or one point per power of two of rows seen (2^i <= rows_seen),
 * non-decreasing, point i at most 2^i and the last at most the mistakes
 */
static bool
curve_parse(Reader *r, const BkModel *hdr, BkModel *m)
{
	uint32_t	nc;
	int			want = 0;
	uint64_t	prev = 0;

	if (!need(r, 4, "learning curve"))
		return false;
	nc = r_u32(r);
	for (uint64_t v = hdr->rows_seen; v > 0; v >>= 1)
		want++;
	if (nc != 0 && (int) nc != want)
		return BkReadFail(r, "a learning curve of %u points after %llu rows, expected 0 or %d",
						  nc, (unsigned long long) hdr->rows_seen, want);
	if (!need(r, 8 * (size_t) nc, "learning curve"))
		return false;
	for (uint32_t i = 0; i < nc; i++)
	{
		uint64_t	v = r_u64(r);

		if (v > (UINT64_C(1) << i) || v > hdr->mistakes || v < prev)
			return BkReadFail(r, "learning curve point %u (%llu mistakes) is invalid",
							  i, (unsigned long long) v);
		prev = v;
		if (m)
			m->curve[i] = v;
	}
	if (m)
		m->curve_n = (int) nc;
	return true;
}

/* a point of the learning curve at every power of two of rows */
static void
curve_on_counted(BkModel *m)
{
	if ((m->rows_seen & (m->rows_seen - 1)) == 0 && m->curve_n < BK_CURVE_MAX &&
		(UINT64_C(1) << m->curve_n) == m->rows_seen)
		m->curve[m->curve_n++] = m->mistakes;
}

/* no single stream: no learning curve */
static void
curve_merge(BkModel *dst, const BkModel *src)
{
	dst->curve_n = 0;
}

const BkPart BkPartCurve = {
	.name = "learning curve",
	.flag = 0,
	.since = 2,
	.present = curve_present,
	.size = curve_size,
	.max_size = curve_max_size,
	.write = curve_write,
	.parse = curve_parse,
	.on_counted = curve_on_counted,
	.merge = curve_merge,
};
