/*
 * bk_alg_bduol.c
 *	  Budget maintenance of BDUOL (paper 001 §3): with B SVs stored and a
 *	  row to learn, reduce f <- f - Delta f so that at least one SV goes,
 *	  choosing Delta f to maximise the dual ascent of eq. 5,
 *
 *	      DA = - sum_i Delta gamma_i + sum_i Delta gamma_i y_i f(x_i)
 *	           - ||Delta f||^2 / 2,
 *
 *	  where gamma_i in [0, C] are DUOL's dual variables (stored coefficient
 *	  gamma_i y_i) and f(x_i) the cached scores.
 *
 *	  removal            remove the SV j of largest DA_j (eq. 7), O(B).
 *	  nearest            project SV j onto its nearest neighbour N_j
 *	                     (eq. 13, beta clipped to [-gamma_N, C - gamma_N]),
 *	                     j of largest DA (eq. 14); the neighbour cache
 *	                     (input-space distance, as BPA-NN) makes it O(B).
 *	  approx_projection  project SV j onto the span of the others without
 *	                     the box, then clip each beta_i into
 *	                     [-gamma_i, C - gamma_i] (eq. 9-11); j of largest
 *	                     DA (eq. 12).
 *	  projection         the box-constrained QP of eq. 8 solved exactly (an
 *	                     active-set method, below) for the candidates that
 *	                     the clipped projection ranks best; j of largest
 *	                     DA (eq. 12) with its exact solution.
 *
 *	  The projections work with K of the B SVs and G = K^-1 (LAPACKE
 *	  Cholesky), built afresh at each maintenance step: the projection of
 *	  k(x_j, .) onto the others is a_P = -c_j G_Pj / G_jj (the inverse of
 *	  K without row and column j is G_PP - G_Pj G_jP / G_jj), so the
 *	  unconstrained solution of every candidate costs O(B), and DA costs
 *	  O(B^2) per candidate: O(B^3) a step, the paper's complexity for the
 *	  projection (§3.2).  Paper 001 keeps K^-1 by Woodbury updates; a
 *	  fresh factorisation costs the same order and leaves nothing in the
 *	  model to keep consistent.
 *
 *	  An SV whose gamma reaches 0 (its beta at the lower bound) leaves the
 *	  model: it no longer contributes, and its label (the sign of its
 *	  coefficient) would be lost.
 */
#include "bk_internal.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

/* Remove every SV whose coefficient is exactly 0, from the last one down. */
static void
remove_zeros(BkModel *m, BkMachine *mach, BkRow *row, double *work)
{
	for (int i = mach->n_sv - 1; i >= 0; i--)
		if (mach->coef[i] == 0.0)
			BkBudgetRemove(m, mach, row, i, work);
}

/* ---- removal: eq. 6-7 ---- */

/* DA_j of eq. 7: the dual ascent of removing SV j */
static double
removal_ascent(const BkParams *p, const BkMachine *mach, int j)
{
	double		cj = mach->coef[j];
	double		gj = fabs(cj);

	return -gj * (1.0 - BkCoefLabel(cj) * mach->sv_scores[j]) -
		0.5 * gj * gj * BkKernelSelf(p, mach->sqnorm[j]);
}

/*
 * Take SV j's term out of f: f(x_i) -= c_j k(x_i, x_j) for every SV (its
 * kernel row into kr) and c_j = 0, left for remove_zeros; returns c_j
 * k(x_j, x_t), the change of f(x_t).
 */
static double
take_out(BkModel *m, BkMachine *mach, const BkRow *row, int j, double *kr)
{
	double		c = mach->coef[j];

	BkKernelRow(&m->params, mach, m->dim, mach->sv + (size_t) j * m->dim,
				mach->sqnorm[j], kr, kr);
	for (int i = 0; i < mach->n_sv; i++)
		mach->sv_scores[i] -= c * kr[i];
	mach->coef[j] = 0.0;
	return c * row->krow[j];
}

