/*
 * bk_merge_pair.c
 *	  Where to merge one pair of SVs (paper 004 §4.3, eq. 20-22): the h of
 *	  z = h x_m + (1 - h) x_n that keeps the most of the two SVs' weight,
 *	  for the Gaussian kernel.  bk_merge.c chooses the partner and applies
 *	  the merge; this file searches h for one pair, or for four pairs at a
 *	  time in AVX2 lanes with the same bits (BkMergePairs): Newton's
 *	  method where it is safe, the golden-section search elsewhere.
 *
 *	  The gain of merging at h is S(h) = aa e1^2 + bb e2^2 + 2 ab e1 e2,
 *	  e1 = k(x_m, z) = exp(-L (1-h)^2), e2 = k(x_n, z) = exp(-L h^2),
 *	  L = gamma ||x_m - x_n||^2, where aa, bb and ab are the sums over the
 *	  classes of alpha_m^2, alpha_n^2 and alpha_m alpha_n; the degradation
 *	  (eq. 14) is aa + bb + 2 ab k_mn - S(h).
 */
#include "bk_internal.h"

#include <math.h>
#include <string.h>
#ifdef BK_VECTOR_AVX2
#include <immintrin.h>
#endif

/*
 * Golden-section steps: each shrinks the interval of h by 0.618, so 18
 * leave 0.618^18 = 1.7e-4 and the midpoint is within 9e-5 of the search's
 * optimum (BudgetedSVM stops at 1e-4).  Used only where Newton's method
 * below is not safe.
 */
#define GOLDEN_STEPS 18

/* Newton's method stops when a step moves h by less than this. */
#define NEWTON_TOL 1e-9
#define NEWTON_MAX_STEPS 40

/*
 * The gain S(h) = aa e1^2 + bb e2^2 + 2 ab e1 e2 of merging at h, with
 * e1 = k(x_m, z) = exp(-L (1-h)^2), e2 = k(x_n, z) = exp(-L h^2) and
 * L = gamma d2.
 */
static double
gain(double L, double aa, double bb, double ab, double h)
{
	double		e1 = BkExp(-L * (1.0 - h) * (1.0 - h));
	double		e2 = BkExp(-L * h * h);

	return e1 * e1 * aa + 2.0 * e1 * e2 * ab + e2 * e2 * bb;
}

/* Golden-section search for the largest gain on [lo, hi]; returns its h. */
static double
golden(double L, double aa, double bb, double ab, double lo, double hi)
{
	const double invphi = 0.6180339887498949;
	double		x1 = hi - invphi * (hi - lo),
				x2 = lo + invphi * (hi - lo),
				g1 = gain(L, aa, bb, ab, x1),
				g2 = gain(L, aa, bb, ab, x2);

	for (int it = 0; it < GOLDEN_STEPS; it++)
	{
		if (g1 >= g2)
		{
			hi = x2;
			x2 = x1;
			g2 = g1;
			x1 = hi - invphi * (hi - lo);
			g1 = gain(L, aa, bb, ab, x1);
		}
		else
		{
			lo = x1;
			x1 = x2;
			g1 = g2;
			x2 = lo + invphi * (hi - lo);
			g2 = gain(L, aa, bb, ab, x2);
		}
	}
	return 0.5 * (lo + hi);
}

/* whether BkMergePair takes Newton's method (see there) */
static inline bool
newton_applies(double L, double kmn, double aa, double bb, double ab)
{
	double		den = aa + bb + 2.0 * ab;

	return L > 0.0 && L <= 2.0 && den > 0.0 &&
		aa * kmn + ab > 0.0 && bb * kmn + ab > 0.0;
}

/* Newton's first point: h0, or 1/2 where h0 is not inside (0, 1) */
static inline double
newton_start(double aa, double bb, double ab)
{
	double		x = (aa + ab) / (aa + bb + 2.0 * ab);

	return x > 0.0 && x < 1.0 ? x : 0.5;
}

/*
 * The golden-section search's outcome, x of gain g, against the two ends,
 * whose gains need no exp(): returns the degradation and sets *h
 */
static double
golden_ends(double L, double kmn, double aa, double bb, double ab, double x, double g,
			double *h)
{
	double		g0 = aa * kmn * kmn + bb + 2.0 * ab * kmn,
				g1 = aa + bb * kmn * kmn + 2.0 * ab * kmn,
				best = g;

	if (g0 > best && g0 >= g1)
	{
		x = 0.0;
		best = g0;
	}
	else if (g1 > best)
	{
		x = 1.0;
		best = g1;
	}
	*h = x;
	return aa + bb + 2.0 * ab * kmn - best;
}

