/*
 * bk_merge.c
 *	  Budget maintenance by merging two SVs into one (paper 004 §4.3), for
 *	  the Gaussian kernel k(x, x') = exp(-gamma ||x - x'||^2).
 *
 *	  Merging SVs m and n of a multi-class expansion replaces
 *	  alpha_m Phi(x_m) + alpha_n Phi(x_n) (one coefficient per class i) by
 *	  alpha_z Phi(z).  The paper's objective is the weight degradation
 *	  (eq. 14):
 *	      sum_i || alpha_m^(i) Phi(x_m) + alpha_n^(i) Phi(x_n) - alpha_z^(i) Phi(z) ||^2.
 *	  The best z lies on the line z = h x_m + (1 - h) x_n (eq. 20), and for
 *	  a given z the best coefficients are
 *	      alpha_z^(i) = alpha_m^(i) k(x_m, z) + alpha_n^(i) k(x_n, z)   (eq. 22)
 *	  with k(x_m, z) = k_mn^((1-h)^2) and k(x_n, z) = k_mn^(h^2).  The
 *	  degradation is then
 *	      sum_i (alpha_m^2 + alpha_n^2 + 2 alpha_m alpha_n k_mn)
 *	      - sum_i (alpha_m^(i) k_mn^((1-h)^2) + alpha_n^(i) k_mn^(h^2))^2,
 *	  so h maximises the second sum on [0, 1]: found by Newton's method
 *	  where the gain has a single maximum there, by golden-section search
 *	  otherwise (BkMergePair, bk_merge_pair.c).  (Eq. 21 as printed first normalises each class by
 *	  alpha_m^(i) + alpha_n^(i), which is undefined when the two cancel, as
 *	  they do for SVs of opposite classes; minimising eq. 14 directly gives
 *	  the same z when one class dominates and stays defined otherwise.)
 *
 *	  Both kernel factors are the same for every class, so after O(K) sums
 *	  each step of the search costs O(1), and choosing the partner n among
 *	  all SVs costs O(B (K + steps)).
 */
#include "bk_internal.h"

#include <math.h>
#include <string.h>
#ifdef BK_VECTOR_AVX2
#include <immintrin.h>
#endif

/*
 * A lower bound of the degradation of merging a pair at kernel value k =
 * k_mn, whatever h: with e1 = k^((1-h)^2), e2 = k^(h^2) the gain is
 * S(h) = aa e1^2 + bb e2^2 + 2 ab e1 e2, and on [0, 1]
 *   - for h <= 1/2, e1^2 <= sqrt(k) and e2^2 <= 1 (the other way round for
 *     h >= 1/2), so aa e1^2 + bb e2^2 <= max(aa sqrt(k) + bb, aa + bb sqrt(k));
 *   - (1-h)^2 + h^2 lies in [1/2, 1], so e1 e2 lies in [k, sqrt(k)]: the
 *     cross term is at most 2 ab sqrt(k) (ab >= 0) or 2 ab k (ab < 0).
 * The degradation aa + bb + 2 ab k - S(h) is then at least this.  A
 * partner far from x_m (k near 0) has a bound near min(aa, bb), which the
 * best near partner usually beats.
 */
static inline double
degradation_bound(double k, double sk, double aa, double bb, double ab)
{
	double		s = aa * sk + bb > aa + bb * sk ? aa * sk + bb : aa + bb * sk;

	s += ab >= 0.0 ? 2.0 * ab * sk : 2.0 * ab * k;
	return aa + bb + 2.0 * ab * k - s;
}