static double
maintain_removal(BkModel *m, BkMachine *mach, BkRow *row)
{
	double	   *kr = row->work;
	int			best = 0;
	double		bestv = 0.0,
				df;

	for (int j = 0; j < mach->n_sv; j++)
	{
		double		v = removal_ascent(&m->params, mach, j);

		if (j == 0 || v > bestv)
		{
			best = j;
			bestv = v;
		}
	}
	df = take_out(m, mach, row, best, kr);
	remove_zeros(m, mach, row, kr);
	return df;
}

/* ---- nearest neighbour: eq. 13-14 ---- */

static double
maintain_nearest(BkModel *m, BkMachine *mach, BkRow *row)
{
	const BkParams *p = &m->params;
	double	   *svf = mach->sv_scores;
	size_t		stride = (size_t) mach->capacity + 1;
	double	   *kr_j = row->work;
	double	   *kr_n = row->work + stride;
	double		C = p->C;
	int			best = 0,
				bestn = -1;
	double		bestv = 0.0,
				bestbeta = 0.0,
				an,
				df;

	for (int j = 0; j < mach->n_sv; j++)
	{
		double		c = mach->coef[j];
		double		g = fabs(c);
		double		kjj = BkKernelSelf(p, mach->sqnorm[j]);
		int			nb = mach->nearest.idx[j];
		double		beta = 0.0;
		/* without a neighbour (one SV), removal: eq. 7 */
		double		v = removal_ascent(p, mach, j);

		if (nb >= 0)
		{
			double		cn = mach->coef[nb];
			double		yn = BkCoefLabel(cn);
			double		gn = fabs(cn);
			double		knn = BkKernelSelf(p, mach->sqnorm[nb]);
			double		dot = 0.5 * (mach->sqnorm[j] + mach->sqnorm[nb] -
									 mach->nearest.dist2[j]);
			double		kjn = BkKernelFromDot(p, dot, mach->sqnorm[j],
											  mach->sqnorm[nb]);

			if (knn > 0.0)
			{
				/* eq. 13: beta_N = gamma_j y_j k(x_N, x_j) / (k(x_N, x_N) y_N) */
				beta = c * kjn * yn / knn;
				beta = BkClamp(beta, -gn, C - gn);
			}
			/* eq. 14 with Delta gamma_j = gamma_j, Delta gamma_N = -beta */
			v = -g + beta + c * svf[j] - beta * yn * svf[nb] -
				0.5 * (c * c * kjj - 2.0 * c * beta * yn * kjn +
					   beta * beta * knn);
		}
		if (j == 0 || v > bestv)
		{
			best = j;
			bestv = v;
			bestn = nb;
			bestbeta = beta;
		}
	}

	/* f(x_i) -= c_j k(x_i, x_j) - beta y_N k(x_i, x_N) */
	df = take_out(m, mach, row, best, kr_j);
	if (bestn >= 0 && bestbeta != 0.0)
	{
		an = bestbeta * BkCoefLabel(mach->coef[bestn]);
		BkKernelRow(p, mach, m->dim, mach->sv + (size_t) bestn * m->dim,
					mach->sqnorm[bestn], kr_n, kr_n);
		for (int i = 0; i < mach->n_sv; i++)
			svf[i] += an * kr_n[i];
		df -= an * row->krow[bestn];
		mach->coef[bestn] += an;
	}
	remove_zeros(m, mach, row, kr_j);
	return df;
}

/* ---- projections: eq. 8-12 ---- */

/* Scratch of one projection step: n = B. */
typedef struct ProjWork
{
	int			n;
	double	   *K;				/* n x n kernel matrix */
	double	   *G;				/* n x n, K^-1 */
	double	   *HS;				/* n x n: columns of H for the fixed set */
	double	   *M;				/* n x n: H_SS, factorised */
	double	   *a;				/* candidate's coefficient changes */
	double	   *abest;
	double	   *astar;
	double	   *lo;
	double	   *hi;
	double	   *mu;
	double	   *Ka;
	int		   *state;			/* 0 free, -1 at lo, +1 at hi, 2 = j */
	int		   *fixed;			/* indices of the fixed set */
} ProjWork;

