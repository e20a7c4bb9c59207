/*
 * bk_alg_pa.c
 *	  Passive-Aggressive learners of paper 000 (Wang and Vucetic, "Online
 *	  Passive-Aggressive Algorithms on a Budget", AISTATS 2010):
 *
 *	  PA-I (eq. 1-3): w_{t+1} = argmin 1/2 ||w - w_t||^2 + C H(w; x_t, y_t),
 *	      closed form w_t + tau y_t Phi(x_t), tau = min(C, H / k(x_t, x_t)).
 *	  PA^R (eq. 13-15): the ramp loss; the same step, taken only when
 *	      |f_t(x_t)| <= 1.
 *	  BPA (eq. 6-9, Algorithm 1): when the budget B is full, the step must
 *	      also remove one of the B + 1 candidates r (the B SVs and x_t),
 *	      projecting it onto a set S of the remaining SVs:
 *	          w = w_t - alpha_r Phi(x_r) + sum_{i in S} beta_i Phi(x_i),
 *	          beta = alpha_r K^-1 k_r + tau y_t K^-1 k_t                  (9)
 *	      and r* = argmin_r Q(w^r) (eq. 7), with S = {t} (BPA-S, eq. 12),
 *	      {t} u NN(r) (BPA-NN, §3.1.3) or all others (BPA-P, §3.1.2).
 *	  BPA^R (eq. 18-19): the ramp-loss versions, updating only when
 *	      |f_t(x_t)| <= 1.
 *
 *	  Q(w^r) in closed form.  For r != t, x_t is in S, so K^-1 k_t is the
 *	  unit vector of t and (K^-1 k_r)^T k_t = k_rt: eq. 9 gives the same
 *	  tau = min(C, H / k_tt) for every r, the new margin is
 *	  y_t f_t(x_t) + tau k_tt for every r, and
 *	      ||w^r - w_t||^2 = alpha_r^2 D_r + tau^2 k_tt,
 *	      D_r = k_rr - k_r^T K^-1 k_r,
 *	  the squared feature-space distance from Phi(x_r) to span(S).  The
 *	  candidates differ only by alpha_r^2 D_r.  For r = t (alpha_t = 0: do
 *	  not add x_t) S is the variant's set without t: BPA-S leaves w as it
 *	  is (Q = C H), BPA-NN takes a PA step on x_t's nearest SV and BPA-P
 *	  projects x_t onto all SVs, as Projectron does.
 *
 *	  Under the ramp loss the update is made only when -1 <= y_t f_t <= 1,
 *	  where the ramp and hinge losses agree, and the step keeps the margin
 *	  above -1, so Q is the same expression for both losses.
 *
 *	  Class weights: the loss of a row of weight w counts w C H in eq. 1
 *	  (cost-sensitive PA-I), so every step takes C w in place of C.
 *
 *	  Regression.  PA-I regression (Crammer, Dekel, Keshet, Shalev-Shwartz
 *	  and Singer, "Online Passive-Aggressive Algorithms", JMLR 7, 2006, §4,
 *	  regression) uses the epsilon-insensitive loss
 *	      l = max(0, |t - f(x)| - epsilon)
 *	  and the step w + s tau Phi(x), s = sign(t - f(x)), tau = min(C, l / k_tt).
 *	  With s fixed, the constraint |t - w.x| <= epsilon + xi of the step's
 *	  problem is the linear s w.x >= s t - epsilon - xi: the classifier's
 *	  y w.x >= 1 - xi with y = s and the margin 1 replaced by
 *	  rho = s t - epsilon, and l = rho - s f.  Every derivation above uses
 *	  the margin only through H = rho - y f and the gain tau q of a step,
 *	  so eq. 3-19 hold as they stand with H = l: the same tau, the same
 *	  Q(w^r) = alpha_r^2 D_r / 2 + tau^2 k_tt / 2 + C (l - tau k_tt)_+ to
 *	  choose the SV removed, and the same projections (BPA-S, BPA-NN,
 *	  BPA-P).  The removal leaves f(x_t) unchanged (the projection onto a
 *	  set containing Phi(x_t) keeps <w, Phi(x_t)>), so s is the sign after
 *	  the removal too.  The model sets y = s and margin = rho
 *	  (BkModelLearnValue); the ramp loss is a classifier's only.
 */
