/*
 * bk_alg_pegasos.c
 *	  Multi-class kernel Pegasos on a budget (paper 004: Wang, Crammer and
 *	  Vucetic, "Multi-Class Pegasos on a Budget", ICML 2010).
 *
 *	  The Crammer-Singer objective (eq. 1-3) is minimised by stochastic
 *	  sub-gradient steps with learning rate eta_t = 1 / (lambda t):
 *	  Algorithm 1, for row t with label y_t:
 *	      w <- (1 - eta_t lambda) w                                  (line 1)
 *	      if l(w_t; x_t, y_t) = max(0, 1 + f^(r_t)(x_t) - f^(y_t)(x_t)) > 0,
 *	         r_t = argmax_{i != y_t} f^(i)(x_t)                      (eq. 2)
 *	          add x_t with alpha^(y_t) = +eta_t, alpha^(r_t) = -eta_t  (line 3)
 *	      if there are B + 1 SVs: budget maintenance                 (line 6)
 *	  (1 - eta_t lambda) = (1 - 1/t) multiplies every coefficient: the
 *	  machine keeps one scale factor for that instead of a pass over the SVs.
 *	  The maintenance strategies minimise the weight degradation
 *	  ||Delta w||^2 (eq. 14):
 *	      random            remove a random SV
 *	      smallest          remove argmin ||alpha_p||^2 k(x_p, x_p)   (§4.1)
 *	      projection        project the smallest SV onto the others,
 *	                        alpha^(i) += alpha_p^(i) K^-1 k_p (eq. 16), O(B^2)
 *	      projection_best   project the SV minimising
 *	                        ||alpha_p||^2 (k_pp - k_p^T K^-1 k_p) (eq. 17); with
 *	                        K^-1 of all B + 1 SVs kept, that is ||alpha_p||^2 / G_pp,
 *	                        so O(B^2) rather than O(B^3)
 *	      merge             merge the smallest SV with its best partner (§4.3,
 *	                        bk_merge.c): one kernel row, O(B d), then an O(B)
 *	                        search
 *	      none              no budget: capped by max_sv
 *	  Line 8, w <- min(1, 1 / (sqrt(lambda) ||w||)) w, the projection onto
 *	  the ball of radius 1/sqrt(lambda) that holds the optimum (Lemma 1),
 *	  is applied with ball_projection.  It needs ||w||^2, which is kept
 *	  exactly by closed-form updates: the shrink multiplies it by
 *	  (1 - 1/t)^2; adding beta Phi(x_t) adds 2 beta.f(x_t) + ||beta||^2 k_tt;
 *	  removing alpha_p Phi(x_p) adds -2 alpha_p.f(x_p) + ||alpha_p||^2 k_pp
 *	  (one kernel row); projecting subtracts the degradation
 *	  ||alpha_p||^2 / G_pp (the residual is orthogonal to the rest); merging
 *	  adds 2 <w, Delta w> + ||Delta w||^2 (three kernel rows).  Every n_sv
 *	  rows it is recomputed from scratch (one kernel row per SV, O(n_sv)
 *	  memory), so rounding cannot drift.
 *
 *	  With a single class seen so far there is no r_t: the loss is
 *	  max(0, 1 - f^(y_t)) and only y_t's coefficient is set.  Declaring the
 *	  classes up front ("classes") gives every class its column from row 1.
 */
#include "bk_learner.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* below this, fold the scale into the coefficients (keeps them finite) */
#define BK_MIN_SCALE 1e-150
/* the smallest lambda a new model takes (pegasos_check_params) */
#define BK_MIN_PEGASOS_LAMBDA 1e-100

/*
 * out[c] = sum_j alpha_j^(c) krow[j] for the classes c < nc.  The sums are
 * kept in locals, four classes at a time: summed into out, which the
 * compiler cannot tell apart from the coefficients, every term was a store
 * and a reload (13 % of Pegasos' time on a9a).  Each class still adds its
 * terms in the order of j, so the sums are the same bits.
 */