/*
 * A lower bound for a near pair (small L) whose classes agree (ab >= 0),
 * where the bound above is near 0 and prunes nothing: every degradation
 * there is O(L^2), so the bound must be exact to second order in L.
 *
 * With a = sqrt(aa), b = sqrt(bb), ab <= a b (Cauchy-Schwarz), so S(h) <=
 * f(h)^2 with f = a e1 + b e2, equal when the two SVs' coefficient vectors
 * are parallel (always so for two classes).  e^-x <= 1 - x + x^2 / 2 for
 * x >= 0 gives
 *     f(h) <= (a + b) - L g1(h) + (L^2 / 2) g2(h),
 *     g1 = a (1-h)^2 + b h^2 = g1* + (a + b) (h - h0)^2,
 *         h0 = a / (a + b), g1* = a b / (a + b),
 *     g2 = a (1-h)^4 + b h^4, with g2'' <= 12 max(a, b) on [0, 1].
 * With d = h - h0, g2(h) <= g2(h0) + g2'(h0) d + 6 max(a, b) d^2, so
 *     f(h) <= (a + b) - L g1* + (L^2 / 2) g2(h0) + e d - c d^2,
 *     e = (L^2 / 2) g2'(h0), c = L (a + b) - 3 L^2 max(a, b),
 * and for c > 0 the right side is at most U = (a + b) - L g1* +
 * (L^2 / 2) g2(h0) + e^2 / (4 c) for every h.  The degradation is then at
 * least aa + bb + 2 ab k - U^2: no exp() beyond k's.  What it leaves out is
 * the x^3 / 6 of each exponential, so it is within O(L^3) of the true
 * degradation for partners of similar coefficients, looser when one SV's
 * coefficients are many times the other's.
 */
static inline double
near_degradation_bound(double L, double k, double a, double aa, double b,
					   double bb, double ab)
{
	double		s = a + b,
				h0 = a / s,
				u = 1.0 - h0,
				g1s = a * b / s,
				g2 = a * u * u * u * u + b * h0 * h0 * h0 * h0,
				g2d = 4.0 * (b * h0 * h0 * h0 - a * u * u * u),
				c = L * (s - 3.0 * L * (a > b ? a : b)),
				e = 0.5 * L * L * g2d,
				U;

	if (!(c > 0.0))
		return 0.0;
	U = s - L * g1s + 0.5 * L * L * g2 + e * e / (4.0 * c);
	return aa + bb + 2.0 * ab * k - U * U;
}

/*
 * A lower bound for a pair of opposite classes (ab < 0), from k_mn alone.
 * With a = sqrt(aa), b = sqrt(bb) and rho = -ab / (a b) in [0, 1]
 * (Cauchy-Schwarz), the gain splits as
 *     S(h) = rho (a e1 - b e2)^2 + (1 - rho) (aa e1^2 + bb e2^2).
 * a e1 - b e2 increases with h (its derivative is 2L (a (1-h) e1 + b h e2)),
 * from a k - b to a - b k, so its square is largest at an end; the second
 * part is bounded as in degradation_bound.  For two classes the
 * coefficient vectors are opposite (rho = 1) and the bound is the exact
 * minimum, the better end: the golden-section search then finds nothing
 * better.
 */
static inline double
opposite_degradation_bound(double k, double sk, double a, double aa, double b,
						   double bb, double ab)
{
	double		g0 = a * k - b,
				g1 = a - b * k,
				ends = g0 * g0 > g1 * g1 ? g0 * g0 : g1 * g1,
				rest = aa * sk + bb > aa + bb * sk ? aa * sk + bb : aa + bb * sk,
				rho;

	if (!(a * b > 0.0))
		return 0.0;
	rho = -ab / (a * b);
	if (rho > 1.0)
		rho = 1.0;				/* rounding: S <= (a e1 - b e2)^2 still */
	return aa + bb + 2.0 * ab * k - (rho * ends + (1.0 - rho) * rest);
}

/* the larger of the bounds above; a = sqrt(aa), b = sqrt(bb) */
static inline double
pair_bound(double L, double k, double a, double aa, double b, double bb,
		   double ab)
{
	double		sk = sqrt(k),
				d = degradation_bound(k, sk, aa, bb, ab),
				nd = ab >= 0.0 ? near_degradation_bound(L, k, a, aa, b, bb, ab) :
				opposite_degradation_bound(k, sk, a, aa, b, bb, ab);

	return nd > d ? nd : d;
}

/*
 * A lower bound of the degradation of merging a pair at L = gamma d2, k =
 * exp(-L), with coefficient sums aa, bb, ab: the larger of the ones above.
 */
double
BkMergeBound(double L, double k, double aa, double bb, double ab)
{
	return pair_bound(L, k, sqrt(aa), aa, sqrt(bb), bb, ab);
}