#include "bk_learner.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* a 2 x 2 kernel matrix with det below this (relative) is singular */
#define BK_DET_TOL 1e-12

/*
 * The loss that triggers an update, or 0 for no update: the hinge loss
 * H = max(0, 1 - y f) (eq. 1), and for the ramp loss only inside the
 * margin band |f| <= 1 (eq. 15, 19); for a regressor the
 * epsilon-insensitive loss, margin - y f (above).
 */
static double
update_loss(const BkParams *p, const BkRow *row)
{
	double		loss = row->margin - row->y * row->f;

	if (loss <= 0.0)
		return 0.0;
	if (p->loss == BK_LOSS_RAMP && fabs(row->f) > 1.0)
		return 0.0;
	/* Phi(x_t) = 0 (zero vector, linear kernel): no step can help */
	if (row->ktt <= 0.0)
		return 0.0;
	return loss;
}

/* Q(w) = 1/2 ||w - w_t||^2 + C H(w) for a step of squared length sq
 * that raises the margin by gain (eq. 1). */
static double
objective(double C, double loss, double sq, double gain)
{
	double		h = loss - gain;

	return 0.5 * sq + C * (h > 0.0 ? h : 0.0);
}

/* PA step along a direction with squared norm q: tau = min(C, H / q) */
static double
pa_tau(double C, double loss, double q)
{
	double		t = loss / q;

	return t < C ? t : C;
}

/*
 * Q of a PA step along a direction of squared norm q (x_t itself: q = k_tt;
 * x_t projected onto some SVs: q = k_t^T K^-1 k_t), with its tau through
 * *tau.  A direction numerically zero leaves w_t as it is (tau = 0).
 */
static double
step_objective(double C, double loss, double q, double ktt, double *tau)
{
	if (q > BK_SPAN_TOL * ktt)
	{
		*tau = pa_tau(C, loss, q);
		return objective(C, loss, *tau * *tau * q, *tau * q);
	}
	*tau = 0.0;
	return objective(C, loss, 0.0, 0.0);
}

/* k(x_r, x_n) from the cached squared distance of BPA-NN's bookkeeping */
static double
kernel_from_dist2(const BkParams *p, double d2, double sqa, double sqb)
{
	if (p->kernel == BK_KERNEL_RBF)
		return BkExp(-p->gamma * d2);
	return BkKernelFromDot(p, 0.5 * (sqa + sqb - d2), sqa, sqb);
}

/* Add x_t as a new SV with coefficient y tau (eq. 3). */
static void
append_new(BkModel *m, BkMachine *mach, const BkRow *row, double coef)
{
	BkMachineAppend(mach, m->dim, row->x, row->sqx, coef);
	if (mach->has_nearest)
		BkNearestOnAppend(mach, row->dots);
}

/*
 * PA-I / PA^R, unbudgeted (eq. 3, 15): x_t joins the SVs with
 * alpha_t = y_t min(C, H / k_tt).
 */
static bool
BkPaStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	double		loss = update_loss(&m->params, row);

	if (loss == 0.0)
		return false;
	BkBudgetReserveUnbudgeted(m, mach);
	BkMachineAppend(mach, m->dim, row->x, row->sqx,
					row->y * pa_tau(m->params.C * row->weight, loss, row->ktt));
	return true;
}

/*
 * PA+Rand, the baseline budgeted PA of paper 000 Table 1: the PA-I / PA^R
 * step of eq. 3 / 15, and with B SVs stored a uniformly random one (the
 * model's seeded generator) is removed first.
 */
static bool
BkPaRandomStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	double		loss = update_loss(&m->params, row);

	if (loss == 0.0)
		return false;
	BkBudgetRemoveRandomIfFull(m, mach);
	BkMachineAppend(mach, m->dim, row->x, row->sqx,
					row->y * pa_tau(m->params.C * row->weight, loss, row->ktt));
	return true;
}

/* ------------------------------------------------------------------------
 * BPA-S (§3.1.1, eq. 12): S = {t}.
 * ------------------------------------------------------------------------
 */
