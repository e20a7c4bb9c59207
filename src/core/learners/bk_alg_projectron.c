/*
 * bk_alg_projectron.c
 *	  Projectron and Projectron++: F. Orabona, J. Keshet and B. Caputo,
 *	  "Bounded Kernel-Based Online Learning", JMLR 10:2643-2666, 2009
 *	  (ICML 2008: "The Projectron: a Bounded Kernel-Based Perceptron"),
 *	  in the fixed-budget form in which paper 001 (§4, experimental setup)
 *	  and paper 000 (Table 1) run them as baselines: "we simply store the
 *	  received SVs before the budget overflows, and then project the
 *	  subsequent ones into the space spanned by the stored SVs afterward".
 *
 *	  The projection of Phi(x_t) onto span{Phi(x_i) : i in S}:
 *	      P k(x_t, .) = sum_i d_i k(x_i, .),  d = K^-1 k_t,
 *	      ||P k(x_t, .)||^2 = k_t . d,
 *	      delta_t^2 = ||P k(x_t, .) - k(x_t, .)||^2 = k_tt - k_t . d,
 *	  K the kernel matrix of the SVs and k_t = (k(x_i, x_t))_i.  K^-1 is
 *	  kept by the rank-one updates of bk_gram.c, as BPA-P does.
 *
 *	  Projectron, on a mistake y_t f_t(x_t) <= 0:
 *	    fewer than B SVs: the perceptron step, x_t joins with alpha = y_t;
 *	    B SVs:            f += y_t P k(x_t, .), i.e. alpha += y_t d.
 *	  (The original adds x_t when delta_t exceeds a threshold eta and
 *	  projects otherwise; the fixed-budget form replaces that test by the
 *	  budget.)
 *
 *	  Projectron++ additionally, on a margin error 0 < y_t f_t(x_t) < 1
 *	  with hinge loss l_t = 1 - y_t f_t(x_t), updates with the projected
 *	  vector, never adding an SV, when l_t - delta_t^2 / eta > 0:
 *	      tau_t = min { l_t / ||P k||^2, 2 (l_t - delta_t^2 / eta) / ||P k||^2, 1 },
 *	      alpha += tau_t y_t d.
 *	  Mistakes are handled as by the Projectron.  eta is the "eta"
 *	  parameter (default 0.1).
 *
 *	  Sources.  The JMLR text itself was not available to check against,
 *	  so no figure or equation number of it is quoted here.  The rules
 *	  are as the first author's own implementation, DOGMA (F. Orabona;
 *	  github.com/denizyuret/dogma, files k_projectron_train.m and
 *	  k_projectron2_train.m, both citing the JMLR paper), writes them:
 *	  there delta is the SQUARED distance k_tt - k_t K^-1 k_t (clamped at
 *	  0), compared with eta for the Projectron's add-or-project test and
 *	  divided by eta in Projectron++'s margin-error test and step size, as
 *	  above.  The paper may state the condition with ||delta_t|| rather
 *	  than its square; with the squared form eta is a threshold on
 *	  squared feature-space distance.
 *
 *	  Numerics.  delta_t^2 is clamped at 0 (rounding can make it negative
 *	  when x_t is numerically in the span).  While the budget fills, a
 *	  vector closer than BK_SPAN_TOL (relative squared distance, as BPA-P)
 *	  to the span is projected instead of added, since adding it would
 *	  make K singular; no division by delta_t^2 happens otherwise.  A
 *	  projection numerically zero (||P k||^2 <= BK_SPAN_TOL k_tt: x_t
 *	  nearly orthogonal to every SV) is no margin-error update.
 */
#include "bk_learner.h"

#include <math.h>

/* alpha += c d over the SVs */
static void
add_projection(BkMachine *mach, const double *d, double c)
{
	for (int i = 0; i < mach->n_sv; i++)
		mach->coef[i] += c * d[i];
}

static bool
BkProjectronStep(BkModel *m, BkMachine *mach, BkRow *row)
{
	const BkParams *p = &m->params;
	BkGramInverse *g = &mach->ginv;
	double		margin = row->y * row->f;
	double	   *d = row->work;
	BkSpan		span;
	double		q,
				delta2,
				loss,
				gain,
				tau;

	/* Phi(x_t) = 0 (zero vector, linear kernel): nothing to add or project */
	if (row->ktt <= 0.0)
		return false;

	if (margin <= 0.0)
	{
		/* a mistake */
		span = BkGramSpan(g, row->krow, row->ktt, d);	/* d = K^-1 k_t */
		q = span.q;
		if (mach->n_sv < p->budget && span.outside)
		{
			BkGramBorder(&m->env, g, d, span.s, row->ktt);
			BkMachineAppend(mach, m->dim, row->x, row->sqx, row->weight * row->y);
			BkGramNoteUpdate(&m->env, g, p, mach, m->dim);
			return true;
		}
		if (!(q > 0.0))
			return false;		/* the projection is 0 */
		add_projection(mach, d, row->weight * row->y);
		if (mach->n_sv >= p->budget)
			BkBudgetCountMaintenance(m, mach);
		return true;
	}

	if (p->algorithm != BK_ALG_PROJECTRON_PP || margin >= 1.0 || mach->n_sv == 0)
		return false;

	/* Projectron++: a margin error */
	loss = 1.0 - margin;
	span = BkGramSpan(g, row->krow, row->ktt, d);
	q = span.q;
	if (!(q > BK_SPAN_TOL * row->ktt))
		return false;
	delta2 = span.s;
	if (delta2 < 0.0)
		delta2 = 0.0;
	gain = loss - delta2 / p->eta;
	if (!(gain > 0.0))
		return false;
	tau = loss / q;
	if (2.0 * gain / q < tau)
		tau = 2.0 * gain / q;
	if (tau > 1.0)
		tau = 1.0;
	/* class weights: the step of a row of weight w is w times as long */
	add_projection(mach, d, row->weight * tau * row->y);
	return true;
}

/*
 * The Projectrons project every update once the budget is full, so an
 * ill-conditioned K^-1 ruins them (Banana, B = 200: coefficients of 1e13,
 * 53 % accuracy): they keep (K + 1e-6 diag(K))^-1, as BPA-P and Pegasos
 * do (bk_internal.h, BK_GRAM_RIDGE).
 */
/* Projectron++'s threshold eta on the projection error: 0.1 */
static void
projectron_pp_param_defaults(BkParams *p)
{
	if (!BkParamGiven(p, BK_P_ETA))
		p->eta = 0.1;
}

const BkLearner bk_learner_projectron = {
	.id = BK_ALG_PROJECTRON, .name = "projectron",
	.source = "Orabona, Keshet and Caputo 2009, in paper 001 §4's fixed-budget form",
	.legacy_ridge = BK_GRAM_RIDGE,
	.params = BK_TAKES(BUDGET) | BK_TAKES(RIDGE),
	.keeps = BK_KEEP_GRAM,
	.step = BkProjectronStep,
};

const BkLearner bk_learner_projectron_pp = {
	.id = BK_ALG_PROJECTRON_PP, .name = "projectron_pp",
	.source = "Orabona, Keshet and Caputo 2009 (Projectron++), fixed budget",
	.legacy_ridge = BK_GRAM_RIDGE,
	.params = BK_TAKES(BUDGET) | BK_TAKES(ETA) | BK_TAKES(RIDGE),
	.params_mutable = BK_TAKES(ETA),
	.param_defaults = projectron_pp_param_defaults,
	.keeps = BK_KEEP_GRAM,
	.step = BkProjectronStep,
};