/*
 * Best h for merging two SVs whose coefficient sums are aa = sum a^2,
 * bb = sum b^2, ab = sum a b, at L = gamma ||x_m - x_n||^2 (kmn =
 * exp(-L)); returns the degradation and sets *h.
 *
 * With P = aa e1^2, Q = bb e2^2, R = ab e1 e2 the derivatives of the gain
 * are
 *     S'(h)  = 4L [(1-h) P - h Q + (1-2h) R]
 *     S''(h) = 4L [P (4L (1-h)^2 - 1) + Q (4L h^2 - 1) + R (2L (1-2h)^2 - 2)]
 * and at the ends they cost no exp(): S'(0) = 4L k (aa k + ab) and
 * S'(1) = -4L k (bb k + ab), k = k_mn.  When S' is positive at 0 and
 * negative at 1 a maximum lies inside, and Newton's method on S' = 0,
 * kept inside a bracket that halves when a step would leave it, finds it
 * to 1e-9 in 2-4 steps from h0 = (aa + ab) / (aa + bb + 2 ab) (the
 * maximum's limit as L -> 0; for one class h0 = a / (a + b), the usual
 * first guess) - 2 exp() a step where the golden-section search takes 40
 * for 1e-4.  When L <= 2 (k_mn >= e^-2) and one class has coefficients of
 * one sign, the gain a e1 + b e2 is a sum of two Gaussians in h, of
 * variance 1 / (2L), 1 apart, and is unimodal: this maximum is then the
 * only one.  Otherwise (the ends' slopes do not bracket a maximum, or far
 * pairs that the bound usually prunes) the golden-section search runs as
 * before.
 */
double
BkMergePair(double L, double kmn, double aa, double bb, double ab, double *h)
{
	double		lo = 0.0,
				hi = 1.0,
				x,
				best = 0.0;

	if (!newton_applies(L, kmn, aa, bb, ab))
	{
		x = golden(L, aa, bb, ab, lo, hi);
		return golden_ends(L, kmn, aa, bb, ab, x, gain(L, aa, bb, ab, x), h);
	}
	else
	{
		x = newton_start(aa, bb, ab);
		for (int it = 0; it < NEWTON_MAX_STEPS; it++)
		{
			double		e1 = BkExp(-L * (1.0 - x) * (1.0 - x));
			double		e2 = BkExp(-L * x * x);
			double		P = aa * e1 * e1,
						Q = bb * e2 * e2,
						R = ab * e1 * e2;
			double		g = (1.0 - x) * P - x * Q + (1.0 - 2.0 * x) * R;
			double		c = P * (4.0 * L * (1.0 - x) * (1.0 - x) - 1.0) +
				Q * (4.0 * L * x * x - 1.0) +
				R * (2.0 * L * (1.0 - 2.0 * x) * (1.0 - 2.0 * x) - 2.0);
			double		next;

			best = P + Q + 2.0 * R;
			if (g > 0.0)
				lo = x;
			else if (g < 0.0)
				hi = x;
			else
				break;
			next = c < 0.0 ? x - g / c : 0.5 * (lo + hi);
			if (!(next > lo && next < hi))
				next = 0.5 * (lo + hi);
			/* x is then within about NEWTON_TOL of the maximum */
			if (fabs(next - x) < NEWTON_TOL || hi - lo < NEWTON_TOL)
				break;
			x = next;
		}
	}
	*h = x;
	return aa + bb + 2.0 * ab * kmn - best;
}

#ifdef BK_VECTOR_AVX2
/*
 * BkMergePair's Newton loop in four lanes, for the lanes set in live:
 * each lane the scalar loop's expressions in its order, its exp()s
 * BkExp4's (BkExp's bits), and a lane leaves the loop where the scalar
 * loop would break, keeping its h and gain; the loop ends when every lane
 * has left, or after NEWTON_MAX_STEPS, as the scalar one.  Sets each live
 * lane's h and best gain.
 */