#ifdef BK_VECTOR_AVX2
/*
 * choose's partner sums bb and ab, L, k = exp(-L) (BkExp4: BkExp's bits)
 * and pair_bound of four partners at a time, with b = sqrt(bb) into bv:
 * each lane the scalar code's expressions in its order (the same bits; a
 * bound needs only to be a bound, but so the pruning is the same on every
 * CPU).  L and k of the partner that is SV m itself are not used.  The
 * first n_known values of k may be given (known_k: the row's kernel row,
 * the same bits as BkExp4 here, see choose); the rest are computed.
 * Returns where it stopped, a multiple of four.
 */
__attribute__((target("avx2")))
static int
pair_bounds_avx2(int n, double a1, double aa1, double *Lv,
				 double *kv, double *bbv, double *abv,
				 double *bv, double *bnd, const double *coef, int K,
				 const double *am, const double *dots, const double *sqnorm,
				 double sqm, double gamma, const double *known_k, int n_known)
{
	const bk_v4d zero = {0.0, 0.0, 0.0, 0.0},
				one = {1.0, 1.0, 1.0, 1.0},
				two = {2.0, 2.0, 2.0, 2.0},
				three = {3.0, 3.0, 3.0, 3.0},
				four = {4.0, 4.0, 4.0, 4.0},
				half = {0.5, 0.5, 0.5, 0.5},
				a = {a1, a1, a1, a1},
				aa = {aa1, aa1, aa1, aa1};
	int			i = 0;

	for (; i + 4 <= n; i += 4)
	{
		bk_v4d		L,
					k,
					bb,
					ab,
					b,
					sk,
					r1,
					r2,
					rest,
					base,
					d,
					s,
					h0,
					u,
					g1s,
					g2,
					g2d,
					c,
					e,
					U,
					nb,
					g0,
					g1,
					ends,
					rho,
					ob,
					nd;
		bk_v4i		pos;

		bk_v4d		dot,
					sq;

		/* choose's sums, distance and k_mn, each lane its expressions */
		bb = zero;
		ab = zero;
		for (int q = 0; q < K; q++)
		{
			bk_v4d		an = {coef[(size_t) i * K + q], coef[(size_t) (i + 1) * K + q],
				coef[(size_t) (i + 2) * K + q], coef[(size_t) (i + 3) * K + q]},
						amq = {am[q], am[q], am[q], am[q]};

			bb += an * an;
			ab += amq * an;
		}
		memcpy(&dot, dots + i, sizeof(dot));
		memcpy(&sq, sqnorm + i, sizeof(sq));
		L = (bk_v4d) {gamma, gamma, gamma, gamma} *
			BkDist2x4(dot, (bk_v4d) {sqm, sqm, sqm, sqm}, sq);
		if (i + 4 <= n_known)
			memcpy(&k, known_k + i, sizeof(k));
		else
			k = BkExp4(-L);
		memcpy(bbv + i, &bb, sizeof(bb));
		memcpy(abv + i, &ab, sizeof(ab));
		memcpy(Lv + i, &L, sizeof(L));
		memcpy(kv + i, &k, sizeof(k));
		b = (bk_v4d) _mm256_sqrt_pd((__m256d) bb);
		memcpy(bv + i, &b, sizeof(b));
		sk = (bk_v4d) _mm256_sqrt_pd((__m256d) k);
		pos = ab >= zero;
		/* degradation_bound */
		r1 = aa * sk + bb;
		r2 = aa + bb * sk;
		rest = BK_BLEND4(r1 > r2, r1, r2);
		base = aa + bb + two * ab * k;
		d = base - (rest + BK_BLEND4(pos, two * ab * sk, two * ab * k));
		/* near_degradation_bound */
		s = a + b;
		h0 = a / s;
		u = one - h0;
		g1s = a * b / s;
		g2 = a * u * u * u * u + b * h0 * h0 * h0 * h0;
		g2d = four * (b * h0 * h0 * h0 - a * u * u * u);
		c = L * (s - three * L * BK_BLEND4(a > b, a, b));
		e = half * L * L * g2d;
		U = s - L * g1s + half * L * L * g2 + e * e / (four * c);
		nb = BK_BLEND4(c > zero, base - U * U, zero);
		/* opposite_degradation_bound */
		g0 = a * k - b;
		g1 = a - b * k;
		ends = BK_BLEND4(g0 * g0 > g1 * g1, g0 * g0, g1 * g1);
		rho = -ab / (a * b);
		rho = BK_BLEND4(rho > one, one, rho);
		ob = BK_BLEND4(a * b > zero, base - (rho * ends + (one - rho) * rest), zero);
		nd = BK_BLEND4(pos, nb, ob);
		d = BK_BLEND4(nd > d, nd, d);
		memcpy(bnd + i, &d, sizeof(d));
	}
	return i;
}
#endif