static bool
bpa_s_full(BkModel *m, BkMachine *mach, const BkRow *row, double loss)
{
	const BkParams *p = &m->params;
	double		ktt = row->ktt;
	double		tau;
	double		common = step_objective(p->C * row->weight, loss, ktt, ktt, &tau);
	int			best = -1;
	double		bestq = objective(p->C * row->weight, loss, 0.0, 0.0);	/* r = t: w_t */
	double		alpha;
	double		beta;

	for (int r = 0; r < mach->n_sv; r++)
	{
		double		a = mach->coef[r];
		double		krt = row->krow[r];
		double		d = BkKernelSelf(p, mach->sqnorm[r]) - krt * krt / ktt;
		double		q = 0.5 * a * a * (d > 0.0 ? d : 0.0) + common;

		if (q < bestq)
		{
			bestq = q;
			best = r;
		}
	}
	if (best < 0)
		return false;

	/* eq. 12: beta_t = alpha_r k_rt / k_tt + tau y_t */
	alpha = mach->coef[best];
	beta = alpha * row->krow[best] / ktt + tau * row->y;
	BkMachineReplace(mach, m->dim, best, row->x, row->sqx, beta);
	return true;
}

/* ------------------------------------------------------------------------
 * BPA-NN (§3.1.3): S = {t} u NN(r), NN(r) the nearest SV of x_r.
 * ------------------------------------------------------------------------
 */

/*
 * krn[r] = k(x_r, x_n(r)) for every SV r and its nearest SV n(r) (0 where
 * r has none), from the kept distances: for the Gaussian kernel the
 * neighbour cache's memoised values (BkNearestRbf), else computed into
 * work (room for n_sv doubles).
 */
static const double *
nearest_kernels(const BkParams *p, BkMachine *mach, double *work)
{
	if (p->kernel == BK_KERNEL_RBF)
		return BkNearestRbf(mach, p->gamma);
	for (int r = 0; r < mach->n_sv; r++)
	{
		int			n = mach->nearest.idx[r];

		work[r] = n < 0 ? 0.0 :
			kernel_from_dist2(p, mach->nearest.dist2[r],
							  mach->sqnorm[r], mach->sqnorm[n]);
	}
	return work;
}

/*
 * Projection of Phi(x_r) onto span{Phi(x_n), Phi(x_t)}: coefficients
 * (p_n, p_t) = K^-1 k_r with the 2 x 2 K of eq. 9 as §3.1.3 writes it;
 * returns D_r = k_rr - k_r^T K^-1 k_r.  When Phi(x_n) and Phi(x_t) are
 * (numerically) parallel the span is that of Phi(x_t) alone.
 */
static double
nn_projection(const BkParams *p, const BkMachine *mach, const BkRow *row,
			  int r, double krn, double *pn, double *pt)
{
	int			n = mach->nearest.idx[r];
	double		krr = BkKernelSelf(p, mach->sqnorm[r]);
	double		krt = row->krow[r];
	double		ktt = row->ktt;
	double		d;

	if (n >= 0)
	{
		double		knn = BkKernelSelf(p, mach->sqnorm[n]);
		double		knt = row->krow[n];
		double		det = knn * ktt - knt * knt;

		if (det > BK_DET_TOL * knn * ktt)
		{
			*pn = (ktt * krn - knt * krt) / det;
			*pt = (knn * krt - knt * krn) / det;
			d = krr - (*pn * krn + *pt * krt);
			return d > 0.0 ? d : 0.0;
		}
	}
	*pn = 0.0;
	*pt = krt / ktt;
	d = krr - krt * krt / ktt;
	return d > 0.0 ? d : 0.0;
}

#ifdef BK_VECTOR_AVX2
/*
 * The candidate loop of bpa_nn_full over r < n (n a multiple of 4) for
 * the Gaussian kernel (k_rr = k_nn = 1), four candidates at a time.  Each
 * lane computes nn_projection's expressions in its order (both of its
 * branches, then keeps the one the scalar code takes) and compares q as
 * the loop does, first minimum first, so the candidate chosen and *bestq
 * are those of the scalar loop.  Returns the best r < n, or -1 if none is
 * below *bestq.  At B = 100 on a9a the scalar loop was a third of a
 * full-budget step.
 */