/*
 * K^-1 by Cholesky.  If K is not numerically positive definite (two SVs at
 * the same point), a ridge of 1e-10 x the largest diagonal, grown by 100
 * up to 4 times, is added (BkSpdInverse); false if even that fails.
 */
static bool
invert_gram(const BkEnv *env, ProjWork *w)
{
	return BkSpdInverse(env, w->K, w->G, w->n, BK_CHOLESKY_UPPER, 4);
}

/* H_ik = (K without j)^-1 = G_ik - G_ij G_jk / G_jj */
static inline double
h_entry(const ProjWork *w, int j, int i, int k)
{
	int			n = w->n;

	return w->G[(size_t) i * n + k] -
		w->G[(size_t) i * n + j] * w->G[(size_t) j * n + k] / w->G[(size_t) j * n + j];
}

/*
 * The box QP of eq. 8 for candidate j, in coefficient space (a_i = beta_i
 * y_i, the change of SV i's coefficient):
 *
 *     min  a' K_PP a / 2 - a' t,   t = c_j K_Pj,   lo <= a <= hi,
 *
 * P the SVs but j.  Primal active-set method (Nocedal and Wright,
 * Numerical Optimization, Algorithm 16.3) started at the clipped
 * unconstrained solution, which is feasible: with the fixed set S held at
 * its bounds, the minimiser is a* = a_u + H_PS mu with mu = H_SS^-1 (v_S -
 * a_u,S) (a_u = H t, H = K_PP^-1), and mu is the gradient on S, so its
 * sign tells which bound to release.  K_PP is positive definite, so the
 * method ends; an iteration cap guards against cycling under rounding,
 * keeping the best feasible point reached.  Returns false if a step
 * failed (H_SS not positive definite in floating point).
 */