/*
 * A tighter bound for a pair of one sign (ab >= 0) at L < 1/2, from the
 * gain at one point h1 (two exp()): the partner search's second filter.
 *
 * With a = sqrt(aa), b = sqrt(bb), rho = ab / (a b) in [0, 1] the gain is
 *     S(h) = rho f(h)^2 + (1 - rho) g(h),
 *     f = a e1 + b e2,  g = aa e1^2 + bb e2^2.
 * f'' = a e1 (4L^2 (1-h)^2 - 2L) + b e2 (4L^2 h^2 - 2L) <= -m,
 * m = (2L - 4L^2) (a + b) k, on [0, 1] (e1, e2 >= k), so f is strongly
 * concave for L < 1/2 and for any h1 in [0, 1]
 *     max f <= f(h1) + f'(h1)^2 / (2 m),
 * f' = 2L (a (1-h1) e1 - b h1 e2).  Likewise g'' <= -(4L - 16L^2)(aa + bb) k^2
 * for L < 1/4, and otherwise max g <= max(aa sqrt(k) + bb, aa + bb sqrt(k))
 * (degradation_bound).  h1 is the maximum of f to first order in L:
 * h0 = a / (a + b), where a (1-h) = b h, moved by L a b (a - b) / (a + b)^3;
 * there f'(h1) = O(L^3), and the bound is within O(L^4) of max f.  Any h1
 * in [0, 1] gives a bound; this one makes it tight.  Returns false where it
 * does not apply (then the cheap bound stands).
 */
static inline bool
tight_point(double L, double a, double b, double ab, double *h1)
{
	double		s,
				h;

	if (!(ab >= 0.0 && L > 0.0 && L < 0.5 && a > 0.0 && b > 0.0))
		return false;
	s = a + b;
	h = a / s + L * a * b * (a - b) / (s * s * s);
	*h1 = h < 0.0 ? 0.0 : h > 1.0 ? 1.0 : h;
	return true;
}

/* the bound above at h1, with e1 = exp(-L (1-h1)^2) and e2 = exp(-L h1^2) */
static inline double
tight_bound(double L, double k, double a, double aa, double b, double bb,
			double ab, double h1, double e1, double e2)
{
	double		u = 1.0 - h1,
				f = a * e1 + b * e2,
				fd = 2.0 * L * (a * u * e1 - b * h1 * e2),
				m = (2.0 * L - 4.0 * L * L) * (a + b) * k,
				fmax = f + fd * fd / (2.0 * m),
				rho = ab / (a * b),
				smax;

	if (!(m > 0.0))
		return 0.0;
	if (rho >= 1.0)
		smax = fmax * fmax;		/* rounding beyond 1 is within the margin */
	else
	{
		double		sk = sqrt(k),
					gmax = aa * sk + bb > aa + bb * sk ? aa * sk + bb : aa + bb * sk;

		if (L < 0.25)
		{
			double		g = aa * e1 * e1 + bb * e2 * e2,
						gd = 4.0 * L * (aa * u * e1 * e1 - bb * h1 * e2 * e2),
						mg = (4.0 * L - 16.0 * L * L) * (aa + bb) * k * k,
						gb = g + gd * gd / (2.0 * mg);

			if (mg > 0.0 && gb < gmax)
				gmax = gb;
		}
		smax = rho * fmax * fmax + (1.0 - rho) * gmax;
	}
	return aa + bb + 2.0 * ab * k - smax;
}

/*
 * The larger of BkMergeBound and, where it applies, the tighter bound
 * above (two exp()); the partner search computes the same with the exp()
 * of many partners at once.
 */