static void
class_sums(const BkMachine *mach, const double *krow, int nc, double *out)
{
	int			K = mach->n_coef;
	int			n = mach->n_sv;
	const double *coef = mach->coef;

	for (int c0 = 0; c0 < nc; c0 += 4)
	{
		int			w = nc - c0 < 4 ? nc - c0 : 4;
		double		s0 = 0.0,
					s1 = 0.0,
					s2 = 0.0,
					s3 = 0.0;

		for (int j = 0; j < n; j++)
		{
			const double *a = coef + (size_t) j * K + c0;
			double		kj = krow[j];

			s0 += a[0] * kj;
			if (w > 1)
				s1 += a[1] * kj;
			if (w > 2)
				s2 += a[2] * kj;
			if (w > 3)
				s3 += a[3] * kj;
		}
		out[c0] = s0;
		if (w > 1)
			out[c0 + 1] = s1;
		if (w > 2)
			out[c0 + 2] = s2;
		if (w > 3)
			out[c0 + 3] = s3;
	}
}

static void
BkPegasosScores(const BkModel *m, const BkMachine *mach, const BkRow *row,
				double *scores)
{
	int			K = mach->n_coef;
	int			nc = m->n_classes < K ? m->n_classes : K;

	for (int c = nc; c < m->n_classes; c++)
		scores[c] = 0.0;
	class_sums(mach, row->krow, nc, scores);
	for (int c = 0; c < m->n_classes; c++)
		scores[c] *= mach->scale;
}

/*
 * f^(i)(v) = scale sum_j alpha_j^(i) k(x_j, v) for every class into F
 * (n_coef values); work takes n_sv dot products.
 */
static void
scores_at(const BkModel *m, const BkMachine *mach, const double *v, double sqv,
		  double *work, double *F)
{
	int			K = mach->n_coef;

	/* the kernel row of v, computed in place over its dot products */
	BkKernelRow(&m->params, mach, m->dim, v, sqv, work, work);
	class_sums(mach, work, K, F);
	for (int c = 0; c < K; c++)
		F[c] *= mach->scale;
}

/* sum_i a^(i) b^(i) over the classes */
static double
dot_k(const double *a, const double *b, int K)
{
	double		s = 0.0;

	for (int c = 0; c < K; c++)
		s += a[c] * b[c];
	return s;
}

/*
 * ||w||^2 = scale^2 sum_i alpha^(i)T K alpha^(i), from scratch: one kernel
 * row per SV (BkLinGemv), O(n_sv^2 dim) time and O(n_sv) memory, every n_sv rows.
 */
static double
exact_wnorm2(const BkModel *m, const BkMachine *mach, double *work)
{
	int			n = mach->n_sv;
	int			K = mach->n_coef;
	double		total = 0.0;

	for (int i = 0; i < n; i++)
	{
		const double *ai = mach->coef + (size_t) i * K;

		BkMachineDots(mach, n, m->dim, BkSvRow(mach, i), work);
		for (int j = 0; j < n; j++)
		{
			double		k = i == j ? BkKernelSelf(&m->params, mach->sqnorm[i]) :
				BkKernelFromDot(&m->params, work[j], mach->sqnorm[i], mach->sqnorm[j]);

			total += dot_k(ai, mach->coef + (size_t) j * K, K) * k;
		}
		if (i % 64 == 63)
			BkCheckInterrupts(&m->env);
	}
	return total * mach->scale * mach->scale;
}

/*
 * Whether ||w||^2 is computed from scratch after this row: when the rows
 * seen are a multiple of the power of two at or above n_sv, so every n_sv
 * to 2 n_sv rows, O(n_sv dim) a row amortised.  (A multiple of n_sv itself
 * is due on every row while each row adds an SV, n_sv = rows_seen, as
 * without a budget: O(n_sv^2 dim) a row, cubic in the rows in all; 2,700
 * bytes of fuzz input took 177 s.)
 */