__attribute__((target("avx2")))
static int
nn_candidates_rbf_avx2(const BkMachine *mach, const BkRow *row,
					   const double *krn, double common, int n, double *bestq)
{
	const double ktt = row->ktt;
	const bk_v4d vktt = {ktt, ktt, ktt, ktt};
	const bk_v4d one = {1.0, 1.0, 1.0, 1.0};
	const bk_v4d half = {0.5, 0.5, 0.5, 0.5};
	const bk_v4d zero = {0.0, 0.0, 0.0, 0.0};
	const bk_v4d tol = {BK_DET_TOL, BK_DET_TOL, BK_DET_TOL, BK_DET_TOL};
	const bk_v4d vcommon = {common, common, common, common};
	bk_v4d		lane_q = {*bestq, *bestq, *bestq, *bestq};
	bk_v4i		lane_r = {-1, -1, -1, -1};
	bk_v4i		rv = {0, 1, 2, 3};
	const bk_v4i four = {4, 4, 4, 4};
	const bk_v4i none = {-1, -1, -1, -1};
	const int  *nidx = mach->nearest.idx;

	for (int r = 0; r < n; r += 4, rv += four)
	{
		bk_v4d		krt,
					kr,
					a,
					knt,
					det,
					pn,
					pt,
					d,
					dn,
					q;
		bk_v4i		has,
					ok,
					better;
		bk_v4i		nb = {nidx[r], nidx[r + 1], nidx[r + 2], nidx[r + 3]};

		memcpy(&krt, row->krow + r, sizeof(krt));
		memcpy(&kr, krn + r, sizeof(kr));
		memcpy(&a, mach->coef + r, sizeof(a));
		has = nb > none;
		/* k_{n t} of each lane's nearest SV (slot 0 where it has none) */
		nb &= has;
		knt = (bk_v4d) {row->krow[nb[0]], row->krow[nb[1]],
		row->krow[nb[2]], row->krow[nb[3]]};
		det = one * vktt - knt * knt;
		ok = has & (det > tol * one * vktt);
		pn = (vktt * kr - knt * krt) / det;
		pt = (one * krt - knt * kr) / det;
		dn = one - (pn * kr + pt * krt);
		d = one - krt * krt / vktt;
		d = BK_BLEND4(ok, dn, d);
		d = (bk_v4d) ((bk_v4i) d & (d > zero));
		q = half * a * a * d + vcommon;
		better = q < lane_q;
		lane_q = BK_BLEND4(better, q, lane_q);
		lane_r = (rv & better) | (lane_r & ~better);
	}
	return BkLanesFirstMin(lane_q, lane_r, bestq);
}
#endif

static bool
bpa_nn_full(BkModel *m, BkMachine *mach, const BkRow *row, double loss)
{
	const BkParams *p = &m->params;
	double		ktt = row->ktt;
	double		tau;
	double		common = step_objective(p->C * row->weight, loss, ktt, ktt, &tau);
	double		d2;
	int			nt;
	double		qt = 0.0;
	double		taut;
	double		bestq;
	int			best = -1;
	double		alpha,
				pn,
				pt;
	const double *krn;			/* k(x_r, x_n(r)), until the replace */
	int			n;
	int			r0;

	/*
	 * r = t: a PA step on x_t's nearest SV n_t, i.e. Phi(x_t) projected on
	 * Phi(x_n_t): direction squared norm q = k_{n_t t}^2 / k_{n_t n_t}.
	 */
	nt = BkNearestOf(mach, row->dots, row->sqx, -1, &d2);
	if (nt >= 0)
	{
		double		knn = BkKernelSelf(p, mach->sqnorm[nt]);

		if (knn > 0.0)
			qt = row->krow[nt] * row->krow[nt] / knn;
	}
	bestq = step_objective(p->C * row->weight, loss, qt, ktt, &taut);

	krn = nearest_kernels(p, mach, row->work);
	r0 = 0;
#ifdef BK_VECTOR_AVX2
	if (p->kernel == BK_KERNEL_RBF && mach->n_coef == 1 && BkVectorLanes())
	{
		r0 = mach->n_sv - mach->n_sv % 4;
		best = nn_candidates_rbf_avx2(mach, row, krn, common, r0, &bestq);
	}
#endif
	for (int r = r0; r < mach->n_sv; r++)
	{
		double		a = mach->coef[r];
		double		q = 0.5 * a * a * nn_projection(p, mach, row, r, krn[r], &pn, &pt) + common;

		if (q < bestq)
		{
			bestq = q;
			best = r;
		}
	}

	if (best < 0)
	{
		if (taut == 0.0)
			return false;
		/* beta_{n_t} = tau y_t K^-1 k_t with K = k_{n_t n_t} (eq. 9) */
		mach->coef[nt] += taut * row->y * row->krow[nt] /
			BkKernelSelf(p, mach->sqnorm[nt]);
		return true;
	}

	/* eq. 8-9: alpha_n += alpha_r p_n; x_t gets alpha_r p_t + tau y_t */
	alpha = mach->coef[best];
	(void) nn_projection(p, mach, row, best, krn[best], &pn, &pt);
	n = mach->nearest.idx[best];
	if (n >= 0)
		mach->coef[n] += alpha * pn;
	BkMachineReplace(mach, m->dim, best, row->x, row->sqx,
					 alpha * pt + tau * row->y);
	BkNearestOnReplace(&m->env, mach, m->dim, best, row->dots, row->work);
	return true;
}