double
BkMergeBoundTight(double L, double k, double aa, double bb, double ab)
{
	double		a = sqrt(aa),
				b = sqrt(bb),
				lb = pair_bound(L, k, a, aa, b, bb, ab),
				h1;

	if (tight_point(L, a, b, ab, &h1))
	{
		double		t = tight_bound(L, k, a, aa, b, bb, ab, h1,
									BkExp(-L * (1.0 - h1) * (1.0 - h1)),
									BkExp(-L * h1 * h1));

		if (t > lb)
			lb = t;
	}
	return lb;
}

/*
 * The partners of a search (choose), one array per quantity, so that the
 * bounds take four at a time: coefficient sums bb = ||alpha_n||^2 and
 * ab = alpha_m . alpha_n, b = sqrt(bb), L = gamma ||x_m - x_n||^2,
 * k = exp(-L), the lower bound of the degradation
 */
typedef struct Partners
{
	double	   *bb;
	double	   *ab;
	double	   *b;
	double	   *L;
	double	   *k;
	double	   *bound;
} Partners;

/* how many partners of the lowest bounds the pruned search tries first */
#define FIRST_PARTNERS 4

/* the slack a bound is given against the best degradation: rounding */
static inline double
bound_margin(double aa, const Partners *q, int n)
{
	return 1e-11 * (aa + q->bb[n] + fabs(2.0 * q->ab[n]));
}

/* partner n, of degradation d at h, if it beats the best so far (a tie: the lower index) */
static inline void
keep_if_better(BkMergeChoice *c, int n, double d, double h)
{
	if (c->n < 0 || d < c->degradation ||
		(d == c->degradation && n < c->n))
	{
		c->n = n;
		c->degradation = d;
		c->h = h;
	}
}

/*
 * search partner n of SV c->m exactly, kmn = BkExp(-L_n) (the pruned
 * search has it in q->k); keep it if it degrades less
 */
static void
search_partner(const Partners *q, int n, double aa, double kmn,
			   BkMergeChoice *c)
{
	double		h,
				d;

	c->searched++;
	d = BkMergePair(q->L[n], kmn, aa, q->bb[n], q->ab[n], &h);
	keep_if_better(c, n, d, h);
}

/*
 * Search the nb partners in batch (in the order of index) as
 * search_partner does, four at a time (BkMergePairs: the same bits as
 * BkMergePair).  The best is kept as the sequential search keeps it, so
 * the choice is the same: a batch may search a partner that a better
 * degradation found earlier in it would have pruned, and that partner
 * cannot win.
 */
static void
search_partners(const Partners *q, const int *batch, int nb, double aa,
				BkMergeChoice *c)
{
	for (int i0 = 0; i0 < nb; i0 += 4)
	{
		int			w = nb - i0 < 4 ? nb - i0 : 4;
		double		L[4] = {0.0},
					k[4] = {0.0},
					bb[4] = {0.0},
					ab[4] = {0.0},
					d[4],
					h[4];

		for (int i = 0; i < w; i++)
		{
			int			n = batch[i0 + i];

			L[i] = q->L[n];
			k[i] = q->k[n];
			bb[i] = q->bb[n];
			ab[i] = q->ab[n];
		}
		BkMergePairs(w, L, k, aa, bb, ab, d, h);
		for (int i = 0; i < w; i++)
		{
			c->searched++;
			keep_if_better(c, batch[i0 + i], d[i], h[i]);
		}
	}
}

/*
 * The partners the pruned search tries first, together (search_partners):
 * the FIRST_PARTNERS of the lowest bounds other than mi (on a tie the lower
 * index), into first in the order of index; returns how many (fewer when
 * there are fewer partners).  The best degradation among four is a
 * tighter threshold for the rest than the first one's: on a9a (B = 100,
 * standardised, gamma 0.00025) 32.6 partners a merge passed the cheap
 * bound behind the single lowest one.
 */
static int
lowest_bounds(const Partners *q, int nsv, int mi, int *first)
{
	int			nf = 0;

	for (int n = 0; n < nsv; n++)
	{
		int			at;

		if (n == mi || (nf == FIRST_PARTNERS && !(q->bound[n] < q->bound[first[nf - 1]])))
			continue;
		/* insert n among the lowest so far, kept in the order of bound */
		at = nf < FIRST_PARTNERS ? nf++ : FIRST_PARTNERS - 1;
		while (at > 0 && q->bound[n] < q->bound[first[at - 1]])
		{
			first[at] = first[at - 1];
			at--;
		}
		first[at] = n;
	}
	/* in the order of index, as the search keeps its best */
	for (int i = 1; i < nf; i++)
		for (int j = i; j > 0 && first[j] < first[j - 1]; j--)
		{
			int			t = first[j];

			first[j] = first[j - 1];
			first[j - 1] = t;
		}
	return nf;
}