static bool
exact_wnorm2_due(uint64_t rows_seen, int n_sv)
{
	uint64_t	period = 1;

	if (n_sv <= 0)
		return false;
	while (period < (uint64_t) n_sv)
		period <<= 1;
	return rows_seen % period == 0;
}

/*
 * A maintenance step's ||Delta w||^2, as the degradation counts it: never
 * negative.  A negative value is rounding of a change near 0, or a K^-1
 * whose diagonal lost its sign (a numerically singular K, or a crafted
 * base model); it counts as no damage, so the stored sum stays what it
 * is, a sum of squares.
 */
static double
damage(double delta)
{
	return delta > 0.0 ? delta : 0.0;
}


/*
 * Project SV pi onto the other SVs and remove it (eq. 16): with G the
 * inverse of all current SVs, the coefficients of the projection are
 * a = -G_{.p} / G_pp.
 *
 * G is the inverse of K + r diag(K) (r = BK_GRAM_RIDGE, a deviation from
 * the exact K^-1 of eq. 16-17: see BkGramInverse).  Then a = (K_P + r
 * D_P)^-1 k_P, and with res = Phi_p - sum_j a_j Phi_j, D_jj = k(x_j, x_j):
 *     k_pp - a.k_P           = 1 / G_pp - r k_pp
 *     (k_P - K_P a)_j        = r D_jj a_j
 *     ||res||^2              = 1 / G_pp - r k_pp - r sum_j D_jj a_j^2
 *     <w_P, res>             = sum_j alpha_j r D_jj a_j  (per class)
 * so ||Delta w||^2 = ||alpha_p||^2 ||res||^2 and the change of ||w||^2,
 * 2 <w, Delta w> + ||Delta w||^2 with Delta w = -alpha_p res, come in O(B)
 * exactly (r = 0: ||alpha_p||^2 / G_pp and -||alpha_p||^2 / G_pp, eq. 17).
 */
static void
project_out(BkModel *m, BkMachine *mach, int pi)
{
	BkGramInverse *g = &mach->ginv;
	int			K = mach->n_coef;
	double		gpp = g->m[(size_t) pi * g->cap + pi];
	const double *ap = mach->coef + (size_t) pi * K;
	double		r = g->ridge;
	double		kpp = BkKernelSelf(&m->params, mach->sqnorm[pi]);
	double		s2 = mach->scale * mach->scale;
	double		res2 = 1.0 / gpp - r * kpp;
	double		wres = 0.0;		/* sum over classes of alpha_p . <w_P, res> */
	double		delta;

	if (r > 0.0)
		for (int j = 0; j < mach->n_sv; j++)
		{
			double		a,
						dj;

			if (j == pi)
				continue;
			a = -BkGramAt(g, j, pi) / gpp;
			dj = BkKernelSelf(&m->params, mach->sqnorm[j]);
			res2 -= r * dj * a * a;
			for (int c = 0; c < K; c++)
				wres += ap[c] * mach->coef[(size_t) j * K + c] * r * dj * a;
		}
	if (res2 < 0.0)
		res2 = 0.0;
	delta = damage(BkMachineCoefNorm2(mach, pi) * res2 * s2);
	mach->degradation += delta;
	/*
	 * ||w + Delta w||^2 = ||w||^2 - 2 alpha_p.<w_P, res> - 2 ||alpha_p||^2
	 * <Phi_p, res> + ||Delta w||^2; with r = 0 the residual is orthogonal
	 * to what stays and ||w||^2 loses exactly ||Delta w||^2
	 */
	if (m->params.ball_projection)
		mach->wnorm2 += -2.0 * wres * s2 -
			2.0 * BkMachineCoefNorm2(mach, pi) * (1.0 / gpp - r * kpp) * s2 + delta;

	for (int j = 0; j < mach->n_sv; j++)
	{
		double		f;

		if (j == pi)
			continue;
		f = -BkGramAt(g, j, pi) / gpp;
		for (int c = 0; c < K; c++)
			mach->coef[(size_t) j * K + c] += ap[c] * f;
	}
	BkGramRemove(&m->env, g, pi);
	BkMachineRemove(mach, m->dim, pi);
	BkGramNoteUpdate(&m->env, g, &m->params, mach, m->dim);
}

