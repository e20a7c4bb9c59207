/*
 * bk_nearest.c
 *	  Nearest-neighbour bookkeeping for BPA-NN (paper 000 §3.1.3): every SV
 *	  keeps the index of its nearest other SV (Euclidean distance in input
 *	  space, footnote 2) and the squared distance to it, so NN(r) is an O(1)
 *	  look-up.  When an SV is replaced, only the SVs whose neighbour it was
 *	  need a new search (one on average), so the expected cost is O(B).
 *	  Ties go to the lowest index, so the bookkeeping is deterministic.
 */
#include "bk_internal.h"

#include <math.h>
#include <string.h>

void
BkNearestInit(const BkEnv *env, BkMachine *mach, int capacity)
{
	mach->has_nearest = true;
	mach->nearest.idx = BkAllocArray(env, (size_t) capacity, sizeof(int32_t));
	mach->nearest.dist2 = BkAllocArray(env, (size_t) capacity, sizeof(double));
	mach->nearest.rbf_arg = BkAllocArray(env, (size_t) capacity, sizeof(double));
	mach->nearest.rbf = BkAllocArray(env, (size_t) capacity, sizeof(double));
	BkNearestForget(mach, 0, capacity);
}

/* slots [from, to) have no memoised kernel value */
void
BkNearestForget(BkMachine *mach, int from, int to)
{
	for (int r = from; r < to; r++)
		mach->nearest.rbf_arg[r] = NAN;
}

/* the exponent of k(x_r, x_n(r)) for the Gaussian kernel; -inf: no n(r) */
static inline double
rbf_exponent(const BkMachine *mach, double gamma, int r)
{
	return mach->nearest.idx[r] < 0 ? -INFINITY :
		-gamma * mach->nearest.dist2[r];
}

/* slot r's kept value, evaluated again if its exponent changed */
static inline void
rbf_refresh(BkMachine *mach, double gamma, int r)
{
	double		e = rbf_exponent(mach, gamma, r);

	/* NaN (never computed) equals nothing */
	if (e != mach->nearest.rbf_arg[r])
	{
		mach->nearest.rbf_arg[r] = e;
		mach->nearest.rbf[r] = e;
		BkExpArray(&mach->nearest.rbf[r], 1);
	}
}

#ifdef BK_VECTOR_AVX2
/*
 * BkNearestRbf's check of slots r < n (n a multiple of 4), four at a time:
 * rbf_exponent's operations in its order, so the same exponents; a group
 * of four whose exponents are all kept is done, any other is refreshed
 * slot by slot.  A step changes few of them, and the scalar loop ran at
 * about four cycles a slot.
 */
__attribute__((target("avx2")))
static void
rbf_refresh_avx2(BkMachine *mach, double gamma, int n)
{
	const bk_v4d ng = {-gamma, -gamma, -gamma, -gamma};
	const bk_v4d ninf = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
	const bk_v4i none = {0, 0, 0, 0};
	const int32_t *idx = mach->nearest.idx;

	for (int r = 0; r < n; r += 4)
	{
		bk_v4i		nb = {idx[r], idx[r + 1], idx[r + 2], idx[r + 3]};
		bk_v4d		d,
					kept,
					e;
		bk_v4i		same;

		memcpy(&d, mach->nearest.dist2 + r, sizeof(d));
		memcpy(&kept, mach->nearest.rbf_arg + r, sizeof(kept));
		e = BK_BLEND4(nb < none, ninf, ng * d);
		same = e == kept;
		if (same[0] & same[1] & same[2] & same[3])
			continue;
		for (int k = r; k < r + 4; k++)
			rbf_refresh(mach, gamma, k);
	}
}
#endif

/*
 * k(x_r, x_n(r)) = exp(-gamma ||x_r - x_n(r)||^2) for every SV r and its
 * nearest SV n(r) (0 where r has none).  A step changes the neighbour of
 * few SVs, so each value is kept with its exponent and evaluated again
 * only when the exponent changes: the value is exp's of the exponent
 * alone (BkExpArray gives the same value in any slot), so the result is
 * what evaluating all n_sv would give.  At B = 100 on a9a, evaluating them
 * all was about a twentieth of a BPA-NN step.
 */
const double *
BkNearestRbf(BkMachine *mach, double gamma)
{
	int			r0 = 0;

#ifdef BK_VECTOR_AVX2
	if (BkVectorLanes())
	{
		r0 = mach->n_sv - mach->n_sv % 4;
		rbf_refresh_avx2(mach, gamma, r0);
	}
#endif
	for (int r = r0; r < mach->n_sv; r++)
		rbf_refresh(mach, gamma, r);
	return mach->nearest.rbf;
}

#ifdef BK_VECTOR_AVX2
/*
 * BkNearestOf's search over j < n (n a multiple of 4), four SVs at a
 * time: each lane keeps its first minimum as the scalar loop does (an
 * empty lane takes any distance), and the lanes' least distance wins, on a
 * tie the lowest j: the same SV and distance as the scalar loop.
 */