/*
 * The partner of SV mi that degrades the expansion least, among every SV.
 *
 * Pruned (prune = true), the search gives the exhaustive search's choice
 * at a fraction of its cost: each partner's degradation has a lower bound
 * from k_mn alone (BkMergeBound); the four partners of the smallest
 * bounds are searched first, together (lowest_bounds).  The partners
 * whose bound does not exceed the best degradation found (a margin of
 * 1e-11 of the sums covers rounding in the bounds) then get the tighter
 * bound of near pairs (BkMergeBoundTight, its exp() four at a time for
 * all of them), and are searched in order of index, four at a time
 * (search_partners), each skipped whose bound exceeds the best
 * degradation found before its four, which it cannot then beat.  k_mn is
 * evaluated for the bounds four at a time, BkExpArray, the same bits as
 * BkExp, and the search takes it from there.  A tie goes to the lower
 * index, as in the exhaustive search; the searched partners'
 * degradations are computed as there, so the chosen pair, h and
 * degradation are the same bits whatever the bounds prune.  On a9a
 * (Pegasos, B = 100, standardised, gamma 0.00025) 7.5 of the 99 partners
 * a merge pass the first bounds and 5.4 are searched, the first four
 * included (behind a single first partner 32.6 passed and 6.8 were
 * searched); with the raw features at gamma 0.0625, where most pairs lie
 * at L >= 1/2 beyond the tighter bound, 46 pass and 44 are searched.
 *
 * dots_known: work holds the dots of x_mi with every SV already (a kernel
 * row computed them for x_mi: BkLinGemv gives each row's dot product the
 * same bits in any call).
 */