/* Remove SV pi; ||Delta w||^2 = ||alpha_p||^2 k(x_p, x_p). */
static void
remove_sv(BkModel *m, BkMachine *mach, const BkRow *row, int pi)
{
	double		s2 = mach->scale * mach->scale;
	double		delta = damage(BkMachineCoefNorm2(mach, pi) *
							   BkKernelSelf(&m->params, mach->sqnorm[pi]) * s2);

	mach->degradation += delta;
	if (m->params.ball_projection)
	{
		int			K = mach->n_coef;
		double	   *F = BkAllocArray(&m->env, (size_t) K, sizeof(double));
		const double *ap = mach->coef + (size_t) pi * K;

		/* ||w - a_p Phi_p||^2 = ||w||^2 - 2 a_p.f(x_p) + ||a_p||^2 k_pp */
		scores_at(m, mach, BkSvRow(mach, pi), mach->sqnorm[pi],
				  row->work, F);
		mach->wnorm2 += -2.0 * mach->scale * dot_k(ap, F, K) + delta;
		BkFree(&m->env, F);
	}
	BkMachineRemove(mach, m->dim, pi);
}

/* Merge the smallest SV with its best partner (§4.3, bk_merge.c). */
static void
merge_sv(BkModel *m, BkMachine *mach, const BkRow *row, int mi)
{
	int			K = mach->n_coef;
	double		s2 = mach->scale * mach->scale;
	double	   *work = row->work;	/* n_sv dots of x_m */
	double	   *zbuf = BkModelMergePoint(m);	/* dim values */
	double	   *az = BkAllocArray(&m->env, (size_t) K, sizeof(double));
	BkMergeChoice c;

	/*
	 * Almost always (99 % of a9a's merges) the SV merged away is the row
	 * just added, the last SV, whose dots with the others the row's kernel
	 * row computed: the same bits as a BkMachineDots of the stored copy
	 * (BkLinGemv sums each row's dot product in one fixed order), so the
	 * search takes them rather than a second pass over the SV matrix, and
	 * the kernel values of those dots rather than an exp each
	 */
	if (row->dense_dots && mi == mach->n_sv - 1 && row->x != NULL &&
		memcmp(BkSvRow(mach, mi), row->x, sizeof(double) * (size_t) m->dim) == 0)
	{
		work = row->dots;
		work[mi] = mach->sqnorm[mi];
		BkMergeChooseDots(&m->env, &m->params, mach, m->dim, mi, work,
						  row->krow,
						  BkModelMergeScratch(m, BK_MERGE_SCRATCH(mach->n_sv)), &c);
	}
	else
		BkMergeChoose(&m->env, &m->params, mach, m->dim, mi, work, &c);
	BkMergePoint(&m->params, mach, m->dim, &c, work, zbuf, az);
	mach->degradation += damage(c.degradation * s2);
	if (m->params.ball_projection)
	{
		/* ||w + D||^2 = ||w||^2 + 2 <w, D> + ||D||^2, D = a_z Phi_z - a_m Phi_m - a_n Phi_n */
		double	   *F = BkAllocArray(&m->env, (size_t) K, sizeof(double));
		double	   *tmp = BkAllocArray(&m->env, (size_t) mach->n_sv, sizeof(double));
		double		wd;

		scores_at(m, mach, zbuf, BkDot(zbuf, zbuf, m->dim), tmp, F);
		wd = dot_k(az, F, K);
		scores_at(m, mach, BkSvRow(mach, c.m), mach->sqnorm[c.m], tmp, F);
		wd -= dot_k(mach->coef + (size_t) c.m * K, F, K);
		scores_at(m, mach, BkSvRow(mach, c.n), mach->sqnorm[c.n], tmp, F);
		wd -= dot_k(mach->coef + (size_t) c.n * K, F, K);
		mach->wnorm2 += 2.0 * mach->scale * wd + c.degradation * s2;
		BkFree(&m->env, F);
		BkFree(&m->env, tmp);
	}
	BkMergeApply(mach, m->dim, &c, zbuf, az);
	BkFree(&m->env, az);
}