static bool
solve_box_qp(const BkEnv *env, ProjWork *w, int j)
{
	int			n = w->n;
	double	   *a = w->a;
	double	   *au = w->astar;	/* a* of the current fixed set */
	int			max_iter = 4 * n + 10;

	/* start: the clipped unconstrained solution, clipped ones fixed */
	for (int i = 0; i < n; i++)
	{
		if (i == j)
		{
			w->state[i] = 2;
			continue;
		}
		if (a[i] <= w->lo[i])
		{
			a[i] = w->lo[i];
			w->state[i] = -1;
		}
		else if (a[i] >= w->hi[i])
		{
			a[i] = w->hi[i];
			w->state[i] = 1;
		}
		else
			w->state[i] = 0;
	}

	for (int iter = 0; iter < max_iter; iter++)
	{
		int			s = 0;
		double		step = 1.0;
		int			block = -1;

		BkCheckInterrupts(env);
		for (int i = 0; i < n; i++)
			if (w->state[i] == -1 || w->state[i] == 1)
				w->fixed[s++] = i;

		/* a* = a_u + H_PS mu, mu = H_SS^-1 (v_S - a_u,S); a_u = -c_j G_Pj / G_jj is in a_unc */
		for (int i = 0; i < n; i++)
			au[i] = w->Ka[i];	/* Ka holds a_u during the solve */
		if (s > 0)
		{
			for (int q = 0; q < s; q++)
			{
				int			k = w->fixed[q];

				for (int i = 0; i < n; i++)
					w->HS[(size_t) i * s + q] = i == j ? 0.0 : h_entry(w, j, i, k);
				w->mu[q] = a[k] - w->Ka[k];
			}
			for (int q = 0; q < s; q++)
				for (int r = 0; r < s; r++)
					w->M[(size_t) q * s + r] = w->HS[(size_t) w->fixed[q] * s + r];
			if (LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', s, 1, w->M, s, w->mu, 1) != 0)
				return false;
			for (int i = 0; i < n; i++)
			{
				if (i == j)
					continue;
				for (int q = 0; q < s; q++)
					au[i] += w->HS[(size_t) i * s + q] * w->mu[q];
			}
			/* exactly at the bounds */
			for (int q = 0; q < s; q++)
				au[w->fixed[q]] = a[w->fixed[q]];
		}

		/* the longest step towards a* that stays in the box */
		for (int i = 0; i < n; i++)
		{
			double		d,
						lim;

			if (w->state[i] != 0)
				continue;
			d = au[i] - a[i];
			if (d < 0.0 && au[i] < w->lo[i])
				lim = (w->lo[i] - a[i]) / d;
			else if (d > 0.0 && au[i] > w->hi[i])
				lim = (w->hi[i] - a[i]) / d;
			else
				continue;
			if (lim < step)
			{
				step = lim;
				block = i;
			}
		}
		if (block >= 0)
		{
			for (int i = 0; i < n; i++)
				if (w->state[i] == 0)
					a[i] += step * (au[i] - a[i]);
			a[block] = au[block] < w->lo[block] ? w->lo[block] : w->hi[block];
			w->state[block] = au[block] < w->lo[block] ? -1 : 1;
			continue;
		}

		/* a* is feasible: optimal unless a multiplier has the wrong sign */
		for (int i = 0; i < n; i++)
			if (w->state[i] == 0)
				a[i] = au[i];
		{
			int			release = -1;
			double		worst = 0.0;

			for (int q = 0; q < s; q++)
			{
				/* gradient mu: >= 0 at a lower bound, <= 0 at an upper one */
				double		viol = w->state[w->fixed[q]] == -1 ? -w->mu[q] : w->mu[q];

				if (viol > worst * (1.0 + 1e-12) + 1e-14)
				{
					worst = viol;
					release = w->fixed[q];
				}
			}
			if (release < 0)
				return true;
			w->state[release] = 0;
		}
	}
	return true;					/* the cap: the feasible point reached */
}

/* DA of eq. 12 for candidate j with coefficient changes a (a_j unused). */
static double
projection_ascent(const BkMachine *mach, ProjWork *w, int j, const double *a)
{
	int			n = w->n;
	double		c = mach->coef[j];
	double		g = fabs(c);
	double		v = -g + c * mach->sv_scores[j];
	double		cross = 0.0,
				quad;

	/* a' K a with a_j = 0 */
	memcpy(w->mu, a, sizeof(double) * n);
	w->mu[j] = 0.0;
	cblas_dsymv(CblasRowMajor, CblasUpper, n, 1.0, w->K, n, w->mu, 1, 0.0,
				w->HS, 1);
	quad = cblas_ddot(n, w->mu, 1, w->HS, 1);
	for (int i = 0; i < n; i++)
	{
		if (i == j)
			continue;
		v += a[i] * BkCoefLabel(mach->coef[i]) - a[i] * mach->sv_scores[i];
		cross += a[i] * w->K[(size_t) i * n + j];
	}
	/* ||c_j phi_j - sum_i a_i phi_i||^2 */
	return v - 0.5 * (c * c * w->K[(size_t) j * n + j] - 2.0 * c * cross + quad);
}

/*
 * eq. 9 for candidate j: a_P = -c_j G_Pj / G_jj into w->a, and a copy in
 * w->Ka (the active-set method's a_u).
 */
static void
unconstrained_projection(double c, ProjWork *w, int j)
{
	int			n = w->n;
	double		gjj = w->G[(size_t) j * n + j];

	for (int i = 0; i < n; i++)
		w->Ka[i] = i == j ? 0.0 : -c * w->G[(size_t) i * n + j] / gjj;
	memcpy(w->a, w->Ka, sizeof(double) * n);
}

/* Scratch of one projection step for n SVs: one block of doubles, and ints. */
static double *
proj_work_alloc(const BkEnv *env, ProjWork *w, int n)
{
	size_t		nn = (size_t) n * n;
	double	   *block = BkAllocArray(env, 4 * nn + 8 * (size_t) n, sizeof(double));

	w->n = n;
	w->K = block;
	w->G = w->K + nn;
	w->HS = w->G + nn;
	w->M = w->HS + nn;
	w->a = w->M + nn;
	w->abest = w->a + n;
	w->astar = w->abest + n;
	w->lo = w->astar + n;
	w->hi = w->lo + n;
	w->mu = w->hi + n;
	w->Ka = w->mu + n;
	w->state = BkAllocArray(env, 2 * (size_t) n, sizeof(int));
	w->fixed = w->state + n;
	return block;
}

/*
 * The exact projection of eq. 8 on its own, for the unit tests: K (n x n,
 * row-major) the kernel matrix, j the SV projected with coefficient c,
 * lo / hi the bounds of the others' coefficient changes; a gets the
 * changes (a_j = 0).  False if K is not positive definite or a step fails.
 */
bool
BkBduolBoxQp(const BkEnv *env, const double *K, int n, int j, double c,
			 const double *lo, const double *hi, double *a)
{
	ProjWork	w;
	double	   *block = proj_work_alloc(env, &w, n);
	bool		ok;

	memcpy(w.K, K, sizeof(double) * (size_t) n * n);
	memcpy(w.lo, lo, sizeof(double) * n);
	memcpy(w.hi, hi, sizeof(double) * n);
	ok = invert_gram(env, &w);
	if (ok)
	{
		unconstrained_projection(c, &w, j);
		ok = solve_box_qp(env, &w, j);
		w.a[j] = 0.0;
		memcpy(a, w.a, sizeof(double) * n);
	}
	BkFree(env, w.state);
	BkFree(env, block);
	return ok;
}

/*
 * Candidates for which "projection" solves the QP of eq. 8 exactly: the
 * best by the clipped projection's DA.  Solving it for all B candidates
 * costs O(B^4) a step (about 30 ms at B = 100, a hundred times the
 * approximate projection); the exact solution rarely changes the choice
 * beyond the first few.
 */
#define EXACT_CANDIDATES 5

static double
maintain_projection(BkModel *m, BkMachine *mach, BkRow *row, bool exact)
{
	int			top[EXACT_CANDIDATES];
	double		topv[EXACT_CANDIDATES];
	const BkEnv *env = &m->env;
	const BkParams *p = &m->params;
	int			n = mach->n_sv;
	double		C = p->C;
	ProjWork	w;
	double	   *block;
	int			best = -1;
	double		bestv = 0.0,
				df = 0.0;

	block = proj_work_alloc(env, &w, n);
	for (int q = 0; q < EXACT_CANDIDATES; q++)
	{
		top[q] = -1;
		topv[q] = 0.0;
	}

	/* K, symmetric: row i from its kernel row, the upper triangle mirrored */
	for (int i = 0; i < n; i++)
		BkKernelRow(p, mach, m->dim, mach->sv + (size_t) i * m->dim,
					mach->sqnorm[i], w.K + (size_t) i * n, w.K + (size_t) i * n);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < i; k++)
			w.K[(size_t) i * n + k] = w.K[(size_t) k * n + i];
	if (!invert_gram(env, &w))
	{
		/* no projection possible: removal (eq. 7) for this step */
		BkFree(env, w.state);
		BkFree(env, block);
		return maintain_removal(m, mach, row);
	}

	/* the bounds of a_i: gamma_i + beta_i in [0, C], a_i = beta_i y_i */
	for (int i = 0; i < n; i++)
	{
		double		ci = mach->coef[i];

		if (ci >= 0.0)
		{
			w.lo[i] = -ci;
			w.hi[i] = C - ci;
		}
		else
		{
			w.lo[i] = -C - ci;
			w.hi[i] = -ci;
		}
	}

	/*
	 * Every candidate with its clipped projection (eq. 11) and DA (eq. 12);
	 * for "projection", the EXACT_CANDIDATES best of them again with the
	 * exact solution of the QP (eq. 8).
	 */
	for (int j = 0; j < n; j++)
	{
		double		v;

		unconstrained_projection(mach->coef[j], &w, j);
		for (int i = 0; i < n; i++)
			w.a[i] = i == j ? 0.0 : BkClamp(w.a[i], w.lo[i], w.hi[i]);
		v = projection_ascent(mach, &w, j, w.a);
		if (!exact)
		{
			if (best < 0 || v > bestv)
			{
				best = j;
				bestv = v;
				memcpy(w.abest, w.a, sizeof(double) * n);
			}
			continue;
		}
		/* keep the top candidates, in descending order of DA */
		for (int q = 0; q < EXACT_CANDIDATES; q++)
		{
			if (top[q] < 0 || v > topv[q])
			{
				for (int r = EXACT_CANDIDATES - 1; r > q; r--)
				{
					top[r] = top[r - 1];
					topv[r] = topv[r - 1];
				}
				top[q] = j;
				topv[q] = v;
				break;
			}
		}
	}
	for (int q = 0; exact && q < EXACT_CANDIDATES && top[q] >= 0; q++)
	{
		int			j = top[q];
		double		v;

		unconstrained_projection(mach->coef[j], &w, j);
		if (!solve_box_qp(env, &w, j))
			continue;
		w.a[j] = 0.0;
		v = projection_ascent(mach, &w, j, w.a);
		if (best < 0 || v > bestv)
		{
			best = j;
			bestv = v;
			memcpy(w.abest, w.a, sizeof(double) * n);
		}
	}
	if (best < 0)
	{
		BkFree(env, w.state);
		BkFree(env, block);
		return maintain_removal(m, mach, row);
	}

	/*
	 * Apply: SV j goes, the others change by a_i.  Delta f has the
	 * coefficients d_j = c_j, d_i = -a_i: f(x_i) -= (K d)_i, f(x_t) -= k_t' d.
	 */
	w.abest[best] = -mach->coef[best];
	for (int i = 0; i < n; i++)
		w.mu[i] = -w.abest[i];
	cblas_dsymv(CblasRowMajor, CblasUpper, n, 1.0, w.K, n, w.mu, 1, 0.0, w.HS, 1);
	for (int i = 0; i < n; i++)
	{
		mach->sv_scores[i] -= w.HS[i];
		df += w.mu[i] * row->krow[i];
	}
	for (int i = 0; i < n; i++)
	{
		if (i == best)
			mach->coef[i] = 0.0;
		else if (w.abest[i] == w.lo[i] && mach->coef[i] >= 0.0)
			mach->coef[i] = 0.0;	/* gamma_i reached 0: exactly */
		else if (w.abest[i] == w.hi[i] && mach->coef[i] < 0.0)
			mach->coef[i] = 0.0;
		else
			mach->coef[i] += w.abest[i];
	}
	BkFree(env, w.state);
	BkFree(env, block);
	remove_zeros(m, mach, row, row->work);
	return df;
}

double
BkBduolMaintain(BkModel *m, BkMachine *mach, BkRow *row)
{
	double		df;

	switch (m->params.maintenance)
	{
		case BK_MAINT_REMOVAL:
			df = maintain_removal(m, mach, row);
			break;
		case BK_MAINT_NEAREST:
			df = maintain_nearest(m, mach, row);
			break;
		case BK_MAINT_APPROX_PROJECTION:
			df = maintain_projection(m, mach, row, false);
			break;
		case BK_MAINT_PROJECTION:
			df = maintain_projection(m, mach, row, true);
			break;
		default:
			BkRaise(&m->env, BK_ERR_INTERNAL, NULL,
					"unknown BDUOL maintenance %d", m->params.maintenance);
	}
	BkBudgetCountMaintenance(m, mach);
	return df;
}