static void
choose(const BkEnv *env, const BkParams *p, const BkMachine *mach, int dim,
	   int mi, double *work, BkMergeChoice *c, bool prune, bool dots_known,
	   const double *known_k, double *scratch)
{
	int			K = mach->n_coef;
	int			nsv = mach->n_sv;
	const double *am = mach->coef + (size_t) mi * K;
	double		aa = 0.0,
				a;
	/*
	 * one block: the partners, h1 and the exp()s of the tighter bound, the
	 * candidates (every value written before it is read); the caller's
	 * scratch, or allocated
	 */
	double	   *block = scratch != NULL ? scratch :
		BkAllocArray(env, BK_MERGE_SCRATCH(nsv), sizeof(double));
	Partners	pt = {block, block + nsv, block + 2 * nsv, block + 3 * nsv,
	block + 4 * nsv, block + 5 * nsv};
	double	   *hx = block + 6 * nsv;
	double	   *ex = block + 7 * nsv;
	int		   *cand = (int *) (block + 9 * nsv);
	int			lanes = 0;

	c->m = mi;
	c->n = -1;
	c->h = 0.0;
	c->degradation = 0.0;
	c->searched = 0;
	/* dots of x_m with every SV: one BkLinGemv */
	if (!dots_known)
		BkMachineDots(mach, nsv, dim, BkSvRow(mach, mi), work);
	for (int k = 0; k < K; k++)
		aa += am[k] * am[k];
	a = sqrt(aa);

	/* where the lane paths run, the pruned search takes most of this loop four at a time */
#ifdef BK_VECTOR_AVX2
	if (prune && BkVectorLanes())
		lanes = pair_bounds_avx2(nsv, a, aa, pt.L, pt.k, pt.bb, pt.ab, pt.b, pt.bound,
								 mach->coef, K, am, work, mach->sqnorm,
								 mach->sqnorm[mi], p->gamma, known_k,
								 known_k != NULL ? mi : 0);
#endif
	for (int n = lanes; n < nsv; n++)
	{
		const double *an = mach->coef + (size_t) n * K;
		double		bb = 0.0,
					ab = 0.0;

		for (int k = 0; k < K; k++)
		{
			bb += an[k] * an[k];
			ab += am[k] * an[k];
		}
		pt.bb[n] = bb;
		pt.ab[n] = ab;
		pt.L[n] = n == mi ? 0.0 :
			p->gamma * BkDist2(work[n], mach->sqnorm[mi], mach->sqnorm[n]);
		pt.k[n] = -pt.L[n];
	}
	if (!prune)
	{
		for (int n = 0; n < nsv; n++)
			if (n != mi)
				search_partner(&pt, n, aa, BkExp(-pt.L[n]), c);
	}
	else
	{
		int			nc = 0,
					ne = 0,
					nf,
					firsts[FIRST_PARTNERS] = {0};

		pt.L[mi] = 0.0;
		pt.k[mi] = -0.0;
		BkExpArray(pt.k + lanes, nsv - lanes);
		for (int i = lanes; i < nsv; i++)
		{
			pt.b[i] = sqrt(pt.bb[i]);
			pt.bound[i] = pair_bound(pt.L[i], pt.k[i], a, aa, pt.b[i], pt.bb[i], pt.ab[i]);
		}
		nf = lowest_bounds(&pt, nsv, mi, firsts);
		search_partners(&pt, firsts, nf, aa, c);

		/* the partners the cheap bound keeps, and the tighter bound's exp() */
		for (int n = 0, f = 0; n < nsv; n++)
		{
			double		h1;

			if (f < nf && n == firsts[f])
			{
				f++;
				continue;
			}
			if (n == mi || pt.bound[n] > c->degradation + bound_margin(aa, &pt, n))
				continue;
			cand[nc] = n;
			if (tight_point(pt.L[n], a, pt.b[n], pt.ab[n], &h1))
			{
				hx[nc] = h1;
				ex[ne++] = -pt.L[n] * (1.0 - h1) * (1.0 - h1);
				ex[ne++] = -pt.L[n] * h1 * h1;
			}
			else
				hx[nc] = -1.0;
			nc++;
		}
		BkExpArray(ex, ne);
		ne = 0;
		for (int j = 0; j < nc;)
		{
			int			batch[4],
						nb = 0;

			/* the next four partners the bounds do not rule out, searched together */
			for (; j < nc && nb < 4; j++)
			{
				int			n = cand[j];

				if (hx[j] >= 0.0)
				{
					double		t = tight_bound(pt.L[n], pt.k[n], a, aa, pt.b[n], pt.bb[n],
												pt.ab[n], hx[j], ex[ne], ex[ne + 1]);

					ne += 2;
					if (t > pt.bound[n])
						pt.bound[n] = t;
				}
				if (!(pt.bound[n] > c->degradation + bound_margin(aa, &pt, n)))
					batch[nb++] = n;
			}
			search_partners(&pt, batch, nb, aa, c);
		}
	}
	if (block != scratch)
		BkFree(env, block);
	if (c->n < 0)
		BkRaise(env, BK_ERR_INTERNAL, NULL, "merge needs two support vectors");
}

/*
 * Choose the partner of SV mi that degrades the expansion least.  work
 * receives the dot products of x_mi with every SV (n_sv doubles; the apply
 * step uses them).  Fills c->m, c->n, c->h and c->degradation (in the
 * stored coefficients: multiply by scale^2 for the actual one).
 */
void
BkMergeChoose(const BkEnv *env, const BkParams *p, const BkMachine *mach,
			  int dim, int mi, double *work, BkMergeChoice *c)
{
	choose(env, p, mach, dim, mi, work, c, true, false, NULL, NULL);
}

/*
 * The same, with work already holding the dot products of x_mi with every
 * SV as BkMachineDots computes them (a kernel row of the row that became
 * SV mi): one BkLinGemv less, the same choice; its arrays in scratch
 * (BK_MERGE_SCRATCH(n_sv) doubles), which a learner keeps from merge to
 * merge.  krow, if not NULL, holds that kernel row's rbf values k(x_mi,
 * sv_n) for n < mi, from the same dots and ||x_mi||^2 = sqnorm[mi]: the
 * bounds take them instead of an exp each (the same bits: rbf_of_dots
 * computes exp(-gamma d2) of the same d2, whose sum of norms is
 * commutative, and -gamma d2 is -(gamma d2) to the bit).
 */