/* Line 6 of Algorithm 1: from B + 1 SVs back to B. */
static void
maintain(BkModel *m, BkMachine *mach, const BkRow *row)
{
	const BkParams *p = &m->params;
	int			pi;

	switch (p->maintenance)
	{
		case BK_MAINT_RANDOM:
			remove_sv(m, mach, row, (int) BkRngBelow(&m->rng, (uint64_t) mach->n_sv));
			break;
		case BK_MAINT_SMALLEST:
			remove_sv(m, mach, row, BkMachineSmallestSv(p, mach));
			break;
		case BK_MAINT_PROJECTION:
			project_out(m, mach, BkMachineSmallestSv(p, mach));
			break;
		case BK_MAINT_PROJECTION_BEST:
			/* eq. 17: degradation ||alpha_p||^2 / G_pp */
			pi = BkGramLeastDegrading(mach, &mach->ginv);
			project_out(m, mach, pi >= 0 ? pi : BkMachineSmallestSv(p, mach));
			break;
		case BK_MAINT_MERGE:
			merge_sv(m, mach, row, BkMachineSmallestSv(p, mach));
			break;
		default:
			BkRaise(&m->env, BK_ERR_INTERNAL, NULL, "unknown maintenance %d",
					p->maintenance);
	}
	BkBudgetCountMaintenance(m, mach);
}

/* Fold the scale into the coefficients before it underflows. */
static void
renormalise(BkMachine *mach)
{
	size_t		n = (size_t) mach->n_sv * mach->n_coef;

	for (size_t i = 0; i < n; i++)
		mach->coef[i] *= mach->scale;
	mach->scale = 1.0;
}

/*
 * Add x_t with stored coefficients beta (the new SV's actual coefficients
 * divided by the scale).  With K^-1 kept (projection), a vector inside the
 * span of the SVs would make K singular: its expansion is added to the SVs
 * instead.  Returns true if x_t became an SV.
 */
static bool
add_sv(BkModel *m, BkMachine *mach, const BkRow *row, int cls, int r,
	   double beta)
{
	int			K = mach->n_coef;
	int			slot;

	if (mach->has_ginv)
	{
		BkGramInverse *g = &mach->ginv;
		double	   *a = row->work;
		BkSpan		span = BkGramSpan(g, row->krow, row->ktt, a);

		if (!span.outside)
		{
			for (int j = 0; j < mach->n_sv; j++)
			{
				mach->coef[(size_t) j * K + cls] += beta * a[j];
				if (r >= 0)
					mach->coef[(size_t) j * K + r] -= beta * a[j];
			}
			return false;
		}
		BkGramBorder(&m->env, g, a, span.s, row->ktt);
	}
	if (m->params.maintenance == BK_MAINT_NONE)
		BkBudgetReserveUnbudgeted(m, mach);
	slot = BkMachineAppend(mach, m->dim, row->x, row->sqx, 0.0);
	mach->coef[(size_t) slot * K + cls] = beta;
	if (r >= 0)
		mach->coef[(size_t) slot * K + r] = -beta;
	if (mach->has_ginv)
		BkGramNoteUpdate(&m->env, &mach->ginv, &m->params, mach, m->dim);
	return true;
}

