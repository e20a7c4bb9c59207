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
 *	                     active-set method, bk_boxqp.c) for the candidates that
 *	                     the clipped projection ranks best; j of largest
 *	                     DA (eq. 12) with its exact solution.
 *
 *	  The projections work with K of the B SVs and G = K^-1 (bk_linalg.c's
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

	BkKernelRow(&m->params, mach, m->dim, BkSvRow(mach, j),
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
				/* the box of x_N's dual variable: C times its side's class weight */
				beta = BkClamp(beta, -gn, C * BkRowSideWeight(row, cn) - gn);
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
		BkKernelRow(p, mach, m->dim, BkSvRow(mach, bestn),
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

/* DA of eq. 12 for candidate j with coefficient changes a (a_j unused). */
static double
projection_ascent(const BkMachine *mach, BkBoxQp *w, int j, const double *a)
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
	BkLinSymvUpper(n, w->K, n, w->mu, w->HS);
	quad = BkDot(w->mu, w->HS, n);
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
	BkBoxQp	w;
	double	   *block;
	int			best = -1;
	double		bestv = 0.0,
				df = 0.0;

	block = BkBoxQpAlloc(env, &w, n);
	for (int q = 0; q < EXACT_CANDIDATES; q++)
	{
		top[q] = -1;
		topv[q] = 0.0;
	}

	/* K, symmetric: row i from its kernel row, the upper triangle mirrored */
	for (int i = 0; i < n; i++)
		BkKernelRow(p, mach, m->dim, BkSvRow(mach, i),
					mach->sqnorm[i], w.K + (size_t) i * n, w.K + (size_t) i * n);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < i; k++)
			w.K[(size_t) i * n + k] = w.K[(size_t) k * n + i];
	if (!BkBoxQpInvert(env, &w))
	{
		/* no projection possible: removal (eq. 7) for this step */
		BkFree(env, w.state);
		BkFree(env, block);
		return maintain_removal(m, mach, row);
	}

	/*
	 * the bounds of a_i: gamma_i + beta_i in [0, C_i], a_i = beta_i y_i,
	 * C_i = C times the class weight of x_i's side (C without weights)
	 */
	for (int i = 0; i < n; i++)
	{
		double		ci = mach->coef[i];

		if (ci >= 0.0)
		{
			w.lo[i] = -ci;
			w.hi[i] = C * row->w_pos - ci;
		}
		else
		{
			w.lo[i] = -C * row->w_neg - ci;
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

		BkBoxQpStart(mach->coef[j], &w, j);
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

		BkBoxQpStart(mach->coef[j], &w, j);
		if (!BkBoxQpSolve(env, &w, j))
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
	BkLinSymvUpper(n, w.K, n, w.mu, w.HS);
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