void
BkMergeChooseDots(const BkEnv *env, const BkParams *p, const BkMachine *mach,
				  int dim, int mi, double *work, const double *krow,
				  double *scratch, BkMergeChoice *c)
{
	choose(env, p, mach, dim, mi, work, c, true, true,
		   p->kernel == BK_KERNEL_RBF ? krow : NULL, scratch);
}

void
BkMergeChooseExhaustive(const BkEnv *env, const BkParams *p,
						const BkMachine *mach, int dim, int mi, double *work,
						BkMergeChoice *c)
{
	choose(env, p, mach, dim, mi, work, c, false, false, NULL, NULL);
}

/*
 * z = h x_m + (1 - h) x_n (eq. 20) into zbuf, with its coefficients
 * alpha_z = alpha_m k(x_m, z) + alpha_n k(x_n, z) (eq. 22) into az (n_coef).
 * work holds the dots of x_m from BkMergeChoose.
 */
void
BkMergePoint(const BkParams *p, const BkMachine *mach, int dim,
			 const BkMergeChoice *c, const double *work, double *zbuf,
			 double *az)
{
	int			K = mach->n_coef;
	const double *xm = BkSvRow(mach, c->m);
	const double *xn = BkSvRow(mach, c->n);
	const double *am = mach->coef + (size_t) c->m * K;
	const double *an = mach->coef + (size_t) c->n * K;
	double		d2 = BkDist2(work[c->n], mach->sqnorm[c->m], mach->sqnorm[c->n]);
	double		km = BkExp(-p->gamma * d2 * (1.0 - c->h) * (1.0 - c->h));
	double		kn = BkExp(-p->gamma * d2 * c->h * c->h);

	for (int j = 0; j < dim; j++)
		zbuf[j] = c->h * xm[j] + (1.0 - c->h) * xn[j];
	/*
	 * a float4 model stores z rounded (bk_svstore.c).  With h in [0, 1]
	 * each value lies between x_m's and x_n's, two float4 values, but only
	 * in exact arithmetic: h X + (1 - h) X can round above X, and above
	 * FLT_MAX for X = FLT_MAX.  Clamped to the two, it stays in range.
	 */
	if (p->sv_precision == BK_SV_FLOAT4)
	{
		for (int j = 0; j < dim; j++)
			zbuf[j] = fmin(fmax(zbuf[j], fmin(xm[j], xn[j])), fmax(xm[j], xn[j]));
		(void) BkSvRound(zbuf, dim);
	}
	for (int k = 0; k < K; k++)
		az[k] = am[k] * km + an[k] * kn;
}

/* Replace SV m by z with coefficients az, and remove SV n. */
void
BkMergeApply(BkMachine *mach, int dim, const BkMergeChoice *c,
			 const double *zbuf, const double *az)
{
	int			K = mach->n_coef;

	for (int k = 0; k < K; k++)
		mach->coef[(size_t) c->m * K + k] = az[k];
	memcpy(BkSvRow(mach, c->m), zbuf, sizeof(double) * dim);
	BkSvSync(mach, dim, c->m, 1);
	mach->sqnorm[c->m] = BkDot(zbuf, zbuf, dim);
	BkMachineRemove(mach, dim, c->n);
}

/*
 * dim values for the point z a merge builds (paper 004, eq. 20), allocated
 * at the first merge and kept with the model: only a learner that merges
 * support vectors pays for a vector of the model's dimension.
 */
double *
BkModelMergePoint(BkModel *m)
{
	if (m->merge_point == NULL)
		m->merge_point = BkAllocArray(&m->env, (size_t) m->dim, sizeof(double));
	return m->merge_point;
}

/*
 * At least n doubles for the partner search's arrays, kept with the model
 * from merge to merge (a fresh zero-filled block every merge was 3 % of
 * Pegasos-merge's time on a9a); grown to n when smaller.
 */
double *
BkModelMergeScratch(BkModel *m, size_t n)
{
	if (m->merge_scratch_len < n)
	{
		BkFree(&m->env, m->merge_scratch);
		m->merge_scratch = NULL;
		m->merge_scratch = BkAllocArray(&m->env, n, sizeof(double));
		m->merge_scratch_len = n;
	}
	return m->merge_scratch;
}