/* Line 1 of Algorithm 1: w <- (1 - 1/t) w (at t = 1, w is still 0); the shrink */
static double
shrink_step(BkModel *m, BkMachine *mach)
{
	double		t = (double) m->rows_seen;	/* this row, from 1 */
	double		shrink = t > 1.0 ? (t - 1.0) / t : 0.0;

	if (t > 1.0)
		mach->scale *= shrink;
	if (mach->scale < BK_MIN_SCALE)
		renormalise(mach);
	if (m->params.ball_projection)
		mach->wnorm2 *= shrink * shrink;
	return shrink;
}

/* Line 8: w <- min(1, 1 / (sqrt(lambda) ||w||)) w, with ball_projection */
static void
ball_step(BkModel *m, BkMachine *mach, const BkRow *row)
{
	const BkParams *p = &m->params;

	if (!p->ball_projection)
		return;
	/* against rounding drift: from scratch every n_sv rows or so */
	if (exact_wnorm2_due(m->rows_seen, mach->n_sv))
		mach->wnorm2 = exact_wnorm2(m, mach, row->work);
	/*
	 * rounding of the subtractions above, or of the exact sum, whose
	 * terms of both signs can cancel to a tiny negative (-4.9e-301 on
	 * the fuzz input pegasos-exact-norm-negative)
	 */
	if (mach->wnorm2 < 0.0)
		mach->wnorm2 = 0.0;
	if (mach->wnorm2 * p->lambda > 1.0)
	{
		mach->scale *= 1.0 / sqrt(p->lambda * mach->wnorm2);
		mach->wnorm2 = 1.0 / p->lambda;
	}
}

static bool
BkPegasosStep(BkModel *m, BkMachine *mach, BkRow *row, int cls)
{
	const BkParams *p = &m->params;
	const double *sc = m->scores;	/* f^(i)(x_t) of w_t */
	double		t = (double) m->rows_seen;	/* this row, from 1 */
	double		eta = 1.0 / (p->lambda * t);
	int			r = -1;
	double		loss;
	double		shrink;

	/* eq. 2: the multi-class hinge loss of w_t */
	for (int i = 0; i < m->n_classes; i++)
		if (i != cls && (r < 0 || sc[i] > sc[r]))
			r = i;
	loss = 1.0 - sc[cls] + (r >= 0 ? sc[r] : 0.0);

	shrink = shrink_step(m, mach);

	if (loss > 0.0)
	{
		/*
		 * line 3: add x_t with +eta_t for y_t and -eta_t for r_t; with
		 * class weights the loss of a row of weight w counts w times, and
		 * so does its subgradient: w eta_t (the shrink of line 1 stays)
		 */
		double		step = eta * row->weight;

		if (p->ball_projection)
		{
			/* 2 beta.f(x_t) of the shrunk w, plus ||beta||^2 k_tt */
			double		bf = sc[cls] - (r >= 0 ? sc[r] : 0.0);

			mach->wnorm2 += 2.0 * step * shrink * bf +
				(r >= 0 ? 2.0 : 1.0) * step * step * row->ktt;
		}
		if (add_sv(m, mach, row, cls, r, step / mach->scale) &&
			p->maintenance != BK_MAINT_NONE && mach->n_sv > p->budget)
			maintain(m, mach, row);
	}
	ball_step(m, mach, row);
	return loss > 0.0;
}

