/*
 * bk_alg_ogd.c
 *	  Kernel online gradient descent, OGD, a baseline of paper 002: on the
 *	  hinge loss with a constant step eta, f_{t+1} = f_t + eta y_t k(x_t, .)
 *	  when y_t f_t(x_t) < 1 (the NORMA update of Kivinen, Smola and
 *	  Williamson 2004 without its regulariser); unbudgeted, capped by
 *	  max_sv.
 *
 *	  And Bounded Online Gradient Descent, BOGD (Zhao, Wang, Wu, Jin and Hoi,
 *	  "Fast Bounded Online Gradient Descent Algorithms for Scalable
 *	  Kernel-Based Online Learning", ICML 2012, Algorithm 1 with uniform
 *	  sampling), a baseline of paper 002 §4.  Kernel OGD on the regularised
 *	  hinge loss  lambda ||f||^2 / 2 + max(0, 1 - y f(x)):
 *
 *	      every row:            alpha_i <- (1 - eta lambda) alpha_i
 *	      on a positive loss:   add x_t with alpha_t = eta y_t
 *
 *	  and with B SVs stored, before adding x_t, one SV r is drawn uniformly
 *	  (the model's seeded generator) and removed; the others are rescaled
 *	  by 1 / (1 - 1/B) so that the reduced function is an unbiased estimate
 *	  of the full one, and clipped to |alpha_i| <= gamma eta (the paper's
 *	  bound gamma, parameter max_coef), which its regret bound needs:
 *
 *	      alpha_i <- sign(alpha_i) min(B (1 - eta lambda) |alpha_i| / (B - 1),
 *	                                   gamma eta)
 *
 *	  Regression: NORMA's step on the epsilon-insensitive loss (Kivinen,
 *	  Smola and Williamson, "Online Learning with Kernels", IEEE TSP 52(8),
 *	  2004: NORMA's update with its epsilon-insensitive regression loss): when
 *	  |t - f(x_t)| > epsilon, alpha_t = eta sign(t - f(x_t)), the shrink as
 *	  above.  That is the hinge step with y = sign(t - f) and the margin
 *	  y t - epsilon (BkRow.margin, BkModelLearnValue): OGD is NORMA without
 *	  its regulariser, BOGD NORMA with it and BOGD's budget.
 *
 *	  Novelty: NORMA's novelty detector (Kivinen, Smola and Williamson
 *	  2004), stochastic gradient descent on lambda/2 ||f||^2 +
 *	  max(0, rho - f(x)) - nu rho, the online form of the nu one-class SVM
 *	  (Schoelkopf, Platt, Shawe-Taylor, Smola and Williamson 2001): a row
 *	  with f(x_t) < rho adds x_t with alpha_t = eta, the hinge step with
 *	  y = +1 and the margin rho; the model moves rho by
 *	  -eta (1{f(x_t) < rho} - nu), the gradient of the same objective in
 *	  rho (row->rate = eta), so that at equilibrium a share nu of the rows
 *	  lies below the threshold.  BOGD's budget (random removal) stands for
 *	  NORMA's truncation of the expansion.
 *
 *	  The update follows the published algorithm as the authors' MATLAB
 *	  library (LIBOL's BOGD) and JSAT's implementation of it perform it:
 *	  the shrink (1 - eta lambda) is part of the rescaling on a full step.
 *	  With B = 1 there is nothing to rescale: the SV is replaced.
 */
#include "bk_learner.h"

#include <math.h>

static bool
BkBogdStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	const BkParams *p = &m->params;
	double		shrink = 1.0 - p->eta * p->lambda;
	/* class weights: a row of weight w steps w eta; the bound follows the largest */
	double		bound = p->max_coef * p->eta *
		(row->w_pos > row->w_neg ? row->w_pos : row->w_neg);
	int			n = mach->n_sv;
	bool		loss = row->margin - row->y * row->f > 0.0 && row->ktt > 0.0;

	if (shrink < 0.0)
		shrink = 0.0;
	row->rate = p->eta;
	if (!loss || n < p->budget)
	{
		for (int i = 0; i < n; i++)
			mach->coef[i] *= shrink;
		/* the shrink alone is not counted as an update (as Pegasos) */
		if (!loss)
			return false;
	}
	else
	{
		double		s = n > 1 ? shrink * (double) n / (double) (n - 1) : shrink;

		BkBudgetRemoveRandomIfFull(m, mach);
		for (int i = 0; i < mach->n_sv; i++)
		{
			double		a = fabs(mach->coef[i]) * s;

			if (a > bound)
				a = bound;
			mach->coef[i] = mach->coef[i] >= 0.0 ? a : -a;
		}
	}
	BkMachineAppend(mach, m->dim, row->x, row->sqx, p->eta * row->weight * row->y);
	return true;
}

/* the step size eta: 0.1 (paper 002's OGD baseline, BOGD's experiments) */
static void
ogd_param_defaults(BkParams *p)
{
	if (!BkParamGiven(p, BK_P_ETA))
		p->eta = 0.1;
}

const BkLearner bk_learner_bogd = {
	.id = BK_ALG_BOGD, .name = "bogd",
	.regression = true,
	.novelty = true,
	.source = "Zhao, Wang, Wu, Jin and Hoi, ICML 2012: bounded OGD, uniform removal",
	.params = BK_TAKES(BUDGET) | BK_TAKES(LAMBDA) | BK_TAKES(ETA) |
	BK_TAKES(MAX_COEF) | BK_TAKES(EPSILON) | BK_TAKES(NU),
	/* not eta: every stored coefficient is within max_coef * eta */
	.params_mutable = BK_TAKES(LAMBDA) | BK_TAKES(EPSILON) | BK_TAKES(NU),
	.param_defaults = ogd_param_defaults,
	.step = BkBogdStep,
};

static bool
BkOgdStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	row->rate = m->params.eta;
	if (row->y * row->f >= row->margin || row->ktt <= 0.0)
		return false;
	BkBudgetReserveUnbudgeted(m, mach);
	/* class weights: the hinge loss of a row of weight w steps w eta */
	BkMachineAppend(mach, m->dim, row->x, row->sqx,
					m->params.eta * row->weight * row->y);
	return true;
}

const BkLearner bk_learner_ogd = {
	.id = BK_ALG_OGD, .name = "ogd",
	.regression = true,
	.novelty = true,
	.source = "kernel online gradient descent on the hinge loss, constant step (paper 002's baseline)",
	.params = BK_TAKES(MAX_SV) | BK_TAKES(ETA) | BK_TAKES(EPSILON) | BK_TAKES(NU),
	.params_mutable = BK_TAKES(ETA) | BK_TAKES(EPSILON) | BK_TAKES(NU),
	.param_defaults = ogd_param_defaults,
	.step = BkOgdStep,
};