__attribute__((target("avx2")))
static int
nearest_avx2(const double *sqnorm, const double *dots, double sqx,
			 int exclude, int n, double *bestd)
{
	const bk_v4d sx = {sqx, sqx, sqx, sqx};
	const bk_v4d zero = {0.0, 0.0, 0.0, 0.0};
	const bk_v4i four = {4, 4, 4, 4};
	const bk_v4i none = {-1, -1, -1, -1};
	const bk_v4i ex = {exclude, exclude, exclude, exclude};
	bk_v4d		lane_d = zero;
	bk_v4i		lane_j = none;
	bk_v4i		jv = {0, 1, 2, 3};

	for (int j = 0; j < n; j += 4, jv += four)
	{
		bk_v4d		sq,
					dot,
					d;
		bk_v4i		better;

		memcpy(&sq, sqnorm + j, sizeof(sq));
		memcpy(&dot, dots + j, sizeof(dot));
		d = BkDist2x4(dot, sq, sx);
		better = ((lane_j == none) | (d < lane_d)) & (jv != ex);
		lane_d = BK_BLEND4(better, d, lane_d);
		lane_j = (jv & better) | (lane_j & ~better);
	}
	return BkLanesFirstMin(lane_d, lane_j, bestd);
}
#endif

int
BkNearestOf(const BkMachine *mach, const double *dots, double sqx,
			int exclude, double *dist2)
{
	int			best = -1;
	double		bestd = 0.0;
	int			j0 = 0;

#ifdef BK_VECTOR_AVX2
	if (mach->n_sv >= 8 && BkVectorLanes())
	{
		j0 = mach->n_sv - mach->n_sv % 4;
		best = nearest_avx2(mach->sqnorm, dots, sqx, exclude, j0, &bestd);
	}
#endif
	for (int j = j0; j < mach->n_sv; j++)
	{
		double		d;

		if (j == exclude)
			continue;
		d = BkDist2(dots[j], mach->sqnorm[j], sqx);
		if (best < 0 || d < bestd)
		{
			best = j;
			bestd = d;
		}
	}
	*dist2 = bestd;
	return best;
}

/*
 * Search SV j's neighbour again among all the SVs: one BkLinGemv of sv_j
 * against them, O(B d).  work has room for n_sv doubles.
 */
void
BkNearestSearch(BkMachine *mach, int dim, int j, double *work)
{
	BkMachineDots(mach, mach->n_sv, dim, BkSvRow(mach, j), work);
	mach->nearest.idx[j] = BkNearestOf(mach, work, mach->sqnorm[j], j,
									   &mach->nearest.dist2[j]);
}

/* SV j at squared distance d becomes SV i's neighbour if it is nearer */
static inline void
offer(BkMachine *mach, int i, int j, double d)
{
	if (mach->nearest.idx[i] < 0 || d < mach->nearest.dist2[i])
	{
		mach->nearest.idx[i] = j;
		mach->nearest.dist2[i] = d;
	}
}

/*
 * The SV at slot n = n_sv - 1 was just appended; dots[j] = sv_n . sv_j for
 * the older SVs j < n.
 */
void
BkNearestOnAppend(BkMachine *mach, const double *dots)
{
	int			n = mach->n_sv - 1;

	mach->nearest.idx[n] = -1;
	mach->nearest.dist2[n] = 0.0;
	for (int j = 0; j < n; j++)
	{
		double		d = BkDist2(dots[j], mach->sqnorm[j], mach->sqnorm[n]);

		offer(mach, n, j, d);
		offer(mach, j, n, d);
	}
}

/*
 * Slot r now holds a new vector; dots[j] = new . sv_j for j != r (computed
 * before the replacement).  work has room for n_sv doubles.
 */
void
BkNearestOnReplace(const BkEnv *env, BkMachine *mach, int dim, int r,
				   const double *dots, double *work)
{
	int			n = mach->n_sv;
	double		sqr = mach->sqnorm[r];
	int32_t    *idx = mach->nearest.idx;
	double	   *dist2 = mach->nearest.dist2;

	idx[r] = -1;
	dist2[r] = 0.0;
	for (int j = 0; j < n; j++)
	{
		double		d;

		if (j == r)
			continue;
		d = BkDist2(dots[j], mach->sqnorm[j], sqr);
		offer(mach, r, j, d);
		if (idx[j] == r)
			idx[j] = -2;		/* its neighbour was removed: search again */
		else
			offer(mach, j, r, d);
	}

	for (int j = 0; j < n; j++)
	{
		if (idx[j] != -2)
			continue;
		BkNearestSearch(mach, dim, j, work);
		BkCheckInterrupts(env);
	}
}

/*
 * Remove SV r (the last SV moves into its slot, as BkMachineRemove does)
 * and repair the cache: the SVs whose neighbour r was search again, and
 * references to the moved SV follow it.  work has room for n_sv doubles.
 */
void
BkNearestRemove(const BkEnv *env, BkMachine *mach, int dim, int r,
				double *work)
{
	int			last = mach->n_sv - 1;
	int32_t    *idx = mach->nearest.idx;
	double	   *dist2 = mach->nearest.dist2;

	for (int j = 0; j <= last; j++)
		if (idx[j] == r)
			idx[j] = -2;		/* its neighbour is removed: search again */
	if (r != last)
	{
		idx[r] = idx[last];
		dist2[r] = dist2[last];
	}
	BkMachineRemove(mach, dim, r);
	for (int j = 0; j < mach->n_sv; j++)
		if (idx[j] == last)
			idx[j] = r;
	for (int j = 0; j < mach->n_sv; j++)
	{
		if (idx[j] != -2)
			continue;
		BkNearestSearch(mach, dim, j, work);
		BkCheckInterrupts(env);
	}
}