/*
 * Regression: Algorithm 1 on the epsilon-insensitive loss, one
 * coefficient per SV.  The objective is lambda/2 ||w||^2 +
 * 1/n sum_t max(0, |t_t - w.x_t| - epsilon), the primal of support vector
 * regression with C = 1 / (lambda n); its subgradient at a row outside
 * the tube is -s Phi(x_t), s = sign(t_t - f(x_t)), so a step adds x_t with
 * eta_t s after the shrink of line 1: NORMA's step (Kivinen, Smola and
 * Williamson 2004) with Pegasos' rate eta_t = 1 / (lambda t).  The model
 * hands the step y = s and the margin y t - epsilon (BkRow.margin), so the
 * loss is margin - y f; the budget maintenance (merging by default, eq.
 * 14-22) and the ball projection are the classifier's: they minimise the
 * weight degradation, whatever the loss.
 *
 * Novelty: the same steps on lambda/2 (||w||^2 + rho^2) + 1/n sum_t
 * max(0, rho - w.x_t) - nu rho, the nu one-class SVM's primal (Schoelkopf
 * et al. 2001) with the threshold regularised as a bias is by a constant
 * feature: a row below the threshold adds x_t with eta_t (y = +1, margin
 * rho), and the model moves rho as w: (1 - 1/t) rho - eta_t (1{f < rho} -
 * nu) (row->rate, row->rho_decay).  Unregularised, rho took the first
 * rows' steps of about 1 / lambda and kept them (at nu 0.05 it fell to
 * -70 on the novelty test's square and flagged nothing); regularised, it
 * is the average of its steps, as w is.  A one-class SVM on a budget.
 */
static bool
pegasos_value_step(BkModel *m, BkMachine *mach, BkRow *row)
{
	const BkParams *p = &m->params;
	double		t = (double) m->rows_seen;	/* this row, from 1 */
	double		eta = 1.0 / (p->lambda * t);
	double		loss = row->margin - row->y * row->f;
	double		shrink = shrink_step(m, mach);

	row->rate = eta;
	row->rho_decay = shrink;

	if (loss > 0.0 && row->ktt > 0.0)
	{
		if (p->ball_projection)
			mach->wnorm2 += 2.0 * eta * shrink * row->y * row->f + eta * eta * row->ktt;
		if (add_sv(m, mach, row, 0, -1, row->y * eta / mach->scale) &&
			p->maintenance != BK_MAINT_NONE && mach->n_sv > p->budget)
			maintain(m, mach, row);
	}
	ball_step(m, mach, row);
	return loss > 0.0 && row->ktt > 0.0;
}

/*
 * A regressor's lambda: 1e-3.  The first steps of the rate 1 / (lambda t)
 * put coefficients of about 1 / lambda on the first rows, which a
 * classifier's sign survives and a regressor's value does not: at the
 * classifier's 1e-4 a one-pass regressor ended at R^2 -3.2 on a smooth
 * function of 4 000 rows (0.996 at 1e-3) and 0.52 on California housing's
 * 15 480 (0.69 at 1e-3; test/sql/regressor.sql, doc/regression.md).
 */
static void
pegasos_param_defaults(BkParams *p)
{
	if ((p->regression || p->novelty) && !BkParamGiven(p, BK_P_LAMBDA))
		p->lambda = 1e-3;
}

/* the projections keep K^-1 of all B + 1 SVs */
static unsigned
pegasos_keeps(const BkParams *p)
{
	return p->maintenance == BK_MAINT_PROJECTION ||
		p->maintenance == BK_MAINT_PROJECTION_BEST ? BK_KEEP_GRAM : 0;
}

/* the sum of ||Delta w||^2 is >= 0; the scale shrinks by (1 - 1/t) */
static int
pegasos_check_sums(const BkParams *p, uint64_t updates, double scale,
				   double degradation)
{
	if (!isfinite(degradation) || degradation < 0.0)
		return BK_SUMS_BAD_DEGRADATION;
	return isfinite(scale) && scale > 0.0 ? BK_SUMS_OK : BK_SUMS_BAD_SCALE;
}