/* ------------------------------------------------------------------------
 * BPA-P (§3.1.2): S = all other candidates, with G = K^-1 of the B + 1.
 * ------------------------------------------------------------------------
 */

static bool
bpa_p_full(BkModel *m, BkMachine *mach, const BkRow *row, double loss)
{
	const BkParams *p = &m->params;
	BkGramInverse *g = &mach->ginv;
	double		ktt = row->ktt;
	double		tau;
	double		common = step_objective(p->C * row->weight, loss, ktt, ktt, &tau);
	double	   *a = row->work;
	BkSpan		span = BkGramSpan(g, row->krow, ktt, a);	/* a = K^-1 k_t */
	double		q = span.q;
	double		s = span.s;		/* squared distance of Phi(x_t) to span */
	double		taut;
	double		bestq;
	int			best = -1;
	int			n = mach->n_sv;
	double		alpha,
				grr,
				beta;
	double	   *col;

	/* r = t: project x_t onto all SVs, beta = tau y_t K^-1 k_t (eq. 9) */
	bestq = step_objective(p->C * row->weight, loss, q, ktt, &taut);

	/*
	 * r != t: D_r = 1 / G_rr with G the inverse kernel matrix of all B + 1
	 * candidates; its diagonal is (K^-1)_rr + a_r^2 / s' (bordering, s' = s
	 * plus the ridge of x_t's own diagonal entry, as BkGramBorder adds it).
	 * When x_t is in the span of the SVs, adding it is not possible (G does
	 * not exist) and only the projection of x_t is considered.
	 */
	if (span.outside)
	{
		double		sb = s + g->ridge * ktt;

		for (int r = 0; r < n; r++)
		{
			double		al = mach->coef[r];
			double		gr = g->m[(size_t) r * g->cap + r] + a[r] * a[r] / sb;
			double		qr = 0.5 * al * al / gr + common;

			if (qr < bestq)
			{
				bestq = qr;
				best = r;
			}
		}
	}

	if (best < 0)
	{
		if (taut == 0.0)
			return false;
		for (int i = 0; i < n; i++)
			mach->coef[i] += taut * row->y * a[i];
		return true;
	}

	/*
	 * Remove r: beta = alpha_r (-G_{.r} / G_rr) on the others (x_t
	 * included) plus tau y_t on x_t; K_S^-1 follows from G by the Schur
	 * complement.  O(B^2) in all.
	 */
	alpha = mach->coef[best];
	/*
	 * G (x_t at index n), then r removed and x_t moved into slot best, in
	 * one pass; col = G's column best
	 */
	col = BkAllocArray(&m->env, (size_t) n + 1, sizeof(double));
	BkGramBorderRemove(&m->env, g, a, s, ktt, best, col);
	grr = col[best];
	for (int i = 0; i < n; i++)
		if (i != best)
			mach->coef[i] -= alpha * col[i] / grr;
	beta = -alpha * col[n] / grr + tau * row->y;
	BkFree(&m->env, col);
	BkMachineReplace(mach, m->dim, best, row->x, row->sqx, beta);
	BkGramNoteUpdate(&m->env, &mach->ginv, &m->params, mach, m->dim);
	return true;
}

/*
 * BPA-P while the budget is not full: the PA step of eq. 3, keeping K^-1 up
 * to date.  A vector numerically inside the span of the SVs is not added
 * (K would become singular); the same step is taken on its projection.
 */