__attribute__((target("avx2")))
static void
newton_lanes(const double *L4, double aa1, const double *bb4, const double *ab4,
			 const double *x4, const long long *live4, double *h4, double *gain4)
{
	const bk_v4d zero = {0.0, 0.0, 0.0, 0.0},
				half = {0.5, 0.5, 0.5, 0.5},
				one = {1.0, 1.0, 1.0, 1.0},
				two = {2.0, 2.0, 2.0, 2.0},
				four = {4.0, 4.0, 4.0, 4.0},
				tol = {NEWTON_TOL, NEWTON_TOL, NEWTON_TOL, NEWTON_TOL};
	const bk_v4u nosign = {0x7fffffffffffffffULL, 0x7fffffffffffffffULL,
	0x7fffffffffffffffULL, 0x7fffffffffffffffULL};
	const bk_v4d aa = {aa1, aa1, aa1, aa1};
	bk_v4d		L,
				bb,
				ab,
				x,
				lo = zero,
				hi = one,
				best = zero;
	bk_v4i		live;

	memcpy(&L, L4, sizeof(L));
	memcpy(&bb, bb4, sizeof(bb));
	memcpy(&ab, ab4, sizeof(ab));
	memcpy(&x, x4, sizeof(x));
	memcpy(&live, live4, sizeof(live));

	for (int it = 0; it < NEWTON_MAX_STEPS; it++)
	{
		bk_v4d		e1 = BkExp4(-L * (one - x) * (one - x));
		bk_v4d		e2 = BkExp4(-L * x * x);
		bk_v4d		P = aa * e1 * e1,
					Q = bb * e2 * e2,
					R = ab * e1 * e2;
		bk_v4d		g = (one - x) * P - x * Q + (one - two * x) * R;
		bk_v4d		c = P * (four * L * (one - x) * (one - x) - one) +
			Q * (four * L * x * x - one) +
			R * (two * L * (one - two * x) * (one - two * x) - two);
		bk_v4d		next;
		bk_v4i		up = g > zero,
					down = g < zero,
					inside;

		best = BK_BLEND4(live, P + Q + two * R, best);
		lo = BK_BLEND4(live & up, x, lo);
		hi = BK_BLEND4(live & down, x, hi);
		/* g = 0 (or NaN): the scalar loop breaks here */
		live &= up | down;
		next = BK_BLEND4(c < zero, x - g / c, half * (lo + hi));
		inside = (next > lo) & (next < hi);
		next = BK_BLEND4(inside, next, half * (lo + hi));
		live &= ~(((bk_v4d) ((bk_v4u) (next - x) & nosign) < tol) | (hi - lo < tol));
		x = BK_BLEND4(live, next, x);
		if (_mm256_testz_si256((__m256i) live, (__m256i) live))
			break;
	}
	memcpy(h4, &x, sizeof(x));
	memcpy(gain4, &best, sizeof(best));
}

/* gain() in four lanes, in its order of operations */
__attribute__((target("avx2")))
static inline bk_v4d
gain_lanes(bk_v4d L, bk_v4d aa, bk_v4d bb, bk_v4d ab, bk_v4d h)
{
	const bk_v4d one = {1.0, 1.0, 1.0, 1.0},
				two = {2.0, 2.0, 2.0, 2.0};
	bk_v4d		e1 = BkExp4(-L * (one - h) * (one - h));
	bk_v4d		e2 = BkExp4(-L * h * h);

	return e1 * e1 * aa + two * e1 * e2 * ab + e2 * e2 * bb;
}

/*
 * golden() on [0, 1] in four lanes, each the scalar loop's steps in its
 * order (the branch a blend: both new points computed, the lane's
 * taken), every lane GOLDEN_STEPS of them as the scalar loop takes; sets
 * each lane's h and its gain there
 */