/* "none" is unbudgeted, capped by max_sv; the others keep a budget */
static bool
pegasos_param_applies(const BkParams *p, BkParamId id, char *why,
					  size_t whylen)
{
	bool		budgeted = p->maintenance != BK_MAINT_NONE;

	if (id == BK_P_RIDGE && p->maintenance != BK_MAINT_PROJECTION &&
		p->maintenance != BK_MAINT_PROJECTION_BEST)
	{
		if (why != NULL)
			snprintf(why, whylen,
					 "parameter \"ridge\" does not apply to algorithm \"pegasos\" with maintenance \"%s\" (only \"projection\" and \"projection_best\" keep K^-1)",
					 BkParamChoiceName(BK_P_MAINTENANCE, p->maintenance));
		return false;
	}

	if ((id == BK_P_BUDGET && !budgeted) || (id == BK_P_MAX_SV && budgeted))
	{
		if (why != NULL)
			snprintf(why, whylen,
					 "parameter \"%s\" does not apply to algorithm \"pegasos\" with maintenance \"%s\" (%s)",
					 id == BK_P_BUDGET ? "budget" : "max_sv",
					 BkParamChoiceName(BK_P_MAINTENANCE, p->maintenance),
					 id == BK_P_BUDGET ? "\"none\" is unbudgeted, capped by max_sv" :
					 "max_sv caps the unbudgeted maintenance \"none\"");
		return false;
	}
	return true;
}

/*
 * The strategies of paper 004 §4; merging is derived for the Gaussian
 * kernel (§4.3).  Pegasos' first step is eta_1 = 1 / lambda, and its weight
 * degradation and ||w||^2 grow with 1 / lambda^2: below 1e-100 they
 * overflow a double within a few rows, and no such setting is useful.
 * Refused for new models only: a stored model with a smaller lambda stays
 * readable.
 */
static bool
pegasos_check_params(const BkParams *p, bool stored, char *err, size_t errlen)
{
	if (p->maintenance < BK_MAINT_NONE || p->maintenance > BK_MAINT_MERGE)
	{
		snprintf(err, errlen,
				 "maintenance \"%s\" does not apply to algorithm \"pegasos\" (its strategies: \"none\", \"random\", \"smallest\", \"projection\", \"projection_best\", \"merge\")",
				 BkParamChoiceName(BK_P_MAINTENANCE, p->maintenance));
		return false;
	}
	if (p->maintenance == BK_MAINT_MERGE && p->kernel != BK_KERNEL_RBF)
	{
		snprintf(err, errlen,
				 "maintenance \"merge\" needs the \"rbf\" kernel (paper 004 derives merging for the Gaussian kernel)");
		return false;
	}
	if (!stored && p->lambda < BK_MIN_PEGASOS_LAMBDA)
	{
		snprintf(err, errlen,
				 "parameter \"lambda\" of algorithm \"pegasos\" must be at least %g (its steps 1/(lambda t) would overflow), got %g",
				 BK_MIN_PEGASOS_LAMBDA, p->lambda);
		return false;
	}
	return true;
}

const BkLearner bk_learner_pegasos = {
	.id = BK_ALG_PEGASOS, .name = "pegasos",
	.source = "paper 004 Algorithm 1, eq. 14-17 and §4.3 (multi-class Pegasos on a budget)",
	.multiclass = true,
	.regression = true,
	.novelty = true,
	.params = BK_TAKES(BUDGET) | BK_TAKES(MAX_SV) | BK_TAKES(LAMBDA) |
	BK_TAKES(MAINTENANCE) | BK_TAKES(BALL_PROJECTION) | BK_TAKES(RIDGE) |
	BK_TAKES(EPSILON) | BK_TAKES(NU),
	.params_mutable = BK_TAKES(LAMBDA) | BK_TAKES(EPSILON) | BK_TAKES(NU),
	.param_applies = pegasos_param_applies,
	.param_defaults = pegasos_param_defaults,
	.check_params = pegasos_check_params,
	.extra_slots = 1,			/* it adds the new SV, then maintains */
	.keeps_for = pegasos_keeps,
	.step_class = BkPegasosStep,
	.class_scores = BkPegasosScores,
	.step = pegasos_value_step, /* a regressor's or novelty detector's one machine */
	.check_sums = pegasos_check_sums,
	.degradation_key = "weight_degradation",
};