static void
bpa_p_fill(BkModel *m, BkMachine *mach, const BkRow *row, double tau)
{
	BkGramInverse *g = &mach->ginv;
	double	   *a = row->work;
	BkSpan		span = BkGramSpan(g, row->krow, row->ktt, a);

	if (span.outside)
	{
		BkGramBorder(&m->env, g, a, span.s, row->ktt);
		BkMachineAppend(mach, m->dim, row->x, row->sqx, tau * row->y);
		BkGramNoteUpdate(&m->env, &mach->ginv, &m->params, mach, m->dim);
	}
	else
	{
		for (int i = 0; i < mach->n_sv; i++)
			mach->coef[i] += tau * row->y * a[i];
	}
}

/* Algorithm 1 of paper 000. */
static bool
BkBpaStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	const BkParams *p = &m->params;
	double		loss = update_loss(p, row);

	if (loss == 0.0)
		return false;

	if (mach->n_sv < p->budget)
	{
		double		tau = pa_tau(p->C * row->weight, loss, row->ktt);

		if (p->variant == BK_VARIANT_P)
			bpa_p_fill(m, mach, row, tau);
		else
			append_new(m, mach, row, tau * row->y);
		return true;
	}

	BkBudgetCountMaintenance(m, mach);
	switch (p->variant)
	{
		case BK_VARIANT_S:
			return bpa_s_full(m, mach, row, loss);
		case BK_VARIANT_NN:
			return bpa_nn_full(m, mach, row, loss);
		case BK_VARIANT_P:
			return bpa_p_full(m, mach, row, loss);
	}
	BkRaise(&m->env, BK_ERR_INTERNAL, NULL, "unknown BPA variant %d", p->variant);
}

/* "ridge" is BPA-P's: the other variants keep no K^-1 */
static bool
bpa_param_applies(const BkParams *p, BkParamId id, char *why, size_t whylen)
{
	if (id == BK_P_RIDGE && p->variant != BK_VARIANT_P)
	{
		if (why != NULL)
			snprintf(why, whylen,
					 "parameter \"ridge\" does not apply to algorithm \"bpa\" with variant \"%s\" (only \"p\" keeps K^-1)",
					 BkParamChoiceName(BK_P_VARIANT, p->variant));
		return false;
	}
	return true;
}

/* BPA-NN keeps every SV's nearest neighbour, BPA-P the inverse of K */
static unsigned
bpa_keeps(const BkParams *p)
{
	return p->variant == BK_VARIANT_NN ? BK_KEEP_NEAREST :
		p->variant == BK_VARIANT_P ? BK_KEEP_GRAM : 0;
}

const BkLearner bk_learner_pa = {
	.id = BK_ALG_PA, .name = "pa",
	.regression = true,
	.source = "paper 000 eq. 3 (PA-I) and eq. 15 (ramp loss)",
	.params = BK_TAKES(MAX_SV) | BK_TAKES(C) | BK_TAKES(LOSS) | BK_TAKES(EPSILON),
	.params_mutable = BK_TAKES(C) | BK_TAKES(EPSILON),
	.step = BkPaStep,
};

const BkLearner bk_learner_pa_random = {
	.id = BK_ALG_PA_RANDOM, .name = "pa_random",
	.regression = true,
	.source = "paper 000 Table 1: PA-I with random removal",
	.params = BK_TAKES(BUDGET) | BK_TAKES(C) | BK_TAKES(LOSS) | BK_TAKES(EPSILON),
	.params_mutable = BK_TAKES(C) | BK_TAKES(EPSILON),
	.step = BkPaRandomStep,
};

const BkLearner bk_learner_bpa = {
	.id = BK_ALG_BPA, .name = "bpa",
	.regression = true,
	.source = "paper 000 §3-4: BPA-S (eq. 12), BPA-NN (§3.1.3), BPA-P (eq. 8-9)",
	.params = BK_TAKES(BUDGET) | BK_TAKES(C) | BK_TAKES(LOSS) | BK_TAKES(VARIANT) |
	BK_TAKES(RIDGE) | BK_TAKES(EPSILON),
	.params_mutable = BK_TAKES(C) | BK_TAKES(EPSILON),
	.param_applies = bpa_param_applies,
	.keeps_for = bpa_keeps,
	.step = BkBpaStep,
};