__attribute__((target("avx2")))
static void
golden_lanes(const double *L4, double aa1, const double *bb4, const double *ab4,
			 double *h4, double *gain4)
{
	const bk_v4d zero = {0.0, 0.0, 0.0, 0.0},
				half = {0.5, 0.5, 0.5, 0.5},
				one = {1.0, 1.0, 1.0, 1.0};
	const double invphi1 = 0.6180339887498949;
	const bk_v4d invphi = {invphi1, invphi1, invphi1, invphi1};
	const bk_v4d aa = {aa1, aa1, aa1, aa1};
	bk_v4d		L,
				bb,
				ab,
				lo = zero,
				hi = one,
				x1,
				x2,
				g1,
				g2,
				h;

	memcpy(&L, L4, sizeof(L));
	memcpy(&bb, bb4, sizeof(bb));
	memcpy(&ab, ab4, sizeof(ab));
	x1 = hi - invphi * (hi - lo);
	x2 = lo + invphi * (hi - lo);
	g1 = gain_lanes(L, aa, bb, ab, x1);
	g2 = gain_lanes(L, aa, bb, ab, x2);
	for (int it = 0; it < GOLDEN_STEPS; it++)
	{
		/* left: the maximum lies in [lo, x2]; else in [x1, hi] */
		bk_v4i		left = g1 >= g2;
		bk_v4d		nhi = BK_BLEND4(left, x2, hi),
					nlo = BK_BLEND4(left, lo, x1),
					at = BK_BLEND4(left, nhi - invphi * (nhi - nlo),
							   nlo + invphi * (nhi - nlo)),
					g = gain_lanes(L, aa, bb, ab, at),
					nx1 = BK_BLEND4(left, at, x2),
					ng1 = BK_BLEND4(left, g, g2),
					nx2 = BK_BLEND4(left, x1, at),
					ng2 = BK_BLEND4(left, g1, g);

		hi = nhi;
		lo = nlo;
		x1 = nx1;
		g1 = ng1;
		x2 = nx2;
		g2 = ng2;
	}
	h = half * (lo + hi);
	g1 = gain_lanes(L, aa, bb, ab, h);
	memcpy(h4, &h, sizeof(h));
	memcpy(gain4, &g1, sizeof(g1));
}

#endif

/*
 * BkMergePair of n <= 4 pairs of one SV m (the same aa) with partners of
 * sums bb[i], ab[i] at L[i], kmn[i]: d[i] and h[i] the same bits as
 * BkMergePair's.  Where the lane paths run, the pairs that take Newton's
 * method take it together in AVX2 lanes (two exp() a step for four
 * pairs instead of one), and so do those that take the golden-section
 * search, two or more of them (golden_lanes); a single one takes
 * BkMergePair.
 */
void
BkMergePairs(int n, const double *L, const double *kmn, double aa,
			 const double *bb, const double *ab, double *d, double *h)
{
#ifdef BK_VECTOR_AVX2
	if (n >= 2 && n <= 4 && BkVectorLanes())
	{
		double		x0[4] = {0.5, 0.5, 0.5, 0.5},
					Lv[4] = {0.0, 0.0, 0.0, 0.0},
					bv[4] = {0.0, 0.0, 0.0, 0.0},
					av[4] = {0.0, 0.0, 0.0, 0.0};
		long long	lv[4] = {0, 0, 0, 0};
		int			lanes = 0,
					searched = 0;

		for (int i = 0; i < n; i++)
			if (newton_applies(L[i], kmn[i], aa, bb[i], ab[i]))
			{
				lv[i] = -1;
				x0[i] = newton_start(aa, bb[i], ab[i]);
				Lv[i] = L[i];
				bv[i] = bb[i];
				av[i] = ab[i];
				lanes++;
			}
			else
				searched++;
		if (searched == 1)
		{
			for (int i = 0; i < n; i++)
				if (!lv[i])
					d[i] = BkMergePair(L[i], kmn[i], aa, bb[i], ab[i], &h[i]);
		}
		else if (searched > 1)
		{
			/* the golden-section searches together (lanes of Newton's idle) */
			double		Lg[4] = {0.0, 0.0, 0.0, 0.0},
						bg[4] = {0.0, 0.0, 0.0, 0.0},
						ag[4] = {0.0, 0.0, 0.0, 0.0},
						hg[4],
						gg[4];

			for (int i = 0; i < n; i++)
				if (!lv[i])
				{
					Lg[i] = L[i];
					bg[i] = bb[i];
					ag[i] = ab[i];
				}
			golden_lanes(Lg, aa, bg, ag, hg, gg);
			for (int i = 0; i < n; i++)
				if (!lv[i])
					d[i] = golden_ends(L[i], kmn[i], aa, bb[i], ab[i], hg[i], gg[i], &h[i]);
		}
		if (lanes > 0)
		{
			double		hv[4],
						gv[4];

			newton_lanes(Lv, aa, bv, av, x0, lv, hv, gv);
			for (int i = 0; i < n; i++)
				if (lv[i])
				{
					h[i] = hv[i];
					d[i] = aa + bb[i] + 2.0 * ab[i] * kmn[i] - gv[i];
				}
		}
		return;
	}
#endif
	for (int i = 0; i < n; i++)
		d[i] = BkMergePair(L[i], kmn[i], aa, bb[i], ab[i], &h[i]);
}
